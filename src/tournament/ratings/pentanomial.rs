//! Two entrants' Elo difference. Two players: the Elo difference with a 95% interval, the likelihood of superiority
//! (LOS) and the SPRT, from the pentanomial counts of duplicate pairs (a pair scores 0, 0.5, 1,
//! 1.5 or 2), as chess engine testers compute them, so that the luck of the deal is not counted
//! as noise twice. More players or teams: Weng-Lin ratings (skillratings) over complete
//! duplicate sets, taken in a fixed order (deal, then group) so that the same results give the
//! same ratings whatever order the games finished in.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

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
    let clamp = |s: f64| s.clamp(1e-9, 1.0 - 1e-9);
    Elo {
        first: first.to_string(),
        second: second.to_string(),
        pentanomial: counts,
        score,
        elo: elo_of(score),
        interval: spread.then(|| {
            let low = elo_of(clamp(score - 1.96 * se)).unwrap_or(f64::NEG_INFINITY);
            let high = elo_of(clamp(score + 1.96 * se)).unwrap_or(f64::INFINITY);
            (low, high)
        }),
        los: spread.then(|| normal_cdf((score - 0.5) / se)),
    }
}

/// The standard normal distribution function.
fn normal_cdf(z: f64) -> f64 {
    0.5 * (1.0 + erf(z / std::f64::consts::SQRT_2))
}

/// The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}

/// A Weng-Lin rating.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rating {
    /// The entrant's name.
    pub name: String,
    /// The rating (mu), 25 at the start.
    pub rating: f64,
    /// Its uncertainty (sigma), 25/3 at the start.
    pub uncertainty: f64,
}

/// One game of a complete set for the ratings: each side's entrants and rank.
pub type RatedGame = Vec<(Vec<usize>, u32)>;

/// Weng-Lin ratings of `entrants` entrants from complete sets, each `(deal, group, games)`.
pub fn weng_lin(names: &[String], mut sets: Vec<(u64, Vec<usize>, Vec<RatedGame>)>) -> Vec<Rating> {
    sets.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let config = WengLinConfig::new();
    let mut ratings = vec![WengLinRating::new(); names.len()];
    for (_, _, games) in &sets {
        for game in games {
            let teams: Vec<Vec<WengLinRating>> = game
                .iter()
                .map(|(members, _)| members.iter().map(|&e| ratings[e]).collect())
                .collect();
            let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(game)
                .map(|(team, (_, rank))| (&team[..], MultiTeamOutcome::new(*rank as usize)))
                .collect();
            let updated = weng_lin_multi_team(&ranked, &config);
            for ((members, _), new) in game.iter().zip(updated) {
                for (&e, r) in members.iter().zip(new) {
                    ratings[e] = r;
                }
            }
        }
    }
    names
        .iter()
        .zip(ratings)
        .map(|(name, r)| Rating {
            name: name.clone(),
            rating: r.rating,
            uncertainty: r.uncertainty,
        })
        .collect()
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
    fn the_winner_of_every_game_rates_highest() {
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let game: RatedGame = vec![(vec![0], 1), (vec![1], 2), (vec![2], 3)];
        let sets = vec![(0, vec![0, 1, 2], vec![game.clone(), game])];
        let r = weng_lin(&names, sets);
        assert!(r[0].rating > r[1].rating && r[1].rating > r[2].rating);
    }
}
