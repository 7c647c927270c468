//! Kendall's rank correlation between two orderings, tau-b: ties allowed on either side
//! (M. G. Kendall, "The treatment of ties in ranking problems", Biometrika 33, 1945; as
//! `scipy.stats.kendalltau` computes it by default). For measuring how close a ranking comes to
//! a known true order: 1 when they agree on every pair, -1 when reversed.
//!
//! Pure, and plain O(n^2) over the pairs: a thousand entrants are half a million pairs.

/// Kendall's tau-b of the paired values `x` and `y` (the same length): (concordant - discordant)
/// / sqrt((pairs - tied in x) (pairs - tied in y)); `None` when either side is all tied (or
/// there is no pair), where it is undefined.
pub fn tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    assert_eq!(x.len(), y.len(), "tau_b compares values paired one to one");
    let (mut score, mut tied_x, mut tied_y, mut pairs) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            let dx = x[i].total_cmp(&x[j]) as i64;
            let dy = y[i].total_cmp(&y[j]) as i64;
            pairs += 1;
            tied_x += i64::from(dx == 0);
            tied_y += i64::from(dy == 0);
            score += dx * dy;
        }
    }
    let denominator = ((pairs - tied_x) as f64 * (pairs - tied_y) as f64).sqrt();
    (denominator > 0.0).then(|| score as f64 / denominator)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_counted_example() {
        // Pairs of (1,2,3,4) against (1,3,2,4): only (2,3) is discordant, 5 of 6 concordant.
        let tau = tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).expect("defined");
        assert!((tau - 4.0 / 6.0).abs() < 1e-12, "{tau}");
        assert_eq!(tau_b(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(tau_b(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]), Some(1.0));
        assert_eq!(tau_b(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert_eq!(tau_b(&[], &[]), None);
        // One tie in x among 4 values: of 6 pairs, 1 tied in x (2, 2); concordant (1,2) and
        // (1,2'); discordant (1,3), (2,3), (2',3): (2 - 3) / sqrt(5 * 6).
        let tau = tau_b(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 0.5]).expect("defined");
        let by_hand = (2.0 - 3.0) / (5.0f64 * 6.0).sqrt();
        assert!((tau - by_hand).abs() < 1e-12, "{tau} against {by_hand}");
    }

    #[test]
    fn scipy_agrees() {
        // scipy 1.17.1, `scipy.stats.kendalltau(x, y).statistic` (tau-b, the default).
        let cases: [(&[f64], &[f64], f64); 2] = [
            (
                &[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0],
                &[2.0, 7.0, 1.0, 8.0, 2.0, 8.0, 1.0, 8.0, 2.0, 8.0],
                0.130_410_132_739_325_25,
            ),
            (
                &[0.5, 0.1, 0.9, 0.7, 0.3, 0.2, 0.8],
                &[7.0, 2.0, 9.0, 9.0, 1.0, 3.0, 5.0],
                0.585_540_043_769_119_9,
            ),
        ];
        for (x, y, scipy) in cases {
            let tau = tau_b(x, y).expect("defined");
            assert!((tau - scipy).abs() < 1e-12, "{tau} against scipy's {scipy}");
        }
    }
}
