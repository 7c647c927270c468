//! Tournaments: many entrants, every group of them meeting on duplicate deals in every seat
//! arrangement that matters. The schedule and seeds are pure ([`schedule`], [`seeds`]).
//!
//! May use `bot/`, `referee/` and `gamelog/`; never `cli/`.

pub mod definition;
pub mod ratings;
pub mod results;
pub mod schedule;
pub mod seeds;
pub mod standings;
pub mod workers;
