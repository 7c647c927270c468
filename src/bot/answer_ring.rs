//! The referee's exchange with a bot in one system call: the request's write, the wait for the
//! answer with its read, and the watch on the bot's stderr, submitted together to an io_uring of
//! the bot's own and waited for in one `io_uring_enter`.
//!
//! The epoll wait ([`AnswerWait`](crate::bot::answer_wait::AnswerWait)) takes three system calls
//! an asked move (the request's `write`, `epoll_wait`, the answer's `read`), one more than the
//! bare pipe round trip's two, and system calls are most of what the referee spends a move
//! (docs/benchmarks.md). Here the write is done as it is submitted, the read waits in the
//! kernel for the answer's bytes, and the call returns once they are read, or once the wait's
//! time (to the nanosecond, where `epoll_wait` counts whole milliseconds) is up.
//!
//! Where io_uring cannot be had (a kernel older than 6.1, `kernel.io_uring_disabled`, a seccomp
//! filter such as a container's) or fails, the referee waits with epoll as before.
//!
//! The ring owns the buffers its operations use, and a round returns only once none is in
//! flight: on a short write, a read done while the write waits, the time up or a signal, what
//! is still pending is cancelled, and its end waited for, before the round returns.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::{Duration, Instant};

use io_uring::{IoUring, opcode, types};

const WRITE: u64 = 1;
const READ: u64 = 2;
const STDERR: u64 = 3;
const CANCEL: u64 = 4;
/// The most bytes one round reads: what the epoll wait's read takes too.
const READ_SIZE: usize = 64 * 1024;

/// A bot's ring, with the buffers its writes and reads use.
pub struct AnswerRing {
    ring: IoUring,
    /// What the round writes; the kernel reads it while the write is in flight.
    out: Vec<u8>,
    /// Where the round reads; the kernel writes it while the read is in flight.
    input: Box<[u8]>,
    /// `None` when stderr is not watched; else whether its poll waits in the ring (it is
    /// reported once, and submitted again with the next round, as the epoll wait rearms it).
    stderr: Option<bool>,
    /// An operation was left in flight by a ring that failed: its buffers are then never freed.
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

/// What a round's read came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// Bytes read, in [`AnswerRing::input`].
    Bytes(usize),
    /// The end of the bot's output.
    End,
    /// Nothing came in time, or a signal ended the wait.
    Nothing,
    /// The ring cannot read this pipe (or failed): the epoll wait is to take over, for good.
    Failed,
}

/// What one round did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    /// How many bytes of what was to be written went.
    pub written: usize,
    /// What the read came to.
    pub read: Read,
    /// Whether stderr held bytes, if its watch reported in this round (its end is reported
    /// too, without bytes).
    pub stderr: Option<bool>,
}

/// An operation of a round: not submitted, in flight, or ended with the kernel's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    None,
    Flying,
    Done(i32),
}

impl Op {
    fn flying(self) -> bool {
        self == Op::Flying
    }
}

impl AnswerRing {
    /// A ring for one bot, its stderr watched if `stderr`; `None` where io_uring cannot be had.
    /// Bound to the thread that first submits to it (the referee's thread that asks the bot):
    /// another thread's round fails, and the epoll wait takes over.
    pub fn new(stderr: bool) -> Option<AnswerRing> {
        let ring = IoUring::builder()
            .setup_single_issuer()
            // Completions are taken only while the referee waits in the ring: a bot writing to
            // stderr never interrupts the referee's other work.
            .setup_defer_taskrun()
            .build(8)
            .ok()?;
        if !ring.params().is_feature_ext_arg() || !ring.params().is_feature_nodrop() {
            return None;
        }
        Some(AnswerRing {
            ring,
            out: Vec::with_capacity(16 * 1024),
            input: vec![0; READ_SIZE].into_boxed_slice(),
            stderr: stderr.then_some(false),
            stranded: false,
        })
    }

    /// The bytes the last round read.
    pub fn input(&self, n: usize) -> &[u8] {
        &self.input[..n]
    }

    /// Whether stderr is watched and was not reported in the last round: a round that sees
    /// stdout alone then knows stderr held nothing when the answer came.
    pub fn watches_stderr(&self) -> bool {
        self.stderr == Some(true)
    }

    /// Writes `out` to the bot's stdin (when not empty) and reads what its stdout has, waiting for it
    /// `wait` at most (taken as given: the clock is read again only when the round goes on),
    /// that is until `until`; watches `stderr` (given to every round, if it is watched), and
    /// with `rearm` (the first round of a wait) watches it again if it was reported: a stderr
    /// seen with bytes stays readable until the drain thread reads them, and watching it again
    /// within a wait would end every round at once.
    pub fn round(
        &mut self,
        pipes: &Pipes<'_>,
        out: &[u8],
        rearm: bool,
        wait: Duration,
        until: Instant,
    ) -> Round {
        let mut write = Op::None;
        let mut read = Op::Flying;
        let mut seen = None;
        let stderr = pipes.stderr.filter(|_| rearm);
        if !self.submit(pipes.stdin, out, pipes.stdout, stderr, &mut write) {
            return self.failed(false, write);
        }
        let mut timeout = Some(wait);
        let mut cancelled = false;
        while write.flying() || read.flying() {
            let want = usize::from(write.flying()) + usize::from(read.flying());
            let entered = self.enter(want, timeout);
            let refused = match &entered {
                Err(e) => !matches!(e.raw_os_error(), Some(libc::EINTR | libc::ETIME)),
                Ok(_) => false,
            };
            if refused && !self.ring.submission().is_empty() {
                // Refused before it took what was queued: with `EEXIST` (another thread) nothing
                // was taken; else some may have been, and may still be in flight.
                let nothing_taken = entered.is_err_and(|e| e.raw_os_error() == Some(libc::EEXIST));
                return self.failed(!nothing_taken, write);
            }
            let news = self.reap(&mut write, &mut read, &mut seen);
            if !write.flying() && !read.flying() {
                break;
            }
            if cancelled {
                if refused && news == 0 {
                    // The ring no longer completes what it holds: its buffers stay with it.
                    return self.failed(true, write);
                }
                continue;
            }
            let short = matches!(write, Op::Done(n) if n < 0 || n as usize != out.len());
            let left = match news {
                // Nothing but the write came: the time is up, or a signal ended the wait.
                0 => Duration::ZERO,
                _ => until.saturating_duration_since(Instant::now()),
            };
            if left.is_zero() || short || !read.flying() {
                if !self.cancel(write, read) {
                    return self.failed(true, write);
                }
                cancelled = true;
                timeout = None;
            } else {
                timeout = Some(left);
            }
        }
        let read = match read {
            Op::Done(0) => Read::End,
            Op::Done(n) if n > 0 => Read::Bytes(n as usize),
            Op::Done(e) if e == -libc::ECANCELED || e == -libc::EINTR => Read::Nothing,
            _ => Read::Failed,
        };
        Round {
            written: written(write),
            read,
            stderr: seen,
        }
    }

    /// Queues the round's operations: the write of `out` (marked in `write`), the read, and
    /// stderr's watch when it is to be submitted again. False if the queue would not take them.
    fn submit(
        &mut self,
        stdin: Option<BorrowedFd<'_>>,
        out: &[u8],
        stdout: BorrowedFd<'_>,
        stderr: Option<BorrowedFd<'_>>,
        write: &mut Op,
    ) -> bool {
        self.out.clear();
        self.out.extend_from_slice(out);
        let mut entries = [const { None }; 3];
        if let (Some(stdin), false) = (stdin, out.is_empty()) {
            let len = u32::try_from(self.out.len()).unwrap_or(u32::MAX);
            let fd = types::Fd(stdin.as_raw_fd());
            entries[0] = Some(
                opcode::Write::new(fd, self.out.as_ptr(), len)
                    .build()
                    .user_data(WRITE),
            );
            *write = Op::Flying;
        }
        let fd = types::Fd(stdout.as_raw_fd());
        let size = self.input.len() as u32;
        entries[1] = Some(
            opcode::Read::new(fd, self.input.as_mut_ptr(), size)
                .build()
                .user_data(READ),
        );
        if let (Some(false), Some(err)) = (self.stderr, stderr) {
            let fd = types::Fd(err.as_raw_fd());
            entries[2] = Some(
                opcode::PollAdd::new(fd, libc::POLLIN as u32)
                    .build()
                    .user_data(STDERR),
            );
        }
        let mut queue = self.ring.submission();
        if queue.capacity() - queue.len() < 3 {
            return false;
        }
        for entry in entries.iter().flatten() {
            // SAFETY: the write reads `self.out` and the read fills `self.input`, both owned
            // by the ring and left untouched until the round has seen both operations end, or
            // never freed (`stranded`) if it cannot; the descriptors are the caller's, open for
            // the call, and the kernel holds a reference of its own to each file once it has
            // taken the entry.
            unsafe { queue.push(entry) }.expect("room was checked");
        }
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

    /// Takes every completion: a write's or a read's result, stderr's report. How many came
    /// besides the write's.
    fn reap(&mut self, write: &mut Op, read: &mut Op, seen: &mut Option<bool>) -> usize {
        let mut news = 0;
        for entry in self.ring.completion() {
            let result = entry.result();
            news += usize::from(entry.user_data() != WRITE);
            match entry.user_data() {
                WRITE => *write = Op::Done(result),
                READ => *read = Op::Done(result),
                STDERR if result >= 0 => {
                    self.stderr = Some(false);
                    *seen = Some(result & libc::POLLIN as i32 != 0);
                }
                // The watch failed: stderr's lines are then looked for when taken.
                STDERR => self.stderr = None,
                _ => {}
            }
        }
        news
    }

    /// Queues the cancellation of what is still in flight; false if the queue would not take it.
    fn cancel(&mut self, write: Op, read: Op) -> bool {
        let mut entries = Vec::with_capacity(2);
        for (op, data) in [(write, WRITE), (read, READ)] {
            if op.flying() {
                entries.push(opcode::AsyncCancel::new(data).build().user_data(CANCEL));
            }
        }
        // SAFETY: a cancellation refers to no memory of ours.
        unsafe { self.ring.submission().push_multiple(&entries) }.is_ok()
    }

    /// A round that could not be done: the ring is done with, and the caller turns to the epoll
    /// wait. If an operation may still be in flight (`stranded`), the buffers are never freed;
    /// a write still in flight then counts as not written.
    fn failed(&mut self, stranded: bool, write: Op) -> Round {
        self.stranded |= stranded;
        self.stderr = None;
        Round {
            written: written(write),
            read: Read::Failed,
            stderr: None,
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
            // An operation may still be in flight into these buffers: they are leaked, once.
            std::mem::forget(std::mem::take(&mut self.out));
            std::mem::forget(std::mem::take(&mut self.input));
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

    #[test]
    fn a_round_writes_the_request_and_reads_the_answer_with_stderr_untouched() {
        let Some(mut ring) = AnswerRing::new(true) else {
            return; // no io_uring here: the epoll wait's tests cover the referee
        };
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
            nix::unistd::write(&out_w, b"{\"id\":1}\n").expect("written");
            got
        });
        let done = round(&mut ring, &pipes, b"turn 1\n", true, LONG);
        assert_eq!(bot.join().expect("the bot"), b"turn 1\n");
        assert_eq!(done.written, 7);
        let Read::Bytes(n) = done.read else {
            panic!("{done:?}")
        };
        assert_eq!(ring.input(n), b"{\"id\":1}\n");
        // Stderr held nothing when the answer came, and is still watched.
        assert_eq!(done.stderr, None);
        assert!(ring.watches_stderr());
    }

    #[test]
    fn nothing_in_time_is_nothing_and_the_write_still_counts() {
        let Some(mut ring) = AnswerRing::new(false) else {
            return;
        };
        let (in_r, in_w) = pipe();
        let (out_r, _out_w) = pipe();
        let pipes = Pipes {
            stdin: Some(in_w.as_fd()),
            stdout: out_r.as_fd(),
            stderr: None,
        };
        let start = Instant::now();
        let done = round(&mut ring, &pipes, b"turn\n", true, SHORT);
        assert!(start.elapsed() >= SHORT, "{:?}", start.elapsed());
        assert_eq!((done.written, done.read), (5, Read::Nothing));
        assert_eq!(read_all(&in_r), b"turn\n");
        // The cancelled read took nothing: what comes next is read by the next round.
        nix::unistd::write(&_out_w, b"late\n").expect("written");
        let done = round(&mut ring, &pipes, b"", true, LONG);
        let Read::Bytes(n) = done.read else {
            panic!("{done:?}")
        };
        assert_eq!(ring.input(n), b"late\n");
        assert_eq!(done.written, 0);
    }

    #[test]
    fn stderr_written_before_the_answer_is_seen_once_a_wait() {
        let Some(mut ring) = AnswerRing::new(true) else {
            return;
        };
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
        let mut read = Read::Nothing;
        // Stderr's report and the read may come in one round or two.
        for _ in 0..2 {
            let done = round(&mut ring, &pipes, b"", seen.is_none(), LONG);
            seen = seen.or(done.stderr);
            read = done.read;
            if matches!(read, Read::Bytes(_)) {
                break;
            }
        }
        assert_eq!(seen, Some(true));
        assert_eq!(read, Read::Bytes(3));
        assert!(!ring.watches_stderr());
        // Left unread, stderr is not reported again within the wait.
        nix::unistd::write(&out_w, b"{}\n").expect("written");
        let done = round(&mut ring, &pipes, b"", false, LONG);
        assert_eq!((done.read, done.stderr), (Read::Bytes(3), None));
        // The next wait watches it again, and sees what is still unread.
        let done = round(&mut ring, &pipes, b"", true, SHORT);
        assert_eq!((done.read, done.stderr), (Read::Nothing, Some(true)));
    }

    #[test]
    fn a_closed_output_is_its_end_and_a_closed_stderr_is_reported_without_bytes() {
        let Some(mut ring) = AnswerRing::new(true) else {
            return;
        };
        let (out_r, out_w) = pipe();
        let (err_r, err_w) = pipe();
        let pipes = Pipes {
            stdin: None,
            stdout: out_r.as_fd(),
            stderr: Some(err_r.as_fd()),
        };
        drop(err_w);
        let done = round(&mut ring, &pipes, b"", true, SHORT);
        assert_eq!((done.read, done.stderr), (Read::Nothing, Some(false)));
        drop(out_w);
        let done = round(&mut ring, &pipes, b"", false, LONG);
        assert_eq!(done.read, Read::End);
    }

    #[test]
    fn a_request_the_pipe_cannot_take_is_cut_short_and_cancelled() {
        let Some(mut ring) = AnswerRing::new(false) else {
            return;
        };
        let (in_r, in_w) = pipe();
        let (out_r, _out_w) = pipe();
        // Fill the bot's input but for 100 bytes.
        nix::fcntl::fcntl(
            &in_w,
            nix::fcntl::FcntlArg::F_SETFL(nix::fcntl::OFlag::O_NONBLOCK),
        )
        .expect("fcntl");
        let mut filled = 0;
        while let Ok(n) = nix::unistd::write(&in_w, &[b'x'; 4096]) {
            filled += n;
        }
        let mut buf = vec![0u8; 100];
        assert_eq!(nix::unistd::read(&in_r, &mut buf), Ok(100));
        let pipes = Pipes {
            stdin: Some(in_w.as_fd()),
            stdout: out_r.as_fd(),
            stderr: None,
        };
        let done = round(&mut ring, &pipes, &[b'y'; 8192], true, SHORT);
        assert!(done.written < 8192, "{done:?}");
        assert_eq!(done.read, Read::Nothing);
        assert!(filled > 0);
    }

    #[test]
    fn a_ring_asked_from_another_thread_fails_and_has_written_nothing() {
        let Some(mut ring) = AnswerRing::new(false) else {
            return;
        };
        let (in_r, in_w) = pipe();
        let (out_r, out_w) = pipe();
        nix::unistd::write(&out_w, b"a\n").expect("written");
        let pipes = Pipes {
            stdin: None,
            stdout: out_r.as_fd(),
            stderr: None,
        };
        assert_eq!(
            round(&mut ring, &pipes, b"", true, LONG).read,
            Read::Bytes(2)
        );
        std::thread::scope(|s| {
            s.spawn(|| {
                let pipes = Pipes {
                    stdin: Some(in_w.as_fd()),
                    stdout: out_r.as_fd(),
                    stderr: None,
                };
                let done = round(&mut ring, &pipes, b"turn\n", true, LONG);
                assert_eq!((done.written, done.read), (0, Read::Failed));
            });
        });
        nix::fcntl::fcntl(
            &in_r,
            nix::fcntl::FcntlArg::F_SETFL(nix::fcntl::OFlag::O_NONBLOCK),
        )
        .expect("fcntl");
        let mut buf = [0u8; 8];
        assert_eq!(
            nix::unistd::read(&in_r, &mut buf),
            Err(nix::errno::Errno::EAGAIN)
        );
    }
}
