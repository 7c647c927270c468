//! What a bot needs to read, as an honest program would: its working directory, its program
//! and the installation it belongs to, the interpreter its script names, the files and folders
//! its command line names, the user's installs of interpreters (version managers, `pip install
//! --user`, virtual environments), and what the user grants (`--bot-read`). Everything else on
//! the machine stays readable as for any program of the user's, except what is hidden: the logs,
//! the results, and the other bots' own folders ([`hide`]). A system or shared
//! installation (the system's folders, `PATH`'s, a version manager's, a virtual environment) is
//! never a bot's own folder ([`shared`]), and a hidden folder that holds what a bot needs (a
//! log folder that is its own) is shown to it with only its own entries ([`Grants::carved`]).

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
/// Variables naming an installation of interpreters or packages: shared, never a bot's own.
const INSTALL_ROOTS: [&str; 7] = [
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "PYENV_ROOT",
    "NVM_DIR",
    "JAVA_HOME",
    "GEM_HOME",
    "GOPATH",
];
/// Variables naming where an interpreter's packages live (several paths, `:`-separated),
/// beside [`INSTALL_ROOTS`].
const PACKAGE_PATHS: [&str; 5] = [
    "PYTHONPATH",
    "NODE_PATH",
    "CLASSPATH",
    "PERL5LIB",
    "LD_LIBRARY_PATH",
];
/// The system's installations: nothing in them is a bot's own folder.
const SYSTEM: [&str; 14] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/var",
    "/snap", "/nix", "/gnu", "/dev",
];
/// Folders shared by everything below them: never a bot's own folder (their contents may be).
const COMMON: [&str; 4] = ["/", "/home", "/tmp", "/root"];

/// What one bot may touch beyond the system's folders ([`super::view`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Grants {
    /// The bot's working directory.
    pub cwd: PathBuf,
    /// Folders and files the bot needs to read (absolute, none inside another).
    pub read: BTreeSet<PathBuf>,
    /// Folders the bot may write (`--bot-write`), besides its own /tmp.
    pub write: BTreeSet<PathBuf>,
    /// Folders granted to it by the user (`--bot-read`, a bots file's `read`).
    pub granted: BTreeSet<PathBuf>,
    /// The installations every bot shares that it may run (`PATH`'s folders and their
    /// installations, those the environment names), outside what it reads: read-only, never
    /// a reason to keep root's user.
    pub installs: BTreeSet<PathBuf>,
    /// Folders and files kept out of the bot's reach inside what it sees: the logs and results,
    /// earlier runs' output, and other bots' folders (what lies outside does not exist for it).
    pub hidden: BTreeSet<PathBuf>,
    /// The hidden paths that are earlier runs' output named by the registry (a bot's folder
    /// may hold thousands): kept out by Landlock alone where the kernel has it, so that no
    /// start mounts one of them and the bot's mount table names none.
    pub earlier: BTreeSet<PathBuf>,
    /// Hidden folders that hold what the bot needs (a log folder that is its own folder): it
    /// sees in them only the entries it had before the run ([`Grants::shown`]), never the
    /// allfives files, nor what is written there later.
    pub carved: BTreeSet<PathBuf>,
    /// The entries of the carved folders the bot sees.
    pub shown: BTreeSet<PathBuf>,
}

impl Grants {
    /// Whether the bot cannot see `path` (made absolute): it is hidden, or in a carved folder
    /// but not among the entries shown there.
    pub fn hides(&self, path: &Path) -> bool {
        let path = absolute(path);
        let carved_away = self
            .carved
            .iter()
            .any(|c| path.starts_with(c) && path != *c)
            && !self.shown.iter().any(|s| path.starts_with(s));
        carved_away || self.hidden.iter().any(|h| path.starts_with(h))
    }

    /// The outermost folders and files of the host the bot sees ([`super::view::roots`]).
    pub(super) fn roots(&self) -> Vec<PathBuf> {
        super::view::roots(self.read.iter().chain(&self.installs).chain(&self.write))
    }

    /// Why a contained start failed, naming what the bot could not see of what it starts
    /// from (`argv`, in `dir`) and the option that grants it; `None` if all of it is there.
    pub fn why_not_started(&self, argv: &[String], dir: &Path) -> Option<String> {
        let program = argv.first()?;
        let named = match program.contains('/') {
            true => Some(dir.join(program)),
            false => resolve(program),
        };
        let interpreter = named.as_deref().and_then(shebang);
        let hidden = [Some(dir.to_path_buf()), named, interpreter]
            .into_iter()
            .flatten()
            .find(|p| self.hides(p))?;
        Some(format!(
            "contained, the bot cannot see {}, which it starts from (it is hidden as a log \
             folder or another bot's folder): --bot-read {} grants it, --no-sandbox turns the \
             containment off (docs/fair-play.md)",
            hidden.display(),
            hidden.display()
        ))
    }
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

/// The grants for a bot that wants `wants`, with `hidden` (the logs, and `earlier`: the
/// earlier runs' output the registry names) and `others` (the folders of every bot in the
/// match, its own included) out of its reach unless it needs them.
pub fn grants(
    wants: &Wants,
    hidden: &[PathBuf],
    earlier: &[PathBuf],
    others: &[PathBuf],
) -> Grants {
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
    g.installs = shared_roots()
        .1
        .iter()
        .filter(|p| !g.read.iter().any(|r| p.starts_with(r)) && p.exists())
        .cloned()
        .collect();
    let mut needs = homes(wants.argv, Some(wants.dir));
    needs.extend(g.read.iter().chain(&g.write).chain(&g.granted).cloned());
    needs.push(g.cwd.clone());
    needs.extend(starts(wants.argv));
    // Only what lies inside what the bot sees needs hiding: the rest does not exist for it.
    let roots = g.roots();
    let inside = |paths: &[PathBuf]| -> Vec<PathBuf> {
        paths
            .iter()
            .filter(|p| !p.is_absolute() || super::view::sees(&roots, p))
            .map(|p| absolute(p))
            .filter(|p| super::view::sees(&roots, p))
            .collect()
    };
    let this_run: BTreeSet<PathBuf> = inside(hidden).into_iter().collect();
    // The registry names this run's folder too: that one is this run's, not an earlier run's.
    let earlier: BTreeSet<PathBuf> = inside(earlier)
        .into_iter()
        .filter(|e| !this_run.contains(e))
        .collect();
    let all_hidden: Vec<PathBuf> = this_run.iter().chain(&earlier).cloned().collect();
    hide(&mut g, &needs, &all_hidden, &inside(others));
    g.hidden = super::outputs::compact(g.hidden.into_iter().collect())
        .into_iter()
        .collect();
    // Only those still hidden as they are: one put in its folder's place by `compact` (that
    // folder holds only hidden output) is one mount whatever it holds.
    g.earlier = g.hidden.intersection(&earlier).cloned().collect();
    g
}

/// The files a bot's start runs: its program and the interpreter its `#!` line names, as named
/// and as their real paths. Hiding must never take them away.
fn starts(argv: &[String]) -> Vec<PathBuf> {
    let Some(program) = argv.first().and_then(|p| resolve(p)) else {
        return Vec::new();
    };
    let interpreter = shebang(&program);
    [Some(program), interpreter]
        .into_iter()
        .flatten()
        .flat_map(|p| [absolute(&p), std::path::absolute(&p).unwrap_or_default()])
        .filter(|p| !p.as_os_str().is_empty())
        .collect()
}

/// The folders that hold a bot's own files: its working directory when given one (a bots
/// file's `dir`), and the folders of the files its command names. Another bot never reads them.
pub fn homes(argv: &[String], dir: Option<&Path>) -> Vec<PathBuf> {
    let mut homes: Vec<PathBuf> = dir.map(absolute).into_iter().collect();
    homes.extend(named(argv).into_iter().map(|p| match p.is_dir() {
        true => absolute(&p),
        false => absolute(folder_of(&p)),
    }));
    homes.retain(|h| !shared(h));
    homes
}

/// Whether `path` is a system or shared installation (or the folder everyone's files are in):
/// the system's folders, a folder of `PATH` and its installation, a version manager's or
/// interpreter's installation, a virtual environment, the home folder itself.
pub fn shared(path: &Path) -> bool {
    let path = absolute(path);
    let (home, installs) = shared_roots();
    if COMMON.iter().any(|c| path == Path::new(c))
        || home.as_deref() == Some(path.as_path())
        || SYSTEM.iter().any(|s| path.starts_with(s))
        || installs.iter().any(|r| path.starts_with(r))
    {
        return true;
    }
    let environment = |dir: &Path| {
        Some(dir) != home.as_deref()
            && (dir.join("pyvenv.cfg").is_file() || dir.join("conda-meta").is_dir())
    };
    path.ancestors().any(environment) || interpreter_bin(&path)
}

/// The home folder, and the installations every bot shares: `PATH`'s folders and their
/// installations, version managers' folders, the installations the environment names. Made
/// once (the environment does not change during a run; each is resolved on the disk).
fn shared_roots() -> &'static (Option<PathBuf>, Vec<PathBuf>) {
    static ROOTS: std::sync::OnceLock<(Option<PathBuf>, Vec<PathBuf>)> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let home = std::env::var_os("HOME").map(|h| absolute(Path::new(&h)));
        let on_path = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter(|p| p.is_absolute())
            .flat_map(|dir| {
                let root = installation(&dir.join("_")).into_iter();
                std::iter::once(dir).chain(root)
            });
        let roots = INSTALL_ROOTS
            .iter()
            .filter_map(std::env::var_os)
            .map(PathBuf::from)
            .chain(
                home.iter()
                    .flat_map(|h| USER_INSTALLS.iter().map(move |d| h.join(d))),
            );
        let mut installs: Vec<PathBuf> = on_path
            .chain(roots)
            .map(|r| absolute(&r))
            // A `bin` in the home folder is on PATH; the home folder is not an installation.
            .filter(|r| Some(r) != home.as_ref() && r != Path::new("/"))
            .collect();
        installs.sort();
        installs.dedup();
        (home, installs)
    })
}

/// Whether `dir` is the `bin` of an interpreter's prefix: its parent also holds a `lib` (a
/// JDK, a Node.js or Python built in a folder of its own).
fn interpreter_bin(dir: &Path) -> bool {
    let named_bin = dir
        .file_name()
        .is_some_and(|n| BIN_DIRS.contains(&n.to_string_lossy().as_ref()));
    named_bin && dir.parent().is_some_and(|up| up.join("lib").is_dir())
}

/// What a bot must not read: every hidden folder, and every other bot's folder unless it holds
/// something this bot needs (`needs`: two bots started from one folder both read it). Another
/// bot's folder inside this bot's working directory is hidden there. A hidden folder that holds
/// something the bot needs (the logs in its own folder) is carved: the bot sees the entries it
/// had there, not the allfives files.
fn hide(g: &mut Grants, needs: &[PathBuf], hidden: &[PathBuf], others: &[PathBuf]) {
    let holds = |h: &Path| needs.iter().any(|n| n.starts_with(h));
    let mut whole: BTreeSet<PathBuf> = BTreeSet::new();
    let mut carved: BTreeSet<PathBuf> = BTreeSet::new();
    for h in hidden.iter().map(|h| absolute(h)) {
        match holds(&h) {
            true if h.is_dir() => carved.insert(h),
            true => false,
            false => whole.insert(h),
        };
    }
    whole.extend(
        others
            .iter()
            .map(|o| absolute(o))
            .filter(|o| !holds(o) && o.exists()),
    );
    // A carved folder's entry that holds what the bot needs and is marked as output (its own
    // folder, where earlier runs wrote their logs) is carved in turn.
    let mut todo: Vec<PathBuf> = carved.iter().cloned().collect();
    while let Some(folder) = todo.pop() {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if whole.iter().any(|h| path.starts_with(h)) || carved.contains(&path) {
                continue;
            }
            let output = super::outputs::is_output(&path);
            match (output, holds(&path)) {
                (true, true) if path.is_dir() => {
                    carved.insert(path.clone());
                    todo.push(path);
                }
                (true, false) => {
                    g.hidden.insert(path);
                }
                // A dangling link shows nothing, and could not be bound.
                _ if path.exists() => {
                    g.shown.insert(path);
                }
                _ => {}
            }
        }
    }
    g.hidden.extend(whole);
    g.carved = carved;
}

/// Adds `path` (made absolute) unless a folder already granted holds it; drops what it holds.
fn add(read: &mut BTreeSet<PathBuf>, path: &Path) {
    let path = absolute(path);
    // The private /tmp is not the host's: what a bot needs under it is bound in one by one, so
    // a working directory of /tmp holds none of it.
    let tmp = Path::new("/tmp");
    let everything = path == Path::new("/");
    if everything || !path.exists() || read.iter().any(|r| r != tmp && path.starts_with(r)) {
        return;
    }
    if path != tmp {
        read.retain(|r| !r.starts_with(&path));
    }
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
    [path.to_path_buf(), canonical(path).unwrap_or_default()]
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
    let named = INSTALL_ROOTS
        .iter()
        .chain(&PACKAGE_PATHS)
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
pub fn resolve(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// The interpreter a script's `#!` line names (`#!/usr/bin/env python3` names python3).
pub fn shebang(path: &Path) -> Option<PathBuf> {
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

thread_local! {
    /// The real paths found while [`remembering`] on this thread.
    static REAL: std::cell::RefCell<Option<std::collections::HashMap<PathBuf, Option<PathBuf>>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `work` with each path's real path looked up on the disk once: working out what a bot
/// sees resolves the same folders again and again (`HOME`, its folder, `PATH`'s), each a
/// `readlink` a component. The disk is taken not to change meanwhile.
pub(super) fn remembering<T>(work: impl FnOnce() -> T) -> T {
    REAL.with(|r| *r.borrow_mut() = Some(Default::default()));
    let done = work();
    REAL.with(|r| *r.borrow_mut() = None);
    done
}

/// `fs::canonicalize`, remembered while [`remembering`].
fn canonical(path: &Path) -> Option<PathBuf> {
    let known = REAL.with(|r| r.borrow().as_ref().map(|m| m.get(path).cloned()));
    match known {
        Some(Some(real)) => real,
        Some(None) => {
            let real = real_by_parent(path).unwrap_or_else(|| fs::canonicalize(path).ok());
            REAL.with(|r| {
                if let Some(m) = r.borrow_mut().as_mut() {
                    m.insert(path.to_path_buf(), real.clone());
                }
            });
            real
        }
        None => fs::canonicalize(path).ok(),
    }
}

/// The real path of an absolute `path` from its folder's (remembered): one look at its last
/// name instead of a `readlink` for each of its names, for thousands of earlier runs in one
/// folder. `None` where that cannot say (a link, `.` or `..`, a relative path).
fn real_by_parent(path: &Path) -> Option<Option<PathBuf>> {
    let name = match path.components().next_back()? {
        std::path::Component::Normal(name) => name,
        _ => return None,
    };
    let parent = path.parent().filter(|_| path.is_absolute())?;
    let Some(real) = canonical(parent) else {
        return Some(None);
    };
    let real = real.join(name);
    match fs::symlink_metadata(&real) {
        Ok(meta) if meta.file_type().is_symlink() => None,
        Ok(_) => Some(Some(real)),
        Err(_) => Some(None),
    }
}

/// `path` made absolute against the working directory, with links, `.` and `..` resolved where
/// the folders exist.
pub fn absolute(path: &Path) -> PathBuf {
    if let Some(real) = canonical(path) {
        return real;
    }
    // Not there yet (a log folder made later): its nearest folder that is, resolved, and the
    // rest as written (`bots/../now` is `now`, not a folder inside `bots`).
    let written = std::path::absolute(path).unwrap_or_default();
    let mut rest = Vec::new();
    let mut at = written.as_path();
    while let (Some(up), Some(name)) = (at.parent(), at.file_name()) {
        rest.push(name);
        at = up;
        if let Some(real) = canonical(at) {
            return rest.iter().rev().fold(real, |p, name| p.join(name));
        }
    }
    written
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
        let g = grants(
            &wants(&argv, &here),
            &[here.join("allfives-logs")],
            &[],
            &[],
        );
        assert!(g.read.contains(&absolute(&here)), "{g:?}");
        assert!(g.hidden.contains(&here.join("allfives-logs")), "{g:?}");
    }

    #[test]
    fn an_interpreter_named_by_its_path_is_no_bots_own_folder() {
        let here = absolute(&std::env::current_dir().expect("a working directory"));
        let script = here
            .join("tests/fixtures/bots/botlib.py")
            .display()
            .to_string();
        for interpreter in ["/usr/bin/python3", "/usr/bin/env", "/bin/sh"] {
            let argv = vec![interpreter.to_string(), script.clone()];
            let homes = homes(&argv, None);
            assert_eq!(homes, [here.join("tests/fixtures/bots")], "{interpreter}");
        }
        assert!(shared(Path::new("/tmp")) && shared(Path::new("/opt/anything")));
        assert!(!shared(&here.join("tests/fixtures/bots")));
    }

    #[test]
    fn a_log_folder_that_is_the_bots_own_is_carved() {
        let dir = tempfile::tempdir().expect("a folder");
        let own = absolute(dir.path());
        fs::write(own.join("bot.py"), "").expect("written");
        fs::write(own.join("game-1.jsonl"), "").expect("written");
        fs::write(own.join("me.stderr"), "").expect("written");
        let argv = vec!["sh".to_string(), own.join("bot.py").display().to_string()];
        let g = grants(&wants(&argv, &own), std::slice::from_ref(&own), &[], &[]);
        assert!(
            g.carved.contains(&own) && g.shown.contains(&own.join("bot.py")),
            "{g:?}"
        );
        assert!(g.hides(&own.join("game-1.jsonl")) && g.hides(&own.join("me.stderr")));
        assert!(g.hides(&own.join("game-2.jsonl")), "written later: {g:?}");
        assert!(!g.hides(&own.join("bot.py")));
    }

    #[test]
    fn another_bots_folder_is_not_seen_or_hidden_unless_shared() {
        let here = absolute(&std::env::current_dir().expect("a working directory"));
        let mine = here.join("tests/fixtures/bots");
        let theirs = here.join("sample_bots/python");
        let argv = vec![
            "sh".to_string(),
            mine.join("botlib.py").display().to_string(),
        ];
        let g = grants(
            &wants(&argv, &mine),
            &[],
            &[],
            &[mine.clone(), theirs.clone()],
        );
        // Outside what the bot sees, the other bot's folder needs no hiding: it is not there.
        assert!(!super::super::view::sees(&g.roots(), &theirs), "{g:?}");
        assert!(g.hidden.is_empty(), "{g:?}");
        // Started from the checkout, the other bot's folder inside it is still hidden.
        let g = grants(
            &wants(&argv, &here),
            &[],
            &[],
            &[mine.clone(), theirs.clone()],
        );
        assert!(
            g.hidden.contains(&theirs) && !g.hidden.contains(&mine),
            "{g:?}"
        );
    }
}
