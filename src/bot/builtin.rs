//! Bots built into the referee: `builtin:random`, `builtin:greedy`, and `builtin:mix:P` between
//! them (entrants of known strength, to test ladders and ratings).
//!
//! They decide from what a seat may see, like any external bot; all they read of it is the
//! legal moves with what each would score, so the referee builds nothing more for them.

use rand::rngs::ChaCha8Rng;
use rand::{Rng, SeedableRng};

use allfives_engine::deal::below;
use allfives_engine::game::Move;
use allfives_engine::view::Choice;

/// The names `builtin:NAME` accepts (`P` stands for a probability, `mix:0.3`).
pub const NAMES: [&str; 3] = ["random", "greedy", "mix:P"];

/// What `builtin:mix:P` is written with, before its probability.
const MIX: &str = "mix:";

/// A bot inside the referee.
#[derive(Debug)]
pub enum Builtin {
    /// Plays a legal move chosen uniformly at random, from its own seeded generator.
    Random(Box<ChaCha8Rng>),
    /// Plays the move that scores most now; on a tie, the heaviest tile; then the first listed.
    Greedy,
    /// Plays greedy's move, except with probability `p` a legal move chosen uniformly at random
    /// (as `Random` chooses it), from its own seeded generator.
    Mix {
        /// The probability of a random move, in `[0, 1]`.
        p: f64,
        /// The generator of both the coin and the random move.
        rng: Box<ChaCha8Rng>,
    },
    /// Plays the first tile of its script that is legal, on the first end it fits; else the
    /// first legal move. For fixed positions (`allfives check`); not offered as `builtin:`.
    Script(Vec<allfives_engine::tile::Tile>),
}

impl Builtin {
    /// The builtin called `name` (what follows `builtin:`), seeded with `seed` if it uses
    /// randomness; else why there is none, in a sentence.
    pub fn new(name: &str, seed: u64) -> Result<Builtin, String> {
        match name {
            "random" => Ok(Builtin::Random(Box::new(ChaCha8Rng::seed_from_u64(seed)))),
            "greedy" => Ok(Builtin::Greedy),
            "mix" => Err(probability_problem(
                "builtin:mix needs P, its probability of a random move: write builtin:mix:P with \
                 P from 0 to 1",
            )),
            _ => match name.strip_prefix(MIX) {
                Some(p) => Ok(Builtin::mix(probability(p)?, seed)),
                None => Err(format!(
                    "unknown builtin bot '{name}': the builtins are {}",
                    NAMES.join(", ")
                )),
            },
        }
    }

    /// `builtin:mix:P` with `p` (in `[0, 1]`) its probability of a random move, seeded with
    /// `seed`.
    pub fn mix(p: f64, seed: u64) -> Builtin {
        Builtin::Mix {
            p,
            rng: Box::new(ChaCha8Rng::seed_from_u64(seed)),
        }
    }

    /// The move to play among `legal` (a view's legal moves); `None` only if there is none.
    pub fn choose(&mut self, legal: &[Choice]) -> Option<Move> {
        match self {
            Builtin::Random(rng) => uniform(rng.as_mut(), legal),
            Builtin::Greedy => greedy(legal),
            Builtin::Mix { p, rng } => match coin(rng.as_mut(), *p) {
                true => uniform(rng.as_mut(), legal),
                false => greedy(legal),
            },
            Builtin::Script(tiles) => tiles
                .iter()
                .find_map(|t| legal.iter().find(|c| c.tile == *t))
                .or(legal.first())
                .map(|c| c.to_move()),
        }
    }
}

/// The seed of the builtin in `seat` for the game dealt from `game_seed` (protocol.md, "The
/// builtin bots"): two builtins at one table draw differently, and a game plays the same alone.
pub fn builtin_seed(game_seed: u64, seat: usize) -> u64 {
    game_seed ^ 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(seat as u64 + 1)
}

/// The name a builtin goes by when the command line gives none: its own, with `-` for `:`
/// (`mix-0.3`), so that it is a valid entrant name.
pub fn default_name(name: &str) -> String {
    name.replace(':', "-")
}

/// The probability written after `mix:`, or why it is not one.
fn probability(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|p| (0.0..=1.0).contains(p))
        .ok_or_else(|| probability_problem(&format!(
            "builtin:mix:{text}: P, the probability of a random move, must be a number from 0 to 1"
        )))
}

/// What is wrong with a mix's probability (`what`), with an example.
fn probability_problem(what: &str) -> String {
    format!("{what} (builtin:mix:0.3 plays a random legal move 30% of the time, else greedy's)")
}

/// Whether a move is random, with probability `p`: a uniform draw of 53 bits below `p`. At 0
/// and 1 nothing is drawn, so that `mix:0` plays exactly as `greedy` and `mix:1` exactly as
/// `random` (the same generator, the same draws).
fn coin(rng: &mut ChaCha8Rng, p: f64) -> bool {
    match p {
        0.0 => false,
        1.0 => true,
        _ => ((rng.next_u64() >> 11) as f64) * (1.0 / (1u64 << 53) as f64) < p,
    }
}

/// A legal move chosen uniformly, as the deals draw numbers.
fn uniform(rng: &mut ChaCha8Rng, legal: &[Choice]) -> Option<Move> {
    let i = below(rng, legal.len() as u32) as usize;
    legal.get(i).map(|c| c.to_move())
}

/// The legal move that scores most now, preferring to shed the heaviest tile.
pub fn greedy(legal: &[Choice]) -> Option<Move> {
    legal
        .iter()
        .enumerate()
        // Earlier moves win ties: max_by_key keeps the last maximum, so rank by reversed index.
        .max_by_key(|(i, c)| (c.points, c.tile.pips(), usize::MAX - i))
        .map(|(_, c)| c.to_move())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::player::is_name;

    #[test]
    fn a_mix_takes_a_probability_from_0_to_1() {
        for p in ["0", "0.3", "1", "1.0", "0.25"] {
            assert!(Builtin::new(&format!("mix:{p}"), 1).is_ok(), "{p}");
        }
        for (name, said) in [
            ("mix", "builtin:mix needs P"),
            ("mix:", "builtin:mix:: P"),
            (
                "mix:2",
                "builtin:mix:2: P, the probability of a random move, must be a number from 0 to 1",
            ),
            ("mix:-0.1", "from 0 to 1"),
            ("mix:abc", "builtin:mix:abc: P"),
            ("mix:nan", "from 0 to 1"),
            ("mix:inf", "from 0 to 1"),
            ("mixed", "the builtins are random, greedy, mix:P"),
        ] {
            let why = Builtin::new(name, 1).expect_err(name);
            assert!(why.contains(said), "{name}: {why}");
        }
    }

    #[test]
    fn a_mix_is_named_as_an_entrant_can_be() {
        let names: Vec<String> = ["mix:0", "mix:0.3", "mix:1", "random"]
            .iter()
            .map(|n| default_name(n))
            .collect();
        assert_eq!(names, ["mix-0", "mix-0.3", "mix-1", "random"]);
        assert!(names.iter().all(|n| is_name(n)), "{names:?}");
    }

    #[test]
    fn the_coin_falls_as_often_as_its_probability_says() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let heads = (0..20_000).filter(|_| coin(&mut rng, 0.3)).count();
        // 0.3 +- 5 standard errors (0.0032 each).
        assert!((5_680..=6_320).contains(&heads), "{heads}");
        assert!((0..1000).all(|_| !coin(&mut rng, 0.0) && coin(&mut rng, 1.0)));
    }
}
