//! Bots built into the referee: `builtin:random` and `builtin:greedy`.
//!
//! They decide from a seat's [`View`] alone, like any external bot.

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use allfives_engine::deal::below;
use allfives_engine::game::Move;
use allfives_engine::view::View;

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

    /// The move to play; `None` only if the view offers no legal move.
    pub fn choose(&mut self, view: &View) -> Option<Move> {
        match self {
            Builtin::Random(rng) => {
                let i = below(rng.as_mut(), view.legal.len() as u32) as usize;
                view.legal.get(i).map(|c| c.to_move())
            }
            Builtin::Greedy => greedy(view),
            Builtin::Script(tiles) => tiles
                .iter()
                .find_map(|t| view.legal.iter().find(|c| c.tile == *t))
                .or(view.legal.first())
                .map(|c| c.to_move()),
        }
    }
}

/// The legal move that scores most now, preferring to shed the heaviest tile.
pub fn greedy(view: &View) -> Option<Move> {
    view.legal
        .iter()
        .enumerate()
        // Earlier moves win ties: max_by_key keeps the last maximum, so rank by reversed index.
        .max_by_key(|(i, c)| (c.points, c.tile.pips(), usize::MAX - i))
        .map(|(_, c)| c.to_move())
}
