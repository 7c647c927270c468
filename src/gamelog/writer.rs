//! Writing a game log. Lines are gathered while the referee computes and written to the file,
//! whole, before it waits on anything (a bot, the end of a game): so a referee killed at any
//! moment leaves a valid prefix holding everything decided so far, at one write per bot answer.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use allfives_engine::game::Event;
use serde::Serialize;

use crate::sandbox::files;

use super::format::{Decision, GameEnd, Header, RefereeLine, SeatFault};

/// A log being written: lines gather in memory until [`flush`](GameLog::flush).
pub struct GameLog {
    file: Option<File>,
    path: Option<PathBuf>,
    pending: Vec<u8>,
}

impl GameLog {
    /// A log written to `path`, which must not exist yet: a file (or a link planted there) is
    /// never written through or replaced.
    pub fn create(path: &Path) -> io::Result<GameLog> {
        Ok(GameLog {
            file: Some(files::create_new(path)?),
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
