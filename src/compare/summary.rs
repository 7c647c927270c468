//! The paired statistics of a comparison, each by a published method. Pure.
//!
//! - The mean paired points difference per deal: a Student t interval over deals (each deal's
//!   difference is the sum over its games, so the deals are the independent units).
//! - Result pairs: per pair of games, NEW's result plus OLD's opponent's (2 minus OLD's half
//!   points), in half points from 0 to 4: the pentanomial counts of a duplicate match of NEW
//!   against OLD through the same opponents, read by [`pentanomial::elo`] (fastchess's method).
//! - The sequential test: Wald's SPRT on the per-deal points differences under a normal model,
//!   H0 mean 0 against H1 mean `delta`, the variance estimated from the deals so far (the
//!   normal-approximation GSPRT that fishtest uses for its normalized Elo); checked after each
//!   deal in deal order from the 10th, latched at the first bound crossed.

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
        let var = (self.squares - self.sum * self.sum / n) / n;
        if self.read < 10 || var <= 0.0 {
            return None;
        }
        let delta = self.spec.delta;
        self.llr = (delta * self.sum - n * delta * delta / 2.0) / var;
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
        method: "Wald's SPRT on the per-deal points difference, normal model, variance estimated from the deals so far, from the 10th deal".into(),
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
        assert!(SequentialSpec::parse("x=1").is_err());
    }
}
