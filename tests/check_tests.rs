//! `allfives check` against the sample bots (which must pass every step) and against
//! misbehaving bots (which must fail, for the right reason). Each run gets the sandbox as its
//! temporary directory, so that nothing is left in the system's.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::harness::{Ran, Sandbox, allfives, allfives_with, processes_holding, root, spawn_with};

/// Runs `allfives check` on a bot with a short move clock, `extra` options after it.
fn check_with(sb: &Sandbox, bot: &str, extra: &[&str]) -> Ran {
    let tmp = sb.path("tmp");
    fs::create_dir_all(&tmp).expect("the sandbox's temporary directory");
    let mut args = vec!["check", bot, "--move-ms", "1000"];
    args.extend(extra);
    allfives_with(&args, |command| {
        command.env("TMPDIR", &tmp);
    })
}

fn check(sb: &Sandbox, bot: &str) -> Ran {
    check_with(sb, bot, &[])
}

/// The check folders left in the sandbox's temporary directory.
fn left_folders(sb: &Sandbox) -> Vec<PathBuf> {
    fs::read_dir(sb.path("tmp"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

pub fn assert_passes(sb: &Sandbox, bot: &str) {
    let ran = check(sb, bot);
    assert_eq!(
        ran.code,
        Some(0),
        "check {bot} failed:\n{}\n{}",
        ran.stdout,
        ran.stderr
    );
    assert_eq!(ran.stdout.matches("PASS  ").count(), 7, "{}", ran.stdout);
    assert!(!ran.stdout.contains("FAIL"), "{}", ran.stdout);
    assert_eq!(
        left_folders(sb),
        Vec::<PathBuf>::new(),
        "a PASS keeps no folder"
    );
    sb.assert_no_bot_left();
}

/// A FAIL keeps its folder and names it.
fn assert_fails_keeping_logs(sb: &Sandbox, ran: &Ran) {
    assert_eq!(ran.code, Some(4), "{}\n{}", ran.stdout, ran.stderr);
    let kept = left_folders(sb);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(
        ran.stdout
            .contains(&format!("logs in {}", kept[0].display())),
        "{}",
        ran.stdout
    );
}

#[test]
fn the_python_sample_bots_pass() {
    for (name, args) in [("greedy_bot", &[][..]), ("random_bot", &["1"][..])] {
        let sb = Sandbox::new();
        assert_passes(&sb, &sb.sample(name, args));
    }
}

#[test]
fn the_javascript_sample_bot_passes() {
    let sb = Sandbox::new();
    let script = root().join("sample_bots/js/greedy_bot.js");
    assert_passes(&sb, &format!("node {} {}", script.display(), sb.token()));
}

#[test]
fn the_strong_rust_bot_passes() {
    let sb = Sandbox::new();
    let bot = crate::harness::strong_bot();
    assert_passes(&sb, &format!("{} --name {}", bot.display(), sb.token()));
}

#[test]
fn the_builtins_pass() {
    for name in ["builtin:random", "builtin:greedy"] {
        let sb = Sandbox::new();
        let ran = check(&sb, name);
        assert_eq!(ran.code, Some(0), "{}", ran.stdout);
    }
}

/// Each misbehaving bot fails the first position it is asked to choose in, with its fault.
#[test]
fn misbehaving_bots_fail_for_the_right_reason() {
    let cases = [
        ("slow", "timeout: did not answer within 1000 ms"),
        ("illegal", "illegal: "),
        ("wrong_id", "wrong_id: answered id"),
        ("garbage", "malformed: not a valid message"),
    ];
    for (fixture, reason) in cases {
        let sb = Sandbox::new();
        let ran = check(&sb, &sb.fixture(fixture, &[]));
        assert_fails_keeping_logs(&sb, &ran);
        let failures: Vec<&str> = ran
            .stdout
            .lines()
            .filter(|l| l.starts_with("FAIL"))
            .collect();
        assert!(
            failures.iter().any(|l| l.contains(reason)),
            "{fixture}: no FAIL line says '{reason}':\n{}",
            ran.stdout
        );
        assert!(ran.stdout.contains("PASS  handshake"), "{}", ran.stdout);
        sb.assert_no_bot_left();
    }
}

#[test]
fn a_bot_that_ignores_bye_fails_the_exit_step() {
    let sb = Sandbox::new();
    let ran = check(&sb, &sb.fixture("ignores_sigterm", &[]));
    assert_eq!(ran.code, Some(4), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("FAIL  exit: still running"),
        "{}",
        ran.stdout
    );
    sb.assert_no_bot_left();
}

#[test]
fn a_bot_that_exits_at_once_fails_the_handshake_only() {
    let sb = Sandbox::new();
    let ran = check(&sb, &sb.fixture("exits_at_once", &[]));
    assert_eq!(ran.code, Some(4), "{}", ran.stdout);
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert!(
        lines[0].starts_with("FAIL  handshake: crash"),
        "{}",
        ran.stdout
    );
    assert_eq!(ran.stdout.matches("PASS").count(), 0, "{}", ran.stdout);
}

/// The usual first stumbles of a bot author, each named with what the bot wrote.
#[test]
fn the_first_stumbles_are_explained() {
    let cases = [
        (
            "talks_first",
            "FAIL  handshake: malformed: not a valid message: expected value at line 1 column 1 (it wrote: \"starting up\")",
        ),
        (
            "unflushed",
            "FAIL  lead: timeout: did not answer within 1000 ms: it wrote no byte on stdout since its hello: is the output flushed after each answer?",
        ),
        (
            "no_newline",
            "FAIL  lead: timeout: did not answer within 1000 ms: a line arrived without its newline",
        ),
    ];
    for (fixture, expected) in cases {
        let sb = Sandbox::new();
        let ran = check(&sb, &sb.fixture(fixture, &[]));
        assert_fails_keeping_logs(&sb, &ran);
        assert!(
            ran.stdout.contains(expected),
            "{fixture}: no line says '{expected}':\n{}",
            ran.stdout
        );
        sb.assert_no_bot_left();
    }
}

#[test]
fn verbose_shows_the_bots_stderr_on_a_pass() {
    let sb = Sandbox::new();
    let bot = sb.fixture("talks_first", &["--quiet-stdout"]);
    let quiet = check(&sb, &bot);
    assert_eq!(quiet.code, Some(0), "{}", quiet.stdout);
    assert!(!quiet.stderr.contains("thinking"), "{}", quiet.stderr);
    let verbose = check_with(&sb, &bot, &["-v"]);
    assert_eq!(verbose.code, Some(0), "{}", verbose.stdout);
    assert!(
        verbose
            .stderr
            .contains("[talks_first] thinking about turn 1"),
        "{}",
        verbose.stderr
    );
    sb.assert_no_bot_left();
}

#[test]
fn check_and_match_share_their_time_limits() {
    for command in ["check", "match"] {
        let ran = allfives(&[command, "--help"]);
        let help = ran.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        for default in ["--move-ms <MS>", "[default: 1000]", "[default: 10000]"] {
            assert!(help.contains(default), "{command} --help:\n{}", ran.stdout);
        }
    }
}

#[test]
fn ctrl_c_stops_the_check_and_its_bot() {
    let sb = Sandbox::new();
    let tmp = sb.path("tmp");
    fs::create_dir_all(&tmp).expect("a temporary directory");
    let bot = sb.fixture("never_answers", &[]);
    let args: Vec<String> = ["check", &bot, "--move-ms", "60000"]
        .map(String::from)
        .to_vec();
    let mut child = spawn_with(&args, |command| {
        command.env("TMPDIR", &tmp);
    });
    // Wait, within a bound, until the bot runs (the referee's own command line holds the token
    // too).
    let deadline = Instant::now() + Duration::from_secs(20);
    let referee = child.id() as i32;
    let bot_runs = || {
        processes_holding(sb.token())
            .iter()
            .any(|&(pid, _)| pid != referee)
    };
    while !bot_runs() {
        assert!(Instant::now() < deadline, "the bot never started");
        std::thread::sleep(Duration::from_millis(5));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).expect("SIGINT");
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline + Duration::from_secs(10) {
            let _ = child.kill();
            panic!("check ignored SIGINT");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(status.code(), Some(130));
    sb.assert_no_bot_left();
}

/// A bots file of two bots, each in its own folder: `a` needs its `env` and its `write` grant
/// (it stops without them) and says on stderr whether it can read `b`'s folder.
fn two_bots_file(sb: &Sandbox) -> PathBuf {
    let script = r#"
import json, os, sys
if os.environ.get("GREETING") != "hi":
    sys.exit("no GREETING")
open("../out/written.txt", "w").write("from " + os.path.basename(os.getcwd()))
try:
    print("read b:", open("../b/secret.txt").read(), file=sys.stderr, flush=True)
except OSError as e:
    print("b hidden:", e.strerror, file=sys.stderr, flush=True)
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "hello", "id": m["id"]}), flush=True)
    elif m["type"] == "turn":
        c = m["view"]["legal"][0]
        print(json.dumps({"type": "move", "id": m["id"], "tile": c["tile"], "end": c["end"]}), flush=True)
    elif m["type"] == "bye":
        break
"#;
    for folder in ["a", "b", "out"] {
        fs::create_dir_all(sb.path(folder)).expect("a folder");
    }
    for bot in ["a", "b"] {
        fs::write(sb.path(&format!("{bot}/bot.py")), script).expect("a bot");
    }
    fs::write(sb.path("b/secret.txt"), "b's secret").expect("b's file");
    let file = sb.path("bots.toml");
    let token = sb.token();
    fs::write(
        &file,
        format!(
            "[[bots]]\nname = \"a\"\ncommand = \"python3 bot.py {token}\"\ndir = \"a\"\n\
             env = {{ GREETING = \"hi\" }}\nwrite = [\"out\"]\n\n\
             [[bots]]\nname = \"b\"\ncommand = \"python3 bot.py {token}\"\ndir = \"b\"\n"
        ),
    )
    .expect("the bots file");
    file
}

#[test]
fn check_bots_checks_a_bot_of_a_bots_file_as_it_plays() {
    let sb = Sandbox::new();
    let file = two_bots_file(&sb);
    let file = file.display().to_string();
    let ran = check_with(&sb, "a", &["--bots", &file, "-v"]);
    assert_eq!(ran.code, Some(0), "{}\n{}", ran.stdout, ran.stderr);
    assert_eq!(ran.stdout.matches("PASS  ").count(), 7, "{}", ran.stdout);
    assert_eq!(
        fs::read_to_string(sb.path("out/written.txt")).expect("its write grant"),
        "from a"
    );
    // Hidden as in a match with that file: `b`'s folder is `b`'s own.
    assert!(ran.stderr.contains("[a] b hidden"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("b's secret"), "{}", ran.stderr);
    sb.assert_no_bot_left();
}

#[test]
fn check_bots_names_the_bots_of_the_file_when_the_name_is_not_there() {
    let sb = Sandbox::new();
    let file = two_bots_file(&sb).display().to_string();
    let ran = check_with(&sb, "c", &["--bots", &file]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("has no bot named 'c' (it has a, b)"),
        "{}",
        ran.stderr
    );
    assert_eq!(left_folders(&sb), Vec::<PathBuf>::new());
}
