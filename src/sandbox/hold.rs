//! Holding an idle bot: the init stops every process of its namespace while the bot waits for
//! its seat arrangement's next game, and continues them before the referee next writes to it.
//! A stopped task runs nothing and waits on no futex (a stop signal takes it off the futex's
//! queue until it is continued), so the bot's processes of other arrangements, alive at the
//! same time, cannot pass it anything (docs/fair-play.md).
//!
//! The referee asks on a control pipe (a byte: [`HOLD`] or [`GO`]) and the init answers on the
//! report pipe. Only raw calls on stack buffers: the init may be a fork of the referee that
//! never exec'd.

use std::os::fd::RawFd;

use super::report::{self, GOING, HELD};

/// The byte that asks the init to stop every process of its namespace.
pub(super) const HOLD: u8 = b'h';
/// The byte that asks it to continue them.
pub(super) const GO: u8 = b'g';

/// The most tasks (threads of every process) a held bot may have; one with more is killed.
const MOST_TASKS: usize = 1024;
/// How long the init tries to see every task stopped before it gives up and kills them all.
const HOLD_LIMIT_NS: i64 = 1_000_000_000;

/// Answers what the referee wrote on `control`: false once the pipe is of no more use.
pub(super) fn answer(control: RawFd, report_fd: RawFd) -> bool {
    let mut asked = [0u8; 16];
    // SAFETY: a read into a stack buffer of its length, on a descriptor this process owns.
    let n = unsafe { libc::read(control, asked.as_mut_ptr().cast(), asked.len()) };
    if n <= 0 {
        return n < 0 && last_errno() == libc::EINTR;
    }
    for &byte in &asked[..n as usize] {
        match byte {
            HOLD => report::put(report_fd, HELD, u32::from(hold())),
            GO => {
                // SAFETY: signals every process of this namespace but this one.
                unsafe { libc::kill(-1, libc::SIGCONT) };
                report::put(report_fd, GOING, 1);
            }
            _ => {}
        }
    }
    true
}

/// Stops every process of the namespace, and waits until every task of each is seen stopped
/// twice in a row, having run not once in between (its count of context switches unchanged):
/// a task continued by another before the first look, or that stopped itself after, is caught.
/// False if that could not be seen in time: every process is then killed.
fn hold() -> bool {
    let mut first = [(0i32, 0u64); MOST_TASKS];
    let mut second = [(0i32, 0u64); MOST_TASKS];
    let start = now_ns();
    let mut pause_ns = 20_000;
    // A /proc of another namespace (none of its own was mounted) would show the host's tasks.
    if own_proc() {
        loop {
            // SAFETY: signals every process of this namespace but this one; again at each try,
            // as a process continued by another before it stopped has lost the first.
            unsafe { libc::kill(-1, libc::SIGSTOP) };
            if let Some(n) = stopped_tasks(&mut first)
                && stopped_tasks(&mut second) == Some(n)
                && first[..n] == second[..n]
            {
                return true;
            }
            if now_ns() - start > HOLD_LIMIT_NS {
                break;
            }
            sleep_ns(pause_ns);
            pause_ns = (pause_ns * 2).min(5_000_000);
        }
    }
    // SAFETY: as above; a killed process runs nothing more.
    unsafe { libc::kill(-1, libc::SIGKILL) };
    false
}

/// Whether `/proc` is this namespace's (where the init is process 1).
fn own_proc() -> bool {
    let mut buf = [0u8; 16];
    // SAFETY: readlink into a stack buffer of its length.
    let n = unsafe { libc::readlink(c"/proc/self".as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    n == 1 && buf[0] == b'1'
}

/// Lists every task of the namespace but the init's, in /proc's order, with its count of
/// context switches; `None` if one is not stopped (or dead), or there are too many.
fn stopped_tasks(tasks: &mut [(i32, u64); MOST_TASKS]) -> Option<usize> {
    let mut n = 0;
    let mut all = true;
    each_entry(c"/proc", &mut |pid, _| {
        if pid <= 1 || !all {
            return;
        }
        let mut path = [0u8; 64];
        let len = join(
            &mut path,
            &[b"/proc/", &digits(pid).0[..digits(pid).1], b"/task"],
        );
        // SAFETY: the path was NUL-terminated by join.
        let dir = unsafe { std::ffi::CStr::from_bytes_with_nul_unchecked(&path[..=len]) };
        each_entry(dir, &mut |tid, dirfd| {
            if !all {
                return;
            }
            match task_state(dirfd, tid) {
                Some(switches) if n < MOST_TASKS => {
                    tasks[n] = (tid, switches);
                    n += 1;
                }
                _ => all = false,
            }
        });
    });
    all.then_some(n)
}

/// A task's context switches, if it is stopped (or dead), from its `status` in `dir`.
fn task_state(dir: RawFd, tid: i32) -> Option<u64> {
    let (name, len) = digits(tid);
    let mut path = [0u8; 32];
    join(&mut path, &[&name[..len], b"/status"]);
    let mut buf = [0u8; 4096];
    // SAFETY: openat with a NUL-terminated path, a read into a stack buffer, a close.
    let got = unsafe {
        let fd = libc::openat(dir, path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            // Gone meanwhile: it runs no more.
            return (last_errno() == libc::ENOENT).then_some(0);
        }
        let got = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        got
    };
    let text = &buf[..usize::try_from(got).ok()?];
    let state = field(text, b"State:")?.first().copied()?;
    if !matches!(state, b'T' | b't' | b'Z' | b'X' | b'x') {
        return None;
    }
    let voluntary = number(field(text, b"voluntary_ctxt_switches:")?);
    let forced = number(field(text, b"nonvoluntary_ctxt_switches:")?);
    Some(voluntary + forced)
}

/// What follows `name` at the start of a line of `text`, leading blanks skipped (to the end of
/// the text: the caller reads only its start).
fn field<'a>(text: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let mut rest = text;
    loop {
        if let Some(value) = rest.strip_prefix(name) {
            let start = value.iter().position(|&b| b != b'\t' && b != b' ')?;
            return Some(&value[start..]);
        }
        let next = rest.iter().position(|&b| b == b'\n')?;
        rest = &rest[next + 1..];
    }
}

/// The decimal number at the start of `text`.
fn number(text: &[u8]) -> u64 {
    text.iter()
        .take_while(|b| b.is_ascii_digit())
        .fold(0u64, |n, &b| {
            n.wrapping_mul(10).wrapping_add(u64::from(b - b'0'))
        })
}

/// Calls `each` with every numeric entry of the folder `dir` and the folder's descriptor.
fn each_entry(dir: &std::ffi::CStr, each: &mut dyn FnMut(i32, RawFd)) {
    // SAFETY: open, getdents64 into a stack buffer (records read within what it returned) and
    // close, on a descriptor owned here.
    unsafe {
        let fd = libc::open(
            dir.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return;
        }
        let mut buf = [0u8; 8192];
        loop {
            let got = libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len());
            if got <= 0 {
                break;
            }
            let mut at = 0usize;
            while at < got as usize {
                // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
                let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
                let name = &buf[at + 19..at + reclen];
                let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
                if !name.is_empty() && name.iter().all(u8::is_ascii_digit) {
                    each(number(name) as i32, fd);
                }
                at += reclen;
            }
        }
        libc::close(fd);
    }
}

/// `n` in decimal, and its length.
fn digits(n: i32) -> ([u8; 12], usize) {
    let mut out = [0u8; 12];
    let mut tmp = [0u8; 12];
    let (mut n, mut len) = (n.unsigned_abs(), 0);
    loop {
        tmp[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for i in 0..len {
        out[i] = tmp[len - 1 - i];
    }
    (out, len)
}

/// Writes `parts` one after another into `out`, NUL-terminated; returns the length before the
/// NUL (parts that do not fit are cut).
fn join(out: &mut [u8], parts: &[&[u8]]) -> usize {
    let mut len = 0;
    for part in parts {
        let take = part.len().min(out.len() - 1 - len);
        out[len..len + take].copy_from_slice(&part[..take]);
        len += take;
    }
    out[len] = 0;
    len
}

fn now_ns() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

fn sleep_ns(ns: i64) {
    let ts = libc::timespec {
        tv_sec: ns / 1_000_000_000,
        tv_nsec: ns % 1_000_000_000,
    };
    // SAFETY: nanosleep reads the timespec it is given.
    unsafe { libc::nanosleep(&ts, std::ptr::null_mut()) };
}

fn last_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_status_line_and_a_number() {
        let text = b"Name:\tbot\nState:\tT (stopped)\nvoluntary_ctxt_switches:\t12\n";
        assert!(field(text, b"State:").is_some_and(|v| v.starts_with(b"T (stopped)\n")));
        assert_eq!(
            number(field(text, b"voluntary_ctxt_switches:").unwrap()),
            12
        );
        assert_eq!(field(text, b"Nothing:"), None);
        assert_eq!(digits(4096).0[..4], *b"4096");
        let mut path = [0u8; 16];
        assert_eq!(join(&mut path, &[b"/proc/", b"42"]), 8);
        assert_eq!(&path[..9], b"/proc/42\0");
    }
}
