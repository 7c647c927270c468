//! allfives: a referee for bot programs playing the domino game All Fives.
//!
//! The rules engine ([`tile`], [`layout`], [`rules`], [`deal`], [`game`], [`view`], [`error`]) is
//! pure: no I/O, no clock, no randomness but a generator passed in. A bot written in Rust can link
//! it to track the game:
//!
//! ```
//! use allfives::{Game, Rules};
//! use rand::SeedableRng;
//!
//! let mut game = Game::new(Rules::new(2)).expect("default rules are valid");
//! game.deal(&mut rand::rngs::ChaCha8Rng::seed_from_u64(42)).expect("first deal");
//! let mut moves = Vec::new();
//! while game.result().is_none() {
//!     if let allfives::Status::ToPlay { seat } = game.status() {
//!         game.legal_moves(&mut moves);
//!         game.play(seat, moves[0]).expect("a legal move is accepted");
//!     } else {
//!         game.deal(&mut rand::rngs::ChaCha8Rng::seed_from_u64(7)).expect("next deal");
//!     }
//! }
//! ```

pub mod builtin;
pub mod check;
pub mod cli;
pub mod clock;
pub mod deal;
pub mod error;
pub mod fault;
pub mod game;
pub mod gamelog;
pub mod layout;
pub mod matchplay;
pub mod output;
pub mod player;
pub mod process;
pub mod protocol;
pub mod referee;
pub mod rules;
pub mod shutdown;
pub mod tile;
pub mod view;

pub use deal::Deal;
pub use error::{DealError, MoveError};
pub use game::{Event, Game, GameEnding, GameResult, HandEnding, HandSummary, Move, Play, Status};
pub use layout::{EndId, Layout, OpenEnd, Placement};
pub use rules::{Finish, HandEnd, Rules, RulesError, Seat, SpinnerRule};
pub use tile::{Tile, TileSet};
pub use view::{Choice, Seen, View};
