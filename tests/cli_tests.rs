//! The command line as a new user meets it: `--help` with every default, mistakes answered in
//! one line naming the rule, warnings for options that would do nothing, shell completions and
//! manual pages generated from the same definitions.

use std::collections::BTreeSet;
use std::fs;

use crate::harness::{Sandbox, allfives, root};

/// A run that must fail with exit code 2 and one line on stderr, in the referee's style.
fn assert_one_line_error(args: &[&str], says: &str) {
    let ran = allfives(args);
    assert_eq!(ran.code, Some(2), "{args:?}: {}", ran.stderr);
    let lines: Vec<&str> = ran.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: not one line:\n{}", ran.stderr);
    assert!(lines[0].starts_with("allfives: "), "{args:?}: {}", lines[0]);
    assert!(
        lines[0].contains(says),
        "{args:?}: '{}' lacks '{says}'",
        lines[0]
    );
    assert!(ran.stdout.is_empty(), "{args:?}: {}", ran.stdout);
}

#[test]
fn mistakes_get_one_line_naming_the_rule() {
    let two = ["match", "builtin:random", "builtin:greedy"];
    let with = |extra: &[&'static str]| [&two[..], extra].concat();
    assert_one_line_error(
        &with(&["--target", "-5"]),
        "the target must be a positive score",
    );
    let five = ["builtin:random"; 5];
    assert_one_line_error(&[&["match"][..], &five].concat(), "at most 4 bots");
    assert_one_line_error(&["match", "builtin:random"], "at least 2 bots");
    assert_one_line_error(&["match"], "at least 2 bots, not 0");
    assert_one_line_error(
        &with(&["--spinner", "sometimes"]),
        "[possible values: first, none, all]",
    );
    assert_one_line_error(&with(&["--games", "x"]), "--games");
    assert_one_line_error(&with(&["--frobnicate"]), "--frobnicate");
    assert_one_line_error(&["frobnicate"], "frobnicate");
    assert_one_line_error(&["man", "frobnicate"], "the commands are match");
}

/// The options of `match -h` that take a value, each with its help line.
fn value_options() -> Vec<(String, String)> {
    let ran = allfives(&["match", "-h"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    ran.stdout
        .lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .filter_map(|l| {
            let long = l.split_whitespace().find(|w| w.starts_with("--"))?;
            Some((long.trim_end_matches(',').to_string(), l.to_string()))
        })
        .collect()
}

#[test]
fn help_shows_every_default_and_the_number_of_bots() {
    let ran = allfives(&["match", "--help"]);
    assert!(
        ran.stdout
            .contains("Usage: allfives match [OPTIONS] <BOT> <BOT> [BOT] [BOT]"),
        "{}",
        ran.stdout
    );
    for (option, line) in value_options() {
        if line.contains('<') {
            assert!(
                line.contains("[default"),
                "{option} shows no default: {line}"
            );
        }
    }
    for rule in ["--spinner", "--hand-end", "--finish", "--on-fault"] {
        let (_, line) = value_options()
            .into_iter()
            .find(|(o, _)| o == rule)
            .unwrap_or_else(|| panic!("no {rule}"));
        assert!(line.contains("[possible values: "), "{line}");
    }
}

#[test]
fn readme_names_every_option_of_match() {
    let readme = fs::read_to_string(root().join("README.md")).expect("README.md");
    let table = readme
        .split("### Common options of `match`")
        .nth(1)
        .expect("README.md has the table of match's options");
    let documented: BTreeSet<&str> = table
        .split('`')
        .filter_map(|cell| cell.split_whitespace().next())
        .filter(|word| word.starts_with("--"))
        .collect();
    for (option, _) in value_options() {
        if option != "--help" {
            assert!(
                documented.contains(option.as_str()),
                "README lacks {option}"
            );
        }
    }
}

/// `match -q`, as `tournament -q`: no progress (a line per game), the standings still.
#[test]
fn a_quiet_match_prints_no_line_per_game() {
    let sb = Sandbox::new();
    let logs = sb.unused_logs().display().to_string();
    let ran = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "--games",
        "2",
        "--log-dir",
        &logs,
        "-q",
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(
        !ran.stdout.lines().any(|l| l.starts_with("game ")),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("winner"), "{}", ran.stdout);
    assert!(ran.stderr.is_empty(), "{}", ran.stderr);
}

#[test]
fn options_that_do_nothing_are_warned_of() {
    let sb = Sandbox::new();
    let run = |extra: &[&str]| {
        // Each run its own folder: logs are never overwritten.
        let logs = sb.path(&extra.join("")).display().to_string();
        let mut args = vec![
            "match",
            "builtin:random",
            "builtin:greedy",
            "--log-dir",
            &logs,
        ];
        args.extend(extra);
        let ran = allfives(&args);
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        ran.stderr
    };
    let warned = run(&[
        "--games",
        "3",
        "--max-faults",
        "5",
        "--no-teams",
        "--max-hands",
        "1",
    ]);
    for says in [
        "allfives: warning: --max-faults does nothing without --on-fault fallback",
        "allfives: warning: --no-teams does nothing with 2 bots",
        "allfives: warning: 3 games leave the last deal without all its 2 seatings",
    ] {
        assert!(warned.contains(says), "no '{says}' in:\n{warned}");
    }
    let quiet = run(&[
        "--games",
        "4",
        "--on-fault",
        "fallback",
        "--max-faults",
        "5",
        "--max-hands",
        "1",
    ]);
    assert!(!quiet.contains("warning"), "{quiet}");
}

#[test]
fn completions_and_manual_pages_come_from_the_definitions() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let ran = allfives(&["completions", shell]);
        assert_eq!(ran.code, Some(0), "{shell}: {}", ran.stderr);
        assert!(ran.stdout.contains("allfives"), "{shell}");
        assert!(ran.stdout.contains("move-ms"), "{shell}: no --move-ms");
    }
    let page = allfives(&["man"]);
    assert_eq!(page.code, Some(0), "{}", page.stderr);
    assert!(page.stdout.contains(".TH allfives 1"), "{}", page.stdout);
    assert!(page.stdout.contains("allfives\\-match"), "{}", page.stdout);
    let page = allfives(&["man", "match"]);
    assert_eq!(page.code, Some(0), "{}", page.stderr);
    assert!(
        page.stdout.contains(".TH allfives-match 1"),
        "{}",
        page.stdout
    );
    assert!(page.stdout.contains("\\-\\-move\\-ms"), "{}", page.stdout);
    assert!(page.stdout.contains("[default: 1000]"), "{}", page.stdout);
}

#[test]
fn logs_are_coloured_only_on_a_terminal() {
    let sb = Sandbox::new();
    let bot = sb.sample("greedy_bot", &[]);
    let logs = sb.logs().display().to_string();
    let args = [
        "match",
        &bot,
        "builtin:greedy",
        "--max-hands",
        "1",
        "--log-dir",
        &logs,
    ];
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_allfives"))
        .args(args)
        .current_dir(root())
        .env("RUST_LOG", "debug")
        .output()
        .expect("allfives runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("started"),
        "no trace of the bot's start:\n{stderr}"
    );
    assert!(
        !stderr.contains('\u{1b}'),
        "colour codes in a pipe:\n{stderr}"
    );
    sb.assert_no_bot_left();
}

#[test]
fn endless_inputs_are_refused_in_a_sentence() {
    let sb = Sandbox::new();
    let out = sb.path("out").display().to_string();
    // /dev/zero never ends; a FIFO that no one writes is empty, not waited on.
    let fifo = sb.path("bots.toml");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("a FIFO");
    for bots in ["/dev/zero".to_string(), fifo.display().to_string()] {
        let ran = allfives(&["tournament", "--bots", &bots, "--out", &out]);
        assert_eq!(ran.code, Some(2), "{bots}: {}", ran.stderr);
        assert!(ran.stderr.starts_with("allfives: "), "{}", ran.stderr);
    }
    let ran = allfives(&["replay", "/dev/zero"]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("more than 256 MiB"), "{}", ran.stderr);
    // A results file of one endless line.
    let folder = sb.path("folder");
    let d = folder.display().to_string();
    let played = allfives(&[
        "tournament",
        "--quiet",
        "--out",
        &d,
        "builtin:random",
        "builtin:greedy",
        "--deals",
        "1",
    ]);
    assert_eq!(played.code, Some(0), "{}", played.stderr);
    let mut results = fs::OpenOptions::new()
        .append(true)
        .open(folder.join("results.jsonl"))
        .expect("the results file");
    // A line cut inside its record: its words name no "line 2 column 0" of a one-line record.
    let whole = fs::read(folder.join("results.jsonl")).expect("the results");
    std::io::Write::write_all(&mut results, b"{\"id\":\n").expect("appended");
    let ran = allfives(&["standings", &d]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("at its end") && !ran.stderr.contains("column 0"),
        "{}",
        ran.stderr
    );
    fs::write(folder.join("results.jsonl"), whole).expect("restored");
    std::io::Write::write_all(&mut results, &vec![b'{'; 3 << 20]).expect("appended");
    let ran = allfives(&["standings", &folder.display().to_string()]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("longer than 1024 KiB"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_tournament_reading_a_silent_pipe_stops_on_sigterm() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let sb = Sandbox::new();
    let fifo = sb.path("bots.toml");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("a FIFO");
    // Held open for writing, never written: a reader waits for its bytes.
    let _writer = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .expect("the FIFO's write end");
    let out = sb.path("out").display().to_string();
    let args: Vec<String> = [
        "tournament",
        "--bots",
        &fifo.display().to_string(),
        "--out",
        &out,
    ]
    .map(String::from)
    .to_vec();
    let child = crate::harness::spawn(&args);
    let pid = child.id() as i32;
    let fds = format!("/proc/{pid}/fd");
    let start = std::time::Instant::now();
    while !fs::read_dir(&fds)
        .into_iter()
        .flatten()
        .flatten()
        .any(|fd| fs::read_link(fd.path()).is_ok_and(|l| l == fifo))
    {
        assert!(start.elapsed().as_secs() < 60, "the FIFO was never opened");
        std::thread::yield_now();
    }
    kill(Pid::from_raw(pid), Signal::SIGTERM).expect("signalled");
    let output = child.wait_with_output().expect("it ends");
    assert_eq!(output.status.code(), Some(130), "{output:?}");
}

#[test]
fn help_and_version_to_a_full_disk_fail_in_a_sentence() {
    for args in [&["--help"][..], &["--version"], &["help", "match"]] {
        let ran = crate::harness::allfives_with(args, |c| {
            c.stdout(fs::File::create("/dev/full").expect("/dev/full"));
        });
        assert_eq!(ran.code, Some(5), "{args:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("cannot write to stdout"),
            "{}",
            ran.stderr
        );
    }
}

#[test]
fn a_log_dir_that_is_a_file_and_a_report_page_to_stdout_are_refused_in_a_sentence() {
    let sb = Sandbox::new();
    let file = sb.path("file");
    fs::write(&file, "").expect("a file");
    let file = file.display().to_string();
    assert_one_line_error(
        &[
            "match",
            "builtin:random",
            "builtin:greedy",
            "--log-dir",
            &file,
        ],
        "is a file, not a folder",
    );
    let out = sb.path("t").display().to_string();
    let played = allfives(&[
        "tournament",
        "--quiet",
        "--out",
        &out,
        "builtin:random",
        "builtin:greedy",
        "--deals",
        "1",
    ]);
    assert_eq!(played.code, Some(0), "{}", played.stderr);
    let dash = root().join("-");
    assert_one_line_error(&["standings", &out, "--html", "-"], "not to stdout");
    assert!(!dash.exists(), "a file named - was written");
}

#[test]
fn pages_stopped_half_way_leave_nothing_that_a_rerun_refuses() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let sb = Sandbox::new();
    let t = sb.path("t").display().to_string();
    let played = allfives(&[
        "tournament",
        "--quiet",
        "--out",
        &t,
        "builtin:random",
        "builtin:greedy",
        "--deals",
        "40",
        "-j",
        "1",
    ]);
    assert_eq!(played.code, Some(0), "{}", played.stderr);
    let pages = sb.path("pages");
    let partial = sb.path(".pages.partial");
    let args: Vec<String> = ["replay", &t, "--html", &pages.display().to_string()]
        .map(String::from)
        .to_vec();
    let child = crate::harness::spawn(&args);
    let holds_a_page =
        |dir: &std::path::Path| fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    let start = std::time::Instant::now();
    while !holds_a_page(&pages) && !holds_a_page(&partial) {
        assert!(start.elapsed().as_secs() < 120, "no page was written");
        std::thread::yield_now();
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).expect("signalled");
    let stopped = child.wait_with_output().expect("it ends");
    assert_eq!(
        stopped.status.code(),
        Some(130),
        "it ran to its end before the signal, or died of it"
    );
    assert!(!partial.exists() && !pages.exists());
    let rerun = allfives(&args);
    assert_eq!(rerun.code, Some(0), "{}", rerun.stderr);
    assert!(pages.join("index.html").is_file() && !partial.exists());
    assert!(
        rerun
            .stdout
            .contains(": the pages of 80 games and their index are in "),
        "{}",
        rerun.stdout
    );
}

/// SIGTERM while replay pages are written ends the command with exit 130 and leaves no
/// folder behind, partial or not: a tournament's pages (`replay DIR --html OUT`) and those
/// beside its report (`standings --html FILE --replays`). It exited 143 and left
/// `.OUT.partial` or `.replay.partial`.
#[test]
fn a_sigterm_while_pages_are_written_leaves_no_folder() {
    use nix::sys::signal::{Signal, kill};
    let sb = Sandbox::new();
    let dir = sb.path("t");
    let d = dir.display().to_string();
    let played = allfives(&[
        "tournament",
        "--quiet",
        "--out",
        &d,
        "builtin:greedy",
        "builtin:random",
        "--deals",
        "1",
        "--seed",
        "3",
    ]);
    assert_eq!(played.code, Some(0), "{}", played.stderr);
    // The second game's log becomes a FIFO held open and never written: the pages stop there,
    // the first one written.
    let results = fs::read_to_string(dir.join("results.jsonl")).expect("the results");
    let second: serde_json::Value =
        serde_json::from_str(results.lines().nth(1).expect("two games")).expect("a line");
    let log = dir.join(second["log"].as_str().expect("a log file"));
    let _writer = crate::harness::silent_fifo(&log);
    let pages = sb.path("pages").display().to_string();
    let report = sb.path("report.html").display().to_string();
    for args in [
        vec!["replay", &d, "--html", &pages],
        vec!["standings", &d, "--html", &report, "--replays"],
    ] {
        let args: Vec<String> = args.into_iter().map(String::from).collect();
        let start = std::time::Instant::now();
        let child = crate::harness::spawn(&args);
        crate::harness::wait_until_open(child.id(), &log);
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        kill(pid, Signal::SIGTERM).expect("signalled");
        let ran = crate::harness::finish(child, &args, start);
        assert_eq!(ran.code, Some(130), "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.contains("interrupted"), "{}", ran.stderr);
        let left = sb.left_but("t");
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}

/// Slips that were taken without a word, each refused in a sentence: a bots file's env key
/// with a newline (which the bot received), `-j 0`, a bots file's `read` path that is not
/// there, and `--bot-read PATH` that is not there where no bot is asked (`replay`).
#[test]
fn an_env_key_with_a_newline_j_0_and_a_missing_read_path_are_refused() {
    let sb = Sandbox::new();
    let bot = root().join("sample_bots/python/greedy_bot.py");
    let bots = |name: &str, extra: &str| {
        let file = sb.path(name);
        fs::write(
            &file,
            format!(
                "[[bots]]\nname = \"a\"\ncommand = \"python3 {}\"\n{extra}\n",
                bot.display()
            ),
        )
        .expect("a bots file");
        file.display().to_string()
    };
    let newline = bots("newline.toml", "env = { \"X\\nY\" = \"1\" }");
    assert_one_line_error(
        &["check", "--bots", &newline, "a"],
        "cannot hold a control character",
    );
    let missing = bots("missing.toml", "read = [\"/nonexistent\"]");
    assert_one_line_error(
        &[
            "match",
            "--bots",
            &missing,
            "builtin:random",
            "--games",
            "1",
        ],
        "`read` /nonexistent: no such file or folder",
    );
    let out = sb.path("out").display().to_string();
    assert_one_line_error(
        &[
            "tournament",
            "builtin:greedy",
            "builtin:random",
            "-j",
            "0",
            "--out",
            &out,
        ],
        "-j 0 plays no game at once",
    );
    assert!(!sb.path("out").exists());
    let log = root().join("tests/fixtures/logs/format-1-four-players.jsonl");
    assert_one_line_error(
        &[
            "replay",
            &log.display().to_string(),
            "--bot-read",
            "/nonexistent",
        ],
        "--bot-read /nonexistent: no such file or folder",
    );
}
