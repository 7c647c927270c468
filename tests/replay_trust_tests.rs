//! What `replay` no longer takes on trust: faults of a bot that did not start repeated, a fault
//! record the referee would not write (an input over its cap, a crash that quotes an input, an
//! `illegal` move that is legal), header fields the events contradict (a bank overdrawn,
//! `deal_file_hands` over `max_hands`), deals from a file said to be checked against the seed,
//! and a refusal that printed the same words for the log and the engine.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::*;
use crate::replay_tests::refused_at;

/// A finished two-player game between builtins, with draws (small hands), in `logs-N`.
fn log_of(sb: &Sandbox, bots: &[String], options: &[&str]) -> PathBuf {
    let (_, report) = play(sb, bots, options);
    PathBuf::from(report["games"][0]["log"].as_str().expect("a log path"))
}

fn builtins(sb: &Sandbox, options: &[&str]) -> PathBuf {
    let two = ["builtin:greedy".to_string(), "builtin:random".to_string()];
    log_of(
        sb,
        &two,
        &[
            &["--seed", "7", "--public-seed", "--hand-size", "5"][..],
            options,
        ]
        .concat(),
    )
}

fn lines_of(log: &Path) -> Vec<Value> {
    log_lines(log)
}

/// Replays `lines`: refused with exit 3 at line `line` (0: any) saying `says`.
fn refused(sb: &Sandbox, name: &str, lines: &[Value], line: usize, says: &str) {
    let lines: Vec<String> = lines.iter().map(Value::to_string).collect();
    refused_at(sb, name, &lines, line, &[says]);
}

fn index_of(lines: &[Value], kind_wanted: &str) -> usize {
    lines
        .iter()
        .position(|l| kind(l) == kind_wanted)
        .unwrap_or_else(|| panic!("no {kind_wanted} line"))
}

#[test]
fn a_bot_that_did_not_start_faults_once() {
    let sb = Sandbox::new();
    let bots = [
        sb.fixture("exits_at_once", &[]),
        "builtin:random".to_string(),
    ];
    let log = log_of(&sb, &bots, &["--seed", "1"]);
    let lines = lines_of(&log);
    let fault = index_of(&lines, "fault");
    assert!(
        !lines[..fault].iter().any(|l| kind(l) == "hand_start"),
        "the fault comes before the first deal"
    );
    assert_replays(&log);
    let mut repeated = lines.clone();
    for _ in 0..1000 {
        repeated.insert(fault, lines[fault].clone());
    }
    refused(
        &sb,
        "repeated",
        &repeated,
        fault + 2,
        "a second fault of seat 0 before the first deal",
    );
    sb.assert_no_bot_left();
}

#[test]
fn a_fault_record_is_what_the_referee_writes_for_its_kind() {
    let sb = Sandbox::new();
    let bots = [sb.fixture("garbage", &[]), "builtin:random".to_string()];
    let log = log_of(
        &sb,
        &bots,
        &[
            "--seed",
            "1",
            "--public-seed",
            "--on-fault",
            "fallback",
            "--max-faults",
            "3",
        ],
    );
    let lines = lines_of(&log);
    assert_replays(&log);
    let fault = index_of(&lines, "fault");
    let with = |change: &dyn Fn(&mut Value)| {
        let mut edited = lines.clone();
        change(&mut edited[fault]);
        edited
    };
    let huge = with(&|f| f["input"] = json!("x".repeat(100_000)));
    refused(
        &sb,
        "huge",
        &huge,
        fault + 1,
        "the fault's input is 100000 characters long; the referee keeps at most 200",
    );
    let crash = with(&|f| {
        f["kind"] = json!("crash");
        f["forfeit"] = json!(true);
    });
    refused(
        &sb,
        "crash",
        &crash,
        fault + 1,
        "a crash fault quotes an input",
    );
    let unquoted = with(&|f| {
        f["kind"] = json!("wrong_id");
        f.as_object_mut().expect("a fault").remove("input");
    });
    refused(
        &sb,
        "unquoted",
        &unquoted,
        fault + 1,
        "a wrong_id fault without its input",
    );
    // The fallback move that follows is legal: as the input of an `illegal` fault it is a lie.
    let fallback = &lines[fault + 1];
    let legal = json!({"tile": fallback["tile"], "end": fallback["end"]}).to_string();
    let illegal = with(&|f| {
        f["kind"] = json!("illegal");
        f["input"] = json!(legal);
    });
    refused(
        &sb,
        "illegal",
        &illegal,
        fault + 1,
        "is legal for seat 0 here",
    );
    sb.assert_no_bot_left();
}

#[test]
fn a_bank_overdrawn_over_the_game_is_refused() {
    let sb = Sandbox::new();
    let log = builtins(&sb, &["--bank-ms", "1"]);
    let mut lines = lines_of(&log);
    assert_replays(&log);
    // Each chosen move of seat 0 is made to take 1.5 ms of a 1 ms limit: within the limit plus
    // the 1 ms bank one by one, but the bank is spent by the third.
    lines[0]["clock"]["move_ms"] = json!(1);
    let mut third = None;
    let mut seen = 0;
    for (i, line) in lines.iter_mut().enumerate() {
        if kind(line) == "play" && line["seat"] == 0 && line.get("time_us").is_some() {
            line["time_us"] = json!(1500);
            seen += 1;
            if seen == 3 {
                third = Some(i);
            }
        } else if kind(line) == "play" && line.get("time_us").is_some() {
            line["time_us"] = json!(10);
        }
    }
    let third = third.expect("three chosen moves of seat 0");
    refused(
        &sb,
        "overdrawn",
        &lines,
        third + 1,
        "drew 1.500 ms from its bank of 1 ms",
    );
}

#[test]
fn deal_file_hands_over_max_hands_is_refused() {
    let sb = Sandbox::new();
    let mut lines = lines_of(&builtins(&sb, &[]));
    lines[0]["deal_file_hands"] = json!(59);
    lines[0]["rules"]["max_hands"] = json!(10);
    refused(
        &sb,
        "over",
        &lines,
        1,
        "deal_file_hands is 59, over max_hands 10",
    );
}

#[test]
fn a_refusal_names_the_field_the_words_leave_out() {
    let sb = Sandbox::new();
    let mut lines = lines_of(&builtins(&sb, &[]));
    let end = lines
        .iter()
        .position(|l| kind(l) == "hand_end" && l["next_leader"].is_u64())
        .expect("a hand won, whose winner leads next");
    let leader = lines[end]["next_leader"].as_u64().expect("a seat");
    lines[end]["next_leader"] = json!(1 - leader);
    refused(
        &sb,
        "leader",
        &lines,
        end + 1,
        &format!("\"next_leader\" is {}, written {leader}", 1 - leader),
    );
}

#[test]
fn deals_from_a_file_are_said_to_be_checked_against_the_rules_only() {
    let sb = Sandbox::new();
    let first = lines_of(&builtins(&sb, &[]));
    let deal = first[index_of(&first, "hand_start")]["deal"].clone();
    let file = sb.path("deal.json");
    fs::write(&file, deal.to_string()).expect("a deal file");
    let file = file.display().to_string();
    let two = ["builtin:greedy".to_string(), "builtin:random".to_string()];
    let mixed = log_of(
        &sb,
        &two,
        &["--deal", &file, "--hand-size", "5", "--seed", "3"],
    );
    let hands = lines_of(&mixed)
        .iter()
        .filter(|l| kind(l) == "hand_start")
        .count();
    assert!(hands >= 2, "{hands} hands");
    let said = assert_replays(&mixed);
    assert!(
        said.contains(&format!(
            "hand 1 came from a deal file, checked against the rules only; hands 2 to {hands} checked against the seed"
        )),
        "{said}"
    );
    let doc = allfives(&["replay", "--json", &mixed.display().to_string()]).json();
    assert_eq!(doc["deals_checked"], false);
    let only = log_of(
        &sb,
        &two,
        &["--deal", &file, "--hand-size", "5", "--max-hands", "1"],
    );
    let said = assert_replays(&only);
    assert!(
        said.contains("no deal checked against the seed: the hand came from a deal file"),
        "{said}"
    );
}

#[test]
fn a_target_or_hand_limit_the_events_contradict_is_refused() {
    let sb = Sandbox::new();
    let lines = lines_of(&builtins(&sb, &["--target", "100"]));
    let hands = lines.iter().filter(|l| kind(l) == "hand_start").count();
    assert!(hands >= 2, "{hands} hands");
    let last = lines.len();
    let with = |field: &str, to: Value| {
        let mut edited = lines.clone();
        edited[0]["rules"][field] = to;
        edited
    };
    // The scores pass a lower target before the game's logged end; a higher one is never
    // reached where the log ends the game; a lower hand limit ends it before its last hand.
    refused(
        &sb,
        "lower",
        &with("target", json!(10)),
        0,
        "the game is over",
    );
    refused(
        &sb,
        "higher",
        &with("target", json!(1000)),
        last,
        "the game ends before",
    );
    refused(
        &sb,
        "fewer",
        &with("max_hands", json!(hands - 1)),
        0,
        "the game is over",
    );
}

/// Writes `lines` as the log `name` in the sandbox.
fn written(sb: &Sandbox, name: &str, lines: &[Value]) -> String {
    let path = sb.path(name);
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    fs::write(&path, text.join("\n") + "\n").expect("the edited log");
    path.display().to_string()
}

/// A seat's name edited into a log prints escaped by `--turn K` too (its "scores:" line
/// printed an escape, a bidi override and a NUL raw), and a name of escapes wrapped in the full
/// text is never cut inside an escape (`\x1` on one line, `b` on the next).
#[test]
fn an_edited_name_prints_escaped_in_a_turn_and_wraps_whole() {
    let sb = Sandbox::new();
    let log = builtins(&sb, &[]);
    let mut lines = lines_of(&log);
    lines[0]["seats"][0]["bot"] = json!("ev\u{1b}[31mil\u{202e}X\u{0}Y");
    let edited = written(&sb, "named.jsonl", &lines);
    let ran = allfives(&["replay", &edited, "--turn", "3"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        !ran.stdout.contains(['\u{1b}', '\u{202e}', '\u{0}']),
        "{:?}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("ev\\x1b[31mil\\u{202e}X\\x00Y"),
        "{}",
        ran.stdout
    );
    lines[0]["seats"][0]["bot"] = json!(format!("a{}", "\u{1b}".repeat(60)));
    let edited = written(&sb, "escapes.jsonl", &lines);
    let ran = allfives(&["replay", &edited]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    for line in ran.stdout.lines() {
        assert_eq!(
            line.matches('\\').count(),
            line.matches("\\x1b").count(),
            "an escape cut in {line:?}"
        );
    }
}
