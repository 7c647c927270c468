//! Ratings, pure: no I/O, no clock, no randomness.
//!
//! - [`pentanomial`]: two entrants' Elo difference, interval and LOS from their duplicate pairs;
//! - [`sprt`]: the sequential test on those pairs, its decision latched once taken;
//! - Weng-Lin ratings over complete sets for more players, teams or entrants.
//!
//! Every formula and its source is in docs/results.md.

pub mod pentanomial;
pub mod sprt;
#[cfg(test)]
mod sprt_simulation;

pub use pentanomial::{Elo, RatedGame, Rating, elo, weng_lin};
pub use sprt::{Sprt, SprtSpec, SprtTest};
