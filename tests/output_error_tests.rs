//! Every command keeps README's promise about stdout: a full disk is exit 5 with one line on
//! stderr; a reader that went away is a quiet exit 141. One test a command, each form of it.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::harness::*;

/// How stdout fails.
#[derive(Debug, Clone, Copy)]
enum Broken {
    /// `/dev/full`: every write fails with "no space left".
    Full,
    /// A pipe whose read end was closed before the command started.
    Closed,
}

/// Runs `allfives args` in `dir` with a stdout that fails as `broken` says, and checks its exit
/// code and stderr.
fn assert_reports(dir: &Path, args: &[&str], broken: Broken) {
    let stdout = match broken {
        Broken::Full => Stdio::from(std::fs::File::create("/dev/full").expect("/dev/full exists")),
        Broken::Closed => {
            let (read, write) = nix::unistd::pipe().expect("a pipe");
            drop(read);
            Stdio::from(write)
        }
    };
    let ran = allfives_with(args, |command: &mut Command| {
        command.current_dir(dir).stdout(stdout);
    });
    match broken {
        Broken::Full => {
            assert_eq!(ran.code, Some(5), "{args:?} to {broken:?}: {}", ran.stderr);
            assert_eq!(ran.stderr.lines().count(), 1, "{args:?}: {}", ran.stderr);
            assert!(
                ran.stderr.contains("cannot write to stdout"),
                "{}",
                ran.stderr
            );
        }
        Broken::Closed => {
            assert_eq!(
                ran.code,
                Some(141),
                "{args:?} to {broken:?}: {}",
                ran.stderr
            );
            assert_eq!(ran.stderr, "", "{args:?}");
        }
    }
}

/// Each form in `forms`, to a full disk and to a closed pipe.
fn assert_every_form_reports(dir: &Path, forms: &[&[&str]]) {
    for form in forms {
        for broken in [Broken::Full, Broken::Closed] {
            assert_reports(dir, form, broken);
        }
    }
}

/// A folder holding a finished game's log (`logs/game-1.jsonl`) and a finished tournament
/// (`played`).
fn played() -> Sandbox {
    let sb = Sandbox::new();
    let logs = sb.logs().display().to_string();
    let played = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "--games",
        "1",
        "--seed",
        "5",
        "--public-seed",
        "--log-dir",
        &logs,
    ]);
    assert_eq!(played.code, Some(0), "{}", played.stderr);
    let out = sb.path("played").display().to_string();
    let tournament = allfives(&[
        "tournament",
        "builtin:greedy",
        "builtin:random",
        "--deals",
        "1",
        "--seed",
        "5",
        "--public-seed",
        "--quiet",
        "--out",
        &out,
    ]);
    assert_eq!(tournament.code, Some(0), "{}", tournament.stderr);
    sb
}

#[test]
fn match_reports_a_failed_stdout() {
    let sb = Sandbox::new();
    let (a, b) = ("builtin:greedy", "builtin:random");
    for (n, json) in [(1, None), (2, Some("--json"))] {
        for broken in [Broken::Full, Broken::Closed] {
            let logs = sb
                .path(&format!("logs-{n}-{broken:?}"))
                .display()
                .to_string();
            let mut args = vec!["match", a, b, "--games", "2", "--log-dir", &logs];
            args.extend(json);
            assert_reports(sb.path("").as_path(), &args, broken);
        }
    }
}

#[test]
fn tournament_reports_a_failed_stdout() {
    let sb = Sandbox::new();
    for json in [None, Some("--json")] {
        for broken in [Broken::Full, Broken::Closed] {
            let out = sb.path(&format!("t-{}-{broken:?}", json.is_some()));
            let out = out.display().to_string();
            let mut args = vec![
                "tournament",
                "builtin:greedy",
                "builtin:random",
                "--deals",
                "1",
                "--out",
                &out,
                "--quiet",
            ];
            args.extend(json);
            assert_reports(sb.path("").as_path(), &args, broken);
        }
    }
}

#[test]
fn standings_reports_a_failed_stdout() {
    let sb = played();
    assert_every_form_reports(
        &sb.path(""),
        &[&["standings", "played"], &["standings", "--json", "played"]],
    );
}

#[test]
fn replay_reports_a_failed_stdout_in_every_form() {
    let sb = played();
    let log = "logs/game-1.jsonl";
    assert_every_form_reports(
        &sb.path(""),
        &[
            &["replay", log],
            &["replay", "--json", log],
            &["replay", "--quiet", log],
            &["replay", "--turn", "3", log],
            &["replay", "--turn", "3", "--json", log],
            &["replay", "--turn", "3", "--ask", "builtin:greedy", log],
        ],
    );
    // The page is written (a new file each time); the line saying where is not.
    assert_reports(
        &sb.path(""),
        &["replay", "--html", "full.html", log],
        Broken::Full,
    );
    assert_reports(
        &sb.path(""),
        &["replay", "--html", "closed.html", log],
        Broken::Closed,
    );
}

#[test]
fn check_reports_a_failed_stdout() {
    let sb = Sandbox::new();
    assert_every_form_reports(&sb.path(""), &[&["check", "builtin:greedy"]]);
}

#[test]
fn schema_completions_and_man_report_a_failed_stdout() {
    let sb = Sandbox::new();
    assert_every_form_reports(
        &sb.path(""),
        &[
            &["schema"],
            &["schema", "results"],
            &["completions", "bash"],
            &["man"],
            &["man", "match"],
        ],
    );
}

/// Every error keeps its documented exit code when stderr cannot take its line (a full disk),
/// clap's own messages too: `eprintln!` panicked there (exit 101, "failed printing to stderr").
#[test]
fn an_error_keeps_its_code_when_stderr_is_full() {
    let sb = played();
    let forms: [(&[&str], i32); 9] = [
        (&["replay", "/nonexistent.jsonl"], 2),
        (&["--bogus"], 2),
        (&[], 2),
        (&["match"], 2),
        (&["standings", "/nonexistent"], 2),
        (&["replay", "logs/game-1.jsonl", "--turn", "9999"], 2),
        (
            &["match", "builtin:greedy", "builtin:random", "--games", "0"],
            2,
        ),
        (&["replay", "--seat", "7", "logs/game-1.jsonl"], 2),
        // A warning, then the note of a public seed, then the match.
        (
            &[
                "match",
                "builtin:greedy",
                "builtin:random",
                "--max-faults",
                "2",
                "--seed",
                "1",
                "--public-seed",
                "--log-dir",
                "warned",
            ],
            0,
        ),
    ];
    for (args, code) in forms {
        let full = std::fs::File::create("/dev/full").expect("/dev/full exists");
        let ran = allfives_with(args, |command: &mut Command| {
            command.current_dir(sb.path("")).stderr(Stdio::from(full));
        });
        assert_eq!(ran.code, Some(code), "{args:?} with stderr full");
    }
}

/// A match whose bot cannot start exits 4 with its line on stderr, of one game as of two
/// (one game exited 0 and said nothing).
#[test]
fn a_bot_that_cannot_start_is_exit_4_in_a_match_of_one_game() {
    let sb = Sandbox::new();
    for games in ["1", "2"] {
        let logs = sb.path(&format!("logs-{games}")).display().to_string();
        let ran = allfives(&[
            "match",
            "builtin:greedy",
            "/usr/bin/false",
            "--games",
            games,
            "--log-dir",
            &logs,
        ]);
        assert_eq!(ran.code, Some(4), "--games {games}: {}", ran.stderr);
        assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
        assert!(ran.stderr.contains("could not start"), "{}", ran.stderr);
        assert!(ran.stdout.contains("game 1:"), "{}", ran.stdout);
    }
}
