//! The lines of a game log, as Rust types: the header, the referee's own lines and an engine
//! event with how it was decided. `docs/log-format.md` documents them.

use serde::{Deserialize, Serialize};

use crate::bot::clock::ClockKind;
use crate::bot::fault::Fault;
use crate::bot::lifetime::Processes;
use crate::sandbox::Protections;
use allfives_engine::game::{Event, GameResult};
use allfives_engine::protocol::{ClockInfo, Info};
use allfives_engine::rules::{Rules, Seat};

/// The log format's version; bumped on any change a reader must know about. Version 1 (no
/// `deal_file_hands`, no `max_faults`, no request ids) is still read.
pub const LOG_FORMAT: u32 = 2;

/// The oldest log format this referee still reads.
pub const OLDEST_LOG_FORMAT: u32 = 1;

/// The first line of a game log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// [`LOG_FORMAT`].
    pub format: u32,
    /// The referee's name and version.
    pub referee: String,
    /// The protocol version spoken with bots.
    pub protocol: u32,
    /// The game's number within its match, from 1.
    pub game: u32,
    /// The seed of the game's deals.
    pub seed: u64,
    /// The rules.
    pub rules: Rules,
    /// Who sat where.
    pub seats: Vec<SeatInfo>,
    /// The time controls.
    pub clock: ClockInfo,
    /// What the clock measures: `wall` (written only when it is `cpu`; older logs lack it).
    #[serde(default, skip_serializing_if = "is_wall")]
    pub clock_kind: ClockKind,
    /// The fault policy: `forfeit` or `fallback`.
    pub on_fault: String,
    /// With `fallback`: the fault of a game that forfeits it (absent in format 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_faults: Option<u32>,
    /// How many of the first hands were dealt from a deal file (`--deal`, `--deal-from`); every
    /// later hand was drawn from `seed`. Absent in format 1, where the origin is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal_file_hands: Option<u32>,
    /// The protections the bots played under (older logs lack it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Protections>,
    /// How long the bots' processes lived: `fresh`, `unseen-deals` (never a deal twice, the
    /// default) or `reused` (`--reuse-processes`). Absent without bot processes and in older
    /// logs, whose processes may have played a deal twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processes: Option<Processes>,
    /// True when `seed` follows from a typed seed by public formulas (`--public-seed`), so that
    /// the bots could have computed the deals; written only then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub public_seed: bool,
}

fn is_wall(kind: &ClockKind) -> bool {
    *kind == ClockKind::Wall
}

/// A seat's bot, as the log records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    /// The bot's name.
    pub bot: String,
    /// Its command line.
    pub command: String,
}

/// How a move came to be, for the log.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The bot's thinking time in microseconds, from the request written to the answer read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_us: Option<u64>,
    /// The referee played it because there was no real choice (one legal move, or moves that
    /// mirror each other).
    #[serde(default, skip_serializing_if = "is_false")]
    pub forced: bool,
    /// The referee played it for a bot that faulted (`--on-fault fallback`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub fallback: bool,
    /// The id of the `turn` request the bot was sent (absent for forced moves and in format 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// What the bot said it was thinking, sent with its move (capped; absent when it sent none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<Info>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A fault as logged, with the seat it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatFault {
    /// The seat.
    pub seat: Seat,
    /// The fault.
    #[serde(flatten)]
    pub fault: Fault,
    /// Whether it cost the game.
    pub forfeit: bool,
    /// The id of the `turn` request the bot faulted on (absent for a fault while starting, and
    /// in logs written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The game's decision it faulted at, counted as `replay --turn K` counts them (every time
    /// a bot was asked for a move, from 1): known to the referee as it plays, not logged (a
    /// replay counts it again), absent for a fault while starting.
    #[serde(skip)]
    pub turn: Option<u32>,
}

/// The stderr lines a bot wrote while it decided a move (between the request before and its
/// answer), as logged just before that move (or its fault).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StderrRecord {
    /// The seat.
    pub seat: Seat,
    /// The id of the `turn` request being answered.
    pub id: u64,
    /// The lines, in order, each cut short (see `bot::stderr_lines`).
    pub lines: Vec<String>,
}

/// The last line of a game log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameEnd {
    /// The engine's result.
    #[serde(flatten)]
    pub result: GameResult,
    /// The faults that cost the game (at most one seat's).
    pub forfeits: Vec<SeatFault>,
}

/// The referee's own lines (the engine's events are the others).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum RefereeLine {
    Header(Header),
    Fault(SeatFault),
    Stderr(StderrRecord),
    GameEnd(GameEnd),
}

/// An engine event with how it was decided (read back; written by [`GameLog::event`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct Logged {
    #[serde(flatten)]
    pub(crate) event: Event,
    #[serde(flatten)]
    pub(crate) decision: Decision,
}
