//! A tournament folder (`--out`): held by one run at a time through an exclusive record lock
//! (`fcntl`, the process's own) on its `.lock` file, which names the holder's process id and
//! host (a folder on a shared filesystem may be held from another node); a start cut short is
//! told apart from a folder that holds something else, and cleaned.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;

use crate::sandbox::files;
use crate::tournament::definition;

/// The lock file's name in a tournament folder.
pub const LOCK: &str = ".lock";

/// The folders a run creates in its tournament folder.
pub const SUBFOLDERS: [&str; 2] = ["logs", "stderr"];

/// The folder, held until this is dropped (the lock goes with the process, however it ends).
#[derive(Debug)]
pub struct HeldFolder {
    /// The folder.
    pub dir: PathBuf,
    /// Whether this run made it.
    created: bool,
    /// Open while held: closing it lets the lock go.
    _lock: File,
}

/// Creates `dir` if need be and takes its lock, or says who holds it.
pub fn hold(dir: &Path) -> Result<HeldFolder, String> {
    usable(dir)?;
    let created = !dir.exists();
    files::create_private_dir(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(LOCK);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut lock = match lock_record(file) {
        Ok(lock) => lock,
        Err((mut file, Errno::EAGAIN | Errno::EACCES)) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = match holder.split_whitespace().collect::<Vec<_>>()[..] {
                [] => String::new(),
                [pid] => format!(" (pid {pid})"),
                [pid, host, ..] => format!(" (pid {pid} on host {host})"),
            };
            return Err(format!(
                "{} is in use by another allfives run{holder}: wait for it to end or stop it, then run again",
                dir.display()
            ));
        }
        Err((_, e)) => return Err(format!("cannot lock {}: {e}", path.display())),
    };
    // The holder's pid and host, for the message of a run refused meanwhile.
    let host = nix::unistd::gethostname().map_or_else(
        |_| "unknown".to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    let named = lock
        .set_len(0)
        .and_then(|()| lock.rewind())
        .and_then(|()| writeln!(lock, "{} {host}", std::process::id()));
    named.map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(HeldFolder {
        dir: dir.to_path_buf(),
        created,
        _lock: lock,
    })
}

/// Takes a write lock on the whole of `file`: a POSIX record lock, which belongs to this
/// process alone. A forked child (a bot's keeper or init before it execs) does not inherit
/// it, as it would an flock: a run killed with `kill -9` lets its folder go at once, even while
/// such a child lingers.
fn lock_record(file: File) -> Result<File, (File, Errno)> {
    use std::os::fd::AsRawFd;
    // SAFETY: a plain struct of integers, all zero but what is set below.
    let mut whole: libc::flock = unsafe { std::mem::zeroed() };
    whole.l_type = libc::F_WRLCK as libc::c_short;
    whole.l_whence = libc::SEEK_SET as libc::c_short;
    // SAFETY: fcntl on a descriptor this function owns, with a flock that lives in its frame.
    match unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &whole) } {
        0 => Ok(file),
        _ => Err((file, Errno::last())),
    }
}

/// Refuses, in words, an `--out` that cannot be a folder: a file, or a link to nothing.
fn usable(dir: &Path) -> Result<(), String> {
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return Ok(());
    };
    if meta.file_type().is_symlink() && !dir.exists() {
        let target = std::fs::read_link(dir).map_or(String::new(), |t| t.display().to_string());
        return Err(format!(
            "{} is a symbolic link to {target}, which does not exist: create that folder, or choose another --out",
            dir.display()
        ));
    }
    if !dir.is_dir() {
        return Err(format!(
            "{} is a file, not a folder: choose another --out",
            dir.display()
        ));
    }
    Ok(())
}

impl HeldFolder {
    /// What a run cut short as it started left (an unrenamed `tournament.json.new`, empty
    /// subfolders), removed so that the folder counts as empty; a word for each removal.
    pub fn clean_cut_start(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let leftover = self.dir.join(format!("{}.new", definition::FILE));
        if std::fs::remove_file(&leftover).is_ok() {
            notes.push(format!(
                "removed {}, left by a run stopped as it started",
                leftover.display()
            ));
        }
        for sub in SUBFOLDERS {
            // Only an empty one goes: remove_dir never removes anything inside.
            let _ = std::fs::remove_dir(self.dir.join(sub));
        }
        notes
    }

    /// Lets the folder go after a refusal: a folder this run made, holding nothing but its
    /// lock, is removed.
    pub fn abandon(self) {
        if self.created && self.is_empty() {
            let _ = std::fs::remove_file(self.dir.join(LOCK));
            let _ = std::fs::remove_dir(&self.dir);
        }
    }

    /// Whether the folder holds nothing but its lock.
    pub fn is_empty(&self) -> bool {
        std::fs::read_dir(&self.dir)
            .map(|entries| entries.flatten().all(|e| e.file_name() == LOCK))
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forked_child_of_the_holder_does_not_keep_the_folder_held() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let out = dir.path().join("t");
        let held = hold(&out).expect("held");
        let (read, write) = nix::unistd::pipe().expect("a pipe");
        // SAFETY: the child only reads a pipe and exits, both async-signal-safe.
        let child = match unsafe { nix::unistd::fork() }.expect("forked") {
            nix::unistd::ForkResult::Child => {
                let mut byte = [0u8];
                let _ = nix::unistd::read(&read, &mut byte);
                // SAFETY: ends the child without running the parent's destructors.
                unsafe { libc::_exit(0) }
            }
            nix::unistd::ForkResult::Parent { child } => child,
        };
        drop(held);
        // As a run killed while its bot's helpers linger: the folder is free at once.
        let again = hold(&out);
        let _ = nix::unistd::write(&write, b"x");
        nix::sys::wait::waitpid(child, None).expect("the child ends");
        assert!(again.is_ok(), "{again:?}");
    }
}
