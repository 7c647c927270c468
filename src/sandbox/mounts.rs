//! The bot's view of the file system, made in its own mount namespace by the namespace's init
//! before the bot starts. Everything the user can read stays readable, as for any program, and
//! nothing can be written, except:
//!
//! - a private, size-capped `/tmp` and `/dev/shm` (writable; the folders a bot needs that live
//!   under `/tmp`, such as its working directory, are bound back into the private one);
//! - folders others cannot enter on the way to what a bot run as a user of its own needs (`/root`), and
//!   `/run` (the host's sockets), replaced by empty ones holding only what the bot needs;
//! - the hidden folders (logs, results, other bots' folders), replaced by empty read-only ones,
//!   and hidden files covered by `/dev/null`;
//! - a hidden folder that holds what the bot needs (a log folder that is its own folder):
//!   masked like `/root`, with only the bot's own entries bound back;
//! - the host's path-named sockets, covered by `/dev/null`;
//! - the folders granted for writing (`--bot-write`), bound writable.
//!
//! The plan is computed in the referee; the init carries it out with raw system calls only
//! (it runs between fork and exec), on buffers prepared before the fork.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::report::Mounts;

/// The mount API's flags (linux/mount.h), not all of which the libc crate carries.
const OPEN_TREE_CLONE: libc::c_uint = 1;
const AT_RECURSIVE: libc::c_uint = 0x8000;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;
const MOUNT_ATTR_RDONLY: u64 = 1;
const MOUNT_ATTR_NOSUID: u64 = 2;

/// `struct mount_attr` of mount_setattr(2).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// A folder or file of the host bound into a masked folder (or, if writable, over itself).
struct Bind {
    path: CString,
    dir: bool,
    writable: bool,
    /// The detached copy of the mount, taken before the masks hide its source.
    fd: libc::c_int,
}

/// What the init mounts for one bot, prepared before the fork.
pub(super) struct Plan {
    /// The options of the private `/tmp` and `/dev/shm` (`None`: the kernel gives no mount
    /// namespace, or the policy keeps the host's).
    tmp_options: CString,
    /// Folders replaced by an empty read-only folder holding only the binds below them.
    masks: Vec<CString>,
    binds: Vec<Bind>,
    hidden: Vec<CString>,
    /// Files (sockets, root's secrets) covered by `/dev/null`.
    covered: Vec<CString>,
}

/// What to mount, in host paths.
pub(super) struct Wanted<'a> {
    /// Size of the private `/tmp` and of `/dev/shm`, each.
    pub(super) tmp_bytes: u64,
    /// Folders to mask (besides `/tmp`), and what to bind into them.
    pub(super) masks: &'a [PathBuf],
    /// What the bot reads (bound back where masked).
    pub(super) read: &'a [PathBuf],
    /// What the bot writes (bound writable).
    pub(super) write: &'a [PathBuf],
    /// Folders to hide.
    pub(super) hidden: &'a [PathBuf],
    /// Files to cover.
    pub(super) covered: &'a [PathBuf],
}

fn c_path(path: &Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).unwrap_or_default()
}

impl Plan {
    /// The plan for `wanted`: `/tmp` is always masked (privately, writable).
    pub(super) fn new(wanted: &Wanted) -> Plan {
        let tmp = Path::new("/tmp");
        let masked = |p: &Path| p.starts_with(tmp) || wanted.masks.iter().any(|m| p.starts_with(m));
        let mut binds: Vec<Bind> = wanted
            .read
            .iter()
            .filter(|p| masked(p) && *p != tmp && !wanted.masks.contains(p))
            .map(|p| Bind {
                path: c_path(p),
                dir: p.is_dir(),
                writable: false,
                fd: -1,
            })
            .collect();
        binds.extend(wanted.write.iter().filter(|p| p.is_dir()).map(|p| Bind {
            path: c_path(p),
            dir: true,
            writable: true,
            fd: -1,
        }));
        // A folder before what is in it: a mask inside a bound folder goes on after the bind.
        binds.sort_by(|a, b| a.path.cmp(&b.path));
        let mut masks: Vec<CString> = wanted.masks.iter().map(|m| c_path(m)).collect();
        masks.sort();
        masks.dedup();
        Plan {
            tmp_options: CString::new(format!("mode=1777,size={}", wanted.tmp_bytes))
                .expect("digits have no NUL"),
            masks,
            binds,
            hidden: wanted.hidden.iter().map(|h| c_path(h)).collect(),
            covered: wanted.covered.iter().map(|c| c_path(c)).collect(),
        }
    }

    /// In the namespace's first process: makes the bot's view. Returns the [`Mounts`] mask of
    /// what was done. Raw calls only.
    pub(super) fn apply(&mut self) -> u32 {
        // SAFETY: mount calls with NUL-terminated strings prepared before the fork.
        if unsafe { mount(None, c"/", None, libc::MS_REC | libc::MS_PRIVATE, None) } != 0 {
            return 0;
        }
        let mut mask = 0;
        for bind in self.binds.iter_mut().filter(|b| b.writable) {
            bind.fd = clone_tree(&bind.path);
        }
        if set_attr(c"/", true, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0) {
            mask |= Mounts::READ_ONLY;
        }
        for bind in self.binds.iter_mut().filter(|b| !b.writable) {
            bind.fd = clone_tree(&bind.path);
        }
        let quiet = libc::MS_NOSUID | libc::MS_NODEV;
        for (path, bit) in [(c"/tmp", Mounts::TMP), (c"/dev/shm", Mounts::SHM)] {
            let tmpfs = Some(c"tmpfs");
            // SAFETY: as above.
            if unsafe { mount(tmpfs, path, tmpfs, quiet, Some(&self.tmp_options)) } == 0 {
                mask |= bit;
            }
        }
        let mut all = true;
        // Masks and binds in the order of their paths (both sorted): a folder before its
        // contents, so a mask inside a bound folder (a carved log folder under /root) covers
        // the bind, and the binds inside a mask go on after it.
        let (mut m, mut b) = (0, 0);
        while m < self.masks.len() || b < self.binds.len() {
            let mask_first = b == self.binds.len()
                || (m < self.masks.len()
                    && self.masks[m].as_bytes() <= self.binds[b].path.as_bytes());
            if mask_first {
                let path = &self.masks[m];
                make_target(path, true);
                // SAFETY: as above.
                all &= unsafe {
                    mount(
                        Some(c"tmpfs"),
                        path,
                        Some(c"tmpfs"),
                        quiet,
                        Some(c"mode=755,size=1m"),
                    )
                } == 0;
                m += 1;
            } else {
                let bind = &self.binds[b];
                all &= bind.fd >= 0 && place(bind);
                b += 1;
            }
        }
        for m in &self.masks {
            all &= set_attr(m, false, MOUNT_ATTR_RDONLY, 0);
        }
        if all {
            mask |= Mounts::BINDS;
        }
        if self.hide() {
            mask |= Mounts::HIDDEN;
        }
        // SAFETY: as above.
        unsafe {
            if mount(
                Some(c"proc"),
                c"/proc",
                Some(c"proc"),
                quiet | libc::MS_NOEXEC,
                None,
            ) == 0
            {
                mask |= Mounts::PROC;
            }
        }
        mask
    }

    /// Hides every hidden folder under an empty read-only one, and covers every covered file;
    /// true if nothing that exists was left uncovered.
    fn hide(&self) -> bool {
        let mut all = true;
        let ro = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        for h in &self.hidden {
            // SAFETY: as in apply.
            let done = unsafe {
                mount(
                    Some(c"tmpfs"),
                    h,
                    Some(c"tmpfs"),
                    ro,
                    Some(c"mode=755,size=4k"),
                )
            };
            all &= done == 0 || errno() == libc::ENOENT;
        }
        for c in &self.covered {
            // SAFETY: as in apply.
            let done = unsafe { mount(Some(c"/dev/null"), c, None, libc::MS_BIND, None) };
            all &= done == 0 || errno() == libc::ENOENT;
        }
        all
    }
}

/// mount(2) with optional strings.
unsafe fn mount(
    source: Option<&std::ffi::CStr>,
    target: &std::ffi::CStr,
    fstype: Option<&std::ffi::CStr>,
    flags: libc::c_ulong,
    data: Option<&std::ffi::CStr>,
) -> libc::c_int {
    let ptr = |s: Option<&std::ffi::CStr>| s.map_or(std::ptr::null(), |s| s.as_ptr());
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
fn clone_tree(path: &std::ffi::CStr) -> libc::c_int {
    let flags = OPEN_TREE_CLONE | AT_RECURSIVE | libc::O_CLOEXEC as libc::c_uint;
    // SAFETY: open_tree with a NUL-terminated path.
    unsafe {
        libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, path.as_ptr(), flags) as libc::c_int
    }
}

/// Sets (and clears) mount attributes at `path`, and below it if `recursive`.
fn set_attr(path: &std::ffi::CStr, recursive: bool, set: u64, clear: u64) -> bool {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clear,
        propagation: 0,
        userns_fd: 0,
    };
    let flags = if recursive { AT_RECURSIVE } else { 0 };
    // SAFETY: mount_setattr with a NUL-terminated path and a struct of its size.
    unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        ) == 0
    }
}

/// Moves a bind's detached copy to its path, making the folders (or the empty file) it needs
/// there first; true if it is in place.
fn place(bind: &Bind) -> bool {
    make_target(&bind.path, bind.dir);
    // SAFETY: move_mount of a descriptor this process owns onto a NUL-terminated path.
    unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            bind.fd,
            c"".as_ptr(),
            libc::AT_FDCWD,
            bind.path.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        ) == 0
    }
}

/// `mkdir -p` of `path`'s folders (and of `path` itself if `dir`, else an empty file), on a
/// stack buffer: no allocation between fork and exec.
fn make_target(path: &std::ffi::CStr, dir: bool) {
    let bytes = path.to_bytes();
    let mut buf = [0u8; 4096];
    if bytes.len() >= buf.len() {
        return;
    }
    buf[..bytes.len()].copy_from_slice(bytes);
    for end in (1..bytes.len()).filter(|&i| bytes[i] == b'/') {
        buf[end] = 0;
        // SAFETY: a NUL-terminated prefix of the path in a stack buffer.
        unsafe { libc::mkdir(buf.as_ptr().cast(), 0o755) };
        buf[end] = b'/';
    }
    // SAFETY: as above, the whole path.
    unsafe {
        if dir {
            libc::mkdir(buf.as_ptr().cast(), 0o755);
        } else {
            let fd = libc::open(
                buf.as_ptr().cast(),
                libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                0o644,
            );
            if fd >= 0 {
                libc::close(fd);
            }
        }
    }
}
