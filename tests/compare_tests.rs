//! `allfives compare`: two versions played on the same deals, seats and seeded opponents, and
//! told apart deal by deal (issue 39).

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::harness::{Ran, Sandbox, allfives};

/// `allfives compare ARGS... --out DIR --json -q`, which must succeed; its report.
fn compare(dir: &Path, args: &[&str]) -> Value {
    let out = dir.display().to_string();
    let mut all = vec!["compare", "--out", &out, "--json", "-q", "-j", "2"];
    all.extend_from_slice(args);
    let ran = allfives(&all);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    ran.json()
}

/// Each game's points margin for entrant 0 (its score minus the other's), by id, from a
/// folder's results.jsonl: the figures compare sums, read here on their own.
fn margins(folder: &Path) -> HashMap<String, i64> {
    let text = std::fs::read_to_string(folder.join("results.jsonl")).expect("results");
    text.lines()
        .map(|l| {
            let line: Value = serde_json::from_str(l).expect("a results line");
            let seats = line["seats"].as_array().expect("seats");
            let seat = seats
                .iter()
                .position(|s| s["entrant"] == 0)
                .expect("entrant 0 plays");
            let side = seats[seat]["side"].as_u64().expect("a side") as usize;
            let scores: Vec<i64> = line["scores"]
                .as_array()
                .expect("scores")
                .iter()
                .map(|s| s.as_i64().expect("a score"))
                .collect();
            let others: i64 = (0..scores.len())
                .filter(|&s| s != side)
                .map(|s| scores[s])
                .sum();
            (
                line["id"].as_str().expect("an id").to_string(),
                scores[side] - others,
            )
        })
        .collect()
}

#[test]
fn per_deal_differences_sum_exactly_to_the_total() {
    let sb = Sandbox::new();
    let out = sb.path("c");
    let report = compare(
        &out,
        &[
            "builtin:greedy",
            "builtin:mix:0.3",
            "--against",
            "builtin:greedy",
            "builtin:random",
            "--deals",
            "30",
        ],
    );
    let units = report["points"]["units"].as_i64().expect("units");
    let by_deal: i64 = report["per_deal"]
        .as_array()
        .expect("deals")
        .iter()
        .map(|d| d["units"].as_i64().expect("units"))
        .sum();
    assert_eq!(by_deal, units);
    let (old, new) = (margins(&out.join("old")), margins(&out.join("new")));
    assert_eq!(old.len(), 120);
    let paired: i64 = old.iter().map(|(id, m)| new[id] - m).sum();
    assert_eq!(
        paired, units,
        "the total is NEW's margins minus OLD's over the same games"
    );
    assert_ne!(units, 0, "mix:0.3 plays otherwise than greedy");
    assert_eq!(report["pairs"], 120);
    assert_eq!(report["deals"], 30);
    let r = &report["results"];
    let counted = ["better", "same", "worse"]
        .iter()
        .map(|k| r[k].as_u64().expect("a count"))
        .sum::<u64>();
    assert_eq!(counted, 120);
    assert_eq!(
        r["elo"]["pentanomial"]
            .as_array()
            .expect("counts")
            .iter()
            .map(|c| c.as_u64().expect("a count"))
            .sum::<u64>(),
        120
    );
    assert!(out.join("compare.html").is_file());
    // The report validates against the schema `allfives schema compare` prints.
    let schema = allfives(&["schema", "compare"]);
    assert_eq!(schema.code, Some(0), "{}", schema.stderr);
    let validator = jsonschema::validator_for(&schema.json()).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn the_same_bot_twice_parts_nowhere() {
    let sb = Sandbox::new();
    let report = compare(
        &sb.path("c"),
        &[
            "builtin:greedy",
            "builtin:greedy",
            "--against",
            "builtin:mix:0.5",
            "--deals",
            "200",
        ],
    );
    assert_eq!(report["pairs"], 400);
    assert_eq!(report["counts"]["parted"], 0);
    assert_eq!(report["counts"]["split"], 0);
    assert_eq!(report["counts"]["same"], 400);
    assert_eq!(report["points"]["units"], 0);
    assert_eq!(report["groups"], serde_json::json!([]));
}

#[test]
fn a_planted_regression_tops_the_ranking() {
    let sb = Sandbox::new();
    let out = sb.path("c");
    let old = sb.fixture("planted_greedy", &[]);
    let new = sb.fixture("planted_greedy", &["--plant"]);
    let report = compare(
        &out,
        &[
            &old,
            &new,
            "--against",
            "builtin:greedy",
            // The test stops play once it decides (NEW loses some 150 points a deal: about the
            // 30th deal); 60 leaves it room, not more games.
            "--deals",
            "60",
            "--sprt",
            "delta=20",
        ],
    );
    let planted = "OLD scores with a double; NEW ";
    let top = report["groups"][0]["signature"].as_str().expect("a group");
    assert!(top.starts_with(planted), "{top}");
    let partings = report["partings"].as_array().expect("partings");
    assert!(partings.len() >= 10);
    for p in &partings[..10] {
        assert!(
            p["signature"]
                .as_str()
                .expect("a signature")
                .starts_with(planted),
            "{p}"
        );
        assert_eq!(p["new_info"]["planted"], true, "{p}");
        let turn = p["turn"].to_string();
        assert!(
            p["old_replay"]
                .as_str()
                .expect("a command")
                .ends_with(&format!("--turn {turn}"))
        );
    }
    // The command it gives finds that very decision.
    let command = partings[0]["new_replay"].as_str().expect("a command");
    let words: Vec<&str> = command.split(' ').skip(1).collect();
    let shown = allfives(&words);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    assert!(
        shown.stdout.contains("\"planted\":true"),
        "{}",
        shown.stdout
    );
    assert_eq!(
        report["sequential"]["decision"], "h0",
        "NEW is not better by 20 points a deal"
    );
    let page = std::fs::read_to_string(out.join("compare.html")).expect("the page");
    assert!(page.contains("Content-Security-Policy") && page.contains(planted));
    // Its script draws the summary, the groups and the top parting's two games, quietly.
    let dom = crate::browser_tests::quiet_dom(&sb, &out.join("compare.html"), "");
    for drawn in [
        "pairs of games",
        "NEW plays",
        "OLD plays",
        "The view as sent",
        "it holds",
    ] {
        assert!(dom.contains(drawn), "the page lacks {drawn:?}");
    }
}

/// The lines of a folder's results.jsonl, and the deals its tournament.json says.
fn played(folder: &Path) -> (usize, Value) {
    let results = std::fs::read_to_string(folder.join("results.jsonl")).expect("results");
    let definition = std::fs::read_to_string(folder.join("tournament.json")).expect("a definition");
    let definition: Value = serde_json::from_str(&definition).expect("JSON");
    (results.lines().count(), definition["deals"].clone())
}

#[test]
fn the_sequential_test_stops_play_once_decided() {
    let sb = Sandbox::new();
    let (old, new) = (
        sb.fixture("planted_greedy", &[]),
        sb.fixture("planted_greedy", &["--plant"]),
    );
    let seeded = [
        &old,
        &new,
        "--against",
        "builtin:greedy",
        "--public-seed",
        "--seed",
        "5",
    ];
    let stopped = sb.path("stopped");
    let report = compare(
        &stopped,
        &[&seeded[..], &["--deals", "500", "--sprt", "delta=20"]].concat(),
    );
    let test = &report["sequential"];
    assert_eq!(
        test["decision"], "h0",
        "NEW is not better by 20 points a deal"
    );
    let deals = report["deals"].as_u64().expect("deals");
    assert_eq!(report["deals_asked"], 500);
    // Play stops at the end of the round in which the test decides: 10 deals, a tenth more...
    assert!(deals <= 50, "played {deals} of 500 deals");
    assert!(
        test["deals"].as_u64().expect("its deals") <= deals,
        "{test}"
    );
    // The folders hold the deals played and no more.
    for side in ["old", "new"] {
        let (games, stored) = played(&stopped.join(side));
        assert_eq!(games as u64, 2 * deals, "{side}: two seats a deal");
        assert_eq!(stored, deals, "{side}");
    }
    // The deals played are those a run asked for them alone plays, game for game.
    let whole = compare(
        &sb.path("whole"),
        &[&seeded[..], &["--deals", &deals.to_string()]].concat(),
    );
    assert_eq!(whole["per_deal"], report["per_deal"]);
    assert_eq!(whole.get("deals_asked"), Some(&Value::from(deals)));
}

#[test]
fn an_opponent_that_ignores_its_seed_is_counted_and_said() {
    let sb = Sandbox::new();
    let opponent = sb.fixture("ignores_its_seed", &[]);
    let out = sb.path("c").display().to_string();
    let ran = allfives(&[
        "compare",
        "builtin:greedy",
        "builtin:greedy",
        "--against",
        &opponent,
        "--deals",
        "8",
        "--out",
        &out,
        "-q",
        "-j",
        "2",
    ]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.stdout.contains("does not follow its bot_seed"),
        "{}",
        ran.stdout
    );
    let again = allfives(&[
        "compare",
        "--from",
        &format!("{out}/old"),
        &format!("{out}/new"),
        "--json",
    ]);
    let report = again.json();
    assert!(report["counts"]["split"].as_u64().expect("a count") > 0);
    assert_eq!(
        report["counts"]["parted"], 0,
        "greedy against greedy never parts on its own"
    );
}

#[test]
fn two_entrants_of_one_folder_compare() {
    let sb = Sandbox::new();
    let dir = sb.path("t").display().to_string();
    let ran = allfives(&[
        "tournament",
        "old=builtin:greedy",
        "new=builtin:mix:0.5",
        "builtin:random",
        "--deals",
        "10",
        "--out",
        &dir,
        "-q",
        "--json",
    ]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let report = allfives(&["compare", "old", "new", "--from", &dir, "--json"]).json();
    // Each version's games against random (the game of the two against each other is left out).
    assert_eq!(report["pairs"], 20);
    assert_eq!(report["unpaired"], serde_json::json!([0, 0]));
    assert_eq!(report["old"]["name"], "old");
}

/// A run that must be refused with exit code 2 and a sentence saying `said`.
fn refused(ran: Ran, said: &str) {
    assert_eq!(ran.code, Some(2), "{ran:?}");
    assert!(
        ran.stderr.starts_with("allfives: ") && ran.stderr.contains(said),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("panicked"), "{}", ran.stderr);
}

#[test]
fn mistakes_are_refused_in_one_sentence() {
    let sb = Sandbox::new();
    let out = sb.path("c").display().to_string();
    refused(allfives(&["compare", "builtin:greedy"]), "two versions");
    refused(allfives(&["compare"]), "compare needs OLD and NEW");
    refused(
        allfives(&["compare", "builtin:greedy", "builtin:random", "--out", &out]),
        "--against",
    );
    assert!(!sb.path("c").exists(), "a refused run makes no folder");
    refused(
        allfives(&[
            "compare",
            "builtin:greedy",
            "builtin:random",
            "--against",
            "builtin:nope",
            "--out",
            &out,
        ]),
        "nope",
    );
    refused(
        allfives(&["compare", "--from", &sb.path("none").display().to_string()]),
        "alone",
    );
    refused(
        allfives(&[
            "compare",
            "a",
            "b",
            "--from",
            &sb.path("none").display().to_string(),
        ]),
        "holds no tournament.json",
    );
    refused(
        allfives(&[
            "compare",
            "a",
            "b",
            "--against",
            "builtin:greedy",
            "--sprt",
            "delta=0",
        ]),
        "delta",
    );
    // Two runs on their own seeds deal other games: refused, with the way out.
    for name in ["x", "y"] {
        let dir = sb.path(name).display().to_string();
        let ran = allfives(&[
            "tournament",
            "builtin:greedy",
            "builtin:random",
            "--deals",
            "1",
            "--out",
            &dir,
            "-q",
            "--json",
        ]);
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    }
    let (x, y) = (
        sb.path("x").display().to_string(),
        sb.path("y").display().to_string(),
    );
    refused(
        allfives(&["compare", "--from", &x, &y]),
        "other master seeds",
    );
    refused(
        allfives(&["compare", "greedy", "nobody", "--from", &x, &y]),
        "has no entrant \"nobody\"",
    );
    let made = compare(
        sb.path("c").as_path(),
        &[
            "builtin:greedy",
            "builtin:random",
            "--against",
            "builtin:greedy",
            "--deals",
            "1",
        ],
    );
    assert_eq!(made["deals"], 1);
    refused(
        allfives(&[
            "compare",
            "builtin:greedy",
            "builtin:random",
            "--against",
            "builtin:greedy",
            "--out",
            &out,
        ]),
        "holds a comparison already",
    );
}

#[test]
fn a_full_or_closed_stdout_is_said_as_for_every_command() {
    let sb = Sandbox::new();
    let out = sb.path("c");
    compare(
        &out,
        &[
            "builtin:greedy",
            "builtin:random",
            "--against",
            "builtin:greedy",
            "--deals",
            "2",
        ],
    );
    let (old, new) = (
        out.join("old").display().to_string(),
        out.join("new").display().to_string(),
    );
    let full = std::fs::File::create("/dev/full").expect("/dev/full exists");
    let ran = crate::harness::allfives_with(&["compare", "--from", &old, &new], |c| {
        c.stdout(full);
    });
    assert_eq!(ran.code, Some(5), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("cannot write to stdout"),
        "{}",
        ran.stderr
    );
    let (read, write) = nix::unistd::pipe().expect("a pipe");
    drop(read);
    let ran = crate::harness::allfives_with(&["compare", "--from", &old, &new, "--json"], |c| {
        c.stdout(std::process::Stdio::from(write));
    });
    assert_eq!(ran.code, Some(141), "{}", ran.stderr);
    assert_eq!(ran.stderr, "", "a reader that went away is a quiet exit");
}
