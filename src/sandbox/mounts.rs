//! The bot's root, built in its own mount namespace by the namespace's init before the bot
//! starts, as bubblewrap builds one: a fresh, empty `tmpfs` becomes the root (`pivot_root`),
//! and what the bot may see is bound into it ([`super::view`]):
//!
//! - the system's folders (`/usr`, `/etc`, `/dev`, ...), read-only, and their links again;
//! - what the bot needs and what it is granted (`--bot-read`), read-only; `--bot-write`
//!   writable; the folders on the way to them are empty folders of the new root;
//! - a private, size-capped `/tmp` and `/dev/shm` (what the bot needs under `/tmp`, such as its
//!   working directory, is bound into the private one), and a fresh `/proc`;
//! - inside what it sees, the hidden folders (this run's logs, other bots' folders) replaced by
//!   empty read-only ones, hidden files (and the host's sockets) covered by `/dev/null`;
//! - a hidden folder that holds what the bot needs (a log folder that is its own folder):
//!   masked, with only the bot's own entries bound back.
//!
//! The old root is then detached: nothing else of the host is there, however many earlier
//! runs lie on its disks, and the bot's `/proc/self/mountinfo` names only what it sees. The
//! plan is made once per bot in the referee; the init carries it out with raw system calls on
//! buffers prepared before the fork (it runs between fork and exec).

use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::report::Mounts;
use super::view::{self, System};

/// The mount API's flags (linux/mount.h), not all of which the libc crate carries.
const OPEN_TREE_CLONE: libc::c_uint = 1;
const AT_RECURSIVE: libc::c_uint = 0x8000;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;
const MOUNT_ATTR_RDONLY: u64 = 1;
const MOUNT_ATTR_NOSUID: u64 = 2;
const MOUNT_ATTR_NODEV: u64 = 4;

/// Where the new root is assembled (a tmpfs mounted there, in the bot's namespace only), and
/// where the old root waits until it is detached.
const STAGE: &CStr = c"/tmp";
const STAGE_OLD: &CStr = c"/tmp/.old";
const OLD: &CStr = c"/.old";

/// `struct mount_attr` of mount_setattr(2).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// A folder or file of the host bound into the new root.
struct Bind {
    path: CString,
    /// The mount attributes it gets (read-only unless granted for writing).
    attr: u64,
}

/// One step of building the root, in path order (a folder before what is in it).
enum Step {
    /// An empty folder of a tmpfs (the root, the private /tmp, a mask), on the way to a bind.
    Folder(CString),
    /// An empty file of a tmpfs, where a file is bound.
    File(CString),
    /// A link of the system's (`/bin -> usr/bin`): its path, where it points.
    Link(CString, CString),
    /// The bind of this index in [`Plan::binds`].
    Bind(usize),
    /// The private /tmp or /dev/shm (and its report bit).
    Private(CString, u32),
    /// A hidden folder with entries bound back into it (read-only once they are).
    Mask(CString),
    /// A hidden folder, replaced by an empty read-only one.
    Hide(CString),
    /// A hidden file, covered by `/dev/null`.
    Cover(CString),
}

/// What the init mounts for one bot, prepared once in the referee.
pub(super) struct Plan {
    /// The options of the private `/tmp` and `/dev/shm`.
    tmp_options: CString,
    binds: Vec<Bind>,
    steps: Vec<Step>,
}

/// What to mount, in host paths.
pub(super) struct Wanted<'a> {
    /// Size of the private `/tmp` and of `/dev/shm`, each.
    pub(super) tmp_bytes: u64,
    /// What the bot reads (bound read-only; under /tmp, into the private one).
    pub(super) read: &'a [PathBuf],
    /// What the bot writes (bound writable).
    pub(super) write: &'a [PathBuf],
    /// Hidden folders that hold entries the bot needs, bound back from `read`.
    pub(super) masks: &'a [PathBuf],
    /// Folders to hide.
    pub(super) hidden: &'a [PathBuf],
    /// Files to cover.
    pub(super) covered: &'a [PathBuf],
}

fn c_path(path: &Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).unwrap_or_default()
}

/// The kinds of mount point: what lies in the root's tmpfs (and in the private /tmp and the
/// masks) must be made; what lies in a bind exists there already.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Tmpfs,
    Bind,
}

impl Plan {
    /// The plan for `wanted`.
    pub(super) fn new(wanted: &Wanted) -> Plan {
        let mut binds: Vec<(PathBuf, u64)> = Vec::new();
        let mut links: Vec<(PathBuf, PathBuf)> = Vec::new();
        let read_only = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        for system in view::system() {
            match system {
                // Devices are why /dev is there.
                System::Folder(p) if p == Path::new("/dev") => {
                    binds.push((p.clone(), MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID))
                }
                System::Folder(p) => binds.push((p.clone(), read_only)),
                System::Link(p, to) => links.push((p.clone(), to.clone())),
            }
        }
        let system: Vec<PathBuf> = binds.iter().map(|(p, _)| p.clone()).collect();
        let tmp = Path::new("/tmp");
        let shm = Path::new("/dev/shm");
        for p in wanted.read {
            // Inside a system folder it is there already (but in /dev/shm, a private one);
            // /tmp itself is the private one.
            let there = system.iter().any(|s| p.starts_with(s)) && !p.starts_with(shm);
            if p != tmp && p != shm && !there {
                binds.push((p.clone(), read_only));
            }
        }
        binds.extend(
            wanted
                .write
                .iter()
                .map(|p| (p.clone(), MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)),
        );
        binds.sort();
        binds.dedup_by(|a, b| a.0 == b.0);
        // Every mount point and the kind of mount made there, to know what must be made.
        let mut points: Vec<(PathBuf, Kind)> = vec![
            (tmp.to_path_buf(), Kind::Tmpfs),
            (shm.to_path_buf(), Kind::Tmpfs),
        ];
        points.extend(binds.iter().map(|(p, _)| (p.clone(), Kind::Bind)));
        points.extend(wanted.masks.iter().map(|p| (p.clone(), Kind::Tmpfs)));
        points.sort_by(|a, b| a.0.cmp(&b.0));
        let mut steps: Vec<(PathBuf, u8, Step)> = Vec::new();
        let mut made: std::collections::BTreeSet<PathBuf> = Default::default();
        let mut make = |path: &Path, dir: bool, steps: &mut Vec<(PathBuf, u8, Step)>| {
            // Each folder on the way that lies in a tmpfs, then the point itself.
            let on_the_way: Vec<&Path> = path.ancestors().skip(1).collect();
            for a in on_the_way
                .into_iter()
                .rev()
                .filter(|a| *a != Path::new("/"))
            {
                if in_tmpfs(&points, a) && made.insert(a.to_path_buf()) {
                    steps.push((a.to_path_buf(), 0, Step::Folder(c_path(a))));
                }
            }
            if in_tmpfs(&points, path) && made.insert(path.to_path_buf()) {
                let step = match dir {
                    true => Step::Folder(c_path(path)),
                    false => Step::File(c_path(path)),
                };
                steps.push((path.to_path_buf(), 0, step));
            }
        };
        for (p, to) in &links {
            steps.push((p.clone(), 0, Step::Link(c_path(p), c_path(to))));
        }
        for (i, (p, _)) in binds.iter().enumerate() {
            make(p, p.is_dir(), &mut steps);
            steps.push((p.clone(), 1, Step::Bind(i)));
        }
        for (p, bit) in [(tmp, Mounts::TMP), (shm, Mounts::SHM)] {
            make(p, true, &mut steps);
            steps.push((p.to_path_buf(), 1, Step::Private(c_path(p), bit)));
        }
        for p in wanted.masks {
            steps.push((p.clone(), 1, Step::Mask(c_path(p))));
        }
        for p in wanted.hidden {
            steps.push((p.clone(), 2, Step::Hide(c_path(p))));
        }
        for p in wanted.covered {
            steps.push((p.clone(), 2, Step::Cover(c_path(p))));
        }
        // A folder before what is in it; at one path, what makes it before what mounts there.
        steps.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        Plan {
            tmp_options: CString::new(format!("mode=1777,size={}", wanted.tmp_bytes))
                .expect("digits have no NUL"),
            binds: binds
                .into_iter()
                .map(|(p, attr)| Bind {
                    path: c_path(&p),
                    attr,
                })
                .collect(),
            steps: steps.into_iter().map(|(_, _, s)| s).collect(),
        }
    }

    /// How many descriptors [`Plan::apply`] needs (one a bind).
    pub(super) fn binds(&self) -> usize {
        self.binds.len()
    }

    /// In the namespace's first process: builds the bot's root, `fds` (one a bind, prepared
    /// before the fork) holding the detached copies. Returns the [`Mounts`] mask of what was
    /// done (0: the root could not be built, and the bot sees the host's files as Landlock
    /// lets it). Raw calls only.
    pub(super) fn apply(&self, fds: &mut [libc::c_int]) -> u32 {
        // SAFETY: mount calls with NUL-terminated strings prepared before the fork.
        if unsafe { mount(None, c"/", None, libc::MS_REC | libc::MS_PRIVATE, None) } != 0 {
            return 0;
        }
        // SAFETY: umask of this process: the folders made are open to a bot of its own user;
        // the bot gets the referee's back.
        let umask = unsafe { libc::umask(0o022) };
        let mask = self.build(fds);
        // SAFETY: as above.
        unsafe { libc::umask(umask) };
        mask
    }

    fn build(&self, fds: &mut [libc::c_int]) -> u32 {
        // Copies of what is bound, taken before anything is covered.
        let mut combined = true;
        for (bind, fd) in self.binds.iter().zip(fds.iter_mut()) {
            if combined {
                *fd = clone_tree_with(&bind.path, bind.attr);
                // A kernel without the call is asked no more.
                combined = *fd >= 0 || errno() != libc::ENOSYS;
            }
            if *fd < 0 {
                *fd = clone_tree(&bind.path);
                if *fd >= 0 {
                    set_attr_fd(*fd, bind.attr);
                }
            }
        }
        if !enter_stage() {
            return 0;
        }
        let mut mask = 0;
        let mut all_bound = true;
        let mut all_hidden = true;
        let quiet = libc::MS_NOSUID | libc::MS_NODEV;
        for step in &self.steps {
            // SAFETY (every arm): raw calls with NUL-terminated strings and descriptors
            // prepared before the fork.
            match step {
                Step::Folder(p) => unsafe {
                    libc::mkdir(p.as_ptr(), 0o755);
                },
                Step::File(p) => unsafe {
                    let fd = libc::open(p.as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o644);
                    if fd >= 0 {
                        libc::close(fd);
                    }
                },
                Step::Link(p, to) => unsafe {
                    libc::symlink(to.as_ptr(), p.as_ptr());
                },
                Step::Bind(i) => {
                    all_bound &= fds[*i] >= 0 && place(fds[*i], &self.binds[*i].path);
                }
                Step::Private(p, bit) => {
                    let tmpfs = Some(c"tmpfs");
                    if unsafe { mount(tmpfs, p, tmpfs, quiet, Some(&self.tmp_options)) } == 0 {
                        mask |= bit;
                    }
                }
                Step::Mask(p) => {
                    let options = Some(c"mode=755,size=1m");
                    let tmpfs = Some(c"tmpfs");
                    all_bound &= unsafe { mount(tmpfs, p, tmpfs, quiet, options) } == 0;
                }
                Step::Hide(p) => {
                    let ro = quiet | libc::MS_RDONLY | libc::MS_NOEXEC;
                    let tmpfs = Some(c"tmpfs");
                    let options = Some(c"mode=755,size=4k");
                    let done = unsafe { mount(tmpfs, p, tmpfs, ro, options) };
                    all_hidden &= done == 0 || errno() == libc::ENOENT;
                }
                Step::Cover(p) => {
                    let done = unsafe { mount(Some(c"/dev/null"), p, None, libc::MS_BIND, None) };
                    all_hidden &= done == 0 || errno() == libc::ENOENT;
                }
            }
        }
        // The fresh /proc goes on while the host's is still in this namespace (the kernel lets
        // a user namespace mount one only where one is fully visible).
        // SAFETY: as above.
        unsafe {
            libc::mkdir(c"/proc".as_ptr(), 0o555);
            let proc = Some(c"proc");
            if mount(proc, c"/proc", proc, quiet | libc::MS_NOEXEC, None) == 0 {
                mask |= Mounts::PROC;
            }
            libc::umount2(OLD.as_ptr(), libc::MNT_DETACH);
            libc::rmdir(OLD.as_ptr());
        }
        for step in &self.steps {
            if let Step::Mask(p) = step {
                all_bound &= set_attr(p, MOUNT_ATTR_RDONLY);
            }
        }
        if set_attr(
            c"/",
            MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
        ) {
            mask |= Mounts::READ_ONLY;
        }
        if all_bound {
            mask |= Mounts::BINDS;
        }
        if all_hidden {
            mask |= Mounts::HIDDEN;
        }
        mask
    }
}

/// Whether `path` lies in a tmpfs of the new root (the root itself, the private /tmp, a mask):
/// its nearest mount point above it (of `points`, sorted) is not a bind.
fn in_tmpfs(points: &[(PathBuf, Kind)], path: &Path) -> bool {
    points
        .iter()
        .filter(|(p, _)| path.starts_with(p) && p != path)
        .max_by_key(|(p, _)| p.as_os_str().len())
        .is_none_or(|(_, kind)| *kind == Kind::Tmpfs)
}

/// Mounts an empty tmpfs at [`STAGE`] and makes it the root, the old one at [`OLD`]; false if
/// it could not (nothing is left changed that the bot would see but an empty /tmp).
fn enter_stage() -> bool {
    let tmpfs = Some(c"tmpfs");
    let options = Some(c"mode=755,size=1m");
    // SAFETY: raw calls with NUL-terminated strings.
    unsafe {
        if mount(
            tmpfs,
            STAGE,
            tmpfs,
            libc::MS_NOSUID | libc::MS_NODEV,
            options,
        ) != 0
        {
            return false;
        }
        libc::mkdir(STAGE_OLD.as_ptr(), 0o700);
        let moved = libc::syscall(libc::SYS_pivot_root, STAGE.as_ptr(), STAGE_OLD.as_ptr()) == 0;
        if !moved {
            libc::umount2(STAGE.as_ptr(), libc::MNT_DETACH);
            return false;
        }
        libc::chdir(c"/".as_ptr()) == 0
    }
}

/// mount(2) with optional strings.
unsafe fn mount(
    source: Option<&CStr>,
    target: &CStr,
    fstype: Option<&CStr>,
    flags: libc::c_ulong,
    data: Option<&CStr>,
) -> libc::c_int {
    let ptr = |s: Option<&CStr>| s.map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: NUL-terminated strings or null, as mount(2) takes them.
    unsafe {
        libc::mount(
            ptr(source),
            target.as_ptr(),
            ptr(fstype),
            flags,
            ptr(data).cast(),
        )
    }
}

fn errno() -> libc::c_int {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// A detached copy of the mounts at `path` and below (-1 if it cannot be had).
fn clone_tree(path: &CStr) -> libc::c_int {
    let flags = OPEN_TREE_CLONE | AT_RECURSIVE | libc::O_CLOEXEC as libc::c_uint;
    // SAFETY: open_tree with a NUL-terminated path.
    unsafe {
        libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, path.as_ptr(), flags) as libc::c_int
    }
}

/// `open_tree_attr(2)` (Linux 6.15; the same number on every architecture since 5.1).
const SYS_OPEN_TREE_ATTR: libc::c_long = 467;

/// A detached copy of the mounts at `path` and below, with the mount attributes `set` on each,
/// in one call (-1 where the kernel lacks it, or it failed: [`clone_tree`] then tries alone).
fn clone_tree_with(path: &CStr, set: u64) -> libc::c_int {
    let flags = OPEN_TREE_CLONE | AT_RECURSIVE | libc::O_CLOEXEC as libc::c_uint;
    with_attr(SYS_OPEN_TREE_ATTR, libc::AT_FDCWD, path, flags, set) as libc::c_int
}

/// Sets mount attributes on the detached copy `fd` and every mount in it.
fn set_attr_fd(fd: libc::c_int, set: u64) -> bool {
    attr_at(
        fd,
        c"",
        libc::AT_EMPTY_PATH as libc::c_uint | AT_RECURSIVE,
        set,
    )
}

/// Sets mount attributes on the mount at `path` (not those below it).
fn set_attr(path: &CStr, set: u64) -> bool {
    attr_at(libc::AT_FDCWD, path, 0, set)
}

fn attr_at(dirfd: libc::c_int, path: &CStr, flags: libc::c_uint, set: u64) -> bool {
    with_attr(libc::SYS_mount_setattr, dirfd, path, flags, set) == 0
}

/// A call of the mount API that takes a `struct mount_attr` (`mount_setattr`,
/// `open_tree_attr`), setting `set`.
fn with_attr(
    call: libc::c_long,
    dirfd: libc::c_int,
    path: &CStr,
    flags: libc::c_uint,
    set: u64,
) -> libc::c_long {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: a call of the mount API with a NUL-terminated path and a struct of its size.
    unsafe {
        libc::syscall(
            call,
            dirfd,
            path.as_ptr(),
            flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    }
}

/// Moves a detached copy to `path`; true if it is in place. The descriptor is left to close
/// at exec (a close here would be one more call a bind at each start).
fn place(fd: libc::c_int, path: &CStr) -> bool {
    // SAFETY: move_mount of a descriptor this process owns onto a NUL-terminated path.
    unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            fd,
            c"".as_ptr(),
            libc::AT_FDCWD,
            path.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        ) == 0
    }
}
