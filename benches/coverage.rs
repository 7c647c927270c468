//! Whether the batch ratings' 95% intervals hold the truth 95% of the time, at 2, 3 and 4
//! players, and at few deals.
//!
//! Entrants are `builtin:mix:P` with P evenly spread (`P = i / (n - 1)`: entrant 0 is greedy,
//! the last random), played a round-robin as `tournament` schedules it (`Schedule::games`: every
//! group plays deal `d` from the same seed, each deal in every seat arrangement that matters),
//! through the engine (`referee::builtin_game`: no process, no log). Each run plays the largest
//! of `--deals` from its own master seed and fits the ratings (`ratings::batch::fit`, mean 0) on
//! its first `D` deals for each `D` listed; the truth is the fit of one long run of
//! `--truth-deals` deals from another seed (its own error is the run's times `deals /
//! truth-deals` in variance). An interval covers when it holds the entrant's true rating.
//! Reported per deal count: the intervals counted, the share that cover, its binomial standard
//! error (`sqrt(p (1 - p) / N)`, as if the intervals were independent) and the standard error
//! from the runs' own spread (the intervals of one run are not independent: they are relative to
//! the run's mean); the mean half-width beside the root-mean-square error it should match (`rms
//! x 1.96`); the rms error over the mean printed standard error (the half-width over the
//! critical value it was read by), and per entrant its SD over the runs over its mean printed
//! se and its coverage; how many were `few_deals` (the model's interval), how many others were
//! wider than 3 times the model's; the mean dispersion and degrees of freedom.
//!
//! Sets are clustered as the standings cluster them, by deal (`sets::deal_key`); `--by-set`
//! keys each set (group and deal) apart instead, as they were before issue 30, to show what that
//! covered.
//!
//! `cargo bench --bench coverage -- --players 3 --deals 2,3,5,10,20` (options: `--players
//! 2|3|4`, `--teams` for 4-player partnerships with every split, `--entrants N` (6), `--deals
//! D,D,...` (20), `--runs R` (200), `--first F` (1: runs F to F + R - 1, to split replicates over
//! several short bench runs), `--truth-deals T` (4000), `--truth E,E,...` (the truth an earlier
//! run printed, not fitted again), `--sums` (the raw sums, to pool split runs), `--by-set`).
//! Each entrant's mean error is printed too. Without `--bench` (as
//! under `cargo test --benches`) it is a smoke run whose figures mean nothing. Figures and
//! commands: docs/results.md.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use allfives::bot::builtin::Builtin;
use allfives::engine::rules::Rules;
use allfives::referee::builtin_game::{self, Scratch};
use allfives::tournament::ratings::batch::{self, Anchor, BatchFit, Reason, Sets, Side};
use allfives::tournament::ratings::sets;
use allfives::tournament::ratings::student::student_quantile;
use allfives::tournament::schedule::{Format, GamePlan, Schedule, Table};
use allfives::tournament::seeds;

/// The 95% interval's multiple of the standard error.
const Z: f64 = 1.96;

/// What the command line asked for.
#[derive(Debug, Clone)]
struct Options {
    players: usize,
    teams: bool,
    entrants: usize,
    /// The deal counts measured: each run plays the largest and is fitted on the first `D`
    /// deals for each `D`.
    deals: Vec<u64>,
    runs: u64,
    /// The first run's number: runs `first..first + runs` (each its own master seed), so that
    /// replicates can be split over several short bench runs and pooled.
    first: u64,
    truth_deals: u64,
    /// The true ratings (Elo, mean 0) as an earlier run printed them, instead of fitting them
    /// again.
    truth: Option<Vec<f64>>,
    by_set: bool,
}

impl Options {
    fn from_args(args: &[String]) -> Options {
        let value = |flag: &str| args.iter().position(|a| a == flag).map(|i| &args[i + 1..]);
        let number = |flag: &str, default: u64| {
            value(flag).map_or(default, |rest| {
                rest.first()
                    .and_then(|v| v.replace('_', "").parse().ok())
                    .unwrap_or_else(|| fail(&format!("{flag} takes a whole number")))
            })
        };
        let smoke = !args.iter().any(|a| a == "--bench");
        let options = Options {
            players: number("--players", 3) as usize,
            teams: args.iter().any(|a| a == "--teams"),
            entrants: number("--entrants", 6) as usize,
            deals: value("--deals").map_or(vec![if smoke { 2 } else { 20 }], |rest| {
                rest.first()
                    .map(|v| v.split(',').filter_map(|d| d.parse().ok()).collect())
                    .filter(|d: &Vec<u64>| !d.is_empty() && d.iter().all(|&d| d > 0))
                    .unwrap_or_else(|| fail("--deals takes deal counts, such as 2,3,5,10,20"))
            }),
            runs: number("--runs", if smoke { 2 } else { 200 }),
            first: number("--first", 1),
            truth_deals: number("--truth-deals", if smoke { 4 } else { 4000 }),
            truth: value("--truth").map(|rest| {
                rest.first()
                    .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
                    .unwrap_or_else(|| fail("--truth takes Elos, such as -10.5,+3.2,7.3"))
            }),
            by_set: args.iter().any(|a| a == "--by-set"),
        };
        if !(2..=4).contains(&options.players)
            || options.entrants < options.players
            || (options.teams && options.players != 4)
        {
            fail("--players is 2, 3 or 4 (--teams only at 4), --entrants at least that many");
        }
        if options
            .truth
            .as_ref()
            .is_some_and(|t| t.len() != options.entrants)
        {
            fail("--truth takes one Elo per entrant");
        }
        options
    }

    fn table(&self) -> Table {
        Table {
            players: self.players,
            teams: self.teams,
            splits: self.teams,
            all_orders: false,
        }
    }

    fn rules(&self) -> Rules {
        Rules {
            teams: self.teams,
            ..Rules::new(self.players)
        }
    }
}

/// Stops the bench with a message (a bench's usage error).
fn fail(why: &str) -> ! {
    eprintln!("coverage bench: {why}");
    std::process::exit(2)
}

/// The probability of a random move of entrant `e` of `n`.
fn mix_p(e: usize, n: usize) -> f64 {
    e as f64 / (n - 1) as f64
}

/// A set's games, each as its sides and their ranks.
type SetGames = Vec<Vec<(Side, u32)>>;

/// Plays a set's games (one group, one deal, every arrangement) and returns each game as its
/// sides and their ranks; partners (seats `s` and `s + 2`) are one side.
fn play(plans: &[GamePlan], options: &Options, scratch: &mut Scratch) -> SetGames {
    let sides = if options.teams { 2 } else { options.players };
    plans
        .iter()
        .map(|plan| {
            let entrant = |seat: usize| plan.members[plan.seating[seat]];
            let make =
                |seat: usize, seed| Builtin::mix(mix_p(entrant(seat), options.entrants), seed);
            let result = builtin_game::play(options.rules(), plan.seed, make, scratch)
                .expect("the bench's rules are valid");
            (0..sides)
                .map(|side| {
                    let mut members: Side = (side..options.players)
                        .step_by(sides)
                        .map(entrant)
                        .collect();
                    members.sort_unstable();
                    members.dedup();
                    (members, result.ranks[side])
                })
                .collect()
        })
        .collect()
}

/// The fits of a round-robin of the largest of `deals` deals from `master`, one on the first
/// `D` deals for each `D` of `deals` (each deal is played once, whatever the count).
fn run(options: &Options, deals: &[u64], master: u64, scratch: &mut Scratch) -> Vec<BatchFit> {
    let most = deals.iter().copied().max().expect("a deal count");
    let schedule = Arc::new(Schedule::new(
        options.table(),
        Format::RoundRobin,
        options.entrants,
        most,
        master,
    ));
    // A set is one group's games of one deal, every arrangement: gathered by group and deal,
    // since the schedule plays a block of deals one arrangement at a time.
    let mut gathered: BTreeMap<(Vec<usize>, u64), Vec<GamePlan>> = BTreeMap::new();
    for plan in schedule.into_games(None, (0, 1)) {
        gathered
            .entry((plan.members.clone(), plan.deal))
            .or_default()
            .push(plan);
    }
    // Each set: its deal, its cluster key and its games.
    let mut played: Vec<(u64, u64, SetGames)> = Vec::new();
    for mut plans in gathered.into_values() {
        plans.sort_by_key(|plan| plan.arrangement);
        let first = &plans[0];
        let key = match options.by_set {
            true => sets::key_of(
                first
                    .members
                    .iter()
                    .map(|&e| e as u64)
                    .chain([first.deal, first.deal_seed]),
            ),
            false => sets::deal_key(first.deal, first.deal_seed),
        };
        played.push((first.deal, key, play(&plans, options, scratch)));
    }
    let names: Vec<String> = (0..options.entrants).map(|e| format!("mix-{e}")).collect();
    deals
        .iter()
        .map(|&d| {
            let mut folded = Sets::default();
            for (_, key, games) in played.iter().filter(|(deal, _, _)| *deal < d) {
                folded.add(*key, games);
            }
            batch::fit(&names, &folded, Anchor::Mean(0.0))
        })
        .collect()
}

/// One entrant's rating in a fit: its Elo, half-width, the critical value its interval was
/// read by, and its status.
#[derive(Debug, Clone, Copy)]
struct Rated {
    elo: f64,
    half: Option<f64>,
    critical: f64,
    /// The half-width over the model's alone (1.96 model standard errors).
    over_model: f64,
    /// Whether it is `provisional` for too few deals (its interval then the model's).
    few_deals: bool,
}

/// Each entrant's rating in `fit` (by index).
fn by_entrant(fit: &BatchFit, entrants: usize) -> Vec<Rated> {
    let (critical, over_model) = match (fit.dispersion, fit.freedom) {
        (Some(phi), Some(nu)) => {
            let t = student_quantile(0.975, nu);
            (t, t * phi.sqrt() / Z)
        }
        _ => (Z, 1.0),
    };
    (0..entrants)
        .map(|e| {
            let rating = fit.rating(e).expect("every entrant plays");
            Rated {
                elo: rating.elo,
                half: rating.half_width(),
                critical,
                over_model,
                few_deals: rating.reason == Some(Reason::FewDeals),
            }
        })
        .collect()
}

/// What the runs found at one deal count.
#[derive(Debug, Default)]
struct Tally {
    intervals: u64,
    covered: u64,
    /// Each run's share of covering intervals.
    per_run: Vec<f64>,
    squared_error: f64,
    half_widths: f64,
    /// The printed standard errors (half-width over its critical value), summed.
    printed_se: f64,
    /// Per entrant: its error in each run, its printed standard errors, and how often it was
    /// covered.
    errors: Vec<Vec<f64>>,
    ses: Vec<f64>,
    entrant_covered: Vec<u64>,
    /// Intervals `provisional` for too few deals, and the others wider than 3 times the
    /// model's (any of them may be `rated`: the standings clear a wide mark by games).
    few_deals: u64,
    over_3: u64,
    widest_over_model: f64,
    /// The fits' dispersions and degrees of freedom, summed over those not `few_deals`.
    dispersions: f64,
    freedoms: f64,
    estimated: u64,
}

impl Tally {
    fn take(&mut self, whole: &BatchFit, fit: &[Rated], truth: &[f64]) {
        if let (Some(phi), Some(nu)) = (whole.dispersion, whole.freedom) {
            (self.dispersions, self.freedoms) = (self.dispersions + phi, self.freedoms + nu);
            self.estimated += 1;
        }
        let n = fit.len();
        if self.errors.is_empty() {
            (self.errors, self.ses, self.entrant_covered) =
                (vec![Vec::new(); n], vec![0.0; n], vec![0; n]);
        }
        let mut covered = 0;
        for (e, (r, true_elo)) in fit.iter().zip(truth).enumerate() {
            let half = r.half.unwrap_or(0.0);
            let error = r.elo - true_elo;
            let hit = u64::from(error.abs() <= half);
            covered += hit;
            self.entrant_covered[e] += hit;
            self.squared_error += error * error;
            self.half_widths += half;
            self.printed_se += half / r.critical;
            self.errors[e].push(error);
            self.ses[e] += half / r.critical;
            self.few_deals += u64::from(r.few_deals);
            if !r.few_deals {
                self.over_3 += u64::from(r.over_model > 3.0);
                self.widest_over_model = self.widest_over_model.max(r.over_model);
            }
        }
        self.intervals += n as u64;
        self.covered += covered;
        self.per_run.push(covered as f64 / n as f64);
    }

    fn report(&self) -> String {
        let n = self.intervals as f64;
        let p = self.covered as f64 / n;
        let runs = self.per_run.len() as f64;
        let mean = self.per_run.iter().sum::<f64>() / runs;
        let spread = self.per_run.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (runs - 1.0);
        let rms = (self.squared_error / n).sqrt();
        // Per entrant: the SD of its Elo over the runs over its mean printed se, and its mean
        // error (a bias no width mends: the prior's pull on the extremes).
        let (ratios, biases): (Vec<String>, Vec<String>) = self
            .errors
            .iter()
            .zip(&self.ses)
            .map(|(errors, se)| {
                let m = errors.iter().sum::<f64>() / runs;
                let sd =
                    (errors.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (runs - 1.0)).sqrt();
                (format!("{:.2}", sd / (se / runs)), format!("{m:+.1}"))
            })
            .unzip();
        let covered: Vec<String> = self
            .entrant_covered
            .iter()
            .map(|&c| format!("{:.1}", 100.0 * c as f64 / runs))
            .collect();
        format!(
            "{} runs, {} intervals: coverage {:.2}% (binomial se {:.2}%, runs' se {:.2}%); \
             mean half-width {:.1} Elo, rms error {:.1} Elo (x 1.96 = {:.1}); \
             rms error / mean printed se {:.2} (half-width / critical); \
             per entrant SD / mean se [{}], coverage % [{}], mean error [{}]; \
             few_deals {}, others wider than 3x the model's {} (widest {:.2}x); \
             mean dispersion {:.2}, mean freedom {:.1} (of {} fits)",
            self.per_run.len(),
            self.intervals,
            100.0 * p,
            100.0 * (p * (1.0 - p) / n).sqrt(),
            100.0 * (spread / runs).sqrt(),
            self.half_widths / n,
            rms,
            Z * rms,
            rms / (self.printed_se / n),
            ratios.join(" "),
            covered.join(" "),
            biases.join(" "),
            self.few_deals,
            self.over_3,
            self.widest_over_model,
            self.dispersions / self.estimated.max(1) as f64,
            self.freedoms / self.estimated.max(1) as f64,
            self.estimated,
        )
    }

    /// The sums the figures above are read from, for pooling runs split over several bench
    /// runs (`--first`): covered and intervals; the runs' shares, summed and squared; per entrant
    /// its errors, summed and squared, its printed standard errors summed, and its coverings.
    fn sums(&self) -> String {
        let runs: f64 = self.per_run.iter().sum();
        let squares: f64 = self.per_run.iter().map(|x| x * x).sum();
        let entrants: Vec<String> = (0..self.errors.len())
            .map(|e| {
                let errors = &self.errors[e];
                format!(
                    "{:.6}/{:.6}/{:.6}/{}",
                    errors.iter().sum::<f64>(),
                    errors.iter().map(|x| x * x).sum::<f64>(),
                    self.ses[e],
                    self.entrant_covered[e]
                )
            })
            .collect();
        format!(
            "{} {} {} {runs:.9} {squares:.9} {}",
            self.per_run.len(),
            self.covered,
            self.intervals,
            entrants.join(" ")
        )
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = Options::from_args(&args);
    let mode = match options.teams {
        true => "partnerships (every split)",
        false => "cut-throat",
    };
    println!(
        "allfives coverage bench: {} players {mode}, {} entrants (builtin:mix:0 to 1), \
         round-robin of {:?} deals a run, truth from {} deals, clustered by {}",
        options.players,
        options.entrants,
        options.deals,
        options.truth_deals,
        if options.by_set { "set" } else { "deal" },
    );
    if !args.iter().any(|a| a == "--bench") {
        println!("  SMOKE RUN (no --bench argument): figures are not meaningful; use cargo bench");
    }
    let started = Instant::now();
    let mut scratch = Scratch::default();
    let truth = options.truth.clone().unwrap_or_else(|| {
        let fit = run(
            &options,
            &[options.truth_deals],
            seeds::derive(1, 0),
            &mut scratch,
        );
        let rated = by_entrant(&fit[0], options.entrants);
        rated.iter().map(|r| r.elo).collect()
    });
    let shown: Vec<String> = truth.iter().map(|elo| format!("{elo:+.4}")).collect();
    println!("  truth (Elo, mean 0): {}", shown.join(","));
    let mut tallies: Vec<Tally> = options.deals.iter().map(|_| Tally::default()).collect();
    for seed in options.first..options.first + options.runs {
        let fits = run(
            &options,
            &options.deals,
            seeds::derive(2, seed),
            &mut scratch,
        );
        for (tally, fit) in tallies.iter_mut().zip(&fits) {
            tally.take(fit, &by_entrant(fit, options.entrants), &truth);
        }
    }
    for (deals, tally) in options.deals.iter().zip(&tallies) {
        println!("  {deals} deals: {}", tally.report());
        if args.iter().any(|a| a == "--sums") {
            println!("  {deals} deals, sums: {}", tally.sums());
        }
    }
    println!("  {:.0} s", started.elapsed().as_secs_f64());
}
