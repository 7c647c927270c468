//! The sequential test's error rates, by simulation: many tests run on pairs drawn from a
//! pentanomial distribution whose true Elo difference is known, each until it decides. When the
//! truth is elo0, accepting H1 must happen at most alpha of the time; when it is elo1, accepting
//! H0 at most beta of the time (docs/results.md records the large run's figures).

use rand::rngs::ChaCha8Rng;
use rand::{Rng, SeedableRng};

use super::pentanomial::score_of;
use super::sprt::{Hypothesis, SprtSpec, SprtTest};

/// How pairs of duplicate games split when both sides are equal: mostly one game each, as the
/// seats swap and the deal's luck cancels.
const EVEN_PAIRS: [f64; 5] = [0.06, 0.18, 0.52, 0.18, 0.06];

/// The distribution of pair scores with mean per game `s`: [`EVEN_PAIRS`] exponentially tilted,
/// `p_i ~ even_i exp(t a_i)`, t found by bisection (the mean rises with t).
fn pairs_with_mean(s: f64) -> [f64; 5] {
    let tilted = |t: f64| -> [f64; 5] {
        let w: [f64; 5] = std::array::from_fn(|i| EVEN_PAIRS[i] * (t * i as f64 / 4.0).exp());
        let sum: f64 = w.iter().sum();
        w.map(|x| x / sum)
    };
    let mean = |p: &[f64; 5]| (0..5).map(|i| p[i] * i as f64 / 4.0).sum::<f64>();
    let (mut low, mut high) = (-50.0, 50.0);
    for _ in 0..100 {
        let middle = 0.5 * (low + high);
        match mean(&tilted(middle)) < s {
            true => low = middle,
            false => high = middle,
        }
    }
    tilted(0.5 * (low + high))
}

/// One test on pairs drawn from `pairs`: the hypothesis accepted and the pairs it took (`None`
/// if it had not decided after `most` pairs).
fn run_one(
    spec: SprtSpec,
    pairs: &[f64; 5],
    most: u64,
    rng: &mut ChaCha8Rng,
) -> Option<(Hypothesis, u64)> {
    let mut test = SprtTest::new(spec);
    let mut counts = [0u64; 5];
    for _ in 0..most {
        // 53 random bits as a uniform number in [0, 1).
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let mut cell = 0;
        let mut below = pairs[0];
        while u >= below && cell < 4 {
            cell += 1;
            below += pairs[cell];
        }
        counts[cell] += 1;
        if let Some(d) = test.observe(counts) {
            return Some((d.accepted, d.pair));
        }
    }
    None
}

/// The error rate and mean pairs of `runs` tests when the truth is `truth` Elo: the share that
/// accepted `wrong`, and the mean pairs of all runs. Panics if a run never decides.
fn rate(spec: SprtSpec, truth: f64, wrong: Hypothesis, runs: u32, seed: u64) -> (f64, f64) {
    let pairs = pairs_with_mean(score_of(truth));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut errors, mut total) = (0u32, 0u64);
    for _ in 0..runs {
        let (accepted, used) =
            run_one(spec, &pairs, 1_000_000, &mut rng).expect("every test decides in time");
        errors += u32::from(accepted == wrong);
        total += used;
    }
    (
        f64::from(errors) / f64::from(runs),
        total as f64 / f64::from(runs),
    )
}

/// Asserts both error rates within three standard errors of a rate of exactly alpha (beta).
fn check(spec: SprtSpec, runs: u32) {
    let bound = |r: f64| r + 3.0 * (r * (1.0 - r) / f64::from(runs)).sqrt();
    let (false_h1, pairs0) = rate(spec, spec.elo0, Hypothesis::H1, runs, 1);
    let (false_h0, pairs1) = rate(spec, spec.elo1, Hypothesis::H0, runs, 2);
    eprintln!(
        "{spec:?}, {runs} runs each: truth elo0: H1 accepted {false_h1:.4}, mean pairs {pairs0:.1}; truth elo1: H0 accepted {false_h0:.4}, mean pairs {pairs1:.1}"
    );
    assert!(false_h1 <= bound(spec.alpha), "H1 under elo0: {false_h1}");
    assert!(false_h0 <= bound(spec.beta), "H0 under elo1: {false_h0}");
}

#[test]
fn the_tilted_pairs_have_the_asked_mean() {
    for elo in [-100.0, 0.0, 10.0, 300.0] {
        let p = pairs_with_mean(score_of(elo));
        let mean: f64 = (0..5).map(|i| p[i] * i as f64 / 4.0).sum();
        assert!((mean - score_of(elo)).abs() < 1e-12);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
}

#[test]
fn error_rates_stay_within_alpha_and_beta() {
    // A wide gap keeps the runs short enough for a debug build (about 40 pairs each).
    let spec = SprtSpec::parse("elo0=0,elo1=50,alpha=0.05,beta=0.05").expect("valid");
    check(spec, 2000);
}

/// The first figures of docs/results.md: `cargo test --release --lib sprt_error_rates_large --
/// --ignored --nocapture` runs this and the next.
#[test]
#[ignore = "minutes in release; run by hand for docs/results.md"]
fn sprt_error_rates_large_equal_rates() {
    check(
        SprtSpec::parse("elo0=0,elo1=10,alpha=0.05,beta=0.05").expect("valid"),
        10_000,
    );
}

/// The second figures of docs/results.md: unequal error rates.
#[test]
#[ignore = "minutes in release; run by hand for docs/results.md"]
fn sprt_error_rates_large_unequal_rates() {
    check(
        SprtSpec::parse("elo0=0,elo1=20,alpha=0.05,beta=0.1").expect("valid"),
        10_000,
    );
}
