//! The batch fit's speed at ladder scale.
//!
//! `cargo bench --bench ratings` (a plain `main`, no harness) fits the batch ratings of 100 and
//! 1,000 entrants at 2 players, each entrant in about 20 games against random opponents (duplicate
//! pairs of two games, results drawn from Bradley-Terry with graded true strengths, a fixed seed),
//! and prints the time of each fit (cold, and warm-started from a fit of 95% of the sets); then
//! folds 1,000,000 games of 1,000 entrants into the sets the fit reads and prints the process's
//! resident memory on the way. Then the cost of the deals' dispersion
//! ([`dispersion::estimate`]) at 10, 100 and 1,000 entrants: the same games, each set its own deal
//! (a ladder) or the sets shared among 20 deals (a tournament's deals, each seen by every
//! group), timed as a whole fit and as the dispersion's estimate alone on the same comparisons
//! (the fit without it costs the difference); `--dispersion` runs that part alone. Results are described in `docs/benchmarks.md`.
//!
//! Without the `--bench` argument that `cargo bench` passes (e.g. under `cargo test --benches`),
//! or with `--smoke`, it does a smoke run at 20 entrants whose figures mean nothing.

use std::hint::black_box;
use std::time::Instant;

use allfives::tournament::ratings::cholesky::{Cholesky, Square};
use allfives::tournament::ratings::dispersion::{self, Term};
use allfives::tournament::ratings::{Anchor, Sets, batch};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// The argument `cargo bench` passes; without it (`cargo test --benches`) the run is a smoke test.
const BENCH: &str = "--bench";
/// Argument that makes a run a short smoke test.
const SMOKE: &str = "--smoke";
/// Argument that runs the dispersion's cost alone.
const DISPERSION_ONLY: &str = "--dispersion";

/// Games per entrant.
const GAMES_EACH: usize = 20;

/// One duplicate set of two games.
type Set = [Vec<(Vec<usize>, u32)>; 2];

/// The sets of `entrants` entrants, true strengths spread evenly over 800 Elo, each in about
/// [`GAMES_EACH`] games against random opponents.
fn ladder(entrants: usize, seed: u64) -> Vec<Set> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let strength = |e: usize| 800.0 * e as f64 / entrants as f64;
    // Two games per set, each game counting for both its entrants.
    (0..entrants * GAMES_EACH / 4)
        .map(|_| {
            let a = rng.random_range(0..entrants);
            let b = (a + rng.random_range(1..entrants)) % entrants;
            let expected = 1.0 / (1.0 + 10f64.powf((strength(b) - strength(a)) / 400.0));
            let mut rank = || if rng.random::<f64>() < expected { 1 } else { 2 };
            let (first, second) = (rank(), rank());
            [
                vec![(vec![a], first), (vec![b], 3 - first)],
                vec![(vec![b], 3 - second), (vec![a], second)],
            ]
        })
        .collect()
}

/// The first `count` of `sets`, folded in, each its own deal.
fn folded(sets: &[Set], count: usize) -> Sets {
    dealt(&sets[..count], count)
}

/// `sets` folded in, set `i` dealt deal `i % deals`.
fn dealt(sets: &[Set], deals: usize) -> Sets {
    let mut folded = Sets::default();
    for (key, set) in sets.iter().enumerate() {
        folded.add((key % deals) as u64, set);
    }
    folded
}

/// What [`dispersion::estimate`] reads for `sets` of `entrants` dealt `deals` deals, as the fit
/// builds it at its ratings (here the true strengths): the regularized information's inverse
/// and each deal's comparisons.
fn dispersion_input(
    sets: &[Set],
    entrants: usize,
    deals: usize,
) -> (Square, Vec<(Vec<Term>, f64)>) {
    let natural = std::f64::consts::LN_10 / 400.0;
    let strength = |e: usize| natural * 800.0 * e as f64 / entrants as f64;
    let mut clusters: Vec<(Vec<Term>, f64)> = (0..deals.min(sets.len()))
        .map(|_| (Vec::new(), 1.0))
        .collect();
    let mut information = Square::zeros(entrants);
    for (key, set) in sets.iter().enumerate() {
        let (a, b) = (set[0][0].0[0], set[0][1].0[0]);
        let points: f64 = set
            .iter()
            .map(|game| {
                game.iter()
                    .find(|(side, _)| side[0] == a)
                    .map_or(0.0, |s| 2.0 - s.1 as f64)
            })
            .sum();
        let e = 1.0 / (1.0 + (strength(b) - strength(a)).exp());
        let info = 2.0 * e * (1.0 - e);
        for (i, j, sign) in [(a, a, 1.0), (b, b, 1.0), (a, b, -1.0), (b, a, -1.0)] {
            information.add(i, j, sign * info);
        }
        clusters[key % deals].0.push(Term {
            direction: vec![(a, 1.0), (b, -1.0)],
            information: info,
            residual: points - 2.0 * e,
        });
    }
    let largest = information.largest();
    let regular = information.shifted(largest / entrants as f64, 1e-9 * largest);
    let inverse = Cholesky::new(regular).expect("positive definite").inverse();
    (inverse, clusters)
}

/// The fit's time beside the dispersion's alone, for `entrants` at each of two clusterings.
fn dispersion_cost(entrants: usize, runs: usize) {
    let names: Vec<String> = (0..entrants).map(|e| format!("e{e}")).collect();
    let sets = ladder(entrants, 7);
    for (label, deals) in [("each set its own deal", sets.len()), ("20 deals", 20)] {
        let all = dealt(&sets, deals);
        let fit: Vec<f64> = (0..runs)
            .map(|_| {
                let started = Instant::now();
                black_box(batch::fit(&names, black_box(&all), Anchor::Mean(0.0)));
                started.elapsed().as_secs_f64()
            })
            .collect();
        let (inverse, clusters) = dispersion_input(&sets, entrants, deals);
        let alone: Vec<f64> = (0..runs)
            .map(|_| {
                let started = Instant::now();
                black_box(dispersion::estimate(black_box(&inverse), &clusters));
                started.elapsed().as_secs_f64()
            })
            .collect();
        let (fit, alone) = (milliseconds(fit), milliseconds(alone));
        println!(
            "  {entrants:>5} entrants, {} sets, {label}: whole fit {}; dispersion alone {} \
             ({:.0}% of the fit's median)",
            sets.len(),
            fit.1,
            alone.1,
            100.0 * alone.0 / fit.0,
        );
    }
}

/// The median, least and most of `times`, in seconds.
fn summary(mut times: Vec<f64>) -> String {
    times.sort_by(f64::total_cmp);
    format!(
        "median {:.4} s (min {:.4}, max {:.4}, {} runs)",
        times[times.len() / 2],
        times[0],
        times[times.len() - 1],
        times.len()
    )
}

/// The median of `times` (seconds), and it with the least and most, in milliseconds.
fn milliseconds(mut times: Vec<f64>) -> (f64, String) {
    times.sort_by(f64::total_cmp);
    let ms = |t: f64| 1000.0 * t;
    let median = times[times.len() / 2];
    let shown = format!(
        "median {:.3} ms (min {:.3}, max {:.3}, {} runs)",
        ms(median),
        ms(times[0]),
        ms(times[times.len() - 1]),
        times.len()
    );
    (median, shown)
}

/// The resident memory of this process in KiB, from `/proc/self/status` (0 elsewhere).
fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:"));
    let digits = line.map(|l| l.chars().filter(char::is_ascii_digit).collect::<String>());
    digits.and_then(|d| d.parse().ok()).unwrap_or(0)
}

/// Folds `sets` duplicate pairs of 1,000 entrants (two games each) into one [`Sets`], printing
/// the process's resident memory as it goes: flat once the sets kept reach their cap.
fn memory(sets: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut folded = Sets::default();
    let before = resident_kib();
    let mut marks = vec![sets / 10, sets / 5, sets / 2, sets];
    marks.dedup();
    for key in 0..sets {
        let a = rng.random_range(0..1000);
        let b = (a + rng.random_range(1..1000)) % 1000;
        let (x, y) = (rng.random_range(1..3), rng.random_range(1..3));
        folded.add(
            key as u64,
            &[
                vec![(vec![a], x), (vec![b], 3 - x)],
                vec![(vec![b], 3 - y), (vec![a], y)],
            ],
        );
        if marks.contains(&(key + 1)) {
            println!(
                "  {:>9} games folded: resident memory +{} MiB (sets sampled: {})",
                2 * (key + 1),
                (resident_kib().saturating_sub(before)) / 1024,
                folded.sampled()
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let full = args.iter().any(|a| a == BENCH) && !args.iter().any(|a| a == SMOKE);
    if !args.iter().any(|a| a == DISPERSION_ONLY) {
        fit_and_memory(full);
    }
    println!("the deals' dispersion: a whole fit and the dispersion's estimate alone:");
    let costs: &[(usize, usize)] = match full {
        true => &[(10, 200), (100, 20), (1000, 3)],
        false => &[(10, 2)],
    };
    for &(entrants, runs) in costs {
        dispersion_cost(entrants, runs);
    }
}

/// The fit's times at ladder scale, cold and warm, and the memory of the sets it reads.
fn fit_and_memory(full: bool) {
    let sizes: &[(usize, usize)] = match full {
        true => &[(100, 20), (1000, 5)],
        false => &[(20, 2)],
    };
    println!("allfives ratings bench: batch fit, 2 players, random pairs, {GAMES_EACH} games each");
    if !full {
        println!("  SMOKE RUN (no --bench argument): figures are not meaningful; use cargo bench");
    }
    for &(entrants, runs) in sizes {
        let names: Vec<String> = (0..entrants).map(|e| format!("e{e}")).collect();
        let sets = ladder(entrants, 7);
        let all = folded(&sets, sets.len());
        // A ladder refitting after 5% more games.
        let before = batch::fit(
            &names,
            &folded(&sets, sets.len() * 95 / 100),
            Anchor::Mean(0.0),
        );
        let time = |warm: bool| -> Vec<f64> {
            (0..runs)
                .map(|_| {
                    let started = Instant::now();
                    match warm {
                        true => {
                            black_box(batch::fit_from(&names, &all, Anchor::Mean(0.0), &before))
                        }
                        false => black_box(batch::fit(&names, black_box(&all), Anchor::Mean(0.0))),
                    };
                    started.elapsed().as_secs_f64()
                })
                .collect()
        };
        println!(
            "  {entrants:>5} entrants, {} sets: cold fit {}",
            sets.len(),
            summary(time(false))
        );
        println!(
            "  {entrants:>5} entrants, warm start from 95% of the sets: {}",
            summary(time(true))
        );
    }
    println!("memory of the sets kept, 1,000 entrants, random pairs:");
    memory(if full { 500_000 } else { 2_000 });
}
