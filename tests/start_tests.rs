//! A match's configuration checked before any game (log files, names, a bot's environment,
//! deals), `--json` kept when the referee fails, and mistakes answered in plain words.

use std::fs;
use std::process::Command;

use serde_json::{Value, json};

use crate::harness::*;

/// Fails unless `ran` is exit 2 with one line on stderr that says `says`, and nothing on stdout.
fn assert_refused(ran: &Ran, says: &str) {
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert!(ran.stderr.contains(says), "'{}' lacks '{says}'", ran.stderr);
    assert!(ran.stdout.is_empty(), "{}", ran.stdout);
}

/// Runs `allfives args` in the sandbox's folder.
fn run_in(sb: &Sandbox, args: &[&str]) -> Ran {
    let dir = sb.path("");
    allfives_with(args, |command: &mut Command| {
        command.current_dir(dir);
    })
}

#[test]
fn a_bare_log_file_name_is_written_in_the_current_folder() {
    let sb = Sandbox::new();
    let two = [
        "match",
        "builtin:greedy",
        "builtin:random",
        "--seed",
        "1",
        "--public-seed",
    ];
    let ran = run_in(&sb, &[&two[..], &["--log", "g.jsonl", "--json"]].concat());
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(ran.json()["complete"], true);
    assert_replays(&sb.path("g.jsonl"));
}

#[test]
fn a_log_folder_holding_a_later_game_is_refused_before_the_first() {
    let sb = Sandbox::new();
    fs::create_dir(sb.logs()).expect("logs");
    fs::write(sb.log(5), "").expect("a game-5.jsonl");
    let logs = sb.logs().display().to_string();
    let ran = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "--games",
        "6",
        "--log-dir",
        &logs,
    ]);
    assert_refused(&ran, "game-5.jsonl exists already");
    assert!(!sb.log(1).exists(), "a game was played before the refusal");
    let file = sb.log(5).display().to_string();
    let ran = allfives(&["match", "builtin:greedy", "builtin:random", "--log", &file]);
    assert_refused(&ran, "game-5.jsonl exists already");
}

#[test]
fn names_are_checked_before_any_game() {
    let long = format!("{}=builtin:greedy", "n".repeat(300));
    let ran = allfives(&["match", &long, "builtin:random"]);
    assert_refused(&ran, "is too long: a name has at most 64 bytes");
    let ran = allfives(&["match", "a/b=builtin:greedy", "builtin:random"]);
    assert_refused(&ran, "'a/b' is not a valid bot name");
    let sb = Sandbox::new();
    for name in [
        "n".repeat(65),
        "spoof\u{202e}ed".into(),
        "a\u{200b}b".into(),
    ] {
        let file = bots_file(&sb, &[json!({"name": name, "command": "builtin:greedy"})]);
        let ran = allfives(&["match", "--bots", &file, "builtin:random"]);
        assert_eq!(ran.code, Some(2), "{name:?}: {}", ran.stderr);
        assert!(ran.stderr.contains("bot name"), "{}", ran.stderr);
        assert!(!ran.stderr.contains('\u{202e}'), "{}", ran.stderr);
    }
}

/// A bots file of `bots` in the sandbox; returns its path.
fn bots_file(sb: &Sandbox, bots: &[Value]) -> String {
    let path = sb.path(&format!(
        "bots-{}.json",
        fs::read_dir(sb.path("")).into_iter().flatten().count()
    ));
    fs::write(&path, json!({ "bots": bots }).to_string()).expect("a bots file");
    path.display().to_string()
}

#[test]
fn an_environment_no_process_could_start_with_is_refused() {
    let sb = Sandbox::new();
    let bot = sb.fixture("slow", &[]);
    let huge = "x".repeat(200 * 1024);
    let cases = [
        (json!({"A=B": "1"}), "cannot hold '='"),
        (json!({"": "1"}), "needs a name"),
        (json!({"A\u{0}B": "1"}), "NUL byte"),
        (json!({"A": "1\u{0}2"}), "NUL byte"),
        (json!({"A": huge}), "too large to start a process"),
    ];
    for (env, says) in cases {
        let file = bots_file(&sb, &[json!({"name": "e", "command": bot, "env": env})]);
        let ran = allfives(&["match", "--bots", &file, "builtin:random"]);
        assert_refused(&ran, says);
    }
    for setup in [json!({"env": {"A": "1"}}), json!({"dir": "."})] {
        let mut entry = json!({"name": "g", "command": "builtin:greedy"});
        entry
            .as_object_mut()
            .expect("an object")
            .extend(setup.as_object().expect("").clone());
        let file = bots_file(&sb, &[entry]);
        let ran = allfives(&["match", "--bots", &file, "builtin:random"]);
        assert_refused(
            &ran,
            "runs inside the referee: `dir` and `env` do not apply",
        );
    }
}

#[test]
fn a_failed_json_match_still_prints_an_incomplete_report() {
    let sb = Sandbox::new();
    // A log folder that is a file is refused before anything starts, in one sentence.
    fs::write(sb.path("taken"), "").expect("a file");
    let taken = sb.path("taken").display().to_string();
    let two = ["match", "--json", "builtin:greedy", "builtin:random"];
    let ran = allfives(&[&two[..], &["--log-dir", &taken]].concat());
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("is a file, not a folder"),
        "{}",
        ran.stderr
    );
    // A bot's stderr file that exists already.
    fs::create_dir(sb.logs()).expect("logs");
    fs::write(sb.logs().join("mine.stderr"), "").expect("a stderr file");
    let mine = format!("mine={}", sb.fixture("slow", &[]));
    let logs = sb.logs().display().to_string();
    let ran = allfives(&[
        "match",
        "--json",
        &mine,
        "builtin:random",
        "--log-dir",
        &logs,
    ]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_eq!(ran.json()["complete"], false);
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    sb.assert_no_bot_left();
}

#[test]
fn deals_past_the_hand_limit_are_refused_from_a_log_as_from_a_file() {
    let sb = Sandbox::new();
    let log = sb.path("long.jsonl").display().to_string();
    let ran = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "--seed",
        "2",
        "--public-seed",
        "--log",
        &log,
    ]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let hands = log_lines(&sb.path("long.jsonl"))
        .iter()
        .filter(|l| kind(l) == "hand_start")
        .count();
    assert!(hands >= 2, "a game of {hands} hand");
    let ran = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "--deal-from",
        &log,
        "--max-hands",
        "1",
    ]);
    assert_refused(
        &ran,
        "--deal-from: deal 2 would never be played: a game has at most 1 hand (max_hands)",
    );
    assert!(
        ran.stderr.contains("after the 1st or raise"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_move_written_with_strings_is_a_fault_in_the_protocols_words() {
    let sb = Sandbox::new();
    for (args, says) in [
        (
            &[][..],
            "`tile` must be two numbers from 0 to 6, as [1, 6], not a list ([\"",
        ),
        (&["--id"][..], "`id` must be a whole number from 0 up"),
    ] {
        let bot = sb.fixture("strings", args);
        let (_, report) = play(
            &sb,
            &[bot, "builtin:random".into()],
            &["--seed", "1", "--public-seed"],
        );
        let detail = report["games"][0]["faults"][0]["detail"]
            .as_str()
            .unwrap_or("");
        assert!(detail.contains(says), "{detail}");
        assert!(!detail.contains("expected u"), "{detail}");
    }
    sb.assert_no_bot_left();
}

#[test]
fn a_command_split_into_two_bots_gets_a_hint_to_quote_it() {
    let sb = Sandbox::new();
    fs::write(sb.path("minimal.pl"), "").expect("a script");
    let ran = run_in(&sb, &["match", "perl", "minimal.pl", "builtin:random"]);
    assert_refused(
        &ran,
        "quote the whole command line as one argument: 'perl minimal.pl'",
    );
    assert!(ran.stderr.contains("write ./minimal.pl"), "{}", ran.stderr);
}

#[test]
fn one_hand_is_a_hand_and_first_is_documented() {
    let sb = Sandbox::new();
    let log = sb.path("one.jsonl");
    let ran = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "--max-hands",
        "1",
        "--log",
        &log.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.stdout.contains("after 1 hand ("), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("unfinished sets: 1 (1 game)"),
        "{}",
        ran.stdout
    );
    let shown = allfives(&["replay", &log.display().to_string()]);
    // The rules line may be wrapped at 100 columns (its lines go on indented).
    assert!(
        shown
            .stdout
            .replace("\n  ", " ")
            .contains("at most 1 hand\n"),
        "{}",
        shown.stdout
    );
    let readme = fs::read_to_string(root().join("README.md")).expect("README");
    assert!(
        readme.contains("after `first:`"),
        "README does not explain the match line's first:"
    );
}
