//! allfives-engine: the rules of the domino game All Fives, as a pure library.
//!
//! Tiles ([`tile`]), the layout with its spinners ([`layout`]), the rule options ([`rules`]),
//! deals ([`deal`]), the game state machine ([`game`]), a seat's view ([`view`]), typed errors
//! ([`error`]), the referee's protocol messages ([`protocol`]) and the hand-written JSON of the
//! lines sent on every move ([`json`]). Nothing here does I/O, reads a clock or draws randomness
//! but from a generator passed in, so a bot written in Rust can link it to track, or simulate, a
//! game with the real rules:
//!
//! ```
//! use allfives_engine::{Game, Rules};
//! use rand::SeedableRng;
//!
//! let mut game = Game::new(Rules::new(2)).expect("default rules are valid");
//! game.deal(&mut rand::rngs::ChaCha8Rng::seed_from_u64(42)).expect("first deal");
//! let mut moves = Vec::new();
//! while game.result().is_none() {
//!     if let allfives_engine::Status::ToPlay { seat } = game.status() {
//!         game.legal_moves(&mut moves);
//!         game.play(seat, moves[0]).expect("a legal move is accepted");
//!     } else {
//!         game.deal(&mut rand::rngs::ChaCha8Rng::seed_from_u64(7)).expect("next deal");
//!     }
//! }
//! ```

pub mod deal;
pub mod end;
pub mod error;
pub mod game;
pub mod guess;
pub mod json;
pub mod layout;
pub mod protocol;
pub mod rules;
pub mod tile;
pub mod view;

pub use deal::Deal;
pub use error::{DealError, GuessError, MoveError, SeatError};
pub use game::{Event, Game, GameEnding, GameResult, HandEnding, HandSummary, Move, Play, Status};
pub use guess::Guess;
pub use layout::{EndId, Layout, OpenEnd, Placement};
pub use rules::{Finish, HandEnd, Rules, RulesError, Seat, SpinnerRule};
pub use tile::{Tile, TileSet};
pub use view::{Choice, Seen, View};
