//! strong_bot: a sample All Fives bot in Rust that looks a few turns ahead over sampled deals.
//!
//! Build and run it against the greedy builtin:
//!
//! ```text
//! cargo build --release -p allfives-strong
//! allfives match target/release/strong_bot builtin:greedy --games 100
//! ```
//!
//! It speaks protocol v1 (see `protocol.md`): one JSON object a line on stdin, parsed as
//! [`allfives_engine::protocol::ToBot`]; one answer a line on stdout, an
//! [`allfives_engine::protocol::FromBot`], flushed at once. It answers `hello` and `turn`, ignores
//! the other messages and exits on `bye` or end of input.
//!
//! How it plays (each turn, from the [`View`](allfives_engine::View) alone: it keeps no state between
//! turns, and uses nothing it is not told):
//! 1. [`belief`]: the tiles it cannot see are the set minus its hand and the layout. A player who
//!    drew or passed holds no tile matching the ends of that moment, which narrows their hand.
//! 2. It deals those hidden tiles at random into the other hands (by their known sizes) and the
//!    boneyard, 40 times (seeded from the game number, seat and position: reproducible).
//! 3. [`search`]: on each deal it plays each legal move and looks 5 decisions further (the engine making every forced draw and pass), every seat
//!    playing the best move for its side (partners help each other; alpha-beta with two sides,
//!    max-n with three or four), scoring exactly as the rules do: points on the table, the
//!    end-of-hand penalty or bonus, and a large bonus for reaching the target. Where it stops,
//!    each pip still held costs 0.2 of a point. A move that would visit more than 400,000
//!    positions (about 70 ms) looks less deep, and past a third of the time left for the move
//!    (`time_left_ms`) it stops sampling and decides on the deals done.
//! 4. [`strategy`]: it plays the move with the best mean over the deals.
//!
//! Those settings were tuned in matches against `builtin:greedy` (about 95% of two-player games
//! won) and against other settings; try others with
//! `strong_bot --samples 40 --depth 5 --budget 400000 --pips 0.2 --tiles 0`, and add `--stats`
//! to log each move's depth, positions and time on stderr; `--name NAME` sets the name it gives
//! in `hello`. It takes a few milliseconds a move.

mod belief;
mod search;
mod strategy;

use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use allfives_engine::protocol::{FromBot, Info, PROTOCOL_VERSION, ToBot};
use allfives_engine::view::View;
use serde_json::{Map, Value, json};

use strategy::Params;

/// What the command line asks for.
struct Options {
    /// The search's settings.
    params: Params,
    /// The name to give the referee (`--name`; default `strong_bot`).
    name: String,
    /// Report each move's search on stderr (`--stats`).
    stats: bool,
}

/// Reads the command line over the defaults.
fn parse_args() -> Result<Options, String> {
    fn parse<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, String> {
        let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
        value
            .parse()
            .map_err(|_| format!("bad value for {flag}: {value}"))
    }
    let mut options = Options {
        params: Params::default(),
        name: "strong_bot".to_string(),
        stats: false,
    };
    let params = &mut options.params;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--samples" => params.samples = parse(&flag, args.next())?,
            "--depth" => params.depth = parse(&flag, args.next())?,
            "--budget" => params.budget = parse(&flag, args.next())?,
            "--pips" => params.weights.pips = parse(&flag, args.next())?,
            "--tiles" => params.weights.tiles = parse(&flag, args.next())?,
            "--name" => options.name = parse(&flag, args.next())?,
            "--stats" => options.stats = true,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(options)
}

fn main() -> io::Result<()> {
    let Options {
        params,
        name,
        stats,
    } = match parse_args() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("strong_bot: {e}");
            std::process::exit(2);
        }
    };
    let stdin = io::stdin().lock();
    let mut stdout = io::stdout().lock();
    for line in stdin.lines() {
        let line = line?;
        let message: ToBot = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(e) => {
                // A message this bot does not know: say so on stderr and carry on.
                eprintln!("strong_bot: cannot read a message ({e}): {line}");
                continue;
            }
        };
        let reply = match message {
            ToBot::Hello { id, .. } => FromBot::Hello {
                id,
                name: Some(name.clone()),
                protocol: Some(PROTOCOL_VERSION),
            },
            ToBot::Turn {
                id,
                view,
                time_left_ms,
            } => {
                // Keep two thirds of the time left as a margin (see `strategy::choose`).
                let start = Instant::now();
                let deadline = start + Duration::from_millis(time_left_ms / 3);
                let Some(decision) = strategy::choose(&view, &params, Some(deadline)) else {
                    eprintln!("strong_bot: turn {id} offers no legal move");
                    continue;
                };
                if stats {
                    eprintln!(
                        "strong_bot: game {} hand {} turn {id}: {} moves, depth {}, {} nodes, {:.3} ms",
                        view.game,
                        view.hand_number,
                        view.legal.len(),
                        decision.depth,
                        decision.nodes,
                        start.elapsed().as_secs_f64() * 1000.0
                    );
                }
                FromBot::Move {
                    id,
                    tile: decision.choice.tile,
                    end: decision.choice.end,
                    info: Some(info(&view, &decision)),
                }
            }
            ToBot::Bye => break,
            ToBot::GameStart { .. } | ToBot::HandStart { .. } | ToBot::Event { .. } => continue,
            ToBot::HandEnd { .. } => continue,
            ToBot::GameEnd { .. } => continue,
        };
        serde_json::to_writer(&mut stdout, &reply)?;
        stdout.write_all(b"\n")?;
        stdout.flush()?;
    }
    Ok(())
}

/// The most moves whose estimates go in a move's `info`, best first (the referee caps an info
/// at 1,024 bytes).
const INFO_MOVES: usize = 6;

/// What the bot thought, for the log and the replay: each move's estimate (its mean utility
/// over the sampled deals: points for its side minus the others', as the search counts them),
/// best first, with the depth and the number of deals searched.
fn info(view: &View, decision: &strategy::Decision) -> Info {
    let mut fields = Map::new();
    if decision.estimates.is_empty() {
        fields.insert("note".into(), json!("no search: greedy"));
        return Info::Object(fields);
    }
    let mut ranked: Vec<(String, f32)> = view
        .legal
        .iter()
        .zip(&decision.estimates)
        .map(|(c, &e)| {
            let end = c.end.map_or("lead".to_string(), |e| e.to_string());
            (format!("{} {end}", c.tile), e)
        })
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let round = |x: f32| (f64::from(x) * 10.0).round() / 10.0;
    fields.insert("estimate".into(), json!(round(ranked[0].1)));
    fields.insert("depth".into(), json!(decision.depth));
    fields.insert("samples".into(), json!(decision.samples));
    // Pairs in a list, not an object's fields, so that the order (best first) stays.
    let moves: Vec<Value> = ranked
        .into_iter()
        .take(INFO_MOVES)
        .map(|(name, e)| json!([name, round(e)]))
        .collect();
    fields.insert("moves".into(), Value::Array(moves));
    Info::Object(fields)
}
