//! A tournament's report page: its standings, ratings and every game on one self-contained
//! HTML page (`standings --html`, and `report.html` in a tournament's folder as it runs).
//!
//! - [`games`]: every game as columns (entrant indices, digit strings), so that a page of
//!   100,000 games stays a few megabytes;
//! - [`data`]: what the page shows, gathered game by game beside the standings' tally (move
//!   time histograms, the sequential test's LLR over games), then read out with the standings;
//! - [`command`]: the command line that plays the tournament again;
//! - [`html`]: the page itself (the template `page.html`, its script drawing the tables and the
//!   SVG charts).
//!
//! Pure: no I/O, no clock (the time of an update is passed in). Uses `tournament` (its results
//! lines, standings and definition) and `sandbox` (the protections' type); `cli` writes the page.

pub mod command;
pub mod data;
pub mod games;
pub mod html;
