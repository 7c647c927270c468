//! Who a bot runs as. An ordinary user's bots run as that user. Root's bots must not have
//! root's reach: they run as an unprivileged user of their own (a fresh user id, in no group,
//! so each bot's process limit counts its own processes only) where their files allow it
//! (every folder they need is readable by other users; folders on the way that others cannot
//! enter, such as `/root`, are replaced in the bot's mount namespace by empty ones holding only
//! what it needs), and otherwise as root without a single capability. Root needs no user
//! namespace for the others, and takes none: its bots' users are real ones of the host.

use std::ffi::CString;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::grants::Grants;
use super::report::Mounts;

/// The first of the user ids given to root's bots: far above any real user's, below 2^31.
const FIRST_ID: u32 = 0x4000_0000;

/// Who the bot runs as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Identity {
    /// The referee's own user (an ordinary user).
    Same,
    /// An unprivileged user id of its own (user and group): the referee runs as root, and the
    /// bot's files are readable by others.
    Unprivileged(u32),
    /// Root without capabilities: the referee runs as root and the bot needs files only root
    /// may read.
    RootWithoutCapabilities,
}

/// The identity for a bot with `grants`, and a note when it must keep root's user. The folders
/// on the way to what it needs are its root's own (open to it), whatever the host's modes.
pub(super) fn choose(grants: &Grants) -> (Identity, Option<String>) {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return (Identity::Same, None);
    }
    let closed = grants
        .read
        .iter()
        .find(|p| !open_to_others(p, 0o005, 0o004));
    let unwritable = grants
        .write
        .iter()
        .find(|p| !open_to_others(p, 0o007, 0o006));
    if let Some(path) = closed.or(unwritable) {
        let note = format!(
            "runs as root without capabilities, not as a user of its own: {} is not open to \
             other users (chmod o+rX, or o+w for --bot-write, lets it run as its own user)",
            path.display()
        );
        return (Identity::RootWithoutCapabilities, Some(note));
    }
    (Identity::Unprivileged(fresh_id()), None)
}

/// Who the bot runs as once its root is built (`mounts`, the report's mask of it): an own user
/// reaches what it needs through the root's binds, whose folders on the way are open to it
/// whatever the host's modes (`/root`, where a version manager lives). If a bind was refused
/// (it happens under load, when many bots start at once), it would meet `Permission denied` at
/// its first step (pyenv's shim: exit 126). It then keeps root's user, without a single
/// capability, which enters them: a start never fails by chance.
pub(super) fn reachable(identity: Identity, mounts: u32) -> Identity {
    match identity {
        Identity::Unprivileged(_) if mounts & Mounts::BINDS == 0 => {
            Identity::RootWithoutCapabilities
        }
        other => other,
    }
}

/// A user id no other bot is likely to have: a random one of 2^30.
pub(super) fn fresh_id() -> u32 {
    let mut bytes = [0u8; 4];
    // SAFETY: getrandom fills the buffer it is given.
    unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    FIRST_ID + (u32::from_le_bytes(bytes) & (FIRST_ID - 1))
}

/// Whether others may use `path`: `dir_bits` of a folder's mode, `file_bits` of a file's.
fn open_to_others(path: &Path, dir_bits: u32, file_bits: u32) -> bool {
    std::fs::metadata(path).is_ok_and(|m| {
        let bits = if m.is_dir() { dir_bits } else { file_bits };
        m.permissions().mode() & bits == bits
    })
}

/// The user namespace's maps, prepared before the fork: an ordinary user is mapped to itself
/// (root takes no user namespace).
pub(super) struct IdMaps {
    pub(super) uid_map: CString,
    pub(super) gid_map: CString,
}

impl IdMaps {
    /// The referee's user and group, mapped to themselves.
    pub(super) fn current() -> IdMaps {
        // SAFETY: getuid and getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        IdMaps {
            uid_map: CString::new(format!("{uid} {uid} 1\n")).expect("digits have no NUL"),
            gid_map: CString::new(format!("{gid} {gid} 1\n")).expect("digits have no NUL"),
        }
    }
}

/// In the keeper, before it leaves root's namespaces: root's supplementary groups go (a bot
/// must not read a file through group `root`). Raw calls only.
pub(super) fn before_namespaces(identity: Identity) {
    if identity != Identity::Same {
        // SAFETY: setgroups with an empty list.
        unsafe { libc::setgroups(0, std::ptr::null()) };
    }
}

/// In the bot, between fork and exec: becomes its own user, or drops every capability for good.
/// Returns false if that failed (then the bot must not run). Raw calls only.
pub(super) fn become_bot(identity: Identity) -> bool {
    // SAFETY: credential calls on this (single-threaded, just forked) process.
    unsafe {
        match identity {
            Identity::Same => true,
            Identity::Unprivileged(id) => {
                libc::setresgid(id, id, id) == 0 && libc::setresuid(id, id, id) == 0
            }
            Identity::RootWithoutCapabilities => drop_capabilities(),
        }
    }
}

/// Root keeps its user but loses every capability, and cannot get them back by exec.
unsafe fn drop_capabilities() -> bool {
    let bits = libc::SECBIT_NOROOT
        | libc::SECBIT_NOROOT_LOCKED
        | libc::SECBIT_NO_SETUID_FIXUP
        | libc::SECBIT_NO_SETUID_FIXUP_LOCKED
        | libc::SECBIT_KEEP_CAPS_LOCKED
        | libc::SECBIT_NO_CAP_AMBIENT_RAISE
        | libc::SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    // SAFETY: prctl and capset with integer arguments and stack buffers.
    unsafe {
        if libc::prctl(libc::PR_SET_SECUREBITS, bits as libc::c_ulong, 0, 0, 0) != 0 {
            return false;
        }
        for cap in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        );
        // _LINUX_CAPABILITY_VERSION_3: two 32-bit words of each set, all zero.
        let header: [u32; 2] = [0x2008_0522, 0];
        let data = [0u32; 6];
        libc::syscall(libc::SYS_capset, header.as_ptr(), data.as_ptr()) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_own_user_without_its_binds_keeps_roots_user_powerless() {
        let own = Identity::Unprivileged(FIRST_ID);
        assert_eq!(reachable(own, 0), Identity::RootWithoutCapabilities);
        assert_eq!(
            reachable(own, Mounts::READ_ONLY | Mounts::TMP),
            Identity::RootWithoutCapabilities
        );
        assert_eq!(reachable(own, Mounts::BINDS), own);
        assert_eq!(reachable(Identity::Same, 0), Identity::Same);
    }
}
