//! Ratings, pure: no I/O, no clock, no randomness.
//!
//! - [`pentanomial`]: two entrants' Elo difference, interval and LOS from their duplicate pairs;
//! - [`sprt`]: the sequential test on those pairs, its decision latched once taken;
//! - [`batch`]: every entrant's Elo fitted to all complete sets at once (any table, teams);
//! - [`sets`]: the complete sets it reads, in memory flat in their number;
//! - [`cholesky`]: the symmetric systems its Newton steps and covariance solve;
//! - [`existence`]: whether its plain fit has a finite maximum, known beforehand (Ford 1957);
//! - [`normal`]: the normal distribution and clean figures for printing.
//!
//! Every formula and its source is in docs/results.md.

pub mod batch;
pub mod cholesky;
pub mod existence;
pub mod normal;
pub mod pentanomial;
pub mod sets;
pub mod sprt;
#[cfg(test)]
mod sprt_simulation;

pub use batch::{Anchor, BatchFit, BatchRating, Sets};
pub use pentanomial::{Elo, elo};
pub use sprt::{Sprt, SprtSpec, SprtTest};
