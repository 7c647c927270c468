//! What allfives writes, recognised wherever it lies, so that no bot reads it: the folders and
//! files of earlier runs (an ordinary user's bots run as that user, so a folder's mode does not
//! keep them out), and this run's files beside a bot's own.
//!
//! Every run records its log or tournament folder (or its `--log` file) in a registry under the
//! user's state folder (`$XDG_STATE_HOME/allfives/runs`, else `~/.local/state/allfives/runs`),
//! one path a line; a later run hides those that still exist, and the registry itself. Output
//! older than the registry, or written elsewhere, is recognised by its marks: a game log's
//! header, a stderr file, a folder holding a tournament's definition or game logs.

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// At this many lines (and at each power of two past it) the registry is rewritten without the
/// paths that are gone.
const PRUNE_AT: usize = 2000;
/// How many entries of a folder are looked at for marks (a bot's `node_modules` is not walked).
const MARK_SCAN: usize = 64;

/// The registry's folder: private to the user, hidden from every bot.
pub fn state_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let home = || std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state"));
    xdg.or_else(home).map(|s| s.join("allfives"))
}

/// Records `path` (a run's log or tournament folder, or its log file) for later runs to hide.
/// Best effort: a run whose registry cannot be written still hides its own output.
pub fn register(path: &Path) {
    let Some(dir) = state_dir() else { return };
    let path = super::grants::absolute(path);
    if path.as_os_str().as_bytes().contains(&b'\n') {
        return;
    }
    // The folders above it as any program makes them (a `~/.local` made private would keep a
    // root referee's bots from their user installs there); only its own is private.
    if let Some(parent) = dir.parent() {
        let _ = fs::create_dir_all(parent);
    }
    let _ = fs::DirBuilder::new().mode(0o700).create(&dir);
    let Ok(mut file) = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(dir.join("runs"))
    else {
        return;
    };
    // SAFETY: flock on a descriptor this function owns; released when it is closed.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    // Pruned when the count reaches PRUNE_AT, then each time it doubles: a run asks whether
    // every earlier run still exists once in a long while, not every time.
    let count = text.lines().count();
    if count >= PRUNE_AT && (count == PRUNE_AT || count.is_power_of_two()) {
        let kept: String = text
            .lines()
            .filter(|l| Path::new(l).exists())
            .map(|l| format!("{l}\n"))
            .collect();
        let _ = file.set_len(0);
        let _ = file.write_all(kept.as_bytes());
    }
    let mut line = path.into_os_string().into_vec();
    line.push(b'\n');
    let _ = file.write_all(&line);
}

/// What earlier runs recorded (whether it still exists is not looked at: most of it lies
/// where no bot sees, and is left alone), and the registry's folder. Read once per bot and
/// run, never at a start ([`super::Policy::grants`]).
pub fn earlier() -> Vec<PathBuf> {
    let Some(dir) = state_dir() else {
        return Vec::new();
    };
    let text = fs::read(dir.join("runs")).unwrap_or_default();
    text.split(|&b| b == b'\n')
        .filter(|l| l.first() == Some(&b'/'))
        .map(|l| PathBuf::from(std::ffi::OsStr::from_bytes(l)))
        .chain(std::iter::once(dir))
        .collect()
}

/// The entries beside `folder` (in its parent) that are allfives output: the run folders of
/// earlier runs made next to this one (`runs/1` beside `runs/2`).
pub fn beside(folder: &Path) -> Vec<PathBuf> {
    let folder = super::grants::absolute(folder);
    let Some(parent) = folder.parent() else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(parent) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| *p != folder && is_output(p))
        .collect()
}

/// `hidden` with every folder whose entries are all hidden put in their place (`runs/1` ...
/// `runs/500` become `runs`): each hidden path costs every bot's start a mount and a walk, and
/// later runs' folders there are hidden too. A shared folder (the home folder, /tmp) is never
/// put in place of its entries.
pub fn compact(hidden: Vec<PathBuf>) -> Vec<PathBuf> {
    let set: BTreeSet<PathBuf> = hidden.iter().map(|h| super::grants::absolute(h)).collect();
    let parents: BTreeSet<PathBuf> = set
        .iter()
        .filter_map(|h| h.parent().map(Path::to_path_buf))
        .collect();
    let whole = parents
        .into_iter()
        .filter(|p| !super::grants::shared(p))
        .filter(|parent| {
            fs::read_dir(parent).is_ok_and(|entries| {
                let entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                entries.len() > 1 && entries.iter().all(|e| set.contains(e))
            })
        });
    let mut all: Vec<PathBuf> = whole.chain(set.iter().cloned()).collect();
    // What lies inside another hidden folder needs no hiding of its own. Sorted, in one pass:
    // a bot's folder may hold thousands of earlier runs.
    super::view::outermost(&mut all);
    all
}

/// Whether `path` is allfives output by its marks: a stderr file (`NAME.stderr`) and its saved
/// `/tmp` (`NAME.tmp`), a game log (its first line an allfives header), a folder holding a
/// tournament's definition or results, or game logs and stderr files.
pub fn is_output(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy()) else {
        return false;
    };
    let Ok(meta) = fs::symlink_metadata(path) else {
        return false;
    };
    if meta.is_file() {
        // A game log may be empty yet (its header not written): named as the referee names it.
        return name.ends_with(".stderr")
            || (name.ends_with(".jsonl") && (name.starts_with("game-") || is_log(path)));
    }
    if !meta.is_dir() {
        return false;
    }
    let saved_tmp = name
        .strip_suffix(".tmp")
        .is_some_and(|stem| path.with_file_name(format!("{stem}.stderr")).exists());
    if saved_tmp {
        return true;
    }
    if ["tournament.json", "results.jsonl"]
        .iter()
        .any(|f| path.join(f).is_file())
    {
        return true;
    }
    let Ok(entries) = fs::read_dir(path) else {
        return false;
    };
    entries.flatten().take(MARK_SCAN).any(|e| {
        let n = e.file_name();
        let n = n.to_string_lossy();
        n.ends_with(".stderr") || (n.starts_with("game-") && n.ends_with(".jsonl"))
    })
}

/// Whether the file starts as an allfives game log does.
fn is_log(path: &Path) -> bool {
    let mut head = [0u8; 96];
    let Ok(n) = fs::File::open(path).and_then(|mut f| f.read(&mut head)) else {
        return false;
    };
    let head = &head[..n];
    head.starts_with(br#"{"type":"header""#)
        && head.windows(19).any(|w| w == br#""referee":"allfives"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_told_from_a_bots_files_by_its_marks() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let at = |n: &str| dir.path().join(n);
        fs::write(at("bot.py"), "print('hi')\n").expect("written");
        fs::write(at("data.jsonl"), "{\"type\":\"header\"}\n").expect("written");
        fs::write(
            at("g.jsonl"),
            "{\"type\":\"header\",\"format\":2,\"referee\":\"allfives 0.1.0\"}\n",
        )
        .expect("written");
        fs::write(at("me.stderr"), "").expect("written");
        fs::create_dir(at("me.tmp")).expect("a folder");
        fs::create_dir_all(at("run/x")).expect("a folder");
        fs::write(at("run/game-1.jsonl"), "").expect("written");
        fs::create_dir(at("lib")).expect("a folder");
        let marked: Vec<&str> = ["bot.py", "data.jsonl", "g.jsonl", "me.stderr", "me.tmp"]
            .into_iter()
            .chain(["run", "lib"])
            .filter(|n| is_output(&at(n)))
            .collect();
        assert_eq!(marked, ["g.jsonl", "me.stderr", "me.tmp", "run"]);
    }

    #[test]
    fn a_folder_of_hidden_output_is_hidden_whole_and_nothing_twice() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let at = |n: &str| super::super::grants::absolute(&dir.path().join(n));
        for folder in ["runs/1", "runs/2", "results/1/logs", "results/2/logs"] {
            fs::create_dir_all(at(folder)).expect("a folder");
        }
        fs::write(at("results/1/notes.txt"), "the user's").expect("written");
        fs::write(at("results/2/notes.txt"), "the user's").expect("written");
        let hidden = ["runs/1", "runs/2", "results/1/logs", "results/2/logs"]
            .into_iter()
            .chain(["results/2/logs/game-1.jsonl", "runs/2/x"])
            .map(at)
            .collect();
        // `runs` holds only hidden output: one folder; each `results/N` also holds a file of
        // the user's, so its logs stay apart; what lies in a hidden folder goes.
        let kept = compact(hidden);
        let expected: Vec<PathBuf> = ["results/1/logs", "results/2/logs", "runs"]
            .into_iter()
            .map(at)
            .collect();
        assert_eq!(kept, expected);
    }
}
