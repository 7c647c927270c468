//! The referee's own cost per move, against the floor every bot move pays: a pipe round trip.
//!
//! `cargo bench --bench referee` (unpinned) and `taskset -c 0 cargo bench --bench referee`
//! (referee and bots sharing one CPU). The binary doubles as the two helper processes it needs:
//! `--instant-bot` (a compiled bot that answers at once) and `--echo` (the raw round trip's peer).

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use allfives::bot::clock::{ClockKind, Clocks};
use allfives::bot::player::BotSpec;
use allfives::engine::protocol::{FromBot, ToBot};
use allfives::engine::rules::Rules;
use allfives::referee::game::FaultPolicy;
use allfives::referee::matchplay::{LogTarget, MatchConfig, run_match};
use allfives::sandbox::Policy;
use nix::sys::resource::{UsageWho, getrusage};
use serde::Deserialize;

/// The answer a bot writes: the same size in the raw round trip as in the match.
const ANSWER: &str = r#"{"type":"move","id":123456,"tile":[4,5],"end":"right"}"#;

#[path = "common/pipe.rs"]
mod pipe;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--instant-bot") {
        return instant_bot();
    }
    if args.iter().any(|a| a == "--echo") {
        let answer = format!("{ANSWER}\n");
        return pipe::echo(answer.as_bytes()).expect("the echo process writes its answers");
    }
    println!(
        "allfives referee benchmark; CPUs allowed: {}",
        pipe::cpus_allowed()
    );
    let exe = std::env::current_exe().expect("the bench knows its own path");
    let bot = format!("{} --instant-bot", exe.display());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime starts");
    let logs = tempfile::tempdir().expect("a temporary directory");

    let (turn_bytes, measured) = runtime.block_on(referee_match(&bot, logs.path()));
    let mut request = "x".repeat(turn_bytes - 1);
    request.push('\n');
    let round_trip = pipe::round_trip(
        &["--echo"],
        request.as_bytes(),
        ANSWER.len() + 1,
        5_000,
        20_000,
    )
    .expect("the raw round trip runs");
    println!(
        "raw pipe round trip ({turn_bytes} bytes out, {} back), us:\n  {:>10} {:>10} {:>10} {:>10}   CPUs parent / child\n  {}",
        ANSWER.len() + 1,
        "mean",
        "median",
        "p99",
        "min",
        round_trip.cells()
    );
    let raw_us = round_trip.median_ns / 1e3;
    println!(
        "referee match, 2 instant bots: {} games, {} plays, {} asked; {:.0} asked moves/s",
        measured.games,
        measured.plays,
        measured.asked,
        measured.asked as f64 / measured.wall
    );
    let per_move = measured.wall / measured.asked as f64 * 1e6;
    let cpu = measured.cpu / measured.asked as f64 * 1e6;
    println!(
        "  wall per asked move: {per_move:.1} us = {:.2} x the raw round trip (goal <= 2)",
        per_move / raw_us
    );
    println!("  referee CPU per asked move: {cpu:.2} us (goal < 5; includes logging every play)");

    let builtin = runtime.block_on(builtin_match(logs.path()));
    println!(
        "builtin:greedy vs builtin:random: {} games in {:.2} s = {:.0} games/s ({:.0} plays/s), logs written",
        builtin.games,
        builtin.wall,
        builtin.games as f64 / builtin.wall,
        builtin.plays as f64 / builtin.wall
    );
}

struct Measured {
    games: u32,
    plays: u64,
    asked: u64,
    wall: f64,
    cpu: f64,
}

fn config(bots: [&str; 2], games: u32, dir: &std::path::Path) -> MatchConfig {
    MatchConfig {
        bots: bots
            .iter()
            .map(|b| BotSpec::parse(b).expect("a valid bot"))
            .collect(),
        rules: Rules::new(2),
        games,
        seed: 1,
        rotate: true,
        clocks: Clocks {
            startup: Duration::from_secs(10),
            per_move: Duration::from_secs(1),
            bank: Duration::ZERO,
            kind: ClockKind::Wall,
        },
        on_fault: FaultPolicy::Forfeit,
        fresh: false,
        deals: Vec::new(),
        logs: LogTarget::Dir(dir.to_path_buf()),
        echo_stderr: false,
        max_line: allfives::engine::protocol::MAX_BOT_LINE,
        stderr_cap: 1 << 20,
        sandbox: Policy::contained(vec![dir.to_path_buf()]),
        protections: None,
    }
}

fn cpu_seconds() -> f64 {
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage works");
    let t = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 / 1e6;
    t(usage.user_time()) + t(usage.system_time())
}

/// Plays instant bots through the referee; returns the mean turn line's size and the figures.
async fn referee_match(bot: &str, dir: &std::path::Path) -> (usize, Measured) {
    // Warm up: start-up and first games are not what a long match pays per move.
    let warm = config([bot, bot], 4, dir);
    run_match(&warm, |_| {}, |_, _| {})
        .await
        .expect("the warm-up match runs");
    let games = 200;
    let config = config([bot, bot], games, dir);
    let cpu = cpu_seconds();
    let start = Instant::now();
    let report = run_match(&config, |_| {}, |_, _| {})
        .await
        .expect("the match runs");
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    let asked: u64 = report.totals.iter().map(|t| t.stats.timing.answers()).sum();
    let plays = count_plays(dir, games);
    (
        mean_turn_bytes(dir),
        Measured {
            games,
            plays,
            asked,
            wall,
            cpu,
        },
    )
}

async fn builtin_match(dir: &std::path::Path) -> Measured {
    let games = 2000;
    let config = config(["builtin:greedy", "builtin:random"], games, dir);
    let start = Instant::now();
    let report = run_match(&config, |_| {}, |_, _| {})
        .await
        .expect("the match runs");
    let wall = start.elapsed().as_secs_f64();
    Measured {
        games,
        plays: count_plays(dir, games),
        asked: report.totals.iter().map(|t| t.stats.timing.answers()).sum(),
        wall,
        cpu: 0.0,
    }
}

fn count_plays(dir: &std::path::Path, games: u32) -> u64 {
    (1..=games)
        .map(|g| {
            let text =
                std::fs::read_to_string(dir.join(format!("game-{g}.jsonl"))).unwrap_or_default();
            text.lines()
                .filter(|l| l.starts_with(r#"{"type":"play""#))
                .count() as u64
        })
        .sum()
}

/// The mean size of a turn message, rebuilt from a log through the engine.
fn mean_turn_bytes(dir: &std::path::Path) -> usize {
    let text = std::fs::read_to_string(dir.join("game-1.jsonl")).expect("game 1 was logged");
    let replay = allfives::gamelog::replay(&text).expect("the log replays");
    let mut game = allfives::engine::Game::new(replay.header.rules).expect("valid rules");
    let (mut bytes, mut turns) = (0, 0);
    for event in replay.game.events() {
        match event {
            allfives::engine::Event::HandStart { deal, .. } => {
                game.start_hand((**deal).clone()).expect("deal")
            }
            allfives::engine::Event::Play(allfives::engine::Play {
                seat, tile, end, ..
            }) => {
                let view = game.view(*seat);
                if view.legal.len() > 1 {
                    let line = serde_json::to_string(&ToBot::Turn {
                        id: 1,
                        time_left_ms: 1000,
                        view: Box::new(view),
                    })
                    .expect("serializes");
                    bytes += line.len() + 1;
                    turns += 1;
                }
                game.play(
                    *seat,
                    allfives::engine::Move {
                        tile: *tile,
                        end: *end,
                    },
                )
                .expect("logged plays are legal");
            }
            _ => {}
        }
    }
    bytes / turns.max(1)
}

/// Only what the instant bot reads of a message: serde skips the rest.
#[derive(Deserialize)]
struct Incoming {
    #[serde(rename = "type")]
    kind: String,
    id: Option<u64>,
    view: Option<Legal>,
}

#[derive(Deserialize)]
struct Legal {
    legal: Vec<allfives::engine::Choice>,
}

fn instant_bot() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Incoming>(&line) else {
            continue;
        };
        let answer = match (msg.kind.as_str(), msg.id, msg.view) {
            ("hello", Some(id), _) => FromBot::Hello {
                id,
                name: Some("instant".into()),
                protocol: Some(1),
            },
            ("turn", Some(id), Some(view)) => {
                let first = view.legal[0];
                FromBot::Move {
                    id,
                    tile: first.tile,
                    end: first.end,
                }
            }
            ("bye", _, _) => break,
            _ => continue,
        };
        let _ = serde_json::to_writer(&mut out, &answer);
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }
}
