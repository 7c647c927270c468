//! Reading the files and pipes a user names (a bots file, a log, a deal file): never more than
//! a limit, never blocked by a FIFO that no one writes, and stopped by Ctrl-C, SIGTERM or
//! SIGHUP where the command has taken those signals over (a tournament, a match). `/dev/zero`,
//! a FIFO or a file of gigabytes is refused in one sentence, not read until memory runs out.

use std::io::{self, Read};
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The most a bots file or a deal file may hold.
pub const MAX_LIST_BYTES: u64 = 16 << 20;
/// The most a game log may hold: a game of 1,000 hands between chatty bots logs a few MB.
pub const MAX_LOG_BYTES: u64 = 256 << 20;

/// Set once Ctrl-C, SIGTERM or SIGHUP arrived in a command that handles them itself.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Records that the command was asked to stop: a read under way gives up.
pub fn stop() {
    STOPPING.store(true, Ordering::SeqCst);
}

/// Whether Ctrl-C, SIGTERM or SIGHUP arrived (in a command that handles them itself).
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Opening or reading failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// It holds more than the limit (or never ends, as `/dev/zero`).
    #[error("it holds more than {}, more than any such file the referee reads", size(*.0))]
    TooLarge(u64),
    /// It is a FIFO, a device or a socket, where only a file the referee wrote belongs.
    #[error(
        "it is not a plain file (a FIFO, a device or a socket), which the referee never writes there"
    )]
    NotAFile,
    /// Ctrl-C, SIGTERM or SIGHUP arrived while reading.
    #[error("interrupted while reading it")]
    Interrupted,
}

/// `bytes` in words: in MiB, or KiB below one MiB.
fn size(bytes: u64) -> String {
    match bytes >> 20 {
        0 => format!("{} KiB", bytes >> 10),
        mib => format!("{mib} MiB"),
    }
}

/// Opens `path`, a file the referee wrote, to read it: refused unless it is a plain file, so
/// that a FIFO with no writer, `/dev/zero` or a terminal put in its place is never waited on
/// or read without end, whatever the limit of its reader.
pub fn open_file(path: &Path) -> Result<std::fs::File, InputError> {
    // O_NONBLOCK: opening a FIFO waits for no writer (it is refused next); a plain file's reads
    // ignore it.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    match file.metadata()?.is_file() {
        true => Ok(file),
        false => Err(InputError::NotAFile),
    }
}

/// How long a read waits for a pipe's writer before it looks whether it was asked to stop.
const WAKE_MS: u16 = 200;

/// The bytes of `path`, at most `limit` of them. A FIFO with no writer reads as empty.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    // O_NONBLOCK: opening a FIFO waits for no writer; reads wait in poll instead, which looks
    // at STOPPING between waits.
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() > limit {
        return Err(InputError::TooLarge(limit));
    }
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        match file.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => {
                if (bytes.len() + n) as u64 > limit {
                    return Err(InputError::TooLarge(limit));
                }
                bytes.extend_from_slice(&chunk[..n]);
            }
            // Only a pipe waits; a file, however long, is read to its end or its limit, so
            // that a signal during a tournament's start is kept for when the games start.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => match stopping() {
                true => return Err(InputError::Interrupted),
                false => wait_readable(&file)?,
            },
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
}

/// Waits until `file` has something to read, or [`WAKE_MS`] passed.
fn wait_readable(file: &std::fs::File) -> io::Result<()> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLIN)];
    match poll(&mut fds, PollTimeout::from(WAKE_MS)) {
        Ok(_) | Err(nix::errno::Errno::EINTR) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The text of `path`, at most `limit` bytes of UTF-8.
pub fn read_text(path: &Path, limit: u64) -> Result<String, InputError> {
    String::from_utf8(read(path, limit)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text").into())
}

/// What serde_json says of a one-line record (a results line, a log line): its words and the
/// column, without "line 1" or, for a record cut at its newline, "line 2 column 0".
pub fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    let why = text.strip_suffix(&at).unwrap_or(&text);
    match (e.line(), e.column()) {
        (0, _) => why.to_string(),
        (1, column) => format!("{why} at column {column}"),
        _ => format!("{why} at its end"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_and_large_inputs_are_refused_and_small_ones_read() {
        assert!(matches!(
            read(Path::new("/dev/zero"), 1 << 20),
            Err(InputError::TooLarge(_))
        ));
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("f");
        std::fs::write(&path, [b'x'; 100]).expect("written");
        assert!(matches!(read(&path, 99), Err(InputError::TooLarge(99))));
        assert_eq!(read(&path, 100).expect("read").len(), 100);
    }

    #[test]
    fn a_one_line_record_s_json_error_names_no_line() {
        let cut = serde_json::from_slice::<serde_json::Value>(b"{\"a\":\n").expect_err("cut");
        assert_eq!(json_error(&cut), "EOF while parsing a value at its end");
        let bad = serde_json::from_str::<serde_json::Value>("{\"a\" 1}").expect_err("bad");
        assert_eq!(json_error(&bad), "expected `:` at column 6");
    }
}
