//! Earlier runs: a cheat told where every run's logs lie reads what it can there and looks its
//! hands up in the deals it found (the same seed deals the same hands). Contained, run by root
//! or by an ordinary user (whose bots run as that user, so a folder's mode keeps nothing out),
//! it learns nothing: the run folders beside this one and those the registry of earlier runs
//! names are hidden. Uncontained (`--no-sandbox`, the control), it knows every hand.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::harness::*;

/// Where the runs go and who runs them.
struct Place {
    dir: tempfile::TempDir,
    nobody: bool,
}

impl Place {
    /// A folder holding the cheat; `nobody`'s own (and its home) when `nobody`.
    fn new(nobody: bool) -> Place {
        Place::new_in(nobody, Path::new(env!("CARGO_TARGET_TMPDIR")))
    }

    /// As [`Place::new`], in `parent`.
    fn new_in(nobody: bool, parent: &Path) -> Place {
        let dir = tempfile::Builder::new()
            .prefix("allfives-earlier-")
            .tempdir_in(parent)
            .expect("a folder");
        for file in ["cheat_reads_earlier_runs.py", "botlib.py", "cheatlib.py"] {
            fs::create_dir_all(dir.path().join("bots")).expect("a folder");
            fs::copy(
                root().join("tests/fixtures/bots").join(file),
                dir.path().join("bots").join(file),
            )
            .expect("the cheat copied");
        }
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
        let owner = if nobody { "65534:65534" } else { "0:0" };
        let chown = Command::new("chown")
            .args(["-R", owner])
            .arg(dir.path())
            .status()
            .expect("chown runs");
        assert!(chown.success());
        Place { dir, nobody }
    }

    /// Plays a match with the cheat, its logs in `logs`; the cheat's `HANDS n KNEW k` and
    /// whether it read a deal.
    fn play(&self, logs: &str, extra: &[&str]) -> (u32, u32, bool) {
        let here = self.dir.path();
        let cheat = format!(
            "cheat=python3 bots/cheat_reads_earlier_runs.py {}",
            hex(here)
        );
        let mut args: Vec<&str> = vec![
            "match",
            &cheat,
            "builtin:greedy",
            // The attack needs the same deals in every run: a public seed typed again.
            "--seed",
            "4242",
            "--public-seed",
            "--target",
            "100",
            "--log-dir",
            logs,
        ];
        args.extend(extra);
        let configure = |c: &mut Command| {
            c.current_dir(here).env("PATH", "/usr/bin:/bin");
        };
        let ran = match self.nobody {
            true => allfives_as_nobody(&args, here, configure),
            false => allfives_with(&args, configure),
        };
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        let said = fs::read_to_string(here.join(logs).join("cheat.stderr")).expect("its stderr");
        assert!(said.contains("TRIED walking"), "{said}");
        let counts = said
            .lines()
            .find_map(|l| l.strip_prefix("HANDS "))
            .unwrap_or_else(|| panic!("no count in {said}"));
        let (hands, knew) = counts.split_once(" KNEW ").expect("HANDS n KNEW k");
        (
            hands.parse().expect("a count"),
            knew.parse().expect("a count"),
            said.contains("LEAK a deal"),
        )
    }
}

fn learns_nothing_from_earlier_runs(nobody: bool) {
    let place = Place::new(nobody);
    let (hands, knew, read) = place.play("runs/1", &[]);
    let said = fs::read_to_string(place.dir.path().join("runs/1/cheat.stderr")).unwrap_or_default();
    assert!(
        hands > 1 && knew == 0 && !read,
        "{hands} {knew} {read} {said}"
    );
    // Beside the earlier run, and elsewhere (only the registry names runs/1 there).
    for logs in ["runs/2", "other/3"] {
        let (hands, knew, read) = place.play(logs, &[]);
        assert!(hands > 1, "{logs}: {hands} hands");
        assert_eq!((knew, read), (0, false), "{logs}: knew {knew} of {hands}");
    }
    // The control: uncontained, the same cheat knows every hand of the same seed's run.
    let (hands, knew, read) = place.play("runs/4", &["--no-sandbox"]);
    assert!(read && hands > 1 && knew == hands, "{knew} of {hands}");
}

#[test]
fn a_cheat_run_by_an_ordinary_user_learns_nothing_from_earlier_runs() {
    learns_nothing_from_earlier_runs(true);
}

#[test]
fn a_cheat_run_by_root_learns_nothing_from_earlier_runs() {
    learns_nothing_from_earlier_runs(false);
}

/// The registry of earlier runs is the user's: hidden too, and private to the user.
#[test]
fn the_registry_of_earlier_runs_is_private() {
    let place = Place::new(true);
    place.play("runs/1", &[]);
    let registry = place.dir.path().join(".local/state/allfives/runs");
    let text = fs::read_to_string(&registry).expect("the registry");
    assert!(text.contains("runs/1"), "{text}");
    let mode = |p: &Path| fs::metadata(p).expect("there").permissions().mode() & 0o777;
    assert_eq!(mode(&registry), 0o600);
    let folder = registry.parent().expect("a folder");
    assert_eq!(mode(folder), 0o700);
    // Only its own folder is private: `~/.local` holds the user's installs, which bots read.
    let local = place.dir.path().join(".local");
    assert_eq!(mode(&local), 0o755, "{}", local.display());
}

/// A bot that writes its own mount table on its stderr, says whether it could read an earlier
/// run's log (`earlier-0/logs/game-1.jsonl`, from its folder), then plays.
const SHOWS_ITS_MOUNTS: &str = r#"import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import botlib
sys.stderr.write(open('/proc/self/mountinfo').read())
try:
    if 'hands' in open('earlier-0/logs/game-1.jsonl').read():
        sys.stderr.write('READ an earlier log\n')
except OSError:
    pass
sys.stderr.flush()
botlib.run()
"#;

/// Where the earlier runs of [`many_earlier_runs_leave_no_trace`] lie.
#[derive(Clone, Copy, PartialEq)]
enum Runs {
    /// Each in a folder of its own, none in what the bot sees.
    Elsewhere,
    /// In the bot's own folder, each beside a file of the user's (so that no folder holds
    /// only hidden output, and none can be hidden whole).
    InTheBotsFolder,
    /// As `InTheBotsFolder`, the bot's folder under `/tmp` (bound inside its private `/tmp`,
    /// where Landlock grants everything: each run is covered by a mount instead).
    InTheBotsFolderUnderTmp,
}

/// A folder for the bot's own that is neither under `/tmp` nor under `/dev/shm`: the build's
/// own temporary folder, unless the build lies under `/tmp` (a clean clone there), then
/// `/var/tmp`.
fn on_the_disk() -> std::path::PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    match target.starts_with("/tmp") || target.starts_with("/dev/shm") {
        true => std::path::PathBuf::from("/var/tmp"),
        false => target.to_path_buf(),
    }
}

/// Many earlier runs: nothing a bot's start does names them. `-v`'s line of what is hidden
/// stays short, the bot's `/proc/self/mountinfo` names none of them, and it reads none of
/// their logs (uncontained, the control, it does).
fn many_earlier_runs_leave_no_trace(nobody: bool, runs: Runs) {
    let place = match runs {
        Runs::InTheBotsFolderUnderTmp => Place::new_in(nobody, &std::env::temp_dir()),
        Runs::InTheBotsFolder => Place::new_in(nobody, &on_the_disk()),
        Runs::Elsewhere => Place::new(nobody),
    };
    let here = place.dir.path();
    fs::write(here.join("bots/shows_its_mounts.py"), SHOWS_ITS_MOUNTS).expect("the bot");
    // The registry as the referee writes it: one path a line.
    let registry = here.join("state/allfives");
    fs::create_dir_all(&registry).expect("a folder");
    let mut lines = String::new();
    for n in 0..300 {
        let folder = match runs {
            Runs::Elsewhere => here.join(format!("earlier-{n}")),
            _ => here.join(format!("bots/earlier-{n}")),
        };
        let run = folder.join("logs");
        fs::create_dir_all(&run).expect("a folder");
        fs::write(run.join("game-1.jsonl"), "{\"hands\":[[[1,2]]]}\n").expect("a log");
        fs::write(folder.join("notes.txt"), "the user's").expect("a file");
        lines.push_str(&format!("{}\n", run.display()));
    }
    fs::write(registry.join("runs"), lines).expect("the registry");
    if nobody {
        let chown = Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(here)
            .status()
            .expect("chown runs");
        assert!(chown.success());
    }
    let state = here.join("state");
    let play = |folder: &str, extra: &[&str]| {
        let logs = format!("../{folder}");
        let mut args = vec![
            "match",
            "bot=python3 shows_its_mounts.py",
            "builtin:greedy",
            "--target",
            "60",
            "-v",
            "--log-dir",
            &logs,
        ];
        args.extend(extra);
        let configure = |c: &mut Command| {
            c.current_dir(here.join("bots"))
                .env("PATH", "/usr/bin:/bin")
                .env("XDG_STATE_HOME", &state);
        };
        let ran = match nobody {
            true => allfives_as_nobody(&args, here, configure),
            false => allfives_with(&args, configure),
        };
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        let said = fs::read_to_string(here.join(folder).join("bot.stderr")).expect("its stderr");
        (ran.stderr, said)
    };
    let (stderr, mounts) = play("now", &[]);
    let line: String = stderr
        .lines()
        .filter(|l| l.starts_with("hidden from bot:"))
        .collect();
    assert!(mounts.contains(" / "), "no mount table: {mounts}");
    // Every mount but the private ones is read-only, those inside a copy too (`/dev/pts`,
    // `/sys/fs/cgroup/...`): the copies' flags are set on the whole tree, in one call or two.
    let writable: Vec<&str> = mounts
        .lines()
        .map(|l| l.split(' ').collect::<Vec<_>>())
        .filter(|f| f.len() > 5 && f[4].starts_with('/') && !f[5].starts_with("ro"))
        .map(|f| f[4])
        .filter(|p| !["/tmp", "/dev/shm", "/proc"].contains(p))
        .collect();
    assert!(
        writable.is_empty(),
        "writable mounts {writable:?}: {mounts}"
    );
    // Under /tmp each is a mount, which the mount table shows.
    let named = mounts.lines().filter(|l| l.contains("/earlier-")).count();
    let short: String = line.chars().take(300).collect();
    assert!(
        line.len() < 1024 && (named == 0 || runs == Runs::InTheBotsFolderUnderTmp),
        "the hidden line is {} bytes ({short}...); {named} mounts name earlier runs",
        line.len()
    );
    assert!(!mounts.contains("READ an earlier log"), "{mounts}");
    if runs != Runs::Elsewhere {
        assert!(line.contains("the output of 300 earlier runs"), "{line}");
        let (_, said) = play("control", &["--no-sandbox"]);
        assert!(said.contains("READ an earlier log"), "the control: {said}");
    }
}

#[test]
fn many_earlier_runs_leave_no_trace_in_a_bots_start_run_by_root() {
    many_earlier_runs_leave_no_trace(false, Runs::Elsewhere);
}

#[test]
fn many_earlier_runs_leave_no_trace_in_a_bots_start_run_by_an_ordinary_user() {
    many_earlier_runs_leave_no_trace(true, Runs::Elsewhere);
}

#[test]
fn many_earlier_runs_in_a_bots_own_folder_leave_no_trace_run_by_root() {
    many_earlier_runs_leave_no_trace(false, Runs::InTheBotsFolder);
}

#[test]
fn many_earlier_runs_in_a_bots_own_folder_leave_no_trace_run_by_an_ordinary_user() {
    many_earlier_runs_leave_no_trace(true, Runs::InTheBotsFolder);
}

#[test]
fn many_earlier_runs_in_a_bots_own_folder_under_tmp_leave_no_trace_run_by_root() {
    many_earlier_runs_leave_no_trace(false, Runs::InTheBotsFolderUnderTmp);
}

#[test]
fn many_earlier_runs_in_a_bots_own_folder_under_tmp_leave_no_trace_run_by_an_ordinary_user() {
    many_earlier_runs_leave_no_trace(true, Runs::InTheBotsFolderUnderTmp);
}
