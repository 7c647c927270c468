//! Standings depend on the set of results lines, never on their order: the same lines shuffled
//! give the same figures and the same winner (issue 30: eight identical randoms at four players
//! named five different winners in six shuffles, their scores summed in floats).

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::harness::*;

/// `standings DIR --json` without its history (the ratings as the lines were folded in, which
/// follows their order by design).
fn standings_without_history(dir: &Path) -> Value {
    let ran = allfives(&["standings", &dir.display().to_string(), "--json"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let mut report = ran.json();
    report["standings"]
        .as_object_mut()
        .expect("standings")
        .remove("history");
    report
}

/// `lines` in the order of a small deterministic generator (`round` picks the permutation).
fn shuffled(lines: &[&str], round: u64) -> Vec<String> {
    let mut state = round.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut order: Vec<usize> = (0..lines.len()).collect();
    for i in (1..order.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    order.iter().map(|&i| lines[i].to_string()).collect()
}

#[test]
fn shuffled_results_give_the_same_standings_and_winner() {
    let sb = Sandbox::new();
    let dir = sb.path("t");
    let mut args: Vec<String> = vec!["tournament".into()];
    args.extend((1..=8).map(|n| format!("r{n}=builtin:random")));
    args.extend(
        [
            "--players",
            "4",
            "--no-teams",
            "--deals",
            "2",
            "--seed",
            "5",
            "--public-seed",
            "-q",
            "--out",
        ]
        .map(String::from),
    );
    args.push(dir.display().to_string());
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let expected = standings_without_history(&dir);
    assert_eq!(
        expected["standings"]["winner"]["level"], true,
        "{expected:#}"
    );
    let results = fs::read_to_string(dir.join("results.jsonl")).expect("results");
    let lines: Vec<&str> = results.lines().collect();
    for round in 1..=6 {
        let copy = sb.path(&format!("shuffled-{round}"));
        fs::create_dir(&copy).expect("a folder for the copy");
        fs::copy(dir.join("tournament.json"), copy.join("tournament.json")).expect("copied");
        let mut text = shuffled(&lines, round).join("\n");
        text.push('\n');
        fs::write(copy.join("results.jsonl"), text).expect("written");
        assert_eq!(
            standings_without_history(&copy),
            expected,
            "shuffle {round}"
        );
    }
}

/// Issue 30: a folder whose test accepted H1 at one pair, its lines shuffled, read "undecided"
/// or decided at another pair, and `--resume` played on. Two close entrants make the LLR wander,
/// so the pair where it first crosses a bound depends on the order.
#[test]
fn a_shuffled_folder_keeps_its_sequential_tests_decision() {
    let sb = Sandbox::new();
    let dir = sb.path("t");
    let shown = dir.display().to_string();
    let ran = allfives(&[
        "tournament",
        "builtin:mix:0.2",
        "builtin:mix:0.35",
        "--deals",
        "5000",
        "--seed",
        "2",
        "--public-seed",
        "-j",
        "2",
        "--sprt",
        "elo0=0,elo1=10,alpha=0.05,beta=0.05",
        "--json",
        "--out",
        &shown,
    ]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let decided = ran.json()["standings"]["sprt"]["decided"].clone();
    assert_eq!(decided["accepted"], "h1", "{decided:#}");
    let results = fs::read_to_string(dir.join("results.jsonl")).expect("results");
    let lines: Vec<&str> = results.lines().collect();
    for round in 1..=6 {
        let mut text = shuffled(&lines, round).join("\n");
        text.push('\n');
        fs::write(dir.join("results.jsonl"), text).expect("written");
        let ran = allfives(&["standings", "--json", &shown]);
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        let read = &ran.json()["standings"]["sprt"]["decided"];
        assert_eq!(*read, decided, "shuffle {round}");
    }
    let resumed = allfives(&["tournament", "--resume", "-q", "--out", &shown]);
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    let after = fs::read_to_string(dir.join("results.jsonl")).expect("results");
    assert_eq!(
        after.lines().count(),
        lines.len(),
        "a decided test plays nothing more"
    );
}
