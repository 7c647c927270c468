//! The two small processes between the referee and a bot in its namespaces. Both are forks of
//! the referee that never exec; they only wait.
//!
//! - The *keeper* is the referee's child (the process the referee waits for and signals). It
//!   dies with the referee (`PR_SET_PDEATHSIG`), even by SIGKILL, and ignores the polite
//!   signals meant for the bot.
//! - The *init* is the first process of the bot's PID namespace. It dies with the keeper, reaps
//!   orphans, and when the bot's own process ends it reports how, and whether anything was
//!   left running; then it exits, and the kernel kills every process left in the namespace,
//!   `setsid` or double fork notwithstanding. Once the bot is forked, the init replaces itself
//!   with a fresh copy of the referee's program started as `allfives-init`, with no argument
//!   and no environment: a bot that reads `/proc/1/cmdline` or `/proc/1/environ` learns
//!   nothing of the referee's command line (its seed, its logs, the other bots).

use std::os::fd::RawFd;
use std::os::unix::fs::OpenOptionsExt;

use super::hold;
use super::probes::Counters;
use super::report::{self, LEFTOVERS, STATUS};

/// Makes this process die by SIGKILL when the thread that forked it ends; false if that
/// parent is already gone (then this process must end at once).
pub(super) fn die_with_parent(parent: libc::pid_t) -> bool {
    // SAFETY: prctl with integer arguments; getppid cannot fail.
    unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        );
        parent == 0 || libc::getppid() == parent
    }
}

/// A pipe whose writing end only the keeper holds: the init, in a PID namespace of its own,
/// cannot ask for its parent's process id (`getppid` is 0 there), so it learns whether the
/// keeper died before it asked to die with it from the pipe's end hanging up.
#[derive(Clone, Copy)]
pub(super) struct Lifeline {
    read: RawFd,
    write: RawFd,
}

impl Lifeline {
    /// A new pipe, closed at exec on both ends.
    pub(super) fn new() -> std::io::Result<Lifeline> {
        let mut fds = [0; 2];
        // SAFETY: pipe2 writes two descriptors into the array it is given.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Lifeline {
            read: fds[0],
            write: fds[1],
        })
    }
}

/// The init's first act: dies with the keeper, and at once if the keeper is already gone (a
/// referee killed by SIGKILL right after the fork would otherwise leave the init, and the bot
/// it starts, running with no one to end them).
pub(super) fn die_with_keeper(lifeline: Lifeline) {
    die_with_parent(0);
    // SAFETY: raw calls on this process's own descriptors and a pollfd in its frame.
    unsafe {
        libc::close(lifeline.write);
        let mut hangup = libc::pollfd {
            fd: lifeline.read,
            events: 0,
            revents: 0,
        };
        let gone = libc::poll(&mut hangup, 1, 0) > 0 && hangup.revents & libc::POLLHUP != 0;
        libc::close(lifeline.read);
        if gone {
            libc::_exit(1);
        }
    }
}

/// The keeper's life once it has forked `init`: waits for it and exits as it did, holding the
/// init's lifeline until it dies.
pub(super) fn keep(init: libc::pid_t, lifeline: Lifeline) -> ! {
    close_all_but(&[lifeline.write]);
    // SAFETY: signal dispositions of this process, which never runs Rust code again but this.
    unsafe {
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT] {
            libc::signal(sig, libc::SIG_IGN);
        }
    }
    let status = wait_for(init);
    exit_as(status)
}

/// The name the init runs under, and its report descriptor once it has exec'd.
pub const INIT_NAME: &str = "allfives-init";
const INIT_REPORT_FD: RawFd = 3;
/// The exec'd init's seccomp listener and page of counters, when it counts ([`Watch`]).
const INIT_LISTENER_FD: RawFd = 4;
const INIT_TALLY_FD: RawFd = 5;
/// The exec'd init's end of the referee's control pipe ([`hold`]), when it has one.
const INIT_CONTROL_FD: RawFd = 6;
/// The bot's process id in its namespace: the init's first child.
const BOT_PID: libc::pid_t = 2;

/// What the init execs, prepared before the fork: the referee's own program (an `O_PATH`
/// descriptor) and its empty argument and environment lists.
pub(super) struct InitExec {
    exe: RawFd,
}

impl InitExec {
    /// Opens `program` (the `allfives` binary, whose `main` runs [`init_main`] when started as
    /// `allfives-init`); `None` if it cannot (the init then stays a fork).
    pub(super) fn open(program: &std::path::Path) -> Option<(InitExec, std::os::fd::OwnedFd)> {
        use std::os::fd::{AsRawFd, OwnedFd};
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH)
            .open(program)
            .ok()?;
        let owned = OwnedFd::from(file);
        Some((
            InitExec {
                exe: owned.as_raw_fd(),
            },
            owned,
        ))
    }
}

/// What the init watches besides its children: the seccomp listener of the bot's counted
/// calls, and the player's page of counters (a `memfd`; -1 when there is none).
#[derive(Clone, Copy)]
pub(super) struct Watch {
    pub listener: RawFd,
    pub tally: RawFd,
}

/// The init's life once it has forked the bot: execs a fresh `allfives-init` (see
/// [`init_main`]) if it can, else reaps until the bot ends (answering the counted calls),
/// reports, and exits.
pub(super) fn init(
    bot: libc::pid_t,
    report_fd: RawFd,
    exec: Option<&InitExec>,
    watch: Option<Watch>,
    control: RawFd,
) -> ! {
    if let Some(exec) = exec.filter(|_| bot == BOT_PID) {
        exec_init(report_fd, exec, watch, control);
    }
    let kept = watch.map_or([report_fd, report_fd, report_fd, control], |w| {
        [report_fd, w.listener, w.tally, control]
    });
    close_all_but(&kept);
    reap_and_report(bot, report_fd, watch, control)
}

/// Execs the init afresh, its report pipe as descriptor 3 (its watch as 4 and 5, its control
/// pipe as 6) and nothing else open; returns only if the exec failed.
fn exec_init(report_fd: RawFd, exec: &InitExec, watch: Option<Watch>, control: RawFd) {
    let argv: [*const libc::c_char; 2] = [c"allfives-init".as_ptr(), std::ptr::null()];
    let envp: [*const libc::c_char; 1] = [std::ptr::null()];
    let (listener, tally) = watch.map_or((-1, -1), |w| (w.listener, w.tally));
    let wanted = [
        (report_fd, INIT_REPORT_FD),
        (listener, INIT_LISTENER_FD),
        (tally, INIT_TALLY_FD),
        (control, INIT_CONTROL_FD),
    ];
    // SAFETY: descriptor moves on this process's own table (each first moved above the places,
    // where one may sit where another goes; dup2 leaves the new one open at exec); execveat
    // with NUL-terminated, null-ended lists that live in this frame.
    unsafe {
        // Where all lie above the places (and the standard descriptors, closed below), each
        // goes straight to its own: four calls fewer a start.
        let above = |fd: RawFd| fd > INIT_CONTROL_FD;
        let clear = above(exec.exe) && wanted.iter().all(|&(fd, _)| fd < 0 || above(fd));
        let exe = match clear {
            true => exec.exe,
            false => libc::fcntl(exec.exe, libc::F_DUPFD_CLOEXEC, 10),
        };
        if exe < 0 {
            return;
        }
        let mut moved = [-1; 4];
        for (i, &(fd, _)) in wanted.iter().enumerate() {
            if fd >= 0 {
                moved[i] = match clear {
                    true => fd,
                    false => libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10),
                };
            }
        }
        for (&fd, &(_, place)) in moved.iter().zip(&wanted) {
            // A place with nothing to hold is emptied: a descriptor the referee inherited there
            // must not pass for a listener or a page of counters.
            if fd < 0 {
                libc::close(place);
            } else if libc::dup2(fd, place) < 0 {
                return;
            }
        }
        if moved[0] < 0 {
            return;
        }
        libc::close_range(0, 2, 0);
        libc::close_range(
            INIT_CONTROL_FD as libc::c_uint + 1,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC as libc::c_int,
        );
        libc::syscall(
            libc::SYS_execveat,
            exe,
            c"".as_ptr(),
            argv.as_ptr(),
            envp.as_ptr(),
            libc::AT_EMPTY_PATH,
        );
    }
}

/// Whether this process is a contained bot's init, exec'd afresh (see [`init`]).
pub fn is_init() -> bool {
    let mut args = std::env::args_os();
    // SAFETY: getpid cannot fail.
    args.next().is_some_and(|a| a == INIT_NAME)
        && args.next().is_none()
        && unsafe { libc::getpid() } == 1
}

/// The exec'd init's entry before the Rust runtime's set-up, for a program to call from its
/// constructors (glibc passes them the arguments): if this process is a contained bot's init
/// ([`is_init`], from `argv` itself), runs [`init_main`] at once, and never returns. The init
/// is exec'd at every start of a bot; the runtime's set-up (the standard descriptors checked
/// and opened, the main thread's stack guard read from `/proc/self/maps`, the signal stack)
/// is some 30 system calls it does not need. `SIGPIPE` is ignored, as the runtime would.
///
/// # Safety
///
/// `argv` must hold `argc` valid NUL-terminated strings, as the C runtime passes them.
pub unsafe fn init_early(argc: libc::c_int, argv: *const *const libc::c_char) {
    if argc != 1 || argv.is_null() {
        return;
    }
    // SAFETY: the caller passes the process's own arguments, argv[0] among them.
    let first = unsafe { *argv };
    // SAFETY: a NUL-terminated string of the C runtime's, when not null.
    let name = (!first.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(first) });
    // SAFETY: getpid cannot fail.
    if name.is_some_and(|n| n.to_bytes() == INIT_NAME.as_bytes()) && unsafe { libc::getpid() } == 1
    {
        // SAFETY: signal only changes this process's disposition of SIGPIPE.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
        init_main();
    }
}

/// The exec'd init's whole life: reaps until the bot (its first child) ends, answering its
/// counted calls if it was given a listener (descriptor 4) and the referee's holds if it was
/// given a control pipe (descriptor 6), reports on descriptor 3, and exits as the bot did.
pub fn init_main() -> ! {
    die_with_parent(0);
    // SAFETY: fcntl asks whether a descriptor of this process is open.
    let open = |fd| unsafe { libc::fcntl(fd, libc::F_GETFD) } >= 0;
    let watch = open(INIT_LISTENER_FD).then_some(Watch {
        listener: INIT_LISTENER_FD,
        tally: INIT_TALLY_FD,
    });
    let control = if open(INIT_CONTROL_FD) {
        INIT_CONTROL_FD
    } else {
        -1
    };
    reap_and_report(BOT_PID, INIT_REPORT_FD, watch, control)
}

fn reap_and_report(bot: libc::pid_t, report_fd: RawFd, watch: Option<Watch>, control: RawFd) -> ! {
    let counters = watch.filter(|w| w.listener >= 0);
    let counters = counters.map(|w| Counters::map(w.listener, w.tally));
    let status = wait_answering(bot, counters.as_ref(), control, report_fd);
    report::put_all(
        report_fd,
        &[
            (LEFTOVERS, u32::from(others_alive())),
            (STATUS, status as u32),
        ],
    );
    exit_as(status)
}

/// Waits for `pid`, reaping every other child on the way (orphans come to the init).
fn wait_for(pid: libc::pid_t) -> libc::c_int {
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes the status it is given.
        let got = unsafe { libc::waitpid(-1, &mut status, 0) };
        if got == pid {
            return status;
        }
        if got < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 0;
        }
    }
}

/// Waits for `pid` as [`wait_for`] does, answering meanwhile the bot's counted calls (if
/// `counters`) and the referee's holds (on `control`, answered on `report_fd`): one `poll` on
/// the listener, the control pipe and SIGCHLD (a `signalfd`).
fn wait_answering(
    pid: libc::pid_t,
    counters: Option<&Counters>,
    mut control: RawFd,
    report_fd: RawFd,
) -> libc::c_int {
    // SAFETY: signal-mask and signalfd calls on this process, with a set in this frame.
    let children = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGCHLD);
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        libc::signalfd(-1, &set, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK)
    };
    let mut listener = counters.map_or(-1, Counters::listener);
    if children < 0 {
        // Without a way to wait for both, the listener goes: the counted calls then fail
        // with ENOSYS, uncounted; and the control pipe, which tells the referee it cannot hold.
        // SAFETY: closes descriptors this process owns (a negative one is refused).
        unsafe {
            libc::close(listener);
            libc::close(control);
        }
        return wait_for(pid);
    }
    loop {
        if let Some(status) = reap_all(pid) {
            return status;
        }
        let mut fds = [
            libc::pollfd {
                fd: children,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: listener,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: control,
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: poll on an array in this frame; a negative descriptor is skipped.
        if unsafe { libc::poll(fds.as_mut_ptr(), 3, -1) } < 0 {
            continue;
        }
        let broken = libc::POLLHUP | libc::POLLERR | libc::POLLNVAL;
        if fds[2].revents != 0 && !hold::answer(control, report_fd) {
            // The referee closed its end (or it broke): nothing more will be asked.
            // SAFETY: closes a descriptor this process owns, never used again.
            unsafe { libc::close(control) };
            control = -1;
        }
        let answered =
            fds[1].revents & libc::POLLIN != 0 && counters.is_some_and(Counters::answer_one);
        if !answered && fds[1].revents & (libc::POLLIN | broken) != 0 {
            // Of no more use: closed, the counted calls fail with ENOSYS, uncounted (a call
            // waiting on an open listener would wait for ever).
            // SAFETY: closes a descriptor this process owns, never used again.
            unsafe { libc::close(listener) };
            listener = -1;
        }
        if fds[0].revents != 0 {
            let mut info = [0u8; 128 * 4];
            // SAFETY: reads what the signalfd holds into a buffer of its length.
            while unsafe { libc::read(children, info.as_mut_ptr().cast(), info.len()) } > 0 {}
        }
    }
}

/// Reaps every child that has ended: `pid`'s status once it has.
fn reap_all(pid: libc::pid_t) -> Option<libc::c_int> {
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes the status it is given.
        match unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) } {
            got if got == pid => return Some(status),
            got if got > 0 => continue,
            0 => return None,
            _ if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) => continue,
            _ => return Some(0),
        }
    }
}

/// Whether a process is still running in the namespace (zombies are reaped first).
fn others_alive() -> bool {
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes the status it is given.
        match unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) } {
            0 => return true,
            got if got > 0 => continue,
            _ => return false,
        }
    }
}

/// Closes every descriptor but those in `keep` (the bot's pipes must close when the bot
/// ends); no allocation.
fn close_all_but<const N: usize>(keep: &[RawFd; N]) {
    let mut keep = *keep;
    keep.sort_unstable();
    let mut from: libc::c_uint = 0;
    // SAFETY: close_range on this process's own descriptors.
    unsafe {
        for fd in keep.into_iter().filter(|&fd| fd >= 0) {
            let fd = fd as libc::c_uint;
            if fd > from {
                libc::close_range(from, fd - 1, 0);
            }
            from = from.max(fd + 1);
        }
        libc::close_range(from, libc::c_uint::MAX, 0);
    }
}

/// Exits with the code of `status`, or 128 plus its signal (the referee reads the exact status
/// from the report pipe).
fn exit_as(status: libc::c_int) -> ! {
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    // SAFETY: _exit ends the process without running anything of the forked parent's.
    unsafe { libc::_exit(code) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Forks a keeper that forks an init; the keeper exits at once (`keeper_dies`) or waits to
    /// be told to go; the init, once its keeper is gone or not, runs [`die_with_keeper`] and
    /// says on a pipe whether it lived on. Only raw calls after each fork.
    fn init_lives_on(keeper_dies: bool) -> bool {
        let mut said = [0; 2];
        let mut hold = [0; 2];
        // SAFETY: pipe2 and fork with raw calls in the children; every descriptor is ours.
        unsafe {
            assert_eq!(libc::pipe2(said.as_mut_ptr(), libc::O_CLOEXEC), 0);
            assert_eq!(libc::pipe2(hold.as_mut_ptr(), libc::O_CLOEXEC), 0);
            let keeper = libc::fork();
            assert!(keeper >= 0, "fork");
            if keeper == 0 {
                let Ok(lifeline) = Lifeline::new() else {
                    libc::_exit(2)
                };
                let me = libc::getpid();
                if libc::fork() == 0 {
                    libc::close(hold[0]);
                    while keeper_dies && libc::getppid() == me {
                        libc::sched_yield();
                    }
                    die_with_keeper(lifeline);
                    libc::write(said[1], b"alive".as_ptr().cast(), 5);
                    libc::_exit(0);
                }
                if !keeper_dies {
                    let mut byte = 0u8;
                    libc::close(hold[1]);
                    libc::read(hold[0], (&mut byte as *mut u8).cast(), 1);
                }
                libc::_exit(0);
            }
            libc::close(said[1]);
            libc::close(hold[0]);
            let mut buf = [0u8; 8];
            let n = libc::read(said[0], buf.as_mut_ptr().cast(), buf.len());
            libc::close(hold[1]);
            libc::waitpid(keeper, std::ptr::null_mut(), 0);
            libc::close(said[0]);
            n == 5
        }
    }

    #[test]
    fn an_init_whose_keeper_died_before_it_could_ask_to_die_with_it_ends_at_once() {
        assert!(!init_lives_on(true));
    }

    #[test]
    fn an_init_whose_keeper_lives_goes_on() {
        assert!(init_lives_on(false));
    }
}
