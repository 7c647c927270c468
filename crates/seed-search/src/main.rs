//! cheat_seed_search: a cheating bot for the red-team tests (tests/seed_secrecy_tests.rs). It
//! plays the first legal move, and in its first game searches the seeds a user might type
//! (0 to `--below`, default 1,000,000) for the one that dealt it, the way a bot author with the
//! open-source referee would: every master seed is tried as `--seed N --public-seed` makes it,
//! and the game seeds it derives for the first rounds (a match's) and deals (a tournament's).
//!
//! `cheat_seed_search bot-seed` compares each candidate's `bot_seed` with the one `game_start`
//! sent; `cheat_seed_search hand` deals each candidate and compares its own first hand (one
//! hand of 9 tiles is one of 6.9 million, so among 2 million candidates a wrong seed fits now
//! and then: every fit is listed). For each seed that fits it writes `LEAK seed S (typed T)`
//! and every seat's first hand as `LEAK seat K: [[a,b],...]` (tiles sorted), which the tests
//! compare with the log, then `TRIED N seeds, F fit` on stderr. Written in Rust, linking the engine and the referee's public formulas, so that a
//! million deals take seconds.

use std::io::{self, BufRead, Write};

use allfives::referee::bot_seed;
use allfives::tournament::seeds::derive;
use allfives_engine::protocol::{FromBot, ToBot};
use allfives_engine::{Deal, Rules, Seat, Tile};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Rounds of a match and deals of a tournament tried for each master (the first game a bot
/// plays is round 0, deal 0).
const ROUNDS: u64 = 1;

/// What the cheat compares.
#[derive(Clone, Copy, PartialEq)]
enum Clue {
    BotSeed,
    Hand,
}

/// What the first game told the cheat.
struct Seen {
    seat: Seat,
    rules: Rules,
    bot_seed: Option<u64>,
}

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1);
    let clue = match args.next().as_deref() {
        Some("bot-seed") => Clue::BotSeed,
        Some("hand") => Clue::Hand,
        _ => {
            eprintln!("usage: cheat_seed_search bot-seed|hand [--below N]");
            std::process::exit(2);
        }
    };
    let below: u64 = match (args.next().as_deref(), args.next()) {
        (Some("--below"), Some(n)) => n.parse().expect("--below takes a number"),
        _ => 1_000_000,
    };
    let mut seen: Option<Seen> = None;
    let mut searched = false;
    let mut stdout = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        let Ok(message) = serde_json::from_str::<ToBot>(&line?) else {
            continue;
        };
        let reply = match message {
            ToBot::Hello { id, .. } => FromBot::Hello {
                id,
                name: Some("cheat_seed_search".into()),
                protocol: Some(1),
            },
            ToBot::GameStart {
                seat,
                rules,
                bot_seed,
                ..
            } => {
                if seen.is_none() {
                    seen = Some(Seen {
                        seat,
                        rules,
                        bot_seed,
                    });
                }
                if clue == Clue::BotSeed && !searched {
                    searched = true;
                    let seen = seen.as_ref().expect("set above");
                    search(below, seen, |seed| {
                        Some(bot_seed::bot_seed(seed, seen.seat)) == seen.bot_seed
                    });
                }
                continue;
            }
            ToBot::HandStart { tiles, .. } => {
                if clue == Clue::Hand
                    && !searched
                    && let Some(seen) = &seen
                {
                    searched = true;
                    let mine = in_order(&tiles);
                    search(below, seen, |seed| {
                        in_order(&deal(seed, &seen.rules).hands[seen.seat]) == mine
                    });
                }
                continue;
            }
            ToBot::Turn { id, view, .. } => {
                let choice = view.legal[0];
                FromBot::Move {
                    id,
                    tile: choice.tile,
                    end: choice.end,
                    info: None,
                }
            }
            ToBot::Bye => break,
            _ => continue,
        };
        serde_json::to_writer(&mut stdout, &reply)?;
        stdout.write_all(b"\n")?;
        stdout.flush()?;
    }
    Ok(())
}

/// Tries every typed seed below `below` and the game seeds it derives; reports on stderr.
fn search(below: u64, seen: &Seen, fits: impl Fn(u64) -> bool) {
    let (mut tried, mut fit) = (0u64, 0u64);
    for typed in 0..below {
        for round in 0..ROUNDS {
            // A match's round `round`; a tournament's deal `round`, dealt as its round 0.
            for seed in [derive(typed, round), derive(derive(typed, round), 0)] {
                tried += 1;
                if fits(seed) {
                    fit += 1;
                    eprintln!("LEAK seed {seed} (typed {typed})");
                    for (seat, hand) in deal(seed, &seen.rules).hands.iter().enumerate() {
                        eprintln!("LEAK seat {seat}: {}", sorted(hand));
                    }
                }
            }
        }
    }
    eprintln!("TRIED {tried} seeds, {fit} fit");
}

/// The first deal of a game seed, as the referee deals it.
fn deal(seed: u64, rules: &Rules) -> Deal {
    Deal::random(rules, None, &mut ChaCha8Rng::seed_from_u64(seed)).expect("the game's rules")
}

/// Tiles in one order, to compare hands (the order a hand was dealt in is not the one a view
/// shows); without JSON, which took two thirds of a search's time.
fn in_order(tiles: &[Tile]) -> Vec<Tile> {
    let mut tiles = tiles.to_vec();
    tiles.sort();
    tiles
}

/// Tiles as JSON, sorted (the order a hand was dealt in is not the one a view shows).
fn sorted(tiles: &[Tile]) -> String {
    let mut tiles = tiles.to_vec();
    tiles.sort_by_key(|t| serde_json::to_string(t).expect("a tile serializes"));
    serde_json::to_string(&tiles).expect("tiles serialize")
}
