//! Catching, not only blocking: the system calls an honest bot never makes (the key calls,
//! evicting or probing the page cache, file watches) are refused, and each refusal is counted
//! per bot, so that an organiser sees who tried.
//!
//! The seccomp filter ([`super::seccomp`]) hands each such call to the bot's init
//! (`SECCOMP_RET_USER_NOTIF`): the init, trusted referee code outside the bot's reach, answers
//! it (an errno, or a success that does nothing) and adds one to the call's count in a page it
//! shares with the referee (a `memfd` the referee made, mapped by both, one per player and so
//! shared by all its processes). The bot cannot reach the page (closed at its exec, and the
//! init is out of its ptrace's reach), so it can neither forge nor hide a count, and a count
//! is in the page before the call returns: a bot killed a moment later has shown it. Calls an
//! honest program makes often (file locks: a JVM, SQLite) stay in the filter's cheap `ERRNO`
//! path and are not counted.

use std::collections::BTreeMap;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};

/// `cachestat` (Linux 6.5), the same number on every architecture.
pub(super) const SYS_CACHESTAT: i64 = 451;

/// A counted call: its name in the results, and how the init answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Probe {
    /// Its name in results, standings and the report page.
    pub name: &'static str,
    /// The system call.
    pub nr: i64,
    /// The errno it fails with; 0: it succeeds without doing anything (an advice).
    pub errno: i32,
}

/// Every counted call, in the order of the shared page's counters. The filter decides which
/// calls of these numbers come here (an advice or flag argument, see [`super::seccomp`]).
pub(super) const PROBES: [Probe; 11] = [
    Probe {
        name: "keyctl",
        nr: libc::SYS_keyctl,
        errno: libc::ENOSYS,
    },
    Probe {
        name: "add_key",
        nr: libc::SYS_add_key,
        errno: libc::ENOSYS,
    },
    Probe {
        name: "request_key",
        nr: libc::SYS_request_key,
        errno: libc::ENOSYS,
    },
    // POSIX_FADV_DONTNEED: evicts a file's pages from the cache.
    Probe {
        name: "fadvise_dontneed",
        nr: libc::SYS_fadvise64,
        errno: 0,
    },
    // MADV_PAGEOUT: evicts the pages of a mapping of a file the bot owns.
    Probe {
        name: "madvise_pageout",
        nr: libc::SYS_madvise,
        errno: 0,
    },
    // RWF_NOWAIT: a read that fails rather than wait for the disk tells a cached page.
    Probe {
        name: "preadv2_nowait",
        nr: libc::SYS_preadv2,
        errno: libc::EOPNOTSUPP,
    },
    Probe {
        name: "pwritev2_nowait",
        nr: libc::SYS_pwritev2,
        errno: libc::EOPNOTSUPP,
    },
    Probe {
        name: "cachestat",
        nr: SYS_CACHESTAT,
        errno: libc::ENOSYS,
    },
    Probe {
        name: "mincore",
        nr: libc::SYS_mincore,
        errno: libc::ENOSYS,
    },
    Probe {
        name: "inotify",
        nr: libc::SYS_inotify_init1,
        errno: libc::ENOSYS,
    },
    Probe {
        name: "fanotify",
        nr: libc::SYS_fanotify_init,
        errno: libc::EPERM,
    },
];

/// The counter of a call, by its number (the older `inotify_init` counts as `inotify`).
fn counter_of(nr: i64) -> Option<usize> {
    let nr = match super::seccomp::INOTIFY_INIT {
        Some(old) if old == nr => libc::SYS_inotify_init1,
        _ => nr,
    };
    PROBES.iter().position(|p| p.nr == nr)
}

/// What a bot tried and was refused: each counted call's name and how many times (calls never
/// tried are left out, so an honest bot's is empty).
pub type Probed = BTreeMap<String, u64>;

/// Adds `more` into `sum`.
pub fn add(sum: &mut Probed, more: &Probed) {
    for (name, n) in more {
        *sum.entry(name.clone()).or_default() += n;
    }
}

/// What was tried after `before` (counts only grow).
pub fn since(now: &Probed, before: &Probed) -> Probed {
    now.iter()
        .map(|(name, &n)| (name.clone(), n - before.get(name).copied().unwrap_or(0)))
        .filter(|&(_, n)| n > 0)
        .collect()
}

/// In words, most tried first: "keyctl 38, fadvise_dontneed 1,204" (empty when nothing was).
pub fn describe(probed: &Probed) -> String {
    let mut calls: Vec<(&String, &u64)> = probed.iter().filter(|(_, n)| **n > 0).collect();
    calls.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    calls
        .iter()
        .map(|(name, n)| format!("{name} {}", grouped(**n)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `n` with its thousands apart: 1,204.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The counters a player's inits write and the referee reads: one page of shared memory.
pub struct Tally {
    fd: OwnedFd,
    counters: *const AtomicU64,
}

// SAFETY: the mapping lives as long as the Tally and is only touched through atomics.
unsafe impl Send for Tally {}
// SAFETY: as above.
unsafe impl Sync for Tally {}

const PAGE: usize = 4096;

impl Tally {
    /// A new page of counters, all zero (in the referee: it allocates).
    pub fn new() -> io::Result<Tally> {
        // SAFETY: memfd_create with a NUL-terminated name; the descriptor is owned at once.
        let fd = unsafe { libc::memfd_create(c"allfives-probes".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: just created, owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: ftruncate on a descriptor owned here.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), PAGE as libc::off_t) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let counters = map(fd.as_raw_fd()).ok_or_else(io::Error::last_os_error)?;
        Ok(Tally { fd, counters })
    }

    /// The descriptor an init maps (see [`Counters::map`]).
    pub(super) fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Every count so far.
    pub fn counts(&self) -> Probed {
        PROBES
            .iter()
            .enumerate()
            // SAFETY: the page holds a counter for every probe (PROBES.len() * 8 < PAGE).
            .map(|(i, p)| {
                (
                    p.name,
                    unsafe { &*self.counters.add(i) }.load(Ordering::Relaxed),
                )
            })
            .filter(|&(_, n)| n > 0)
            .map(|(name, n)| (name.to_string(), n))
            .collect()
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        // SAFETY: unmaps the page mapped in `new`, never touched again.
        unsafe { libc::munmap(self.counters as *mut libc::c_void, PAGE) };
    }
}

/// Maps the page of counters behind `fd` (raw calls only: also run in the init).
fn map(fd: RawFd) -> Option<*const AtomicU64> {
    // SAFETY: a shared mapping of one page of a memfd; checked below.
    let at = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            PAGE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    (at != libc::MAP_FAILED).then_some(at as *const AtomicU64)
}

/// The init's end: answers the filter's notifications and counts them.
pub(super) struct Counters {
    listener: RawFd,
    counters: Option<*const AtomicU64>,
}

impl Counters {
    /// The init's listener and its map of the player's page (`tally`, a descriptor; the
    /// counts are lost, the calls still refused, if it cannot be mapped).
    pub(super) fn map(listener: RawFd, tally: RawFd) -> Counters {
        Counters {
            listener,
            counters: map(tally),
        }
    }

    /// The listener to poll.
    pub(super) fn listener(&self) -> RawFd {
        self.listener
    }

    /// Takes one notification, counts it and answers it. False once the listener is of no more
    /// use (an error other than a call that went away).
    pub(super) fn answer_one(&self) -> bool {
        // SAFETY: zeroed plain-data structs (the kernel wants the request zeroed), filled and
        // read by two ioctls on the listener this process owns.
        unsafe {
            let mut request: libc::seccomp_notif = std::mem::zeroed();
            if libc::ioctl(self.listener, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut request) != 0 {
                return io::Error::last_os_error().raw_os_error() == Some(libc::ENOENT)
                    || io::Error::last_os_error().raw_os_error() == Some(libc::EINTR);
            }
            let probe = counter_of(i64::from(request.data.nr));
            if let (Some(i), Some(counters)) = (probe, self.counters) {
                (*counters.add(i)).fetch_add(1, Ordering::Relaxed);
            }
            let mut response: libc::seccomp_notif_resp = std::mem::zeroed();
            response.id = request.id;
            response.error = -probe.map_or(libc::ENOSYS, |i| PROBES[i].errno);
            // A call that went away meanwhile (its process killed) needs no answer.
            libc::ioctl(self.listener, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut response);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_words_most_tried_first() {
        let probed: Probed = [
            ("keyctl".to_string(), 38),
            ("fadvise_dontneed".into(), 1204),
        ]
        .into_iter()
        .collect();
        assert_eq!(describe(&probed), "fadvise_dontneed 1,204, keyctl 38");
        assert_eq!(describe(&Probed::new()), "");
        assert_eq!(grouped(1_000_000), "1,000,000");
        let mut sum = probed.clone();
        add(&mut sum, &probed);
        assert_eq!(sum["keyctl"], 76);
        assert_eq!(since(&sum, &probed), probed);
    }

    #[test]
    fn every_probe_has_a_counter_of_its_own() {
        for (i, p) in PROBES.iter().enumerate() {
            assert_eq!(counter_of(p.nr), Some(i), "{}", p.name);
        }
        assert!(PROBES.len() * 8 <= PAGE);
        assert_eq!(counter_of(libc::SYS_read), None);
    }

    #[test]
    fn a_tally_starts_empty() {
        let tally = Tally::new().expect("a memfd");
        assert!(tally.counts().is_empty());
        let counters = Counters::map(-1, tally.fd());
        // SAFETY: the first counter of a page mapped just above.
        unsafe { (*counters.counters.expect("mapped")).fetch_add(3, Ordering::Relaxed) };
        assert_eq!(tally.counts()["keyctl"], 3);
    }
}
