//! What a bot needs to read, as an honest program would: its working directory, its program
//! and the installation it belongs to, the interpreter its script names, the files and folders
//! its command line names, the user's installs of interpreters (version managers, `pip install
//! --user`, virtual environments), and what the user grants (`--bot-read`). Everything else on
//! the machine stays readable as for any program of the user's, except what is hidden: the logs,
//! the results, and the other bots' own folders ([`hidden_for`]).

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Folders holding executables: their parent is the installation (`~/.pyenv/shims/python3`
/// needs all of `~/.pyenv`).
const BIN_DIRS: [&str; 3] = ["bin", "sbin", "shims"];
/// The folders under the home folder where users install interpreters and packages.
const USER_INSTALLS: [&str; 12] = [
    ".local", ".pyenv", ".nvm", ".rbenv", ".asdf", ".cargo", ".rustup", ".sdkman", ".m2", ".volta",
    ".deno", ".bun",
];
/// Variables naming where an interpreter's packages live (several paths, `:`-separated).
const INSTALL_VARS: [&str; 12] = [
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "PYENV_ROOT",
    "NVM_DIR",
    "JAVA_HOME",
    "GEM_HOME",
    "GOPATH",
    "PYTHONPATH",
    "NODE_PATH",
    "CLASSPATH",
    "PERL5LIB",
    "LD_LIBRARY_PATH",
];
/// Folders never hidden from a bot, even when another bot's command names a file there.
const SYSTEM: [&str; 10] = [
    "/", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt", "/var", "/home",
];

/// What one bot may touch beyond what every program of the user's reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// The bot's working directory.
    pub cwd: PathBuf,
    /// Folders and files the bot needs to read (absolute, none inside another).
    pub read: BTreeSet<PathBuf>,
    /// Folders the bot may write (`--bot-write`), besides its own /tmp.
    pub write: BTreeSet<PathBuf>,
    /// Folders granted to it by the user (`--bot-read`, a bots file's `read`).
    pub granted: BTreeSet<PathBuf>,
    /// Folders kept out of the bot's reach: the logs and results, and other bots' folders.
    pub hidden: BTreeSet<PathBuf>,
    /// What the bot was refused that it may need, one sentence each.
    pub notes: Vec<String>,
}

/// What a bot asks for: its command's words, the folder it starts in, and the extra folders
/// granted to it.
#[derive(Debug, Clone, Copy)]
pub struct Wants<'a> {
    /// The program and its arguments (files inside `dir` named by full paths).
    pub argv: &'a [String],
    /// Its working directory.
    pub dir: &'a Path,
    /// Folders it may also read (`--bot-read`, a bots file's `read`).
    pub read: &'a [PathBuf],
    /// Folders it may also write (`--bot-write`, a bots file's `write`).
    pub write: &'a [PathBuf],
}

/// The grants for a bot that wants `wants`, with `hidden` (the logs) and `others` (the folders
/// of every bot in the match, its own included) out of its reach unless it needs them.
pub fn grants(wants: &Wants, hidden: &[PathBuf], others: &[PathBuf]) -> Grants {
    let mut read = BTreeSet::new();
    add(&mut read, wants.dir);
    for path in named(wants.argv) {
        add(&mut read, &path);
    }
    if let Some(program) = wants.argv.first().and_then(|p| resolve(p)) {
        for root in installation(&program) {
            add(&mut read, &root);
        }
        if let Some(interpreter) = shebang(&program) {
            installation(&interpreter)
                .iter()
                .for_each(|r| add(&mut read, r));
        }
    }
    user_installs().iter().for_each(|p| add(&mut read, p));
    wants.read.iter().for_each(|p| add(&mut read, p));
    let write: BTreeSet<PathBuf> = wants.write.iter().map(|p| absolute(p)).collect();
    let granted: BTreeSet<PathBuf> = wants.read.iter().map(|p| absolute(p)).collect();
    let mut g = Grants {
        granted,
        cwd: absolute(wants.dir),
        read,
        write,
        ..Grants::default()
    };
    let own = homes(wants.argv, Some(wants.dir));
    g.hidden = hidden_for(&g, &own, hidden, others);
    g
}

/// The folders that hold a bot's own files: its working directory when given one (a bots
/// file's `dir`), and the folders of the files its command names. Another bot never reads them.
pub fn homes(argv: &[String], dir: Option<&Path>) -> Vec<PathBuf> {
    let mut homes: Vec<PathBuf> = dir.map(absolute).into_iter().collect();
    homes.extend(named(argv).into_iter().map(|p| match p.is_dir() {
        true => absolute(&p),
        false => absolute(folder_of(&p)),
    }));
    homes.retain(|h| !SYSTEM.iter().any(|s| h == Path::new(s)));
    homes
}

/// What a bot must not read: every hidden folder, and every other bot's folder unless it holds
/// something this bot needs or one of its own files (`own`: two bots started from one folder
/// both read it). Another bot's
/// folder inside this bot's working directory is hidden there.
fn hidden_for(
    g: &Grants,
    own: &[PathBuf],
    hidden: &[PathBuf],
    others: &[PathBuf],
) -> BTreeSet<PathBuf> {
    let needed = |h: &Path| {
        own.iter()
            .chain(&g.read)
            .chain(&g.write)
            .any(|r| r.starts_with(h))
    };
    let mut out: BTreeSet<PathBuf> = hidden.iter().map(|h| absolute(h)).collect();
    out.extend(
        others
            .iter()
            .map(|o| absolute(o))
            .filter(|o| !needed(o) && o.exists()),
    );
    out
}

/// Adds `path` (made absolute) unless a folder already granted holds it; drops what it holds.
fn add(read: &mut BTreeSet<PathBuf>, path: &Path) {
    let path = absolute(path);
    let everything = path == Path::new("/");
    if everything || !path.exists() || read.iter().any(|r| path.starts_with(r)) {
        return;
    }
    read.retain(|r| !r.starts_with(&path));
    read.insert(path);
}

/// The files and folders the command's arguments name (the program itself excluded), each a
/// folder or the folder of a file.
fn named(argv: &[String]) -> Vec<PathBuf> {
    let Some((_, args)) = argv.split_first() else {
        return Vec::new();
    };
    let words: BTreeSet<&str> = args.iter().flat_map(|a| path_words(a)).collect();
    let mut paths = Vec::new();
    for word in words {
        let path = Path::new(word);
        match fs::metadata(path) {
            Ok(m) if m.is_dir() => paths.push(path.to_path_buf()),
            Ok(_) => paths.push(folder_of(path).to_path_buf()),
            Err(_) => {}
        }
    }
    if let Some(program) = argv.first().filter(|p| p.contains('/')) {
        paths.push(folder_of(Path::new(program)).to_path_buf());
    }
    paths
}

/// A program's installation, as named and as its real path: a program in a `bin`, `sbin` or
/// `shims` folder brings that folder's parent (`~/.pyenv/shims/python3` brings `~/.pyenv`).
fn installation(path: &Path) -> Vec<PathBuf> {
    [
        path.to_path_buf(),
        fs::canonicalize(path).unwrap_or_default(),
    ]
    .into_iter()
    .filter(|p| !p.as_os_str().is_empty())
    .map(|p| {
        let dir = folder_of(&p);
        let named_bin = dir
            .file_name()
            .is_some_and(|n| BIN_DIRS.contains(&n.to_string_lossy().as_ref()));
        // `/bin/sh` belongs to no installation but the system's: its folder, not all of `/`.
        match (named_bin, dir.parent()) {
            (true, Some(up)) if up != Path::new("/") => up.to_path_buf(),
            _ => dir.to_path_buf(),
        }
    })
    .collect()
}

/// The user's installs of interpreters and packages that exist: under the home folder, and
/// those the environment names.
fn user_installs() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let under_home = home
        .iter()
        .flat_map(|h| USER_INSTALLS.iter().map(move |d| h.join(d)));
    let named = INSTALL_VARS
        .iter()
        .filter_map(std::env::var_os)
        .flat_map(|v| std::env::split_paths(&v).collect::<Vec<_>>())
        .filter(|p| p.is_absolute());
    under_home.chain(named).filter(|p| p.exists()).collect()
}

/// The folder holding `path` (`.` for a bare file name).
pub(super) fn folder_of(path: &Path) -> &Path {
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

/// The words of an argument that may be paths: itself, its value after `=`, the parts of a
/// `:`-separated list (a Java class path), and the words of a shell script (`bash -c '...'`).
fn path_words(arg: &str) -> impl Iterator<Item = &str> {
    let value = arg.split_once('=').map_or(arg, |(_, v)| v);
    std::iter::once(arg)
        .chain(value.split(|c: char| c == ':' || c.is_whitespace() || "'\";|&".contains(c)))
        .filter(|w| !w.is_empty())
}

/// `path` made absolute against the working directory, with links, `.` and `..` resolved where
/// the folders exist.
pub fn absolute(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wants<'a>(argv: &'a [String], dir: &'a Path) -> Wants<'a> {
        Wants {
            argv,
            dir,
            read: &[],
            write: &[],
        }
    }

    #[test]
    fn a_script_its_folder_and_the_working_directory_are_needed() {
        let here = std::env::current_dir().expect("a working directory");
        let script = here.join("tests/fixtures/bots/botlib.py");
        let argv = vec!["sh".to_string(), script.display().to_string()];
        let g = grants(&wants(&argv, &here), &[here.join("allfives-logs")], &[]);
        assert!(g.read.contains(&absolute(&here)), "{g:?}");
        assert!(g.hidden.contains(&here.join("allfives-logs")), "{g:?}");
    }

    #[test]
    fn another_bots_folder_is_hidden_unless_shared() {
        let here = absolute(&std::env::current_dir().expect("a working directory"));
        let mine = here.join("tests/fixtures/bots");
        let theirs = here.join("sample_bots/python");
        let argv = vec![
            "sh".to_string(),
            mine.join("botlib.py").display().to_string(),
        ];
        let g = grants(&wants(&argv, &mine), &[], &[mine.clone(), theirs.clone()]);
        assert!(g.hidden.contains(&theirs), "{g:?}");
        assert!(!g.hidden.contains(&mine), "{g:?}");
        // Started from the checkout, the other bot's folder inside it is still hidden.
        let g = grants(&wants(&argv, &here), &[], &[mine.clone(), theirs.clone()]);
        assert!(
            g.hidden.contains(&theirs) && !g.hidden.contains(&mine),
            "{g:?}"
        );
    }
}
