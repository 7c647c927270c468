//! Honest bots never notice the containment: a matrix of the kinds of bot people write (several
//! files, virtual environments, version-manager shims, Perl and Node.js modules, a JVM class
//! folder, compiled programs reading data files, multiprocessing, temporary files, shell
//! pipelines, bots files), each started as its author would (from its own folder, from a
//! parent folder, from a folder under /tmp, with the logs inside its folder), through `check`,
//! `match`, `tournament` and `replay --ask`. Every cell must play without a fault, contained;
//! and a cheat placed in the same cells learns nothing (docs/fair-play.md has the matrix).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

use crate::harness::*;

/// The protocol loop every Python bot of the matrix shares: `prepare()` runs before it, and a
/// bot plays the first legal move.
const PY_LOOP: &str = r#"
import json, sys
def play(on_turn=lambda m: None):
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            print(json.dumps({"type": "hello", "id": m["id"]}), flush=True)
        elif m["type"] == "turn":
            on_turn(m)
            c = m["view"]["legal"][0]
            print(json.dumps({"type": "move", "id": m["id"], "tile": c["tile"], "end": c["end"]}), flush=True)
        elif m["type"] == "bye":
            break
"#;

const NODE_BOT: &str = r#"
const lib = require('./lib');
const pad = require('leftpad');
const rl = require('readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.type === 'hello') console.log(JSON.stringify({ type: 'hello', id: m.id, name: pad(lib.name) }));
  else if (m.type === 'turn') {
    const c = m.view.legal[0];
    console.log(JSON.stringify({ type: 'move', id: m.id, tile: c.tile, end: c.end }));
  } else if (m.type === 'bye') process.exit(0);
});
"#;

const PERL_BOT: &str = r#"
use strict; use warnings;
use FindBin qw($Bin); use lib $Bin;
use Helper; use JSON::PP;
$| = 1;
my $json = JSON::PP->new->canonical;
while (my $line = <STDIN>) {
  my $m = decode_json($line);
  if ($m->{type} eq 'hello') { print encode_json({type => 'hello', id => $m->{id}, name => Helper::name()}), "\n"; }
  elsif ($m->{type} eq 'turn') {
    my $c = $m->{view}{legal}[0];
    print $json->encode({type => 'move', id => $m->{id}, tile => $c->{tile}, end => $c->{end}}), "\n";
  }
  elsif ($m->{type} eq 'bye') { last; }
}
"#;

/// A compiled program that reads a data file (next to its binary, or with `--cwd-data` in its
/// working directory), then plays through the Python loop beside it.
const C_BOT: &str = r#"
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
  char exe[PATH_MAX], path[PATH_MAX + 32], script[PATH_MAX + 32];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n < 0) { perror("/proc/self/exe"); return 1; }
  exe[n] = 0;
  char *dir = dirname(exe);
  if (argc > 1 && strcmp(argv[1], "--cwd-data") == 0) snprintf(path, sizeof path, "data.txt");
  else snprintf(path, sizeof path, "%s/weights.txt", dir);
  FILE *f = fopen(path, "r");
  if (!f) { perror(path); return 1; }
  fclose(f);
  snprintf(script, sizeof script, "%s/logic.py", dir);
  execlp("python3", "python3", script, (char *)0);
  perror("python3");
  return 1;
}
"#;

/// One kind of bot: its folder in the world, and its command with `{d}` for that folder as the
/// starting folder names it.
struct Kind {
    name: &'static str,
    folder: &'static str,
    command: &'static str,
    /// Whether the version-manager shim must come first on PATH.
    shim: bool,
}

const KINDS: [Kind; 17] = [
    kind("two_files", "py2", "python3 {d}/bot.py"),
    kind("book_in_cwd", "pybook", "python3 {d}/bot.py"),
    kind("venv", "venv", "{d}/env/bin/python {d}/bot.py"),
    Kind {
        name: "shim",
        folder: "shim",
        command: "python3 {d}/bot.py",
        shim: true,
    },
    kind("perl", "perl", "perl {d}/bot.pl"),
    kind("node", "node", "node {d}/bot.js"),
    kind("java", "java", "java -cp {d}/classes FirstLegal"),
    kind("data_by_binary", "cbin", "{d}/bot"),
    kind("data_in_cwd", "cbin", "{d}/bot --cwd-data"),
    kind("tmp_debug", "pydebug", "python3 {d}/bot.py"),
    kind("multiprocessing", "pymp", "python3 {d}/bot.py"),
    kind("tempfile", "pytemp", "python3 {d}/bot.py"),
    kind("bash_exec", "sh", "bash -c 'exec python3 {d}/bot.py'"),
    kind("bash_pipe", "sh", "bash -c 'python3 {d}/bot.py | cat'"),
    kind("sh_cd", "sh", "sh -c 'cd {d} && exec python3 bot.py'"),
    kind("dot_slash", "exe", "{d}/bot"),
    kind(
        "cheat",
        "cheat",
        "python3 {d}/cheat_learns_the_seed.py folders",
    ),
];

const fn kind(name: &'static str, folder: &'static str, command: &'static str) -> Kind {
    Kind {
        name,
        folder,
        command,
        shim: false,
    }
}

/// A folder holding every kind of bot, under the home folder or under /tmp.
struct World {
    dir: TempDir,
    /// The real Python interpreter (the shim's target).
    python: String,
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().expect("a folder")).expect("a folder");
    fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn executable(path: &Path, text: &str) {
    write(path, text);
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn python_bot(dir: &Path, prelude: &str, on_turn: &str) {
    let text = format!(
        "{prelude}\n{PY_LOOP}\n{on_turn}\nplay({})\n",
        match on_turn {
            "" => "",
            _ => "on_turn",
        }
    );
    write(&dir.join("bot.py"), &text);
}

fn run_ok(command: &mut Command) {
    let out = command.output().expect("a setup command starts");
    assert!(
        out.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl World {
    fn new(parent: &Path) -> World {
        fs::create_dir_all(parent).expect("the world's parent");
        let dir = tempfile::Builder::new()
            .prefix("allfives-compat-")
            .tempdir_in(parent)
            .expect("a world folder");
        // Readable by other users, as a checkout is (a root referee runs bots as their own).
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
        let out = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        let python = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let world = World { dir, python };
        world.build();
        world
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn build(&self) {
        let w = |rel: &str| self.path(rel);
        write(
            &w("py2/helper.py"),
            "def pick(legal):\n    return legal[0]\n",
        );
        python_bot(&w("py2"), "from helper import pick", "");
        write(&w("pybook/book.json"), "{\"opening\": 1}\n");
        write(&w("data.txt"), "data read from the working directory\n");
        python_bot(
            &w("pybook"),
            "import json, os\nBOOK = json.load(open(os.path.join(os.path.dirname(__file__), 'book.json')))",
            "",
        );
        run_ok(
            Command::new("python3")
                .args(["-m", "venv", "--without-pip"])
                .arg(w("venv/env")),
        );
        let site = fs::read_dir(w("venv/env/lib"))
            .expect("the venv's lib")
            .flatten()
            .next()
            .expect("pythonX.Y")
            .path()
            .join("site-packages/vpkg");
        write(&site.join("__init__.py"), "NAME = 'from the venv'\n");
        python_bot(&w("venv"), "import vpkg", "");
        executable(
            &w("mgr/shims/python3"),
            &format!(
                "#!/bin/sh\n# A version manager's shim: it goes back to the working directory and reads its root.\n\
                 cd \"$PWD\" || {{ echo \"shim: cannot change working directory to $PWD\" >&2; exit 1; }}\n\
                 read version < \"$(dirname \"$0\")/../version\" || exit 1\nexec {} \"$@\"\n",
                self.python
            ),
        );
        write(&w("mgr/version"), "3\n");
        python_bot(&w("shim"), "", "");
        write(
            &w("perl/Helper.pm"),
            "package Helper;\nsub name { 'perl' }\n1;\n",
        );
        write(&w("perl/bot.pl"), PERL_BOT);
        write(&w("node/lib.js"), "module.exports = { name: 'node' };\n");
        write(
            &w("node/node_modules/leftpad/index.js"),
            "module.exports = (s) => ' ' + s;\n",
        );
        write(&w("node/bot.js"), NODE_BOT);
        run_ok(
            Command::new("javac")
                .args(["-J-XX:-UsePerfData", "-d"])
                .arg(w("java/classes"))
                .arg(root().join("tests/fixtures/bots/FirstLegal.java")),
        );
        write(&w("cbin/bot.c"), C_BOT);
        write(&w("cbin/weights.txt"), "1 2 3\n");
        write(
            &w("cbin/data.txt"),
            "data read from the working directory\n",
        );
        python_bot(&w("cbin").join("logic"), "", "");
        fs::rename(w("cbin/logic/bot.py"), w("cbin/logic.py")).expect("logic.py");
        fs::remove_dir(w("cbin/logic")).expect("a folder removed");
        run_ok(
            Command::new("gcc")
                .arg("-o")
                .arg(w("cbin/bot"))
                .arg(w("cbin/bot.c")),
        );
        python_bot(
            &w("pydebug"),
            "import os",
            "def on_turn(m):\n    open('/tmp/debug.txt', 'a').write('turn %d\\n' % m['id'])\n    \
             open(os.path.join(os.environ['TMPDIR'], 'tmpdir.txt'), 'w').write('TMPDIR works\\n')",
        );
        python_bot(
            &w("pymp"),
            "import multiprocessing, concurrent.futures\ndef square(x):\n    return x * x",
            "def on_turn(m):\n    if m['id'] == 2:\n        with multiprocessing.Pool(2) as p:\n            \
             assert p.map(square, [1, 2]) == [1, 4]\n        with concurrent.futures.ProcessPoolExecutor(2) as e:\n            \
             assert list(e.map(square, [3])) == [9]",
        );
        python_bot(
            &w("pytemp"),
            "import tempfile, os",
            "def on_turn(m):\n    d = tempfile.mkdtemp()\n    with tempfile.NamedTemporaryFile(dir=d) as f:\n        \
             f.write(b'x')\n    with tempfile.TemporaryFile() as f:\n        f.write(b'x')\n    \
             with tempfile.TemporaryDirectory() as t:\n        open(os.path.join(t, 'a'), 'w').write('a')",
        );
        python_bot(&w("sh"), "", "");
        executable(
            &w("exe/bot"),
            &format!("#!/usr/bin/env python3\n{PY_LOOP}\nplay()\n"),
        );
        for file in ["cheat_learns_the_seed.py", "botlib.py", "cheatlib.py"] {
            fs::copy(
                root().join("tests/fixtures/bots").join(file),
                w("cheat").join(file),
            )
            .map(|_| ())
            .or_else(|_| {
                fs::create_dir_all(w("cheat"))?;
                fs::copy(
                    root().join("tests/fixtures/bots").join(file),
                    w("cheat").join(file),
                )
                .map(|_| ())
            })
            .expect("the cheat copied");
        }
        write(
            &w("bots.toml"),
            "[[bots]]\nname = \"from_file\"\ncommand = \"python3 bot.py\"\ndir = \"envbot\"\nenv = { GREETING = \"hi\" }\n",
        );
        python_bot(
            &w("envbot"),
            "import os\nassert os.environ['GREETING'] == 'hi'",
            "",
        );
        // Everything readable by others, as files in a checkout are.
        run_ok(
            Command::new("chmod")
                .args(["-R", "o+rX"])
                .arg(self.dir.path()),
        );
    }

    /// The PATH a run of `kind` needs.
    fn path_var(&self, kind: &Kind) -> String {
        let path = std::env::var("PATH").unwrap_or_default();
        match kind.shim {
            true => format!("{}:{path}", self.path("mgr/shims").display()),
            false => path,
        }
    }
}

/// Where a run starts, and what it names the bot's folder.
#[derive(Clone, Copy, Debug)]
enum Start {
    /// The bot's own folder, the logs in their default place there.
    Own,
    /// The folder above every bot's.
    Parent,
    /// The bot's own folder, with `--log-dir` inside it.
    LogsInside,
}

fn cell(world: &World, kind: &Kind, start: Start) -> (PathBuf, String) {
    let (cwd, d) = match start {
        Start::Own | Start::LogsInside => (world.path(kind.folder), "."),
        Start::Parent => (world.path(""), kind.folder),
    };
    (
        cwd,
        format!("{}={}", kind.name, kind.command.replace("{d}", d)),
    )
}

/// Runs `args` from `cwd` with `kind`'s PATH.
fn run_in(world: &World, kind: &Kind, cwd: &Path, args: &[String]) -> Ran {
    let path = world.path_var(kind);
    // A failed check keeps its logs: in the world, which the test removes.
    allfives_with(args, |c| {
        c.current_dir(cwd)
            .env("PATH", path)
            .env("TMPDIR", world.path(""));
    })
}

/// The cells of one start, played a few at a time; a failing cell's name and output.
fn failures(world: &World, each: impl Fn(&Kind) -> Result<(), String> + Sync) -> Vec<String> {
    let mut failed = Vec::new();
    for chunk in KINDS.chunks(3) {
        std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|k| (k.name, s.spawn(|| each(k))))
                .collect();
            for (name, h) in handles {
                if let Err(why) = h.join().expect("a cell's thread") {
                    failed.push(format!("{name}: {why}"));
                }
            }
        });
    }
    let _ = world;
    failed
}

/// What an honest bot's standings row says it tried and was refused (calls honest bots never
/// make: there must be none); `None` for the cheat, which may try anything.
fn probed_by_honest(row: &Value) -> Option<String> {
    (row["name"] != "cheat" && row.get("probed").is_some())
        .then(|| format!("{} probed {}", row["name"], row["probed"]))
}

/// A match report's faults, forfeits, an honest bot's refused calls and the cheat's leaks, if
/// any.
fn faults_of(report: &Value, logs: &Path, kind: &Kind) -> Option<String> {
    let row = report["standings"]["entrants"]
        .as_array()?
        .iter()
        .find(|r| r["name"] == kind.name)?;
    if row["faults"] != serde_json::json!({}) {
        return Some(format!("faults {}: {}", row["faults"], report["games"]));
    }
    if let Some(probed) = probed_by_honest(row) {
        return Some(probed);
    }
    let stderr = fs::read_to_string(logs.join(format!("{}.stderr", kind.name))).unwrap_or_default();
    stderr
        .contains("LEAK")
        .then(|| format!("the cheat learned something: {stderr}"))
}

fn match_cell(world: &World, kind: &Kind, start: Start) -> Result<(), String> {
    let (cwd, bot) = cell(world, kind, start);
    let mut args: Vec<String> = [
        "match",
        &bot,
        "builtin:greedy",
        "--target",
        "60",
        "--json",
        "--seed",
        "5",
        "--public-seed",
    ]
    .map(String::from)
    .to_vec();
    let logs = match start {
        Start::LogsInside => {
            let logs = cwd.join(format!("logs-{}", kind.name));
            args.extend(["--log-dir".to_string(), logs.display().to_string()]);
            logs
        }
        _ => cwd.join("allfives-logs"),
    };
    let ran = run_in(world, kind, &cwd, &args);
    if ran.code != Some(0) {
        return Err(format!("exit {:?}: {}", ran.code, ran.stderr));
    }
    let report = ran.json();
    let log = report["games"][0]["log"].as_str().unwrap_or_default();
    let folder = cwd
        .join(log)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or(logs);
    if let Some(why) = faults_of(&report, &folder, kind) {
        return Err(why);
    }
    if kind.name == "tmp_debug" {
        let saved = folder.join("tmp_debug.tmp");
        let debug = fs::read_to_string(saved.join("debug.txt"))
            .map_err(|e| format!("{}: {e}", saved.display()))?;
        if !debug.starts_with("turn ") || !saved.join("tmpdir.txt").exists() {
            return Err(format!("the saved /tmp holds {debug:?}"));
        }
    }
    Ok(())
}

fn check_cell(world: &World, kind: &Kind, start: Start) -> Result<(), String> {
    let (cwd, bot) = cell(world, kind, start);
    let command = bot
        .split_once('=')
        .map_or(bot.as_str(), |(_, c)| c)
        .to_string();
    let ran = run_in(world, kind, &cwd, &["check".to_string(), command]);
    match ran.code {
        Some(0) => Ok(()),
        _ => Err(format!("exit {:?}: {}{}", ran.code, ran.stdout, ran.stderr)),
    }
}

fn assert_none(failed: Vec<String>) {
    assert!(
        failed.is_empty(),
        "{} cells failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

fn home() -> PathBuf {
    PathBuf::from(std::env::var("HOME").expect("a home folder"))
}

#[test]
fn every_kind_of_bot_plays_a_match_from_wherever_it_is_started() {
    for parent in [home(), std::env::temp_dir()] {
        let world = World::new(&parent);
        // The parent first: every later run leaves logs in the bots' folders.
        for start in [Start::Parent, Start::Own, Start::LogsInside] {
            let failed = failures(&world, |k| match_cell(&world, k, start));
            assert_none(
                failed
                    .into_iter()
                    .map(|f| format!("{start:?} under {}: {f}", parent.display()))
                    .collect(),
            );
        }
        sandbox_clean(&world);
    }
}

#[test]
fn every_kind_of_bot_passes_check_from_wherever_it_is_started() {
    for parent in [home(), std::env::temp_dir()] {
        let world = World::new(&parent);
        for start in [Start::Own, Start::Parent] {
            let failed = failures(&world, |k| check_cell(&world, k, start));
            assert_none(
                failed
                    .into_iter()
                    .map(|f| format!("{start:?} under {}: {f}", parent.display()))
                    .collect(),
            );
        }
    }
}

/// A tournament of every kind (the shim's PATH for all), from the parent folder, and a bot
/// from a bots file with `dir` and `env`.
#[test]
fn every_kind_of_bot_plays_a_tournament() {
    for parent in [home(), std::env::temp_dir()] {
        let world = World::new(&parent);
        let shim = &KINDS[3];
        let mut args: Vec<String> = vec!["tournament".into(), "builtin:greedy".into()];
        args.extend(KINDS.iter().map(|k| cell(&world, k, Start::Parent).1));
        args.extend(
            [
                "--format",
                "gauntlet",
                "--deals",
                "1",
                "--target",
                "60",
                "--json",
                "-j",
                "2",
                "--seed",
                "3",
                "--public-seed",
                "--bots",
            ]
            .map(String::from),
        );
        args.push(world.path("bots.toml").display().to_string());
        args.extend(["--out".to_string(), world.path("t").display().to_string()]);
        let ran = run_in(&world, shim, &world.path(""), &args);
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        let report = ran.json();
        let rows = report["standings"]["entrants"]
            .as_array()
            .expect("entrants");
        assert_eq!(rows.len(), KINDS.len() + 2, "{report:#}");
        for row in rows {
            assert_eq!(
                row["faults"],
                serde_json::json!({}),
                "{}: {report:#}",
                row["name"]
            );
            assert_eq!(probed_by_honest(row), None);
        }
        // One stderr file a worker: stderr/NAME.wN.stderr.
        let cheat: String = fs::read_dir(world.path("t/stderr"))
            .expect("the stderr folder")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("cheat."))
            .map(|e| fs::read_to_string(e.path()).unwrap_or_default())
            .collect();
        assert!(
            cheat.contains("TRIED") && !cheat.contains("LEAK"),
            "{cheat}"
        );
    }
}

#[test]
fn every_kind_of_bot_answers_a_logged_position() {
    let world = World::new(&home());
    let logs = world.path("logged");
    let made = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "--seed",
        "2",
        "--public-seed",
        "--log-dir",
        &logs.display().to_string(),
    ]);
    assert_eq!(made.code, Some(0), "{}", made.stderr);
    let log = logs.join("game-1.jsonl");
    let failed = failures(&world, |kind| {
        let (cwd, bot) = cell(&world, kind, Start::Own);
        let command = bot
            .split_once('=')
            .map_or(bot.as_str(), |(_, c)| c)
            .to_string();
        let args = [
            "replay".to_string(),
            log.display().to_string(),
            "--turn".into(),
            "2".into(),
            "--ask".into(),
            command,
        ];
        let ran = run_in(&world, kind, &cwd, &args);
        match ran.code == Some(0) && ran.stdout.contains(" answers ") {
            true => Ok(()),
            false => Err(format!("exit {:?}: {}{}", ran.code, ran.stdout, ran.stderr)),
        }
    });
    assert_none(failed);
}

/// Nothing of the matrix outlives it.
fn sandbox_clean(world: &World) {
    let left = processes_holding(&world.dir.path().display().to_string());
    assert!(left.is_empty(), "{left:?}");
}

/// A bot that writes a file in its working directory: refused, with the reason and the option
/// that grants it where the user looks (the match line, `check`); granted with --bot-write.
#[test]
fn a_refused_write_says_why_and_which_option_grants_it() {
    let sb = Sandbox::new();
    let here = sb.path("writer");
    python_bot(&here, "open('out.txt', 'w').write('x')", "");
    fs::set_permissions(sb.path(""), fs::Permissions::from_mode(0o755)).expect("chmod");
    let bot = format!("writer=python3 bot.py {}", sb.token());
    let run = |extra: &[&str]| {
        let mut args: Vec<String> = ["match", &bot, "builtin:greedy", "--target", "60"]
            .map(String::from)
            .to_vec();
        args.extend(extra.iter().map(|s| s.to_string()));
        allfives_with(&args, |c| {
            c.current_dir(&here);
        })
    };
    // It fails before its hello: a bot that could not start, exit 4.
    let refused = run(&[]);
    assert_eq!(refused.code, Some(4), "{}", refused.stderr);
    assert!(
        refused.stdout.contains("Read-only file system"),
        "{}",
        refused.stdout
    );
    assert!(refused.stdout.contains("--bot-write"), "{}", refused.stdout);
    let check = allfives_with(
        &[
            "check".to_string(),
            format!("python3 bot.py {}", sb.token()),
        ],
        // A failed check keeps its logs: in the sandbox, which the test removes.
        |c| {
            c.current_dir(&here).env("TMPDIR", sb.path(""));
        },
    );
    assert_eq!(check.code, Some(4), "{}", check.stdout);
    assert!(check.stdout.contains("--bot-write"), "{}", check.stdout);
    let granted = run(&["--bot-write", &here.display().to_string()]);
    assert!(!granted.stdout.contains("forfeits"), "{}", granted.stdout);
    assert_eq!(
        fs::read_to_string(here.join("out.txt")).expect("written"),
        "x"
    );
    sb.assert_no_bot_left();
}

/// Another bot's folder is not there for a bot, unless a bots file's `read` grants it (and
/// `-v` says so).
#[test]
fn a_bots_file_grants_a_bot_another_folder_to_read() {
    let sb = Sandbox::new();
    fs::set_permissions(sb.path(""), fs::Permissions::from_mode(0o755)).expect("chmod");
    python_bot(
        &sb.path("a"),
        "print(open('../b/data.txt').read(), file=__import__('sys').stderr)",
        "",
    );
    python_bot(&sb.path("b"), "", "");
    write(&sb.path("b/data.txt"), "DATA OF B\n");
    run_ok(Command::new("chmod").args(["-R", "o+rX"]).arg(sb.path("")));
    // Hidden, the bot fails before its hello: a bot that could not start, exit 4.
    let play = |read: &str, code: i32| {
        let file = sb.path("bots.toml");
        let text = format!(
            "[[bots]]\nname = \"a\"\ncommand = \"python3 bot.py {t}\"\ndir = \"a\"\n{read}\n\
             [[bots]]\nname = \"b\"\ncommand = \"python3 bot.py {t}\"\ndir = \"b\"\n",
            t = sb.token()
        );
        fs::write(&file, text).expect("a bots file");
        let logs = sb.unused_logs();
        let args = [
            "match",
            "--bots",
            &file.display().to_string(),
            "--target",
            "60",
            "-v",
            "--log-dir",
            &logs.display().to_string(),
        ];
        let ran = allfives(&args);
        assert_eq!(ran.code, Some(code), "{}", ran.stderr);
        (
            ran,
            fs::read_to_string(logs.join("a.stderr")).unwrap_or_default(),
        )
    };
    let (hidden, _) = play("", 4);
    assert!(hidden.stdout.contains("a forfeits"), "{}", hidden.stdout);
    // `-v` says what each bot sees: b's folder is not there for a.
    let b = sb.path("b").display().to_string();
    let sees = |ran: &Ran| {
        ran.stderr
            .lines()
            .find(|l| l.starts_with("a sees only"))
            .unwrap_or_else(|| panic!("no line of what a sees: {}", ran.stderr))
            .to_string()
    };
    assert!(!sees(&hidden).contains(&b), "{}", hidden.stderr);
    let (granted, said) = play("read = [\"b\"]", 0);
    assert!(!granted.stdout.contains("forfeits"), "{}", granted.stdout);
    assert!(said.contains("DATA OF B"), "{said}");
    assert!(granted.stderr.contains("a may read"), "{}", granted.stderr);
    assert!(sees(&granted).contains(&b), "{}", granted.stderr);
    sb.assert_no_bot_left();
}

// ---------------------------------------------------------------------------------------------
// Pairs: every ordered pair of kinds seated in one match, in every layout, as root and as an
// ordinary user.
// ---------------------------------------------------------------------------------------------

/// A compiled C++ program that reads a data file next to its binary, then plays through the
/// Python loop beside it.
const CPP_BOT: &str = r#"
#include <fstream>
#include <string>
#include <unistd.h>
#include <limits.h>
int main() {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n < 0) return 1;
  std::string dir(exe, n);
  dir = dir.substr(0, dir.rfind('/'));
  std::ifstream data(dir + "/table.dat");
  std::string word;
  if (!(data >> word)) { perror((dir + "/table.dat").c_str()); return 1; }
  std::string script = dir + "/logic.py";
  execlp("python3", "python3", script.c_str(), (char *)nullptr);
  perror("python3");
  return 1;
}
"#;

/// The kinds seated together: interpreters named through PATH and by their paths (`/usr/bin`,
/// `env`, the JDK's `bin/java`), a virtual environment, compiled programs, a shell, a builtin.
/// `{java}` is the JDK's `java` by its real path.
const PAIR_KINDS: [Kind; 12] = [
    kind("py_path", "pybook", "python3 {d}/bot.py"),
    kind("py_usr", "pyusr", "/usr/bin/python3 {d}/bot.py"),
    kind("env_shebang", "exe", "{d}/bot"),
    kind("venv", "venvsys", "{d}/env/bin/python {d}/bot.py"),
    kind("two_files", "py2", "/usr/bin/env python3 {d}/bot.py"),
    kind("node", "node", "/usr/bin/node {d}/bot.js"),
    kind("c", "cbin", "{d}/bot"),
    kind("cpp", "cpp", "{d}/bot"),
    kind("perl", "perl", "/usr/bin/perl {d}/bot.pl"),
    kind("java", "java", "{java} -cp {d}/classes FirstLegal"),
    kind("bash_exec", "sh", "bash -c 'exec python3 {d}/bot.py'"),
    kind("builtin", "", "builtin:greedy"),
];

/// Where a pair's match starts: `first` is the kind whose folder an "own" layout starts in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Layout {
    /// The first bot's own folder, the logs in their default place there.
    Own,
    /// The first bot's own folder, which is also the log folder (`--log-dir .`).
    LogsOwn,
    /// The folder above every bot's.
    Parent,
    /// `/tmp` itself (the world lies under /tmp).
    CwdTmp,
}

/// Who runs the referee.
#[derive(Clone, Copy, Debug, PartialEq)]
enum User {
    Root,
    /// uid 65534, its home a folder it owns.
    Nobody,
}

/// The matches of a layout, each the kinds it seats (indices, the first one's folder first):
/// where the folder started from is a bot's own, every kind is first against every other
/// (three at a table), so that each ordered pair plays; elsewhere every unordered pair.
fn tables(layout: Layout) -> Vec<Vec<usize>> {
    let n = PAIR_KINDS.len();
    match layout {
        Layout::Own | Layout::LogsOwn => (0..n)
            .flat_map(|a| {
                let others: Vec<usize> = (0..n).filter(|&b| b != a).collect();
                others
                    .chunks(3)
                    .map(|c| std::iter::once(a).chain(c.iter().copied()).collect())
                    .collect::<Vec<Vec<usize>>>()
            })
            .collect(),
        Layout::Parent | Layout::CwdTmp => {
            let mut uncovered: std::collections::BTreeSet<(usize, usize)> = (0..n)
                .flat_map(|a| ((a + 1)..n).map(move |b| (a, b)))
                .collect();
            let mut tables = Vec::new();
            while let Some(&(a, b)) = uncovered.iter().next() {
                let mut table = vec![a, b];
                while table.len() < 4 {
                    let gain = |c: usize| {
                        table
                            .iter()
                            .filter(|&&t| uncovered.contains(&(t.min(c), t.max(c))))
                            .count()
                    };
                    let Some(best) = (0..n)
                        .filter(|c| !table.contains(c))
                        .max_by_key(|&c| (gain(c), std::cmp::Reverse(c)))
                    else {
                        break;
                    };
                    table.push(best);
                }
                for (i, &x) in table.iter().enumerate() {
                    for &y in &table[i + 1..] {
                        uncovered.remove(&(x.min(y), x.max(y)));
                    }
                }
                tables.push(table);
            }
            tables
        }
    }
}

/// The JDK's `java` by its real path (`bin/java` of the JDK's prefix).
fn java() -> String {
    let out = Command::new("sh")
        .args(["-c", "readlink -f \"$(command -v java)\""])
        .output()
        .expect("sh runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

impl World {
    /// The kinds only the pairs use: Python by `/usr/bin/python3`, a venv of the system's
    /// Python (an ordinary user reaches no root's install), C++ reading a data file.
    fn build_pairs(&self) {
        let w = |rel: &str| self.path(rel);
        python_bot(&w("pyusr"), "", "");
        run_ok(
            Command::new("/usr/bin/python3")
                .args(["-m", "venv", "--without-pip"])
                .arg(w("venvsys/env")),
        );
        let site = fs::read_dir(w("venvsys/env/lib"))
            .expect("the venv's lib")
            .flatten()
            .next()
            .expect("pythonX.Y")
            .path()
            .join("site-packages/vpkg");
        write(&site.join("__init__.py"), "NAME = 'from the venv'\n");
        python_bot(&w("venvsys"), "import vpkg", "");
        write(&w("cpp/bot.cpp"), CPP_BOT);
        write(&w("cpp/table.dat"), "opening\n");
        fs::copy(w("cbin/logic.py"), w("cpp/logic.py")).expect("logic.py");
        run_ok(
            Command::new("g++")
                .arg("-o")
                .arg(w("cpp/bot"))
                .arg(w("cpp/bot.cpp")),
        );
        run_ok(
            Command::new("chmod")
                .args(["-R", "o+rX"])
                .arg(self.dir.path()),
        );
    }
}

/// The folder a match of `table` in `layout` starts in, and each bot's argument.
fn pair_cell(world: &World, table: &[usize], layout: Layout, java: &str) -> (PathBuf, Vec<String>) {
    let first = &PAIR_KINDS[table[0]];
    let cwd = match layout {
        Layout::Own | Layout::LogsOwn => world.path(first.folder),
        Layout::Parent => world.path(""),
        Layout::CwdTmp => PathBuf::from("/tmp"),
    };
    let bots = table
        .iter()
        .map(|&k| {
            let kind = &PAIR_KINDS[k];
            let folder = world.path(kind.folder);
            let d = match layout {
                Layout::Own | Layout::LogsOwn if kind.folder == first.folder => ".".to_string(),
                // A builtin has no folder: its "own" layouts start in the parent folder.
                Layout::Own | Layout::LogsOwn if !first.folder.is_empty() => {
                    format!("../{}", kind.folder)
                }
                Layout::Own | Layout::LogsOwn | Layout::Parent => kind.folder.to_string(),
                Layout::CwdTmp => folder
                    .strip_prefix("/tmp")
                    .expect("the world lies under /tmp")
                    .display()
                    .to_string(),
            };
            let command = kind.command.replace("{java}", java).replace("{d}", &d);
            match command.starts_with("builtin:") {
                true => command,
                false => format!("{}={command}", kind.name),
            }
        })
        .collect();
    (cwd, bots)
}

/// Plays one match of `table`; its failure, if any, names the cell.
/// Plays match number `n` of a layout; its failure, if any, names the cell.
fn pair_match(
    world: &World,
    user: User,
    (n, table): (usize, &[usize]),
    layout: Layout,
    java: &str,
) -> Result<(), String> {
    let (cwd, bots) = pair_cell(world, table, layout, java);
    let mut args = vec!["match".to_string()];
    args.extend(bots);
    // Generous clocks: a JVM or Node.js starting on a loaded machine is no fault of theirs.
    args.extend(
        [
            "--max-hands",
            "1",
            "--json",
            "--seed",
            "5",
            "--public-seed",
            "--startup-ms",
            "60000",
            "--move-ms",
            "20000",
        ]
        .map(String::from),
    );
    // The logs in the bot's own folder: as a folder (the first match there) or as a file.
    let logs = match layout {
        Layout::LogsOwn if n % 4 == 0 => vec!["--log-dir".to_string(), ".".to_string()],
        Layout::LogsOwn => vec!["--log".to_string(), format!("t{n}.jsonl")],
        Layout::CwdTmp => vec![
            "--log-dir".to_string(),
            world.path(&format!("tmp-logs-{n}")).display().to_string(),
        ],
        Layout::Own | Layout::Parent => Vec::new(),
    };
    args.extend(logs);
    let path = "/usr/local/bin:/usr/bin:/bin";
    let configure = |c: &mut Command| {
        c.current_dir(&cwd)
            .env("PATH", path)
            .env("TMPDIR", world.path(""));
    };
    let ran = match user {
        User::Root => allfives_with(&args, configure),
        User::Nobody => allfives_as_nobody(&args, &world.dir.path().join(".."), configure),
    };
    let names: Vec<&str> = table.iter().map(|&k| PAIR_KINDS[k].name).collect();
    let cell = format!("{user:?} {layout:?} {names:?}");
    if ran.code != Some(0) {
        return Err(format!("{cell}: exit {:?}: {}", ran.code, ran.stderr));
    }
    let report = ran.json();
    let rows = report["standings"]["entrants"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if let Some(probed) = rows.iter().find_map(probed_by_honest) {
        return Err(format!("{cell}: {probed}"));
    }
    match rows.iter().find(|r| r["faults"] != serde_json::json!({})) {
        Some(row) => Err(format!(
            "{cell}: {} faults: {}",
            row["name"], report["games"]
        )),
        None if rows.len() == table.len() => Ok(()),
        None => Err(format!("{cell}: {} entrants in {report}", rows.len())),
    }
}

/// Every table of every layout in `world`, three matches at a time; the cells that failed.
fn pair_failures(world: &World, user: User, layouts: &[Layout]) -> Vec<String> {
    let java = java();
    let cells: Vec<(Layout, usize, Vec<usize>)> = layouts
        .iter()
        .flat_map(|&l| {
            tables(l)
                .into_iter()
                .enumerate()
                .map(move |(n, t)| (l, n, t))
        })
        .collect();
    let mut failed = Vec::new();
    for chunk in cells.chunks(3) {
        std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|(l, n, t)| s.spawn(|| pair_match(world, user, (*n, t), *l, &java)))
                .collect();
            for h in handles {
                if let Err(why) = h.join().expect("a cell's thread") {
                    failed.push(why);
                }
            }
        });
    }
    failed
}

/// A folder `nobody` owns, for its home and its worlds: under the build's folder (the "home"
/// kind of place) or under /tmp.
fn nobody_home(under_tmp: bool) -> TempDir {
    let parent = match under_tmp {
        true => std::env::temp_dir(),
        false => PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
    };
    let home = tempfile::Builder::new()
        .prefix("allfives-nobody-")
        .tempdir_in(parent)
        .expect("a home for nobody");
    fs::set_permissions(home.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    run_ok(Command::new("chown").arg("65534:65534").arg(home.path()));
    home
}

/// Every ordered pair of kinds plays in one match, in every layout (the bot's own folder, its
/// folder as the log folder, a parent folder, /tmp itself as the working directory), under the
/// home folder and under /tmp, run by root: no fault.
#[test]
fn every_pair_of_kinds_plays_in_every_layout_as_root() {
    for under_tmp in [false, true] {
        let parent = match under_tmp {
            true => std::env::temp_dir(),
            false => home(),
        };
        let world = World::new(&parent);
        world.build_pairs();
        let mut layouts = vec![Layout::Own, Layout::LogsOwn, Layout::Parent];
        if under_tmp {
            layouts.push(Layout::CwdTmp);
        }
        assert_none(pair_failures(&world, User::Root, &layouts));
        sandbox_clean(&world);
    }
}

/// As above, the referee run by an ordinary user (whose bots run as that user).
#[test]
fn every_pair_of_kinds_plays_in_every_layout_as_an_ordinary_user() {
    for under_tmp in [false, true] {
        let home = nobody_home(under_tmp);
        let world = World::new(home.path());
        world.build_pairs();
        run_ok(
            Command::new("chown")
                .args(["-R", "65534:65534"])
                .arg(world.dir.path()),
        );
        let mut layouts = vec![Layout::Own, Layout::LogsOwn, Layout::Parent];
        if under_tmp {
            layouts.push(Layout::CwdTmp);
        }
        assert_none(pair_failures(&world, User::Nobody, &layouts));
        sandbox_clean(&world);
    }
}

/// A tournament mixing every kind of the pairs (a gauntlet of the builtin against every other
/// kind, one deal each, two workers), from the parent folder, run by root: no fault in any
/// game (one entrant's folder had been hidden from games it did not even play in).
#[test]
fn a_tournament_mixing_every_kind_has_no_fault() {
    let world = World::new(&home());
    world.build_pairs();
    let java = java();
    let last = PAIR_KINDS.len() - 1;
    let builtin_first: Vec<usize> = std::iter::once(last).chain(0..last).collect();
    let (_, bots) = pair_cell(&world, &builtin_first, Layout::Parent, &java);
    let mut args: Vec<String> = vec!["tournament".into()];
    args.extend(bots);
    args.extend(
        [
            "--format",
            "gauntlet",
            "--startup-ms",
            "60000",
            "--deals",
            "1",
            "--max-hands",
            "1",
            "--json",
            "-j",
            "2",
            "--seed",
            "3",
            "--public-seed",
            "--out",
        ]
        .map(String::from),
    );
    args.push(world.path("t").display().to_string());
    let ran = allfives_with(&args, |c| {
        c.current_dir(world.path(""))
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("TMPDIR", world.path(""));
    });
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let report = ran.json();
    let rows = report["standings"]["entrants"]
        .as_array()
        .expect("entrants");
    assert_eq!(rows.len(), PAIR_KINDS.len(), "{report:#}");
    for row in rows {
        assert_eq!(
            row["faults"],
            serde_json::json!({}),
            "{}: {report:#}",
            row["name"]
        );
        assert_eq!(probed_by_honest(row), None);
    }
    sandbox_clean(&world);
}

/// A bots file's `dir = ""` is refused before any game, in one sentence (it was accepted, and
/// then every game "could not start").
#[test]
fn an_empty_dir_in_a_bots_file_is_refused_before_any_game() {
    let sb = Sandbox::new();
    let file = sb.path("bots.toml");
    write(
        &file,
        "[[bots]]\nname = \"a\"\ncommand = \"python3 bot.py\"\ndir = \"\"\n",
    );
    let ran = allfives(&[
        "match",
        "--bots",
        &file.display().to_string(),
        "builtin:greedy",
    ]);
    assert_eq!(ran.code, Some(2), "{}", ran.stdout);
    assert!(ran.stderr.contains("`dir` is empty"), "{}", ran.stderr);
    assert_eq!(ran.stderr.trim().lines().count(), 1, "{}", ran.stderr);
    assert!(!sb.path("allfives-logs").exists() && ran.stdout.is_empty());
}

/// A bot that does not find a file the containment hid: its fault names the path and the
/// option that grants it (it said only "No such file or directory").
#[test]
fn a_hidden_file_a_bot_does_not_find_is_named_with_the_option() {
    let sb = Sandbox::new();
    fs::set_permissions(sb.path(""), fs::Permissions::from_mode(0o755)).expect("chmod");
    let theirs = sb.path("b/data.txt");
    write(&theirs, "DATA OF B\n");
    python_bot(&sb.path("b"), "", "");
    python_bot(
        &sb.path("a"),
        &format!("open({:?}).read()", theirs.display().to_string()),
        "",
    );
    run_ok(Command::new("chmod").args(["-R", "o+rX"]).arg(sb.path("")));
    let ran = allfives(&[
        "match",
        &format!("a=python3 {}", sb.path("a/bot.py").display()),
        &format!("b=python3 {} {}", sb.path("b/bot.py").display(), sb.token()),
        "--max-hands",
        "1",
        "--log-dir",
        &sb.unused_logs().display().to_string(),
    ]);
    // It fails before its hello: a bot that could not start, exit 4.
    assert_eq!(ran.code, Some(4), "{}", ran.stderr);
    let said = format!("{} exists but the containment hid it", theirs.display());
    assert!(ran.stdout.contains(&said), "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains(&format!("--bot-read {}", theirs.display())),
        "{}",
        ran.stdout
    );
}

/// A bot whose program cannot be started says why: here its `#!` line names an interpreter that
/// does not exist (it said only "No such file or directory").
#[test]
fn a_start_that_fails_names_what_is_missing() {
    let sb = Sandbox::new();
    executable(&sb.path("bot"), "#!/nonexistent/python3\n");
    let ran = allfives_with(
        &["match", "./bot", "builtin:greedy", "--max-hands", "1"],
        |c| {
            c.current_dir(sb.path(""));
        },
    );
    assert_eq!(ran.code, Some(4), "{}", ran.stderr);
    let said = "./bot names the interpreter /nonexistent/python3 on its #! line";
    assert!(ran.stdout.contains(said), "{}", ran.stdout);
}

/// `check` from /tmp itself, the bot in a folder under it (every check failed there: nothing
/// under /tmp was bound into the bot's private /tmp when the working directory was /tmp).
#[test]
fn check_passes_with_tmp_itself_as_the_working_directory() {
    let dir = tempfile::Builder::new()
        .prefix("allfives-compat-")
        .tempdir_in("/tmp")
        .expect("a folder under /tmp");
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    python_bot(&dir.path().join("bot"), "", "");
    run_ok(Command::new("chmod").args(["-R", "o+rX"]).arg(dir.path()));
    let rel = dir
        .path()
        .join("bot/bot.py")
        .strip_prefix("/tmp")
        .expect("made under /tmp")
        .display()
        .to_string();
    // A failed check keeps its logs: in the folder, which the test removes.
    let ran = allfives_with(&["check".to_string(), format!("python3 {rel}")], |c| {
        c.current_dir("/tmp").env("TMPDIR", dir.path());
    });
    assert_eq!(ran.code, Some(0), "{}{}", ran.stdout, ran.stderr);
}
