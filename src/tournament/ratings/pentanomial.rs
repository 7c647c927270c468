//! Two entrants' Elo difference with a 95% interval and the likelihood of superiority (LOS),
//! from the pentanomial counts of their duplicate pairs (a pair scores 0, 0.5, 1, 1.5 or 2), as
//! fastchess computes them (`src/matchmaking/elo/elo_pentanomial.cpp`), so that the luck of the
//! deal is not counted as noise twice.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::normal::{clean, normal_cdf};

/// The Elo difference between two entrants from their duplicate pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Elo {
    /// The first entrant's name.
    pub first: String,
    /// The second entrant's name.
    pub second: String,
    /// Pairs in which the first scored 0, 0.5, 1, 1.5 and 2 (of 2).
    pub pentanomial: [u64; 5],
    /// The first's mean score per game, from 0 to 1.
    pub score: f64,
    /// The Elo difference (first minus second); absent when one side won every pair.
    pub elo: Option<f64>,
    /// Its 95% interval; absent with fewer than 2 pairs or no spread.
    pub interval: Option<(f64, f64)>,
    /// The likelihood that the first is the stronger, from 0 to 1.
    pub los: Option<f64>,
}

/// The mean and variance of a pair's score per game (0, 1/4, 1/2, 3/4, 1), and the pair count.
fn moments(counts: &[u64; 5]) -> (f64, f64, f64) {
    let n: u64 = counts.iter().sum();
    let n = n as f64;
    let x = |i: usize| i as f64 / 4.0;
    let mean = (0..5).map(|i| counts[i] as f64 * x(i)).sum::<f64>() / n;
    let var = (0..5)
        .map(|i| counts[i] as f64 * (x(i) - mean).powi(2))
        .sum::<f64>()
        / n;
    (mean, var, n)
}

/// The Elo difference of a mean score (logistic).
fn elo_of(score: f64) -> Option<f64> {
    (score > 0.0 && score < 1.0).then(|| -400.0 * (1.0 / score - 1.0).log10())
}

/// The expected score of an Elo difference.
pub(crate) fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of `first` over `second` from their pentanomial counts.
pub fn elo(first: &str, second: &str, counts: [u64; 5]) -> Elo {
    let (score, var, n) = moments(&counts);
    let se = (var / n).sqrt();
    let spread = n >= 2.0 && se > 0.0;
    // An end past a score of 0 or 1 is shown as -3600 or +3600 exactly (docs/results.md).
    let end = |s: f64| match elo_of(s) {
        Some(e) => clean(e.clamp(-3600.0, 3600.0)),
        None if s < 0.5 => -3600.0,
        None => 3600.0,
    };
    Elo {
        first: first.to_string(),
        second: second.to_string(),
        pentanomial: counts,
        score: clean(score),
        elo: elo_of(score).map(clean),
        interval: spread.then(|| (end(score - 1.96 * se), end(score + 1.96 * se))),
        los: spread.then(|| clean(normal_cdf((score - 0.5) / se))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pentanomial_elo_by_hand() {
        // 10 pairs: 1 lost both, 2 scored 0.5, 3 scored 1, 3 scored 1.5, 1 won both.
        // Per game: mean = (0 + 2*.25 + 3*.5 + 3*.75 + 1) / 10 = 0.525.
        // Variance = (.525^2 + 2*.275^2 + 3*.025^2 + 3*.225^2 + .475^2) / 10 = 0.080625.
        let e = elo("a", "b", [1, 2, 3, 3, 1]);
        assert!((e.score - 0.525).abs() < 1e-12);
        // Elo = -400 log10(1/0.525 - 1) = 17.39.
        assert!((e.elo.expect("finite") - 17.39).abs() < 0.01, "{e:?}");
        // se = sqrt(0.080625 / 10) = 0.089791; 95%: 0.525 -+ 0.17599 = 0.34901 .. 0.70099,
        // -400 log10(1/0.34901 - 1) = -108.28 and -400 log10(1/0.70099 - 1) = 148.0.
        let (low, high) = e.interval.expect("an interval");
        assert!((low - (-108.28)).abs() < 0.1, "{low}");
        assert!((high - 148.0).abs() < 0.1, "{high}");
        // LOS = Phi(0.025 / 0.089791) = Phi(0.27842) = 0.6097.
        assert!((e.los.expect("a LOS") - 0.6097).abs() < 1e-3);
    }

    #[test]
    fn even_scores_print_cleanly() {
        // Issue 18: an even score gave elo -0.0 and LOS 0.5000000005; an end past a score of 0
        // gave -3599.99999982 where the docs say -3600.
        let even = elo("a", "b", [1, 0, 0, 0, 1]);
        assert_eq!(serde_json::to_string(&even.elo).expect("JSON"), "0.0");
        assert_eq!(even.los, Some(0.5));
        let low = elo("a", "b", [2, 0, 0, 0, 1]);
        assert_eq!(low.interval.map(|(l, _)| l), Some(-3600.0), "{low:?}");
        let high = elo("a", "b", [1, 0, 0, 0, 2]);
        assert_eq!(high.interval.map(|(_, h)| h), Some(3600.0), "{high:?}");
    }
}
