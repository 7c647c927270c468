//! Namespaces, entered between fork and exec without privileges: a user namespace (which
//! makes the others possible for an ordinary user), a PID namespace (the bot's processes see
//! only each other, and all die with its first process), a mount namespace (the bot's view of
//! the files: [`super::mounts`]), an IPC namespace (no System V shared memory, semaphores or
//! message queues shared with other bots or the host), and a network namespace (no network).
//! Every call here is a raw system call on buffers prepared before the fork.

use super::identity::IdMaps;
use super::report::Namespaces;

/// Enters the most namespaces the kernel allows of user (not for `root`, who needs none),
/// PID, mount, IPC and (unless `network`) network; returns the [`Namespaces`] mask of those
/// entered.
pub(super) fn enter(network: bool, root: bool, maps: &IdMaps) -> u32 {
    let net = if network { 0 } else { libc::CLONE_NEWNET };
    let (user, pid, mount) = (libc::CLONE_NEWUSER, libc::CLONE_NEWPID, libc::CLONE_NEWNS);
    let ipc = libc::CLONE_NEWIPC;
    // Without a network namespace the rest still protects; without a mount namespace too. Root
    // needs no user namespace for the others, where user namespaces are refused (a container).
    let tries = [
        user | pid | mount | ipc | net,
        user | pid | mount | ipc,
        user | pid | mount,
        user | pid,
        pid | mount | ipc | net,
        pid | mount | ipc,
        pid | mount,
        pid,
    ];
    for flags in tries.into_iter().filter(|f| !root || f & user == 0) {
        // SAFETY: unshare only changes this (single-threaded, just forked) process.
        if unsafe { libc::unshare(flags) } == 0 {
            if flags & user != 0 {
                write_maps(maps);
            }
            return [
                (user, Namespaces::USER),
                (pid, Namespaces::PID),
                (mount, Namespaces::MOUNT),
                (ipc, Namespaces::IPC),
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

/// Maps the users and groups (without it, files the bot creates would have no owner).
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
