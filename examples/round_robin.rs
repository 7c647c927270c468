//! A small round-robin of the builtin bots, run through the library rather than the command
//! line: a definition built from settings, its folder laid out and opened, the games played
//! with a sink that hears of each, the standings printed.
//!
//! `cargo run --release --example round_robin`

use std::process::ExitCode;
use std::sync::Arc;

use allfives::bot::clock::{ClockKind, Clocks};
use allfives::bot::lifetime::Processes;
use allfives::bot::player::BotSpec;
use allfives::placement::Placement;
use allfives::referee::game::FaultPolicy;
use allfives::referee::matchplay::GameSettings;
use allfives::sandbox::Policy;
use allfives::tournament::definition::Definition;
use allfives::tournament::folder;
use allfives::tournament::run::{self, AnchorAsk, Event, Opened, PlayOptions};
use allfives::tournament::schedule::{Format, Table};
use allfives::tournament::seeds::Master;
use allfives::tournament::start;
use allfives_engine::rules::Rules;

fn main() -> ExitCode {
    match round_robin() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("round_robin: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Four builtins, every pair on 20 deals (both seats each), with a fixed public seed: the same
/// games on every run.
fn round_robin() -> Result<(), String> {
    let bots = [
        "builtin:greedy",
        "builtin:random",
        "builtin:mix:0.5",
        "builtin:mix:0.9",
    ]
    .iter()
    .map(|spec| BotSpec::parse(spec))
    .collect::<Result<Vec<_>, _>>()?;
    let rules = Rules::new(2);
    let settings = GameSettings {
        rules,
        deals: Arc::from([]),
        max_line: 64 * 1024,
        stderr_cap: 1024 * 1024,
        sandbox: Policy::default(),
        protections: None,
        processes: Processes::default(),
        public_seed: true,
        clocks: Clocks::from_ms(1_000, 100, 0, ClockKind::Wall)?,
        on_fault: FaultPolicy::Forfeit,
    };
    let table = Table {
        players: 2,
        teams: false,
        splits: false,
        all_orders: false,
    };
    let master = Master::untyped(2026, true);
    let definition = Definition::new(
        &bots,
        &settings,
        (Format::RoundRobin, table, 20),
        master,
        None,
    );

    // The run keeps its results and logs in a folder: a fresh one, removed at the end.
    let dir = std::env::temp_dir().join(format!("allfives-round-robin-{}", std::process::id()));
    let held = folder::hold(&dir)?;
    let played = play(definition, &held.dir);
    drop(held);
    let removed = std::fs::remove_dir_all(&dir);
    let report = played?;
    removed.map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;

    println!(
        "{:<16} {:>5} {:>5} {:>8}",
        "entrant", "games", "wins", "score %"
    );
    let mut rows = report.standings.entrants.clone();
    rows.sort_by(|a, b| b.score_pct.total_cmp(&a.score_pct));
    for row in rows {
        println!(
            "{:<16} {:>5} {:>5} {:>8.1}",
            row.name, row.games, row.wins, row.score_pct
        );
    }
    Ok(())
}

/// Lays out `dir`, opens it and plays every game, counting them as they are recorded.
fn play(
    definition: Definition,
    dir: &std::path::Path,
) -> Result<allfives::tournament::report_stream::Report, String> {
    start::lay_out(&definition, dir)?;
    let mut recorded = 0;
    let mut sink = |event: Event<'_>| {
        if let Event::Recorded { played, .. } = event {
            recorded = played;
        }
    };
    let anchor = AnchorAsk {
        name: None,
        elo: 0.0,
    };
    let opened = Opened::open(definition, dir.to_path_buf(), &anchor, &mut sink)
        .map_err(|e| e.to_string())?;
    let games = opened.missing;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let options = PlayOptions {
        concurrency: 2,
        placement: Placement::Free,
        policy: Policy::default(),
        processes: Processes::default(),
    };
    // Nothing here asks it to stop: the sender stays alive until the run ends.
    let (_stop, stops) = tokio::sync::mpsc::unbounded_channel();
    let played = run::play(opened, &runtime, options, stops, &mut sink);
    if let Some(e) = played.error {
        return Err(e);
    }
    println!("{recorded} of {games} games played");
    Ok(played.report)
}
