//! Bots built into the referee: `builtin:random` and `builtin:greedy`.
//!
//! They decide from what a seat may see, like any external bot; all they read of it is the
//! legal moves with what each would score, so the referee builds nothing more for them.

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use allfives_engine::deal::below;
use allfives_engine::game::Move;
use allfives_engine::view::Choice;

/// The names `builtin:NAME` accepts.
pub const NAMES: [&str; 2] = ["random", "greedy"];

/// A bot inside the referee.
#[derive(Debug)]
pub enum Builtin {
    /// Plays a legal move chosen uniformly at random, from its own seeded generator.
    Random(Box<ChaCha8Rng>),
    /// Plays the move that scores most now; on a tie, the heaviest tile; then the first listed.
    Greedy,
    /// Plays the first tile of its script that is legal, on the first end it fits; else the
    /// first legal move. For fixed positions (`allfives check`); not offered as `builtin:`.
    Script(Vec<allfives_engine::tile::Tile>),
}

impl Builtin {
    /// The builtin called `name`, seeded with `seed` if it uses randomness.
    pub fn new(name: &str, seed: u64) -> Option<Builtin> {
        match name {
            "random" => Some(Builtin::Random(Box::new(ChaCha8Rng::seed_from_u64(seed)))),
            "greedy" => Some(Builtin::Greedy),
            _ => None,
        }
    }

    /// The move to play among `legal` (a view's legal moves); `None` only if there is none.
    pub fn choose(&mut self, legal: &[Choice]) -> Option<Move> {
        match self {
            Builtin::Random(rng) => {
                let i = below(rng.as_mut(), legal.len() as u32) as usize;
                legal.get(i).map(|c| c.to_move())
            }
            Builtin::Greedy => greedy(legal),
            Builtin::Script(tiles) => tiles
                .iter()
                .find_map(|t| legal.iter().find(|c| c.tile == *t))
                .or(legal.first())
                .map(|c| c.to_move()),
        }
    }
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
