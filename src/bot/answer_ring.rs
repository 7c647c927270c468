//! The referee's wait for a bot's answer with the request's write in the same system call:
//! the write, and persistent watches on the bot's stdout and stderr, in an io_uring of the
//! bot's own, waited on in one `io_uring_enter`.
//!
//! The epoll wait ([`AnswerWait`](crate::bot::answer_wait::AnswerWait)) takes three system calls
//! an asked move (the request's `write`, `epoll_wait`, the answer's `read`), one more than the
//! bare pipe round trip's two, and system calls are most of what the referee spends a move
//! (docs/benchmarks.md). Here the write is done as it is submitted and the same call waits
//! (to the nanosecond, where `epoll_wait` counts whole milliseconds) for the bot's stdout: two
//! calls a move with the answer's `read`. The watches are multishot polls, armed once and kept,
//! as an epoll set keeps its descriptors: an io_uring read of its own arms a poll on every
//! call, which measured slower than the epoll wait (docs/benchmarks.md).
//!
//! Where io_uring cannot be had (a kernel older than 6.1, `kernel.io_uring_disabled`, a seccomp
//! filter such as a container's) or fails, the referee waits with epoll as before.
//!
//! The ring owns the buffer its write reads, and a round returns only once the write has ended:
//! when the wait ends first (the time is up, a signal), the write is cancelled and its end
//! waited for. The polls hold no memory of ours.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::{Duration, Instant};

use io_uring::{IoUring, cqueue, opcode, types};

const WRITE: u64 = 1;
const STDOUT: u64 = 2;
const STDERR: u64 = 3;
const CANCEL: u64 = 4;

/// A bot's ring, with the buffer its writes read.
pub struct AnswerRing {
    ring: IoUring,
    /// What the round writes; the kernel reads it while the write is in flight.
    out: Vec<u8>,
    /// Whether stdout's watch is armed (it stays armed until the kernel ends it).
    stdout: bool,
    /// `None` when stderr is not watched; else whether its poll waits in the ring (it is
    /// reported once, and submitted again with the next wait, as the epoll wait rearms it).
    stderr: Option<bool>,
    /// A write was left in flight by a ring that failed: its buffer is then never freed.
    stranded: bool,
}

/// A bot's pipes, as the referee holds them.
#[derive(Debug, Clone, Copy)]
pub struct Pipes<'a> {
    /// Its input; `None` once closed.
    pub stdin: Option<BorrowedFd<'a>>,
    /// Its output.
    pub stdout: BorrowedFd<'a>,
    /// Its stderr, when watched.
    pub stderr: Option<BorrowedFd<'a>>,
}

/// What one round did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    /// How many bytes of what was to be written went.
    pub written: usize,
    /// Whether stdout was reported (something to read, or its end; a report may also be left
    /// over from bytes read already, and the read then finds nothing).
    pub stdout: bool,
    /// Whether stderr held bytes, if its watch reported in this round (its end is reported
    /// too, without bytes).
    pub stderr: Option<bool>,
    /// The ring failed: the epoll wait is to take over, for good.
    pub failed: bool,
}

/// The write of a round: none, in flight, or ended with the kernel's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    None,
    Flying,
    Done(i32),
}

impl AnswerRing {
    /// A ring for one bot, its stderr watched if `stderr`; `None` where io_uring cannot be had.
    /// Bound to the thread that first submits to it (the referee's thread that asks the bot):
    /// another thread's round fails, and the epoll wait takes over.
    pub fn new(stderr: bool) -> Option<AnswerRing> {
        let ring = IoUring::builder()
            .setup_single_issuer()
            // Completions are taken only while the referee waits in the ring: a bot writing
            // never interrupts the referee's other work.
            .setup_defer_taskrun()
            .build(8)
            .ok()?;
        if !ring.params().is_feature_ext_arg() || !ring.params().is_feature_nodrop() {
            return None;
        }
        Some(AnswerRing {
            ring,
            out: Vec::with_capacity(16 * 1024),
            stdout: false,
            stderr: stderr.then_some(false),
            stranded: false,
        })
    }

    /// Whether stderr is watched and was not reported in the last round: a round that sees
    /// stdout alone then knows stderr held nothing when the answer came.
    pub fn watches_stderr(&self) -> bool {
        self.stderr == Some(true)
    }

    /// Writes `out` to the bot's stdin (when not empty) and waits for its stdout to be
    /// reported, `wait` at most (taken as given: the clock is read again only when the round
    /// goes on), that is until `until`; watches its stderr (given to every round, if it is
    /// watched), and with `rearm` (the first round of a wait) watches it again if it was
    /// reported: a stderr seen with bytes stays readable until the drain thread reads them, and
    /// watching it again within a wait would end every round at once.
    pub fn round(
        &mut self,
        pipes: &Pipes<'_>,
        out: &[u8],
        rearm: bool,
        wait: Duration,
        until: Instant,
    ) -> Round {
        let mut round = Round {
            written: 0,
            stdout: false,
            stderr: None,
            failed: false,
        };
        let mut write = Op::None;
        let stderr = pipes.stderr.filter(|_| rearm);
        if !self.submit(pipes, out, stderr, &mut write) {
            return self.failed(false, write);
        }
        let mut timeout = Some(wait);
        let mut cancelled = false;
        loop {
            let want = 1 + usize::from(write == Op::Flying);
            let entered = self.enter(want, timeout);
            let refused = match &entered {
                Err(e) => !matches!(e.raw_os_error(), Some(libc::EINTR | libc::ETIME)),
                Ok(_) => false,
            };
            if refused && !self.ring.submission().is_empty() {
                // Refused before it took what was queued: with `EEXIST` (another thread) nothing
                // was taken; else the write may have been, and may still be in flight.
                let nothing_taken = entered.is_err_and(|e| e.raw_os_error() == Some(libc::EEXIST));
                return self.failed(!nothing_taken, write);
            }
            let news = self.reap(&mut write, &mut round);
            if cancelled {
                if write != Op::Flying {
                    break;
                }
                if refused && news == 0 {
                    // The ring no longer completes what it holds: the buffer stays with it.
                    return self.failed(true, write);
                }
                timeout = None;
                continue;
            }
            let short = matches!(write, Op::Done(n) if n < 0 || n as usize != out.len());
            let left = match news {
                // Nothing but the write came: the time is up, or a signal ended the wait.
                0 => Duration::ZERO,
                _ if round.stdout || short => Duration::ZERO,
                _ => until.saturating_duration_since(Instant::now()),
            };
            if !left.is_zero() {
                timeout = Some(left);
                continue;
            }
            if write != Op::Flying {
                break;
            }
            if !self.cancel_write() {
                return self.failed(true, write);
            }
            cancelled = true;
            timeout = None;
        }
        round.written = written(write);
        round
    }

    /// Queues the round's operations: the write of `out` (marked in `write`), and the watches
    /// not armed. False if the queue would not take them.
    fn submit(
        &mut self,
        pipes: &Pipes<'_>,
        out: &[u8],
        stderr: Option<BorrowedFd<'_>>,
        write: &mut Op,
    ) -> bool {
        let mut entries = [const { None }; 3];
        if let (Some(stdin), false) = (pipes.stdin, out.is_empty()) {
            self.out.clear();
            self.out.extend_from_slice(out);
            let len = u32::try_from(self.out.len()).unwrap_or(u32::MAX);
            let fd = types::Fd(stdin.as_raw_fd());
            let entry = opcode::Write::new(fd, self.out.as_ptr(), len).build();
            entries[0] = Some(entry.user_data(WRITE));
        }
        if !self.stdout {
            let fd = types::Fd(pipes.stdout.as_raw_fd());
            let entry = opcode::PollAdd::new(fd, libc::POLLIN as u32)
                .multi(true)
                .build();
            entries[1] = Some(entry.user_data(STDOUT));
        }
        if let (Some(false), Some(err)) = (self.stderr, stderr) {
            let fd = types::Fd(err.as_raw_fd());
            let entry = opcode::PollAdd::new(fd, libc::POLLIN as u32).build();
            entries[2] = Some(entry.user_data(STDERR));
        }
        let mut queue = self.ring.submission();
        if queue.capacity() - queue.len() < entries.len() {
            return false;
        }
        for entry in entries.iter().flatten() {
            // SAFETY: the write reads `self.out`, owned by the ring and left untouched until the
            // round has seen the write end, or never freed (`stranded`) if it cannot; the
            // descriptors are the caller's, open for the call, and the kernel holds a reference
            // of its own to each file once it has taken the entry.
            unsafe { queue.push(entry) }.expect("room was checked");
        }
        drop(queue);
        if entries[0].is_some() {
            *write = Op::Flying;
        }
        self.stdout = true;
        if entries[2].is_some() {
            self.stderr = Some(true);
        }
        true
    }

    /// Submits what is queued and waits for `want` completions, at most `timeout` (`None`: as
    /// long as it takes).
    fn enter(&mut self, want: usize, timeout: Option<Duration>) -> io::Result<usize> {
        let submitter = self.ring.submitter();
        match timeout {
            Some(t) => {
                let ts = types::Timespec::from(t);
                let args = types::SubmitArgs::new().timespec(&ts);
                submitter.submit_with_args(want, &args)
            }
            None => submitter.submit_and_wait(want),
        }
    }

    /// Takes every completion: the write's result, stdout's and stderr's reports. How many
    /// came besides the write's.
    fn reap(&mut self, write: &mut Op, round: &mut Round) -> usize {
        let mut news = 0;
        for entry in self.ring.completion() {
            let result = entry.result();
            news += usize::from(entry.user_data() != WRITE);
            match entry.user_data() {
                WRITE => *write = Op::Done(result),
                STDOUT => {
                    // A watch the kernel ended (it says so) is armed again with the next round.
                    self.stdout &= cqueue::more(entry.flags());
                    round.stdout |= result >= 0 || !self.stdout;
                }
                STDERR if result >= 0 => {
                    self.stderr = Some(false);
                    round.stderr = Some(result & libc::POLLIN as i32 != 0);
                }
                // The watch failed: stderr's lines are then looked for when taken.
                STDERR => self.stderr = None,
                _ => {}
            }
        }
        news
    }

    /// Queues the write's cancellation; false if the queue would not take it.
    fn cancel_write(&mut self) -> bool {
        let entry = opcode::AsyncCancel::new(WRITE).build().user_data(CANCEL);
        // SAFETY: a cancellation refers to no memory of ours.
        unsafe { self.ring.submission().push(&entry) }.is_ok()
    }

    /// A round that could not be done: the ring is done with, and the caller turns to the epoll
    /// wait. If the write may still be in flight (`stranded`), its buffer is never freed, and
    /// it counts as not written.
    fn failed(&mut self, stranded: bool, write: Op) -> Round {
        self.stranded |= stranded;
        self.stderr = None;
        Round {
            written: written(write),
            stdout: false,
            stderr: None,
            failed: true,
        }
    }
}

/// How many bytes a write wrote, as far as is known.
fn written(write: Op) -> usize {
    match write {
        Op::Done(n) if n > 0 => n as usize,
        _ => 0,
    }
}

impl Drop for AnswerRing {
    fn drop(&mut self) {
        if self.stranded {
            // The write may still be in flight from this buffer: it is leaked, once.
            std::mem::forget(std::mem::take(&mut self.out));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::{AsFd, OwnedFd};

    fn pipe() -> (OwnedFd, OwnedFd) {
        nix::unistd::pipe().expect("a pipe")
    }

    const LONG: Duration = Duration::from_secs(10);
    const SHORT: Duration = Duration::from_millis(20);

    /// A round of `wait` from now.
    fn round(
        ring: &mut AnswerRing,
        pipes: &Pipes<'_>,
        out: &[u8],
        rearm: bool,
        wait: Duration,
    ) -> Round {
        ring.round(pipes, out, rearm, wait, Instant::now() + wait)
    }

    fn read_all(fd: &OwnedFd) -> Vec<u8> {
        let mut buf = vec![0u8; 4096];
        let n = nix::unistd::read(fd, &mut buf).expect("read");
        buf.truncate(n);
        buf
    }

    /// A ring, where io_uring can be had (else the epoll wait's tests cover the referee).
    fn ring(stderr: bool) -> Option<AnswerRing> {
        AnswerRing::new(stderr)
    }

    #[test]
    fn a_round_writes_the_request_and_sees_the_answer_with_stderr_untouched() {
        let Some(mut ring) = ring(true) else { return };
        let (in_r, in_w) = pipe();
        let (out_r, out_w) = pipe();
        let (err_r, _err_w) = pipe();
        let pipes = Pipes {
            stdin: Some(in_w.as_fd()),
            stdout: out_r.as_fd(),
            stderr: Some(err_r.as_fd()),
        };
        // The answer is written from another thread once the request is read.
        let bot = std::thread::spawn(move || {
            let got = read_all(&in_r);
            nix::unistd::write(&out_w, b"{}\n").expect("written");
            got
        });
        let done = round(&mut ring, &pipes, b"turn 1\n", true, LONG);
        assert_eq!(bot.join().expect("the bot"), b"turn 1\n");
        assert_eq!((done.written, done.stdout, done.failed), (7, true, false));
        assert_eq!(read_all(&out_r), b"{}\n");
        // Stderr held nothing when the answer came, and is still watched.
        assert_eq!(done.stderr, None);
        assert!(ring.watches_stderr());
    }

    #[test]
    fn nothing_in_time_is_nothing_and_the_write_still_counts() {
        let Some(mut ring) = ring(false) else { return };
        let (in_r, in_w) = pipe();
        let (out_r, out_w) = pipe();
        let pipes = Pipes {
            stdin: Some(in_w.as_fd()),
            stdout: out_r.as_fd(),
            stderr: None,
        };
        let start = Instant::now();
        let done = round(&mut ring, &pipes, b"turn\n", true, SHORT);
        assert!(start.elapsed() >= SHORT, "{:?}", start.elapsed());
        assert_eq!((done.written, done.stdout), (5, false));
        assert_eq!(read_all(&in_r), b"turn\n");
        // The watch stays armed: what comes next is seen by the next round, again and again.
        for n in 0..3 {
            nix::unistd::write(&out_w, b"late\n").expect("written");
            let done = round(&mut ring, &pipes, b"", true, LONG);
            assert_eq!((done.written, done.stdout), (0, true), "round {n}");
            assert_eq!(read_all(&out_r), b"late\n");
        }
    }

    #[test]
    fn stderr_written_before_the_answer_is_seen_once_a_wait() {
        let Some(mut ring) = ring(true) else { return };
        let (out_r, out_w) = pipe();
        let (err_r, err_w) = pipe();
        let pipes = Pipes {
            stdin: None,
            stdout: out_r.as_fd(),
            stderr: Some(err_r.as_fd()),
        };
        nix::unistd::write(&err_w, b"thinking\n").expect("written");
        nix::unistd::write(&out_w, b"{}\n").expect("written");
        let mut seen = None;
        let mut stdout = false;
        // Stderr's report and stdout's may come in one round or two.
        for rearm in [true, false] {
            let done = round(&mut ring, &pipes, b"", rearm, LONG);
            seen = seen.or(done.stderr);
            stdout |= done.stdout;
            if stdout && seen.is_some() {
                break;
            }
        }
        assert_eq!((seen, stdout), (Some(true), true));
        assert!(!ring.watches_stderr());
        assert_eq!(read_all(&out_r), b"{}\n");
        // Left unread, stderr is not reported again within the wait.
        nix::unistd::write(&out_w, b"{}\n").expect("written");
        let done = round(&mut ring, &pipes, b"", false, LONG);
        assert_eq!((done.stdout, done.stderr), (true, None));
        assert_eq!(read_all(&out_r), b"{}\n");
        // The next wait watches it again, and sees what is still unread.
        let done = round(&mut ring, &pipes, b"", true, SHORT);
        assert_eq!((done.stdout, done.stderr), (false, Some(true)));
    }

    #[test]
    fn a_closed_output_is_reported_and_a_closed_stderr_is_reported_without_bytes() {
        let Some(mut ring) = ring(true) else { return };
        let (out_r, out_w) = pipe();
        let (err_r, err_w) = pipe();
        let pipes = Pipes {
            stdin: None,
            stdout: out_r.as_fd(),
            stderr: Some(err_r.as_fd()),
        };
        drop(err_w);
        let done = round(&mut ring, &pipes, b"", true, SHORT);
        assert_eq!((done.stdout, done.stderr), (false, Some(false)));
        drop(out_w);
        let done = round(&mut ring, &pipes, b"", false, LONG);
        assert!(done.stdout);
    }

    #[test]
    fn a_request_the_pipe_cannot_take_is_cut_short_and_cancelled() {
        let Some(mut ring) = ring(false) else { return };
        let (in_r, in_w) = pipe();
        let (out_r, _out_w) = pipe();
        // Fill the bot's input but for 100 bytes.
        let nonblocking = nix::fcntl::FcntlArg::F_SETFL(nix::fcntl::OFlag::O_NONBLOCK);
        nix::fcntl::fcntl(&in_w, nonblocking).expect("fcntl");
        while nix::unistd::write(&in_w, &[b'x'; 4096]).is_ok() {}
        let mut buf = vec![0u8; 100];
        assert_eq!(nix::unistd::read(&in_r, &mut buf), Ok(100));
        let pipes = Pipes {
            stdin: Some(in_w.as_fd()),
            stdout: out_r.as_fd(),
            stderr: None,
        };
        let done = round(&mut ring, &pipes, &[b'y'; 8192], true, SHORT);
        assert!(done.written < 8192, "{done:?}");
        assert!(!done.stdout && !done.failed);
    }

    #[test]
    fn a_ring_asked_from_another_thread_fails_and_has_written_nothing() {
        let Some(mut ring) = ring(false) else { return };
        let (in_r, in_w) = pipe();
        let (out_r, out_w) = pipe();
        nix::unistd::write(&out_w, b"a\n").expect("written");
        let pipes = Pipes {
            stdin: None,
            stdout: out_r.as_fd(),
            stderr: None,
        };
        assert!(round(&mut ring, &pipes, b"", true, LONG).stdout);
        std::thread::scope(|s| {
            s.spawn(|| {
                let pipes = Pipes {
                    stdin: Some(in_w.as_fd()),
                    stdout: out_r.as_fd(),
                    stderr: None,
                };
                let done = round(&mut ring, &pipes, b"turn\n", true, LONG);
                assert_eq!((done.written, done.failed), (0, true));
            });
        });
        let nonblocking = nix::fcntl::FcntlArg::F_SETFL(nix::fcntl::OFlag::O_NONBLOCK);
        nix::fcntl::fcntl(&in_r, nonblocking).expect("fcntl");
        let mut buf = [0u8; 8];
        assert_eq!(
            nix::unistd::read(&in_r, &mut buf),
            Err(nix::errno::Errno::EAGAIN)
        );
    }
}
