//! Tournaments: many entrants, every group of them meeting on duplicate deals in every seat
//! arrangement that matters.
//!
//! - [`schedule`] and [`seeds`] (pure): who meets whom, in which seats, on which deal;
//! - [`workers`]: games played at once, each worker keeping its bots' processes;
//! - [`affinity`]: which worker plays which deal;
//! - [`game_logs`]: where each game's log is (a file of its own, or a frame of a pack), read
//!   back, and packs torn by a kill repaired;
//! - [`results`]: a finished game as a results line, `results.jsonl`, and the `--json` report;
//! - [`report_stream`]: a match's `--json` report written game by game as the match goes;
//! - [`standings`] and [`ratings`]: results folded into tables, pairwise Elo, batch ratings and
//!   the sequential test;
//! - [`definition`]: `tournament.json`, what `--resume` and `standings` read back;
//! - [`decision`]: `sprt.json`, the sequential test's decision once taken;
//! - [`folder`]: the folder held by one run at a time, and a start cut short cleaned.
//!
//! May use `bot/`, `referee/` and `gamelog/`; never `cli/`. Workers never print: the
//! dispatcher (`cli/tournament.rs`) owns the results file, signals and progress.

pub mod affinity;
pub mod audit;
pub mod decision;
pub mod definition;
pub mod digest;
pub mod folder;
pub mod game_logs;
pub mod groups;
pub mod ladder;
pub mod merge;
pub mod ratings;
pub mod report_stream;
pub mod results;
pub mod run;
pub mod schedule;
pub mod seeds;
pub mod shard;
pub mod standings;
pub mod start;
pub mod workers;
