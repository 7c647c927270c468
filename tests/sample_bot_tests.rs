//! Matches between the sample bots of every language (Python, JavaScript, Rust), with 2, 3 and
//! 4 players, partnerships and not, under every rule option at least once: no faults, and every
//! log replays through the engine.

use crate::harness::{Sandbox, check_report, play, quote, root, strong_bot};

/// The four sample bots' command lines, each marked with the sandbox's token.
struct Bots {
    greedy: String,
    random: String,
    js: String,
    strong: String,
}

fn bots(sb: &Sandbox) -> Bots {
    let js = root().join("sample_bots/js/greedy_bot.js");
    Bots {
        greedy: sb.sample("greedy_bot", &[]),
        random: sb.sample("random_bot", &["5"]),
        js: format!("node {} {}", quote(&js.display().to_string()), sb.token()),
        strong: format!(
            "{} --name {}",
            quote(&strong_bot().display().to_string()),
            sb.token()
        ),
    }
}

fn match_of(bots: &[&String], options: &[&str], teams: bool, games: usize) {
    let sb = Sandbox::new();
    let commands: Vec<String> = bots.iter().map(|b| (*b).clone()).collect();
    // A generous clock: the strong bot searches, and tests build it without optimisation.
    let mut options = options.to_vec();
    options.extend(["--move-ms", "10000"]);
    let (_, report) = play(&sb, &commands, &options);
    check_report(&report, bots.len(), teams, games);
    sb.assert_no_bot_left();
}

#[test]
fn two_players_python_against_javascript_and_rust_against_python() {
    let sb = Sandbox::new();
    let b = bots(&sb);
    match_of(
        &[&b.greedy, &b.js],
        &[
            "--games",
            "2",
            "--seed",
            "11",
            "--public-seed",
            "--target",
            "100",
        ],
        false,
        2,
    );
    match_of(
        &[&b.strong, &b.random],
        &[
            "--seed",
            "12",
            "--public-seed",
            "--spinner",
            "all",
            "--hand-end",
            "bonus",
            "--target",
            "150",
        ],
        false,
        1,
    );
    match_of(
        &[&b.js, &b.strong],
        &[
            "--seed",
            "13",
            "--public-seed",
            "--hand-size",
            "7",
            "--finish",
            "end-of-hand",
            "--target",
            "80",
            "--fresh",
        ],
        false,
        1,
    );
}

#[test]
fn three_players_of_three_languages() {
    let sb = Sandbox::new();
    let b = bots(&sb);
    match_of(
        &[&b.js, &b.strong, &b.random],
        &[
            "--games",
            "3",
            "--seed",
            "21",
            "--public-seed",
            "--spinner",
            "none",
            "--max-hands",
            "3",
        ],
        false,
        3,
    );
    match_of(
        &[&b.greedy, &b.js, &b.strong],
        &[
            "--seed",
            "22",
            "--public-seed",
            "--hand-size",
            "5",
            "--hand-end",
            "bonus",
            "--finish",
            "end-of-hand",
            "--target",
            "100",
        ],
        false,
        1,
    );
}

#[test]
fn four_players_in_partnerships_and_cut_throat() {
    let sb = Sandbox::new();
    let b = bots(&sb);
    match_of(
        &[&b.strong, &b.js, &b.greedy, &b.random],
        &[
            "--games",
            "4",
            "--seed",
            "31",
            "--public-seed",
            "--target",
            "100",
        ],
        true,
        4,
    );
    match_of(
        &[&b.strong, &b.js, &b.greedy, &b.random],
        &[
            "--no-teams",
            "--seed",
            "32",
            "--public-seed",
            "--spinner",
            "all",
            "--hand-end",
            "bonus",
            "--max-hands",
            "4",
        ],
        false,
        1,
    );
}
