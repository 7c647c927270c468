//! Writing a game log. Lines are gathered while the referee plays and written to the file,
//! whole, in one write: while the referee waits on a bot's answer, once [`LAG`] has passed
//! since the log's last write (at once if it has already passed when the bot is asked); before
//! a fault is handled; at the game's end; once they reach 1 MiB; and when the log is dropped
//! (a match interrupted, or stopped by an error). So an answer that comes at once costs no
//! write of its own: the lines of many moves go out together. While a bot thinks, its log holds
//! every line decided more than [`LAG`] ago (every line, once it has thought that long); a
//! referee stopped by a signal it handles leaves every line decided; a referee killed outright
//! (SIGKILL) leaves a valid prefix that lacks at most the lines of its last [`LAG`] of play. A
//! long game's log never gathers in memory. A log kept in memory instead (a packed log,
//! [`super::pack`]) is written whole, as one frame, once the game ends.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use allfives_engine::game::{Event, Play};
use allfives_engine::json::{write_hand_event, write_play, write_seen};
use allfives_engine::view::Seen;
use serde::Serialize;

use crate::bot::process::Deferred;
use crate::sandbox::files;

use super::format::{Decision, GameEnd, Header, RefereeLine, SeatFault, StderrRecord};

/// Gathered lines are written once they reach this many bytes, so that a log's memory stays
/// bounded however long the game.
const FLUSH_AT: usize = 1 << 20;

/// The longest a decided line waits in memory while a bot is waited on: a bot's answer that
/// comes sooner is not waited on for a write of the log.
pub const LAG: Duration = Duration::from_millis(5);

/// A log being written: lines gather in memory until [`flush`](GameLog::flush), until they
/// reach [`FLUSH_AT`] bytes, or until a wait on a bot finds them due ([`Deferred`]).
pub struct GameLog {
    sink: Sink,
    path: Option<PathBuf>,
    pending: Vec<u8>,
    /// When the file was last written (or created).
    written_at: Instant,
    /// A write made while waiting on a bot that failed: returned by the next call that writes.
    failed: Option<io::Error>,
}

/// Where a log's lines go.
enum Sink {
    /// Written to a file at each flush.
    File(File),
    /// Kept, whole, until the game ends.
    Memory,
    /// Dropped (benchmarks).
    Discard,
}

impl GameLog {
    /// A log written to `path`, which must not exist yet: a file (or a link planted there) is
    /// never written through or replaced.
    pub fn create(path: &Path) -> io::Result<GameLog> {
        let sink = Sink::File(files::create_new(path)?);
        Ok(GameLog::with(sink, Some(path.to_path_buf()), 16 * 1024))
    }

    /// A log kept in memory, whole, for [`into_bytes`](GameLog::into_bytes) once the game ends.
    pub fn in_memory() -> GameLog {
        GameLog::with(Sink::Memory, None, 64 * 1024)
    }

    /// A log that writes nothing (benchmarks).
    pub fn discard() -> GameLog {
        GameLog::with(Sink::Discard, None, 0)
    }

    /// A log to `sink`, room made for `capacity` bytes of lines.
    fn with(sink: Sink, path: Option<PathBuf>, capacity: usize) -> GameLog {
        GameLog {
            sink,
            path,
            pending: Vec::with_capacity(capacity),
            written_at: Instant::now(),
            failed: None,
        }
    }

    /// The lines of a log kept in memory (nothing for a file's or a discarded log).
    pub fn into_bytes(mut self) -> Vec<u8> {
        match self.sink {
            Sink::Memory => std::mem::take(&mut self.pending),
            Sink::File(_) | Sink::Discard => Vec::new(),
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
    pub fn event(&mut self, event: &Event, decision: &Decision) -> io::Result<()> {
        self.write_with(|line| write_event(event, decision, line))
    }

    /// Writes a fault.
    pub fn fault(&mut self, fault: &SeatFault) -> io::Result<()> {
        self.write(&RefereeLine::Fault(fault.clone()))
    }

    /// Writes the stderr lines a bot wrote while deciding (nothing when there are none).
    pub fn stderr(&mut self, record: StderrRecord) -> io::Result<()> {
        match record.lines.is_empty() {
            true => Ok(()),
            false => self.write(&RefereeLine::Stderr(record)),
        }
    }

    /// Writes the last line, and flushes.
    pub fn game_end(&mut self, end: &GameEnd) -> io::Result<()> {
        self.write(&RefereeLine::GameEnd(end.clone()))?;
        self.flush()
    }

    /// Writes the gathered lines to the file in one write (a log in memory keeps them).
    pub fn flush(&mut self) -> io::Result<()> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        match &mut self.sink {
            Sink::Memory => return Ok(()),
            Sink::File(file) if !self.pending.is_empty() => {
                file.write_all(&self.pending)?;
                self.written_at = Instant::now();
            }
            Sink::File(_) | Sink::Discard => {}
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
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        if matches!(self.sink, Sink::Discard) {
            return Ok(());
        }
        let start = self.pending.len();
        if let Err(e) = fill(&mut self.pending) {
            self.pending.truncate(start);
            return Err(io::Error::other(e));
        }
        self.pending.push(b'\n');
        // A game between builtins waits on nothing, so nothing else flushes it before its end.
        if self.pending.len() >= FLUSH_AT && matches!(self.sink, Sink::File(_)) {
            self.flush()?;
        }
        Ok(())
    }
}

/// A bot that answers within [`LAG`] of the log's last write is not waited on for a write.
impl Deferred for GameLog {
    fn due(&self) -> Option<Instant> {
        match (&self.sink, self.pending.is_empty()) {
            (Sink::File(_), false) => Some(self.written_at + LAG),
            _ => None,
        }
    }

    fn catch_up(&mut self) {
        if self.failed.is_none()
            && let Err(e) = self.flush()
        {
            self.failed = Some(e);
        }
    }
}

/// A game stopped before its end (a match interrupted, an error) keeps every line decided.
impl Drop for GameLog {
    fn drop(&mut self) {
        if let Sink::File(file) = &mut self.sink
            && !self.pending.is_empty()
        {
            let _ = file.write_all(&self.pending);
        }
    }
}

/// A play with its decision's fields spliced into its object: the same bytes as serde writes
/// with the two flattened into one object.
/// Appends an engine event's line (no newline) as the log holds it; `decision` goes with plays.
/// Replaying a log compares each event line with this, byte for byte.
pub fn write_event(
    event: &Event,
    decision: &Decision,
    line: &mut Vec<u8>,
) -> serde_json::Result<()> {
    // The events of play are most of a log: they are written by hand.
    let seen = match *event {
        Event::Play(play) => {
            write_logged_play(&play, decision, line);
            return Ok(());
        }
        // The drawing seat's view of a draw shows the tile, as the log does.
        Event::Draw { seat, tile } => Seen::Draw {
            seat,
            tile: Some(tile),
        },
        Event::Pass { seat } => Seen::Pass { seat },
        // A hand's start and end by hand too; a game's end (once a game) through serde.
        _ => {
            return match write_hand_event(event, line) {
                Some(()) => Ok(()),
                None => serde_json::to_writer(line, event),
            };
        }
    };
    write_seen(&seen, line);
    Ok(())
}

fn write_logged_play(play: &Play, decision: &Decision, line: &mut Vec<u8>) {
    write_play(play, line);
    line.pop();
    if let Some(us) = decision.time_us {
        line.extend_from_slice(br#","time_us":"#);
        line.extend_from_slice(itoa::Buffer::new().format(us).as_bytes());
    }
    if decision.forced {
        line.extend_from_slice(br#","forced":true"#);
    }
    if decision.fallback {
        line.extend_from_slice(br#","fallback":true"#);
    }
    if let Some(id) = decision.id {
        line.extend_from_slice(br#","id":"#);
        line.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
    }
    if let Some(info) = &decision.info {
        line.extend_from_slice(br#","info":"#);
        serde_json::to_writer(&mut *line, info).expect("an info of plain data always serializes");
    }
    line.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use allfives_engine::layout::EndId;
    use allfives_engine::protocol::Info;
    use allfives_engine::tile::Tile;

    /// A log in a fresh folder, and the folder (deleted when dropped).
    fn a_log() -> (GameLog, PathBuf, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("game-1.jsonl");
        let log = GameLog::create(&path).expect("a new log");
        (log, path, dir)
    }

    fn written(path: &Path) -> String {
        std::fs::read_to_string(path).expect("the log reads")
    }

    const PASS: &str = "{\"type\":\"pass\",\"seat\":1}\n";

    #[test]
    fn lines_gathered_are_written_when_the_log_is_dropped() {
        let (mut log, path, _dir) = a_log();
        log.event(&Event::Pass { seat: 1 }, &Decision::default())
            .expect("gathered");
        assert_eq!(
            written(&path),
            "",
            "a line is gathered, not written at once"
        );
        // A game interrupted: its future, and its log, are dropped before the game's end.
        drop(log);
        assert_eq!(written(&path), PASS);
    }

    #[test]
    fn a_wait_on_a_bot_writes_the_lines_it_finds_due() {
        let (mut log, path, _dir) = a_log();
        assert_eq!(log.due(), None, "nothing gathered, nothing due");
        log.event(&Event::Pass { seat: 1 }, &Decision::default())
            .expect("gathered");
        assert!(log.due().is_some());
        log.catch_up();
        assert_eq!(written(&path), PASS);
        assert_eq!(log.due(), None);
        // Memory and discarded logs are never due: a packed log is written at the game's end.
        for mut kept in [GameLog::in_memory(), GameLog::discard()] {
            kept.event(&Event::Pass { seat: 1 }, &Decision::default())
                .expect("gathered");
            assert_eq!(kept.due(), None);
        }
    }

    /// What serde writes for an event with its decision's fields flattened into it.
    #[derive(Serialize)]
    struct Flattened<'a> {
        #[serde(flatten)]
        event: &'a Event,
        #[serde(flatten)]
        decision: &'a Decision,
    }

    /// No info, a text, or an object, one for each id tried.
    fn info_for(id: Option<u64>) -> Option<Info> {
        match id {
            None => None,
            Some(1) => Some(Info::Text("expects \"15\" ✓".into())),
            Some(_) => serde_json::from_str(r#"{"eval":-0.5,"pv":[[6,4],[4,4]]}"#).ok(),
        }
    }

    #[test]
    fn a_play_line_is_what_serde_writes_for_every_kind_of_decision() {
        let play = Play {
            seat: 1,
            tile: Tile::new(6, 4).expect("a tile"),
            end: Some(EndId::Down(2)),
            sum: 15,
            points: 15,
        };
        for time_us in [None, Some(0), Some(1_234_567)] {
            for forced in [false, true] {
                for (fallback, id, info) in [false, true]
                    .into_iter()
                    .flat_map(|f| [None, Some(1), Some(987_654)].map(|id| (f, id, info_for(id))))
                {
                    let decision = Decision {
                        time_us,
                        forced,
                        fallback,
                        id,
                        info,
                    };
                    let mut line = Vec::new();
                    write_logged_play(&play, &decision, &mut line);
                    let expected = serde_json::to_string(&Flattened {
                        event: &Event::Play(play),
                        decision: &decision,
                    })
                    .expect("serializes");
                    assert_eq!(String::from_utf8_lossy(&line), expected);
                }
            }
        }
    }
}
