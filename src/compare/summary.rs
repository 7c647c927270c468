//! The paired statistics of a comparison, each by a published method. Pure.
//!
//! - The mean paired points difference per deal: a Student t interval over deals (each deal's
//!   difference is the sum over its games, so the deals are the independent units).
//! - Result pairs: per pair of games, NEW's result plus OLD's opponent's (2 minus OLD's half
//!   points), in half points from 0 to 4: the pentanomial counts of a duplicate match of NEW
//!   against OLD through the same opponents, read by [`pentanomial::elo`] (fastchess's method).
//! - The sequential test: the generalized SPRT on the per-deal points differences under a
//!   normal model, H0 mean 0 against H1 mean `delta`, the variance a nuisance parameter taken at
//!   its maximum likelihood under each hypothesis: LLR = n/2 ln(s0 / s1), `s_i` the mean squared
//!   distance of the deals from hypothesis `i`'s mean (M. Van den Bergh's GSPRT, the one the
//!   pentanomial test uses, for the normal family); Wald's bounds; checked after each deal in
//!   deal order from the 10th, latched at the first bound crossed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tournament::ratings::normal::clean;
use crate::tournament::ratings::student::student_quantile;

/// A mean with its 95% interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Mean {
    /// The mean.
    pub mean: f64,
    /// The sample standard deviation; absent below 2 values.
    pub sd: Option<f64>,
    /// The 95% interval, mean +- t(0.975, n-1) sd / sqrt(n); absent below 2 values.
    pub interval: Option<(f64, f64)>,
    /// The values.
    pub n: u64,
    /// How the interval is made.
    pub method: String,
}

/// The mean of `values` with its Student t interval.
pub fn t_interval(values: &[f64]) -> Mean {
    let n = values.len() as f64;
    let mean = if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / n
    };
    let sd = (values.len() >= 2).then(|| {
        let ss: f64 = values.iter().map(|x| (x - mean).powi(2)).sum();
        (ss / (n - 1.0)).sqrt()
    });
    let interval = sd.map(|sd| {
        let half = student_quantile(0.975, n - 1.0) * sd / n.sqrt();
        (clean(mean - half), clean(mean + half))
    });
    Mean {
        mean: clean(mean),
        sd: sd.map(clean),
        interval,
        n: values.len() as u64,
        method: "Student t interval over deals".into(),
    }
}

/// Pentanomial counts of game pairs from (OLD's, NEW's) results in half points.
pub fn pentanomial(results: impl IntoIterator<Item = (u8, u8)>) -> [u64; 5] {
    let mut counts = [0; 5];
    for (old, new) in results {
        counts[usize::from(new + 2 - old.min(2))] += 1;
    }
    counts
}

/// The sequential test's hypotheses and error rates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SequentialSpec {
    /// H1's mean paired points difference per deal (H0's is 0).
    pub delta: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
}

impl SequentialSpec {
    /// `DELTA` or `delta=D,alpha=A,beta=B` (alpha and beta 0.05 unless given).
    pub fn parse(text: &str) -> Result<SequentialSpec, String> {
        let mut spec = SequentialSpec {
            delta: f64::NAN,
            alpha: 0.05,
            beta: 0.05,
        };
        for part in text.split(',') {
            let (key, value) = part.split_once('=').unwrap_or(("delta", part));
            let value: f64 = value.trim().parse().map_err(|_| {
                format!("{part:?} is not a number; write e.g. delta=2,alpha=0.05,beta=0.05")
            })?;
            match key.trim() {
                "delta" => spec.delta = value,
                "alpha" => spec.alpha = value,
                "beta" => spec.beta = value,
                other => return Err(format!("{other:?} is not delta, alpha or beta")),
            }
        }
        let rate = |x: f64| x > 0.0 && x < 0.5;
        let valid =
            spec.delta.is_finite() && spec.delta != 0.0 && rate(spec.alpha) && rate(spec.beta);
        if !valid {
            return Err("the test needs a delta other than 0 (points per deal) and alpha and beta between 0 and 0.5".into());
        }
        Ok(spec)
    }
}

/// Where the sequential test stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Sequential {
    /// Its hypotheses.
    pub spec: SequentialSpec,
    /// The bounds: accept H0 at or below `lower`, H1 at or above `upper`.
    pub lower: f64,
    /// See `lower`.
    pub upper: f64,
    /// The log-likelihood ratio after the last deal read (or at the decision).
    pub llr: f64,
    /// `h0`, `h1` or `continue`.
    pub decision: String,
    /// The deals it read to decide (all of them when it did not).
    pub deals: u64,
    /// The method, in words.
    pub method: String,
}

impl Sequential {
    /// A note for a test still undecided while the points interval `interval` lies wholly
    /// beyond both of its hypotheses: the generalized SPRT reads such deals as fitting neither
    /// (the spread taken under each absorbs the misfit), so it gains little a deal there, and a
    /// `delta` nearer the effect decides sooner.
    pub fn slow_note(&self, interval: Option<(f64, f64)>) -> Option<String> {
        let (low, high) = interval?;
        let delta = self.spec.delta;
        let beyond = low > delta.max(0.0) || high < delta.min(0.0);
        (self.decision == "continue" && beyond).then(|| {
            format!(
                "note: the points interval lies beyond both hypotheses (0 and {delta:+}): there the test gains little a deal and decides slowly; a delta nearer the effect (--sprt {:.0}) decides sooner",
                (low + high) / 2.0
            )
        })
    }
}

/// The test as it reads deals one at a time (what [`sequential`] runs, and a simulation can).
#[derive(Debug, Clone, Copy)]
pub struct Running {
    spec: SequentialSpec,
    lower: f64,
    upper: f64,
    sum: f64,
    squares: f64,
    read: u64,
    llr: f64,
}

impl Running {
    /// The test before any deal.
    pub fn new(spec: SequentialSpec) -> Running {
        Running {
            spec,
            lower: (spec.beta / (1.0 - spec.alpha)).ln(),
            upper: ((1.0 - spec.beta) / spec.alpha).ln(),
            sum: 0.0,
            squares: 0.0,
            read: 0,
            llr: 0.0,
        }
    }

    /// Reads the next deal's difference `x`: `Some(true)` once it accepts H1, `Some(false)` H0.
    pub fn observe(&mut self, x: f64) -> Option<bool> {
        self.sum += x;
        self.squares += x * x;
        self.read += 1;
        let n = self.read as f64;
        // Deals all alike say nothing of the spread: no decision on them.
        let var = (self.squares - self.sum * self.sum / n) / n;
        if self.read < 10 || var <= 0.0 {
            return None;
        }
        // Not the plug-in (delta S - n delta^2 / 2) / var: its variance about the deals' own
        // mean is smaller than about either hypothesis', which made early crossings too easy
        // (docs/benchmarks.md, "Games saved": 6.5% of wrong H0s for a nominal 5%).
        let delta = self.spec.delta;
        let about_h0 = self.squares / n;
        let about_h1 = about_h0 - 2.0 * delta * self.sum / n + delta * delta;
        self.llr = n / 2.0 * (about_h0 / about_h1).ln();
        match (self.llr <= self.lower, self.llr >= self.upper) {
            (true, _) => Some(false),
            (_, true) => Some(true),
            _ => None,
        }
    }
}

/// The test run over the per-deal differences `deals`, in order, stopping at its decision.
pub fn sequential(spec: SequentialSpec, deals: &[f64]) -> Sequential {
    let mut test = Running::new(spec);
    let decided = deals.iter().find_map(|&x| test.observe(x));
    Sequential {
        spec,
        lower: clean(test.lower),
        upper: clean(test.upper),
        llr: clean(test.llr),
        decision: match decided {
            Some(true) => "h1",
            Some(false) => "h0",
            None => "continue",
        }
        .into(),
        deals: test.read,
        method: "generalized SPRT on the per-deal points difference, normal model, the variance at its maximum likelihood under each hypothesis, Wald's bounds, from the 10th deal".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_t_interval_by_hand() {
        // Mean 2, sd 1.5811, t(0.975, 4) = 2.7764: half width 1.9632.
        let m = t_interval(&[0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(m.mean, 2.0);
        let (lo, hi) = m.interval.expect("an interval");
        assert!(
            (lo - 0.0368).abs() < 1e-3 && (hi - 3.9632).abs() < 1e-3,
            "{lo} {hi}"
        );
    }

    #[test]
    fn pentanomial_counts_new_against_old() {
        // NEW wins where OLD lost: 4; the same results: 2; NEW loses where OLD won: 0.
        assert_eq!(
            pentanomial([(0, 2), (2, 2), (2, 0), (1, 2)]),
            [1, 0, 1, 1, 1]
        );
    }

    #[test]
    fn the_sequential_test_decides_a_clear_shift_and_parses() {
        let spec = SequentialSpec::parse("delta=5").expect("a spec");
        let shifted: Vec<f64> = (0..400)
            .map(|i| 10.0 + if i % 2 == 0 { 20.0 } else { -20.0 })
            .collect();
        let test = sequential(spec, &shifted);
        assert_eq!(test.decision, "h1");
        assert!(test.deals < 400);
        let none: Vec<f64> = (0..400)
            .map(|i| if i % 2 == 0 { 20.0 } else { -20.0 })
            .collect();
        assert_eq!(sequential(spec, &none).decision, "h0");
        assert!(SequentialSpec::parse("delta=0").is_err());
    }

    #[test]
    fn the_sequential_llr_by_hand() {
        // Five deals of +14 and five of -6, delta 5: n = 10, sum 40, sum of squares 1160;
        // about H0 1160/10 = 116, about H1 (1160 - 400 + 250)/10 = 101: LLR 5 ln(116/101).
        let deals: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 14.0 } else { -6.0 })
            .collect();
        let spec = SequentialSpec::parse("delta=5").expect("a spec");
        let test = sequential(spec, &deals);
        assert!((test.llr - 0.692_35).abs() < 1e-4, "{}", test.llr);
        assert_eq!((test.decision.as_str(), test.deals), ("continue", 10));
        // Deals all alike: no decision, however many.
        assert_eq!(sequential(spec, &[3.0; 50]).decision, "continue");
        assert!(SequentialSpec::parse("x=1").is_err());
    }

    #[test]
    fn an_undecided_test_far_beyond_both_hypotheses_says_so() {
        // NEW some 350 points a deal better, spread 70, told delta 5: the LLR is 2.8 after 200
        // deals, short of the bound, and the note says why and what to do.
        let spec = SequentialSpec::parse("delta=5").expect("a spec");
        let far: Vec<f64> = (0..200).map(|i| [280.0, 420.0][i % 2]).collect();
        let test = sequential(spec, &far);
        assert_eq!(test.decision, "continue");
        let note = test.slow_note(Some((340.0, 360.0))).expect("a note");
        assert!(note.contains("--sprt 350"), "{note}");
        assert_eq!(test.slow_note(Some((-1.0, 360.0))), None);
        let near = sequential(spec, &[2.0, 8.0].repeat(5));
        assert_eq!(near.slow_note(Some((0.5, 9.5))), None);
    }
}
