//! What exists for a contained bot: an allow-list. Its root is a fresh, empty file system
//! holding read-only binds of the system's folders and of what the bot needs (its folders, its
//! program's and interpreter's installations, the user's installs of interpreters, `PATH`'s
//! installations, what it is granted), its private `/tmp` and `/dev/shm`, and a fresh `/proc`.
//! Nothing else is there: earlier runs, other bots' folders and other users' files do not exist
//! for it, so no list of them is read at its start. What must be hidden inside what it sees
//! (this run's logs in its own folder, another bot's folder inside its working directory) is
//! all that is left to hide ([`super::mounts`], [`super::landlock`]).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The system's folders every bot sees: bound read-only where they are folders, made again
/// where they are links (`/bin -> usr/bin`). `/var` (other users' files, `/var/tmp`) and
/// `/run` (the host's sockets) are not among them, nor `/home`, `/root`, `/srv`, `/mnt`.
const SYSTEM: [&str; 14] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/snap",
    "/nix", "/gnu", "/sys", "/dev",
];

/// One of the system's folders as it is on this machine.
#[derive(Debug)]
pub(super) enum System {
    /// A folder, bound read-only.
    Folder(PathBuf),
    /// A link (its path, and where it points, as written), made again in the bot's root.
    Link(PathBuf, PathBuf),
}

/// The system's folders that exist here, looked at once.
pub(super) fn system() -> &'static [System] {
    static SYSTEM_HERE: OnceLock<Vec<System>> = OnceLock::new();
    SYSTEM_HERE.get_or_init(|| {
        SYSTEM
            .iter()
            .map(Path::new)
            .filter_map(|p| {
                let meta = std::fs::symlink_metadata(p).ok()?;
                match meta.file_type().is_symlink() {
                    true => Some(System::Link(p.to_path_buf(), std::fs::read_link(p).ok()?)),
                    false if meta.is_dir() => Some(System::Folder(p.to_path_buf())),
                    false => None,
                }
            })
            .collect()
    })
}

/// The system's folders bound here (links excluded: what they point to is bound).
pub(super) fn system_folders() -> impl Iterator<Item = &'static Path> {
    system().iter().filter_map(|s| match s {
        System::Folder(p) => Some(p.as_path()),
        System::Link(..) => None,
    })
}

/// The outermost folders and files a bot sees of the host (its private `/tmp` and `/dev/shm`
/// aside: what they hold of the host's is among them): the system's (devices aside), and `own`
/// (its own, its installs, what it is granted).
pub(super) fn roots<'a>(own: impl Iterator<Item = &'a PathBuf>) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = system_folders()
        .filter(|p| *p != Path::new("/dev"))
        .map(Path::to_path_buf)
        .chain(own.cloned())
        .filter(|p| p != Path::new("/tmp"))
        .collect();
    outermost(&mut all);
    all
}

/// Keeps the paths of `all` that lie in no other, sorted.
pub(super) fn outermost(all: &mut Vec<PathBuf>) {
    all.sort();
    all.dedup();
    let mut kept: Vec<PathBuf> = Vec::with_capacity(all.len());
    for p in all.drain(..) {
        // Sorted: a folder comes right before what lies in it.
        if !kept.last().is_some_and(|k| p.starts_with(k)) {
            kept.push(p);
        }
    }
    *all = kept;
}

/// Whether `path` lies in (or is) one of `roots` (sorted, outermost).
pub(super) fn sees(roots: &[PathBuf], path: &Path) -> bool {
    // The root that could hold `path` sorts at or before it.
    let at = roots.partition_point(|r| r.as_path() <= path);
    at > 0 && path.starts_with(&roots[at - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_outermost_folders_are_kept_and_looked_up() {
        let mut all: Vec<PathBuf> = ["/w/a/b", "/usr", "/w/a", "/w/ab", "/usr/lib", "/x"]
            .map(PathBuf::from)
            .to_vec();
        outermost(&mut all);
        assert_eq!(all, ["/usr", "/w/a", "/w/ab", "/x"].map(PathBuf::from));
        assert!(sees(&all, Path::new("/w/a/c/d")) && sees(&all, Path::new("/w/ab")));
        assert!(!sees(&all, Path::new("/w")) && !sees(&all, Path::new("/w/b")));
        assert!(!sees(&all, Path::new("/a")) && !sees(&all, Path::new("/y")));
    }
}
