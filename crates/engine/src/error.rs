//! The engine's typed errors: each says which rule a move or a deal broke.

use std::fmt::Write;

use crate::end::{EndId, OpenEnd};
use crate::rules::{RulesError, Seat};
use crate::tile::Tile;

/// Why the engine refused a move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// The hand has ended and the next one is not dealt yet.
    #[error("no hand is in play: the next hand has not been dealt")]
    NoHand,
    /// A seat that is not at the table.
    #[error("there is no seat {seat} in a game of {players} players")]
    NoSuchSeat {
        /// The seat named.
        seat: Seat,
        /// Players in the game.
        players: usize,
    },
    /// Another seat is to play.
    #[error("it is seat {turn}'s turn, not seat {seat}'s")]
    NotYourTurn {
        /// The seat that tried to play.
        seat: Seat,
        /// The seat whose turn it is.
        turn: Seat,
    },
    /// The tile is not in the player's hand.
    #[error("{tile} is not in your hand")]
    NotInHand {
        /// The tile.
        tile: Tile,
    },
    /// After a forced draw, the tile drawn must be played.
    #[error("you drew {drawn}, which plays, so it must be played now")]
    MustPlayDrawn {
        /// The tile drawn.
        drawn: Tile,
    },
    /// A tile played onto a layout without naming an end.
    #[error("the layout has tiles, so a move must name an end: {}", list(.ends))]
    MissingEnd {
        /// The open ends.
        ends: Vec<OpenEnd>,
    },
    /// An end named for the lead.
    #[error(
        "the first tile of a hand is led, not played on an end, so its end must be null, not {end}"
    )]
    LeadHasNoEnd {
        /// The end named.
        end: EndId,
    },
    /// An end that the layout does not have.
    #[error("the layout has no end {end}; its open ends: {}", list(.ends))]
    NoSuchEnd {
        /// The end named.
        end: EndId,
        /// The open ends.
        ends: Vec<OpenEnd>,
    },
    /// A short end of a spinner before both long sides have a tile.
    #[error(
        "the spinner's short ends open only when both long sides have a tile, so {end} is not open yet"
    )]
    ShortEndClosed {
        /// The end named.
        end: EndId,
    },
    /// The tile matches no open end at all.
    #[error("{tile} does not match any open end: {}", list(.ends))]
    NoMatch {
        /// The tile.
        tile: Tile,
        /// The open ends.
        ends: Vec<OpenEnd>,
    },
    /// The tile is on the table already (every tile of the set is unique).
    #[error("{tile} is on the table already")]
    OnTable {
        /// The tile.
        tile: Tile,
    },
    /// The tile matches another end, not the one named.
    #[error("{tile} does not match the {end} end; the open ends: {}", list(.ends))]
    WrongEnd {
        /// The tile.
        tile: Tile,
        /// The end named.
        end: EndId,
        /// The open ends.
        ends: Vec<OpenEnd>,
    },
}

impl MoveError {
    /// A short stable name for the rule broken, for logs and scripts.
    pub fn code(&self) -> &'static str {
        match self {
            MoveError::GameOver => "game_over",
            MoveError::NoHand => "no_hand",
            MoveError::NoSuchSeat { .. } => "no_such_seat",
            MoveError::NotYourTurn { .. } => "not_your_turn",
            MoveError::NotInHand { .. } => "not_in_hand",
            MoveError::MustPlayDrawn { .. } => "must_play_drawn",
            MoveError::MissingEnd { .. } => "missing_end",
            MoveError::LeadHasNoEnd { .. } => "lead_has_no_end",
            MoveError::NoSuchEnd { .. } => "no_such_end",
            MoveError::ShortEndClosed { .. } => "short_end_closed",
            MoveError::NoMatch { .. } => "no_match",
            MoveError::WrongEnd { .. } => "wrong_end",
            MoveError::OnTable { .. } => "on_table",
        }
    }
}

/// "left 3, right 5": the open ends and their numbers.
fn list(ends: &[OpenEnd]) -> String {
    let mut text = String::new();
    for (i, e) in ends.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let _ = write!(text, "{sep}{} {}", e.end, e.number);
    }
    text
}

/// Why a deal cannot start a hand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// A hand is still being played.
    #[error("a hand is in play: it must end before the next is dealt")]
    HandInPlay,
    /// Not one hand a player.
    #[error("the deal has {got} hands for {players} players")]
    Hands {
        /// Hands in the deal.
        got: usize,
        /// Players in the game.
        players: usize,
    },
    /// A hand of the wrong size.
    #[error("seat {seat}'s hand has {got} tiles; the rules deal {expected}")]
    HandSize {
        /// The seat.
        seat: Seat,
        /// Tiles in that hand.
        got: usize,
        /// The rules' hand size.
        expected: usize,
    },
    /// A tile dealt twice.
    #[error("{0} is dealt twice")]
    Duplicate(Tile),
    /// A tile dealt nowhere.
    #[error("{0} is missing: hands and boneyard together must hold all 28 tiles once each")]
    Missing(Tile),
    /// A leader who is not at the table.
    #[error("the leader must be a seat from 0 to {}, not {leader}", .players.saturating_sub(1))]
    Leader {
        /// The leader given.
        leader: Seat,
        /// Players in the game.
        players: usize,
    },
    /// The rules cannot be played, so no deal fits them.
    #[error("no deal fits these rules: {0}")]
    Rules(#[from] RulesError),
    /// Another seat went out last hand and must lead.
    #[error("seat {expected} went out in the last hand and must lead, not seat {got}")]
    WrongLeader {
        /// The seat that must lead.
        expected: Seat,
        /// The leader given.
        got: Seat,
    },
}

/// A seat named that is not at the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("seat {seat}, but a game of {players} players has seats 0 to {}", .players.saturating_sub(1))]
pub struct SeatError {
    /// The seat named.
    pub seat: Seat,
    /// Players in the game.
    pub players: usize,
}

/// Why a game cannot be built from a view and a guess at its hidden tiles
/// ([`Game::from_view`](crate::Game::from_view)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuessError {
    /// The view's rules are not valid rules.
    #[error("the view's rules are not valid: {0}")]
    Rules(crate::rules::RulesError),
    /// The view names a seat (its own, the one on move, or the leader) not at the table.
    #[error("the view names {0}")]
    Seat(SeatError),
    /// The tile the view says must be played is not in the seat's hand, or does not play.
    #[error("the view's forced tile {0} is not in the seat's hand or does not fit the layout")]
    Forced(Tile),
    /// Nobody is on move: the hand or the game is over.
    #[error("the view has nobody on move: a game can be built only in the middle of a hand")]
    NoTurn,
    /// The view's layout does not rebuild.
    #[error("the view's layout does not rebuild: {0}")]
    Layout(String),
    /// Not one hand a seat.
    #[error("the guess has {got} hands for {players} players")]
    Seats {
        /// Hands in the guess.
        got: usize,
        /// Players in the game.
        players: usize,
    },
    /// A hand of another size than the view says.
    #[error("seat {seat}'s hand has {got} tiles; the view says it holds {expected}")]
    HandSize {
        /// The seat.
        seat: Seat,
        /// Tiles in the guess.
        got: usize,
        /// Tiles the view counts.
        expected: usize,
    },
    /// A boneyard of another size than the view says.
    #[error("the boneyard has {got} tiles; the view says it holds {expected}")]
    BoneyardSize {
        /// Tiles in the guess.
        got: usize,
        /// Tiles the view counts.
        expected: usize,
    },
    /// A tile the seat has seen (its own, or on the table) placed among the hidden ones.
    #[error("{0} is in the seat's hand or on the table, so it cannot be hidden")]
    Seen(Tile),
    /// A hidden tile placed twice.
    #[error("{0} is placed twice")]
    Duplicate(Tile),
    /// A hidden tile placed nowhere.
    #[error("{0} is placed nowhere: every unseen tile must be in a hand or the boneyard")]
    Missing(Tile),
    /// The seat on move holds nothing that plays, which the referee never lets happen.
    #[error("seat {seat} is on move but the guess gives it no tile that plays")]
    CannotPlay {
        /// The seat on move.
        seat: Seat,
    },
}
