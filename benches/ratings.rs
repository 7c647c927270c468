//! The batch fit's speed at ladder scale.
//!
//! `cargo bench --bench ratings` (a plain `main`, no harness) fits the batch ratings of 100 and
//! 1,000 entrants at 2 players, each entrant in about 20 games against random opponents (duplicate
//! pairs of two games, results drawn from Bradley-Terry with graded true strengths, a fixed seed),
//! and prints the time of each fit (cold, and warm-started from a fit of 95% of the sets); then
//! folds 1,000,000 games of 1,000 entrants into the sets the fit reads and prints the process's
//! resident memory on the way. Results are described in `docs/benchmarks.md`.
//!
//! Without the `--bench` argument that `cargo bench` passes (e.g. under `cargo test --benches`),
//! or with `--smoke`, it does a smoke run at 20 entrants whose figures mean nothing.

use std::hint::black_box;
use std::time::Instant;

use allfives::tournament::ratings::{Anchor, Sets, batch};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// The argument `cargo bench` passes; without it (`cargo test --benches`) the run is a smoke test.
const BENCH: &str = "--bench";
/// Argument that makes a run a short smoke test.
const SMOKE: &str = "--smoke";

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

/// The first `count` of `sets`, folded in.
fn folded(sets: &[Set], count: usize) -> Sets {
    let mut folded = Sets::default();
    for (key, set) in sets[..count].iter().enumerate() {
        folded.add(key as u64, set);
    }
    folded
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
