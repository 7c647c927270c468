//! Engine speed against the cost of talking to a bot.
//!
//! `cargo bench --bench engine` (a plain `main`, no harness) measures, in one run of about 10 s:
//! 1. the rules engine alone: random legal games played in-process for about 2 s per
//!    configuration, giving moves per second, nanoseconds per move and games per second;
//! 2. a pipe round trip between two processes (a ~400-byte line out, a 40-byte line back), the
//!    way the referee talks to a bot: once as the scheduler places the processes, once with both
//!    pinned to CPU 0 (a copy of this binary re-run under `taskset -c 0`);
//! 3. the ratio of the two: the engine should cost well under 1/100 of a round trip.
//!
//! Run it as `taskset -c 0 cargo bench --bench engine` to pin everything, the engine included,
//! to one CPU. Results are described in `docs/benchmarks.md`.
//!
//! Without the `--bench` argument that `cargo bench` passes (e.g. under `cargo test --benches`),
//! or with `--smoke`, it does a smoke run of well under a second whose figures mean nothing.

use std::hint::black_box;
use std::io;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use allfives_engine::deal::below;
use allfives_engine::{Game, Move, Rules, SpinnerRule, Status};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Argument that turns this binary into the echo bot at the other end of the pipe.
const ECHO_CHILD: &str = "--echo-child";
/// Argument that makes this binary measure the round trip only and print it as one line.
const PIPE_ONLY: &str = "--pipe-only";

/// The argument `cargo bench` passes; without it (`cargo test --benches`) the run is a short smoke test.
const BENCH: &str = "--bench";
/// Argument that makes a run (and the pinned copy it starts) a short smoke test.
const SMOKE: &str = "--smoke";

/// How long to measure.
#[derive(Clone, Copy)]
struct Plan {
    /// Time spent playing games for each engine configuration.
    engine_budget: Duration,
    /// Untimed play before each configuration's timing.
    engine_warm_up: Duration,
    /// Untimed round trips before the timed ones.
    pipe_warm_up: usize,
    /// Timed round trips.
    pipe_rounds: usize,
    smoke: bool,
}

impl Plan {
    const FULL: Plan = Plan {
        engine_budget: Duration::from_secs(2),
        engine_warm_up: Duration::from_millis(200),
        pipe_warm_up: 2_000,
        pipe_rounds: 20_000,
        smoke: false,
    };
    const SMOKE: Plan = Plan {
        engine_budget: Duration::from_millis(50),
        engine_warm_up: Duration::from_millis(5),
        pipe_warm_up: 20,
        pipe_rounds: 200,
        smoke: true,
    };

    fn from_args(args: &[String]) -> Plan {
        let bench = args.iter().any(|a| a == BENCH);
        let smoke = args.iter().any(|a| a == SMOKE);
        if bench && !smoke {
            Plan::FULL
        } else {
            Plan::SMOKE
        }
    }
}
/// The bot's answer: 39 bytes and a newline.
const ANSWER: &[u8; 40] = b"{\"id\":123456,\"tile\":[6,4],\"end\":\"left\"}\n";
/// The request's length, newline included.
const REQUEST_LEN: usize = 400;

#[path = "common/pipe.rs"]
#[allow(
    dead_code,
    reason = "the referee floor (Floor, referee_floor) is the referee bench's alone"
)]
mod pipe;

use pipe::RoundTrip;

fn main() {
    // The echo child must not do anything else: check for it first.
    if std::env::args().nth(1).as_deref() == Some(ECHO_CHILD) {
        if let Err(e) = pipe::echo(ANSWER) {
            eprintln!("echo child: {e}");
            std::process::exit(1);
        }
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let plan = Plan::from_args(&args);
    if args.iter().any(|a| a == PIPE_ONLY) {
        match pipe_round_trip(plan) {
            Ok(rt) => println!("{}", to_line(&rt)),
            Err(e) => {
                eprintln!("pipe round trip: {e}");
                std::process::exit(1);
            }
        }
        return;
    }

    let started = Instant::now();
    let cpus = pipe::cpus_allowed();
    println!("allfives engine bench");
    if plan.smoke {
        println!("  SMOKE RUN (no --bench argument): figures are not meaningful; use cargo bench");
    }
    println!(
        "  CPUs online: {}; this process may run on CPUs {} ({})",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpus,
        pinned_word(&cpus)
    );
    println!();

    let engine = engine_section(plan);
    let pipes = pipe_section(plan, &cpus);
    ratio_section(&engine, &pipes);
    println!();
    println!("total bench time: {:.1} s", started.elapsed().as_secs_f64());
}

// ---------------------------------------------------------------------------------------------
// The engine.

/// The figures of one engine configuration.
struct EngineRun {
    name: &'static str,
    moves: u64,
    games: u64,
    hands: u64,
    elapsed: Duration,
}

impl EngineRun {
    fn ns_per_move(&self) -> f64 {
        self.elapsed.as_nanos() as f64 / self.moves.max(1) as f64
    }
    fn moves_per_sec(&self) -> f64 {
        self.moves as f64 / self.elapsed.as_secs_f64()
    }
    fn games_per_sec(&self) -> f64 {
        self.games as f64 / self.elapsed.as_secs_f64()
    }
}

fn engine_section(plan: Plan) -> Vec<EngineRun> {
    let mut three_all = Rules::new(3);
    three_all.spinner = SpinnerRule::All;
    let configs: [(&'static str, Rules); 3] = [
        ("2 players, default rules", Rules::new(2)),
        ("4 players, partnerships", Rules::new(4)),
        ("3 players, spinner=all", three_all),
    ];
    println!(
        "Engine: random legal games in-process, {:?} per configuration (seeded ChaCha8)",
        plan.engine_budget
    );
    println!(
        "  {:<26} {:>12} {:>9} {:>10} {:>9} {:>11} {:>11}",
        "configuration", "moves/s", "ns/move", "games/s", "games", "moves/game", "hands/game"
    );
    let mut runs = Vec::new();
    for (i, (name, rules)) in configs.into_iter().enumerate() {
        let seed = 1000 + i as u64;
        play_for(name, rules, seed, plan.engine_warm_up);
        let run = play_for(name, rules, seed + 100, plan.engine_budget);
        println!(
            "  {:<26} {:>12} {:>9.1} {:>10} {:>9} {:>11.1} {:>11.2}",
            run.name,
            thousands(run.moves_per_sec()),
            run.ns_per_move(),
            thousands(run.games_per_sec()),
            run.games,
            run.moves as f64 / run.games.max(1) as f64,
            run.hands as f64 / run.games.max(1) as f64,
        );
        runs.push(run);
    }
    println!(
        "  (a move = one call to Game::play, with its legal_moves, the random choice and the \
         forced draws/passes after it;\n   deals and game set-up are included in the time)"
    );
    println!();
    runs
}

/// Plays whole random games with `rules` until `budget` has passed (checked between games).
fn play_for(name: &'static str, rules: Rules, seed: u64, budget: Duration) -> EngineRun {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut buf: Vec<Move> = Vec::with_capacity(64);
    let (mut moves, mut games, mut hands) = (0u64, 0u64, 0u64);
    let start = Instant::now();
    loop {
        let mut game = Game::new(black_box(rules)).expect("the bench's rules are valid");
        loop {
            match game.status() {
                Status::ToPlay { seat } => {
                    game.legal_moves(&mut buf);
                    assert!(!buf.is_empty(), "a seat to play has a legal move");
                    let choice = buf[below(&mut rng, buf.len() as u32) as usize];
                    let points = game.play(seat, choice).expect("a legal move is accepted");
                    black_box(points);
                    moves += 1;
                }
                Status::Dealing { .. } => game.deal(&mut rng).expect("a deal between hands"),
                Status::Over(result) => {
                    black_box(result);
                    break;
                }
            }
        }
        hands += u64::from(game.hand_number());
        games += 1;
        black_box(&game);
        if start.elapsed() >= budget {
            break;
        }
    }
    EngineRun {
        name,
        moves,
        games,
        hands,
        elapsed: start.elapsed(),
    }
}

// ---------------------------------------------------------------------------------------------
// The pipe.

/// One measurement as a line, for the pinned copy of this bench to hand its result back.
fn to_line(rt: &RoundTrip) -> String {
    format!(
        "roundtrip {} {} {} {} {} {} {} {}",
        rt.mean_ns,
        rt.median_ns,
        rt.p99_ns,
        rt.min_ns,
        rt.parent_cpu_ns,
        rt.child_cpu_ns,
        rt.parent_cpus,
        rt.child_cpus
    )
}

fn from_line(line: &str) -> Option<RoundTrip> {
    let mut words = line.split_whitespace();
    if words.next()? != "roundtrip" {
        return None;
    }
    let mut num = || words.next()?.parse::<f64>().ok();
    let (mean_ns, median_ns, p99_ns, min_ns) = (num()?, num()?, num()?, num()?);
    let (parent_cpu_ns, child_cpu_ns) = (num()?, num()?);
    Some(RoundTrip {
        mean_ns,
        median_ns,
        p99_ns,
        min_ns,
        parent_cpu_ns,
        child_cpu_ns,
        parent_cpus: words.next()?.to_string(),
        child_cpus: words.next()?.to_string(),
    })
}

/// The two measurements: as the process was started, and pinned to CPU 0.
struct Pipes {
    free: Option<RoundTrip>,
    pinned: Option<RoundTrip>,
}

fn pipe_section(plan: Plan, cpus: &str) -> Pipes {
    println!(
        "Pipe round trip: {REQUEST_LEN}-byte line to a child process, {}-byte line back; \
         {} warm-up, {} timed",
        ANSWER.len(),
        plan.pipe_warm_up,
        plan.pipe_rounds
    );
    println!(
        "  {:<34} {:>10} {:>10} {:>10} {:>10}   CPUs parent / child",
        "placement", "mean us", "median us", "p99 us", "min us"
    );
    let free = match pipe_round_trip(plan) {
        Ok(rt) => Some(rt),
        Err(e) => {
            println!("  as started: failed: {e}");
            None
        }
    };
    let label = if is_pinned(cpus) {
        "as started (already pinned)"
    } else {
        "as started (unpinned)"
    };
    if let Some(rt) = &free {
        print_round_trip(label, rt);
    }
    let pinned = match pinned_round_trip(plan) {
        Ok(rt) => {
            print_round_trip("both pinned: taskset -c 0", &rt);
            Some(rt)
        }
        Err(e) => {
            println!("  both pinned: taskset -c 0          failed: {e}");
            None
        }
    };
    println!(
        "  (the pinned figure comes from a copy of this bench re-run as `taskset -c 0 <bench> \
         {PIPE_ONLY}`;\n   its echo child inherits the affinity)"
    );
    println!();
    Pipes { free, pinned }
}

fn print_round_trip(label: &str, rt: &RoundTrip) {
    println!("  {label:<34} {}", rt.cells());
}

/// Re-runs this binary under `taskset -c 0` to measure with both processes on CPU 0.
fn pinned_round_trip(plan: Plan) -> io::Result<RoundTrip> {
    let exe = std::env::current_exe()?;
    let output = Command::new("taskset")
        .arg("-c")
        .arg("0")
        .arg(&exe)
        .arg(PIPE_ONLY)
        .arg(if plan.smoke { SMOKE } else { BENCH })
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines().find_map(from_line).ok_or_else(|| {
        io::Error::other(format!("no result from the pinned run ({})", output.status))
    })
}

/// Times `plan.pipe_rounds` round trips to the echo child after `plan.pipe_warm_up` untimed ones.
fn pipe_round_trip(plan: Plan) -> io::Result<RoundTrip> {
    pipe::round_trip(
        &[ECHO_CHILD],
        &request_line(),
        ANSWER.len(),
        plan.pipe_warm_up,
        plan.pipe_rounds,
    )
}

/// A request shaped like the referee's: a JSON object of exactly `REQUEST_LEN` bytes, newline included.
fn request_line() -> Vec<u8> {
    let mut text = String::from(
        "{\"type\":\"turn\",\"id\":123456,\"seat\":1,\"hand\":[[0,1],[2,5],[3,3],[4,6],[1,6]],\
         \"layout\":[{\"tile\":[4,6],\"end\":null},{\"tile\":[4,4],\"end\":\"left\"}],\
         \"ends\":[{\"end\":\"left\",\"number\":4,\"counts\":8},{\"end\":\"right\",\"number\":6,\"counts\":6}],\
         \"sum\":14,\"hand_sizes\":[4,5],\"boneyard\":14,\"scores\":[25,40],\
         \"legal\":[{\"tile\":[4,6],\"end\":\"left\"},{\"tile\":[1,6],\"end\":\"right\"}],\
         \"time_left_ms\":",
    );
    while text.len() < REQUEST_LEN - 2 {
        text.push('9');
    }
    text.push('}');
    text.push('\n');
    assert_eq!(text.len(), REQUEST_LEN);
    text.into_bytes()
}

// ---------------------------------------------------------------------------------------------
// The ratio.

fn ratio_section(engine: &[EngineRun], pipes: &Pipes) {
    println!("Ratio: engine ns per move / mean round-trip ns (goal: under 1/100 = 0.0100)");
    println!(
        "  {:<26} {:>24} {:>24}",
        "configuration", "vs as-started round trip", "vs pinned round trip"
    );
    let cell = |run: &EngineRun, rt: &Option<RoundTrip>| match rt {
        Some(rt) => {
            let ratio = run.ns_per_move() / rt.mean_ns;
            format!(
                "{:.4} = 1/{:<5.0} {}",
                ratio,
                1.0 / ratio,
                if ratio < 0.01 { "yes" } else { "NO " }
            )
        }
        None => "n/a".to_string(),
    };
    for run in engine {
        println!(
            "  {:<26} {:>24} {:>24}",
            run.name,
            cell(run, &pipes.free),
            cell(run, &pipes.pinned)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers.

fn cpu_count(list: &str) -> usize {
    list.split(',')
        .filter_map(|part| match part.split_once('-') {
            Some((a, b)) => {
                Some(b.trim().parse::<usize>().ok()? + 1 - a.trim().parse::<usize>().ok()?)
            }
            None => part.trim().parse::<usize>().ok().map(|_| 1),
        })
        .sum()
}

fn is_pinned(list: &str) -> bool {
    cpu_count(list) == 1
}

fn pinned_word(list: &str) -> &'static str {
    match cpu_count(list) {
        0 => "affinity unknown",
        1 => "pinned to one CPU",
        _ => "not pinned",
    }
}

/// 1234567.8 as "1,234,568".
fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
