//! A seat's view: exactly what one seat may know, and nothing it may not.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::game::{Event, Game, Move, Play, Status};
use crate::layout::{EndId, OpenEnd, Placement, points_of};
use crate::rules::{Rules, Seat};
use crate::tile::{Tile, TileSet};

/// What one seat may know of the game at this moment.
///
/// It never holds another seat's tile, the boneyard's order or the seed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct View {
    /// The seat this view is for.
    pub seat: Seat,
    /// The rules in force.
    pub rules: Rules,
    /// The game's number within its match, from 1 (0 in a view from before this field).
    #[serde(default)]
    pub game: u32,
    /// The current hand's number, from 1.
    pub hand_number: u32,
    /// The seat that led this hand.
    pub leader: Seat,
    /// Whose turn it is: in a `turn` message always this seat; `None` only in a view taken
    /// between hands or after the game (never sent to a bot).
    pub turn: Option<Seat>,
    /// This seat's tiles, in canonical order.
    pub hand: Vec<Tile>,
    /// The tiles this seat drew from the boneyard this hand.
    pub drawn: Vec<Tile>,
    /// A tile this seat just drew that plays, and so must be played now.
    pub forced: Option<Tile>,
    /// The tiles on the table in the order played.
    pub layout: Vec<Placement>,
    /// The open ends.
    pub ends: Vec<OpenEnd>,
    /// The sum of the open ends.
    pub sum: u32,
    /// How many tiles each seat holds.
    pub hand_sizes: Vec<usize>,
    /// How many tiles the boneyard holds.
    pub boneyard: usize,
    /// Each side's score (team with partnerships, else seat).
    pub scores: Vec<i32>,
    /// What happened so far this hand, as this seat saw it.
    pub history: Vec<Seen>,
    /// This seat's legal moves, each with what it would score. In a `turn` message at least
    /// two, offering at least two real choices (moves that mirror each other, the same tile on
    /// the two bare arms of a double, count as one); empty only in a view of a seat that is not
    /// to play (never sent to a bot).
    pub legal: Vec<Choice>,
}

impl View {
    /// The tiles this seat has not seen this hand: neither in its hand nor on the table. They are
    /// in the other hands and the boneyard.
    ///
    /// ```
    /// use allfives_engine::{Game, Rules};
    /// use rand::SeedableRng;
    ///
    /// let mut game = Game::new(Rules::new(2)).expect("default rules are valid");
    /// game.deal(&mut rand::rngs::ChaCha8Rng::seed_from_u64(1)).expect("a deal");
    /// let view = game.view(0);
    /// // 28 tiles, 9 in this seat's hand, none on the table yet.
    /// assert_eq!(view.unseen().len(), 19);
    /// ```
    pub fn unseen(&self) -> TileSet {
        let seen: TileSet = self.hand.iter().copied().collect();
        let placed: TileSet = self.layout.iter().map(|p| p.tile).collect();
        seen.union(placed).complement()
    }
}

/// A legal move and what it would make of the layout: public arithmetic, offered so that a
/// simple bot need not model the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Choice {
    /// The tile.
    pub tile: Tile,
    /// The end (`null` for a lead).
    pub end: Option<EndId>,
    /// The sum of the open ends after the move.
    pub sum: u32,
    /// The points the move would score.
    pub points: u32,
}

impl Choice {
    /// The move itself.
    pub fn to_move(self) -> Move {
        Move {
            tile: self.tile,
            end: self.end,
        }
    }
}

/// An event of the hand as a given seat saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Seen {
    /// A tile was placed.
    Play(Play),
    /// A seat drew a tile.
    Draw {
        /// The seat.
        seat: Seat,
        /// The tile, shown only to the seat that drew it.
        tile: Option<Tile>,
    },
    /// A seat could not play with an empty boneyard.
    Pass {
        /// The seat.
        seat: Seat,
    },
}

impl Seen {
    /// `event` as `seat` sees it; `None` for events outside a hand's play.
    pub fn of(event: &Event, seat: Seat) -> Option<Seen> {
        match *event {
            Event::Play(play) => Some(Seen::Play(play)),
            Event::Draw { seat: by, tile } => Some(Seen::Draw {
                seat: by,
                tile: (by == seat).then_some(tile),
            }),
            Event::Pass { seat: by } => Some(Seen::Pass { seat: by }),
            Event::HandStart { .. } | Event::HandEnd(_) | Event::GameEnd(_) => None,
        }
    }
}

impl Game {
    /// What `seat` may know now.
    pub fn view(&self, seat: Seat) -> View {
        let layout = self.layout();
        let turn = match self.status() {
            Status::ToPlay { seat } => Some(seat),
            _ => None,
        };
        let mut legal = Vec::new();
        if turn == Some(seat) {
            self.legal_choices(&mut Vec::new(), &mut legal);
        }
        View {
            seat,
            rules: *self.rules(),
            game: self.number(),
            hand_number: self.hand_number(),
            leader: self.leader(),
            turn,
            hand: self.hand(seat).iter().collect(),
            drawn: self.drawn(seat).iter().collect(),
            forced: self.forced_tile().filter(|_| turn == Some(seat)),
            layout: layout.placements().collect(),
            ends: layout.open_ends().collect(),
            sum: layout.sum(),
            hand_sizes: (0..self.rules().players)
                .map(|s| self.hand(s).len())
                .collect(),
            boneyard: self.boneyard().len(),
            scores: self.scores().to_vec(),
            history: self
                .hand_events()
                .iter()
                .filter_map(|e| Seen::of(e, seat))
                .collect(),
            legal,
        }
    }

    /// Fills `out` with the legal moves of the seat to play, each with what it would make of the
    /// layout (as [`View::legal`] lists them); `moves` is scratch space, reused like `out`.
    pub fn legal_choices(&self, moves: &mut Vec<Move>, out: &mut Vec<Choice>) {
        self.legal_moves(moves);
        let layout = self.layout();
        out.clear();
        out.extend(moves.iter().map(|mv| {
            // A legal move needs no second check.
            let sum = layout.sum_after_checked(mv.tile, mv.end);
            Choice {
                tile: mv.tile,
                end: mv.end,
                sum,
                points: points_of(sum),
            }
        }));
    }
}
