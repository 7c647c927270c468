//! Ratings the games cannot pin down are never printed as numbers (issue 30): partners always
//! together, and groups that never met, are "not rated" with the reason, in text, JSON and the
//! report page, whose charts leave them out.

use serde_json::Value;

use crate::browser_tests::{quiet_dom, text_of};
use crate::harness::*;

/// The 95% half-width of every rating printed in `ratings` (the standings' JSON).
fn half_widths(ratings: &Value) -> Vec<f64> {
    ratings["entrants"]
        .as_array()
        .expect("ratings")
        .iter()
        .filter_map(|r| r["interval"].as_array())
        .map(|i| (i[1].as_f64().expect("high") - i[0].as_f64().expect("low")) / 2.0)
        .collect()
}

#[test]
fn partners_always_together_are_not_rated_but_their_team_wins_by_score() {
    // Printed "+0.0 [-15227036.1, +15227036.1]" for each of the four.
    let sb = Sandbox::new();
    let bots = [
        "builtin:greedy",
        "builtin:random",
        "builtin:mix:0.5",
        "builtin:mix:0.2",
    ];
    let options = [
        "-g",
        "4",
        "--seed",
        "7",
        "--public-seed",
        "--max-hands",
        "3",
    ];
    let mut args: Vec<&str> = vec!["match"];
    args.extend(bots);
    args.extend(options);
    let logs = sb.path("logs");
    let logs = logs.display().to_string();
    args.extend(["--log-dir", &logs]);
    let text = allfives(&args);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert!(
        text.stdout.contains(
            "not rated: always partnered with mix-0.5: only their team's rating is fixed"
        ),
        "{}",
        text.stdout
    );
    // No rating line carries a number, an interval or a separation mark.
    let ratings = text
        .stdout
        .split("ratings (")
        .nth(1)
        .expect("a ratings table");
    for line in ratings
        .lines()
        .skip(2)
        .take_while(|l| !l.starts_with("winner"))
    {
        assert!(!line.contains('[') && !line.contains('%'), "{line}");
    }
    assert!(text.stdout.contains(" by score"), "{}", text.stdout);

    let again = sb.path("again").display().to_string();
    let last = args.len() - 1;
    args[last] = &again;
    args.push("--json");
    let json = allfives(&args);
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    let standings = &json.json()["standings"];
    let ratings = &standings["ratings"];
    assert_eq!(ratings["entrants"], serde_json::json!([]), "{ratings:#}");
    let not_rated = ratings["not_rated"].as_array().expect("not rated");
    assert_eq!(not_rated.len(), 4, "{ratings:#}");
    for n in not_rated {
        assert_eq!(n["status"], "not_rated");
        assert_eq!(n["reason"], "partners_together");
        assert_eq!(n["partners"].as_array().map(Vec::len), Some(1), "{n}");
    }
    assert_eq!(standings["winner"]["by"], "score");
}

/// A ladder of 100 random bots at 4 players, every one for itself, 200 games: 25 tables of 8
/// games, each of four entrants that meet no one else.
fn groups_apart(sb: &Sandbox) -> (std::path::PathBuf, Value) {
    let out = sb.path("ladder");
    let mut args: Vec<String> = [
        "tournament",
        "--format",
        "ladder",
        "-p",
        "4",
        "--no-teams",
        "--games",
        "200",
        "--seed",
        "3",
        "--public-seed",
        "-q",
        "--json",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(out.display().to_string());
    args.extend((1..=100).map(|i| format!("b{i}=builtin:random")));
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    (out, ran.json())
}

#[test]
fn groups_that_never_met_are_not_rated_and_the_report_leaves_them_out() {
    let sb = Sandbox::new();
    let (out, report) = groups_apart(&sb);
    let standings = &report["standings"];
    let ratings = &standings["ratings"];
    assert_eq!(ratings["comparable_sets"], 25, "{ratings:#}");
    assert_eq!(ratings["entrants"].as_array().map(Vec::len), Some(4));
    let not_rated = ratings["not_rated"].as_array().expect("not rated");
    assert_eq!(not_rated.len(), 96);
    assert!(not_rated.iter().all(|n| n["reason"] == "never_met"));
    // Four entrants with 8 games each: rated within their set, provisional for want of games.
    for r in ratings["entrants"].as_array().expect("rated") {
        assert_eq!(r["status"], "provisional", "{r}");
        assert_eq!(r["reason"], "few_games", "{r}");
    }
    assert!(
        half_widths(ratings).iter().all(|&h| h < 1000.0),
        "{ratings:#}"
    );
    // No winner: the ratings do not compare everyone.
    assert_eq!(standings["winner"]["by"], "rating");
    assert_eq!(standings["winner"]["none"], "not_comparable");
    assert_eq!(standings["winner"]["names"], serde_json::json!([]));
    // Every point of the history holds only ratings the games fixed.
    for point in standings["history"].as_array().expect("a history") {
        let widths = point["half_width"].as_array().expect("widths");
        assert!(
            widths.iter().filter_map(Value::as_f64).all(|h| h < 1000.0),
            "{point}"
        );
    }

    let text = allfives(&["standings", &out.display().to_string()]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert!(
        text.stdout.contains(
            "not rated: never met the rated entrants, even through others (comparable set 2 of 25)"
        ),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("winner: none by rating (96 entrants not rated against the rest: the games do not compare everyone)"),
        "{}",
        text.stdout
    );

    // The page: a "not rated" row per entrant without a number; the chart of ratings over
    // games draws no point that the games did not fix, nor one of fewer than 10 games (the
    // first point of a 1,000-entrant ladder set its axis at +-33,850 Elo): none here.
    let dom = quiet_dom(&sb, &out.join("report.html"), "");
    assert!(
        dom.contains("data-ready-ms=\""),
        "the script did not finish"
    );
    assert_eq!(dom.matches(">not rated</span>").count(), 96);
    let first = not_rated[0]["entrant"].as_u64().expect("an index");
    assert_eq!(text_of(&dom, &format!("elo-{first}")), "not rated");
    assert!(!dom.contains("id=\"history-chart\""));
    assert!(
        text_of(&dom, "progress-note").contains("No rated entrant has played 10 games yet"),
        "{}",
        text_of(&dom, "progress-note")
    );
}

#[test]
fn complete_sets_that_fix_no_rating_say_so_not_that_none_is_complete() {
    // Two of the three splits of four into teams, on one deal: two complete sets, and every
    // entrant `teams_confounded`. Printed "no rating yet: no complete set" (issue 41).
    let sb = Sandbox::new();
    let dir = sb.path("splits");
    let dir_text = dir.display().to_string();
    let ran = allfives(&[
        "tournament",
        "a=builtin:greedy",
        "b=builtin:random",
        "c=builtin:mix:0.5",
        "d=builtin:mix:0.2",
        "-p",
        "4",
        "--splits",
        "--deals",
        "1",
        "--seed",
        "3",
        "--public-seed",
        "--out",
        &dir_text,
    ]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let results = dir.join("results.jsonl");
    let text = std::fs::read_to_string(&results).expect("results");
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("\"group\":[0,1,3,2]"))
        .collect();
    assert_eq!(kept.len(), 8, "two splits of four games kept");
    std::fs::write(&results, kept.join("\n") + "\n").expect("write");
    let standings = allfives(&["standings", &dir_text]);
    assert!(
        !standings.stdout.contains("no complete set"),
        "{}",
        standings.stdout
    );
    assert!(
        standings.stdout.contains(
            "winner: none by rating (no entrant rated: the 2 complete sets fix no rating (below))"
        ),
        "{}",
        standings.stdout
    );
    let json = allfives(&["standings", "--json", &dir_text]);
    let standings = &json.json()["standings"];
    assert_eq!(standings["complete_sets"], 2);
    assert_eq!(
        standings["winner"]["none"], "not_comparable",
        "{standings:#}"
    );
    let not_rated = standings["ratings"]["not_rated"]
        .as_array()
        .expect("not rated");
    assert_eq!(not_rated.len(), 4);
    assert!(not_rated.iter().all(|n| n["reason"] == "teams_confounded"));
}
