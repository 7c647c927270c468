//! Namespaces, entered between fork and exec without privileges: a user namespace (which
//! makes the others possible for an ordinary user), a PID namespace (the bot's processes see
//! only each other, and all die with its first process), a mount namespace (a private /tmp and
//! /proc), and a network namespace (no network). Every call here is a raw system call on
//! buffers prepared before the fork.

use std::ffi::CString;

use super::report::{Mounts, Namespaces};

/// What the child writes into its maps, prepared before the fork.
pub(super) struct IdMaps {
    uid_map: CString,
    gid_map: CString,
}

impl IdMaps {
    /// Maps the referee's own user and group to themselves inside the namespace.
    pub(super) fn current() -> IdMaps {
        // SAFETY: getuid and getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        IdMaps {
            uid_map: CString::new(format!("{uid} {uid} 1\n")).expect("digits have no NUL"),
            gid_map: CString::new(format!("{gid} {gid} 1\n")).expect("digits have no NUL"),
        }
    }
}

/// Enters the most namespaces the kernel allows of user, PID, mount and (unless `network`)
/// network; returns the [`Namespaces`] mask of those entered.
pub(super) fn enter(network: bool, maps: &IdMaps) -> u32 {
    let net = if network { 0 } else { libc::CLONE_NEWNET };
    let (user, pid, mount) = (libc::CLONE_NEWUSER, libc::CLONE_NEWPID, libc::CLONE_NEWNS);
    // Without a network namespace the rest still protects; without a mount namespace too. Root
    // needs no user namespace for the others, where user namespaces are refused (a container).
    let tries = [
        user | pid | mount | net,
        user | pid | mount,
        user | pid,
        pid | mount | net,
        pid | mount,
        pid,
    ];
    for flags in tries {
        // SAFETY: unshare only changes this (single-threaded, just forked) process.
        if unsafe { libc::unshare(flags) } == 0 {
            if flags & user != 0 {
                write_maps(maps);
            }
            return [
                (user, Namespaces::USER),
                (pid, Namespaces::PID),
                (mount, Namespaces::MOUNT),
                (libc::CLONE_NEWNET, Namespaces::NET),
            ]
            .iter()
            .filter(|(flag, _)| flags & flag != 0)
            .map(|(_, bit)| bit)
            .sum();
        }
    }
    0
}

/// Maps the user and group (without it, files the bot creates would have no owner).
fn write_maps(maps: &IdMaps) {
    write_file(c"/proc/self/setgroups", c"deny\n");
    write_file(c"/proc/self/uid_map", &maps.uid_map);
    write_file(c"/proc/self/gid_map", &maps.gid_map);
}

fn write_file(path: &std::ffi::CStr, text: &std::ffi::CStr) {
    // SAFETY: raw open/write/close with NUL-terminated buffers that outlive the calls.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd >= 0 {
            libc::write(fd, text.as_ptr().cast(), text.to_bytes().len());
            libc::close(fd);
        }
    }
}

/// In the namespace's first process: keeps mounts from leaking out, then mounts a private,
/// empty /tmp (if `tmp`) and a /proc that shows only this namespace. Returns the [`Mounts`]
/// mask of those made.
pub(super) fn mount_private(tmp: bool) -> u32 {
    let mut mask = 0;
    // SAFETY: mount calls with static NUL-terminated strings.
    unsafe {
        let none = std::ptr::null();
        if libc::mount(
            none,
            c"/".as_ptr(),
            none,
            libc::MS_REC | libc::MS_PRIVATE,
            none.cast(),
        ) != 0
        {
            return 0;
        }
        let quiet = libc::MS_NOSUID | libc::MS_NODEV;
        if tmp
            && libc::mount(
                c"tmpfs".as_ptr(),
                c"/tmp".as_ptr(),
                c"tmpfs".as_ptr(),
                quiet,
                c"mode=1777,size=256m".as_ptr().cast(),
            ) == 0
        {
            mask |= Mounts::TMP;
        }
        if libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            quiet | libc::MS_NOEXEC,
            none.cast(),
        ) == 0
        {
            mask |= Mounts::PROC;
        }
    }
    mask
}
