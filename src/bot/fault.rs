//! Faults: the ways a bot can break the protocol, each with what it costs.

use std::fmt;

use allfives_engine::game::Move;
use allfives_engine::protocol::Info;
use serde::{Deserialize, Serialize};

use crate::text;

/// The kind of a bot's fault.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// No answer within the clock.
    Timeout,
    /// The process exited, crashed or could not be started.
    Crash,
    /// A line that is not JSON, not UTF-8, or not the expected message.
    Malformed,
    /// A line over the length cap.
    TooLong,
    /// An answer echoing the wrong id.
    WrongId,
    /// A move the rules do not allow.
    Illegal,
}

impl FaultKind {
    /// Whether the bot's process can no longer be talked to after this fault.
    pub fn is_fatal(self) -> bool {
        self == FaultKind::Crash
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            FaultKind::Timeout => "timeout",
            FaultKind::Crash => "crash",
            FaultKind::Malformed => "malformed",
            FaultKind::TooLong => "too_long",
            FaultKind::WrongId => "wrong_id",
            FaultKind::Illegal => "illegal",
        };
        f.write_str(name)
    }
}

/// How much of an offending line is kept for the record, in characters.
pub const EXCERPT: usize = 200;

/// The start of `bytes`, lossily decoded, cut to [`EXCERPT`] characters.
pub fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(EXCERPT * 4)]);
    text.chars().take(EXCERPT).collect()
}

/// A fault: its kind, a sentence about it, and the offending input cut short; for an answer
/// that was a move (played illegally, or too late), the move and its info.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// The kind.
    pub kind: FaultKind,
    /// What happened, in one sentence.
    pub detail: String,
    /// The offending input, the line as the bot wrote it, cut short; absent when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// For an `illegal` fault: the move the rules refused (read from `input`, which may be cut
    /// short before it ends).
    #[serde(rename = "move", default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<Move>,
    /// The info the bot sent with a move that faulted (capped as a move's is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<Info>,
}

impl Fault {
    /// A fault with no input to show.
    pub fn new(kind: FaultKind, detail: impl Into<String>) -> Fault {
        Fault {
            kind,
            detail: detail.into(),
            input: None,
            refused: None,
            info: None,
        }
    }

    /// A fault caused by `input` (kept cut short).
    pub fn with_input(kind: FaultKind, detail: impl Into<String>, input: &str) -> Fault {
        Fault {
            input: Some(excerpt(input.as_bytes())),
            ..Fault::new(kind, detail)
        }
    }

    /// A fault of an answer that was a move: the line the bot wrote (kept cut short) and the
    /// info it sent with it.
    pub fn of_answer(
        kind: FaultKind,
        detail: impl Into<String>,
        line: &str,
        info: Option<Info>,
    ) -> Fault {
        Fault {
            info,
            ..Fault::with_input(kind, detail, line)
        }
    }
}

/// The kind and the detail, the detail made safe for a terminal (it may quote what a bot
/// wrote, or come from a log a user edited).
impl fmt::Display for Fault {
    /// The kind, the sentence, and what the bot wrote (escaped, already cut short).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}{}",
            self.kind,
            text::terminal(&self.detail),
            wrote(self.input.as_deref())
        )
    }
}

/// ` (it wrote: "...")` for a fault's input, escaped so that no control character of the bot's
/// reaches a terminal, and its own quotes as `\"` so that the quoting reads unambiguously;
/// nothing without input.
pub fn wrote(input: Option<&str>) -> String {
    input.map_or(String::new(), |i| {
        let shown = text::terminal(i).replace('"', "\\\"");
        format!(" (it wrote: \"{shown}\")")
    })
}
