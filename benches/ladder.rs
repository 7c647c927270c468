//! How many games a schedule needs until the batch ratings rank entrants of known strength in
//! their true order, and what the ladder's own bookkeeping (drawing tables, folding results,
//! fitting ratings) costs at scale.
//!
//! Entrants are `builtin:mix:P` with P evenly spread, `P = i / (n - 1)` for entrant `i`: entrant
//! 0 is greedy, the last random, and a smaller P is stronger. Games are real games played
//! straight through the engine (`referee::builtin_game`: no process, no log), each table's deal
//! played in every seat arrangement that matters (`tournament::schedule::arrangements`), each
//! complete set folded into `ratings::batch::Sets` (keyed as the standings key it) and fitted
//! with `ratings::batch::fit`, each later fit started from the one before (`fit_from`), as the
//! tournament refits.
//!
//! **Convergence** (the default): for each schedule, games are played and the fit is taken at
//! checkpoints 2% apart (each checkpoint at least 1.02 times the games of the one before, at the
//! end of a set; the first once every entrant could have played a set), and Kendall's tau-b of
//! the fitted Elo against the true order (`ratings::kendall`) is computed there. Reported for
//! 0.9 and 0.95: the games at the first checkpoint where tau reaches it, whether tau stayed at
//! or above it at every later checkpoint, and the games from which it did ("settled": the
//! checkpoint after its last fall below). A run ends once tau has settled at 0.95 and twice the
//! games of that point are played (or at `--max-games`). The schedules:
//! - `uniform`: each table, `k` entrants drawn uniformly at random;
//! - `round-robin` (2 players): `tournament`'s own schedule and order (`Schedule::games`) with
//!   as many deals as `--max-games` needs, read until the budget;
//! - `balanced` and `matchmaking`: the ladder's own queue (`tournament::ladder::queue::Ladder`,
//!   its draw, deals and seats as `tournament --format ladder` hands them out); matchmaking is
//!   given each checkpoint's fit at once, so 2% apart, where the tournament cuts its fits every
//!   half round of tables and then every 10% more sets, each read 32 sets or more later.
//!
//! With both `balanced` and `matchmaking`, a last summary pairs them seed by seed: the ratio of
//! their games until tau first reaches 0.95 (its mean and standard error over the seeds, how
//! many at most 0.70), and each one's CPU a game (games, draws, fits) and to that crossing.
//!
//! **Bookkeeping** (`--rate`): one schedule's draw, the fold of each set and a fit at 100k,
//! 300k and 1M games, in CPU time apart from the games themselves, with the process's peak
//! resident memory (VmHWM) at each.
//!
//! `cargo bench --bench ladder` runs a small convergence case (20 entrants, 2 players, every
//! schedule) in a few seconds. Options (after `--`): `--entrants N`, `--players 2|3|4` (4 is
//! cut-throat), `--schedules uniform,round-robin,balanced,matchmaking`, `--seeds S` (seeds 1 to
//! S, medians reported), `--max-games G`, `--step F` (checkpoints' spacing, default 0.02),
//! `--from G` (the first checkpoint; for 1,000 entrants, whose fits take seconds),
//! `--until-first` (stop each run once tau first reaches 0.95: no "settled" figure), `--rate`
//! (with `--games G`, default 1,000,000, and `--schedule NAME`, default `balanced`). Without `--bench` (as under `cargo test --benches`) it
//! is a smoke run whose figures mean nothing. Figures and commands: docs/benchmarks.md.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use allfives::bot::builtin::Builtin;
use allfives::engine::protocol::ClockInfo;
use allfives::engine::rules::Rules;
use allfives::referee::builtin_game::{self, Scratch};
use allfives::referee::game::FaultPolicy;
use allfives::tournament::definition::{Definition, EntrantDef};
use allfives::tournament::ladder::LadderSpec;
use allfives::tournament::ladder::queue::{Ladder, LadderGames, SharedLadder};
use allfives::tournament::ratings::batch::{self, Anchor, BatchFit, Sets, Side};
use allfives::tournament::ratings::{kendall, sets};
use allfives::tournament::schedule::{self, Format, GamePlan, Schedule, Table};
use allfives::tournament::seeds;
use allfives_engine::deal::below;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Checkpoints are this much apart by default: each at least 1 + STEP times the games of the
/// one before.
const STEP: f64 = 0.02;
/// The tau thresholds reported.
const THRESHOLDS: [f64; 2] = [0.9, 0.95];

/// Who sits at the next table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Uniform,
    RoundRobin,
    Balanced,
    Matchmaking,
}

impl Kind {
    fn parse(name: &str) -> Kind {
        match name {
            "uniform" => Kind::Uniform,
            "round-robin" => Kind::RoundRobin,
            "balanced" => Kind::Balanced,
            "matchmaking" => Kind::Matchmaking,
            _ => fail(&format!(
                "unknown schedule '{name}': uniform, round-robin, balanced or matchmaking"
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Uniform => "uniform",
            Kind::RoundRobin => "round-robin",
            Kind::Balanced => "balanced",
            Kind::Matchmaking => "matchmaking",
        }
    }
}

/// What the command line asked for.
#[derive(Debug, Clone)]
struct Options {
    entrants: usize,
    players: usize,
    schedules: Vec<Kind>,
    seeds: u64,
    max_games: u64,
    /// Checkpoints' spacing (a fraction of the games so far).
    step: f64,
    /// The first checkpoint's games (`None`: once every entrant could have played a set).
    from: Option<u64>,
    rate: bool,
    rate_games: u64,
    /// Stop each run once tau first reaches the last threshold (no "settled" figure then).
    until_first: bool,
}

impl Options {
    fn from_args(args: &[String]) -> Options {
        let value = |flag: &str| {
            args.iter().position(|a| a == flag).map(|i| {
                args.get(i + 1)
                    .unwrap_or_else(|| fail(&format!("{flag} needs a value")))
            })
        };
        let number = |flag: &str, default: u64| {
            value(flag).map_or(default, |v| {
                v.replace('_', "")
                    .parse()
                    .unwrap_or_else(|_| fail(&format!("{flag} takes a whole number, not {v}")))
            })
        };
        let smoke = !args.iter().any(|a| a == "--bench");
        let entrants = number("--entrants", if smoke { 6 } else { 20 }) as usize;
        let players = number("--players", 2) as usize;
        if !(2..=4).contains(&players) || entrants < players {
            fail("--players is 2, 3 or 4, and --entrants at least that many");
        }
        let rate = args.iter().any(|a| a == "--rate");
        let listed = match rate {
            true => value("--schedule").map_or("balanced", String::as_str),
            false => value("--schedules").map_or("uniform,round-robin,balanced,matchmaking", |v| v),
        };
        let schedules: Vec<Kind> = listed
            .split(',')
            .map(Kind::parse)
            .filter(|k| *k != Kind::RoundRobin || players == 2)
            .collect();
        Options {
            entrants,
            players,
            schedules,
            seeds: number("--seeds", 1).max(1),
            max_games: number("--max-games", if smoke { 2_000 } else { 2_000_000 }),
            step: value("--step").map_or(STEP, |v| {
                v.parse()
                    .ok()
                    .filter(|s| *s > 0.0)
                    .unwrap_or_else(|| fail(&format!("--step takes a fraction above 0, not {v}")))
            }),
            from: value("--from").map(|_| number("--from", 0)),
            rate,
            rate_games: number("--games", if smoke { 2_000 } else { 1_000_000 }),
            until_first: args.iter().any(|a| a == "--until-first"),
        }
    }

    /// The table: cut-throat at 4.
    fn table(&self) -> Table {
        Table {
            players: self.players,
            teams: false,
            splits: false,
            all_orders: false,
        }
    }

    fn rules(&self) -> Rules {
        Rules {
            teams: false,
            ..Rules::new(self.players)
        }
    }
}

/// Stops the bench with a message (a bench's usage error).
fn fail(why: &str) -> ! {
    eprintln!("ladder bench: {why}");
    std::process::exit(2)
}

/// One deal at one table: its entrants, the seed its games are dealt from, and each game's
/// seating (for each seat, the member sitting there).
struct Deal {
    members: Vec<usize>,
    seed: u64,
    /// Its set's cluster key for the fit, as the standings make it (`sets::deal_key` of its
    /// deal and deal seed).
    key: u64,
    seatings: Vec<Vec<usize>>,
}

/// Where the next deal's table comes from.
enum Source {
    /// `k` entrants drawn uniformly at random.
    Uniform {
        rng: Box<ChaCha8Rng>,
        master: u64,
        dealt: u64,
    },
    /// The tournament's own round-robin, in its order.
    RoundRobin(Box<dyn Iterator<Item = GamePlan>>, usize),
    /// The ladder's own queue (`tournament --format ladder`), shared with the games it hands
    /// out as the workers share it.
    Ladder(Arc<SharedLadder>, LadderGames, usize),
}

impl Source {
    fn new(kind: Kind, options: &Options, seed: u64) -> Source {
        let rng = || ChaCha8Rng::seed_from_u64(seeds::derive(seed, 1));
        let master = seeds::derive(seed, 2);
        let ladder = |matchmaking| {
            let definition = ladder_definition(options, master, matchmaking);
            let set_size = definition.schedule().set_size();
            // Without fit points: its matchmaking reads each fit at once, as the bench makes it.
            let shared = SharedLadder::new(Ladder::new(&definition));
            let games = LadderGames {
                shared: shared.clone(),
                stop: Arc::new(AtomicBool::new(false)),
            };
            Source::Ladder(shared, games, set_size)
        };
        match kind {
            Kind::Uniform => Source::Uniform {
                rng: Box::new(rng()),
                master,
                dealt: 0,
            },
            Kind::RoundRobin => {
                let per_deal = Schedule::new(
                    options.table(),
                    Format::RoundRobin,
                    options.entrants,
                    1,
                    master,
                );
                let deals = options.max_games.div_ceil(per_deal.total().max(1));
                let schedule = std::sync::Arc::new(Schedule::new(
                    options.table(),
                    Format::RoundRobin,
                    options.entrants,
                    deals,
                    master,
                ));
                let set_size = schedule.set_size();
                Source::RoundRobin(Box::new(schedule.into_games(None, (0, 1))), set_size)
            }
            Kind::Balanced => ladder(false),
            Kind::Matchmaking => ladder(true),
        }
    }

    /// The next deal, or `None` when the schedule has no more.
    fn next(&mut self, options: &Options) -> Option<Deal> {
        let orders = || schedule::arrangements(&options.table());
        match self {
            Source::Uniform { rng, master, dealt } => {
                let members = distinct(rng, options.entrants, options.players);
                *dealt += 1;
                let seed = deal_seed(*master, *dealt);
                Some(Deal {
                    key: sets::deal_key(*dealt, seed),
                    members,
                    seed,
                    seatings: orders(),
                })
            }
            Source::RoundRobin(games, set_size) => whole_set(games, *set_size),
            Source::Ladder(_, games, set_size) => whole_set(games, *set_size),
        }
    }

    /// Gives the ladder the latest fit (its matchmaking reads it; the other schedules none).
    fn rate(&mut self, fit: &BatchFit) {
        if let Source::Ladder(ladder, ..) = self {
            ladder.lock().rate(fit);
        }
    }
}

/// The next `set_size` games of a schedule, a deal's set, as one deal.
fn whole_set(games: &mut dyn Iterator<Item = GamePlan>, set_size: usize) -> Option<Deal> {
    let plans: Vec<GamePlan> = games.take(set_size).collect();
    let first = plans.first()?;
    Some(Deal {
        key: sets::deal_key(first.deal, first.deal_seed),
        members: first.members.clone(),
        seed: first.seed,
        seatings: plans.iter().map(|p| p.seating.clone()).collect(),
    })
}

/// A ladder of the graded entrants, as `tournament --format ladder` defines it, with a budget
/// no run reaches (the bench stops it).
fn ladder_definition(options: &Options, master: u64, matchmaking: bool) -> Definition {
    Definition {
        kind: "allfives-tournament".into(),
        version: 1,
        entrants: (0..options.entrants)
            .map(|e| EntrantDef {
                name: format!("mix-{e}"),
                command: format!("builtin:mix:{}", mix_p(e, options.entrants)),
                dir: None,
                env: Default::default(),
            })
            .collect(),
        format: Format::Ladder,
        table: options.table(),
        deals: 1,
        seed: master,
        typed_seed: None,
        public_seed: false,
        rules: options.rules(),
        clock: ClockInfo {
            startup_ms: 10_000,
            move_ms: 1_000,
            bank_ms: 0,
        },
        clock_kind: Default::default(),
        on_fault: FaultPolicy::Forfeit,
        max_line: 1 << 16,
        shard: None,
        sprt: None,
        ladder: Some(LadderSpec {
            games: Some(u64::MAX / 2),
            games_each: None,
            matchmaking,
        }),
        retired: Vec::new(),
        pack_logs: false,
    }
}

/// The seed a deal's games are dealt from, as a tournament derives a game's from its deal's.
fn deal_seed(master: u64, deal: u64) -> u64 {
    seeds::derive(seeds::derive(master, deal), 0)
}

/// `k` distinct entrants of `n`, uniformly (a partial Fisher-Yates shuffle).
fn distinct(rng: &mut ChaCha8Rng, n: usize, k: usize) -> Vec<usize> {
    let mut picked: Vec<usize> = Vec::with_capacity(k);
    while picked.len() < k {
        let e = below(rng, n as u32) as usize;
        if !picked.contains(&e) {
            picked.push(e);
        }
    }
    picked.sort_unstable();
    picked
}

/// The probability of a random move of entrant `e` of `n`.
fn mix_p(e: usize, n: usize) -> f64 {
    e as f64 / (n - 1) as f64
}

/// Plays a deal's games and returns each as its sides (one entrant a seat) and their ranks.
fn play(deal: &Deal, options: &Options, scratch: &mut Scratch) -> Vec<Vec<(Side, u32)>> {
    deal.seatings
        .iter()
        .map(|seating| {
            let entrant = |seat: usize| deal.members[seating[seat]];
            let make =
                |seat: usize, seed| Builtin::mix(mix_p(entrant(seat), options.entrants), seed);
            let result = builtin_game::play(options.rules(), deal.seed, make, scratch)
                .expect("the bench's rules are valid");
            (0..options.players)
                .map(|seat| (vec![entrant(seat)], result.ranks[seat]))
                .collect()
        })
        .collect()
}

/// The ratings now, the search started from the previous fit as the tournament's refits start
/// it (`None` before the first); the previous fit is kept for the next.
fn refit(names: &[String], sets: &Sets, previous: &mut Option<BatchFit>) -> BatchFit {
    let fit = match previous {
        Some(before) => batch::fit_from(names, sets, Anchor::Mean(0.0), before),
        None => batch::fit(names, sets, Anchor::Mean(0.0)),
    };
    *previous = Some(fit.clone());
    fit
}

/// Kendall's tau-b of a fit against the true order (entrant 0 strongest); an entrant not rated
/// yet counts at the mean, 0.
fn tau(fit: &BatchFit, entrants: usize) -> f64 {
    let mut elo = vec![0.0; entrants];
    fit.entrants.iter().for_each(|r| elo[r.entrant] = r.elo);
    let truth: Vec<f64> = (0..entrants).map(|e| -(e as f64)).collect();
    kendall::tau_b(&elo, &truth).unwrap_or(0.0)
}

/// One threshold's outcome: the games at its first crossing, whether tau stayed at or above it
/// from there, and the games from which it did (the checkpoint after its last fall below).
#[derive(Debug, Clone, Copy, Default)]
struct Crossing {
    games: Option<u64>,
    stayed: bool,
    settled: Option<u64>,
}

impl Crossing {
    /// Takes the checkpoint at `games` with `tau`.
    fn observe(&mut self, games: u64, tau: f64, threshold: f64) {
        let above = tau >= threshold;
        if above && self.games.is_none() {
            self.games = Some(games);
            self.stayed = true;
        }
        self.stayed &= above;
        match (above, self.settled) {
            (true, None) => self.settled = Some(games),
            (false, _) => self.settled = None,
            (true, Some(_)) => {}
        }
    }
}

/// One run of one schedule: each threshold's crossing, and where it stopped.
#[derive(Debug, Clone)]
struct Run {
    crossings: Vec<Crossing>,
    games: u64,
    last_tau: f64,
    fit_time: Duration,
    play_time: Duration,
    /// The draws' part of `play_time` (drawing the tables and taking the fits).
    draw_time: Duration,
    fits: u32,
    /// CPU time (games, draws and fits) until tau first reached the last threshold.
    cpu_to_last: Option<Duration>,
}

/// Plays `kind` with `seed` until tau has reached the last threshold and twice its games are
/// played (or the budget or the schedule ends), fitting at every checkpoint.
fn converge(kind: Kind, options: &Options, seed: u64) -> Run {
    let names: Vec<String> = (0..options.entrants).map(|e| format!("mix-{e}")).collect();
    let mut source = Source::new(kind, options, seed);
    let mut sets = Sets::default();
    let mut previous = None;
    let mut scratch = Scratch::default();
    let set_size = schedule::arrangements(&options.table()).len() as u64;
    let mut checkpoint = options
        .from
        .unwrap_or((options.entrants as u64 * set_size).div_ceil(options.players as u64));
    let mut run = Run {
        crossings: vec![Crossing::default(); THRESHOLDS.len()],
        games: 0,
        last_tau: 0.0,
        fit_time: Duration::ZERO,
        play_time: Duration::ZERO,
        draw_time: Duration::ZERO,
        fits: 0,
        cpu_to_last: None,
    };
    // Until the last threshold has held over the latter half of the games played.
    let stop = |run: &Run| match run.crossings.last().and_then(|c| c.settled) {
        Some(_) if options.until_first => true,
        Some(settled) => run.games >= 2 * settled,
        None => false,
    };
    while run.games < options.max_games && !stop(&run) {
        let started = cpu();
        let Some(deal) = source.next(options) else {
            break;
        };
        run.draw_time += cpu() - started;
        sets.add(deal.key, &play(&deal, options, &mut scratch));
        run.play_time += cpu() - started;
        run.games += deal.seatings.len() as u64;
        if run.games < checkpoint {
            continue;
        }
        checkpoint = ((run.games as f64) * (1.0 + options.step)).ceil() as u64;
        let started = cpu();
        let fit = refit(&names, &sets, &mut previous);
        run.fit_time += cpu() - started;
        run.fits += 1;
        run.last_tau = tau(&fit, options.entrants);
        // Taking the fit is the draw's work (matchmaking reads it): counted with the games.
        let started = cpu();
        source.rate(&fit);
        run.play_time += cpu() - started;
        run.draw_time += cpu() - started;
        for (crossing, threshold) in run.crossings.iter_mut().zip(THRESHOLDS) {
            crossing.observe(run.games, run.last_tau, threshold);
        }
        if run.cpu_to_last.is_none() && run.crossings.last().is_some_and(|c| c.games.is_some()) {
            run.cpu_to_last = Some(run.fit_time + run.play_time);
        }
    }
    run
}

/// The median of some numbers (the lower middle of an even count's two).
fn median(mut values: Vec<u64>) -> Option<u64> {
    values.sort_unstable();
    values.get(values.len().saturating_sub(1) / 2).copied()
}

/// Runs every schedule over every seed and prints one line each, then the medians.
fn convergence(options: &Options) {
    println!(
        "{} entrants (builtin:mix:P, P = i/{}), {} players{}, checkpoints {:.0}% apart, seeds 1..{}",
        options.entrants,
        options.entrants - 1,
        options.players,
        if options.players == 4 {
            " cut-throat"
        } else {
            ""
        },
        options.step * 100.0,
        options.seeds
    );
    let mut by_kind: Vec<(Kind, Vec<Run>)> = Vec::new();
    for &kind in &options.schedules {
        let runs: Vec<Run> = (1..=options.seeds)
            .map(|seed| {
                let run = converge(kind, options, seed);
                println!(
                    "  {:<12} seed {seed}: tau 0.9 at {}, 0.95 at {}; stopped at {} games (tau {:.3}); {} fits {:.1} s CPU, games {:.1} s CPU",
                    kind.name(),
                    shown(run.crossings[0]),
                    shown(run.crossings[1]),
                    run.games,
                    run.last_tau,
                    run.fits,
                    run.fit_time.as_secs_f64(),
                    run.play_time.as_secs_f64()
                );
                run
            })
            .collect();
        let medians: Vec<String> = THRESHOLDS
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let crossed: Vec<u64> = runs.iter().filter_map(|r| r.crossings[i].games).collect();
                let settled: Vec<u64> = runs.iter().filter_map(|r| r.crossings[i].settled).collect();
                let stayed = runs.iter().filter(|r| r.crossings[i].stayed).count();
                match (crossed.len() == runs.len(), median(crossed), median(settled)) {
                    (true, Some(m), Some(s)) => format!(
                        "tau {t}: median first crossing {m} games, stayed in {stayed} of {}; median settled from {s}",
                        runs.len()
                    ),
                    _ => format!("tau {t}: not reached in every run"),
                }
            })
            .collect();
        println!("  {:<12} {}", kind.name(), medians.join("; "));
        by_kind.push((kind, runs));
    }
    let of = |kind| by_kind.iter().find(|(k, _)| *k == kind).map(|(_, r)| r);
    if let (Some(balanced), Some(matched)) = (of(Kind::Balanced), of(Kind::Matchmaking)) {
        compare(balanced, matched);
    }
}

/// Matchmaking against the balanced draw, seed by seed: the ratio of the games until tau first
/// reached the last threshold (mean, its standard error over seeds, how many at most 0.70), and
/// the CPU time of each (games with their draws, and fits) a game and to that crossing.
fn compare(balanced: &[Run], matched: &[Run]) {
    let last = THRESHOLDS.len() - 1;
    let ratios: Vec<f64> = balanced
        .iter()
        .zip(matched)
        .filter_map(|(b, m)| {
            Some(m.crossings[last].games? as f64 / b.crossings[last].games? as f64)
        })
        .collect();
    if ratios.len() < 2 {
        println!(
            "  matchmaking / balanced: fewer than two seeds reached tau {} in both",
            THRESHOLDS[last]
        );
        return;
    }
    let n = ratios.len() as f64;
    let mean = ratios.iter().sum::<f64>() / n;
    let sd = (ratios.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    println!(
        "  matchmaking / balanced, games until tau {} first: mean ratio {mean:.3} (se {:.3}) over {} seeds; {} of them at most 0.70; ratios {}",
        THRESHOLDS[last],
        sd / n.sqrt(),
        ratios.len(),
        ratios.iter().filter(|&&r| r <= 0.70).count(),
        ratios
            .iter()
            .map(|r| format!("{r:.2}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let per_game = |runs: &[Run], part: fn(&Run) -> Duration| {
        let cpu: f64 = runs.iter().map(|r| part(r).as_secs_f64()).sum();
        cpu * 1e6 / runs.iter().map(|r| r.games).sum::<u64>() as f64
    };
    let to_last = |runs: &[Run]| {
        runs.iter()
            .filter_map(|r| r.cpu_to_last)
            .map(|d| d.as_secs_f64())
            .sum::<f64>()
    };
    for (name, runs) in [("balanced", balanced), ("matchmaking", matched)] {
        println!(
            "  {name:<12} CPU a game: games and draws {:.1} us (draws {:.2} us), fits {:.1} us, in all {:.1} us; to tau {} first, summed over seeds: {:.1} s",
            per_game(runs, |r| r.play_time),
            per_game(runs, |r| r.draw_time),
            per_game(runs, |r| r.fit_time),
            per_game(runs, |r| r.play_time + r.fit_time),
            THRESHOLDS[last],
            to_last(runs)
        );
    }
}

fn shown(c: Crossing) -> String {
    match (c.games, c.settled) {
        (Some(g), _) if c.stayed => format!("{g} (stayed)"),
        (Some(g), Some(s)) => format!("{g} (fell below later; above again from {s})"),
        (Some(g), None) => format!("{g} (below again at the end)"),
        (None, _) => "never".into(),
    }
}

/// The process's peak and current resident memory, in MiB, from /proc/self/status.
fn memory() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// The CPU time this thread has used: the machine is shared, and wall time would count the
/// other processes' turns (each reading is a system call of about a microsecond).
fn cpu() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes only the timespec it is given.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(status, 0, "every Linux has a thread CPU clock");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// Times the ladder's own work over `--games` games (CPU time): drawing, folding, fitting.
fn bookkeeping(options: &Options) {
    let kind = options.schedules.first().copied().unwrap_or(Kind::Balanced);
    println!(
        "bookkeeping: {} entrants, {} players, schedule {}, {} games",
        options.entrants,
        options.players,
        kind.name(),
        options.rate_games
    );
    let names: Vec<String> = (0..options.entrants).map(|e| format!("mix-{e}")).collect();
    let mut source = Source::new(kind, options, 1);
    let mut sets = Sets::default();
    let mut previous = None;
    let mut scratch = Scratch::default();
    let (mut draw, mut fold, mut games_time) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut games = 0u64;
    let marks = [100_000, 300_000, 1_000_000, 3_000_000];
    let mut next_mark = marks
        .iter()
        .filter(|&&m| m <= options.rate_games)
        .peekable();
    while games < options.rate_games {
        let started = cpu();
        let Some(deal) = source.next(options) else {
            break;
        };
        let drawn = cpu();
        let played = play(&deal, options, &mut scratch);
        let folding = cpu();
        sets.add(deal.key, &played);
        let folded = cpu();
        draw += drawn - started;
        games_time += folding - drawn;
        fold += folded - folding;
        games += deal.seatings.len() as u64;
        if next_mark.peek().is_some_and(|&&m| games >= m) || games >= options.rate_games {
            next_mark.next();
            let started = cpu();
            let fit = refit(&names, &sets, &mut previous);
            let fit_time = cpu() - started;
            source.rate(&fit);
            let (peak, now) = memory();
            let own = (draw + fold).as_secs_f64();
            println!(
                "  {games} games: draw {:.2} us + fold {:.2} us a game ({:.0} games/s of bookkeeping without fits); fit {:.2} s (tau {:.3}); playing the games {:.0} games/s; VmHWM {peak:.0} MiB, VmRSS {now:.0} MiB",
                draw.as_secs_f64() * 1e6 / games as f64,
                fold.as_secs_f64() * 1e6 / games as f64,
                games as f64 / own,
                fit_time.as_secs_f64(),
                tau(&fit, options.entrants),
                games as f64 / games_time.as_secs_f64(),
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let options = Options::from_args(&args);
    if !args.iter().any(|a| a == "--bench") {
        println!("SMOKE RUN (no --bench argument): figures are not meaningful; use cargo bench");
    }
    let started = Instant::now();
    match options.rate {
        true => bookkeeping(&options),
        false => convergence(&options),
    }
    println!("({:.1} s in all)", started.elapsed().as_secs_f64());
}
