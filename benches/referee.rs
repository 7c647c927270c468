//! The referee's own cost per move, against the floor every bot move pays: a pipe round trip.
//!
//! `cargo bench --bench referee` runs everything: the figures per move (placed as
//! `allfives match` places a match by default: the referee, its bots and the raw round trip's
//! two processes on one CPU the referee holds), then games per second pinned, unpinned and with
//! the referee's own placement (meaningful only when the bench is started unpinned).
//! `-- --logs DIR` writes the logs under DIR instead of the temporary directory; `--per-move`
//! measures the figures per move only. Without
//! `--bench` (as under `cargo test --benches`) it is a smoke run whose figures mean nothing.
//!
//! The binary doubles as the two helper processes it needs: `--instant-bot` (a compiled bot
//! that answers at once) and `--echo` (the raw round trip's peer).
//!
//! Every match writes its logs to a directory of its own, created just before it; nothing is
//! deleted until the end, so that no timed part pays for the file system's clean-up.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use allfives::bot::clock::{ClockKind, Clocks};
use allfives::bot::lifetime::Processes;
use allfives::bot::player::BotSpec;
use allfives::engine::protocol::{FromBot, ToBot};
use allfives::engine::rules::Rules;
use allfives::placement::hold_core;
use allfives::referee::game::FaultPolicy;
use allfives::referee::matchplay::{
    GameSettings, LogTarget, MatchConfig, Plan, PlannedGame, run_match,
};
use allfives::sandbox::Policy;
use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::sys::resource::{UsageWho, getrusage};
use nix::unistd::Pid;
use serde::Deserialize;

/// The answer a bot writes: the same size in the raw round trip as in the match.
const ANSWER: &str = r#"{"type":"move","id":123456,"tile":[4,5],"end":"right"}"#;

#[path = "common/pipe.rs"]
mod pipe;

/// How much to run: the real thing, or a smoke run.
struct Sizes {
    instant_games: u32,
    builtin_games: u32,
    placement_games: u32,
    python_games: u32,
    share_games: u32,
    rounds: usize,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--instant-bot") {
        return instant_bot();
    }
    if args.iter().any(|a| a == "--echo") {
        let answer = format!("{ANSWER}\n");
        return pipe::echo(answer.as_bytes()).expect("the echo process writes its answers");
    }
    let sizes = match args.iter().any(|a| a == "--bench") {
        true => Sizes {
            instant_games: 1000,
            builtin_games: 5000,
            placement_games: 1000,
            python_games: 30,
            share_games: 100,
            rounds: 20_000,
        },
        false => Sizes {
            instant_games: 2,
            builtin_games: 10,
            placement_games: 1,
            python_games: 0,
            share_games: 2,
            rounds: 100,
        },
    };
    let parent = args
        .iter()
        .position(|a| a == "--logs")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let logs = tempfile::Builder::new()
        .prefix("allfives-bench-")
        .tempdir_in(&parent)
        .expect("a directory for the logs");
    let dirs = Dirs::new(logs.path());
    println!(
        "allfives referee benchmark; CPUs allowed: {}; logs under {}",
        pipe::cpus_allowed(),
        logs.path().display()
    );
    let exe = std::env::current_exe().expect("the bench knows its own path");
    let instant = format!("{} --instant-bot", exe.display());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime starts");

    per_move(&runtime, &instant, &dirs, &sizes);
    python_share(&runtime, &dirs, &sizes);
    if !args.iter().any(|a| a == "--per-move") {
        builtin(&runtime, &dirs, &sizes);
        placement(&runtime, &instant, &dirs, &sizes);
    }
    // The logs go only now, outside every timed part.
    drop(logs);
}

/// Fresh, numbered log directories under one parent.
struct Dirs {
    parent: PathBuf,
    next: std::cell::Cell<u32>,
}

impl Dirs {
    fn new(parent: &Path) -> Dirs {
        Dirs {
            parent: parent.to_path_buf(),
            next: std::cell::Cell::new(0),
        }
    }

    fn fresh(&self) -> PathBuf {
        self.next.set(self.next.get() + 1);
        let dir = self.parent.join(format!("run-{}", self.next.get()));
        std::fs::create_dir(&dir).expect("a fresh log directory");
        dir
    }
}

/// The referee's cost per asked move with two instant bots, against the raw round trip, both
/// placed as `allfives match` places a match by default (`--placement same-core`).
fn per_move(runtime: &tokio::runtime::Runtime, bot: &str, dirs: &Dirs, sizes: &Sizes) {
    // As `allfives match` places a match by default; the raw round trip's processes too.
    let _placed = Place::Held.apply();
    // Warm up: start-up and first games are not what a long match pays per move.
    runtime.block_on(timed([bot, bot], 4, &dirs.fresh()));
    let dir = dirs.fresh();
    let measured = runtime.block_on(timed([bot, bot], sizes.instant_games, &dir));
    let turn_bytes = mean_turn_bytes(&dir);
    let mut request = "x".repeat(turn_bytes - 1);
    request.push('\n');
    let round_trip = pipe::round_trip(
        &["--echo"],
        request.as_bytes(),
        ANSWER.len() + 1,
        sizes.rounds / 4,
        sizes.rounds,
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
    println!(
        "  CPU per round trip: {:.2} us the measuring parent, {:.2} us the echo child",
        round_trip.parent_cpu_ns / 1e3,
        round_trip.child_cpu_ns / 1e3
    );
    let floor = pipe::referee_floor(
        &["--echo"],
        request.as_bytes(),
        ANSWER.len() + 1,
        &dirs.fresh(),
        sizes.rounds / 4,
        sizes.rounds,
    )
    .expect("the floor runs");
    println!(
        "  the floor of a referee (a log line, then the same round trip to 2 echo children in turn, waiting with poll): {:.2} us wall, {:.2} us CPU",
        floor.wall_ns / 1e3,
        floor.cpu_ns / 1e3
    );
    let raw_us = round_trip.median_ns / 1e3;
    let asked = measured.asked as f64;
    println!(
        "referee match, 2 instant bots: {} games, {} plays, {} asked; {:.0} asked moves/s",
        measured.games,
        count_plays(&dir, measured.games),
        measured.asked,
        asked / measured.wall
    );
    let per_move = measured.wall / asked * 1e6;
    println!(
        "  wall per asked move: {per_move:.2} us = {:.2} x the raw round trip's median, {:.2} x its mean (goal <= 2)",
        per_move / raw_us,
        per_move / (round_trip.mean_ns / 1e3)
    );
    println!(
        "  the two bots' CPU per asked move: {:.2} us ({:.2} user + {:.2} system)",
        (measured.bots_cpu.user + measured.bots_cpu.system) / asked * 1e6,
        measured.bots_cpu.user / asked * 1e6,
        measured.bots_cpu.system / asked * 1e6,
    );
    let referee_cpu = (measured.cpu.user + measured.cpu.system) / asked;
    println!(
        "  referee CPU per asked move: {:.2} us ({:.2} user + {:.2} system; goal <= 3; logs included) = {:.2} x the floor's",
        referee_cpu * 1e6,
        measured.cpu.user / asked * 1e6,
        measured.cpu.system / asked * 1e6,
        referee_cpu * 1e9 / floor.cpu_ns,
    );
}

/// The referee's share of all the CPU a match of two Python sample bots takes, their processes
/// started as `allfives match` starts them (a fresh pair before a deal either has seen).
fn python_share(runtime: &tokio::runtime::Runtime, dirs: &Dirs, sizes: &Sizes) {
    let _placed = Place::Held.apply();
    let python = python_greedy();
    let mut config = config([&python, &python], sizes.share_games, &dirs.fresh());
    config.settings.processes = Processes::UnseenDeals;
    let measured = runtime.block_on(timed_config(config));
    let referee = measured.cpu.user + measured.cpu.system;
    let bots = measured.bots_cpu.user + measured.bots_cpu.system;
    let asked = measured.asked as f64;
    println!(
        "2 Python greedy sample bots, {} games, {} asked: referee CPU {:.3} s ({:.1} us an asked move), the bots' {:.3} s ({:.1} us); the referee's share {:.1}% (aim <= 15%)",
        measured.games,
        measured.asked,
        referee,
        referee / asked * 1e6,
        bots,
        bots / asked * 1e6,
        referee / (referee + bots) * 100.0
    );
}

/// The Python greedy sample bot's command, under `$PYTHON`, else Debian's `/usr/bin/python3`
/// where there is one: a version manager's shim (what `python3` may find first) costs a start
/// far more than the interpreter, which inflated the bots' side of the share.
fn python_greedy() -> String {
    let python =
        std::env::var("PYTHON").unwrap_or_else(|_| match Path::new("/usr/bin/python3").exists() {
            true => "/usr/bin/python3".into(),
            false => "python3".into(),
        });
    format!(
        "{python} {}/sample_bots/python/greedy_bot.py",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Games between builtins, logs written.
fn builtin(runtime: &tokio::runtime::Runtime, dirs: &Dirs, sizes: &Sizes) {
    let bots = ["builtin:greedy", "builtin:random"];
    let measured = runtime.block_on(timed(bots, sizes.builtin_games, &dirs.fresh()));
    let games = f64::from(measured.games);
    println!(
        "builtin:greedy vs builtin:random, logs written: {} games in {:.2} s = {:.0} games/s; CPU per game {:.1} us ({:.1} user + {:.1} system)",
        measured.games,
        measured.wall,
        games / measured.wall,
        (measured.cpu.user + measured.cpu.system) / games * 1e6,
        measured.cpu.user / games * 1e6,
        measured.cpu.system / games * 1e6,
    );
}

/// Games per second pinned to one CPU, unpinned, and with the referee holding a CPU itself.
fn placement(runtime: &tokio::runtime::Runtime, instant: &str, dirs: &Dirs, sizes: &Sizes) {
    let python = python_greedy();
    println!(
        "games per second by placement (CPUs allowed: {}):",
        pipe::cpus_allowed()
    );
    println!(
        "  {:<28} {:>12} {:>12} {:>12}",
        "bots", "pinned", "unpinned", "placement"
    );
    let configs = [
        ("2 instant compiled bots", instant, sizes.placement_games),
        ("2 Python greedy bots", python.as_str(), sizes.python_games),
    ];
    for (name, bot, games) in configs {
        if games == 0 {
            continue;
        }
        let mut cells = Vec::new();
        for place in [Place::Pinned, Place::Unpinned, Place::Held] {
            let dir = dirs.fresh();
            let guard = place.apply();
            let measured = runtime.block_on(timed([bot, bot], games, &dir));
            drop(guard);
            cells.push(format!("{:.1}", f64::from(measured.games) / measured.wall));
        }
        println!(
            "  {name:<28} {:>12} {:>12} {:>12}",
            cells[0], cells[1], cells[2]
        );
    }
}

/// Where the next match runs.
#[derive(Clone, Copy)]
enum Place {
    /// On the CPU the bench runs on now, as `taskset -c N` would put it.
    Pinned,
    /// Wherever the scheduler likes.
    Unpinned,
    /// On a CPU the referee holds (`--placement same-core`).
    Held,
}

/// Undoes a placement when dropped.
struct Placed {
    /// The CPUs to restore.
    before: Option<CpuSet>,
    /// A CPU the referee holds, given back when dropped.
    _held: Option<allfives::placement::HeldCore>,
}

impl Drop for Placed {
    fn drop(&mut self) {
        if let Some(before) = &self.before {
            let _ = sched_setaffinity(Pid::from_raw(0), before);
        }
    }
}

impl Place {
    fn apply(self) -> Placed {
        let me = Pid::from_raw(0);
        let mut placed = Placed {
            before: None,
            _held: None,
        };
        match self {
            Place::Pinned => {
                placed.before = Some(sched_getaffinity(me).expect("the bench reads its CPUs"));
                let mut one = CpuSet::new();
                let here = nix::sched::sched_getcpu().expect("the bench knows its CPU");
                one.set(here).expect("a valid CPU");
                sched_setaffinity(me, &one).expect("the bench pins itself");
            }
            Place::Unpinned => {}
            Place::Held => placed._held = hold_core().expect("placement works"),
        }
        placed
    }
}

struct Cpu {
    user: f64,
    system: f64,
}

/// The CPU time so far of this process, or of its children that have been reaped.
fn cpu_seconds(who: UsageWho) -> Cpu {
    let usage = getrusage(who).expect("getrusage works");
    let t = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 / 1e6;
    Cpu {
        user: t(usage.user_time()),
        system: t(usage.system_time()),
    }
}

struct Measured {
    games: u32,
    asked: u64,
    wall: f64,
    cpu: Cpu,
    /// The bots' CPU time (they are reaped when the match ends).
    bots_cpu: Cpu,
}

fn config(bots: [&str; 2], games: u32, dir: &Path) -> MatchConfig {
    MatchConfig {
        // Two copies of a bot need two names, as `allfives match` gives them (their stderr
        // files are never overwritten).
        bots: bots
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let spec = BotSpec::parse(b).expect("a valid bot");
                let name = format!("{}#{}", spec.name, i + 1);
                spec.renamed(name)
            })
            .collect(),
        settings: GameSettings {
            rules: Rules::new(2),
            clocks: Clocks {
                startup: Duration::from_secs(10),
                per_move: Duration::from_secs(1),
                bank: Duration::ZERO,
                kind: ClockKind::Wall,
            },
            on_fault: FaultPolicy::Forfeit,
            deals: Arc::from([]),
            max_line: allfives::engine::protocol::MAX_BOT_LINE,
            stderr_cap: 1 << 20,
            sandbox: Policy::contained(vec![dir.to_path_buf()]),
            protections: None,
            // One process a bot for the whole match: this bench times the referee's share of a
            // move, not restarts (docs/benchmarks.md has those).
            processes: Processes::Reused,
            public_seed: true,
        },
        seed: 1,
        // Each deal from both seats, as `allfives match` plays them.
        plan: Plan::new(1..=games, 2, |g| PlannedGame {
            number: g,
            seed: u64::from((g - 1) / 2),
            deal: u64::from((g - 1) / 2),
            arrangement: (g as usize - 1) % 2,
            seating: if g % 2 == 1 { vec![0, 1] } else { vec![1, 0] },
        }),
        logs: LogTarget::Dir(dir.to_path_buf()),
        echo_stderr: false,
    }
}

/// Plays a match with its logs in `dir`; the referee's wall and CPU time (this process only).
async fn timed(bots: [&str; 2], games: u32, dir: &Path) -> Measured {
    timed_config(config(bots, games, dir)).await
}

/// Plays the match `config`; the referee's wall and CPU time (this process only), and its bots'.
async fn timed_config(config: MatchConfig) -> Measured {
    let games = config.plan.len() as u32;
    let children = cpu_seconds(UsageWho::RUSAGE_CHILDREN);
    let before = cpu_seconds(UsageWho::RUSAGE_SELF);
    let start = Instant::now();
    let stats = run_match(&config).await.expect("the match runs");
    let wall = start.elapsed().as_secs_f64();
    let after = cpu_seconds(UsageWho::RUSAGE_SELF);
    let children_after = cpu_seconds(UsageWho::RUSAGE_CHILDREN);
    Measured {
        games,
        asked: stats.iter().map(|s| s.answers).sum(),
        wall,
        cpu: Cpu {
            user: after.user - before.user,
            system: after.system - before.system,
        },
        bots_cpu: Cpu {
            user: children_after.user - children.user,
            system: children_after.system - children.system,
        },
    }
}

fn count_plays(dir: &Path, games: u32) -> u64 {
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
fn mean_turn_bytes(dir: &Path) -> usize {
    let text = std::fs::read_to_string(dir.join("game-1.jsonl")).expect("game 1 was logged");
    let replay = allfives::gamelog::replay(&text).expect("the log replays");
    let mut game = allfives::engine::Game::new(replay.header.rules).expect("valid rules");
    let (mut bytes, mut turns) = (0, 0);
    for event in &replay.events {
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

/// Only what the instant bot reads of a message other than a turn: serde skips the rest.
#[derive(Deserialize)]
struct Incoming {
    #[serde(rename = "type")]
    kind: String,
    id: Option<u64>,
}

/// A bot that answers at once and does as little as the echo process of the raw round trip: it
/// reads each line into one buffer, finds a turn's id and first legal move by looking for them
/// in the line (the referee writes every turn with its fields in one order), skips events, and
/// reads other messages with serde.
fn instant_bot() {
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    let mut line = Vec::with_capacity(4096);
    let mut answer = Vec::with_capacity(128);
    loop {
        line.clear();
        if !matches!(input.read_until(b'\n', &mut line), Ok(n) if n > 0) {
            break;
        }
        // Bytes, not text: the echo validates nothing either.
        if first_legal_move(line.trim_ascii_end(), &mut answer) {
            let _ = out.write_all(&answer);
            let _ = out.flush();
            continue;
        }
        // Events (every move brings one) need no answer: skipped unread, as the echo would.
        if line.starts_with(br#"{"type":"event""#) {
            continue;
        }
        let Ok(msg) = serde_json::from_slice::<Incoming>(&line) else {
            continue;
        };
        let answer = match (msg.kind.as_str(), msg.id) {
            ("hello", Some(id)) => FromBot::Hello {
                id,
                name: Some("instant".into()),
                protocol: Some(1),
            },
            ("bye", _) => break,
            _ => continue,
        };
        let _ = serde_json::to_writer(&mut out, &answer);
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }
}

/// Writes into `answer` the move line answering a turn with its first legal move; false for
/// other messages.
fn first_legal_move(line: &[u8], answer: &mut Vec<u8>) -> bool {
    let Some(rest) = line.strip_prefix(br#"{"type":"turn","id":"#) else {
        return false;
    };
    let Some(id) = rest.iter().position(|&b| b == b',').map(|at| &rest[..at]) else {
        return false;
    };
    const LEGAL: &[u8] = br#""legal":[{"tile":"#;
    let Some(at) = line.windows(LEGAL.len()).rposition(|w| w == LEGAL) else {
        return false;
    };
    let choice = &line[at + LEGAL.len()..];
    let (Some(tile), Some(end)) = (
        choice.get(..5),
        choice.get(5..).and_then(|c| c.strip_prefix(br#","end":"#)),
    ) else {
        return false;
    };
    let Some(end) = end.iter().position(|&b| b == b',').map(|at| &end[..at]) else {
        return false;
    };
    answer.clear();
    answer.extend_from_slice(br#"{"type":"move","id":"#);
    answer.extend_from_slice(id);
    answer.extend_from_slice(br#","tile":"#);
    answer.extend_from_slice(tile);
    answer.extend_from_slice(br#","end":"#);
    answer.extend_from_slice(end);
    answer.extend_from_slice(b"}\n");
    true
}
