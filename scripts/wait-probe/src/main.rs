//! The referee's wait for an answer, measured alone: 40,000 round trips of a turn-sized line
//! (1,556 bytes) to an echo child (this program again, with `echo`) that sends 56 bytes back,
//! each side's CPU per round trip (`getrusage`). Run each way on one CPU, as a match runs:
//!
//! ```sh
//! CARGO_TARGET_DIR=/tmp/wait-probe cargo build --release --manifest-path scripts/wait-probe/Cargo.toml
//! for way in raw epoll ring ring-plain-write ring-no-timeout; do taskset -c 1 /tmp/wait-probe/release/wait-probe $way; done
//! ```
//!
//! - `raw`: a blocking `write` and a blocking `read` (the raw round trip's two system calls).
//! - `epoll`: what the referee does (`bot/answer_wait.rs`): the bot's pipes non-blocking, a
//!   `write`, an `epoll_wait` with a 5 ms timeout on a set registered once, a `read`.
//! - `ring`: one `io_uring_enter` a move that submits the write and waits (5 ms timeout) on a
//!   multishot poll of stdout armed once (`DEFER_TASKRUN`, `SINGLE_ISSUER`), then a `read`.
//! - `ring-plain-write`: the same with the write a plain `write`; `ring-no-timeout`: without the
//!   wait's timeout.
use std::os::fd::{AsFd, AsRawFd};
use std::process::{Command, Stdio};
use std::time::Duration;

use io_uring::{IoUring, cqueue, opcode, types};
use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};

const OUT: usize = 1556;
const BACK: usize = 56;
const N: usize = 40_000;

fn cpu(who: i32) -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let u = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut u);
        u
    };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    s(u.ru_utime) + s(u.ru_stime)
}

fn echo() {
    let mut buf = vec![0u8; 65536];
    let back = [b'y'; BACK];
    let mut have = 0;
    loop {
        // SAFETY: reads into the buffer's free part.
        let r = unsafe { libc::read(0, buf[have..].as_mut_ptr().cast(), buf.len() - have) };
        if r <= 0 {
            return;
        }
        have += r as usize;
        while have >= OUT {
            // SAFETY: writes the answer from a live array.
            if unsafe { libc::write(1, back.as_ptr().cast(), BACK) } != BACK as isize {
                return;
            }
            buf.copy_within(OUT..have, 0);
            have -= OUT;
        }
    }
}

fn main() {
    let way = std::env::args()
        .nth(1)
        .expect("a way: raw, epoll, ring, ring-plain-write, ring-no-timeout, echo");
    if way == "echo" {
        return echo();
    }
    let mut child = Command::new(std::env::current_exe().expect("this program"))
        .arg("echo")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the echo child");
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    if way != "raw" {
        for fd in [stdin.as_raw_fd(), stdout.as_raw_fd()] {
            // SAFETY: sets a flag on descriptors this process owns.
            unsafe { libc::fcntl(fd, libc::F_SETFL, libc::O_NONBLOCK) };
        }
    }
    let mut line = vec![b'x'; OUT];
    line[OUT - 1] = b'\n';
    let mut buf = vec![0u8; 65536];
    let start = cpu(libc::RUSAGE_SELF);
    match way.as_str() {
        "raw" => {
            for _ in 0..N {
                assert_eq!(nix::unistd::write(&stdin, &line), Ok(OUT));
                let mut got = 0;
                while got < BACK {
                    got += nix::unistd::read(&stdout, &mut buf).expect("read");
                }
            }
        }
        "epoll" => {
            let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC).expect("epoll");
            epoll
                .add(stdout.as_fd(), EpollEvent::new(EpollFlags::EPOLLIN, 0))
                .expect("added");
            for _ in 0..N {
                assert_eq!(nix::unistd::write(&stdin, &line), Ok(OUT));
                let mut got = 0;
                while got < BACK {
                    let mut events = [EpollEvent::empty(); 2];
                    let _ = epoll.wait(&mut events, EpollTimeout::from(5u8));
                    if let Ok(n) = nix::unistd::read(&stdout, &mut buf) {
                        got += n;
                    }
                }
            }
        }
        _ => {
            let mut ring: IoUring = IoUring::builder()
                .setup_single_issuer()
                .setup_defer_taskrun()
                .build(8)
                .expect("io_uring");
            let fd = types::Fd(stdout.as_raw_fd());
            let poll = opcode::PollAdd::new(fd, libc::POLLIN as u32)
                .multi(true)
                .build();
            // SAFETY: a poll refers to no memory of ours.
            unsafe { ring.submission().push(&poll.user_data(2)).expect("room") };
            let plain = way.contains("plain-write");
            let timeout = !way.contains("no-timeout");
            for _ in 0..N {
                let mut got = 0;
                let mut first = true;
                while got < BACK {
                    let mut want = 1;
                    if first && plain {
                        assert_eq!(nix::unistd::write(&stdin, &line), Ok(OUT));
                    } else if first {
                        let fd = types::Fd(stdin.as_raw_fd());
                        let write = opcode::Write::new(fd, line.as_ptr(), OUT as u32).build();
                        // SAFETY: `line` outlives the write, which ends within this enter.
                        unsafe { ring.submission().push(&write.user_data(1)).expect("room") };
                        want = 2;
                    }
                    first = false;
                    let _ = match timeout {
                        true => {
                            let ts = types::Timespec::from(Duration::from_millis(5));
                            let args = types::SubmitArgs::new().timespec(&ts);
                            ring.submitter().submit_with_args(want, &args)
                        }
                        false => ring.submitter().submit_and_wait(want),
                    };
                    for entry in ring.completion() {
                        assert!(entry.user_data() != 2 || cqueue::more(entry.flags()));
                    }
                    if let Ok(n) = nix::unistd::read(&stdout, &mut buf) {
                        got += n;
                    }
                }
            }
        }
    }
    let own = cpu(libc::RUSAGE_SELF) - start;
    drop(stdin);
    child.wait().expect("the echo child ends");
    let echo = cpu(libc::RUSAGE_CHILDREN);
    println!(
        "{way:<16} this side {:.2} us, the echo {:.2} us a round trip",
        own / N as f64 * 1e6,
        echo / N as f64 * 1e6
    );
}
