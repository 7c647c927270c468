//! `allfives replay` as a bot author's debugger (issue 20): every decision a bot was asked for
//! is a turn, faulted or not; a move's `info` and the bot's stderr lines are logged with the
//! decision, shown where the decision is, and only to the seat that wrote them; the text stays
//! within 100 columns; the text options are checked.

use std::fs;
use std::path::PathBuf;

use crate::harness::*;

/// A game in which `thinks_aloud` (seat 0: an info and a stderr line each turn) times out at
/// its 4th turn, against greedy; the log's path.
fn stalled_game(sb: &Sandbox) -> PathBuf {
    play(
        sb,
        &[sb.fixture("thinks_aloud", &["4"]), "builtin:greedy".into()],
        &[
            "--seed",
            "5",
            "--public-seed",
            "--move-ms",
            "3000",
            "--no-rotate",
        ],
    );
    sb.log(1)
}

fn replay<S: AsRef<str>>(args: &[S]) -> Ran {
    let mut all = vec!["replay".to_string()];
    all.extend(args.iter().map(|a| a.as_ref().to_string()));
    allfives(&all)
}

#[test]
fn the_decision_a_bot_faulted_at_is_a_turn_shown_with_what_it_wrote() {
    let sb = Sandbox::new();
    let log = stalled_game(&sb).display().to_string();
    let ran = replay(&[&log, "--seat", "0", "--turn", "4"]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let out = &ran.stdout;
    for shown in [
        "turn 4: seat 0 (thinks_aloud) to move",
        "ends: ",
        "scores: thinks_aloud ",
        "could play ",
        "faults: timeout",
        "it cost the game",
        "stderr: thinking about turn 4 <b>",
    ] {
        assert!(out.contains(shown), "no {shown:?} in:\n{out}");
    }
    // The exact message the bot failed to answer.
    let message = replay(&[&log, "--seat", "0", "--turn", "4", "--json"]).json();
    assert_eq!(message["type"], "turn");
    assert_eq!(message["id"], 5, "hello is 1, turns 1 to 3 are 2 to 4");
    let none = replay(&[&log, "--seat", "0", "--turn", "5"]);
    assert_eq!(none.code, Some(2), "{none:?}");
    assert!(none.stderr.contains("4 decisions"), "{}", none.stderr);
    sb.assert_no_bot_left();
}

#[test]
fn a_fallback_move_says_the_bot_faulted_and_what_it_wrote() {
    let sb = Sandbox::new();
    play(
        &sb,
        &[sb.fixture("misbehaves_once", &[]), "builtin:greedy".into()],
        &[
            "--seed",
            "7",
            "--public-seed",
            "--on-fault",
            "fallback",
            "--no-rotate",
        ],
    );
    let log = sb.log(1).display().to_string();
    let ran = replay(&[&log, "--seat", "0", "--turn", "2"]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(
        ran.stdout.contains("faults: malformed")
            && ran.stdout.contains("(it wrote: \"not json\")")
            && ran.stdout.contains("the referee played "),
        "{}",
        ran.stdout
    );
    let full = replay(&[&log]);
    assert!(
        full.stdout.contains("the bot faulted:")
            && full.stdout.contains("(it wrote: \"not json\")"),
        "{}",
        full.stdout
    );
}

#[test]
fn info_and_stderr_go_with_the_move_and_only_to_their_seat() {
    let sb = Sandbox::new();
    let log = stalled_game(&sb).display().to_string();
    let lines = log_lines(std::path::Path::new(&log));
    let play = lines
        .iter()
        .find(|l| kind(l) == "play" && l["seat"] == 0 && l.get("id").is_some())
        .expect("a move of seat 0");
    assert_eq!(play["info"]["note"], "first legal <script>");
    // Each stderr line goes with the request being answered when it was written (the first
    // line a bot ever writes may go with the next one: see protocol.md).
    let second = lines
        .iter()
        .filter(|l| kind(l) == "play" && l["seat"] == 0 && l.get("id").is_some())
        .nth(1)
        .expect("a second move of seat 0");
    let said = lines
        .iter()
        .find(|l| {
            kind(l) == "stderr"
                && l["lines"]
                    .as_array()
                    .is_some_and(|ls| ls.iter().any(|x| x == "thinking about turn 2 <b>"))
        })
        .expect("the stderr line of turn 2");
    assert_eq!(
        said["id"], second["id"],
        "logged with the request it answers"
    );
    let text = replay(&[&log]).stdout;
    assert!(
        text.contains("info: {\"note\":\"first legal <script>\""),
        "{text}"
    );
    assert!(text.contains("stderr: thinking about turn 2 <b>"), "{text}");
    let own = replay(&[&log, "--seat", "0", "--json"]).stdout;
    assert!(own.contains("first legal") && own.contains("thinking about"));
    // Seat 1 sees neither what seat 0 thought nor what it wrote.
    for view in [
        replay(&[&log, "--seat", "1", "--json"]).stdout,
        replay(&[&log, "--seat", "1"]).stdout,
    ] {
        assert!(!view.contains("first legal"), "{view}");
        assert!(!view.contains("thinking about"), "{view}");
    }
    // Legal moves with their points, at each of the seat's decisions.
    let doc = replay(&[&log, "--seat", "0", "--json"]).json();
    let decision = doc["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| s["turn"] == 1)
        .expect("turn 1");
    assert!(decision["legal"][0]["points"].is_u64(), "{decision}");
}

#[test]
fn a_forged_info_or_stderr_line_is_refused() {
    let sb = Sandbox::new();
    let log = stalled_game(&sb);
    let text = fs::read_to_string(&log).expect("log");
    let cases = [
        (
            "an info over the cap",
            text.replacen(
                "\"info\":{\"note\":\"first legal <script>\",\"turn\":1}",
                &format!("\"info\":\"{}\"", "x".repeat(2000)),
                1,
            ),
            "over the cap",
        ),
        (
            "stderr of a seat not on move",
            text.replacen(
                "{\"type\":\"stderr\",\"seat\":0",
                "{\"type\":\"stderr\",\"seat\":1",
                1,
            ),
            "not on move",
        ),
    ];
    for (case, forged, says) in cases {
        assert_ne!(forged, text, "{case}: the forgery changed nothing");
        let path = sb.path("forged.jsonl");
        fs::write(&path, forged).expect("write");
        let ran = replay(&[&path.display().to_string(), "--quiet"]);
        assert_eq!(ran.code, Some(3), "{case}: {ran:?}");
        assert!(ran.stderr.contains(says), "{case}: {}", ran.stderr);
    }
}

#[test]
fn the_sample_bots_send_info() {
    let sb = Sandbox::new();
    play(
        &sb,
        &[
            sb.sample("greedy_bot", &[]),
            strong_bot().display().to_string(),
        ],
        &[
            "--seed",
            "3",
            "--public-seed",
            "--max-hands",
            "1",
            "--no-rotate",
        ],
    );
    let lines = log_lines(&sb.log(1));
    let info = |seat: u64| {
        lines
            .iter()
            .find(|l| kind(l) == "play" && l["seat"] == seat && l.get("time_us").is_some())
            .map(|l| l["info"].clone())
            .expect("a move the bot chose")
    };
    assert!(info(0)["points"].is_u64(), "greedy: {}", info(0));
    let strong = info(1);
    assert!(
        strong["estimate"].is_number() && strong["moves"][0][0].is_string(),
        "strong: {strong}"
    );
}

#[test]
fn text_lines_stay_within_100_columns_and_spinners_are_drawn() {
    let sb = Sandbox::new();
    play(
        &sb,
        &["builtin:greedy".into(), "builtin:random".into()],
        &[
            "--seed",
            "11",
            "--public-seed",
            "--spinner",
            "all",
            "--hand-size",
            "4",
        ],
    );
    for log in [
        sb.log(1),
        root().join("tests/fixtures/golden/four-game-1.jsonl"),
    ] {
        let out = replay(&[&log.display().to_string()]).stdout;
        // The verdict, last, is one line for scripts, naming the log as given.
        let game = out.lines().take(out.lines().count() - 1);
        let widest = game.map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(
            widest <= 100,
            "a line of {widest} columns in {}",
            log.display()
        );
        assert!(out.contains("├─┤"), "a double laid crosswise");
        assert!(!out.contains(" off ["), "nested arms drawn, not listed");
    }
    let teams = replay(&[root()
        .join("tests/fixtures/golden/four-game-1.jsonl")
        .display()
        .to_string()]);
    assert!(
        teams.stdout.contains("scores: team 0+2 (greedy+greedy#2) "),
        "{}",
        teams.stdout
    );
}

#[test]
fn hands_and_moves_outside_the_game_and_option_clashes_exit_2() {
    let log = root()
        .join("tests/fixtures/golden/two-game-1.jsonl")
        .display()
        .to_string();
    for args in [
        vec!["--hand", "0"],
        vec!["--hand", "99"],
        vec!["--hand", "1", "--move", "0"],
        vec!["--hand", "1", "--move", "999"],
        vec!["--hand", "1", "--json"],
        vec!["--move", "2", "--quiet"],
        vec!["--hand", "2", "--turn", "1"],
        vec!["--hand", "2", "--html", "-"],
    ] {
        let mut all = vec![log.as_str()];
        all.extend(&args);
        let ran = replay(&all);
        assert_eq!(ran.code, Some(2), "{args:?}: {ran:?}");
        assert_eq!(ran.stderr.lines().count(), 1, "{args:?}: {}", ran.stderr);
    }
    let from = replay(&[&log, "--hand", "2", "--move", "3"]);
    assert_eq!(from.code, Some(0));
    assert!(
        from.stdout.contains("hand 2, from move 3:"),
        "{}",
        from.stdout
    );
    let page = replay(&[&log, "--html", "-"]);
    assert_eq!(page.code, Some(0), "{page:?}");
    assert!(page.stdout.starts_with("<!DOCTYPE html>"));
}

#[test]
fn a_fault_is_named_by_its_turn_and_turn_fault_leads_there() {
    let sb = Sandbox::new();
    let thinker = format!("thinker={}", sb.fixture("illegal", &["wrong-end"]));
    // A public seed: the second run below deals the same game.
    let options = ["--seed", "4", "--public-seed"];
    let (ran, report) = play(&sb, &[thinker, "builtin:greedy".into()], &options);
    let fault = &report["games"][0]["faults"][0];
    let (turn, seat) = (uint(&fault["turn"]), uint(&fault["seat"]));
    let log = sb.log(1).display().to_string();
    // The match line names the turn as --turn finds it, with the seat.
    let text = allfives(&[
        "match",
        &format!("thinker={}", sb.fixture("illegal", &["wrong-end"])),
        "builtin:greedy",
        "--seed",
        "4",
        "--public-seed",
        "--log-dir",
        &sb.path("again").display().to_string(),
    ]);
    assert!(
        text.stdout
            .contains(&format!("thinker forfeits at --turn {turn} (seat {seat})")),
        "{}\n{}",
        text.stdout,
        ran.stderr
    );
    // What it wrote is quoted as it wrote it, with its own quotes escaped.
    assert!(
        text.stdout
            .contains(r#"(it wrote: "{\"type\": \"move\", \"id\": "#),
        "{}",
        text.stdout
    );
    let by_number = replay(&[&log, "--turn", &turn.to_string()]);
    assert_eq!(by_number.code, Some(0), "{by_number:?}");
    assert!(
        by_number
            .stdout
            .contains(&format!("turn {turn}: seat {seat} (thinker)"))
            && by_number.stdout.contains("faults: illegal"),
        "{}",
        by_number.stdout
    );
    for wanted in ["fault", "fault:1"] {
        let jumped = replay(&[&log, "--turn", wanted]);
        assert_eq!(jumped.stdout, by_number.stdout, "--turn {wanted}");
    }
    let none = replay(&[&log, "--turn", "fault:2"]);
    assert_eq!(none.code, Some(2), "{none:?}");
    assert!(
        none.stderr.contains("1 fault at a decision"),
        "{}",
        none.stderr
    );
    let bad = replay(&[&log, "--turn", "faults"]);
    assert_eq!(bad.code, Some(2), "{bad:?}");
    assert!(
        bad.stderr.contains("is not K, fault or fault:K"),
        "{}",
        bad.stderr
    );
}

#[test]
fn a_faulted_move_is_shown_as_the_bot_wrote_it_with_its_info() {
    let sb = Sandbox::new();
    let bot = format!("thinker={}", sb.fixture("illegal", &["wrong-end", "info"]));
    let options = ["--seed", "4", "--public-seed", "--no-rotate"];
    let (ran, report) = play(&sb, &[bot, "builtin:greedy".into()], &options);
    let fault = &report["games"][0]["faults"][0];
    assert_eq!(fault["kind"], "illegal", "{ran:?}");
    // The line exactly as the bot wrote it (Python's spacing, its own field order), escaped.
    let wrote = r#"(it wrote: "{\"type\": \"move\", \"id\": "#;
    let input = fault["input"].as_str().expect("the line it wrote");
    assert!(
        input.starts_with(r#"{"type": "move", "id": "#) && input.contains(r#""info": {"turn": 2"#),
        "{input}"
    );
    let log = sb.log(1);
    let logged = log_lines(&log)
        .into_iter()
        .find(|l| kind(l) == "fault")
        .expect("the fault's line");
    assert_eq!(logged["input"], fault["input"]);
    assert_eq!(logged["info"]["turn"], 2, "the info is kept: {logged}");
    assert!(
        logged["move"]["tile"].is_array(),
        "the move refused: {logged}"
    );
    let log = log.display().to_string();
    let at = replay(&[&log, "--turn", "fault"]);
    assert_eq!(at.code, Some(0), "{at:?}");
    for shown in [
        wrote,
        r#"info: {"payload":"\u001b[2J\u{202e}evil","turn":2}"#,
    ] {
        assert!(at.stdout.contains(shown), "no {shown:?} in:\n{}", at.stdout);
    }
    assert!(
        !at.stdout.contains('\u{1b}') && !at.stdout.contains('\u{202e}'),
        "raw escapes reach the terminal: {}",
        at.stdout
    );
    let whole = replay(&[&log]);
    assert!(
        whole.stdout.contains(wrote) && whole.stdout.contains(r#"info: {"payload""#),
        "{}",
        whole.stdout
    );
    // The page shows the line and the info, as text, at the fault's step.
    let page = sb.path("game.html");
    let made = replay(&[&log, "--html", &page.display().to_string()]);
    assert_eq!(made.code, Some(0), "{made:?}");
    let dom = crate::browser_tests::quiet_dom(&sb, &page, "fault=1");
    let shown = crate::browser_tests::text_of(&dom, "wrote");
    assert!(
        shown.starts_with(r#"{"type": "move", "id": "#),
        "what it wrote: {shown}"
    );
    let info = crate::browser_tests::text_of(&dom, "info");
    assert!(
        info.contains("\\u{202e}evil") && info.contains("\"turn\":2"),
        "its info: {info}"
    );

    // A log written before faults kept the line (the move rewritten as the input, no move, no
    // info) still replays, and says what it holds.
    let old: Vec<String> = log_lines(std::path::Path::new(&log))
        .into_iter()
        .map(|mut l| {
            // As the referee wrote a move then: {"tile":...,"end":...}.
            let older = |f: &mut serde_json::Map<String, serde_json::Value>| {
                let refused = f.remove("move").expect("the move");
                f.remove("info");
                let input = format!(r#"{{"tile":{},"end":{}}}"#, refused["tile"], refused["end"]);
                f.insert("input".into(), input.into());
            };
            if let Some(f) = l.as_object_mut().filter(|f| f["type"] == "fault") {
                older(f);
            }
            if let Some(forfeits) = l.get_mut("forfeits").and_then(|f| f.as_array_mut()) {
                forfeits
                    .iter_mut()
                    .filter_map(|f| f.as_object_mut())
                    .for_each(older);
            }
            l.to_string()
        })
        .collect();
    let older = sb.path("older.jsonl");
    fs::write(&older, old.join("\n") + "\n").expect("the older log");
    let at = replay(&[&older.display().to_string(), "--turn", "fault"]);
    assert_eq!(at.code, Some(0), "{at:?}");
    assert!(
        at.stdout.contains(r#"(it wrote: "{\"tile\":"#),
        "{}",
        at.stdout
    );
}
