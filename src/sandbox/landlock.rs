//! Landlock: the kernel's allow-list of what a bot may touch, a second wall behind its root
//! ([`super::mounts`]) that grants the same: reading the system's folders ([`super::view`]),
//! what the bot needs and its installs, a few devices; writing only the private folders,
//! `/dev/null` and what `--bot-write` grants. What is hidden inside what it reads (this run's
//! logs in its folder) is carved out: Landlock cannot take a folder out of a granted one, so
//! on the way to each hidden folder every neighbour is granted on its own, and the hidden one
//! is not. The rules are worked out once per bot ([`Rules`]), each path opened then and kept
//! open (within a budget of descriptors for the whole process): each start makes its ruleset
//! from them in the referee with one system call a rule, and the bot, between fork and exec,
//! adds its private /tmp, /dev/shm, /proc and its root's folders (they exist only once
//! mounted: a ruleset cannot be copied, and one shared by every start would gather every
//! start's private folders) and restricts itself. The system calls are raw (the crate's
//! `landlock` types name the access rights): the crate asks the kernel's ABI and looks at each
//! path's type again at every ruleset, some 40 calls a start.
//! Network ports are closed (unless allowed); on ABI 6 and later the bot can signal nothing
//! and reach no abstract socket outside its own domain. A Landlock domain also cannot ptrace a
//! process outside it, which closes `/proc/PID/mem`, `/proc/PID/fd` and ptrace itself, even
//! for root.

use std::collections::BTreeSet;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use landlock::{ABI, Access, AccessFs, AccessNet, BitFlags, Scope};

use super::grants::Grants;

/// Devices a program may read.
const READ_DEVICES: [&str; 4] = ["/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"];
/// Devices a program may write.
const WRITE_DEVICES: [&str; 1] = ["/dev/null"];

/// The newest ABI asked for; older kernels get what they have (best effort), and the report
/// says which.
const ABI_WANTED: ABI = ABI::V6;

/// How many rule descriptors the whole process keeps open (a tournament's bots share them);
/// the rules of a bot past it are opened at each of its starts.
const KEPT_BUDGET: usize = 256;
static KEPT: AtomicUsize = AtomicUsize::new(0);

/// `landlock_create_ruleset`'s flag asking for the ABI, and `landlock_add_rule`'s rule type.
const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: libc::c_int = 1;

/// `struct landlock_ruleset_attr`, as far as ABI 6.
#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

/// `struct landlock_path_beneath_attr`.
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The kernel's Landlock ABI (0: none), asked once a process.
fn kernel_abi() -> i32 {
    static ABI_HERE: OnceLock<i32> = OnceLock::new();
    *ABI_HERE.get_or_init(|| {
        // SAFETY: the version query takes no attribute.
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<RulesetAttr>(),
                0usize,
                CREATE_RULESET_VERSION,
            )
        };
        v.max(0) as i32
    })
}

/// The ABI used: the kernel's, at most the one wanted.
fn abi_used() -> ABI {
    ABI::from(kernel_abi()).min(ABI_WANTED)
}

/// Whether Landlock alone keeps `hidden` (one of `grants`' hidden paths) out of the bot's
/// reach, with no mount: an earlier run's output, where the kernel has Landlock. Thousands of
/// earlier runs in a bot's folder then cost its start no mount, and its mount table names
/// none of them. Not under `/tmp` or `/dev/shm` (bound inside the private ones, whose rule
/// grants everything beneath them), nor in a folder granted for writing (granted whole).
pub(super) fn keeps_out(grants: &Grants, hidden: &Path) -> bool {
    let granted_whole = PRIVATE.iter().any(|p| hidden.starts_with(p))
        || grants.write.iter().any(|w| hidden.starts_with(w));
    abi_used() != ABI::Unsupported && grants.earlier.contains(hidden) && !granted_whole
}

/// Where the bot's private, writable folders are: what is bound inside them is reached
/// through their rule.
const PRIVATE: [&str; 2] = ["/tmp", "/dev/shm"];

/// A ruleset ready for a bot to restrict itself with.
pub(super) struct Prepared {
    ruleset: Option<OwnedFd>,
}

fn read() -> BitFlags<AccessFs> {
    AccessFs::from_read(ABI_WANTED)
}

/// Where a rule's path is: opened once and kept, or opened at each start.
enum Place {
    Kept(OwnedFd),
    Path(PathBuf),
}

/// What one bot is granted, worked out once: each path and its access (as the kernel's ABI
/// has it).
pub(super) struct Rules {
    rules: Vec<(Place, u64)>,
    network: bool,
}

impl Drop for Rules {
    fn drop(&mut self) {
        let kept = self
            .rules
            .iter()
            .filter(|(p, _)| matches!(p, Place::Kept(_)))
            .count();
        KEPT.fetch_sub(kept, Ordering::Relaxed);
    }
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
        let handled = AccessFs::from_all(abi_used());
        let wanted: Vec<(PathBuf, BitFlags<AccessFs>)> = readable
            .into_iter()
            .map(|p| (p, read()))
            .chain(READ_DEVICES.iter().map(|d| (PathBuf::from(d), read())))
            .chain(WRITE_DEVICES.iter().map(|d| (PathBuf::from(d), write)))
            .chain(grants.write.iter().map(|p| (p.clone(), write)))
            .collect();
        let keep = KEPT
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |k| {
                (k + wanted.len() <= KEPT_BUDGET).then_some(k + wanted.len())
            })
            .is_ok();
        let mut rules = Vec::with_capacity(wanted.len());
        let mut unused = 0;
        for (path, access) in wanted {
            // A path that vanished since it was listed is simply not granted.
            let Some(fd) = open_path(&path) else {
                unused += usize::from(keep);
                continue;
            };
            let access = match is_dir(&fd) {
                true => access,
                false => access & AccessFs::from_file(ABI_WANTED),
            };
            let place = match keep {
                true => Place::Kept(fd),
                false => Place::Path(path),
            };
            rules.push((place, (access & handled).bits()));
        }
        KEPT.fetch_sub(unused, Ordering::Relaxed);
        Rules { rules, network }
    }

    /// A start's ruleset, made from the rules: one call a kept rule (a rule past the budget
    /// opens its path again).
    pub(super) fn ruleset(&self) -> io::Result<Prepared> {
        let abi = abi_used();
        if abi == ABI::Unsupported {
            return Ok(Prepared { ruleset: None });
        }
        let attr = RulesetAttr {
            handled_access_fs: AccessFs::from_all(abi).bits(),
            handled_access_net: match self.network {
                true => 0,
                false => AccessNet::from_all(abi).bits(),
            },
            scoped: Scope::from_all(abi).bits(),
        };
        // SAFETY: a ruleset attribute of its size; the descriptor returned is ours.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &attr as *const RulesetAttr,
                std::mem::size_of::<RulesetAttr>(),
                0u32,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a descriptor just made and owned by nothing else.
        let ruleset = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
        for (place, access) in &self.rules {
            let added = match place {
                Place::Kept(fd) => add_rule(ruleset.as_raw_fd(), fd.as_raw_fd(), *access),
                Place::Path(path) => open_path(path)
                    .is_none_or(|fd| add_rule(ruleset.as_raw_fd(), fd.as_raw_fd(), *access)),
            };
            if !added {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(Prepared {
            ruleset: Some(ruleset),
        })
    }
}

/// Adds a rule granting `access` beneath the folder or file `parent` to `ruleset`. Raw call.
fn add_rule(ruleset: RawFd, parent: RawFd, access: u64) -> bool {
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: parent,
    };
    // SAFETY: a rule attribute that outlives the call, on descriptors the caller holds.
    unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
        ) == 0
    }
}

fn is_dir(fd: &OwnedFd) -> bool {
    // SAFETY: fstat on a descriptor we hold, into a zeroed struct.
    unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        libc::fstat(fd.as_raw_fd(), &mut stat) == 0 && stat.st_mode & libc::S_IFMT == libc::S_IFDIR
    }
}

/// An `O_PATH` descriptor of `path`, closed at exec.
fn open_path(path: &Path) -> Option<OwnedFd> {
    let path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
    open_c_path(&path)
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
    /// for it: the way to what it reads), and restricts the process for good (the ruleset
    /// and the private folders' descriptors close at exec). Raw calls only.
    /// Returns the outcome for the report: 0 not enforced, 1 partly, 2 fully, plus 16 times
    /// the ABI.
    pub(super) fn restrict(&mut self, tmp: bool, shm: bool, proc: bool, root: bool) -> u32 {
        let Some(ruleset) = self.ruleset.take() else {
            return 0;
        };
        let handled = AccessFs::from_all(abi_used());
        let all = AccessFs::from_all(ABI_WANTED) & handled;
        let private = [
            (tmp, c"/tmp", all),
            (shm, c"/dev/shm", all),
            (proc, c"/proc", read() & handled),
            (root, c"/", BitFlags::from(AccessFs::ReadDir)),
        ];
        for (granted, path, access) in private {
            if !granted {
                continue;
            }
            if let Some(fd) = open_c_path(path) {
                if !add_rule(ruleset.as_raw_fd(), fd.as_raw_fd(), access.bits()) {
                    return 0;
                }
                std::mem::forget(fd);
            }
        }
        // SAFETY: prctl and landlock_restrict_self on this process and a ruleset it holds.
        let restricted = unsafe {
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
                && libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) == 0
        };
        // Closed at exec (a close here is one more call a start).
        std::mem::forget(ruleset);
        if !restricted {
            return 0;
        }
        let level = match abi_used() >= ABI_WANTED {
            true => 2,
            false => 1,
        };
        level + 16 * ABI::from(kernel_abi()) as u32
    }
}

/// An `O_PATH` descriptor, opened with a raw call (no allocation between fork and exec).
fn open_c_path(path: &std::ffi::CStr) -> Option<OwnedFd> {
    // SAFETY: a NUL-terminated path; the descriptor returned is owned by the caller.
    let fd: RawFd = unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    // SAFETY: a descriptor just opened and owned by nothing else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn landlock_alone_keeps_out_only_earlier_runs_it_can_wall_off() {
        let grants = Grants {
            earlier: [
                "/w/b/results/1/logs",
                "/tmp/b/results/1/logs",
                "/w/out/runs/1",
            ]
            .map(PathBuf::from)
            .into(),
            write: [PathBuf::from("/w/out")].into(),
            hidden: [PathBuf::from("/w/b/allfives-logs")].into(),
            ..Grants::default()
        };
        let here = abi_used() != ABI::Unsupported;
        let kept: Vec<bool> = [
            "/w/b/results/1/logs",
            "/tmp/b/results/1/logs",
            "/w/out/runs/1",
            "/w/b/allfives-logs",
        ]
        .map(|p| keeps_out(&grants, Path::new(p)))
        .into();
        // Inside the private /tmp and a folder granted for writing, Landlock grants all; this
        // run's output is never left to it alone.
        assert_eq!(kept, [here, false, false, false]);
    }
}
