//! Game logs: one JSON object a line. [`format`] holds the lines' types, [`writer`] writes a
//! game's log as it is played, [`pack`] keeps many games' logs in one compressed file, [`replay`]
//! reads one back and checks it against the engine, and [`describe`] puts events in plain words.
//!
//! The format is documented in `docs/log-format.md`.

pub mod describe;
pub mod format;
pub mod pack;
pub mod replay;
pub mod writer;

pub use format::{Decision, GameEnd, Header, LOG_FORMAT, SeatFault, SeatInfo, StderrRecord};
pub use replay::{LogError, LoggedFault, LoggedStderr, Replay, replay};
pub use writer::GameLog;
