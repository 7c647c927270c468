//! The referee end to end: the real `allfives` binary, real bot processes (the Python sample bots
//! and the misbehaving fixtures in `tests/fixtures/bots/`), real logs replayed by `allfives replay`.
//!
//! Every test runs in its own temporary directory whose name doubles as a marker: each bot is
//! given it as an extra argument, so that after the referee exits no process whose command line
//! holds it may remain. Needs `python3` on PATH.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use allfives::engine::{Deal, Tile};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::harness::*;

/// The bound on a match that a misbehaving bot cuts short.
const QUICK: Duration = Duration::from_secs(20);
const SEED: &str = "7";

/// The words of a command line's options, written as one string.
fn options(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

// ---------------------------------------------------------------------------------------------
// Matches by the rules
// ---------------------------------------------------------------------------------------------

#[test]
fn two_python_bots_with_every_rule_option_changed() {
    let sb = Sandbox::new();
    let bots = [
        sb.sample("greedy_bot", &[]),
        sb.sample("random_bot", &["3"]),
    ];
    let (_, report) = play(
        &sb,
        &bots,
        &options(
            "--games 2 --seed 11 --hand-size 7 --spinner all --hand-end bonus --target 100 \
             --finish end-of-hand",
        ),
    );
    let rules = &report["rules"];
    assert_eq!(rules["hand_size"], 7);
    assert_eq!(rules["spinner"], "all");
    assert_eq!(rules["hand_end"], "bonus");
    assert_eq!(rules["target"], 100);
    assert_eq!(rules["finish"], "end_of_hand");
    for log in check_report(&report, 2, false, 2) {
        let lines = log_lines(&log);
        let deal = &lines[1]["deal"];
        assert_eq!(deal["hands"][0].as_array().map(Vec::len), Some(7));
        // end_of_hand: the game ends after a hand, never in the middle of one.
        assert_eq!(kind(&lines[lines.len() - 2]), "hand_end");
    }
    // Every game is replayed with the bots in swapped seats.
    assert_eq!(seating(&report["games"][1]), serde_json::json!([1, 0]));
    sb.assert_no_bot_left();
}

#[test]
fn three_players_without_spinners_and_a_hand_limit() {
    let sb = Sandbox::new();
    let bots = [
        "builtin:random".to_string(),
        "builtin:greedy".to_string(),
        sb.sample("greedy_bot", &[]),
    ];
    let (_, report) = play(
        &sb,
        &bots,
        &options("--games 3 --seed 12 --spinner none --max-hands 2"),
    );
    assert_eq!(report["rules"]["spinner"], "none");
    assert_eq!(report["rules"]["hand_size"], 7);
    for (game, log) in check_report(&report, 3, false, 3).iter().enumerate() {
        let record = &report["games"][game];
        assert!(uint(&record["hands"]) <= 2);
        if record["ending"]["kind"] == "max_hands" {
            assert_eq!(record["hands"], 2);
        }
        let text = fs::read_to_string(log).expect("log");
        assert!(
            !text.contains("\"up\""),
            "no spinner, no short end: {log:?}"
        );
    }
    sb.assert_no_bot_left();
}

#[test]
fn four_players_in_partnerships() {
    let sb = Sandbox::new();
    let bots = [
        sb.sample("random_bot", &["5"]),
        "builtin:greedy".to_string(),
        sb.sample("greedy_bot", &[]),
        "builtin:random".to_string(),
    ];
    let (_, report) = play(
        &sb,
        &bots,
        &[
            "--games",
            "2",
            "--seed",
            "13",
            "--public-seed",
            "--target",
            "100",
        ],
    );
    assert_eq!(report["rules"]["hand_size"], 5);
    check_report(&report, 4, true, 2);
    for game in report["games"].as_array().expect("games") {
        // Partners share a rank.
        assert_eq!(game["seats"][0]["rank"], game["seats"][2]["rank"]);
        assert_eq!(game["seats"][1]["rank"], game["seats"][3]["rank"]);
    }
    sb.assert_no_bot_left();
}

/// A deal of all 28 tiles in a scrambled order (`step` must be prime to 28).
fn scrambled_deal(players: usize, hand_size: usize, step: usize, leader: usize) -> Deal {
    let tiles: Vec<Tile> = (0..28)
        .map(|i| Tile::from_index((i * step + 5) % 28).expect("a tile index"))
        .collect();
    let hands = (0..players)
        .map(|s| tiles[s * hand_size..(s + 1) * hand_size].to_vec())
        .collect();
    Deal {
        hands,
        boneyard: tiles[players * hand_size..].to_vec(),
        leader,
    }
}

#[test]
fn four_players_cut_throat_from_a_deal_file() {
    let sb = Sandbox::new();
    let deals = [scrambled_deal(4, 6, 3, 2), scrambled_deal(4, 6, 11, 1)];
    let file = sb.path("deals.json");
    fs::write(&file, serde_json::to_string(&deals).expect("deals")).expect("deal file");
    let bots = [
        "builtin:greedy".to_string(),
        sb.sample("random_bot", &["9"]),
        "builtin:random".to_string(),
        sb.sample("greedy_bot", &[]),
    ];
    let file = file.display().to_string();
    let mut args = options(
        "--no-teams --games 2 --seed 14 --hand-size 6 --spinner first --hand-end penalty \
         --finish immediate --target 150 --max-hands 3 --deal",
    );
    args.push(&file);
    let (_, report) = play(&sb, &bots, &args);
    assert_eq!(report["rules"]["teams"], false);
    for log in check_report(&report, 4, false, 2) {
        let starts: Vec<Value> = log_lines(&log)
            .into_iter()
            .filter(|l| kind(l) == "hand_start")
            .collect();
        // The file deals the first hands of every game, whatever the seating.
        for (start, deal) in starts.iter().zip(&deals) {
            let logged: Deal = serde_json::from_value(start["deal"].clone()).expect("a deal");
            assert_eq!(logged.hands, deal.hands);
            assert_eq!(logged.boneyard, deal.boneyard);
        }
        let first: Deal = serde_json::from_value(starts[0]["deal"].clone()).expect("a deal");
        assert_eq!(first.leader, 2, "the file's leader leads the first hand");
    }
    sb.assert_no_bot_left();
}

/// The logs of a match with the `time_us` fields taken out, the request ids (a process's count
/// its hello, a builtin's do not), and the bots' command lines (which hold each test's marker).
fn timeless_logs(sb: &Sandbox, games: usize) -> Vec<Vec<Value>> {
    (1..=games)
        .map(|g| {
            log_lines(&sb.log(g))
                .into_iter()
                .map(|mut line| {
                    if let Some(obj) = line.as_object_mut() {
                        obj.remove("time_us");
                        obj.remove("id");
                        // What a bot said it was thinking is its own; the moves are compared.
                        obj.remove("info");
                        if let Some(seats) = obj.get_mut("seats").and_then(Value::as_array_mut) {
                            for seat in seats {
                                seat.as_object_mut().map(|s| s.remove("command"));
                            }
                        }
                    }
                    line
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_seed_replays_the_same_match() {
    let run = || {
        let sb = Sandbox::new();
        let bots = [
            sb.sample("random_bot", &["21"]),
            "builtin:random".to_string(),
            sb.sample("greedy_bot", &[]),
        ];
        let (_, report) = play(
            &sb,
            &bots,
            &[
                "--games",
                "3",
                "--seed",
                "4242",
                "--public-seed",
                "--target",
                "100",
            ],
        );
        check_report(&report, 3, false, 3);
        sb.assert_no_bot_left();
        (timeless_logs(&sb, 3), report)
    };
    let (logs_a, report_a) = run();
    let (logs_b, report_b) = run();
    assert_eq!(logs_a, logs_b);
    for (a, b) in report_a["games"]
        .as_array()
        .expect("games")
        .iter()
        .zip(report_b["games"].as_array().expect("games"))
    {
        for field in ["seed", "ending", "hands", "scores"] {
            assert_eq!(a[field], b[field]);
        }
        assert_eq!((seating(a), ranks(a)), (seating(b), ranks(b)));
    }
}

/// Two games of `greedy` (a command line, given the sandbox) against builtin:random, without
/// their headers (which name the bots) and timings.
pub fn games_against_random(greedy: &dyn Fn(&Sandbox) -> String) -> Vec<Vec<Value>> {
    let sb = Sandbox::new();
    let bots = [greedy(&sb), "builtin:random".to_string()];
    play(
        &sb,
        &bots,
        &[
            "--games",
            "2",
            "--seed",
            "9",
            "--public-seed",
            "--target",
            "150",
        ],
    );
    let logs = timeless_logs(&sb, 2);
    sb.assert_no_bot_left();
    logs.into_iter()
        .map(|log| log.into_iter().skip(1).collect::<Vec<_>>())
        .collect::<Vec<_>>()
}

#[test]
fn the_python_greedy_bot_plays_like_the_builtin() {
    let python = games_against_random(&|sb| sb.sample("greedy_bot", &[]));
    let builtin = games_against_random(&|_| "builtin:greedy".to_string());
    assert_eq!(python, builtin);
}

#[test]
fn the_minimal_bot_of_protocol_md_plays_a_match() {
    let doc = fs::read_to_string(root().join("protocol.md")).expect("protocol.md");
    let start = doc
        .find("<!-- minimal-bot -->")
        .expect("protocol.md marks its minimal bot with <!-- minimal-bot -->");
    let rest = &doc[start..];
    let code_start = rest.find("```python\n").expect("a python block") + "```python\n".len();
    let code = &rest[code_start..];
    let code = &code[..code.find("```").expect("the block ends")];
    assert!(code.lines().count() <= 25, "the minimal bot stays minimal");
    let sb = Sandbox::new();
    let script = sb.path("minimal_bot.py");
    fs::write(&script, code).expect("write the bot");
    let bots = [sb.python(&script, &[]), "builtin:random".to_string()];
    let (_, report) = play(
        &sb,
        &bots,
        &[
            "--games",
            "2",
            "--seed",
            "15",
            "--public-seed",
            "--target",
            "100",
        ],
    );
    check_report(&report, 2, false, 2);
    assert!(uint(&report["standings"]["entrants"][0]["moves"]) > 0);
    sb.assert_no_bot_left();
}

/// Plays the fixture `name` with `args` (seat 0 of the first game) against builtin:greedy with
/// `options`, in a new sandbox.
fn fixture_vs_greedy(name: &str, args: &[&str], options: &[&str]) -> (Sandbox, Ran, Value) {
    let sb = Sandbox::new();
    let bots = [sb.fixture(name, args), "builtin:greedy".to_string()];
    let (ran, report) = play(&sb, &bots, options);
    (sb, ran, report)
}

#[test]
fn a_loosely_written_bot_is_understood() {
    // Tiles larger number first, no `end` key on a lead, a name and protocol in its hello,
    // CRLF line endings: all allowed.
    let (sb, _, report) = fixture_vs_greedy(
        "reversed_tile",
        &[],
        &[
            "--games",
            "2",
            "--seed",
            SEED,
            "--public-seed",
            "--target",
            "100",
        ],
    );
    check_report(&report, 2, false, 2);
    assert!(uint(&report["standings"]["entrants"][0]["moves"]) > 0);
    sb.assert_no_bot_left();
}

/// An answer that comes in two writes is read whole: cut inside the referee's short blocking
/// wait (1 ms apart) or across it, so that the async wait completes the line (20 ms apart).
#[test]
fn an_answer_written_in_pieces_is_read_whole() {
    for pause in ["1", "20"] {
        let (sb, _, report) = fixture_vs_greedy(
            "answers_in_pieces",
            &[pause],
            &[
                "--seed",
                SEED,
                "--public-seed",
                "--target",
                "60",
                "--move-ms",
                "2000",
            ],
        );
        check_report(&report, 2, false, 1);
        assert_eq!(
            report["games"][0]["faults"],
            serde_json::json!([]),
            "{pause} ms"
        );
        assert!(uint(&report["standings"]["entrants"][0]["moves"]) > 0);
        sb.assert_no_bot_left();
    }
}

/// Fields the referee does not know are ignored: a `legal` entry copied whole (with its `sum`
/// and `points`), or a field of the bot's own.
#[test]
fn a_move_with_fields_of_its_own_is_understood() {
    for fixture in ["copies_legal", "extra_field"] {
        let (sb, _, report) = fixture_vs_greedy(
            fixture,
            &[],
            &["--seed", SEED, "--public-seed", "--target", "100"],
        );
        check_report(&report, 2, false, 1);
        let moves = &report["standings"]["entrants"][0]["moves"];
        assert!(uint(moves) > 1, "{fixture}");
        sb.assert_no_bot_left();
    }
}

// ---------------------------------------------------------------------------------------------
// What a bot is told
// ---------------------------------------------------------------------------------------------

type T2 = (u64, u64);

fn tile_of(v: &Value) -> T2 {
    let pair = v.as_array().unwrap_or_else(|| panic!("{v} is not a tile"));
    assert_eq!(pair.len(), 2, "{v} is not a tile");
    let (a, b) = (
        pair[0].as_u64().expect("a number"),
        pair[1].as_u64().expect("a number"),
    );
    assert!(a <= 6 && b <= 6, "{v} is not a tile");
    (a.min(b), a.max(b))
}

fn tiles_of(v: &Value) -> BTreeSet<T2> {
    v.as_array()
        .unwrap_or_else(|| panic!("{v} is not a list of tiles"))
        .iter()
        .map(tile_of)
        .collect()
}

/// Calls `f` with every key and value in `v`, at any depth.
fn walk(v: &Value, f: &mut impl FnMut(&str, &Value)) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                f(k, x);
                walk(x, f);
            }
        }
        Value::Array(items) => items.iter().for_each(|x| walk(x, f)),
        _ => {}
    }
}

/// One hand of a log: its deal, its events, its end.
struct LoggedHand {
    deal: Value,
    events: Vec<Value>,
    end: Option<Value>,
}

fn logged_hands(lines: &[Value]) -> Vec<LoggedHand> {
    let mut hands: Vec<LoggedHand> = Vec::new();
    for line in lines {
        match kind(line) {
            "hand_start" => hands.push(LoggedHand {
                deal: line["deal"].clone(),
                events: Vec::new(),
                end: None,
            }),
            "play" | "draw" | "pass" => hands.last_mut().expect("a hand").events.push(line.clone()),
            "hand_end" => hands.last_mut().expect("a hand").end = Some(line.clone()),
            _ => {}
        }
    }
    hands
}

/// What `seat` may see of a logged event, as the protocol shows it.
fn seen(event: &Value, seat: usize) -> Value {
    let mut seen = serde_json::Map::new();
    seen.insert("type".into(), event["type"].clone());
    seen.insert("seat".into(), event["seat"].clone());
    match kind(event) {
        "play" => {
            for k in ["tile", "end", "sum", "points"] {
                seen.insert(k.into(), event[k].clone());
            }
        }
        "draw" if uint(&event["seat"]) == seat => {
            seen.insert("tile".into(), event["tile"].clone());
        }
        "draw" => {
            seen.insert("tile".into(), Value::Null);
        }
        _ => {}
    }
    Value::Object(seen)
}

/// The state of one hand as the recorder lived it.
struct HandSeen<'a> {
    number: usize,
    logged: &'a LoggedHand,
    own: BTreeSet<T2>,
    /// Events told so far (as the bot received them).
    told: Vec<Value>,
}

impl HandSeen<'_> {
    /// The tiles the seat may know of now: its deal, its draws, the tiles played.
    fn known(&self, seat: usize) -> BTreeSet<T2> {
        let mut known = self.own.clone();
        for e in &self.logged.events[..self.told.len()] {
            match kind(e) {
                "play" => {
                    known.insert(tile_of(&e["tile"]));
                }
                "draw" if uint(&e["seat"]) == seat => {
                    known.insert(tile_of(&e["tile"]));
                }
                _ => {}
            }
        }
        known
    }
}

/// Checks one game of the recorder's conversation against the game's log.
fn check_game_seen(messages: &[Value], log: &[Value], seed: &Value) {
    let seat = uint(&messages[0]["seat"]);
    let header = &log[0];
    assert_eq!(messages[0]["rules"], header["rules"]);
    assert_eq!(messages[0]["clock"], header["clock"]);
    assert_eq!(&header["seed"], seed);
    let players = uint(&header["rules"]["players"]);
    let names: Vec<Value> = header["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["bot"].clone())
        .collect();
    assert_eq!(messages[0]["players"], Value::Array(names));
    let hands = logged_hands(log);
    let mut hand: Option<HandSeen> = None;
    let mut ended_hands = 0;
    for msg in &messages[1..messages.len() - 1] {
        match kind(msg) {
            "hand_start" => {
                assert!(hand.is_none(), "a hand_start inside a hand: {msg}");
                let n = uint(&msg["hand"]);
                let logged = &hands[n - 1];
                let own = tiles_of(&logged.deal["hands"][seat]);
                assert_eq!(tiles_of(&msg["tiles"]), own);
                assert_eq!(msg["leader"], logged.deal["leader"]);
                let sizes: Vec<usize> = (0..players)
                    .map(|s| logged.deal["hands"][s].as_array().map_or(0, Vec::len))
                    .collect();
                assert_eq!(msg["hand_sizes"], serde_json::json!(sizes));
                assert_eq!(
                    uint(&msg["boneyard"]),
                    logged.deal["boneyard"].as_array().map_or(0, Vec::len)
                );
                hand = Some(HandSeen {
                    number: n,
                    logged,
                    own,
                    told: Vec::new(),
                });
            }
            "event" => {
                let h = hand.as_mut().expect("an event outside a hand");
                let logged = &h.logged.events[h.told.len()];
                // Exactly the logged event, another seat's drawn tile hidden.
                assert_eq!(msg["event"], seen(logged, seat), "event {}", h.told.len());
                h.told.push(msg["event"].clone());
            }
            "turn" => {
                let h = hand.as_ref().expect("a turn outside a hand");
                let view = &msg["view"];
                if header["clock"]["bank_ms"] == 0 {
                    assert_eq!(msg["time_left_ms"], header["clock"]["move_ms"]);
                }
                assert_eq!(view["rules"], header["rules"]);
                assert_eq!(uint(&view["seat"]), seat);
                assert_eq!(view["turn"], seat);
                assert_eq!(uint(&view["hand_number"]), h.number);
                assert_eq!(view["history"], Value::Array(h.told.clone()));
                let legal = view["legal"].as_array().expect("legal");
                assert!(legal.len() >= 2, "asked without a choice: {view}");
                let known = h.known(seat);
                let mut shown: Vec<T2> = Vec::new();
                shown.extend(tiles_of(&view["hand"]));
                shown.extend(tiles_of(&view["drawn"]));
                if !view["forced"].is_null() {
                    shown.push(tile_of(&view["forced"]));
                }
                for list in ["layout", "legal", "history"] {
                    for item in view[list].as_array().expect("a list") {
                        if let Some(t) = item.get("tile").filter(|t| !t.is_null()) {
                            shown.push(tile_of(t));
                        }
                    }
                }
                for tile in shown {
                    assert!(
                        known.contains(&tile),
                        "seat {seat} was shown {tile:?}: {msg}"
                    );
                }
                // Its hand is exactly its deal and draws, less what it played.
                let mut hand_now = known.clone();
                let mut draws = vec![0usize; players];
                let mut plays = vec![0usize; players];
                for e in &h.logged.events[..h.told.len()] {
                    let by = uint(&e["seat"]);
                    match kind(e) {
                        "play" => {
                            plays[by] += 1;
                            hand_now.remove(&tile_of(&e["tile"]));
                        }
                        "draw" => draws[by] += 1,
                        _ => {}
                    }
                }
                assert_eq!(tiles_of(&view["hand"]), hand_now);
                let dealt = h.logged.deal["hands"][0].as_array().map_or(0, Vec::len);
                let sizes: Vec<usize> = (0..players).map(|s| dealt + draws[s] - plays[s]).collect();
                assert_eq!(view["hand_sizes"], serde_json::json!(sizes));
                let boneyard = h.logged.deal["boneyard"].as_array().map_or(0, Vec::len);
                assert_eq!(
                    uint(&view["boneyard"]),
                    boneyard - draws.iter().sum::<usize>()
                );
            }
            "hand_end" => {
                let h = hand.take().expect("a hand_end outside a hand");
                assert_eq!(
                    h.told.len(),
                    h.logged.events.len(),
                    "every event told first"
                );
                let mut logged = h.logged.end.clone().expect("the log ends the hand");
                logged.as_object_mut().expect("an object").remove("type");
                assert_eq!(msg["summary"], logged);
                ended_hands += 1;
            }
            other => panic!("unexpected message {other} inside a game: {msg}"),
        }
    }
    assert!(ended_hands + 1 >= hands.len());
    let end = &messages[messages.len() - 1];
    assert_eq!(kind(end), "game_end");
    let logged_end = log.last().expect("a log");
    for field in ["ending", "hands", "scores", "ranks"] {
        assert_eq!(end["result"][field], logged_end[field]);
    }
}

/// Runs the recorder (seat 0 of the first game) with the other bots `others` gives in a match,
/// and checks every line it received.
fn check_recorder(
    others: impl Fn(&Sandbox) -> Vec<String>,
    options: &[&str],
    seed: u64,
    games: usize,
) {
    let sb = Sandbox::new();
    let received = sb.path("received.jsonl");
    let mut bots = vec![sb.fixture("recorder", &[&received.display().to_string()])];
    bots.extend(others(&sb));
    let seed_text = seed.to_string();
    // The recorder writes its file where bots may not: it is the test's instrument, trusted.
    let mut args = vec!["--seed", &seed_text, "--public-seed", "--no-sandbox"];
    args.extend(options);
    let (_, report) = play(&sb, &bots, &args);
    check_report(&report, bots.len(), report["rules"]["teams"] == true, games);
    let text = fs::read_to_string(&received).expect("the recorder's file");
    let messages: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    for line in text.lines() {
        assert!(!line.contains(&seed_text), "the seed leaked: {line}");
    }
    for msg in &messages {
        walk(msg, &mut |key, value| {
            assert_ne!(key, "seed", "{msg}");
            if key == "boneyard" {
                assert!(value.is_u64(), "the boneyard is only a count: {msg}");
            }
        });
    }
    // hello, then game after game, then bye; each seat arrangement has a process of its own,
    // which says hello before its first game, so the games come one arrangement at a time, and
    // every process hears bye at the end (all of them, the recorder's file shared).
    assert_eq!(kind(&messages[0]), "hello");
    assert_eq!(kind(messages.last().expect("messages")), "bye");
    let mut at = 1;
    let mut played = Vec::new();
    let mut last_id = uint(&messages[0]["id"]);
    let (mut hellos, mut byes) = (1, 0);
    while at < messages.len() {
        match kind(&messages[at]) {
            "hello" => {
                assert_eq!(byes, 0, "a hello after a bye: {}", messages[at]);
                assert!(
                    uint(&messages[at]["id"]) > last_id,
                    "ids grow across processes"
                );
                last_id = uint(&messages[at]["id"]);
                hellos += 1;
                at += 1;
                continue;
            }
            "bye" => {
                byes += 1;
                at += 1;
                continue;
            }
            _ => assert_eq!(byes, 0, "a game after a bye: {}", messages[at]),
        }
        assert_eq!(kind(&messages[at]), "game_start", "{}", messages[at]);
        let end = at
            + messages[at..]
                .iter()
                .position(|m| kind(m) == "game_end")
                .expect("a game_end");
        let game = uint(&messages[at]["game"]);
        played.push(game);
        let log = log_lines(&sb.log(game));
        let game_seed = &report["games"][game - 1]["seed"];
        for m in &messages[at..=end] {
            assert!(
                !m.to_string().contains(&game_seed.to_string()),
                "the seed leaked: {m}"
            );
        }
        check_game_seen(&messages[at..=end], &log, game_seed);
        for m in &messages[at..=end] {
            if kind(m) == "turn" {
                assert!(uint(&m["id"]) > last_id, "ids grow: {m}");
                last_id = uint(&m["id"]);
            }
        }
        at = end + 1;
    }
    played.sort();
    assert_eq!(played, (1..=games).collect::<Vec<_>>());
    assert_eq!(hellos, byes, "every process hears bye");
    sb.assert_no_bot_left();
}

#[test]
fn a_bot_sees_nothing_hidden_in_partnerships() {
    check_recorder(
        |sb| {
            vec![
                "builtin:greedy".into(),
                sb.sample("random_bot", &["3"]),
                "builtin:random".into(),
            ]
        },
        &["--games", "4", "--target", "100"],
        987_654_321,
        4,
    );
}

#[test]
fn a_bot_sees_nothing_hidden_with_many_draws() {
    // Small hands, a big boneyard: many draws, many forced plays, some passes.
    check_recorder(
        |_| vec!["builtin:greedy".into()],
        &options("--games 2 --hand-size 4 --spinner all --target 100"),
        123_456_789,
        2,
    );
}

#[test]
fn a_bot_sees_nothing_hidden_with_three_players() {
    check_recorder(
        |_| vec!["builtin:random".into(), "builtin:greedy".into()],
        &["--games", "3", "--max-hands", "2"],
        555_444_333,
        3,
    );
}

/// The types of the messages the recorder received, in order.
fn conversation(received: &Path) -> Vec<String> {
    fs::read_to_string(received)
        .expect("the recorder's file")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON");
            kind(&v).to_string()
        })
        .collect()
}

#[test]
fn a_process_serves_many_games_but_never_a_deal_twice() {
    // 3 games: deal 1 in both seatings (games 1, 2), deal 2 in the first (game 3). By default
    // games 1 and 3 share a process and game 2, the first deal again, gets a new one.
    let cases: [(&[&str], usize, [u64; 3]); 3] = [
        (&[], 2, [1, 3, 2]),
        (&["--fresh"], 3, [1, 3, 2]),
        (&["--reuse-processes"], 1, [1, 3, 2]),
    ];
    for (option, processes, order) in cases {
        let sb = Sandbox::new();
        let received = sb.path("received.jsonl");
        let bots = [
            sb.fixture("recorder", &[&received.display().to_string()]),
            "builtin:greedy".to_string(),
        ];
        // The recorder writes its file where bots may not: trusted, uncontained.
        let mut options = vec![
            "--games",
            "3",
            "--seed",
            SEED,
            "--public-seed",
            "--target",
            "60",
            "--no-sandbox",
        ];
        options.extend(option);
        let (_, report) = play(&sb, &bots, &options);
        check_report(&report, 2, false, 3);
        let types = conversation(&received);
        let count = |t: &str| types.iter().filter(|x| *x == t).count();
        assert_eq!(count("hello"), processes, "{option:?}: {types:?}");
        assert_eq!(count("bye"), processes, "{option:?}: {types:?}");
        assert_eq!(count("game_start"), 3);
        assert_eq!(count("game_end"), 3);
        assert_eq!(types.first().map(String::as_str), Some("hello"));
        assert_eq!(types.last().map(String::as_str), Some("bye"));
        let games: Vec<u64> = report["games"]
            .as_array()
            .expect("games")
            .iter()
            .map(|g| g["game"].as_u64().expect("a number"))
            .collect();
        assert_eq!(games, order, "the games in the order played");
        sb.assert_no_bot_left();
    }
}

#[test]
fn bots_that_fail_to_start_rank_below_every_bot_that_started() {
    // Issue 18: ranks [1, 3, 1] with two of three failing, [2, 1] with both of two.
    let sb = Sandbox::new();
    let cases: [(&[&str], serde_json::Value); 2] = [
        (
            &["builtin:greedy", "/usr/bin/false", "/usr/bin/false"],
            serde_json::json!([1, 2, 2]),
        ),
        (
            &["/usr/bin/false", "/usr/bin/false"],
            serde_json::json!([1, 1]),
        ),
    ];
    for (bots, expected) in cases {
        let bots: Vec<String> = bots.iter().map(|b| b.to_string()).collect();
        let (_, report) = play(&sb, &bots, &["--games", "1", "--seed", SEED]);
        let game = &report["games"][0];
        assert_eq!(ranks(game), expected, "{game:#}");
        assert_eq!(game["ending"]["kind"], "forfeit");
        let forfeits = game["faults"].as_array().expect("faults");
        let failing = bots.iter().filter(|b| *b == "/usr/bin/false").count();
        assert_eq!(forfeits.len(), failing, "{game:#}");
        assert!(forfeits.iter().all(|f| f["forfeit"] == true), "{game:#}");
        // Nobody is credited a win when every bot failed.
        let wins: u64 = report["standings"]["entrants"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| r["wins"].as_u64().expect("wins"))
            .sum();
        assert_eq!(wins, u64::from(bots[0] == "builtin:greedy"), "{report:#}");
        assert_replays(Path::new(game["log"].as_str().expect("a log")));
    }
}

#[test]
fn every_game_end_follows_its_game_start() {
    let sb = Sandbox::new();
    let received = sb.path("received.jsonl");
    let bots = [
        sb.fixture("recorder", &[&received.display().to_string()]),
        sb.fixture("exits_at_once", &[]),
    ];
    // The recorder writes its file where bots may not: trusted, uncontained. A bot that cannot
    // start stops the match after its first game (exit code 4).
    let logs = sb.unused_logs().display().to_string();
    let options = [
        "--games",
        "2",
        "--seed",
        SEED,
        "--public-seed",
        "--no-sandbox",
        "--json",
        "--log-dir",
        &logs,
    ];
    let ran = allfives(
        &[
            &["match"],
            &bots.each_ref().map(String::as_str)[..],
            &options,
        ]
        .concat(),
    );
    assert_eq!(ran.code, Some(4), "{}", ran.stderr);
    let report = ran.json();
    for game in report["games"].as_array().expect("games") {
        assert_eq!(game["faults"][0]["kind"], "crash");
    }
    let types = conversation(&received);
    let mut open = false;
    for t in &types {
        match t.as_str() {
            "game_start" => {
                assert!(!open, "{types:?}");
                open = true;
            }
            "game_end" => {
                assert!(open, "a game_end without its game_start: {types:?}");
                open = false;
            }
            _ => {}
        }
    }
    sb.assert_no_bot_left();
}

// ---------------------------------------------------------------------------------------------
// Misbehaving bots
// ---------------------------------------------------------------------------------------------

/// Plays `fixture` (seat 0) against builtin:greedy and checks that it forfeits by a fault of
/// `fault_kind`, quickly and cleanly, and that the fault's detail says every one of `says`.
/// Returns the fault record.
fn forfeits(fixture: &str, args: &[&str], move_ms: &str, fault_kind: &str, says: &[&str]) -> Value {
    let (sb, ran, report) = fixture_vs_greedy(
        fixture,
        args,
        &[
            "--seed",
            SEED,
            "--public-seed",
            // Every fixture here says hello at once: a start clock no loaded machine makes a
            // contained Python's start reach (2000 ms once could), which costs no time.
            "--startup-ms",
            "20000",
            "--move-ms",
            move_ms,
        ],
    );
    assert!(
        ran.took < QUICK,
        "{fixture}: the referee took {:?}",
        ran.took
    );
    let game = &report["games"][0];
    let fault = &game["faults"][0];
    assert_eq!(fault["kind"], fault_kind, "{fixture}: {game:#}");
    assert_eq!(fault["seat"], 0);
    assert_eq!(fault["forfeit"], true);
    assert_eq!(game["faults"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        game["ending"],
        serde_json::json!({"kind": "forfeit", "seat": 0})
    );
    assert!(
        uint(&game["seats"][0]["rank"]) > uint(&game["seats"][1]["rank"]),
        "the faulting bot ranks last: {game:#}"
    );
    assert_eq!(report["standings"]["entrants"][0]["losses"], 1);
    assert_eq!(report["standings"]["entrants"][0]["faults"][fault_kind], 1);
    let log = sb.log(1);
    assert_replays(&log);
    let lines = log_lines(&log);
    let end = lines.last().expect("a log");
    assert_eq!(kind(end), "game_end", "{fixture}: the log is complete");
    assert_eq!(end["forfeits"][0]["kind"], fault_kind);
    assert!(lines.iter().any(|l| kind(l) == "fault"));
    sb.assert_no_bot_left();
    let detail = fault["detail"].as_str().unwrap_or("");
    for words in says {
        assert!(
            detail.contains(words),
            "{fixture}: the detail does not say {words:?}: {fault}"
        );
    }
    fault.clone()
}

/// One test a line: `test: fixture [its arguments], --move-ms => the fault's kind, and the
/// words its detail must say (if any)`. See [`forfeits`].
macro_rules! forfeit_tests {
    ($($test:ident: $fixture:literal $args:tt, $move_ms:literal => $kind:literal
        $(, $says:literal)?;)*) => {
        $(
            #[test]
            fn $test() {
                forfeits($fixture, &$args, $move_ms, $kind, &[$($says)?]);
            }
        )*
    };
}

forfeit_tests! {
    a_bot_that_never_answers_times_out: "never_answers" [], "300" => "timeout", "300 ms";
    a_slow_bot_times_out: "slow" [], "300" => "timeout";
    a_bot_that_never_reads_times_out_and_is_killed: "never_reads" [], "300" => "timeout";
    a_bot_that_crashes_midgame_forfeits: "crash_midgame" [], "2000" => "crash", "code 1";
    a_bot_that_exits_at_once_forfeits: "exits_at_once" [], "2000" => "crash", "code 3";
    // A generous clock: under a heavy load the fork and exit once took more than 2 s.
    a_bot_whose_child_holds_its_output_forfeits_and_both_die: "forks_child" [], "10000" => "crash";
    a_bot_that_does_not_flush_is_told_so:
        "unflushed" [], "300" => "timeout", "since its hello: is the output flushed after each answer?";
    a_bot_late_once_is_told_its_earlier_answers_came:
        "slow_once" [], "2000" => "timeout", "where its earlier answers came in time";
    a_bot_that_forgets_its_newline_is_told_so:
        "no_newline" [], "300" => "timeout", "a line arrived without its newline";
    a_bot_that_plays_on_a_wrong_end_forfeits:
        "illegal" ["wrong-end"], "2000" => "illegal", "does not match";
    a_bot_that_echoes_a_wrong_id_forfeits: "wrong_id" [], "2000" => "wrong_id", "answered id 10";
    a_bot_that_writes_a_line_just_over_the_limit_forfeits: "long_line" [], "2000" => "too_long";
    a_bot_that_closes_its_input_crashes: "closes_input" [], "2000" => "crash", "closed its input";
}

/// A bot silent at a later turn is not told it was late: at the clock's end the referee
/// cannot tell an answer still coming from none.
#[test]
fn a_bot_silent_at_a_later_turn_is_not_called_late() {
    // A clock no loaded machine makes its first two answers reach; its third takes 60 s.
    let fault = forfeits(
        "stalls",
        &["3"],
        "2000",
        "timeout",
        &["its earlier answers came"],
    );
    let detail = fault["detail"].as_str().unwrap_or("");
    assert!(
        !detail.contains("late"),
        "a silent bot is told it was late: {detail}"
    );
    assert!(detail.contains("or stopped answering"), "{detail}");
}

/// The cap counts a line without its newline, `\n` or `\r\n` alike.
#[test]
fn a_line_at_the_limit_is_accepted_with_either_newline() {
    for ending in [&["at-limit"][..], &["at-limit", "crlf"]] {
        let (sb, _, report) = fixture_vs_greedy(
            "long_line",
            ending,
            &[
                "--seed",
                SEED,
                "--public-seed",
                "--target",
                "60",
                "--move-ms",
                "2000",
            ],
        );
        check_report(&report, 2, false, 1);
        assert_eq!(
            report["games"][0]["faults"],
            serde_json::json!([]),
            "{ending:?}"
        );
        assert!(
            uint(&report["standings"]["entrants"][0]["moves"]) > 0,
            "{ending:?}"
        );
        sb.assert_no_bot_left();
    }
}

#[test]
fn a_bot_that_writes_garbage_forfeits() {
    let fault = forfeits("garbage", &[], "2000", "malformed", &[]);
    assert_eq!(fault["input"], "not json");
}

#[test]
fn a_bot_that_plays_a_tile_it_does_not_hold_forfeits() {
    let fault = forfeits("illegal", &[], "2000", "illegal", &["not in your hand"]);
    assert!(fault["input"].as_str().unwrap_or("").contains("tile"));
}

#[test]
fn a_bot_that_writes_a_huge_line_forfeits() {
    let fault = forfeits("huge_line", &[], "2000", "too_long", &[]);
    assert!(fault["input"].as_str().unwrap_or("").len() <= 800);
}

#[test]
fn a_bot_that_ignores_sigterm_is_still_stopped() {
    let (sb, ran, report) = fixture_vs_greedy(
        "ignores_sigterm",
        &[],
        &[
            "--seed",
            SEED,
            "--public-seed",
            "--games",
            "2",
            "--target",
            "60",
        ],
    );
    assert!(ran.took < QUICK, "the referee took {:?}", ran.took);
    check_report(&report, 2, false, 2);
    sb.assert_no_bot_left();
}

/// Each seat arrangement has a process of its own, and both append to the bot's one stderr
/// file: a line one of them writes in pieces stays whole, never with the other's piece in its
/// middle (as it once was, in a tournament's cheater test: a line of two hands read as one).
#[test]
fn a_line_written_in_pieces_stays_whole_beside_the_bots_other_process() {
    let (sb, _, _) = fixture_vs_greedy(
        "stderr_in_pieces",
        &[],
        &[
            "--games",
            "18",
            "--max-hands",
            "1",
            "--seed",
            SEED,
            "--public-seed",
        ],
    );
    let text =
        fs::read_to_string(sb.logs().join("stderr_in_pieces.stderr")).expect("the stderr file");
    let whole = |line: &str| {
        let (open, close) = line.split_once(' ').unwrap_or_default();
        open.strip_prefix("open-").is_some()
            && open.strip_prefix("open-") == close.strip_prefix("close-")
    };
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.lines().all(whole), "{text}");
    sb.assert_no_bot_left();
}

#[test]
fn a_bot_flooding_stderr_is_capped_and_plays_on() {
    let (sb, ran, report) = fixture_vs_greedy(
        "floods_stderr",
        &[],
        &["--seed", SEED, "--public-seed", "--target", "60"],
    );
    assert!(ran.took < QUICK, "the referee took {:?}", ran.took);
    check_report(&report, 2, false, 1);
    assert!(
        uint(&report["standings"]["entrants"][0]["moves"]) >= 1,
        "it got a turn"
    );
    let stderr = fs::read(sb.logs().join("floods_stderr.stderr")).expect("the stderr file");
    assert!(
        stderr.len() <= (1 << 20) + 100,
        "{} bytes of stderr kept",
        stderr.len()
    );
    assert!(stderr.len() >= 1 << 20, "the first MiB is kept");
    let tail = String::from_utf8_lossy(&stderr[stderr.len().saturating_sub(100)..]).into_owned();
    assert!(tail.contains("[allfives: stderr cut"), "{tail}");
    sb.assert_no_bot_left();
}

#[test]
fn a_bot_is_restarted_for_the_next_game_after_a_fault() {
    let (sb, _, report) = fixture_vs_greedy(
        "garbage",
        &[],
        &["--seed", SEED, "--public-seed", "--games", "2"],
    );
    for (game, seat) in [(0, 0), (1, 1)] {
        let record = &report["games"][game];
        // A fresh process answered the handshake and its first turn, then wrote garbage again.
        assert_eq!(record["faults"][0]["kind"], "malformed", "{record:#}");
        assert_eq!(record["faults"][0]["seat"], seat);
        assert_replays(&sb.log(game + 1));
    }
    sb.assert_no_bot_left();
}

// ---------------------------------------------------------------------------------------------
// --on-fault fallback
// ---------------------------------------------------------------------------------------------

fn fallback(fixture: &str, move_ms: &str) -> (Sandbox, Value) {
    let (sb, ran, report) = fixture_vs_greedy(
        fixture,
        &[],
        &[
            "--seed",
            SEED,
            "--public-seed",
            "--move-ms",
            move_ms,
            "--on-fault",
            "fallback",
            "--max-faults",
            "2",
        ],
    );
    assert!(ran.took < QUICK, "the referee took {:?}", ran.took);
    assert_replays(&sb.log(1));
    let lines = log_lines(&sb.log(1));
    assert_eq!(kind(lines.last().expect("a log")), "game_end");
    assert!(
        lines
            .iter()
            .any(|l| kind(l) == "play" && l["fallback"] == true),
        "the referee played for the bot"
    );
    sb.assert_no_bot_left();
    (sb, report["games"][0].clone())
}

#[test]
fn fallback_forfeits_at_the_last_allowed_fault() {
    let (_, game) = fallback("garbage", "2000");
    let faults = game["faults"].as_array().expect("faults");
    assert_eq!(faults.len(), 2, "{game:#}");
    assert_eq!(faults[0]["forfeit"], false);
    assert_eq!(faults[1]["forfeit"], true);
    assert_eq!(
        game["ending"],
        serde_json::json!({"kind": "forfeit", "seat": 0})
    );
    assert!(uint(&game["seats"][0]["rank"]) > uint(&game["seats"][1]["rank"]));
}

/// As [`fallback`]: the bot makes one fault of `fault_kind`, is played for, and does not forfeit.
fn fallback_plays_on(fixture: &str, move_ms: &str, fault_kind: &str) {
    let (_, game) = fallback(fixture, move_ms);
    let faults = game["faults"].as_array().expect("faults");
    assert_eq!(faults.len(), 1, "{game:#}");
    assert_eq!(faults[0]["kind"], fault_kind);
    assert_eq!(faults[0]["forfeit"], false);
    assert_ne!(game["ending"]["kind"], "forfeit");
}

#[test]
fn fallback_plays_on_after_a_single_fault() {
    fallback_plays_on("misbehaves_once", "2000", "malformed");
}

/// The standings' last fault says where it came, as a forfeit's line does: the game, and the
/// turn `replay --turn` shows.
#[test]
fn a_fallback_fault_in_the_standings_names_its_game_and_turn() {
    let (sb, _, report) = fixture_vs_greedy(
        "misbehaves_once",
        &[],
        &["--seed", SEED, "--public-seed", "--on-fault", "fallback"],
    );
    let fault = &report["games"][0]["faults"][0];
    assert_eq!(fault["forfeit"], false, "{fault:#}");
    let turn = uint(&fault["turn"]);
    let last = report["standings"]["entrants"][0]["last_fault"]
        .as_str()
        .unwrap_or_default();
    assert!(
        last.starts_with(&format!("malformed in game 1 at --turn {turn} (seat 0): ")),
        "{last}"
    );
    sb.assert_no_bot_left();
}

#[test]
fn fallback_ignores_a_late_answer() {
    fallback_plays_on("slow_once", "2000", "timeout");
}

#[test]
fn fallback_still_forfeits_a_crash_at_once() {
    let (sb, _, report) = fixture_vs_greedy(
        "crash_midgame",
        &[],
        &[
            "--seed",
            SEED,
            "--public-seed",
            "--on-fault",
            "fallback",
            "--max-faults",
            "5",
        ],
    );
    let game = &report["games"][0];
    assert_eq!(game["faults"].as_array().map(Vec::len), Some(1));
    assert_eq!(game["faults"][0]["kind"], "crash");
    assert_eq!(game["faults"][0]["forfeit"], true);
    assert_replays(&sb.log(1));
    sb.assert_no_bot_left();
}

// ---------------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------------

/// The referee must refuse `args` with exit code 2 and a clear message, without a panic.
/// Returns the message's first line.
fn refused_with(args: &[&str]) -> (String, Ran) {
    let ran = allfives(args);
    assert_eq!(ran.code, Some(2), "{args:?}: {ran:?}");
    assert!(!ran.stderr.contains("panicked"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("RUST_BACKTRACE"), "{}", ran.stderr);
    assert!(ran.stdout.is_empty(), "{args:?} printed {}", ran.stdout);
    let first = ran.stderr.lines().next().unwrap_or("").to_string();
    assert!(first.len() > 20, "a clear message: {:?}", ran.stderr);
    (first, ran)
}

/// As [`refused_with`], and in exactly one line.
fn refused_in_one_line(args: &[&str]) -> String {
    let (line, ran) = refused_with(args);
    assert_eq!(ran.stderr.lines().count(), 1, "{:?}", ran.stderr);
    assert!(line.starts_with("allfives: "), "{line}");
    line
}

/// `allfives match builtin:greedy` followed by `rest` must be refused in one line
/// ([`refused_in_one_line`]) that says every one of `says`.
fn match_refused(rest: &[&str], says: &[&str]) {
    let mut args = vec!["match", "builtin:greedy"];
    args.extend(rest);
    let line = refused_in_one_line(&args);
    for words in says {
        assert!(line.contains(words), "{args:?}: {line}");
    }
}

#[test]
fn bad_command_lines_are_refused() {
    match_refused(&["builtin:nope"], &["nope", "greedy"]);
    match_refused(&["/no/such/bot.py"], &["/no/such/bot.py"]);
    match_refused(&["no-such-program-xyz --flag"], &["no-such-program-xyz"]);
    let sb = Sandbox::new();
    let (plain, text) = (sb.path("plain.py"), sb.path("text"));
    fs::write(&plain, "#!/usr/bin/env python3\n").expect("a file");
    fs::write(&text, "not a program\n").expect("a file");
    fs::set_permissions(&text, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    match_refused(&[&plain.display().to_string()], &["is not executable"]);
    match_refused(&[&text.display().to_string()], &["is not a program"]);

    match_refused(&[], &["at least 2 bots, not 1"]);
    let five = ["builtin:random"; 4];
    match_refused(&five, &["at most 4 bots, not 5"]);

    let random = "builtin:random";
    match_refused(&[random, "--hand-size", "20"], &["hand size of 20"]);
    match_refused(&[random, random, "--teams"], &["--teams"]);
    let sb = Sandbox::new();
    let log = sb.path("one.jsonl").display().to_string();
    match_refused(&[random, "--log", &log, "--games", "3"], &["--log"]);
}

#[test]
fn bad_deal_files_are_refused() {
    let sb = Sandbox::new();
    let deal_refused = |file: &Path, says: &[&str]| {
        match_refused(
            &["builtin:random", "--deal", &file.display().to_string()],
            says,
        );
    };
    deal_refused(&sb.path("missing.json"), &["missing.json"]);
    deal_refused(&sb.path(""), &[]);

    let not_json = sb.path("not.json");
    fs::write(&not_json, "hands: none").expect("write");
    deal_refused(&not_json, &["not JSON"]);

    let mut twice = scrambled_deal(2, 9, 3, 0);
    let doubled = twice.hands[0][0];
    twice.boneyard[0] = doubled;
    let file = sb.path("twice.json");
    fs::write(&file, serde_json::to_string(&twice).expect("deal")).expect("write");
    deal_refused(&file, &[&doubled.to_string(), "twice"]);

    // More deals than a game has hands: the third could never be played.
    let three = vec![scrambled_deal(2, 9, 3, 0); 3];
    let file = sb.path("three.json");
    fs::write(&file, serde_json::to_string(&three).expect("deals")).expect("write");
    let shown = file.display().to_string();
    let args = ["builtin:random", "--deal", &shown, "--max-hands", "2"];
    match_refused(&args, &["deal 3 would never be played", "--max-hands"]);
}

/// A finished game's log, played in the sandbox.
fn a_log(sb: &Sandbox) -> PathBuf {
    play(
        sb,
        &["builtin:greedy".into(), "builtin:random".into()],
        &["--seed", SEED, "--public-seed", "--target", "100"],
    );
    sb.log(1)
}

/// Copies `log` to `bad.jsonl` in the sandbox with its first line of type `line_type` changed by
/// `change`: replay must refuse the copy (exit code 3), naming that line, without a panic.
fn replay_refuses_changed(
    sb: &Sandbox,
    log: &Path,
    line_type: &str,
    change: impl FnOnce(&mut Value),
) {
    let mut lines: Vec<String> = fs::read_to_string(log)
        .expect("log")
        .lines()
        .map(String::from)
        .collect();
    let marker = format!("\"type\":\"{line_type}\"");
    let at = lines
        .iter()
        .position(|l| l.contains(&marker))
        .unwrap_or_else(|| panic!("no {line_type} line in the log"));
    let mut changed: Value = serde_json::from_str(&lines[at]).expect("JSON");
    change(&mut changed);
    lines[at] = changed.to_string();
    let bad = sb.path("bad.jsonl");
    fs::write(&bad, lines.join("\n") + "\n").expect("write");
    let ran = allfives(&["replay", "--quiet", &bad.display().to_string()]);
    assert_eq!(ran.code, Some(3), "{ran:?}");
    assert!(
        ran.stderr.contains(&format!("line {}", at + 1)),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("panicked"), "{}", ran.stderr);
}

#[test]
fn replay_names_the_line_that_does_not_check_out() {
    let sb = Sandbox::new();
    let log = a_log(&sb);
    replay_refuses_changed(&sb, &log, "hand_end", |end| {
        let score = end["scores"][0].as_i64().expect("a score");
        end["scores"][0] = Value::from(score + 5);
    });
    // A play with changed points is caught at its line too.
    replay_refuses_changed(&sb, &log, "play", |play_line| {
        play_line["points"] = Value::from(play_line["points"].as_u64().unwrap_or(0) + 5);
    });
}

#[test]
fn replay_accepts_a_log_cut_short() {
    let sb = Sandbox::new();
    let log = a_log(&sb);
    let text = fs::read_to_string(&log).expect("log");
    let cut: Vec<&str> = text.lines().take(6).collect();
    let short = sb.path("short.jsonl");
    fs::write(&short, cut.join("\n") + "\n").expect("write");
    let out = assert_replays_cut(&short);
    assert!(out.contains("as far as it goes"), "{out}");
    let ran = allfives(&["replay", &sb.path("none.jsonl").display().to_string()]);
    assert_eq!(ran.code, Some(2), "an unreadable log is bad input: {ran:?}");
}

// ---------------------------------------------------------------------------------------------
// Ctrl-C
// ---------------------------------------------------------------------------------------------

#[test]
fn ctrl_c_stops_the_match_and_every_bot() {
    let sb = Sandbox::new();
    let args: Vec<String> = vec![
        "match".into(),
        sb.sample("greedy_bot", &[]),
        sb.sample("random_bot", &["4"]),
        "--games".into(),
        "50".into(),
        "--seed".into(),
        SEED.into(),
        "--public-seed".into(),
        "--log-dir".into(),
        sb.logs().display().to_string(),
    ];
    let mut child = spawn(&args);
    // Wait, within a bound, until the first game is under way (its log has moves).
    let first = sb.log(1);
    let deadline = Instant::now() + QUICK;
    loop {
        let lines = fs::read_to_string(&first).map_or(0, |t| t.lines().count());
        if lines >= 4 {
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the match ended before it was interrupted: {status}");
        }
        assert!(Instant::now() < deadline, "no game started");
        std::thread::sleep(Duration::from_millis(5));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).expect("SIGINT");
    let stopped = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if stopped.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("the referee ignored SIGINT");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(status.code(), Some(130));
    let mut stderr = String::new();
    if let Some(mut err) = child.stderr.take() {
        use std::io::Read;
        let _ = err.read_to_string(&mut stderr);
    }
    assert!(stderr.contains("interrupted"), "{stderr}");
    let (mut logs, mut cut) = (0, 0);
    for entry in fs::read_dir(sb.logs()).expect("the log dir").flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let shown = path.display().to_string();
            let ran = allfives(&["replay", "--quiet", &shown]);
            // Every log checks out; the game under way when the signal came is cut short.
            match ran.code {
                Some(0) => {}
                Some(6) => cut += 1,
                _ => panic!("{shown}: {ran:?}"),
            }
            logs += 1;
        }
    }
    assert!((1..50).contains(&logs), "{logs} logs");
    assert!(cut <= 1, "{cut} logs cut short");
    sb.assert_no_bot_left();
}

/// What a log says the referee decided: its lines after the header, without the move times
/// (which differ from run to run); only the whole lines of a log being written.
fn decided(log: &Path) -> Vec<Value> {
    let text = fs::read_to_string(log).unwrap_or_default();
    let whole = &text[..text.rfind('\n').map_or(0, |at| at + 1)];
    whole
        .lines()
        .skip(1)
        .map(|l| {
            let mut line: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            if let Some(fields) = line.as_object_mut() {
                fields.remove("time_us");
            }
            line
        })
        .collect()
}

/// The log is written while a bot thinks, not before every wait (gamelog::writer): it still
/// holds every line decided before the turn it thinks over, for whoever reads it meanwhile, and
/// after the referee is stopped there, by Ctrl-C or killed outright.
#[test]
fn while_a_bot_thinks_its_log_holds_every_line_decided_and_a_stopped_referee_leaves_them() {
    let sb = Sandbox::new();
    let other = sb.sample("greedy_bot", &[]);
    let args = |stall: &str, log: &Path| -> Vec<String> {
        [
            "match",
            &sb.fixture("stalls", &[stall]),
            &other,
            "--games",
            "1",
            "--seed",
            SEED,
            "--public-seed",
            "--move-ms",
            "120000",
            "--log",
            &log.display().to_string(),
        ]
        .map(String::from)
        .to_vec()
    };
    // The same game without the long think: what is decided before the stalling bot's 5th turn.
    let whole = sb.path("whole.jsonl");
    let ran = allfives(&args("0", &whole));
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let header = &log_lines(&whole)[0];
    let seat = header["seats"]
        .as_array()
        .and_then(|seats| {
            seats
                .iter()
                .position(|s| s["command"].as_str().is_some_and(|c| c.contains("stalls")))
        })
        .expect("the stalling bot has a seat");
    let asked = |line: &Value| {
        kind(line) == "play" && uint(&line["seat"]) == seat && line.get("id").is_some()
    };
    let all = decided(&whole);
    let fifth = all
        .iter()
        .enumerate()
        .filter(|(_, line)| asked(line))
        .nth(4)
        .map(|(at, _)| at)
        .expect("the bot is asked at least 5 times in the game");
    let before = &all[..fifth];
    for signal in [Signal::SIGINT, Signal::SIGKILL] {
        let log = sb.path(&format!("{signal}.jsonl"));
        let mut child = spawn(&args("5", &log));
        // Read while the bot thinks: a bounded wait for the lines to come.
        let deadline = Instant::now() + Duration::from_secs(60);
        while decided(&log) != before {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("{signal}: the match ended before the bot's long think: {status}");
            }
            if Instant::now() >= deadline {
                // The referee goes first: its bots die with it.
                let _ = child.kill();
                panic!(
                    "{signal}: the log never held what was decided before the 5th turn: {:?}",
                    decided(&log)
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        kill(Pid::from_raw(child.id() as i32), signal).expect("signalled");
        child.wait().expect("it ends");
        assert_eq!(decided(&log), before, "{signal}: lines were lost or added");
        assert_replays_cut(&log);
    }
    sb.assert_no_bot_left();
}

// ---------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------

/// A bot's `hello` name names it in results and logs; two of the same name are told apart.
/// Its stderr file keeps the name taken from its command, known before it starts.
#[test]
fn bots_are_named_after_their_hello() {
    let sb = Sandbox::new();
    let js = root().join("sample_bots/js/greedy_bot.js");
    let bot = format!("node {} {}", quote(&js.display().to_string()), sb.token());
    let (_, report) = play(
        &sb,
        &[bot.clone(), bot],
        &["--seed", SEED, "--public-seed", "--max-hands", "1"],
    );
    let names = |list: &Value, key: &str| -> Vec<String> {
        let entries = list.as_array().expect("a list of bots");
        entries.iter().map(|e| e[key].to_string()).collect()
    };
    let expected = [r#""greedy-js""#, r#""greedy-js#2""#];
    assert_eq!(names(&report["entrants"], "name"), expected);
    assert_eq!(names(&log_lines(&sb.log(1))[0]["seats"], "bot"), expected);
    assert!(sb.logs().join("greedy_bot#2.stderr").is_file());
    sb.assert_no_bot_left();
}

/// A move that timed out counts among the answer times, at the time it was given up on.
#[test]
fn timing_counts_the_moves_that_timed_out() {
    let (sb, _, report) = fixture_vs_greedy(
        "slow",
        &[],
        &[
            "--seed",
            SEED,
            "--public-seed",
            // Its first answer, on time, is a move that did not time out: a clock no loaded
            // machine makes it reach (it sleeps 10 s on its second).
            "--move-ms",
            "1500",
            "--on-fault",
            "fallback",
        ],
    );
    let slow = &report["standings"]["entrants"][0];
    let timeouts = uint(&slow["faults"]["timeout"]);
    assert!(timeouts >= 1, "{slow:#}");
    assert!(uint(&slow["moves"]) > timeouts, "{slow:#}");
    let p99 = slow["p99_ms"].as_f64().expect("a time");
    assert!(p99 >= 1500.0, "the timed-out moves are counted: {slow:#}");
    sb.assert_no_bot_left();
}
