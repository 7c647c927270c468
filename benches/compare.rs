//! Games saved by `compare`'s paired points test against the pentanomial SPRT on the same games.
//!
//! `cargo bench --bench compare` (a plain `main`, no harness) plays builtin games straight
//! through the engine (`referee::builtin_game`, seeded as the referee seeds them): OLD is
//! `mix:0.3`, NEW a `mix:P` some Elo stronger head to head, each against `builtin:greedy` in
//! both seats of every deal with the same seeds, as `compare` plays them. First it measures, on
//! deals of their own, each pair's head-to-head Elo (duplicate pairs of NEW against OLD) and the
//! two tests' true effects (the mean points difference per deal; the pentanomial Elo of the
//! compare pairs); each test's H1 is set to its true effect (both told the truth, alpha = beta =
//! 0.05). Then, over RUNS runs on fresh deals, it reads the deals one by one into both tests
//! until both decide (or CAP deals) and prints the deals each needed (mean, median) and how
//! often each accepted H1. Under H0 NEW is `mix:0.3` drawing from another random stream (equal
//! strength, other moves), with the H1s of each pair: the false positive rates.
//!
//! It also measures, on the calibration deals, H0's own mean points difference (0 by symmetry:
//! the two streams are alike).
//!
//! Without `--bench` (`cargo test --benches`), or with `--smoke`, a smoke run whose figures mean
//! nothing; `--size CALIBRATION,RUNS,CAP` (deals to measure the true effects on, runs a case,
//! most deals a run) sizes it (default 20000,60,20000). A long measure runs in parts: `--pair
//! 20` or `--pair 40` plays one pair, `--first R` starts at run R (each run's deals are its own,
//! so runs 0-99 then 100-199 are runs 0-199), and every run prints a `run` line (pair, case, run,
//! then each test's deals and decision, `h1`, `h0` or `open`) for tallying parts together.
//! `--resample R` also runs the points test alone, as `compare --sprt` runs it and as it ran
//! before (Wald's LLR with the variance plugged in), R times a case on deals drawn with
//! replacement from the calibration deals (H0's centred on 0): many runs, cheap, for its error
//! rates alone.

use allfives::bot::builtin::Builtin;
use allfives::compare::summary::{self, Running, SequentialSpec};
use allfives::referee::builtin_game::{self, Scratch};
use allfives::tournament::ratings::pentanomial;
use allfives::tournament::ratings::sprt::{self, SprtSpec};
use allfives::tournament::seeds::derive;
use allfives_engine::rules::Rules;

/// OLD's chance of a random move.
const OLD: f64 = 0.3;

/// A version: its chance of a random move, and whether it draws from its own random stream.
#[derive(Clone, Copy)]
struct Version {
    p: f64,
    own_stream: bool,
}

/// What one deal gives: NEW's margin minus OLD's over both seats, and the two game pairs'
/// pentanomial cells (NEW's result plus OLD's opponent's, in half points).
fn deal(old: Version, new: Version, seed: u64, scratch: &mut Scratch) -> (f64, [usize; 2]) {
    let mut diff = 0i64;
    let mut cells = [0; 2];
    for (seat, cell) in cells.iter_mut().enumerate() {
        let mut margin_and_half = |v: Version| {
            let make = |s: usize, bot_seed: u64| match s == seat {
                true => Builtin::mix(v.p, bot_seed ^ if v.own_stream { 0x5eed } else { 0 }),
                false => Builtin::new("greedy", bot_seed).expect("greedy"),
            };
            let r = builtin_game::play(Rules::new(2), seed, make, scratch).expect("valid rules");
            let margin = i64::from(r.scores[seat]) - i64::from(r.scores[1 - seat]);
            let half = match (r.ranks[seat], r.ranks[1 - seat]) {
                (1, 1) => 1,
                (1, _) => 2,
                _ => 0,
            };
            (margin, half)
        };
        let (old_margin, old_half) = margin_and_half(old);
        let (new_margin, new_half) = margin_and_half(new);
        diff += new_margin - old_margin;
        *cell = new_half + 2 - old_half;
    }
    (diff as f64, cells)
}

/// The head-to-head Elo of `new` over `old` from `pairs` duplicate pairs.
fn head_to_head(old: Version, new: Version, pairs: u64, scratch: &mut Scratch) -> f64 {
    let mut counts = [0u64; 5];
    for d in 0..pairs {
        let seed = derive(0xe10, d);
        let mut half = 0;
        for seat in 0..2 {
            let make = |s: usize, bot_seed: u64| {
                Builtin::mix(if s == seat { new.p } else { old.p }, bot_seed)
            };
            let r = builtin_game::play(Rules::new(2), seed, make, scratch).expect("valid rules");
            half += match (r.ranks[seat], r.ranks[1 - seat]) {
                (1, 1) => 1,
                (1, _) => 2,
                _ => 0,
            };
        }
        counts[half] += 1;
    }
    pentanomial::elo("new", "old", counts)
        .elo
        .unwrap_or(f64::NAN)
}

/// The two tests' true effects: each deal's points difference (their mean is the points test's)
/// and the pairs' Elo; and each test's effect over its spread per deal (mean / sd of the deal's
/// points difference; of the deal's pair score, from 1/2), whose squared ratio is the ratio of
/// the deals the two need at the same error rates (Wald's average sample number, for small
/// effects).
fn effects(
    old: Version,
    new: Version,
    deals: u64,
    scratch: &mut Scratch,
) -> (Vec<f64>, f64, f64, f64) {
    let (mut points, mut scores, mut counts) = (Vec::new(), Vec::new(), [0u64; 5]);
    for d in 0..deals {
        let (x, cells) = deal(old, new, derive(0xeff, d), scratch);
        points.push(x);
        scores.push((cells[0] + cells[1]) as f64 / 8.0 - 0.5);
        cells.iter().for_each(|&c| counts[c] += 1);
    }
    let elo = pentanomial::elo("new", "old", counts)
        .elo
        .unwrap_or(f64::NAN);
    let z = |xs: &[f64]| {
        let m = summary::t_interval(xs);
        m.mean / m.sd.unwrap_or(f64::NAN)
    };
    let (z_points, z_scores) = (z(&points), z(&scores));
    (points, elo, z_points, z_scores)
}

/// The points test `compare --sprt` ran before, kept to measure against: Wald's LLR with the
/// variance plugged in about the deals' own mean, (delta S - n delta^2 / 2) / v, from the 10th
/// deal: (deals read, decision).
fn plug_in(delta: f64, deals: impl Iterator<Item = f64>) -> (u64, Option<bool>) {
    let (lower, upper) = ((0.05f64 / 0.95).ln(), (0.95f64 / 0.05).ln());
    let (mut n, mut sum, mut squares) = (0.0, 0.0, 0.0);
    for x in deals {
        (n, sum, squares) = (n + 1.0, sum + x, squares + x * x);
        let var = (squares - sum * sum / n) / n;
        if n < 10.0 || var <= 0.0 {
            continue;
        }
        let llr = (delta * sum - n * delta * delta / 2.0) / var;
        if llr <= lower || llr >= upper {
            return (n as u64, Some(llr >= upper));
        }
    }
    (n as u64, None)
}

/// The points test as `compare --sprt` runs it: (deals read, decision).
fn generalized(delta: f64, deals: impl Iterator<Item = f64>) -> (u64, Option<bool>) {
    let mut test = Running::new(SequentialSpec {
        delta,
        alpha: 0.05,
        beta: 0.05,
    });
    let mut read = 0;
    for x in deals {
        read += 1;
        if let Some(said) = test.observe(x) {
            return (read, Some(said));
        }
    }
    (read, None)
}

/// The points test alone, now and before, over `runs` runs on deals drawn with replacement from
/// `pool` (at most `cap` a run), told H1 `delta`: a line of each one's wrong decisions (when
/// `truth` is H1, H0 accepted; else H1) and mean deals.
fn resampled(pool: &[f64], delta: f64, truth: bool, runs: u64, cap: u64) -> String {
    let draw = |run: u64| {
        (0..cap).map(move |k| pool[(derive(0x5a3 ^ run, k) % pool.len() as u64) as usize])
    };
    let tally = |test: &dyn Fn(u64) -> (u64, Option<bool>)| {
        let results: Vec<_> = (0..runs).map(test).collect();
        let wrong = results.iter().filter(|r| r.1 == Some(!truth)).count() as f64;
        let p = wrong / runs as f64;
        let mean = results.iter().map(|r| r.0).sum::<u64>() as f64 / runs as f64;
        let se = (p * (1.0 - p) / runs as f64).sqrt();
        format!(
            "wrong {:.2}% +- {:.2}, mean {mean:.0} deals",
            100.0 * p,
            100.0 * se
        )
    };
    format!(
        "generalized SPRT {}; plug-in {}",
        tally(&|r| generalized(delta, draw(r))),
        tally(&|r| plug_in(delta, draw(r)))
    )
}

/// One run: (deals the points test read, its decision, deals the SPRT read, its decision).
fn run(
    old: Version,
    new: Version,
    h1: (f64, f64),
    seed: u64,
    cap: u64,
    scratch: &mut Scratch,
) -> [(u64, Option<bool>); 2] {
    let spec = SequentialSpec {
        delta: h1.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let penta = SprtSpec {
        elo0: 0.0,
        elo1: h1.1,
        alpha: 0.05,
        beta: 0.05,
    };
    let mut points = Running::new(spec);
    let (mut counts, mut decided) = ([0u64; 5], [(0, None); 2]);
    for d in 0..cap {
        let (x, cells) = deal(old, new, derive(seed, d), scratch);
        if decided[0].1.is_none() {
            decided[0] = (d + 1, points.observe(x));
        }
        cells.iter().for_each(|&c| counts[c] += 1);
        if decided[1].1.is_none() {
            let llr = sprt::llr(&penta, counts);
            let said = (llr >= penta.upper())
                .then_some(true)
                .or((llr <= penta.lower()).then_some(false));
            decided[1] = (d + 1, said);
        }
        if decided.iter().all(|t| t.1.is_some()) {
            break;
        }
    }
    decided
}

/// Mean and median of `deals`, and the share of runs that accepted H1 (undecided runs apart).
fn said(runs: &[(u64, Option<bool>)]) -> String {
    let mut deals: Vec<u64> = runs.iter().map(|r| r.0).collect();
    deals.sort_unstable();
    let mean = deals.iter().sum::<u64>() as f64 / deals.len() as f64;
    let h1 = runs.iter().filter(|r| r.1 == Some(true)).count();
    let open = runs.iter().filter(|r| r.1.is_none()).count();
    format!(
        "mean {mean:7.1} median {:5} deals; H1 in {h1}/{} runs ({open} undecided)",
        deals[deals.len() / 2],
        runs.len()
    )
}

/// A decision as a word.
fn word(decision: Option<bool>) -> &'static str {
    match decision {
        Some(true) => "h1",
        Some(false) => "h0",
        None => "open",
    }
}

/// The value after `flag` on the command line, if any.
fn option<'a>(args: &'a [String], flag: &str) -> Option<&'a String> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let smoke = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--smoke");
    // `--size CALIBRATION,RUNS,CAP` sizes a run to a loaded machine.
    let sized: Option<Vec<u64>> =
        option(&args, "--size").map(|s| s.split(',').filter_map(|n| n.parse().ok()).collect());
    let (calibration, runs, cap) = match sized.as_deref() {
        Some(&[calibration, runs, cap]) => (calibration, runs, cap),
        _ if smoke => (200, 3, 200),
        _ => (20_000, 60, 20_000),
    };
    let first: u64 = option(&args, "--first").map_or(0, |s| s.parse().expect("--first R"));
    let resample: u64 = option(&args, "--resample").map_or(0, |s| s.parse().expect("--resample R"));
    let pairs: Vec<(&str, f64)> = [("20", 0.27), ("40", 0.24)]
        .into_iter()
        .filter(|(name, _)| option(&args, "--pair").is_none_or(|p| p == name))
        .collect();
    let mut scratch = Scratch::default();
    let old = Version {
        p: OLD,
        own_stream: false,
    };
    let h0 = Version {
        p: OLD,
        own_stream: true,
    };
    println!(
        "OLD mix:{OLD}; opponents builtin:greedy; 2 players; runs {first}..{} a case, at most {cap} deals a run",
        first + runs
    );
    let (h0_points, ..) = effects(old, h0, calibration, &mut scratch);
    let h0_mean = summary::t_interval(&h0_points);
    println!(
        "H0 (mix:{OLD}, another stream): mean points difference {:+.3} +- {:.3} a deal over {calibration} deals",
        h0_mean.mean,
        h0_mean.sd.unwrap_or(f64::NAN) / (calibration as f64).sqrt()
    );
    // The pool of H0 deals for resampling, centred: its true mean is 0 (the symmetry above).
    let h0_pool: Vec<f64> = h0_points.iter().map(|x| x - h0_mean.mean).collect();
    for (name, new_p) in pairs {
        let new = Version {
            p: new_p,
            own_stream: false,
        };
        let elo = head_to_head(old, new, calibration, &mut scratch);
        let (deals, pairs, z_points, z_pairs) = effects(old, new, calibration, &mut scratch);
        let points = summary::t_interval(&deals).mean;
        let h1 = (points, pairs);
        println!(
            "\nNEW mix:{new_p}: head to head {elo:+.1} Elo; true effects {points:+.2} points a deal, pairs' Elo {pairs:+.2}"
        );
        println!(
            "  effect/sd per deal: points {z_points:.4}, pair score {z_pairs:.4}: the points test needs {:.2} of the deals (Wald's ASN)",
            (z_pairs / z_points).powi(2)
        );
        if resample > 0 {
            for (case, pool, truth) in [("H1", &deals, true), ("H0", &h0_pool, false)] {
                let line = resampled(pool, points, truth, resample, cap);
                println!("  resampled {case}, {resample} runs: {line}");
            }
        }
        for (case, version) in [("H1", new), ("H0", h0)] {
            if runs == 0 {
                continue;
            }
            let results: Vec<[(u64, Option<bool>); 2]> = (first..first + runs)
                .map(|r| run(old, version, h1, 0xbe9c + r, cap, &mut scratch))
                .collect();
            for (r, [p, s]) in (first..).zip(&results) {
                println!(
                    "run {name} {case} {r} {} {} {} {}",
                    p.0,
                    word(p.1),
                    s.0,
                    word(s.1)
                );
            }
            let points: Vec<_> = results.iter().map(|r| r[0]).collect();
            let penta: Vec<_> = results.iter().map(|r| r[1]).collect();
            println!(
                "  {case}\n    points test:      {}\n    pentanomial SPRT: {}",
                said(&points),
                said(&penta)
            );
        }
    }
}
