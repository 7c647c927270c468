//! Ratings, pure: no I/O, no clock, no randomness.
//!
//! - [`pentanomial`]: two entrants' Elo difference, interval and LOS from their duplicate pairs;
//! - [`sprt`]: the sequential test on those pairs, its decision latched once taken;
//! - [`batch`]: every entrant's Elo fitted to all complete sets at once (any table, teams);
//! - [`sets`]: the complete sets it reads, in memory flat in their number;
//! - [`cholesky`]: the symmetric systems its Newton steps and covariance solve;
//! - [`dispersion`]: how much a deal's games vary together, pooled over every rating;
//! - [`identified`]: which ratings the games fix (groups that never met, confounded partners);
//! - [`existence`]: whether its plain fit has a finite maximum, known beforehand (Ford 1957);
//! - [`normal`]: the normal distribution and clean figures for printing;
//! - [`student`]: Student's t, the critical values of a variance from few clusters;
//! - [`kendall`]: Kendall's tau-b between a ranking and a known order (the ladder's bench).
//!
//! Every formula and its source is in docs/results.md.

pub mod batch;
pub mod cholesky;
pub mod dispersion;
pub mod existence;
pub mod identified;
pub mod kendall;
pub mod normal;
pub mod pentanomial;
pub mod sets;
pub mod sprt;
#[cfg(test)]
mod sprt_simulation;
pub mod student;

pub use batch::{Anchor, BatchFit, BatchRating, Sets};
pub use pentanomial::{Elo, elo};
pub use sprt::{Sprt, SprtSpec, SprtTest};
