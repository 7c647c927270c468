//! Landlock: the kernel's allow-list of what a bot may touch, a second wall behind its root
//! ([`super::mounts`]) that grants the same: reading the system's folders ([`super::view`]),
//! what the bot needs and its installs, a few devices; writing only the private folders,
//! `/dev/null` and what `--bot-write` grants. What is hidden inside what it reads (this run's
//! logs in its folder) is carved out: Landlock cannot take a folder out of a granted one, so
//! on the way to each hidden folder every neighbour is granted on its own, and the hidden one
//! is not. The rules are worked out once per bot ([`Rules`]); each start makes its ruleset
//! from them in the referee, and the bot, between fork and exec, adds its private /tmp,
//! /dev/shm, /proc and its root's folders (they exist only once mounted) and restricts itself.
//! Network ports are closed (unless allowed); on ABI 6 and later the bot can signal nothing
//! and reach no abstract socket outside its own domain. A Landlock domain also cannot ptrace a
//! process outside it, which closes `/proc/PID/mem`, `/proc/PID/fd` and ptrace itself, even
//! for root.

use std::collections::BTreeSet;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::grants::Grants;

/// Devices a program may read.
const READ_DEVICES: [&str; 4] = ["/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"];
/// Devices a program may write.
const WRITE_DEVICES: [&str; 1] = ["/dev/null"];

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

/// What one bot is granted, worked out once: each path and its access.
pub(super) struct Rules {
    rules: Vec<(PathBuf, BitFlags<AccessFs>)>,
    network: bool,
}

impl Rules {
    /// The rules for a bot's grants; `network` leaves TCP open.
    pub(super) fn new(grants: &Grants, network: bool) -> Rules {
        let walls = Walls {
            hidden: &grants.hidden,
            carved: grants,
        };
        let mut readable = Vec::new();
        let needs = super::view::system_folders()
            .filter(|p| *p != Path::new("/dev"))
            .map(Path::to_path_buf)
            .chain(grants.read.iter().cloned())
            .chain(grants.installs.iter().cloned())
            // The private /tmp is granted as the bot's root shows it.
            .filter(|p| p != Path::new("/tmp"));
        for need in needs {
            match walls.inside(&need) {
                true => carve(&need, &walls, &mut readable),
                false => readable.push(need),
            }
        }
        let write = read() | AccessFs::from_write(ABI_WANTED);
        let rules = readable
            .into_iter()
            .map(|p| (p, read()))
            .chain(READ_DEVICES.iter().map(|d| (PathBuf::from(d), read())))
            .chain(WRITE_DEVICES.iter().map(|d| (PathBuf::from(d), write)))
            .chain(grants.write.iter().map(|p| (p.clone(), write)))
            .map(|(p, access)| match p.is_dir() {
                true => (p, access),
                false => (p, access & AccessFs::from_file(ABI_WANTED)),
            })
            .collect();
        Rules { rules, network }
    }

    /// A start's ruleset, made from the rules (the paths opened again: a start holds no
    /// descriptor of another's).
    pub(super) fn ruleset(&self) -> io::Result<Prepared> {
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(ABI_WANTED))
            .map_err(io::Error::other)?
            .scope(Scope::from_all(ABI_WANTED))
            .map_err(io::Error::other)?;
        if !self.network {
            ruleset = ruleset
                .handle_access(AccessNet::from_all(ABI_WANTED))
                .map_err(io::Error::other)?;
        }
        let mut created = ruleset.create().map_err(io::Error::other)?;
        for (path, access) in &self.rules {
            // A path that vanished since it was listed is simply not granted.
            let Ok(fd) = PathFd::new(path) else { continue };
            created = created
                .add_rule(PathBeneath::new(fd, *access))
                .map_err(io::Error::other)?;
        }
        Ok(Prepared {
            ruleset: Some(created),
        })
    }
}
/// What carving keeps out: the hidden paths, and the carved folders (of which only the entries
/// shown are granted, so that a file written there later stays out of reach).
struct Walls<'a> {
    hidden: &'a BTreeSet<PathBuf>,
    carved: &'a Grants,
}

impl Walls<'_> {
    /// Whether a wall lies at or below `path`. A set's paths below `path` follow it in order:
    /// one look each, however many earlier runs are hidden.
    fn inside(&self, path: &Path) -> bool {
        let below = |set: &BTreeSet<PathBuf>| {
            set.range::<Path, _>((std::ops::Bound::Included(path), std::ops::Bound::Unbounded))
                .next()
                .is_some_and(|w| w.starts_with(path))
        };
        below(self.hidden) || below(&self.carved.carved)
    }

    fn hides(&self, path: &Path) -> bool {
        path.ancestors().any(|a| self.hidden.contains(a))
    }

    /// The entries of `dir` to consider: a carved folder's shown ones, else all there are.
    fn entries(&self, dir: &Path) -> Vec<(PathBuf, std::fs::FileType)> {
        if !self.carved.carved.contains(dir) {
            // The listing's own file types (no `stat` an entry: a bot's start lists folders
            // of thousands).
            return std::fs::read_dir(dir)
                .map(|e| {
                    e.flatten()
                        .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
                        .collect()
                })
                .unwrap_or_default();
        }
        // The carved folders in it are entries too: their own shown entries are in them.
        self.carved
            .shown
            .iter()
            .chain(&self.carved.carved)
            .filter(|p| p.parent() == Some(dir))
            .filter_map(|p| Some((p.clone(), std::fs::symlink_metadata(p).ok()?.file_type())))
            .collect()
    }
}

/// Collects into `out` what can be granted whole under `dir`: every entry that neither is nor
/// holds a wall (nor links into a hidden folder); the entries that hold one are carved in turn.
fn carve(dir: &Path, walls: &Walls, out: &mut Vec<PathBuf>) {
    for (path, kind) in walls.entries(dir) {
        if kind.is_symlink() {
            // A link is granted as what it points to, which is carved where it really lies.
            let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if !walls.hides(&real) && !walls.inside(&real) {
                out.push(path);
            }
            continue;
        }
        if walls.hides(&path) {
            continue;
        }
        match walls.inside(&path) {
            true if kind.is_dir() => carve(&path, walls, out),
            _ => out.push(path),
        }
    }
}

impl Prepared {
    /// In the bot, between fork and exec: grants the private folders (`/tmp` and `/dev/shm`
    /// read-write, `/proc` read-only) if they were mounted, listing its root's folders (made
    /// for it: the way to what it reads), and restricts the process for good.
    /// Returns the outcome for the report: 0 not enforced, 1 partly, 2 fully, plus 16 times
    /// the ABI.
    pub(super) fn restrict(&mut self, tmp: bool, shm: bool, proc: bool, root: bool) -> u32 {
        let Some(mut ruleset) = self.ruleset.take() else {
            return 0;
        };
        let all = AccessFs::from_all(ABI_WANTED);
        let private = [
            (tmp, c"/tmp", all),
            (shm, c"/dev/shm", all),
            (proc, c"/proc", read()),
            (root, c"/", AccessFs::ReadDir.into()),
        ];
        for (granted, path, access) in private {
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
