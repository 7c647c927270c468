//! Partners that signal through what the kernel shares between every reader of a file: locks
//! on a file both can read (`cheat_signals_with_locks.py`: byte-range locks probed with
//! `F_GETLK`, open-file-description locks, `flock`). Contained, the reader reads nothing; with
//! `--no-sandbox` (the control) it reads its partner's hand at nearly every turn.

use std::collections::BTreeSet;
use std::fs;

use crate::harness::*;

/// What the reader made of its partner's locks in one 4-player partnership game: its readings,
/// and how many of them were a hand its partner really held.
struct Readings {
    all: usize,
    exact: usize,
    /// The protections in force, from the log's header.
    in_force: String,
    /// What the log's header says was not in force.
    missing: String,
}

/// Plays the lock-signalling partners (bots 0 and 2) against two builtins with `mode` locks.
fn signalled(mode: &str, options: &[&str]) -> Readings {
    let sb = Sandbox::new();
    let bots = [
        format!(
            "r={}",
            sb.fixture("cheat_signals_with_locks", &["receive", mode])
        ),
        "b=builtin:greedy".to_string(),
        format!(
            "s={}",
            sb.fixture("cheat_signals_with_locks", &["send", mode])
        ),
        "d=builtin:greedy".to_string(),
    ];
    // A public seed: the same deals every run, so the game is long enough to tell.
    let mut all = vec!["--seed", "5", "--public-seed", "--target", "100"];
    all.extend(options);
    let (ran, _) = play(&sb, &bots, &all);
    assert!(!ran.stdout.contains("forfeits"), "{}", ran.stdout);
    let stderr = |name: &str| fs::read_to_string(sb.logs().join(format!("{name}.stderr")));
    let (read, held) = (
        stderr("r").expect("r's stderr"),
        stderr("s").expect("s's stderr"),
    );
    let masks = |text: &str, word: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix(word))
            .map(str::to_string)
            .collect()
    };
    let held: BTreeSet<String> = masks(&held, "HOLD ").into_iter().collect();
    let reads = masks(&read, "READ ");
    assert!(read.contains("TRIED"), "the cheat was not tried: {read}");
    sb.assert_no_bot_left();
    let header = &log_lines(&sb.log(1))[0];
    Readings {
        all: reads.len(),
        exact: reads
            .iter()
            .filter(|m| *m != "0" && held.contains(*m))
            .count(),
        in_force: header["sandbox"]["in_force"].to_string(),
        missing: header["sandbox"]["missing"].to_string(),
    }
}

fn assert_read_nothing(mode: &str) {
    let r = signalled(mode, &[]);
    assert!(r.all > 10, "too few turns to tell: {}", r.all);
    assert_eq!(r.exact, 0, "{} of {} readings exact", r.exact, r.all);
    assert!(
        r.in_force.contains("seccomp: file locks take no effect"),
        "{}",
        r.in_force
    );
}

fn assert_read_the_hand(mode: &str, options: &[&str]) -> Readings {
    let r = signalled(mode, options);
    assert!(r.exact * 10 > r.all * 9, "{} of {} exact", r.exact, r.all);
    r
}

#[test]
fn partners_read_nothing_through_byte_range_locks() {
    assert_read_nothing("fcntl");
}

#[test]
fn partners_read_nothing_through_open_file_description_locks() {
    assert_read_nothing("ofd");
}

#[test]
fn partners_read_nothing_through_flock() {
    assert_read_nothing("flock");
}

#[test]
fn without_the_sandbox_partners_read_each_other_through_byte_range_locks() {
    assert_read_the_hand("fcntl", &["--no-sandbox"]);
}

#[test]
fn without_the_sandbox_partners_read_each_other_through_flock() {
    assert_read_the_hand("flock", &["--no-sandbox"]);
}

/// The opt-out for trusted bots whose processes lock files between them: contained otherwise,
/// the locks take effect, and the log says partners could signal through them, and through
/// watches (the rest of the filter stays).
#[test]
fn with_bot_locks_partners_read_each_other_and_the_log_says_so() {
    let r = assert_read_the_hand("flock", &["--bot-locks"]);
    assert!(r.missing.contains("--bot-locks"), "{}", r.missing);
    assert!(r.missing.contains("watches (inotify)"), "{}", r.missing);
    assert!(
        !r.in_force.contains("file locks take no effect"),
        "{}",
        r.in_force
    );
    assert!(r.in_force.contains("key calls refused"), "{}", r.in_force);
}

/// A file watch (`inotify_init1`) is refused and counted by default; `--bot-locks` lets watches
/// through with the locks (a watch on a file both read sees a partner open it), and the log
/// says so.
#[test]
fn a_watch_is_refused_and_counted_unless_bot_locks_lets_it_through() {
    let sb = Sandbox::new();
    let bots = [
        sb.fixture("watches_a_file", &[]),
        "builtin:greedy".to_string(),
    ];
    for (options, works) in [(&[][..], false), (&["--bot-locks"][..], true)] {
        let mut all = vec!["--games", "1", "--seed", "5"];
        all.extend(options);
        let logs = sb.unused_logs();
        let (_, report) = play(&sb, &bots, &all);
        let said = fs::read_to_string(logs.join("watches_a_file.stderr")).expect("its stderr");
        assert_eq!(said.contains("WATCH ok"), works, "{options:?}: {said}");
        let probed = &report["standings"]["entrants"][0]["probed"];
        assert_eq!(probed.get("inotify").is_some(), !works, "{report:#}");
        let missing = log_lines(&logs.join("game-1.jsonl"))[0]["sandbox"]["missing"].to_string();
        assert_eq!(missing.contains("watches (inotify)"), works, "{missing}");
    }
    sb.assert_no_bot_left();
}
