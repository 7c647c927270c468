//! The two small processes between the referee and a bot in its namespaces. Both are forks of
//! the referee that never exec; they only wait.
//!
//! - The *keeper* is the referee's child (the process the referee waits for and signals). It
//!   dies with the referee (`PR_SET_PDEATHSIG`), even by SIGKILL, and ignores the polite
//!   signals meant for the bot.
//! - The *init* is the first process of the bot's PID namespace. It dies with the keeper, reaps
//!   orphans, and when the bot's own process ends it reports how, and whether anything was
//!   left running; then it exits, and the kernel kills every process left in the namespace,
//!   `setsid` or double fork notwithstanding.

use std::os::fd::RawFd;

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

/// The keeper's life once it has forked `init`: waits for it and exits as it did.
pub(super) fn keep(init: libc::pid_t) -> ! {
    close_all_but(-1);
    // SAFETY: signal dispositions of this process, which never runs Rust code again but this.
    unsafe {
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT] {
            libc::signal(sig, libc::SIG_IGN);
        }
    }
    let status = wait_for(init);
    exit_as(status)
}

/// The init's life once it has forked the bot: reaps until the bot ends, reports, and exits.
pub(super) fn init(bot: libc::pid_t, report_fd: RawFd) -> ! {
    close_all_but(report_fd);
    let status = wait_for(bot);
    report::put(report_fd, LEFTOVERS, u32::from(others_alive()));
    report::put(report_fd, STATUS, status as u32);
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

/// Closes every descriptor but `keep` (the bot's pipes must close when the bot ends).
fn close_all_but(keep: RawFd) {
    // SAFETY: close_range on this process's own descriptors.
    unsafe {
        if keep < 0 {
            libc::close_range(0, libc::c_uint::MAX, 0);
            return;
        }
        if keep > 0 {
            libc::close_range(0, keep as libc::c_uint - 1, 0);
        }
        libc::close_range(keep as libc::c_uint + 1, libc::c_uint::MAX, 0);
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
