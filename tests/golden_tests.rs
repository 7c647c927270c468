//! The logs of two fixed-seed matches between builtin bots, byte for byte but for the measured
//! thinking times (`time_us`, set to 0 on both sides): a change to the
//! engine, the referee or the log writer that alters what a log says shows up here. A change
//! meant to alter logs updates `tests/fixtures/golden/` with it, in the same commit. The seeds
//! are mixed with a committed deal key (`golden/deal-key`), which pins that derivation too.

use std::fs;

use crate::harness::{Sandbox, allfives, root};

/// Plays `bots` with `options` and compares each game's log with `golden/{name}-game-N.jsonl`.
fn assert_golden(name: &str, bots: &[&str], options: &[&str]) {
    let sandbox = Sandbox::new();
    let logs = sandbox.logs().display().to_string();
    let mut args = vec!["match"];
    args.extend(bots);
    args.extend(options);
    let key = root().join("tests/fixtures/golden/deal-key");
    let key = key.display().to_string();
    args.extend(["--deal-key", &key, "--log-dir", &logs]);
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "the match failed: {}", ran.stderr);
    for game in 1..=2 {
        let golden = root().join(format!("tests/fixtures/golden/{name}-game-{game}.jsonl"));
        let expected = untimed(&fs::read_to_string(&golden).expect("the golden log"));
        let written = untimed(&fs::read_to_string(sandbox.log(game)).expect("the match's log"));
        assert!(
            written == expected,
            "game {game} of the {name}-player match differs from {}",
            golden.display()
        );
    }
}

/// The log with every `"time_us":N` written as `"time_us":0`.
fn untimed(log: &str) -> String {
    let mut out = String::with_capacity(log.len());
    let mut rest = log;
    while let Some(at) = rest.find("\"time_us\":") {
        let (head, tail) = rest.split_at(at + "\"time_us\":".len());
        out.push_str(head);
        out.push('0');
        rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

#[test]
fn a_two_player_match_logs_what_it_always_logged() {
    let options = ["--games", "2", "--seed", "7"];
    assert_golden("two", &["builtin:greedy", "builtin:random"], &options);
}

#[test]
fn a_four_player_match_with_every_double_spinning_logs_what_it_always_logged() {
    let bots = ["builtin:greedy", "builtin:random"].repeat(2);
    let options = ["--games", "2", "--seed", "9", "--spinner", "all"];
    assert_golden("four", &bots, &options);
}
