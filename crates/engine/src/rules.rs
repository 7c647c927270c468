//! The rule options of the rulebook, their defaults, and their validation.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tile::SET_SIZE;

/// A seat at the table, 0-based; turns go 0, 1, 2, 3, 0, ...
pub type Seat = usize;

/// Which doubles are spinners (rule option `spinner`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpinnerRule {
    /// Only the first double of a hand (the lead included) spins. The default.
    First,
    /// No double spins: the layout is a line (the Muggins-like game).
    None,
    /// Every double spins (as in Five Up): the layout is a tree.
    All,
}

/// How a hand's remaining tiles are scored (rule option `hand_end`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HandEnd {
    /// Each player's own remaining pips, rounded, come off that player's (team's) score. The default.
    Penalty,
    /// The hand's winner scores the opponents' remaining pips, rounded once.
    Bonus,
}

/// When reaching the target ends the game (rule option `finish`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Finish {
    /// The moment a score reaches the target, even mid-hand. The default.
    Immediate,
    /// Only after a hand, with a single highest score at or over the target.
    EndOfHand,
}

/// Every rule option of a game. Build one with [`Rules::new`] and change what differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// Number of players, 2 to 4.
    pub players: usize,
    /// With 4 players: seats 0 and 2 play against seats 1 and 3, sharing a score.
    pub teams: bool,
    /// Tiles dealt to each player.
    pub hand_size: usize,
    /// Which doubles spin.
    pub spinner: SpinnerRule,
    /// How remaining tiles are scored at the end of a hand.
    pub hand_end: HandEnd,
    /// The score that wins.
    pub target: i32,
    /// When reaching the target ends the game.
    pub finish: Finish,
    /// The game ends after this many hands, whatever the scores.
    pub max_hands: u32,
}

/// Why a set of rule options cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// Not 2, 3 or 4 players.
    #[error("All Fives is played by 2, 3 or 4 players, not {0}")]
    Players(usize),
    /// Partnerships asked for without 4 players.
    #[error("partnerships need exactly 4 players, not {0}")]
    Teams(usize),
    /// The hands would need more tiles than the set has, or none.
    #[error(
        "a hand size of {hand_size} with {players} players is impossible: it must be 1 to {max}"
    )]
    HandSize {
        /// The asked size.
        hand_size: usize,
        /// The number of players.
        players: usize,
        /// The largest size the set allows.
        max: usize,
    },
    /// A target of zero or less.
    #[error("the target must be a positive score, not {0}")]
    Target(i32),
    /// A hand limit of zero.
    #[error("max_hands must be at least 1")]
    MaxHands,
}

impl Rules {
    /// The rulebook's defaults for this many players (partnerships on with 4).
    pub fn new(players: usize) -> Rules {
        Rules {
            players,
            teams: players == 4,
            hand_size: Rules::default_hand_size(players),
            spinner: SpinnerRule::First,
            hand_end: HandEnd::Penalty,
            target: Rules::default_target(players),
            finish: Finish::Immediate,
            max_hands: 200,
        }
    }

    /// The default hand size: 9 with 2 players, 7 with 3, 5 with 4.
    pub fn default_hand_size(players: usize) -> usize {
        match players {
            2 => 9,
            3 => 7,
            _ => 5,
        }
    }

    /// The default target: 250 with 2 players, 200 with 3 or 4.
    pub fn default_target(players: usize) -> i32 {
        if players == 2 { 250 } else { 200 }
    }

    /// Checks that the options make a playable game.
    pub fn validate(&self) -> Result<(), RulesError> {
        if !(2..=4).contains(&self.players) {
            return Err(RulesError::Players(self.players));
        }
        if self.teams && self.players != 4 {
            return Err(RulesError::Teams(self.players));
        }
        let max = SET_SIZE / self.players;
        if self.hand_size == 0 || self.hand_size > max {
            return Err(RulesError::HandSize {
                hand_size: self.hand_size,
                players: self.players,
                max,
            });
        }
        if self.target <= 0 {
            return Err(RulesError::Target(self.target));
        }
        if self.max_hands == 0 {
            return Err(RulesError::MaxHands);
        }
        Ok(())
    }

    /// How many scores the game keeps: one a team with partnerships, else one a player.
    pub fn sides(&self) -> usize {
        if self.teams { 2 } else { self.players }
    }

    /// The side (team or player) a seat scores for.
    pub fn side_of(&self, seat: Seat) -> usize {
        if self.teams { seat % 2 } else { seat }
    }

    /// The seat after `seat`, clockwise (seat 0 when the rules have no players).
    pub fn next_seat(&self, seat: Seat) -> Seat {
        seat.wrapping_add(1).checked_rem(self.players).unwrap_or(0)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} players{}, hand_size {}, spinner {}, hand_end {}, target {}, finish {}, max_hands {}",
            self.players,
            if self.teams { " in partnerships" } else { "" },
            self.hand_size,
            name(&self.spinner),
            name(&self.hand_end),
            self.target,
            name(&self.finish),
            self.max_hands
        )
    }
}

/// The snake_case name an option has in JSON and on the command line.
fn name<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_rulebook() {
        let two = Rules::new(2);
        assert_eq!((two.hand_size, two.target, two.teams), (9, 250, false));
        let three = Rules::new(3);
        assert_eq!((three.hand_size, three.target), (7, 200));
        let four = Rules::new(4);
        assert_eq!((four.hand_size, four.target, four.teams), (5, 200, true));
        assert_eq!(four.max_hands, 200);
        for r in [two, three, four] {
            assert_eq!(r.validate(), Ok(()));
        }
    }

    #[test]
    fn rejects_impossible_options() {
        assert_eq!(Rules::new(5).validate(), Err(RulesError::Players(5)));
        let mut r = Rules::new(3);
        r.teams = true;
        assert_eq!(r.validate(), Err(RulesError::Teams(3)));
        let mut r = Rules::new(4);
        r.hand_size = 8;
        assert!(matches!(
            r.validate(),
            Err(RulesError::HandSize { max: 7, .. })
        ));
        r.hand_size = 7;
        assert_eq!(r.validate(), Ok(()));
    }
}
