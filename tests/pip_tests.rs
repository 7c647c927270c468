//! The Python package (issue 23): `allfives kit`, the helper `allfives.bot` against the real
//! referee, and the wheel as a user gets it: built with maturin, installed into a fresh virtual
//! environment, then used from a folder outside the repository.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

use crate::check_tests::assert_passes;
use crate::harness::{Sandbox, allfives, allfives_with, quote, root};
use crate::referee_tests::games_against_random;

/// The folder of the Python package's source (python/allfives).
fn package_source() -> PathBuf {
    root().join("python")
}

#[test]
fn a_python_kit_is_written_checked_and_played() {
    let sb = Sandbox::new();
    let dir = sb.path("my bot");
    let ran = allfives(&["kit", "python", &dir.display().to_string()]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(dir.join("protocol.md").is_file());
    let bot = sb.python(&dir.join("bot.py"), &[]);
    // What it prints to type next names the bot as it was written.
    assert!(
        ran.stdout.contains("allfives check \"python3 "),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("builtin:greedy --games 10"),
        "{}",
        ran.stdout
    );
    assert_passes(&sb, &bot);
    let kit = games_against_random(&|sb| sb.python(&dir.join("bot.py"), &[]));
    let builtin = games_against_random(&|_| "builtin:greedy".to_string());
    assert!(
        kit == builtin,
        "the Python kit does not play like builtin:greedy"
    );
}

#[test]
fn a_kit_never_overwrites_a_file() {
    let sb = Sandbox::new();
    let dir = sb.path("bot");
    std::fs::create_dir(&dir).expect("a folder");
    std::fs::write(dir.join("starter_bot.cpp"), "mine").expect("a file");
    let ran = allfives(&["kit", "cpp", &dir.display().to_string()]);
    assert_eq!(ran.code, Some(2), "{}", ran.stdout);
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert!(ran.stderr.contains("already exists"), "{}", ran.stderr);
    let kept = std::fs::read_to_string(dir.join("starter_bot.cpp")).expect("the file");
    assert_eq!(kept, "mine");
    assert!(
        !dir.join("protocol.md").exists(),
        "nothing is written when a file is taken"
    );
}

/// The helper bot's command line, with the package's source on its PYTHONPATH.
fn helper_bot(sb: &Sandbox) -> String {
    let script = root().join("sample_bots/python/helper_bot.py");
    let path = quote(&format!("PYTHONPATH={}", package_source().display()));
    format!("env {path} {}", sb.python(&script, &[]))
}

#[test]
fn a_bot_written_with_the_helper_passes_check_and_plays_like_greedy() {
    let sb = Sandbox::new();
    assert_passes(&sb, &helper_bot(&sb));
    let helper = games_against_random(&helper_bot);
    let builtin = games_against_random(&|_| "builtin:greedy".to_string());
    assert!(
        helper == builtin,
        "the helper bot does not play like builtin:greedy"
    );
}

#[test]
fn the_helper_sends_info_only_when_choose_returns_it() {
    let script = "from allfives.bot import Move, answer\n\
                  m = Move((1, 4), 'left', 10, 2)\n\
                  print(answer(3, m))\n\
                  print(answer(3, (m, 'why')))\n";
    let out = run(Command::new("python3")
        .args(["-c", script])
        .env("PYTHONPATH", package_source()));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "{'type': 'move', 'id': 3, 'tile': [1, 4], 'end': 'left'}",
            "{'type': 'move', 'id': 3, 'tile': [1, 4], 'end': 'left', 'info': 'why'}",
        ]
    );
}

#[test]
fn the_view_is_typed_throughout() {
    let turn = r#"{"seat":0,"rules":{"players":2,"teams":false,"hand_size":9,"spinner":"first","hand_end":"penalty","target":250,"finish":"immediate","max_hands":1},"game":1,"hand_number":1,"leader":1,"turn":0,"hand":[[0,2],[1,2]],"drawn":[[1,2]],"forced":null,"layout":[{"tile":[4,6],"end":null}],"ends":[{"end":"left","number":4,"counts":4},{"end":"right","number":6,"counts":6}],"sum":10,"hand_sizes":[2,3],"boneyard":4,"scores":[0,10],"history":[{"type":"play","seat":1,"tile":[4,6],"end":null,"sum":10,"points":10},{"type":"draw","seat":0,"tile":[1,2]},{"type":"draw","seat":1,"tile":null},{"type":"pass","seat":1}],"legal":[{"tile":[0,2],"end":"left","sum":8,"points":0},{"tile":[1,2],"end":"left","sum":8,"points":0}],"later":1}"#;
    let script = "import dataclasses, json, sys\n\
                  from allfives.bot import view_from\n\
                  view = view_from(json.loads(sys.argv[1]))\n\
                  print(view.rules.spinner, view.rules.target, view.history)\n\
                  print(all(dataclasses.is_dataclass(e) for e in [view.rules, *view.history]))\n\
                  print(view.raw['later'])\n";
    let out = run(Command::new("python3")
        .args(["-c", script, turn])
        .env("PYTHONPATH", package_source()));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "first 250 [Play(seat=1, tile=(4, 6), end=None, sum=10, points=10), \
             Draw(seat=0, tile=(1, 2)), Draw(seat=1, tile=None), Pass(seat=1)]",
            "True",
            "1",
        ]
    );
}

#[test]
fn the_helper_kit_passes_under_a_python_that_imports_the_package_and_says_why_not_under_another() {
    let sb = Sandbox::new();
    let dir = sb.path("helped");
    let ran = allfives(&["kit", "python-helper", &dir.display().to_string()]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let script = dir.join("bot.py");
    let path = quote(&format!("PYTHONPATH={}", package_source().display()));
    let helped = |sb: &Sandbox| format!("env {path} {}", sb.python(&script, &[]));
    assert_passes(&sb, &helped(&sb));
    let builtin = games_against_random(&|_| "builtin:greedy".to_string());
    assert!(games_against_random(&helped) == builtin);
    let tmp = sb.path("tmp");
    std::fs::create_dir_all(&tmp).expect("a folder for check's logs");
    let without = allfives_with(&["check", &sb.python(&script, &[])], |c| {
        c.env("TMPDIR", &tmp);
    });
    assert_eq!(without.code, Some(4), "{}", without.stdout);
    assert!(
        without.stdout.contains(
            "cannot import the allfives package: run the bot with the \
             Python of the environment allfives is installed in"
        ),
        "{}",
        without.stdout
    );
}

/// Runs a command to its end; it must succeed. Returns its stdout.
fn run(command: &mut Command) -> String {
    let out: Output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?} cannot run: {e}"));
    assert!(
        out.status.success(),
        "{command:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// maturin's path: $MATURIN, else maturin on PATH. Under CI (CI set) there must be one:
/// .ci/run installs it.
fn maturin() -> Option<PathBuf> {
    let on_path = || {
        std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|dir| dir.join("maturin"))
            .find(|path| path.is_file())
    };
    let found = std::env::var_os("MATURIN")
        .map(PathBuf::from)
        .or_else(on_path);
    if found.is_none() && std::env::var_os("CI").is_some() {
        panic!("maturin is not on PATH nor in MATURIN under CI: .ci/run installs it");
    }
    found
}

/// How many games of a `--json` match report entrant 0 won (ranked first).
fn wins_of_first(report: &Value) -> usize {
    let games = report["games"].as_array().expect("games");
    games
        .iter()
        .flat_map(|g| g["seats"].as_array().expect("seats"))
        .filter(|s| s["entrant"] == 0 && s["rank"] == 1)
        .count()
}

#[test]
fn the_wheel_installs_into_a_fresh_venv_and_plays_from_outside_the_repository() {
    let Some(maturin) = maturin() else {
        eprintln!("skipped: maturin is not on PATH (pip install maturin)");
        return;
    };
    let work = tempfile::tempdir().expect("a temporary folder");
    let wheels = work.path().join("wheels");
    let out = run(Command::new(&maturin)
        .args(["build", "--release", "--quiet", "--out"])
        .arg(&wheels)
        .current_dir(root()));
    let version = env!("CARGO_PKG_VERSION");
    let wheel = std::fs::read_dir(&wheels)
        .expect("the wheel folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .unwrap_or_else(|| panic!("no wheel built:\n{out}"));
    let name = wheel.file_name().expect("a name").to_string_lossy();
    assert!(name.starts_with(&format!("allfives-{version}-")), "{name}");
    let venv = work.path().join("venv");
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    run(Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--no-index"])
        .arg(&wheel));
    let user = work.path().join("user");
    std::fs::create_dir(&user).expect("a folder outside the repository");
    let in_venv = |args: &[&str]| -> String {
        let path = std::env::join_paths(std::iter::once(venv.join("bin")).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .expect("a PATH");
        run(Command::new("allfives")
            .args(args)
            .current_dir(&user)
            .env("PATH", path)
            .env("VIRTUAL_ENV", &venv)
            .env_remove("PYTHONPATH"))
    };
    let installed = venv.join("bin/allfives");
    assert!(
        installed.is_file(),
        "the wheel puts allfives in the venv's bin"
    );
    assert_eq!(
        in_venv(&["--version"]).trim(),
        format!("allfives {version}")
    );
    in_venv(&["kit", "python", "mybot"]);
    in_venv(&["check", "python3 mybot/bot.py"]);
    in_venv(&[
        "match",
        "python3 mybot/bot.py",
        "builtin:greedy",
        "--games",
        "10",
    ]);
    let report = in_venv(&[
        "match",
        "python3 mybot/bot.py",
        "builtin:random",
        "--games",
        "10",
        "--seed",
        "1",
        "--public-seed",
        "--json",
    ]);
    let report: Value = serde_json::from_str(&report).expect("a JSON report");
    assert!(
        wins_of_first(&report) > 5,
        "the kit's bot does not beat builtin:random"
    );
    // The helper is importable from the venv's Python, without the repository.
    run(Command::new(venv.join("bin/python3"))
        .args(["-c", "import allfives.bot"])
        .current_dir(&user)
        .env_remove("PYTHONPATH"));
    // The helper's kit, from a shell where the venv is not activated: the venv's allfives by
    // its path prints a check line that names the venv's Python, and that line passes.
    let not_activated = |args: &[&str]| -> String {
        run(Command::new(&installed)
            .args(args)
            .current_dir(&user)
            .env("TMPDIR", work.path())
            .env_remove("VIRTUAL_ENV")
            .env_remove("PYTHONPATH"))
    };
    let printed = not_activated(&["kit", "python-helper", "helped"]);
    let helped = printed
        .lines()
        .find_map(|l| l.trim().strip_prefix("allfives check "))
        .unwrap_or_else(|| panic!("no check line:\n{printed}"))
        .trim_matches('"')
        .to_string();
    assert_eq!(
        helped,
        format!("{} helped/bot.py", venv.join("bin/python3").display())
    );
    let checked = not_activated(&["check", &helped]);
    assert!(!checked.contains("FAIL"), "{checked}");
    let report = not_activated(&[
        "match",
        &helped,
        "builtin:random",
        "--games",
        "10",
        "--seed",
        "1",
        "--json",
    ]);
    let report: Value = serde_json::from_str(&report).expect("a JSON report");
    assert!(
        wins_of_first(&report) > 5,
        "the helper kit's bot does not beat builtin:random"
    );
}
