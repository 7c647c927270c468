//! Landlock: the kernel's allow-list of what a bot may touch. The ruleset is built in the
//! referee (opening paths allocates), and the bot, between fork and exec, adds its private /tmp
//! and /proc (they exist only once mounted there) and restricts itself.
//!
//! Everything not granted is out of reach, the logs above all; network ports are closed (unless
//! allowed); and, on ABI 6 and later, the bot can signal nothing and reach no abstract socket
//! outside its own domain. A Landlock domain also cannot ptrace a process outside it, which
//! closes `/proc/PID/mem`, `/proc/PID/fd` and ptrace itself, even for root.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::grants::{Grants, READ_DEVICES, WRITE_DEVICES};

/// The newest ABI asked for; older kernels get what they have (best effort), and the report
/// says which.
const ABI_WANTED: ABI = ABI::V6;

/// A ruleset ready for a bot to restrict itself with.
pub(super) struct Prepared {
    ruleset: Option<RulesetCreated>,
}

fn read() -> BitFlags<AccessFs> {
    AccessFs::from_read(ABI_WANTED)
}

/// Builds the ruleset for a bot's grants; `network` leaves TCP open.
pub(super) fn prepare(grants: &Grants, network: bool) -> io::Result<Prepared> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(ABI_WANTED))
        .map_err(io::Error::other)?
        .scope(Scope::from_all(ABI_WANTED))
        .map_err(io::Error::other)?;
    if !network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(ABI_WANTED))
            .map_err(io::Error::other)?;
    }
    let mut created = ruleset.create().map_err(io::Error::other)?;
    // Listing, not reading, the working directory: programs open "." to come back to it after
    // a chdir (the JVM does, at its start), and fail without it.
    let cwd = std::env::current_dir().unwrap_or_default();
    let rules = grants
        .read
        .iter()
        .map(|p| (p.as_path(), read()))
        .chain(std::iter::once((cwd.as_path(), AccessFs::ReadDir.into())))
        .chain(READ_DEVICES.iter().map(|d| (Path::new(*d), read())))
        .chain(
            WRITE_DEVICES
                .iter()
                .map(|d| (Path::new(*d), read() | AccessFs::from_write(ABI_WANTED))),
        );
    for (path, access) in rules {
        // A path that vanished since it was listed is simply not granted.
        let Ok(fd) = PathFd::new(path) else { continue };
        let access = match path.is_dir() {
            true => access,
            false => access & AccessFs::from_file(ABI_WANTED),
        };
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(io::Error::other)?;
    }
    Ok(Prepared {
        ruleset: Some(created),
    })
}

impl Prepared {
    /// In the bot, between fork and exec: grants the private folders (`/tmp` read-write,
    /// `/proc` read-only) if they were mounted, and restricts the process for good. Returns the
    /// outcome for the report: 0 not enforced, 1 partly, 2 fully, plus 16 times the ABI.
    pub(super) fn restrict(&mut self, tmp: bool, proc: bool) -> u32 {
        let Some(mut ruleset) = self.ruleset.take() else {
            return 0;
        };
        let all = AccessFs::from_all(ABI_WANTED);
        for (granted, path, access) in [(tmp, c"/tmp", all), (proc, c"/proc", read())] {
            if !granted {
                continue;
            }
            if let Some(fd) = open_path(path) {
                let fd: BorrowedFd = fd.as_fd();
                ruleset = match ruleset.add_rule(PathBeneath::new(fd, access)) {
                    Ok(r) => r,
                    Err(_) => return 0,
                };
            }
        }
        match ruleset.restrict_self() {
            Ok(status) => {
                let level = match status.ruleset {
                    RulesetStatus::FullyEnforced => 2,
                    RulesetStatus::PartiallyEnforced => 1,
                    RulesetStatus::NotEnforced => 0,
                };
                level + 16 * ABI::from(status.landlock) as u32
            }
            Err(_) => 0,
        }
    }
}

/// An `O_PATH` descriptor, opened with a raw call (no allocation between fork and exec).
fn open_path(path: &std::ffi::CStr) -> Option<OwnedFd> {
    // SAFETY: a NUL-terminated path; the descriptor returned is owned by the caller.
    let fd: RawFd = unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    // SAFETY: a descriptor just opened and owned by nothing else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}
