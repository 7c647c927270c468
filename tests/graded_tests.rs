//! Entrants of known strength (`builtin:mix:P`): the real binary ranks them in their true order,
//! replays their games alone, and plays the games the in-process bench plays.

use std::path::Path;

use serde_json::Value;

use crate::harness::{Sandbox, allfives, ranks};
use allfives::bot::builtin::Builtin;
use allfives::engine::rules::Rules;
use allfives::referee::builtin_game::{self, Scratch};

/// Runs a tournament into `out` and returns its report.
fn tournament(out: &Path, args: &[&str]) -> Value {
    let out = out.display().to_string();
    let mut all = vec!["tournament", "--json", "--quiet", "--out", &out];
    all.extend(args);
    let ran = allfives(&all);
    assert_eq!(ran.code, Some(0), "{all:?}: {}", ran.stderr);
    ran.json()
}

/// The batch ratings' names, best first.
fn batch_order(report: &Value) -> Vec<String> {
    report["standings"]["ratings"]["entrants"]
        .as_array()
        .expect("batch ratings")
        .iter()
        .map(|r| r["name"].as_str().expect("a name").to_string())
        .collect()
}

#[test]
fn six_graded_builtins_rank_in_their_true_order() {
    let sb = Sandbox::new();
    let p = ["0", "0.2", "0.4", "0.6", "0.8", "1"];
    let bots: Vec<String> = p.iter().map(|p| format!("builtin:mix:{p}")).collect();
    let mut args: Vec<&str> = bots.iter().map(String::as_str).collect();
    // 2,100 games; games to 100 points keep it quick.
    args.extend([
        "--deals",
        "70",
        "--target",
        "100",
        "--seed",
        "7",
        "--public-seed",
    ]);
    let report = tournament(&sb.path("t"), &args);
    assert_eq!(report["standings"]["games"], 2100);
    let truth: Vec<String> = p.iter().map(|p| format!("mix-{p}")).collect();
    assert_eq!(
        batch_order(&report),
        truth,
        "{:#}",
        report["standings"]["ratings"]
    );
}

#[test]
fn greedy_a_mix_and_random_rank_in_order_and_every_game_reruns_alone() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    let args = [
        "builtin:mix:0.5",
        "builtin:mix:1",
        "builtin:mix:0",
        "--deals",
        "20",
        "--target",
        "100",
        "--seed",
        "3",
        "--public-seed",
    ];
    let report = tournament(&out, &args);
    assert_eq!(batch_order(&report), ["mix-0", "mix-0.5", "mix-1"]);
    let lines = std::fs::read_to_string(out.join("results.jsonl")).expect("results.jsonl");
    let lines: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 120);
    for (n, line) in lines.iter().enumerate().step_by(13) {
        let rerun = line["rerun"].as_str().expect("a rerun command");
        let mut words = shlex::split(rerun).expect("a command line");
        assert_eq!(words.remove(0), "allfives");
        let logs = sb.path(&format!("rerun-{n}")).display().to_string();
        words.extend(["--json".to_string(), "--log-dir".into(), logs]);
        let ran = allfives(&words);
        assert_eq!(ran.code, Some(0), "{rerun}: {}", ran.stderr);
        let alone = &ran.json()["games"][0];
        for key in ["seed", "scores", "hands", "ending"] {
            assert_eq!(alone[key], line[key], "{key} of {rerun}");
        }
        assert_eq!(ranks(alone), ranks(line), "{rerun}");
    }
}

#[test]
fn a_mix_needs_a_probability_from_0_to_1() {
    for (bot, said) in [
        (
            "builtin:mix",
            "builtin:mix needs P, its probability of a random move",
        ),
        (
            "builtin:mix:2",
            "builtin:mix:2: P, the probability of a random move, must be a number from 0 to 1",
        ),
        (
            "builtin:mix:abc",
            "builtin:mix:abc: P, the probability of a random move, must be",
        ),
    ] {
        let ran = allfives(&["match", bot, "builtin:greedy", "--games", "1"]);
        assert_eq!(ran.code, Some(2), "{bot}: {}", ran.stderr);
        assert_eq!(ran.stderr.lines().count(), 1, "{bot}: {}", ran.stderr);
        assert!(ran.stderr.contains(said), "{bot}: {}", ran.stderr);
    }
}

#[test]
fn a_game_between_builtins_in_process_is_the_referees_game() {
    let sb = Sandbox::new();
    let logs = sb.logs().display().to_string();
    let bots = ["mix:0.3", "mix:0.7", "random"];
    let ran = allfives(&[
        "match",
        "builtin:mix:0.3",
        "builtin:mix:0.7",
        "builtin:random",
        "--games",
        "12",
        "--seed",
        "11",
        "--public-seed",
        "--json",
        "--log-dir",
        &logs,
    ]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let report = ran.json();
    let mut scratch = Scratch::default();
    for game in report["games"].as_array().expect("games") {
        let entrant: Vec<usize> = game["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|s| s["entrant"].as_u64().expect("an entrant") as usize)
            .collect();
        let seed = game["seed"].as_u64().expect("a seed");
        let make =
            |seat: usize, bot_seed| Builtin::new(bots[entrant[seat]], bot_seed).expect("a builtin");
        let played =
            builtin_game::play(Rules::new(3), seed, make, &mut scratch).expect("valid rules");
        assert_eq!(serde_json::json!(played.scores), game["scores"], "{game}");
        assert_eq!(serde_json::json!(played.ranks), ranks(game), "{game}");
        assert_eq!(serde_json::json!(played.hands), game["hands"], "{game}");
    }
}
