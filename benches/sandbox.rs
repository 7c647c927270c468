//! What containing a bot costs at its start: spawn and handshake, contained and not, for a
//! compiled bot (the strong sample bot) and a Python bot (through whatever `python3` is on
//! PATH); `--bot-network` shows what the network namespace costs. Nothing is measured per
//! move: the sandbox adds nothing there.
//!
//! Then the history: the referee's own CPU per contained start of the compiled bot with no
//! earlier run and with 10,000, each in a folder of its own (registered as the referee registers
//! them), outside what the bot sees and then inside its own folder; the first start of each
//! (which works out what the bot may see, and reads the registry) apart from the others.
//!
//! `cargo build --release -p allfives-strong && cargo build --release && cargo bench --bench sandbox`

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use allfives::bot::clock::{ClockKind, Clocks};
use allfives::bot::player::{BotSpec, Player, Stop};
use allfives::bot::process::StderrSink;
use allfives::engine::protocol::MAX_BOT_LINE;
use allfives::sandbox::Policy;

const STARTS: u32 = 30;
/// The earlier runs of the history's second half.
const EARLIER: usize = 10_000;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let strong = root.join("target/release/strong_bot");
    let python = format!(
        "python3 {}",
        root.join("sample_bots/python/greedy_bot.py").display()
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    println!("bot start-up (spawn + handshake), mean of {STARTS}:");
    for (name, command) in [
        ("compiled", strong.display().to_string()),
        ("python3", python),
    ] {
        for (how, contained, network) in [
            ("--no-sandbox", false, false),
            ("contained", true, false),
            ("--bot-network", true, true),
        ] {
            let policy = policy(contained, network, "none");
            let (mean, _) = runtime.block_on(mean_start(&command, policy));
            println!(
                "  {name:<9} {how:<14} {:>7.2} ms",
                mean.as_secs_f64() * 1000.0
            );
        }
    }
    history(&runtime, &strong.display().to_string());
}

/// The referee's CPU per contained start of `command`, with no earlier run and with
/// [`EARLIER`] in folders of their own (not in what the bot sees); then with
/// [`EARLIER`] in the bot's own folder, each beside a file of the user's (so that none is
/// hidden with its neighbours as one folder).
fn history(runtime: &tokio::runtime::Runtime, command: &str) {
    // Under /tmp, outside what the bot sees (its working directory is this repository).
    let place = tempfile::Builder::new()
        .prefix("allfives-bench-history-")
        .tempdir()
        .expect("a folder");
    println!(
        "referee CPU per contained start of the compiled bot (first start; mean of the next {STARTS}):"
    );
    // The compiled bot copied into a folder of its own, where the third case's runs go: not
    // under /tmp, where a bot's folder is bound inside its private /tmp and earlier runs are
    // covered by mounts rather than kept out by Landlock alone.
    let mine = tempfile::Builder::new()
        .prefix("allfives-bench-history-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a folder");
    let own = mine.path().join("bot");
    std::fs::create_dir_all(&own).expect("a folder");
    let copy = own.join("bot");
    std::fs::copy(command, &copy).expect("the bot copied");
    for (runs, inside) in [(0, false), (EARLIER, false), (EARLIER, true)] {
        let (case, command, under) = match inside {
            false => ("elsewhere", command.to_string(), place.path().join("runs")),
            true => (
                "in the bot's folder",
                copy.display().to_string(),
                own.clone(),
            ),
        };
        let state = place.path().join(format!("state-{runs}-{inside}"));
        std::fs::create_dir_all(state.join("allfives")).expect("a folder");
        let mut registry = String::new();
        for n in 0..runs {
            let run = under.join(format!("{n}/logs"));
            std::fs::create_dir_all(&run).expect("a folder");
            std::fs::write(run.join("game-1.jsonl"), "").expect("a log");
            std::fs::write(under.join(format!("{n}/notes.txt")), "").expect("a file");
            registry.push_str(&format!("{}\n", run.display()));
        }
        std::fs::write(state.join("allfives/runs"), registry).expect("the registry");
        // SAFETY: nothing else runs in this process now (the runtime is idle between starts).
        unsafe { std::env::set_var("XDG_STATE_HOME", &state) };
        // A policy of its own (its own log folder): nothing worked out before is reused.
        let policy = policy(true, false, &format!("history-{runs}-{inside}"));
        let (_, cpu) = runtime.block_on(mean_start(&command, policy));
        println!(
            "  {runs:>6} earlier runs {case:<19}: first {:>6.2} ms, then {:>6.3} ms",
            cpu.first.as_secs_f64() * 1000.0,
            cpu.rest.as_secs_f64() * 1000.0
        );
    }
}

fn policy(contained: bool, network: bool, logs: &str) -> Policy {
    let mut policy = Policy::contained(vec![
        std::env::temp_dir().join(format!("allfives-bench-{logs}")),
    ]);
    policy.enabled = contained;
    policy.network = network;
    // The init execs the referee's program afresh, as `allfives match` does (build it first).
    let referee = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/allfives");
    policy.init_program = referee.exists().then_some(referee);
    policy
}

/// The referee's own CPU (user and system, every thread) for a start and its stop: the first,
/// and the mean of the others.
struct Cpu {
    first: Duration,
    rest: Duration,
}

fn cpu_now() -> Duration {
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The mean wall time of a start (spawn and handshake), and the referee's CPU for the starts.
async fn mean_start(command: &str, policy: Policy) -> (Duration, Cpu) {
    let spec = BotSpec::parse(command).expect("the bot exists (build the strong bot in release)");
    let mut player = Player::new(spec, 1, sink(), MAX_BOT_LINE, Arc::new(policy));
    let clocks = Clocks {
        startup: Duration::from_secs(10),
        per_move: Duration::from_secs(1),
        bank: Duration::ZERO,
        kind: ClockKind::Wall,
    };
    let mut total = Duration::ZERO;
    let mut cpu = Cpu {
        first: Duration::ZERO,
        rest: Duration::ZERO,
    };
    for n in 0..=STARTS {
        let (start, used) = (Instant::now(), cpu_now());
        player.start(&clocks).await.expect("the bot starts");
        let took = start.elapsed();
        player.stop(Stop::Kill).await;
        let used = cpu_now() - used;
        match n {
            0 => cpu.first = used,
            _ => {
                total += took;
                cpu.rest += used / STARTS;
            }
        }
    }
    (total / STARTS, cpu)
}

fn sink() -> StderrSink {
    StderrSink {
        file: None,
        cap: 0,
        echo_prefix: None,
        lines: None,
    }
}
