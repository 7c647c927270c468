//! What a bot wrote in its private `/tmp`, kept for its author once the bot has ended: copied
//! next to its stderr file, capped, never while it (or the game) is still running.
//!
//! The referee opens the bot's `/tmp` through its init (`/proc/PID/root/tmp`) as soon as the
//! bot has started; the open folder outlives the bot's namespace, so it can be read after every
//! process of the bot is gone. The bot controls what is in it: only regular files and folders
//! are copied, no link is followed, nothing is read past the cap, and folders bound in from
//! elsewhere (its working directory under /tmp) are skipped.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::files;

/// The most files copied.
const MAX_FILES: usize = 200;
/// The deepest folder copied.
const MAX_DEPTH: usize = 8;

/// The private /tmp of the bot whose init is `init` (a process id as the referee sees it).
pub(super) fn open(init: u32) -> Option<OwnedFd> {
    let path = format!("/proc/{init}/root/tmp");
    let c = std::ffi::CString::new(path).ok()?;
    // SAFETY: a NUL-terminated path; the descriptor returned is owned by the caller.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC | libc::O_NOFOLLOW,
        )
    };
    // SAFETY: a descriptor just opened and owned by nothing else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// What was saved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Saved {
    /// Where (`None`: the bot left nothing).
    pub dir: Option<PathBuf>,
    /// Files copied.
    pub files: usize,
    /// Bytes copied.
    pub bytes: u64,
    /// Whether something was left out (over the cap).
    pub cut: bool,
}

/// Copies what the bot left in `tmp` into a new folder `dest` (or `dest-2`, ...), at most `cap`
/// bytes. Nothing is created when the bot left nothing.
pub fn save(tmp: OwnedFd, dest: &Path, cap: u64) -> io::Result<Saved> {
    let root = File::from(tmp);
    let device = root.metadata()?.dev();
    let mut walk = Walk {
        device,
        cap,
        saved: Saved::default(),
        dest: dest.to_path_buf(),
    };
    walk.folder(&root, Path::new(""), 0)?;
    Ok(walk.saved)
}

struct Walk {
    device: u64,
    cap: u64,
    saved: Saved,
    dest: PathBuf,
}

impl Walk {
    fn folder(&mut self, dir: &File, rel: &Path, depth: usize) -> io::Result<()> {
        for name in names(dir)? {
            if self.saved.files >= MAX_FILES || self.saved.bytes >= self.cap {
                self.saved.cut = true;
                return Ok(());
            }
            let Some(entry) = open_at(dir, &name) else {
                continue;
            };
            let meta = entry.metadata()?;
            if meta.dev() != self.device {
                continue;
            }
            // The bot chose the name, and it lands in the user's log folder: a safe slug.
            let rel = rel.join(crate::text::file_name(&name.to_string_lossy()));
            if meta.is_dir() && depth < MAX_DEPTH {
                self.folder(&entry, &rel, depth + 1)?;
            } else if meta.is_file() {
                // A file that cannot be copied (a name taken twice) is left out, not the rest.
                self.saved.cut |= self.file(entry, &rel, meta.len()).is_err();
            }
        }
        Ok(())
    }

    fn file(&mut self, mut from: File, rel: &Path, len: u64) -> io::Result<()> {
        let dir = self.target()?;
        if let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir.join(parent))?;
        }
        let room = self.cap - self.saved.bytes;
        let mut to = files::create_new(&dir.join(rel))?;
        let copied = io::copy(&mut (&mut from).take(room), &mut to)?;
        to.flush()?;
        self.saved.files += 1;
        self.saved.bytes += copied;
        self.saved.cut |= copied < len;
        Ok(())
    }

    /// The folder copies go to, created with the first file.
    fn target(&mut self) -> io::Result<PathBuf> {
        if let Some(dir) = &self.saved.dir {
            return Ok(dir.clone());
        }
        let name = self.dest.file_name().unwrap_or_default().to_string_lossy();
        for n in 1u32.. {
            let dir = match n {
                1 => self.dest.clone(),
                n => self.dest.with_file_name(format!("{name}-{n}")),
            };
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => {
                    self.saved.dir = Some(dir.clone());
                    return Ok(dir);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        unreachable!("some folder name is free")
    }
}

/// The names in an open folder, sorted (a stable order, whatever the file system's).
fn names(dir: &File) -> io::Result<Vec<std::ffi::OsString>> {
    let fd = dir.as_raw_fd();
    let mut names: Vec<_> = std::fs::read_dir(format!("/proc/self/fd/{fd}"))?
        .flatten()
        .map(|e| e.file_name())
        .collect();
    names.sort();
    Ok(names)
}

/// Opens `name` in `dir` without following a link, without blocking on a FIFO.
fn open_at(dir: &File, name: &std::ffi::OsStr) -> Option<File> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(name.as_bytes()).ok()?;
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
    // SAFETY: openat relative to an open folder with a NUL-terminated name.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), c.as_ptr(), flags) };
    // SAFETY: a descriptor just opened and owned by nothing else.
    (fd >= 0).then(|| unsafe { File::from_raw_fd(fd) })
}
