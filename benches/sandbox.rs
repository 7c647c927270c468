//! What containing a bot costs at its start: spawn and handshake, contained and not, for a
//! compiled bot (the strong sample bot) and a Python bot (through whatever `python3` is on
//! PATH); `--bot-network` shows what the network namespace costs. Nothing is measured per
//! move: the sandbox adds nothing there.
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
            let mean = runtime.block_on(mean_start(&command, contained, network));
            println!(
                "  {name:<9} {how:<14} {:>7.2} ms",
                mean.as_secs_f64() * 1000.0
            );
        }
    }
}

async fn mean_start(command: &str, contained: bool, network: bool) -> Duration {
    let spec = BotSpec::parse(command).expect("the bot exists (build the strong bot in release)");
    let mut policy = Policy::contained(vec![std::env::temp_dir().join("allfives-bench-none")]);
    policy.enabled = contained;
    policy.network = network;
    // The init execs the referee's program afresh, as `allfives match` does (build it first).
    let referee = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/allfives");
    policy.init_program = referee.exists().then_some(referee);
    let sink = StderrSink {
        file: None,
        cap: 0,
        echo_prefix: None,
        lines: None,
    };
    let mut player = Player::new(spec, 1, sink, MAX_BOT_LINE, Arc::new(policy));
    let clocks = Clocks {
        startup: Duration::from_secs(10),
        per_move: Duration::from_secs(1),
        bank: Duration::ZERO,
        kind: ClockKind::Wall,
    };
    let mut total = Duration::ZERO;
    for _ in 0..STARTS {
        let start = Instant::now();
        player.start(&clocks).await.expect("the bot starts");
        total += start.elapsed();
        player.stop(Stop::Kill).await;
    }
    total / STARTS
}
