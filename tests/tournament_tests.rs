//! Tournaments end to end: every format and table, complete duplicate sets, resume after a kill,
//! shards merged, refused folders, two at once, a crashing entrant, interrupted --json, and
//! standings of a hand-made results file.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::harness::*;
use allfives::tournament::definition::Definition;
use allfives::tournament::seeds::derive;

/// Runs a tournament into `out` with `--json --quiet`; returns the run and its report.
fn tournament(out: &Path, args: &[&str]) -> (Ran, Value) {
    let mut all = vec!["tournament", "--json", "--quiet", "--out"];
    let out = out.display().to_string();
    all.push(&out);
    all.extend(args);
    let ran = allfives(&all);
    assert_eq!(ran.code, Some(0), "{all:?}: {}", ran.stderr);
    let report = ran.json();
    (ran, report)
}

fn results(out: &Path) -> Vec<Value> {
    fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

const GREEDY: &str = "greedy=builtin:greedy";
const RANDOM: &str = "random=builtin:random";
const RANDOM2: &str = "random2=builtin:random";
const GREEDY2: &str = "greedy2=builtin:greedy";

#[test]
fn every_format_plays_complete_duplicate_sets() {
    // (options, entrants, games expected, set size)
    let cases: [(&[&str], usize, usize); 6] = [
        (&["--players", "2"], 3, 3 * 2 * 2),
        (&["--players", "2", "--format", "gauntlet"], 4, 3 * 2 * 2),
        (&["--players", "3"], 4, 4 * 2 * 6),
        (&["--players", "4"], 3, 3 * 2 * 2),
        (&["--players", "4", "--splits"], 4, 3 * 2 * 4),
        (&["--players", "4", "--no-teams"], 4, 2 * 8),
    ];
    let names = [GREEDY, RANDOM, RANDOM2, GREEDY2];
    for (options, entrants, games) in cases {
        let sb = Sandbox::new();
        let out = sb.path("t");
        let mut args: Vec<&str> = names[..entrants].to_vec();
        args.extend(options);
        args.extend(["--deals", "2", "--seed", "3"]);
        let (_, report) = tournament(&out, &args);
        let lines = results(&out);
        assert_eq!(lines.len(), games, "{options:?}");
        let s = &report["standings"];
        assert_eq!(s["games"], games, "{options:?}");
        assert_eq!(s["unfinished_sets"], 0, "{options:?}");
        assert_eq!(report["complete"], true);
        // Each set (group, deal) holds every arrangement once.
        let mut sets: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
        for line in &lines {
            let key = format!("{}/{}", line["group"], line["deal"]);
            sets.entry(key)
                .or_default()
                .insert(line["arrangement"].as_u64().expect("n"));
            assert_replays(&out.join(line["log"].as_str().expect("a log")));
        }
        let size = games / sets.len();
        assert!(
            sets.values().all(|a| a.len() == size),
            "{options:?}: {sets:?}"
        );
        assert_eq!(s["complete_sets"], sets.len(), "{options:?}");
    }
}

#[test]
fn a_partnership_tournament_names_the_winning_team() {
    let sb = Sandbox::new();
    let (_, report) = tournament(
        &sb.path("t"),
        &[
            GREEDY,
            RANDOM,
            "--players",
            "4",
            "--deals",
            "3",
            "--seed",
            "1",
            "--public-seed",
        ],
    );
    let s = &report["standings"];
    assert_eq!(s["winner"]["names"], serde_json::json!(["greedy"]), "{s:#}");
    assert_eq!(s["teams"].as_array().map(Vec::len), Some(2));
}

#[test]
fn resume_after_a_kill_ends_as_an_uninterrupted_run() {
    let sb = Sandbox::new();
    let args = [
        GREEDY,
        RANDOM,
        RANDOM2,
        "--players",
        "3",
        "--deals",
        "6",
        "--seed",
        "8",
        "--public-seed",
        "-j",
        "1",
    ];
    let (_, whole) = tournament(&sb.path("whole"), &args);
    let cut = sb.path("cut");
    let mut spawn_args: Vec<String> = vec!["tournament".into(), "--quiet".into(), "--out".into()];
    spawn_args.push(cut.display().to_string());
    spawn_args.extend(args.iter().map(|a| a.to_string()));
    // Python-free but slow enough: kill as soon as some results exist.
    let mut child = spawn(&spawn_args);
    let deadline = Instant::now() + HUNG;
    loop {
        let n = fs::read_to_string(cut.join("results.jsonl")).map_or(0, |t| t.lines().count());
        if n >= 3 || child.try_wait().expect("wait").is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "no results");
        std::thread::sleep(Duration::from_millis(1));
    }
    let _ = kill(Pid::from_raw(child.id() as i32), Signal::SIGKILL);
    let _ = child.wait();
    // A torn last line, as a kill mid-write leaves.
    let mut text = fs::read_to_string(cut.join("results.jsonl")).expect("results");
    text.push_str("{\"id\":\"torn");
    fs::write(cut.join("results.jsonl"), text).expect("write");
    let (_, resumed) = tournament(&cut, &["--resume"]);
    assert_eq!(timeless(&resumed), timeless(&whole));
    assert_eq!(results(&cut).len(), results(&sb.path("whole")).len());
}

#[test]
fn shards_merged_equal_the_whole() {
    let sb = Sandbox::new();
    let key = sb.path("deal-key").display().to_string();
    let args = [
        GREEDY,
        RANDOM,
        RANDOM2,
        "--deals",
        "5",
        "--seed",
        "4",
        "--deal-key",
        &key,
    ];
    let (_, whole) = tournament(&sb.path("whole"), &args);
    let mut dirs = Vec::new();
    for i in 1..=3 {
        let dir = sb.path(&format!("shard{i}"));
        let shard = format!("{i}/3");
        let mut with = args.to_vec();
        with.extend(["--shard", &shard]);
        tournament(&dir, &with);
        dirs.push(dir.display().to_string());
    }
    let mut merge = vec!["standings".to_string(), "--json".to_string()];
    merge.extend(dirs);
    let ran = allfives(&merge);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let merged = ran.json();
    assert_eq!(merged["complete"], true);
    assert_eq!(timeless(&merged), timeless(&whole));
}

#[test]
fn resume_refuses_rule_options_that_change_the_stored_rules() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    tournament(&out, &[GREEDY, RANDOM, "--deals", "1", "--target", "100"]);
    let before = fs::read(out.join("results.jsonl")).expect("results");
    let dir = out.display().to_string();
    let changed = allfives(&["tournament", "--resume", "--out", &dir, "--target", "150"]);
    assert_eq!(changed.code, Some(2), "{}", changed.stderr);
    assert_eq!(changed.stderr.lines().count(), 1, "{}", changed.stderr);
    assert!(changed.stderr.contains("other rules"), "{}", changed.stderr);
    assert_eq!(
        fs::read(out.join("results.jsonl")).expect("results"),
        before
    );
    // The stored value given again is no change.
    let (_, report) = tournament(&out, &["--resume", "--target", "100", "--deals", "2"]);
    assert_eq!(report["rules"]["target"], 100);
}

#[test]
fn resume_refuses_clock_and_fault_options_that_differ_from_the_stored_ones() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    let stored = [
        "--move-ms",
        "700",
        "--on-fault",
        "fallback",
        "--max-faults",
        "2",
    ];
    let mut first = vec![GREEDY, RANDOM, "--deals", "1"];
    first.extend(stored);
    tournament(&out, &first);
    let dir = out.display().to_string();
    for (changed, flags) in [
        (
            &["--move-ms", "500", "--clock", "cpu"][..],
            "--move-ms, --clock",
        ),
        (&["--max-faults", "3"][..], "--max-faults"),
        (&["--on-fault", "forfeit"][..], "--on-fault"),
    ] {
        let mut args = vec!["tournament", "--resume", "--out", &dir];
        args.extend(changed);
        let ran = allfives(&args);
        assert_eq!(ran.code, Some(2), "{changed:?}: {}", ran.stderr);
        assert!(ran.stderr.contains(flags), "{changed:?}: {}", ran.stderr);
    }
    // The stored values typed again, and defaults left out: no change.
    let mut again = vec!["--resume", "--deals", "2"];
    again.extend(stored);
    tournament(&out, &again);
    assert_eq!(results(&out).len(), 4);
}

#[test]
fn a_folder_holding_a_tournament_is_refused_without_resume() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    tournament(&out, &[GREEDY, RANDOM, "--deals", "1"]);
    let before = fs::read(out.join("results.jsonl")).expect("results");
    let ran = allfives(&[
        "tournament",
        GREEDY,
        RANDOM,
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(2));
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert!(ran.stderr.contains("--resume"), "{}", ran.stderr);
    assert_eq!(
        fs::read(out.join("results.jsonl")).expect("results"),
        before
    );
    let other = allfives(&[
        "tournament",
        RANDOM,
        GREEDY,
        "--resume",
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(other.code, Some(2));
    assert!(
        other.stderr.contains("another tournament"),
        "{}",
        other.stderr
    );
}

#[test]
fn two_tournaments_at_once_keep_to_their_folders() {
    let sb = Sandbox::new();
    let (a, b) = (sb.path("a"), sb.path("b"));
    let args = |out: &Path| -> Vec<String> {
        let mut v: Vec<String> = [
            "tournament",
            "--quiet",
            "--deals",
            "20",
            "--seed",
            "2",
            "--public-seed",
            "--out",
        ]
        .map(String::from)
        .to_vec();
        v.push(out.display().to_string());
        v.extend([GREEDY, RANDOM].map(String::from));
        v
    };
    let (first, second) = (spawn(&args(&a)), spawn(&args(&b)));
    for child in [first, second] {
        let out = child.wait_with_output().expect("a run");
        assert_eq!(out.status.code(), Some(0));
    }
    for dir in [&a, &b] {
        let lines = results(dir);
        assert_eq!(lines.len(), 40);
        let ids: BTreeSet<&str> = lines
            .iter()
            .map(|l| l["id"].as_str().expect("id"))
            .collect();
        assert_eq!(ids.len(), 40, "no game twice");
        assert_eq!(fs::read_dir(dir.join("logs")).expect("logs").count(), 40);
    }
}

#[test]
fn an_entrant_that_always_crashes_does_not_stop_the_tournament() {
    let sb = Sandbox::new();
    let crash = format!("crasher={}", sb.fixture("exits_at_once", &[]));
    let (_, report) = tournament(&sb.path("t"), &[&crash, GREEDY, RANDOM, "--deals", "2"]);
    let rows = report["standings"]["entrants"].as_array().expect("rows");
    assert_eq!(rows[0]["name"], "crasher");
    assert_eq!(rows[0]["games"], 8);
    assert_eq!(rows[0]["losses"], 8);
    assert_eq!(rows[0]["faults"]["crash"], 8);
    assert_eq!(rows[1]["games"], 8);
    sb.assert_no_bot_left();
}

#[test]
fn an_interrupted_json_tournament_prints_the_standings_so_far() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    let mut args: Vec<String> = [
        "tournament",
        "--json",
        "--quiet",
        "--deals",
        "200",
        "-j",
        "1",
        "--out",
    ]
    .map(String::from)
    .to_vec();
    args.push(out.display().to_string());
    args.push(format!("py={}", sb.sample("greedy_bot", &[])));
    args.push(RANDOM.to_string());
    let mut child = spawn(&args);
    let deadline = Instant::now() + HUNG;
    while fs::read_to_string(out.join("results.jsonl")).map_or(0, |t| t.lines().count()) < 2 {
        assert!(child.try_wait().expect("wait").is_none(), "it ended");
        assert!(Instant::now() < deadline, "no results");
        std::thread::sleep(Duration::from_millis(5));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).expect("SIGINT");
    let out_put = child.wait_with_output().expect("it ends");
    assert_eq!(out_put.status.code(), Some(130));
    let report: Value = serde_json::from_slice(&out_put.stdout).expect("valid JSON");
    assert_eq!(report["complete"], false);
    let games = report["standings"]["games"].as_u64().expect("games");
    assert_eq!(games as usize, results(&out).len());
    sb.assert_no_bot_left();
}

/// A results line written by hand: seat 0 and seat 1 as (entrant, score, rank, moves, us each).
fn hand_line(
    deal: u64,
    arrangement: u64,
    seats: [(u64, i64, u64, u64, u64); 2],
    faults: Value,
) -> String {
    let names = ["a", "b"];
    let seat = |(e, _, rank, moves, us): (u64, i64, u64, u64, u64), side: u64| {
        let bucket = ((us as f64).log2() * 4.0).floor() as u64;
        serde_json::json!({"entrant": e, "name": names[e as usize], "side": side, "rank": rank,
            "moves": moves, "time_us": moves * us, "time_buckets": [[bucket, moves]]})
    };
    let ending = match faults.as_array().map_or(0, Vec::len) {
        0 => serde_json::json!({"kind": "target", "side": if seats[0].2 == 1 { 0 } else { 1 }}),
        _ => serde_json::json!({"kind": "forfeit", "seat": 0}),
    };
    serde_json::json!({
        "id": format!("0-1/{deal}/{arrangement}"), "game": arrangement + 1, "group": [0, 1],
        "deal": deal, "deal_seed": derive(1, deal), "arrangement": arrangement,
        "seed": derive(derive(1, deal), 0), "definition": hand_digest(),
        "teams": false, "seats": [seat(seats[0], 0), seat(seats[1], 1)],
        "scores": [seats[0].1, seats[1].1], "hands": 3, "ending": ending,
        "faults": faults, "log": null, "rerun": "",
    })
    .to_string()
}

/// The definition of the hand-made tournament: a and b, 2 deals, seed 1.
fn hand_definition() -> Value {
    serde_json::json!({
        "kind": "allfives-tournament", "version": 1,
        "entrants": [{"name": "a", "command": "builtin:greedy"}, {"name": "b", "command": "builtin:random"}],
        "format": "round-robin",
        "table": {"players": 2, "teams": false, "splits": false, "all_orders": false},
        "deals": 2, "seed": 1,
        "rules": {"players": 2, "teams": false, "hand_size": 9, "spinner": "first",
            "hand_end": "penalty", "target": 250, "finish": "immediate", "max_hands": 200},
        "clock": {"startup_ms": 10000, "move_ms": 1000, "bank_ms": 0},
        "on_fault": {"policy": "forfeit"}, "max_line": 65536, "shard": null,
    })
}

/// The digest each hand-made line carries, as the referee computes it.
fn hand_digest() -> String {
    let definition: Definition = serde_json::from_value(hand_definition()).expect("a definition");
    definition.digest_for(&[0, 1]).expect("entrants 0 and 1")
}

#[test]
fn standings_of_a_hand_made_results_file() {
    let sb = Sandbox::new();
    let dir = sb.path("t");
    fs::create_dir(&dir).expect("a folder");
    fs::write(dir.join("tournament.json"), hand_definition().to_string()).expect("write");
    let crash = serde_json::json!([{"seat": 0, "entrant": 1, "kind": "crash", "detail": "exited", "forfeit": true}]);
    let lines = [
        // Deal 0: a wins, then b wins (a pair of 1 for a).
        hand_line(
            0,
            0,
            [(0, 250, 1, 10, 2000), (1, 100, 2, 10, 1000)],
            serde_json::json!([]),
        ),
        hand_line(
            0,
            1,
            [(1, 250, 1, 9, 1000), (0, 150, 2, 10, 2000)],
            serde_json::json!([]),
        ),
        // Deal 1: a wins both (a pair of 2); b forfeits the second.
        hand_line(
            1,
            0,
            [(0, 250, 1, 10, 2000), (1, 50, 2, 10, 1000)],
            serde_json::json!([]),
        ),
        hand_line(1, 1, [(1, 0, 2, 10, 1000), (0, 30, 1, 10, 2000)], crash),
    ];
    // b's one slow move (100 ms) in game 2, as a line of its own would have it.
    let mut second: Value = serde_json::from_str(&lines[1]).expect("JSON");
    second["seats"][0]["moves"] = 10.into();
    second["seats"][0]["time_us"] = (9 * 1000 + 100_000).into();
    second["seats"][0]["time_buckets"] = serde_json::json!([[39, 9], [66, 1]]);
    let text = format!("{}\n{}\n{}\n{}\n", lines[0], second, lines[2], lines[3]);
    fs::write(dir.join("results.jsonl"), text).expect("write");
    let ran = allfives(&["standings", "--json", &dir.display().to_string()]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let report = ran.json();
    let s = &report["standings"];
    let (a, b) = (&s["entrants"][0], &s["entrants"][1]);
    assert_eq!(
        (a["wins"].clone(), a["losses"].clone()),
        (3.into(), 1.into())
    );
    assert_eq!(a["score_pct"], 75.0);
    assert_eq!(a["mean_rank"], 1.25);
    // For: (250 + 150 + 250 + 30) / 4 = 170; against: (100 + 250 + 50 + 0) / 4 = 100.
    assert_eq!(
        (a["points_for"].clone(), a["points_against"].clone()),
        (170.0.into(), 100.0.into())
    );
    assert_eq!(b["score_pct"], 25.0);
    assert_eq!(b["faults"]["crash"], 1);
    // a: every move 2 ms, its bucket [2^(43/4), 2^(44/4)) us: p99 2.048 ms.
    assert_eq!(a["mean_ms"], 2.0);
    assert!((a["p99_ms"].as_f64().expect("p99") - 2.048).abs() < 1e-9);
    // b: 39 moves of 1 ms and one of 100 ms: mean 3.475 ms; p99 the slow one's bucket edge,
    // 2^(67/4) us = 110.218 ms.
    assert!((b["mean_ms"].as_f64().expect("mean") - 3.475).abs() < 1e-9);
    assert!((b["p99_ms"].as_f64().expect("p99") - 110.218).abs() < 1e-3);
    // Their medians: the 1 ms bucket's edge 2^(40/4) us for b, 2.048 ms for a; the slowest: the
    // slow move's bucket edge for b, 2.048 ms again for a.
    assert!((a["median_ms"].as_f64().expect("median") - 2.048).abs() < 1e-9);
    assert!((a["slowest_ms"].as_f64().expect("slowest") - 2.048).abs() < 1e-9);
    assert!((b["median_ms"].as_f64().expect("median") - 1.024).abs() < 1e-9);
    assert!((b["slowest_ms"].as_f64().expect("slowest") - 110.218).abs() < 1e-3);
    // Pairs: a scored 1 on deal 0 and 2 on deal 1. Mean 0.75: Elo 400 log10(3) = 190.85;
    // spread 0.0625, se sqrt(0.0625 / 2) = 0.17678, LOS Phi(1.41421) = 0.92135; the interval's
    // low end 0.75 - 0.34648 = 0.40352: -400 log10(1 / 0.40352 - 1) = -67.89.
    let elo = &s["elo"][0];
    assert_eq!(elo["pentanomial"], serde_json::json!([0, 0, 1, 0, 1]));
    assert!((elo["elo"].as_f64().expect("elo") - 190.85).abs() < 0.01);
    assert!((elo["los"].as_f64().expect("los") - 0.92135).abs() < 1e-4);
    assert!((elo["interval"][0].as_f64().expect("low") + 67.89).abs() < 0.01);
    assert_eq!(s["winner"]["names"], serde_json::json!(["a"]));
    assert_eq!(report["complete"], true);
}

#[test]
fn sprt_stops_the_tournament_once_it_decides_and_stays_decided() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    let sprt = "elo0=0,elo1=20,alpha=0.05,beta=0.05";
    // Two workers: games still running when the test decides are recorded after it.
    let (_, report) = tournament(
        &out,
        &[
            GREEDY,
            RANDOM,
            "--deals",
            "5000",
            "--seed",
            "6",
            "--public-seed",
            "-j",
            "2",
            "--sprt",
            sprt,
        ],
    );
    let t = &report["standings"]["sprt"];
    assert_eq!(t["decision"], "h1", "{t:#}");
    let decided = &t["decided"];
    assert_eq!(decided["accepted"], "h1");
    assert!(decided["llr"].as_f64() >= t["upper"].as_f64(), "{t:#}");
    assert!(decided["pair"].as_u64() <= t["pairs"].as_u64());
    assert_eq!(report["complete"], false);
    let games = results(&out).len();
    assert!(games < 10_000);
    // The test is stored: standings replays it to the same decision, and --resume plays nothing.
    let ran = allfives(&["standings", "--json", &out.display().to_string()]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(ran.json()["standings"]["sprt"]["decided"], *decided);
    let (_, again) = tournament(&out, &["--resume"]);
    assert_eq!(again["standings"]["sprt"]["decided"], *decided);
    assert_eq!(
        results(&out).len(),
        games,
        "a decided test plays nothing more"
    );
    // Another test on resume is refused.
    let other = allfives(&[
        "tournament",
        "--quiet",
        "--resume",
        "--out",
        &out.display().to_string(),
        "--sprt",
        "elo0=0,elo1=5",
    ]);
    assert_refused(&other, "--resume keeps its test");
}

/// `ran` was refused (exit 2) with one line on stderr that says `says`.
fn assert_refused(ran: &Ran, says: &str) {
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert_eq!(ran.stderr.trim().lines().count(), 1, "{}", ran.stderr);
    assert!(ran.stderr.contains(says), "{}", ran.stderr);
}

#[test]
fn sprt_is_refused_where_it_does_not_apply() {
    let sb = Sandbox::new();
    let sprt = "elo0=0,elo1=10";
    let cases: [&[&str]; 2] = [
        &[GREEDY, RANDOM, RANDOM2, "--sprt", sprt],
        &[GREEDY, RANDOM, "--players", "3", "--sprt", sprt],
    ];
    for (i, case) in cases.iter().enumerate() {
        let out = sb.path(&format!("t{i}"));
        let mut args = vec!["tournament", "--quiet", "--deals", "1", "--out"];
        let shown = out.display().to_string();
        args.push(&shown);
        args.extend(*case);
        assert_refused(&allfives(&args), "--sprt tests two entrants");
        assert!(!out.join("tournament.json").exists(), "nothing played");
    }
    let out = sb.path("three");
    tournament(
        &out,
        &[GREEDY, RANDOM, RANDOM2, "--deals", "1", "--seed", "1"],
    );
    let ran = allfives(&["standings", &out.display().to_string(), "--sprt", sprt]);
    assert_refused(&ran, "--sprt tests two entrants");
}

/// A sequential test decides in the order one run records its pairs: shards, played apart,
/// have no such order, so a test is never split or merged across them.
#[test]
fn sprt_is_refused_across_shards() {
    let sb = Sandbox::new();
    let sprt = "elo0=0,elo1=10";
    let seeds = ["--seed", "4", "--public-seed", "--deals", "2"];
    let out = sb.path("split");
    let shown = out.display().to_string();
    let mut args = vec!["tournament", "-q", GREEDY, RANDOM, "--shard", "1/2"];
    args.extend(["--sprt", sprt, "--out", &shown]);
    args.extend(seeds);
    assert_refused(&allfives(&args), "cannot be split with --shard");
    let shards: Vec<String> = (1..=2)
        .map(|i| {
            let out = sb.path(&format!("s{i}"));
            let shard = format!("{i}/2");
            let mut args = vec![GREEDY, RANDOM, "--shard", &shard];
            args.extend(seeds);
            tournament(&out, &args);
            out.display().to_string()
        })
        .collect();
    let ran = allfives(&["standings", &shards[0], &shards[1], "--sprt", sprt]);
    assert_refused(&ran, "--sprt reads one tournament folder, not 2");
}

#[test]
fn a_worker_keeps_its_bot_processes_for_the_next_game_with_the_same_entrants() {
    // Each of the 6 arrangements of the 2 deals gets a process of its own, which plays both
    // deals in it: never a deal twice (with --reuse-processes, one process plays all 12).
    for (option, processes) in [(None, 6), (Some("--reuse-processes"), 1)] {
        keeps_processes(option, processes);
    }
}

fn keeps_processes(option: Option<&str>, processes: usize) {
    let sb = Sandbox::new();
    let received = sb.path("received.jsonl");
    let recorder = format!(
        "rec={}",
        sb.fixture("recorder", &[&received.display().to_string()])
    );
    let greedy = format!("py={}", sb.sample("greedy_bot", &[]));
    let mut args = vec![
        recorder.as_str(),
        &greedy,
        RANDOM,
        "--players",
        "3",
        "--deals",
        "2",
        "-j",
        "1",
        "--no-sandbox",
    ];
    args.extend(option);
    let (_, report) = tournament(&sb.path("t"), &args);
    assert_eq!(report["standings"]["games"], 12);
    let kinds: Vec<String> = fs::read_to_string(&received)
        .expect("the recorder's file")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON");
            kind(&v).to_string()
        })
        .collect();
    let count = |k: &str| kinds.iter().filter(|x| *x == k).count();
    assert_eq!(count("hello"), processes, "{option:?}");
    assert_eq!(count("game_start"), 12);
    assert_eq!(count("bye"), processes);
    sb.assert_no_bot_left();
}

#[test]
fn a_second_ctrl_c_stops_every_bot_at_once_and_keeps_the_results() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    let mut args: Vec<String> = ["tournament", "--json", "--quiet", "--deals", "500", "--out"]
        .map(String::from)
        .to_vec();
    args.push(out.display().to_string());
    args.push(format!("py={}", sb.sample("greedy_bot", &[])));
    args.push(format!("py2={}", sb.sample("random_bot", &[])));
    let mut child = spawn(&args);
    let deadline = Instant::now() + HUNG;
    while fs::read_to_string(out.join("results.jsonl")).map_or(0, |t| t.lines().count()) < 1 {
        assert!(child.try_wait().expect("wait").is_none(), "it ended");
        assert!(Instant::now() < deadline, "no results");
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = Pid::from_raw(child.id() as i32);
    kill(pid, Signal::SIGINT).expect("SIGINT");
    std::thread::sleep(Duration::from_millis(20));
    kill(pid, Signal::SIGINT).expect("a second SIGINT");
    let ended = child.wait_with_output().expect("it ends");
    assert_eq!(ended.status.code(), Some(130));
    let report: Value = serde_json::from_slice(&ended.stdout).expect("valid JSON");
    assert_eq!(report["complete"], false);
    assert_eq!(
        report["standings"]["games"].as_u64().expect("games") as usize,
        results(&out).len()
    );
    sb.assert_no_bot_left();
}

#[test]
fn every_results_line_reruns_its_game_alone() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    tournament(
        &out,
        &[
            GREEDY,
            RANDOM,
            RANDOM2,
            "--players",
            "3",
            "--deals",
            "2",
            "--seed",
            "12",
            "--public-seed",
        ],
    );
    for line in results(&out).iter().step_by(5) {
        let rerun = line["rerun"].as_str().expect("a rerun command");
        let mut words = shlex::split(rerun).expect("a command line");
        assert_eq!(words.remove(0), "allfives");
        let logs = sb.path(&format!(
            "rerun-{}",
            line["id"].as_str().expect("id").replace('/', "_")
        ));
        words.extend([
            "--json".to_string(),
            "--log-dir".into(),
            logs.display().to_string(),
        ]);
        let ran = allfives(&words);
        assert_eq!(ran.code, Some(0), "{rerun}: {}", ran.stderr);
        let alone = &ran.json()["games"][0];
        for key in ["seed", "scores", "hands", "ending"] {
            assert_eq!(alone[key], line[key], "{key} of {rerun}");
        }
        let names = |g: &Value| -> Vec<Value> {
            g["seats"]
                .as_array()
                .expect("seats")
                .iter()
                .map(|s| s["name"].clone())
                .collect()
        };
        assert_eq!(names(alone), names(line));
        assert_eq!(ranks(alone), ranks(line));
    }
}

#[test]
fn a_contained_entrant_plays_from_its_own_folder() {
    let sb = Sandbox::new();
    let folder = sb.path("bots/v1");
    fs::create_dir_all(&folder).expect("a folder");
    fs::copy(
        root().join("sample_bots/python/greedy_bot.py"),
        folder.join("bot.py"),
    )
    .expect("copy");
    let toml = format!(
        "[[bots]]\nname = \"v1\"\ncommand = \"python3 bot.py {}\"\ndir = \"bots/v1\"\n",
        sb.token()
    );
    fs::write(sb.path("bots.toml"), toml).expect("write");
    let file = sb.path("bots.toml").display().to_string();
    let (_, report) = tournament(&sb.path("t"), &["--bots", &file, GREEDY, "--deals", "2"]);
    let rows = report["standings"]["entrants"].as_array().expect("rows");
    assert_eq!(rows[0]["name"], "v1");
    assert_eq!(rows[0]["faults"], serde_json::json!({}), "{report:#}");
    assert!(rows[0]["moves"].as_u64().expect("moves") > 0);
    sb.assert_no_bot_left();
}

#[test]
fn a_ladder_plays_only_the_new_entrants_pairings() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    tournament(&out, &[GREEDY, RANDOM, "--deals", "2", "--seed", "5"]);
    let before = fs::read_to_string(out.join("results.jsonl")).expect("results");
    let (_, report) = tournament(&out, &["--resume", GREEDY, RANDOM, RANDOM2, "--deals", "3"]);
    let lines = results(&out);
    // 3 pairs x 3 deals x 2 seats: the 4 games already there are not played again.
    assert_eq!(lines.len(), 18);
    let after = fs::read_to_string(out.join("results.jsonl")).expect("results");
    assert!(after.starts_with(&before), "results are only appended");
    let ids: BTreeSet<&str> = lines
        .iter()
        .map(|l| l["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids.len(), 18, "no game twice");
    assert_eq!(report["standings"]["games"], 18);
    assert_eq!(report["entrants"].as_array().map(Vec::len), Some(3));
    let refused = allfives(&[
        "tournament",
        "--resume",
        "--out",
        &out.display().to_string(),
        RANDOM,
        GREEDY,
    ]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
}

#[test]
fn a_gauntlet_challenger_is_chosen_by_name_from_a_bots_file() {
    let sb = Sandbox::new();
    let bots = sb.path("bots.toml");
    let file = "[[bots]]\nname = \"r\"\ncommand = \"builtin:random\"\n\n[[bots]]\nname = \"g\"\ncommand = \"builtin:greedy\"\n\n[[bots]]\nname = \"r2\"\ncommand = \"builtin:random\"\n";
    fs::write(&bots, file).expect("a bots file");
    let out = sb.path("t");
    let (out_s, bots_s) = (out.display().to_string(), bots.display().to_string());
    let args = [
        "tournament",
        "--bots",
        &bots_s,
        "--format",
        "gauntlet",
        "--challenger",
        "g",
        "--deals",
        "2",
        "--seed",
        "3",
        "--public-seed",
        "--out",
        &out_s,
        "--standings-every",
        "4",
    ];
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    // The challenger against each opponent, not a winner line.
    assert!(
        ran.stdout
            .contains("challenger g against each opponent:\n  vs r: "),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("\n  vs r2: "), "{}", ran.stdout);
    assert!(!ran.stdout.contains("winner:"), "{}", ran.stdout);
    // Progress without a terminal says how long is left; standings blocks say when they were taken.
    assert!(ran.stderr.contains(" left; "), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("standings after 4 games:\n"),
        "{}",
        ran.stderr
    );
    // The challenger is stored first (entrant 0) and plays every game.
    for line in results(&out) {
        assert_eq!(line["group"][0], 0, "{line}");
        let names: Vec<&Value> = line["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|s| &s["name"])
            .collect();
        assert!(names.contains(&&Value::from("g")), "{line}");
    }
    let stored = fs::read_to_string(out.join("tournament.json")).expect("the definition");
    let stored: Value = serde_json::from_str(&stored).expect("JSON");
    assert_eq!(stored["entrants"][0]["name"], "g");
    // Refused: without a gauntlet, with an unknown name, or another challenger on resume.
    let refused: [&[&str]; 3] = [
        &[
            "tournament",
            "--bots",
            &bots_s,
            "--challenger",
            "g",
            "--out",
            &sb.path("x").display().to_string(),
        ],
        &[
            "tournament",
            "--bots",
            &bots_s,
            "--format",
            "gauntlet",
            "--challenger",
            "zz",
            "--out",
            &sb.path("y").display().to_string(),
        ],
        &[
            "tournament",
            "--resume",
            "--challenger",
            "r",
            "--out",
            &out_s,
        ],
    ];
    for (args, says) in refused.iter().zip([
        "--challenger needs --format gauntlet",
        "--challenger zz: no entrant",
        "whose challenger is g",
    ]) {
        assert_refused(&allfives(args), says);
    }
}
