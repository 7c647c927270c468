//! allfives: a referee for bot programs playing the domino game All Fives.
//!
//! The rules live in the [`allfives_engine`] crate (re-exported here as [`engine`]); this crate is
//! the imperative shell around it, one folder per concern:
//! - [`bot`]: a bot as a process (or a builtin), its clock, its faults, and stopping them all;
//! - [`referee`]: one game between bots, and a match of games;
//! - [`gamelog`]: writing a game's log, and replaying one through the engine;
//! - [`replay`]: a verified log shown as text, JSON or an HTML page, and its decisions posed again;
//! - [`compare`]: two versions of a bot on the same deals, seats and opponents, told apart deal by
//!   deal (where their games part, what it cost);
//! - [`report`]: a tournament's report page (standings, ratings, every game) as data for a page;
//! - [`page`]: a self-contained HTML page (its data embedded, its one script named in its CSP);
//! - [`check`]: the conformance check of one bot;
//! - [`placement`]: holding a CPU for a match, so that the referee and its bots share it;
//! - [`sandbox`]: containing bot processes (namespaces, Landlock, limits);
//! - [`tournament`]: many entrants' games: schedule, seeds, workers, results, standings, ratings;
//! - [`input`]: the files and pipes a user names, read bounded and stoppable;
//! - [`text`]: text a bot or a user's file controls, made safe for a terminal, a file name, HTML;
//! - [`cli`]: the command line's arguments, its commands and what they print.
//!
//! `docs/architecture.md` draws the house and says which part may call which.

// `eprintln!` and `println!` panic when their stream cannot be written (`2>/dev/full`): stderr
// is written through `cli::exit::say`, stdout through what returns its error.
#![cfg_attr(not(test), deny(clippy::print_stderr, clippy::print_stdout))]

pub use allfives_engine as engine;

pub mod bot;
pub mod check;
pub mod cli;
pub mod compare;
pub mod gamelog;
pub mod input;
pub mod page;
pub mod placement;
pub mod referee;
pub mod replay;
pub mod report;
pub mod sandbox;
pub mod text;
pub mod tournament;
