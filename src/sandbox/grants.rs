//! Which files a bot may read: the system's programs and libraries, its own program (with the
//! installation it belongs to, such as an interpreter under the user's home), the interpreter
//! its script names, and the files and folders its command line names. Nothing else: not the
//! referee's working directory, not the logs, not the other bots.

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Read-only system hierarchies every program may need (those that exist are granted).
const SYSTEM: [&str; 9] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];
/// Kernel views programs read to learn about the machine (JVMs, Node.js).
const MACHINE: [&str; 1] = ["/sys"];
/// Devices a program may read.
pub(super) const READ_DEVICES: [&str; 4] =
    ["/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"];
/// Devices a program may write.
pub(super) const WRITE_DEVICES: [&str; 1] = ["/dev/null"];
/// Folders holding executables: their parent is the installation (`~/.pyenv/shims/python3`
/// needs all of `~/.pyenv`).
const BIN_DIRS: [&str; 3] = ["bin", "sbin", "shims"];

/// What a bot may read, and what it could not be given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// Files and folders the bot may read and execute.
    pub read: BTreeSet<PathBuf>,
    /// Why something the bot may need was held back (one sentence each).
    pub notes: Vec<String>,
    /// Whether the bot's own files live under /tmp (then /tmp cannot be replaced by a private
    /// one without hiding them).
    pub lives_in_tmp: bool,
}

/// The grants for `argv`, never reaching into any of `hidden` (folders the bots must not read).
pub fn grants(argv: &[String], hidden: &[PathBuf]) -> Grants {
    let mut g = Grants::default();
    let hidden: Vec<PathBuf> = hidden.iter().map(|h| absolute(h)).collect();
    for dir in SYSTEM.iter().chain(MACHINE.iter()) {
        g.add(Path::new(dir), None, &hidden);
    }
    let Some((program, args)) = argv.split_first() else {
        return g;
    };
    if let Some(path) = resolve(program) {
        g.add_program(&path, &hidden);
        if let Some(interpreter) = shebang(&path) {
            g.add_program(&interpreter, &hidden);
        }
    }
    let words: BTreeSet<&str> = args.iter().flat_map(|a| path_words(a)).collect();
    for word in words {
        let path = Path::new(word);
        match fs::metadata(path) {
            Ok(m) if m.is_dir() => g.add(path, None, &hidden),
            Ok(_) => g.add(folder_of(path), Some(path), &hidden),
            Err(_) => {}
        }
    }
    g.lives_in_tmp = g.read.iter().any(|p| p.starts_with("/tmp"));
    if g.lives_in_tmp {
        g.notes.push(
            "its files live under /tmp, so it gets no private /tmp (that would hide them) and \
             may not use /tmp"
                .to_string(),
        );
    }
    g
}

impl Grants {
    /// A program and the installation it belongs to, both as named and as its real path.
    fn add_program(&mut self, path: &Path, hidden: &[PathBuf]) {
        for p in [
            path.to_path_buf(),
            fs::canonicalize(path).unwrap_or_default(),
        ] {
            if p.as_os_str().is_empty() {
                continue;
            }
            let dir = folder_of(&p);
            let named_bin = dir
                .file_name()
                .is_some_and(|n| BIN_DIRS.contains(&n.to_string_lossy().as_ref()));
            let root = match (named_bin, dir.parent()) {
                (true, Some(up)) => up,
                _ => dir,
            };
            self.add(root, Some(&p), hidden);
        }
    }

    /// Grants `dir`, unless it holds a hidden folder: then only `file` (if any) is granted.
    fn add(&mut self, dir: &Path, file: Option<&Path>, hidden: &[PathBuf]) {
        let dir = absolute(dir);
        if !dir.exists() || self.read.iter().any(|r| dir.starts_with(r)) {
            return;
        }
        if let Some(h) = hidden.iter().find(|h| h.starts_with(&dir)) {
            let note = format!(
                "{} holds the logs ({}), so the bot is given only the files its command names \
                 there, not the folder",
                dir.display(),
                h.display(),
            );
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
            if let Some(f) = file {
                self.read.insert(absolute(f));
            }
            return;
        }
        self.read.retain(|r| !r.starts_with(&dir));
        self.read.insert(dir);
    }
}

/// The folder holding `path` (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The program as the shell would find it.
fn resolve(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// The interpreter a script's `#!` line names (`#!/usr/bin/env python3` names python3).
fn shebang(path: &Path) -> Option<PathBuf> {
    let mut head = [0u8; 256];
    let n = fs::File::open(path).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = String::from_utf8_lossy(line.split(|&b| b == b'\n').next()?).into_owned();
    let mut words = line.split_whitespace();
    let interpreter = words.next()?;
    if Path::new(interpreter)
        .file_name()
        .is_some_and(|n| n == "env")
    {
        let program = words.find(|w| !w.starts_with('-'))?;
        return resolve(program);
    }
    Some(PathBuf::from(interpreter))
}

/// The words of an argument that may be paths: itself, its value after `=`, and the parts of a
/// `:`-separated list (a Java class path).
fn path_words(arg: &str) -> impl Iterator<Item = &str> {
    let value = arg.split_once('=').map_or(arg, |(_, v)| v);
    std::iter::once(arg)
        .chain(value.split(':'))
        .filter(|w| !w.is_empty())
}

/// `path` made absolute against the working directory, with `.` and `..` resolved where the
/// folders exist.
fn absolute(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_and_its_interpreter_are_granted_but_not_the_logs() {
        let here = std::env::current_dir().expect("a working directory");
        let script = here.join("tests/fixtures/bots/botlib.py");
        let argv = vec!["sh".to_string(), script.display().to_string()];
        let g = grants(&argv, &[here.join("allfives-logs")]);
        assert!(g.read.contains(&here.join("tests/fixtures/bots")), "{g:?}");
        assert!(g.read.contains(Path::new("/usr")), "{g:?}");
        assert!(
            !g.read
                .iter()
                .any(|p| here.starts_with(p) && p != Path::new("/")),
            "{g:?}"
        );
    }

    #[test]
    fn a_folder_holding_the_logs_gives_only_the_file() {
        let here = std::env::current_dir().expect("a working directory");
        let argv = vec!["sh".to_string(), "Cargo.toml".to_string()];
        let g = grants(&argv, &[here.join("allfives-logs")]);
        assert!(g.read.contains(&here.join("Cargo.toml")), "{g:?}");
        assert!(!g.read.contains(&here), "{g:?}");
        // Wherever the checkout lies (under /tmp a second note says so), the logs' note is there.
        let logs_noted = g.notes.iter().any(|n| n.contains("holds the logs"));
        assert!(logs_noted, "{g:?}");
    }
}
