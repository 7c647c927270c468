//! Where two games part: the first decision (counted as `replay --turn K` counts them) at which
//! their moves differ, whose it was, and a plain signature of the two choices. Pure.

use allfives_engine::game::Move;
use allfives_engine::tile::Tile;

use crate::gamelog::Replay;

/// A decision a bot was asked for: its seat and what it chose (`None`: it forfeited there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asked {
    /// The seat on move.
    pub seat: usize,
    /// The move played there.
    pub choice: Option<Move>,
}

/// Every decision of a replayed game, in order: its asked moves (forced ones are not asked),
/// then the fault that forfeited it, if one did.
pub fn asked_of(replay: &Replay) -> Vec<Asked> {
    let mut asked: Vec<Asked> = replay
        .decisions
        .iter()
        .filter(|(_, _, decision)| !decision.forced)
        .map(|&(seat, mv, _)| Asked {
            seat,
            choice: Some(mv),
        })
        .collect();
    let forfeit = replay
        .faults
        .iter()
        .find(|f| f.fault.forfeit && f.after > 0);
    asked.extend(forfeit.map(|f| Asked {
        seat: f.fault.seat,
        choice: None,
    }));
    asked
}

/// How two games of one deal compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parting {
    /// The same decisions throughout.
    Same,
    /// The compared entrant chose differently at decision `turn` (from 1), at `seat`.
    Differ {
        /// The decision's number.
        turn: u32,
        /// The seat on move.
        seat: usize,
    },
    /// An opponent chose differently at decision `turn` before the compared entrants ever did:
    /// it does not follow its `bot_seed`, and the deal's difference is not theirs alone.
    Split {
        /// The decision's number.
        turn: u32,
        /// The opponent's seat.
        seat: usize,
    },
}

/// The first decision at which `old` and `new` differ; `compared` are the compared entrant's
/// seats.
pub fn first(old: &[Asked], new: &[Asked], compared: &[usize]) -> Parting {
    for turn in 0..old.len().max(new.len()) {
        let number = turn as u32 + 1;
        let part = |seat: usize| match compared.contains(&seat) {
            true => Parting::Differ { turn: number, seat },
            false => Parting::Split { turn: number, seat },
        };
        match (old.get(turn), new.get(turn)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(a), Some(b)) if a.seat == b.seat => return part(a.seat),
            (Some(a), Some(_)) => {
                return Parting::Split {
                    turn: number,
                    seat: a.seat,
                };
            }
            (Some(one), None) | (None, Some(one)) => return part(one.seat),
            (None, None) => break,
        }
    }
    Parting::Same
}

/// A choice as its signature sees it: the tile and what it scored (`None`: a forfeit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The tile played.
    pub tile: Tile,
    /// The points it scored.
    pub points: u32,
}

/// One choice in plain words: scoring or not, double or not.
fn words(choice: Option<Choice>) -> String {
    match choice {
        None => "forfeits".into(),
        Some(c) => format!(
            "{} with a {}",
            if c.points > 0 { "scores" } else { "no score" },
            if c.tile.is_double() {
                "double"
            } else {
                "single"
            }
        ),
    }
}

/// The plain signature of a parting: what OLD did and what NEW did instead, so that a
/// systematic change gathers its partings into one group. The same tile on another end is
/// said as such.
pub fn signature(old: Option<Choice>, new: Option<Choice>) -> String {
    match (old, new) {
        (Some(a), Some(b)) if a.tile == b.tile => {
            format!(
                "the same tile on another end: OLD {}, NEW {}",
                words(old),
                words(new)
            )
        }
        _ => format!("OLD {}; NEW {}", words(old), words(new)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seat: usize, high: u8) -> Asked {
        Asked {
            seat,
            choice: Some(Move {
                tile: Tile::new(0, high).expect("a tile"),
                end: None,
            }),
        }
    }

    #[test]
    fn the_first_differing_decision_is_the_parting() {
        let old = [at(0, 1), at(1, 2), at(0, 3)];
        let same = first(&old, &old, &[0]);
        assert_eq!(same, Parting::Same);
        let new = [at(0, 1), at(1, 2), at(0, 4)];
        assert_eq!(
            first(&old, &new, &[0]),
            Parting::Differ { turn: 3, seat: 0 }
        );
        let opponent = [at(0, 1), at(1, 5), at(0, 3)];
        assert_eq!(
            first(&old, &opponent, &[0]),
            Parting::Split { turn: 2, seat: 1 }
        );
        assert_eq!(
            first(&old, &old[..2], &[0]),
            Parting::Differ { turn: 3, seat: 0 }
        );
    }

    #[test]
    fn signatures_say_scoring_and_doubles() {
        let c = |a, b, points| {
            Some(Choice {
                tile: Tile::new(a, b).expect("a tile"),
                points,
            })
        };
        assert_eq!(
            signature(c(5, 5, 10), c(2, 3, 0)),
            "OLD scores with a double; NEW no score with a single"
        );
        assert_eq!(
            signature(c(5, 5, 10), None),
            "OLD scores with a double; NEW forfeits"
        );
        assert!(signature(c(2, 3, 5), c(2, 3, 0)).starts_with("the same tile"));
    }
}
