//! The report pipe: how the processes between the referee and a bot tell the referee what
//! they managed to set up (they cannot return errors: they never come back from the fork), and
//! how the bot ended.
//!
//! Every record is a tag byte and a 4-byte value, written in one `write` (atomic on a pipe), so
//! records from several writers never interleave. The write end is close-on-exec: the bot's
//! `exec` drops it, the helper processes keep it until they exit.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Which namespaces were entered (a [`Namespaces`] mask).
pub(super) const NAMESPACES: u8 = b'N';
/// Which private mounts were made (a [`Mounts`] mask).
pub(super) const MOUNTS: u8 = b'M';
/// The Landlock outcome: 0 not enforced, 1 partly, 2 fully; plus the ABI times 16.
pub(super) const LANDLOCK: u8 = b'L';
/// Which resource limits were set (a mask of [`Limits`]).
pub(super) const LIMITS: u8 = b'R';
/// 1 if the bot left processes behind when it exited (they were killed), else 0.
pub(super) const LEFTOVERS: u8 = b'X';
/// The bot's raw wait status.
pub(super) const STATUS: u8 = b'W';
/// The init's process id, as the referee sees it.
pub(super) const INIT: u8 = b'I';
/// Whether the seccomp filter on locks and watches is in force (1) or was refused (0).
pub(super) const SECCOMP: u8 = b'S';
/// Whether the bot took its identity (1) or could not (0): then it did not run.
pub(super) const IDENTITY: u8 = b'U';
/// Whether the bot starts in a fresh, empty session keyring of its own (1) or kept the
/// referee's (0).
pub(super) const KEYRING: u8 = b'K';
/// The init's answer to a hold: 1 if every process of the bot is stopped, 0 if they could not
/// all be seen stopped in time (then they were killed).
pub(super) const HELD: u8 = b'H';
/// The init's answer to a go: every process of the bot was continued.
pub(super) const GOING: u8 = b'G';

/// Namespace bits.
pub(super) struct Namespaces;
impl Namespaces {
    pub(super) const USER: u32 = 1;
    pub(super) const PID: u32 = 2;
    pub(super) const MOUNT: u32 = 4;
    pub(super) const NET: u32 = 8;
    pub(super) const IPC: u32 = 16;
}

/// Mount bits.
pub(super) struct Mounts;
impl Mounts {
    pub(super) const TMP: u32 = 1;
    pub(super) const PROC: u32 = 2;
    pub(super) const SHM: u32 = 4;
    pub(super) const READ_ONLY: u32 = 8;
    pub(super) const BINDS: u32 = 16;
    pub(super) const HIDDEN: u32 = 32;
}

/// Limit bits.
pub(super) struct Limits;
impl Limits {
    pub(super) const MEMORY: u32 = 1;
    pub(super) const PROCESSES: u32 = 2;
}

/// Writes one record. Async-signal-safe: it runs between fork and exec.
pub(super) fn put(fd: RawFd, tag: u8, value: u32) {
    put_all(fd, &[(tag, value)]);
}

/// Writes up to four records in one call (each call is a system call of every start; a pipe
/// writes up to `PIPE_BUF` bytes at once, so records never interleave). Async-signal-safe.
pub(super) fn put_all(fd: RawFd, records: &[(u8, u32)]) {
    let mut buf = [0u8; 5 * 4];
    let records = &records[..records.len().min(4)];
    for (record, (tag, value)) in buf.chunks_exact_mut(5).zip(records) {
        record[0] = *tag;
        record[1..].copy_from_slice(&value.to_le_bytes());
    }
    // SAFETY: a plain write of a stack buffer to a descriptor this process owns.
    unsafe { libc::write(fd, buf.as_ptr().cast(), 5 * records.len()) };
}

/// What the report pipe said so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Report {
    /// The namespaces mask, if reported.
    pub namespaces: Option<u32>,
    /// The mounts mask, if reported.
    pub mounts: Option<u32>,
    /// The Landlock outcome, if reported.
    pub landlock: Option<u32>,
    /// The limits mask, if reported.
    pub limits: Option<u32>,
    /// Whether the bot left processes behind, once it has exited.
    pub leftovers: Option<bool>,
    /// The bot's wait status, once it has exited.
    pub status: Option<i32>,
    /// The init's process id (to reach the bot's private /tmp while it lives).
    pub init: Option<u32>,
    /// Whether the bot took the identity it was given.
    pub identity: Option<bool>,
    /// Whether the seccomp filter on locks and watches was installed.
    pub seccomp: Option<bool>,
    /// Whether the bot's session keyring is a fresh, empty one of its own.
    pub keyring: Option<bool>,
    /// The init's answer to the last hold (taken by the wait for it).
    pub held: Option<bool>,
    /// The init's answer to the last go (taken by the wait for it).
    pub going: Option<bool>,
}

/// The referee's end of a report pipe.
pub(super) struct Reader {
    fd: OwnedFd,
    partial: Vec<u8>,
}

impl Reader {
    pub(super) fn new(fd: OwnedFd) -> Reader {
        Reader {
            fd,
            partial: Vec::new(),
        }
    }

    /// Reads whatever records are there, without waiting, into `report`; true once every
    /// writer is gone.
    pub(super) fn drain(&mut self, report: &mut Report) -> bool {
        let mut buf = [0u8; 256];
        let mut ended = false;
        loop {
            // SAFETY: a read into a stack buffer of its length, from a descriptor owned here.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            match n {
                n if n > 0 => self.partial.extend_from_slice(&buf[..n as usize]),
                _ if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
                0 => {
                    ended = true;
                    break;
                }
                // Nothing more for now (EAGAIN).
                _ => break,
            }
        }
        let whole = self.partial.len() / 5 * 5;
        for record in self.partial[..whole].chunks_exact(5) {
            let value = u32::from_le_bytes([record[1], record[2], record[3], record[4]]);
            match record[0] {
                NAMESPACES => report.namespaces = Some(value),
                MOUNTS => report.mounts = Some(value),
                LANDLOCK => report.landlock = Some(value),
                LIMITS => report.limits = Some(value),
                LEFTOVERS => report.leftovers = Some(value != 0),
                STATUS => report.status = Some(value as i32),
                INIT => report.init = Some(value),
                IDENTITY => report.identity = Some(value != 0),
                SECCOMP => report.seccomp = Some(value != 0),
                KEYRING => report.keyring = Some(value != 0),
                HELD => report.held = Some(value != 0),
                GOING => report.going = Some(value != 0),
                _ => {}
            }
        }
        self.partial.drain(..whole);
        ended
    }
}

impl Reader {
    /// The descriptor to wait on for records.
    pub(super) fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// A close-on-exec pipe whose read end does not block.
pub(super) fn pipe() -> io::Result<(Reader, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two-element array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // Only the read end may be non-blocking: the writers must never lose a record.
    // SAFETY: fcntl on a descriptor owned here.
    unsafe { libc::fcntl(read.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
    Ok((Reader::new(read), write))
}
