//! Game logs: one JSON object a line, and the reader that replays a log through the engine.
//!
//! Lines are gathered while the referee computes and written to the file, whole, before it
//! waits on anything (a bot, the end of a game): so a referee killed at any moment leaves a
//! valid prefix holding everything decided so far, at one write per bot answer.
//!
//! The format is documented in `docs/log-format.md`.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fault::Fault;
use crate::game::{Event, Game, GameResult, Move, Play};
use crate::protocol::ClockInfo;
use crate::rules::{Rules, Seat};

/// The log format's version; bumped on any change a reader must know about.
pub const LOG_FORMAT: u32 = 1;

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
    /// The fault policy: `forfeit` or `fallback`.
    pub on_fault: String,
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The bot's thinking time in microseconds, from the request written to the answer read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_us: Option<u64>,
    /// The referee played it because it was the only legal move.
    #[serde(default, skip_serializing_if = "is_false")]
    pub forced: bool,
    /// The referee played it for a bot that faulted (`--on-fault fallback`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub fallback: bool,
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
enum RefereeLine {
    Header(Header),
    Fault(SeatFault),
    GameEnd(GameEnd),
}

/// An engine event with how it was decided (read back; written by [`GameLog::event`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Logged {
    #[serde(flatten)]
    event: Event,
    #[serde(flatten)]
    decision: Decision,
}

/// A log being written: lines gather in memory until [`flush`](GameLog::flush).
pub struct GameLog {
    file: Option<File>,
    path: Option<PathBuf>,
    pending: Vec<u8>,
}

impl GameLog {
    /// A log written to `path` (created or truncated).
    pub fn create(path: &Path) -> io::Result<GameLog> {
        Ok(GameLog {
            file: Some(File::create(path)?),
            path: Some(path.to_path_buf()),
            pending: Vec::with_capacity(16 * 1024),
        })
    }

    /// A log that writes nothing (benchmarks).
    pub fn discard() -> GameLog {
        GameLog {
            file: None,
            path: None,
            pending: Vec::new(),
        }
    }

    /// Where it is written.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Writes the header.
    pub fn header(&mut self, header: Header) -> io::Result<()> {
        self.write(&RefereeLine::Header(header))
    }

    /// Writes an engine event; `decision` goes with plays.
    pub fn event(&mut self, event: &Event, decision: Decision) -> io::Result<()> {
        if decision == Decision::default() {
            return self.write(event);
        }
        // Splices the decision's fields into the event's object: serde's flatten is slower.
        self.write_with(|line| {
            serde_json::to_writer(&mut *line, event)?;
            line.pop();
            line.push(b',');
            serde_json::to_writer(&mut *line, &decision)?;
            line.remove(line.iter().rposition(|&b| b == b'{').unwrap_or(0));
            Ok(())
        })
    }

    /// Writes a fault.
    pub fn fault(&mut self, fault: &SeatFault) -> io::Result<()> {
        self.write(&RefereeLine::Fault(fault.clone()))
    }

    /// Writes the last line, and flushes.
    pub fn game_end(&mut self, end: &GameEnd) -> io::Result<()> {
        self.write(&RefereeLine::GameEnd(end.clone()))?;
        self.flush()
    }

    /// Writes the gathered lines to the file in one write.
    pub fn flush(&mut self) -> io::Result<()> {
        if let Some(file) = self.file.as_mut()
            && !self.pending.is_empty()
        {
            file.write_all(&self.pending)?;
        }
        self.pending.clear();
        Ok(())
    }

    fn write<T: Serialize>(&mut self, value: &T) -> io::Result<()> {
        self.write_with(|line| serde_json::to_writer(line, value))
    }

    fn write_with(
        &mut self,
        fill: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
    ) -> io::Result<()> {
        if self.file.is_none() {
            return Ok(());
        }
        let start = self.pending.len();
        if let Err(e) = fill(&mut self.pending) {
            self.pending.truncate(start);
            return Err(io::Error::other(e));
        }
        self.pending.push(b'\n');
        Ok(())
    }
}

/// Why a log cannot be replayed, with the line it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct LogError {
    /// The line's number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub why: String,
}

/// A log read back and checked against the engine.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The header.
    pub header: Header,
    /// The game as the engine replayed it.
    pub game: Game,
    /// Every play with how it was decided, in order.
    pub decisions: Vec<(Seat, Move, Decision)>,
    /// The faults logged.
    pub faults: Vec<SeatFault>,
    /// The last line, if the log is complete.
    pub end: Option<GameEnd>,
}

/// Replays a log through the engine, checking every recorded event against the engine's.
/// A log cut short (a killed referee) replays up to where it stops, with `end` absent.
pub fn replay(text: &str) -> Result<Replay, LogError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, first) = lines.next().ok_or(LogError {
        line: 1,
        why: "the log is empty".into(),
    })?;
    let header = match serde_json::from_str(first) {
        Ok(RefereeLine::Header(h)) => h,
        _ => {
            return Err(LogError {
                line: 1,
                why: "the first line is not a game log header".into(),
            });
        }
    };
    if header.format != LOG_FORMAT {
        return Err(LogError {
            line: 1,
            why: format!(
                "log format {} is not {LOG_FORMAT}, which this referee reads",
                header.format
            ),
        });
    }
    let game = Game::new(header.rules).map_err(|e| LogError {
        line: 1,
        why: format!("the rules are invalid: {e}"),
    })?;
    let mut replay = Replay {
        header,
        game,
        decisions: Vec::new(),
        faults: Vec::new(),
        end: None,
    };
    let mut checked = 0;
    for (index, text) in lines {
        let line = index + 1;
        let fail = |why: String| LogError { line, why };
        if replay.end.is_some() {
            return Err(fail("a line follows the game's end".into()));
        }
        if let Ok(referee) = serde_json::from_str::<RefereeLine>(text) {
            apply_referee_line(&mut replay, referee).map_err(fail)?;
            continue;
        }
        let logged: Logged =
            serde_json::from_str(text).map_err(|e| fail(format!("not a log entry: {e}")))?;
        apply_event(&mut replay, &logged, &mut checked).map_err(fail)?;
    }
    Ok(replay)
}

fn apply_referee_line(replay: &mut Replay, line: RefereeLine) -> Result<(), String> {
    match line {
        RefereeLine::Header(_) => Err("a second header".into()),
        RefereeLine::Fault(fault) => {
            replay.faults.push(fault);
            Ok(())
        }
        RefereeLine::GameEnd(end) => {
            if let Some(forfeit) = end.forfeits.first() {
                replay
                    .game
                    .forfeit(forfeit.seat)
                    .map_err(|e| e.to_string())?;
            }
            match replay.game.result() {
                Some(result) if *result == end.result => {
                    replay.end = Some(end);
                    Ok(())
                }
                Some(result) => Err(format!(
                    "the logged result {:?} differs from the engine's {result:?}",
                    end.result
                )),
                None => Err("the game ends in the log but not in the engine".into()),
            }
        }
    }
}

/// Feeds a logged event to the engine (deals and plays) and checks that the engine produced
/// exactly the logged events.
fn apply_event(replay: &mut Replay, logged: &Logged, checked: &mut usize) -> Result<(), String> {
    let game = &mut replay.game;
    match &logged.event {
        Event::HandStart { deal, .. } => {
            game.start_hand((**deal).clone())
                .map_err(|e| e.to_string())?;
        }
        Event::Play(Play {
            seat, tile, end, ..
        }) => {
            let mv = Move {
                tile: *tile,
                end: *end,
            };
            game.play(*seat, mv)
                .map_err(|e| format!("illegal play: {e}"))?;
            replay.decisions.push((*seat, mv, logged.decision));
        }
        _ => {}
    }
    let expected = game.events().get(*checked).ok_or_else(|| {
        format!(
            "the log has {:?}, which the engine did not produce",
            logged.event
        )
    })?;
    if *expected != logged.event {
        return Err(format!(
            "the log has {:?} where the engine has {expected:?}",
            logged.event
        ));
    }
    *checked += 1;
    // The engine's own game end is not logged: the referee's line, with forfeits, stands for it.
    if let Some(Event::GameEnd(_)) = game.events().get(*checked) {
        *checked += 1;
    }
    Ok(())
}
