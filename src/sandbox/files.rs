//! Opening the referee's files where a bot might have planted something: never through a
//! symbolic link, never over an existing file. The log folder is made private to the user.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

/// Creates `path` for writing; fails if anything (a file, a symbolic link) is already there.
pub fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => io::Error::new(
                e.kind(),
                format!(
                    "{} already exists (logs are never overwritten: choose another place)",
                    path.display()
                ),
            ),
            _ => io::Error::new(e.kind(), format!("cannot create {}: {e}", path.display())),
        })
}

/// Opens an existing `path` to append to it, unless it is a symbolic link.
pub fn append_existing(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Opens `path` to append to it, creating it if absent; never through a symbolic link.
pub fn append_or_create(path: &Path) -> io::Result<File> {
    match append_existing(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => create_new(path),
        opened => opened,
    }
}

/// Writes `path` whole or leaves it as it was: `fill` writes a new file at `temporary` (a
/// leftover there, of a run killed while writing or a planted link, is removed first: removing
/// follows nothing), which is synced and renamed over `path` (a link there is replaced, never
/// followed).
pub fn replace(
    path: &Path,
    temporary: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let _ = std::fs::remove_file(temporary);
    let mut file = create_new(temporary)?;
    let replaced = fill(&mut file)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(temporary, path));
    // A write that failed (a full disk) leaves no half file behind.
    if replaced.is_err() {
        let _ = std::fs::remove_file(temporary);
    }
    replaced
}

/// Creates folder `dir` (and its parents), the last one readable by the user only.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_link_is_never_written_through() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let target = dir.path().join("target");
        std::fs::write(&target, b"precious").expect("a target");
        let link = dir.path().join("game-1.jsonl");
        std::os::unix::fs::symlink(&target, &link).expect("a link");
        assert!(create_new(&link).is_err());
        assert!(append_existing(&link).is_err());
        assert_eq!(std::fs::read(&target).expect("the target"), b"precious");
    }
}
