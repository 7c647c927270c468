//! The referee's blocking wait for a bot's answer: an epoll set of the bot's own, holding its
//! stdout and (when its stderr lines are logged with its moves) its stderr, registered once.
//!
//! A `ppoll` registers its interest in every descriptor it is given, and takes it back, on
//! every call: watching stderr beside stdout that way cost the referee 0.1-0.3 us of CPU an
//! asked move on this project's machine, and the `ppoll` itself 0.15-0.3 us more than an
//! `epoll_wait` on a set that keeps both (docs/benchmarks.md). A wait is one call however many
//! pipes it watches.

use std::io;
use std::os::fd::BorrowedFd;
use std::time::Duration;

use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};

const STDOUT: u64 = 0;
const STDERR: u64 = 1;

/// What one wait saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Seen {
    /// The bot's stdout has something to read, or its end.
    pub stdout: bool,
    /// Whether stderr held bytes, if it was reported (its end is reported too, without bytes).
    pub stderr: Option<bool>,
}

/// A bot's stdout and stderr, watched together.
pub struct AnswerWait {
    epoll: Epoll,
    /// `None` when stderr is not in the set; else whether it was reported since it was last
    /// armed. It is reported once and then left out until [`rearm`](AnswerWait::rearm): a
    /// stderr seen with bytes stays readable until the drain thread reads them, and watching it
    /// again would end every wait at once.
    stderr: Option<bool>,
}

impl AnswerWait {
    /// Watches `stdout`, and `stderr` if given. A descriptor closed for good leaves the set by
    /// itself.
    pub fn new(stdout: BorrowedFd<'_>, stderr: Option<BorrowedFd<'_>>) -> io::Result<AnswerWait> {
        let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC)?;
        epoll.add(stdout, EpollEvent::new(EpollFlags::EPOLLIN, STDOUT))?;
        if let Some(err) = stderr {
            epoll.add(err, EpollEvent::new(STDERR_ONCE, STDERR))?;
        }
        Ok(AnswerWait {
            epoll,
            stderr: stderr.map(|_| false),
        })
    }

    /// Starts a new wait: stderr (`stderr`, the descriptor given to
    /// [`new`](AnswerWait::new)), if it was reported during the last one, is watched again. Costs
    /// a system call only then, so only for a bot that writes to stderr.
    pub fn rearm(&mut self, stderr: Option<BorrowedFd<'_>>) {
        if let (Some(true), Some(err)) = (self.stderr, stderr) {
            let mut event = EpollEvent::new(STDERR_ONCE, STDERR);
            // On a failure stderr is no longer watched: its lines are then looked for when taken.
            self.stderr = match self.epoll.modify(err, &mut event) {
                Ok(()) => Some(false),
                Err(_) => None,
            };
        }
    }

    /// Whether stderr is watched and was not reported yet: a wait that then sees stdout alone
    /// knows stderr held nothing when the answer came.
    pub fn watches_stderr(&self) -> bool {
        self.stderr == Some(false)
    }

    /// Waits up to `left`, in whole milliseconds rounded down (the async wait after a blocking
    /// one keeps the exact deadline), for stdout or stderr; `None` when nothing came in time, on
    /// a signal or on an error.
    pub fn wait(&mut self, left: Duration) -> Option<Seen> {
        let timeout = EpollTimeout::try_from(left).unwrap_or(EpollTimeout::MAX);
        let mut events = [EpollEvent::empty(); 2];
        let n = match self.epoll.wait(&mut events, timeout) {
            Ok(n) if n > 0 => n,
            _ => return None,
        };
        let mut seen = Seen::default();
        for event in &events[..n] {
            match event.data() {
                STDOUT => seen.stdout = true,
                _ => {
                    self.stderr = Some(true);
                    seen.stderr = Some(event.events().contains(EpollFlags::EPOLLIN));
                }
            }
        }
        Some(seen)
    }
}

/// Stderr's interest: its bytes, reported once.
const STDERR_ONCE: EpollFlags = EpollFlags::EPOLLIN.union(EpollFlags::EPOLLONESHOT);

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::{AsFd, OwnedFd};

    fn pipe() -> (OwnedFd, OwnedFd) {
        nix::unistd::pipe().expect("a pipe")
    }

    const LONG: Duration = Duration::from_secs(10);

    #[test]
    fn an_answer_alone_says_stderr_held_nothing() {
        let (out_r, out_w) = pipe();
        let (err_r, _err_w) = pipe();
        let mut wait = AnswerWait::new(out_r.as_fd(), Some(err_r.as_fd())).expect("a set");
        nix::unistd::write(&out_w, b"{}\n").expect("written");
        let seen = wait.wait(LONG).expect("the answer is there");
        assert!(seen.stdout);
        assert_eq!(seen.stderr, None);
        assert!(wait.watches_stderr());
    }

    #[test]
    fn stderr_written_before_the_answer_is_seen_with_it_once() {
        let (out_r, out_w) = pipe();
        let (err_r, err_w) = pipe();
        let mut wait = AnswerWait::new(out_r.as_fd(), Some(err_r.as_fd())).expect("a set");
        nix::unistd::write(&err_w, b"thinking\n").expect("written");
        nix::unistd::write(&out_w, b"{}\n").expect("written");
        let seen = wait.wait(LONG).expect("both are there");
        assert_eq!((seen.stdout, seen.stderr), (true, Some(true)));
        // Left unread, stderr is not reported again within the wait: only stdout is.
        assert!(!wait.watches_stderr());
        let seen = wait.wait(LONG).expect("stdout is still readable");
        assert_eq!((seen.stdout, seen.stderr), (true, None));
        // The next wait watches it again, and sees what is still unread.
        wait.rearm(Some(err_r.as_fd()));
        assert!(wait.watches_stderr());
        let seen = wait.wait(LONG).expect("both are still there");
        assert_eq!(seen.stderr, Some(true));
    }

    #[test]
    fn stderr_alone_ends_the_wait_and_a_closed_stderr_does_not_spin() {
        let (out_r, _out_w) = pipe();
        let (err_r, err_w) = pipe();
        let mut wait = AnswerWait::new(out_r.as_fd(), Some(err_r.as_fd())).expect("a set");
        nix::unistd::write(&err_w, b"x").expect("written");
        let seen = wait.wait(LONG).expect("stderr is there");
        assert_eq!((seen.stdout, seen.stderr), (false, Some(true)));
        // Nothing else comes: the wait runs out instead of reporting stderr again.
        assert_eq!(wait.wait(Duration::from_millis(20)), None);
        // A bot that closes its stderr: its end is reported once, without bytes.
        let mut buf = [0u8; 8];
        nix::unistd::read(&err_r, &mut buf).expect("read");
        drop(err_w);
        wait.rearm(Some(err_r.as_fd()));
        let seen = wait.wait(LONG).expect("the end of stderr");
        assert_eq!(seen.stderr, Some(false));
        assert_eq!(wait.wait(Duration::from_millis(20)), None);
    }

    #[test]
    fn without_stderr_only_stdout_is_watched() {
        let (out_r, out_w) = pipe();
        let mut wait = AnswerWait::new(out_r.as_fd(), None).expect("a set");
        assert!(!wait.watches_stderr());
        assert_eq!(wait.wait(Duration::ZERO), None);
        drop(out_w);
        let seen = wait.wait(LONG).expect("the end of stdout");
        assert_eq!((seen.stdout, seen.stderr), (true, None));
    }
}
