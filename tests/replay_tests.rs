//! `allfives replay` end to end: real logs verify, every kind of tampering is refused at the
//! right line in plain words, the text of a fixed game stays as it was, `--turn K --json` is
//! byte for byte what a recording bot received, and a logged position can be posed to a bot.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::*;

/// A finished two-player game between builtins, with draws (small hands), in the sandbox.
fn base_log(sb: &Sandbox) -> PathBuf {
    play(
        sb,
        &["builtin:greedy".into(), "builtin:random".into()],
        &[
            "--seed",
            "7",
            "--public-seed",
            "--target",
            "100",
            "--hand-size",
            "5",
        ],
    );
    sb.log(1)
}

fn lines_of(log: &Path) -> Vec<String> {
    fs::read_to_string(log)
        .expect("the log")
        .lines()
        .map(String::from)
        .collect()
}

fn value(line: &str) -> Value {
    serde_json::from_str(line).expect("a JSON line")
}

/// The index of the first line of type `kind` from `from` on.
fn first(lines: &[String], kind_wanted: &str, from: usize) -> usize {
    lines
        .iter()
        .skip(from)
        .position(|l| kind(&value(l)) == kind_wanted)
        .map(|i| i + from)
        .unwrap_or_else(|| panic!("no {kind_wanted} line"))
}

/// The index of the first play a bot chose (not forced).
fn chosen_play(lines: &[String]) -> usize {
    lines
        .iter()
        .position(|l| {
            let v = value(l);
            kind(&v) == "play" && v.get("time_us").is_some()
        })
        .expect("a chosen play")
}

fn edit(lines: &mut [String], at: usize, change: impl FnOnce(&mut Value)) {
    let mut v = value(&lines[at]);
    change(&mut v);
    lines[at] = v.to_string();
}

/// Replays `lines` written to a file: the replay must be refused with exit code 3 at line
/// `line` (0: wherever the events first contradict the change), saying every one of `says`, in
/// plain words.
pub fn refused_at(sb: &Sandbox, case: &str, lines: &[String], line: usize, says: &[&str]) {
    let bad = sb.path(&format!("{case}.jsonl"));
    fs::write(&bad, lines.join("\n") + "\n").expect("write");
    let ran = allfives(&["replay", "--quiet", &bad.display().to_string()]);
    assert_eq!(ran.code, Some(3), "{case}: {ran:?}");
    let said = ran.stderr.trim();
    assert!(
        line == 0 || said.contains(&format!(": line {line}: ")),
        "{case}: expected line {line}: {said}"
    );
    for words in says {
        assert!(
            said.contains(words),
            "{case}: does not say {words:?}: {said}"
        );
    }
    for debug in ["Some(", "None", " { ", "::", "panicked"] {
        assert!(
            !said.contains(debug),
            "{case}: Rust text {debug:?} in {said}"
        );
    }
    assert_eq!(said.lines().count(), 1, "{case}: one line: {said}");
}

/// A change made to a log's lines.
type Tamper = Box<dyn Fn(&mut Vec<String>)>;

/// A tampering that inserts a fault of `seat` before line index `at`.
fn insert_fault(at: usize, seat: Value, forfeit: bool) -> Tamper {
    Box::new(move |lines| {
        let fault = json!({"type": "fault", "seat": seat, "kind": "timeout",
            "detail": "did not answer", "forfeit": forfeit});
        lines.insert(at, fault.to_string());
    })
}

#[test]
fn replay_refuses_every_tampering_at_its_line() {
    let sb = Sandbox::new();
    let log = base_log(&sb);
    let base = lines_of(&log);
    assert_replays(&log);
    let chosen = chosen_play(&base);
    let seat_on_move = value(&base[chosen])["seat"].clone();
    let end = base.len() - 1;
    let deal = first(&base, "hand_start", 0);
    let draw = first(&base, "draw", 0);
    let hand_end = first(&base, "hand_end", 0);
    // A tile other than the one played there.
    let (other, other_text) = match value(&base[chosen])["tile"] == json!([6, 6]) {
        true => (json!([0, 0]), "[0|0]"),
        false => (json!([6, 6]), "[6|6]"),
    };
    let cases: Vec<(&str, Tamper, usize, Vec<&str>)> = vec![
        (
            "forged forfeit",
            Box::new(move |l| {
                l.truncate(chosen + 1);
                l.push(
                    json!({"type": "game_end", "ending": {"kind": "forfeit", "seat": 1},
                        "hands": 1, "scores": [0, 0], "ranks": [1, 2],
                        "forfeits": [{"seat": 1, "kind": "timeout",
                            "detail": "did not answer within 1000 ms", "forfeit": true}]})
                    .to_string(),
                );
            }),
            chosen + 2,
            vec!["no such fault is logged"],
        ),
        (
            "inserted fault that did not cost the game",
            insert_fault(chosen, seat_on_move.clone(), false),
            chosen + 1,
            vec!["marked forfeit: false", "costs"],
        ),
        (
            "inserted fault marked forfeit while the game goes on",
            insert_fault(chosen, seat_on_move.clone(), true),
            chosen + 2,
            vec!["goes on after"],
        ),
        (
            "fault of seat 7 in a two-player game",
            insert_fault(chosen, json!(7), true),
            chosen + 1,
            vec!["seat 7", "2 seats"],
        ),
        (
            "swapped undrawn boneyard tiles",
            Box::new(move |l| {
                edit(l, deal, |v| {
                    let bone = v["deal"]["boneyard"].as_array_mut().expect("a boneyard");
                    let n = bone.len();
                    bone.swap(n - 1, n - 2);
                })
            }),
            deal + 1,
            vec!["drawn from seed", "boneyard"],
        ),
        (
            "edited seed",
            Box::new(|l| edit(l, 0, |v| v["seed"] = json!(8))),
            deal + 1,
            vec!["seed 8", "not this deal"],
        ),
        (
            "changed score",
            Box::new(move |l| {
                edit(l, hand_end, |v| {
                    v["scores"][0] = json!(v["scores"][0].as_i64().expect("a score") + 5)
                })
            }),
            hand_end + 1,
            vec!["where the engine has"],
        ),
        (
            "changed points",
            Box::new(move |l| {
                edit(l, chosen, |v| {
                    v["points"] = json!(v["points"].as_u64().expect("points") + 5)
                })
            }),
            chosen + 1,
            vec!["where the engine has"],
        ),
        (
            "swapped tile",
            Box::new(move |l| edit(l, chosen, |v| v["tile"] = other.clone())),
            chosen + 1,
            vec![other_text, "illegal"],
        ),
        (
            "removed line",
            Box::new(move |l| {
                l.remove(draw);
            }),
            draw + 1,
            vec!["draws"],
        ),
        (
            "duplicated line",
            Box::new(move |l| {
                let copy = l[chosen].clone();
                l.insert(chosen, copy);
            }),
            chosen + 2,
            vec!["illegal"],
        ),
        (
            "non-JSON line",
            Box::new(move |l| l[chosen] = "not json".into()),
            chosen + 1,
            vec!["not JSON"],
        ),
        (
            "empty line",
            Box::new(move |l| l.insert(chosen, String::new())),
            chosen + 1,
            vec!["empty line"],
        ),
        (
            "unknown field",
            Box::new(move |l| edit(l, chosen, |v| v["comment"] = json!("hi"))),
            chosen + 1,
            vec!["unexpected field \"comment\""],
        ),
        (
            "move both forced and fallback",
            Box::new(move |l| {
                edit(l, chosen, |v| {
                    v["forced"] = json!(true);
                    v["fallback"] = json!(true);
                })
            }),
            chosen + 1,
            vec!["both forced", "fallback"],
        ),
        (
            "chosen move marked forced",
            Box::new(move |l| edit(l, chosen, |v| v["forced"] = json!(true))),
            chosen + 1,
            vec!["marked forced", "legal moves"],
        ),
        (
            "header with no seats",
            Box::new(|l| edit(l, 0, |v| v["seats"] = json!([]))),
            1,
            vec!["0 seats", "2 players"],
        ),
        (
            "header with on_fault banana",
            Box::new(|l| edit(l, 0, |v| v["on_fault"] = json!("banana"))),
            1,
            vec!["banana"],
        ),
        (
            "header of a 3-player game",
            Box::new(|l| edit(l, 0, |v| v["rules"]["players"] = json!(3))),
            1,
            vec!["2 seats", "3 players"],
        ),
        (
            "changed result",
            Box::new(move |l| edit(l, end, |v| v["ranks"] = json!([1, 1]))),
            end + 1,
            vec!["the log's result", "engine's"],
        ),
        (
            "a line after the game's end",
            Box::new(move |l| {
                let copy = l[chosen].clone();
                l.push(copy);
            }),
            end + 2,
            vec!["follows the game's end"],
        ),
    ];
    for (case, tamper, line, says) in cases {
        let mut lines = base.clone();
        tamper(&mut lines);
        refused_at(&sb, &case.replace(' ', "-"), &lines, line, &says);
    }
}

/// `lines[at]` with `from` made `to`, the line otherwise as the referee lays it out (its fields
/// in their order, no spaces): read as such a line is, whole, not field by field.
fn replace_in(lines: &mut [String], at: usize, from: &str, to: &str) {
    assert!(lines[at].contains(from), "{from} in {}", lines[at]);
    lines[at] = lines[at].replacen(from, to, 1);
}

#[test]
fn forgeries_laid_out_as_the_referee_writes_are_refused_too() {
    let sb = Sandbox::new();
    let base = lines_of(&base_log(&sb));
    let chosen = chosen_play(&base);
    let deal = first(&base, "hand_start", 0);
    let draw = first(&base, "draw", 0);
    let hand_end = first(&base, "hand_end", 0);
    let end = base.len() - 1;
    let play = value(&base[chosen]);
    let points = format!("\"points\":{}", play["points"]);
    let more_points = format!(
        "\"points\":{}",
        play["points"].as_u64().expect("points") + 5
    );
    let tile = format!("\"tile\":{}", play["tile"]);
    let (other, other_text) = match play["tile"] == json!([6, 6]) {
        true => ("\"tile\":[0,0]", "[0|0]"),
        false => ("\"tile\":[6,6]", "[6|6]"),
    };
    let seed = format!("\"seed\":{},", value(&base[0])["seed"]);
    let drawer = value(&base[draw])["seat"].as_u64().expect("a seat");
    let (drew, other_drew) = (
        format!("\"seat\":{drawer}"),
        format!("\"seat\":{}", 1 - drawer),
    );
    // The case, the line changed, what in it becomes what, the line refused, what is said.
    type Case<'a> = (&'a str, usize, &'a str, &'a str, usize, Vec<&'a str>);
    let cases: Vec<Case> = vec![
        (
            "changed points",
            chosen,
            &points,
            &more_points,
            chosen + 1,
            vec!["where the engine has"],
        ),
        (
            "swapped tile",
            chosen,
            &tile,
            other,
            chosen + 1,
            vec![other_text, "illegal"],
        ),
        (
            "edited seed",
            0,
            &seed,
            "\"seed\":8,",
            deal + 1,
            vec!["seed 8", "not this deal"],
        ),
        (
            "another seat draws",
            draw,
            &drew,
            &other_drew,
            draw + 1,
            vec!["where the engine has"],
        ),
        (
            "a later hand",
            hand_end,
            "\"hand\":1,",
            "\"hand\":2,",
            hand_end + 1,
            vec!["where the engine has"],
        ),
        (
            "chosen move marked forced",
            chosen,
            ",\"id\":",
            ",\"forced\":true,\"id\":",
            chosen + 1,
            vec!["marked forced"],
        ),
        (
            "changed result",
            end,
            "\"scores\":[",
            "\"scores\":[1",
            end + 1,
            vec!["the log's result", "engine's"],
        ),
    ];
    for (case, at, from, to, line, says) in cases {
        let mut lines = base.clone();
        replace_in(&mut lines, at, from, to);
        refused_at(&sb, &case.replace(' ', "-"), &lines, line, &says);
    }
}

#[test]
fn a_log_laid_out_otherwise_replays_as_the_same_game() {
    let sb = Sandbox::new();
    let log = base_log(&sb);
    // Every line's fields in another order (sorted), as a tool that edits JSON may write them.
    let relaid: Vec<String> = lines_of(&log)
        .iter()
        .map(|l| value(l).to_string())
        .collect();
    assert_ne!(relaid, lines_of(&log));
    let other = sb.path("relaid.jsonl");
    fs::write(&other, relaid.join("\n") + "\n").expect("write");
    let json = |path: &Path| {
        let ran = allfives(&["replay", "--json", &path.display().to_string()]);
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        ran.stdout
    };
    assert_eq!(json(&other), json(&log));
}

#[test]
fn a_log_with_fallback_faults_verifies_and_its_forgeries_do_not() {
    let sb = Sandbox::new();
    let bots = [
        sb.fixture("misbehaves_once", &[]),
        "builtin:greedy".to_string(),
    ];
    play(
        &sb,
        &bots,
        &[
            "--seed",
            "7",
            "--public-seed",
            "--on-fault",
            "fallback",
            "--max-faults",
            "2",
        ],
    );
    let log = sb.log(1);
    assert_replays(&log);
    let base = lines_of(&log);
    let fault = first(&base, "fault", 0);
    let fallback = fault + 1;
    assert_eq!(value(&base[fallback])["fallback"], true);

    let mut without_fault = base.clone();
    without_fault.remove(fault);
    refused_at(
        &sb,
        "no-fault",
        &without_fault,
        fault + 1,
        &["no fault of seat 0"],
    );

    let mut not_fallback = base.clone();
    edit(&mut not_fallback, fallback, |v| {
        v.as_object_mut().expect("an object").remove("fallback");
    });
    refused_at(
        &sb,
        "not-fallback",
        &not_fallback,
        fallback + 1,
        &["fallback move"],
    );

    let mut costly = base.clone();
    edit(&mut costly, fault, |v| v["forfeit"] = json!(true));
    refused_at(&sb, "costly", &costly, fault + 1, &["does not cost"]);
    sb.assert_no_bot_left();
}

#[test]
fn a_torn_last_line_is_replayed_as_far_as_it_goes_with_an_exit_code_of_its_own() {
    let sb = Sandbox::new();
    let log = base_log(&sb);
    let text = fs::read_to_string(&log).expect("log");
    let lines = text.lines().count();
    let torn = sb.path("torn.jsonl");
    // Cut in the middle of the next-to-last line: the referee was killed while writing it.
    let cut = text[..text.len() - 2].rfind('\n').expect("lines") - 10;
    fs::write(&torn, &text[..cut]).expect("write");
    let torn_shown = torn.display().to_string();
    let ran = allfives(&["replay", &torn_shown]);
    assert_eq!(ran.code, Some(6), "{ran:?}");
    // Every form of the replay tells a script the same.
    for form in [
        &["--json"][..],
        &["--quiet"],
        &["--turn", "1"],
        &["--turn", "1", "--json"],
    ] {
        let ran = allfives(&[&["replay", &torn_shown][..], form].concat());
        assert_eq!(ran.code, Some(6), "{form:?}: {ran:?}");
    }
    // Cut right after its header: still cut.
    let header_only = sb.path("header.jsonl");
    fs::write(
        &header_only,
        text.lines().next().expect("a header").to_string() + "\n",
    )
    .expect("write");
    assert!(assert_replays_cut(&header_only).contains("as far as it goes"));
    assert!(
        ran.stdout
            .contains(&format!("line {} is cut off mid-way", lines - 1)),
        "{}",
        ran.stdout
    );
    let cut_log = sb.path("cut.jsonl");
    fs::write(
        &cut_log,
        text.lines().take(6).collect::<Vec<_>>().join("\n") + "\n",
    )
    .expect("write");
    assert!(assert_replays_cut(&cut_log).contains("stops before the game's end"));
}

#[test]
fn a_format_1_log_still_verifies() {
    let old = root().join("tests/fixtures/logs/format-1-four-players.jsonl");
    let out = assert_replays(&old);
    assert!(out.contains("not checked against the seed"), "{out}");
}

#[test]
fn every_golden_log_verifies() {
    for name in ["two-game-1", "two-game-2", "four-game-1", "four-game-2"] {
        let out = assert_replays(&root().join(format!("tests/fixtures/golden/{name}.jsonl")));
        assert!(!out.contains("not checked"), "{out}");
    }
}

/// The text of a fixed game (a golden log: four players, every double spinning) is compared
/// with `tests/fixtures/replay/four-game-1.txt`; `ALLFIVES_BLESS=1` rewrites it after a change
/// meant to alter the text.
#[test]
fn the_text_of_a_fixed_game_is_as_it_was() {
    let log = "tests/fixtures/golden/four-game-1.jsonl";
    let ran = allfives(&["replay", log]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(!ran.stdout.contains('\x1b'), "no colour through a pipe");
    let snapshot = root().join("tests/fixtures/replay/four-game-1.txt");
    if std::env::var_os("ALLFIVES_BLESS").is_some() {
        fs::write(&snapshot, &ran.stdout).expect("write the snapshot");
    }
    let expected = fs::read_to_string(&snapshot).expect("the snapshot");
    assert!(
        ran.stdout == expected,
        "the text differs from {}:\n{}",
        snapshot.display(),
        ran.stdout
    );
    // A spinner's short arms are drawn: a cross.
    assert!(ran.stdout.contains("up "), "{}", ran.stdout);
}

#[test]
fn a_seat_sees_only_its_own_tiles() {
    let sb = Sandbox::new();
    let log = base_log(&sb).display().to_string();
    let ran = allfives(&["replay", &log, "--seat", "1", "--json"]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let doc = ran.json();
    assert_eq!(doc["seat"], 1);
    assert!(
        doc["header"].get("seed").is_none(),
        "the seed gives deals away"
    );
    let steps = doc["steps"].as_array().expect("steps");
    assert!(steps.len() > 10);
    for step in steps {
        assert_eq!(step["hands"][0], Value::Null, "{step}");
        assert!(step["hands"][1].is_array(), "{step}");
        assert_eq!(step["boneyard"], Value::Null, "{step}");
        assert!(step["event"].get("deal").is_none(), "{step}");
        if kind(&step["event"]) == "draw" && step["seat"] == 0 {
            assert_eq!(step["event"]["tile"], Value::Null, "{step}");
        }
    }
    let full = allfives(&["replay", &log, "--json"]).json();
    assert_eq!(full["complete"], true);
    assert_eq!(full["deals_checked"], true);
    assert!(full["steps"][1]["hands"][0].is_array());
    let text = allfives(&["replay", &log, "--seat", "1", "--hand", "2"]);
    assert!(text.stdout.contains("as seat 1 saw it"), "{}", text.stdout);
    assert!(!text.stdout.contains("hand 1:"), "{}", text.stdout);
    assert!(text.stdout.contains("hand 2:"), "{}", text.stdout);
}

#[test]
fn bad_replay_options_are_refused() {
    let sb = Sandbox::new();
    let log = base_log(&sb).display().to_string();
    for (args, says) in [
        (vec!["--seat", "2"], "seats 0 to 1"),
        (vec!["--turn", "9999", "--json"], "no turn 9999"),
    ] {
        let mut all = vec!["replay", log.as_str()];
        all.extend(args);
        let ran = allfives(&all);
        assert_eq!(ran.code, Some(2), "{ran:?}");
        assert!(ran.stderr.contains(says), "{}", ran.stderr);
    }
    let page = sb.path("page.html");
    fs::write(&page, "mine").expect("write");
    let ran = allfives(&["replay", &log, "--html", &page.display().to_string()]);
    assert_eq!(ran.code, Some(2), "{ran:?}");
    assert!(ran.stderr.contains("exists already"), "{}", ran.stderr);
    assert_eq!(fs::read_to_string(&page).expect("read"), "mine");
}

/// The `turn` messages of one game in what the recorder received, as lines.
fn recorded_turns(received: &Path, game: usize) -> Vec<String> {
    let text = fs::read_to_string(received).expect("the recorder's file");
    let mut at_game = 0;
    let mut turns = Vec::new();
    for line in text.lines() {
        let v = value(line);
        match kind(&v) {
            "game_start" => at_game = uint(&v["game"]),
            "turn" if at_game == game => turns.push(format!("{line}\n")),
            _ => {}
        }
    }
    turns
}

#[test]
fn turn_json_is_the_message_the_bot_received() {
    let sb = Sandbox::new();
    let received = sb.path("received.jsonl");
    let bots = [
        sb.fixture("recorder", &[&received.display().to_string()]),
        "builtin:greedy".to_string(),
    ];
    // Two games with one process: in game 2 the recorder sits in seat 1 and its ids go on. The
    // recorder writes its file where bots may not: it is the test's instrument, trusted.
    play(
        &sb,
        &bots,
        &[
            "--games",
            "2",
            "--seed",
            "11",
            "--public-seed",
            "--target",
            "100",
            "--no-sandbox",
        ],
    );
    sb.assert_no_bot_left();
    for (game, seat) in [(1, "0"), (2, "1")] {
        let turns = recorded_turns(&received, game);
        assert!(turns.len() > 3, "game {game}: {turns:?}");
        let log = sb.log(game).display().to_string();
        for (k, sent) in turns.iter().enumerate() {
            let turn = (k + 1).to_string();
            let ran = allfives(&["replay", &log, "--turn", &turn, "--seat", seat, "--json"]);
            assert_eq!(ran.code, Some(0), "{ran:?}");
            assert_eq!(&ran.stdout, sent, "game {game}, turn {turn}");
        }
    }
}

#[test]
fn a_logged_position_is_posed_to_another_bot() {
    let sb = Sandbox::new();
    let log = base_log(&sb).display().to_string();
    let bot = sb.sample("greedy_bot", &[]);
    let ran = allfives(&["replay", &log, "--turn", "3", "--ask", &bot]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(ran.stdout.contains("turn 3: seat"), "{}", ran.stdout);
    assert!(ran.stdout.contains("  played ["), "{}", ran.stdout);
    assert!(ran.stdout.contains("answers ["), "{}", ran.stdout);
    assert!(ran.stdout.contains("point"), "{}", ran.stdout);
    sb.assert_no_bot_left();
    let listed = allfives(&["replay", &log, "--turn", "3"]);
    assert!(listed.stdout.contains("could play"), "{}", listed.stdout);
    // Named as a match names it: by its hello's name, not its command's.
    let loose = sb.fixture("reversed_tile", &[]);
    let ran = allfives(&["replay", &log, "--turn", "3", "--ask", &loose]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(ran.stdout.contains("  loose answers ["), "{}", ran.stdout);
    sb.assert_no_bot_left();
}

#[test]
fn a_logged_game_is_dealt_again() {
    let sb = Sandbox::new();
    let log = base_log(&sb);
    let original = log_lines(&log);
    let deals: Vec<&Value> = original
        .iter()
        .filter(|l| kind(l) == "hand_start")
        .map(|l| &l["deal"])
        .collect();
    assert!(deals.len() > 1, "a game of several hands");
    let rerun = |name: &str, extra: &[&str]| {
        let file = sb.path(name);
        let mut args = vec![
            "match",
            "builtin:greedy",
            "builtin:random",
            "--deal-from",
            log.to_str().expect("a path"),
            "--log",
            file.to_str().expect("a path"),
            "--json",
        ];
        args.extend(extra);
        let ran = allfives(&args);
        assert_eq!(ran.code, Some(0), "{ran:?}");
        assert_replays(&file);
        log_lines(&file)
    };
    // The same bots on the same deals play the same game again.
    let same = rerun("same.jsonl", &[]);
    assert_eq!(same[0]["rules"], original[0]["rules"]);
    assert_eq!(same[0]["deal_file_hands"], deals.len());
    assert_eq!(same.last(), original.last());
    // From hand 2 on: the game starts with the log's second deal.
    let later = rerun("later.jsonl", &["--hand", "2"]);
    assert_eq!(&later[1]["deal"], deals[1]);
    assert_eq!(later[0]["deal_file_hands"], deals.len() - 1);
    let ran = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "builtin:random",
        "--deal-from",
        log.to_str().expect("a path"),
    ]);
    assert_eq!(ran.code, Some(2), "{ran:?}");
    assert!(ran.stderr.contains("give 2 bots"), "{}", ran.stderr);
}

#[test]
fn an_empty_log_or_one_cut_in_its_header_is_cut_short_and_a_turn_of_a_cut_log_says_so() {
    let sb = Sandbox::new();
    let log = base_log(&sb);
    let text = fs::read_to_string(&log).expect("log");
    let header = text.lines().next().expect("a header");
    for (name, cut) in [("empty", ""), ("header", &header[..header.len() / 2])] {
        let path = sb.path(&format!("{name}.jsonl"));
        fs::write(&path, cut).expect("write");
        let shown = path.display().to_string();
        for form in [&[][..], &["--json"], &["--html", "-"]] {
            let ran = allfives(&[&["replay", &shown][..], form].concat());
            assert_eq!(ran.code, Some(6), "{name} {form:?}: {ran:?}");
            assert!(
                ran.stderr.contains("cut short before its first whole line"),
                "{}",
                ran.stderr
            );
        }
    }
    let cut = sb.path("cut.jsonl");
    fs::write(
        &cut,
        text.lines().take(8).collect::<Vec<_>>().join("\n") + "\n",
    )
    .expect("write");
    let ran = allfives(&["replay", &cut.display().to_string(), "--turn", "1"]);
    assert_eq!(ran.code, Some(6), "{ran:?}");
    assert!(
        ran.stderr.contains("cut short before the game's end"),
        "{}",
        ran.stderr
    );
}
