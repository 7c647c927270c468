//! A bot's stderr lines gathered for its game's log, so that each is recorded with the decision
//! it was written during: the drain thread ([`crate::bot::process`]) adds lines as they come,
//! and the referee takes them when the bot has answered (or faulted).
//!
//! A bot that writes nothing to stderr costs the referee a look at its pipe a move; one that
//! writes waits, at an answer, only for what is already in the pipe, or already read from it,
//! to be added (a few microseconds), so that a line written just before the answer is not put
//! with the next move.

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The most lines a seat's log keeps of one game; past it, one line says where they were cut.
pub const MAX_LINES: usize = 500;

/// The most characters of a line kept; a longer one is cut and ends with `…`.
pub const MAX_LINE_CHARS: usize = 300;

/// How long, at most, an answer waits for the stderr already in the pipe to be read: a bound
/// for a bot that never stops writing, generous for a drain thread slow to be scheduled.
const SETTLE: Duration = Duration::from_millis(50);

/// The lines a bot wrote that the referee has not taken yet.
#[derive(Debug, Default)]
pub struct StderrLines {
    /// Whether the bot ever wrote to stderr: until then, taking costs a look at the pipe.
    wrote: AtomicBool,
    state: Mutex<State>,
    /// Signalled when the drain thread has read more.
    read: Condvar,
}

#[derive(Debug, Default)]
struct State {
    /// Whole lines not yet taken.
    lines: Vec<String>,
    /// The start of a line whose end has not come yet.
    partial: Vec<u8>,
    /// Lines kept this game (the cap counts them).
    kept: usize,
    /// Whether the cap's note was added this game.
    capped: bool,
    /// Whether the drain thread is reading: bytes it took from the pipe are neither there nor
    /// here yet.
    reading: bool,
}

impl StderrLines {
    /// Marks a read under way: the drain thread calls it once the pipe is readable and before
    /// it reads, so that [`StderrLines::take`] waits for what that read takes.
    pub fn reading(&self) {
        self.wrote.store(true, Ordering::SeqCst);
        self.lock().reading = true;
    }

    /// Marks the read done with nothing to add (the end of the stream, or an error).
    pub fn read_nothing(&self) {
        self.lock().reading = false;
        self.read.notify_all();
    }

    /// Adds what the drain thread read (any bytes; cut into lines here), ending its read.
    pub fn add(&self, chunk: &[u8]) {
        self.wrote.store(true, Ordering::SeqCst);
        let mut state = self.lock();
        state.reading = false;
        for &byte in chunk {
            match byte {
                b'\n' => {
                    let line = std::mem::take(&mut state.partial);
                    state.push(&line);
                }
                _ if state.partial.len() < MAX_LINE_CHARS * 4 + 4 => state.partial.push(byte),
                _ => {}
            }
        }
        drop(state);
        self.read.notify_all();
    }

    /// Takes the lines written so far, once what is already in the pipe `peek` or in a read
    /// under way has been added (at most [`SETTLE`]); nothing to do for a bot that never wrote.
    /// `seen`: whether the pipe held bytes when the answer came, if the wait for it looked
    /// (else the pipe is looked at now).
    pub fn take(&self, peek: Option<&OwnedFd>, seen: Option<bool>) -> Vec<String> {
        self.take_within(peek, seen, SETTLE)
    }

    fn take_within(
        &self,
        peek: Option<&OwnedFd>,
        seen: Option<bool>,
        settle: Duration,
    ) -> Vec<String> {
        // The pipe is looked at before the flag: bytes gone from it went to a read that set
        // the flag first.
        let unread_now = seen.unwrap_or_else(|| peek.is_some_and(|fd| unread(fd) > 0));
        if !unread_now && !self.wrote.load(Ordering::SeqCst) {
            return Vec::new();
        }
        let mut state = self.lock();
        if let Some(fd) = peek {
            let until = Instant::now() + settle;
            while state.reading || unread(fd) > 0 {
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                state = match self.read.wait_timeout(state, left) {
                    Ok((state, _)) => state,
                    Err(poisoned) => poisoned.into_inner().0,
                };
            }
        }
        std::mem::take(&mut state.lines)
    }

    /// Starts a new game: what is left over from the last is dropped (it stays in the stderr
    /// file) and the cap starts afresh.
    pub fn new_game(&self) {
        let mut state = self.lock();
        state.lines.clear();
        state.kept = 0;
        state.capped = false;
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere while holding it leaves plain data: still usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl State {
    fn push(&mut self, bytes: &[u8]) {
        if self.kept >= MAX_LINES {
            if !self.capped {
                self.capped = true;
                self.lines.push(format!(
                    "[allfives: stderr lines cut here: {MAX_LINES} lines a game are logged]"
                ));
            }
            return;
        }
        self.kept += 1;
        self.lines.push(cut(bytes));
    }
}

/// A line as logged: UTF-8 (invalid bytes replaced), no `\r` at its end, at most
/// [`MAX_LINE_CHARS`] characters.
fn cut(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_suffix('\r').unwrap_or(&text);
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// How many bytes wait in the pipe `fd` (0 if it cannot be told).
fn unread(fd: &OwnedFd) -> libc::c_int {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one c_int through the pointer, which points to a live c_int; the
    // descriptor is owned and open for the call.
    let ok = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut n) };
    if ok < 0 { 0 } else { n }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cut_at_newlines_capped_and_taken_once() {
        let lines = StderrLines::default();
        assert!(lines.take(None, None).is_empty());
        lines.add(b"one\ntw");
        assert_eq!(lines.take(None, None), ["one"]);
        lines.add(b"o\r\n");
        assert_eq!(lines.take(None, None), ["two"]);
        let long = "x".repeat(MAX_LINE_CHARS + 10) + "\n";
        lines.add(long.as_bytes());
        let taken = lines.take(None, None);
        assert_eq!(taken[0].chars().count(), MAX_LINE_CHARS + 1);
        assert!(taken[0].ends_with('…'));
        for _ in 0..MAX_LINES + 5 {
            lines.add(b"again\n");
        }
        let taken = lines.take(None, None);
        assert_eq!(
            taken.len(),
            MAX_LINES - 3 + 1,
            "the cap counts this game's lines"
        );
        assert!(taken.last().is_some_and(|l| l.contains("cut here")));
        lines.new_game();
        lines.add(b"fresh\n");
        assert_eq!(lines.take(None, None), ["fresh"]);
    }

    /// The drain may have emptied the pipe and not yet added what it read: an answer taken
    /// then still gets the line written before it (under load this put the line with the next
    /// move).
    #[test]
    fn a_line_read_but_not_yet_added_is_waited_for() {
        let lines = std::sync::Arc::new(StderrLines::default());
        let (peek, _writer) = nix::unistd::pipe().expect("a pipe");
        lines.reading();
        let drain = std::sync::Arc::clone(&lines);
        let slow_drain = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            drain.add(b"thinking\n");
        });
        let taken = lines.take_within(Some(&peek), None, Duration::from_secs(60));
        slow_drain.join().expect("the drain thread");
        assert_eq!(taken, ["thinking"]);
        lines.reading();
        lines.read_nothing();
        assert!(
            lines.take(Some(&peek), None).is_empty(),
            "an empty read ends the wait"
        );
    }
}
