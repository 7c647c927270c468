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
    /// Whether something was left out (over the cap), and said in [`LEFT_OUT`].
    pub cut: bool,
}

/// The note, in the saved folder, that lists what was left out: a leading dot, which no name
/// of the bot's takes once copied ([`crate::text::file_name`]).
pub const LEFT_OUT: &str = ".left-out.txt";

/// The most files looked at: a bot can fill its /tmp with millions of empty files.
const MAX_SEEN: usize = 100_000;

/// A regular file the bot left: its size, when it was last written, whether its name is a
/// log's, its path as saved, and the names that lead to it.
struct Found {
    len: u64,
    written: (i64, i64),
    log: bool,
    rel: PathBuf,
    names: Vec<std::ffi::OsString>,
}

impl Found {
    /// The order files are kept in ([`RULE`]): logs first, then the last written, then the
    /// smallest; the path last, so that the order is the same from run to run.
    fn rank(&self) -> (bool, std::cmp::Reverse<(i64, i64)>, u64, &Path) {
        (
            !self.log,
            std::cmp::Reverse(self.written),
            self.len,
            &self.rel,
        )
    }
}

/// Which files are kept first, in words (the note of what was left out says it).
const RULE: &str = "files named like logs first (*.log, *.txt, *.out, *.err, or a name with \
     log, debug, trace or err in it), then the ones written last, then the smallest";

/// Whether a file's name says it is a log or a note a bot's author wants back.
fn named_like_a_log(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy().to_lowercase();
    let extension = name.rsplit_once('.').map_or("", |(_, x)| x);
    ["log", "txt", "out", "err"].contains(&extension)
        || ["log", "debug", "trace", "err"]
            .iter()
            .any(|word| name.contains(word))
}

/// Copies what the bot left in `tmp` into a new folder `dest` (or `dest-2`, ...), at most `cap`
/// bytes and [`MAX_FILES`] files, in [`RULE`]'s order (a debug note survives a large dump and
/// a crowd of small files); what did not fit is listed in [`LEFT_OUT`] there, and so are
/// folders too deep to be looked into. Nothing is created when the bot left nothing.
pub fn save(tmp: OwnedFd, dest: &Path, cap: u64) -> io::Result<Saved> {
    let root = File::from(tmp);
    let mut walk = Walk {
        device: root.metadata()?.dev(),
        found: Vec::new(),
        too_deep: Vec::new(),
        unseen: false,
    };
    walk.folder(&root, Path::new(""), &[], 0)?;
    let mut found = walk.found;
    found.sort_by(|a, b| a.rank().cmp(&b.rank()));
    let mut copy = Copy {
        cap,
        saved: Saved::default(),
        dest: dest.to_path_buf(),
        left_out: Vec::new(),
    };
    for file in &found {
        copy.one(&root, file);
    }
    copy.left_out.extend(walk.too_deep.iter().map(|dir| {
        format!(
            "{}/ (a folder deeper than {MAX_DEPTH} levels: not looked into)",
            dir.display()
        )
    }));
    copy.note(walk.unseen)?;
    Ok(copy.saved)
}

/// The walk through the bot's /tmp, listing its regular files.
struct Walk {
    device: u64,
    found: Vec<Found>,
    /// Folders not looked into: deeper than [`MAX_DEPTH`].
    too_deep: Vec<PathBuf>,
    /// Whether some entries were not looked at ([`MAX_SEEN`]).
    unseen: bool,
}

impl Walk {
    fn folder(
        &mut self,
        dir: &File,
        rel: &Path,
        names: &[std::ffi::OsString],
        depth: usize,
    ) -> io::Result<()> {
        for name in names_in(dir)? {
            if self.found.len() >= MAX_SEEN {
                self.unseen = true;
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
            let log = named_like_a_log(&name);
            let names: Vec<_> = names.iter().cloned().chain([name]).collect();
            if meta.is_dir() && depth < MAX_DEPTH {
                self.folder(&entry, &rel, &names, depth + 1)?;
            } else if meta.is_dir() {
                self.too_deep.push(rel);
            } else if meta.is_file() {
                self.found.push(Found {
                    len: meta.len(),
                    written: (meta.mtime(), meta.mtime_nsec()),
                    log,
                    rel,
                    names,
                });
            }
        }
        Ok(())
    }
}

/// The copy of the files found, in [`RULE`]'s order.
struct Copy {
    cap: u64,
    saved: Saved,
    dest: PathBuf,
    /// What was not copied whole: a line each.
    left_out: Vec<String>,
}

impl Copy {
    fn one(&mut self, root: &File, file: &Found) {
        let room = self.cap - self.saved.bytes;
        let shown = file.rel.display();
        if self.saved.files >= MAX_FILES || room == 0 {
            self.left_out.push(format!("{shown} ({} bytes)", file.len));
            return;
        }
        match self.file(root, file, room) {
            Ok(copied) if copied < file.len => self.left_out.push(format!(
                "{shown} ({} bytes): only its first {copied} kept",
                file.len
            )),
            Ok(_) => {}
            // A file that cannot be copied (a name taken twice) is left out, not the rest.
            Err(e) => self
                .left_out
                .push(format!("{shown} ({} bytes): {e}", file.len)),
        }
    }

    fn file(&mut self, root: &File, file: &Found, room: u64) -> io::Result<u64> {
        let mut from = reopen(root, &file.names)?;
        let dir = self.target()?;
        if let Some(parent) = file.rel.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir.join(parent))?;
        }
        let mut to = files::create_new(&dir.join(&file.rel))?;
        let copied = io::copy(&mut (&mut from).take(room), &mut to)?;
        to.flush()?;
        self.saved.files += 1;
        self.saved.bytes += copied;
        Ok(copied)
    }

    /// Writes [`LEFT_OUT`] if something was; says so on the referee's stderr too.
    fn note(&mut self, unseen: bool) -> io::Result<()> {
        if self.left_out.is_empty() && !unseen {
            return Ok(());
        }
        self.saved.cut = true;
        let dir = self.target()?;
        let mut text = format!(
            "The bot's /tmp held more than is kept ({}, {MAX_FILES} files; kept first: \
             {RULE}). Left out:\n",
            size(self.cap)
        );
        for line in &self.left_out {
            text.push_str(line);
            text.push('\n');
        }
        if unseen {
            text.push_str(&format!("more files, not looked at (over {MAX_SEEN})\n"));
        }
        let note = dir.join(LEFT_OUT);
        files::create_new(&note)?.write_all(text.as_bytes())?;
        let _ = writeln!(
            std::io::stderr(),
            "the saved /tmp in {} was cut ({}, {MAX_FILES} files): {} left out, listed in {}",
            dir.display(),
            size(self.cap),
            match unseen {
                true => "many files".to_string(),
                false => crate::text::count(self.left_out.len() as u64, "file"),
            },
            note.display()
        );
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

/// A cap in words: "1 MiB", "512 KiB".
fn size(bytes: u64) -> String {
    match bytes % (1 << 20) {
        0 => format!("{} MiB", bytes >> 20),
        _ => format!("{} KiB", bytes >> 10),
    }
}

/// Opens a file found in the walk again, name by name from `root`, following no link.
fn reopen(root: &File, names: &[std::ffi::OsString]) -> io::Result<File> {
    let gone = || io::Error::from(io::ErrorKind::NotFound);
    let mut at = root.try_clone()?;
    for name in names {
        at = open_at(&at, name).ok_or_else(gone)?;
    }
    match at.metadata()?.is_file() {
        true => Ok(at),
        false => Err(gone()),
    }
}

/// The names in an open folder, sorted (a stable order, whatever the file system's).
fn names_in(dir: &File) -> io::Result<Vec<std::ffi::OsString>> {
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
