//! How much more (or less) the games of one deal vary together than independent games would:
//! the dispersion that scales the model's covariance, and how many degrees of freedom its
//! estimate has.
//!
//! The games of a deal (every group dealt it) share its tiles, so the model's variance `x' G x`
//! (`G` the inverse information, as if every game were independent) is off by a factor: above 1
//! when a deal's luck moves an entrant's results together, below 1 when duplicate play cancels
//! it. That factor is estimated once for the whole fit, from every deal's score (the clusters),
//! rather than once per rating: a per-rating sandwich estimated from `D` deals has `D - 1`
//! degrees of freedom at most (Student's t(1) = 12.71 at 2 deals), while the pooled one has
//! about `(D - 1)` times the number of ratings. The estimate:
//!
//! - `phi = Q / E`, `Q = sum_g s_g' G s_g` (each deal's score `s_g` at the fit, a quadratic form
//!   in `G`: the trace of `G J`; with the prior, whose virtual draws take a share of the score,
//!   the scores about their mean), `E` its expectation were the games independent,
//!   `E = tr(D) - tr(P D)` = `sum_g tr(W_g) - sum_g tr(W_g^2)`, `W_g = G H_g` (`H_g` deal `g`'s
//!   information). This is the mean eigenvalue of `H^-1 J` (A. Rotnitzky and N. P. Jewell,
//!   "Hypothesis testing of regression parameters in semiparametric generalized linear models
//!   for cluster correlated data", Biometrika 77, 1990), its bias from the scores being taken
//!   at the fit removed exactly under the working model, as the bias-reduced sandwich does
//!   (R. M. Bell and D. F. McCaffrey, "Bias reduction in standard errors for linear regression
//!   with multi-stage samples", Survey Methodology 28, 2002). For `D` deals that each hold the
//!   same share of every rating's information, `E` is `(D - 1) / D` times the number of ratings,
//!   the familiar `D / (D - 1)`.
//! - Its degrees of freedom by Satterthwaite's approximation (F. E. Satterthwaite, "An
//!   approximate distribution of estimates of variance components", Biometrics Bulletin 2,
//!   1946), computed under the working model as Bell and McCaffrey compute theirs:
//!   `nu = E^2 / tr((I - P) D (I - P) D)`, where that trace is `sum_g tr(W_g^2) - 2 sum_g
//!   tr(W_g^3) + tr((G K)^2)`, `K = sum_g H_g G H_g`. For `D` balanced deals and `m` ratings,
//!   `nu = m (D - 1)`; a deal that alone holds a rating's information (a ladder's table that is
//!   the only one to compare two teams) adds to `E` nothing and lowers `nu`.
//!
//! The traces cost a deal's number of entrants cubed, and `(G K)` the fit's cubed: past
//! [`EXACT_BUDGET`] operations (a round-robin of hundreds of entrants over many deals, where
//! every deal holds about the same share of every rating) the balanced forms are used.

use super::cholesky::Square;

/// Operations (about) past which the traces take their balanced forms: a few seconds.
pub const EXACT_BUDGET: f64 = 3e9;

/// One comparison of a deal at the fit: its difference vector (column, weight), its information
/// (games times `e (1 - e)`) and its residual (points less games times `e`).
pub struct Term {
    /// The difference vector, a column possibly more than once.
    pub direction: Vec<(usize, f64)>,
    /// Games times `e (1 - e)`.
    pub information: f64,
    /// Points less games times `e`.
    pub residual: f64,
}

/// The pooled dispersion and the degrees of freedom of its estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dispersion {
    /// `phi`: the model's variances are multiplied by it.
    pub phi: f64,
    /// Satterthwaite's degrees of freedom of `phi`.
    pub freedom: f64,
}

/// The dispersion of `clusters` (each deal's comparisons, with its weight in the sums: how many
/// deals had them, times the sampling scale past the cap) at the fit whose regularized inverse
/// information is `inverse`. `None` when it cannot be estimated (no deal adds information
/// beyond its own score: one deal, or deals each alone on its comparisons).
pub fn estimate(inverse: &Square, clusters: &[(Vec<Term>, f64)]) -> Option<Dispersion> {
    let local: Vec<(Local, f64)> = clusters
        .iter()
        .map(|(terms, n)| (Local::new(terms), *n))
        .collect();
    let size = inverse.size() as f64;
    let cost: f64 = local
        .iter()
        .map(|(l, _)| (l.columns.len() as f64).powi(3))
        .sum::<f64>()
        * 4.0
        + size.powi(3);
    let mut quadratic = 0.0;
    let mut trace = 0.0;
    // The scores' total: zero at a plain fit; with the prior its virtual draws take a share, and
    // the deals' scores are read about their mean (else that share would count as spread).
    let mut total = vec![0.0; inverse.size()];
    for (l, n) in &local {
        let g = l.restricted(inverse);
        quadratic += n * l.quadratic(&g);
        trace += n * l.trace(&g);
        for (&i, s) in l.columns.iter().zip(&l.score) {
            total[i] += n * s;
        }
    }
    let deals: f64 = local.iter().map(|(_, n)| n).sum();
    let image: Vec<f64> = (0..total.len())
        .map(|i| super::cholesky::dot(inverse.row(i), &total))
        .collect();
    quadratic -= super::cholesky::dot(&total, &image) / deals.max(1.0);
    let (second, denominator) = match cost <= EXACT_BUDGET {
        true => exact_traces(inverse, &local),
        false => {
            // Balanced: each of the D deals holds 1/D of every rating's information.
            let second = trace / deals;
            (second, second - second / deals)
        }
    };
    let expected = trace - second;
    // Below a millionth of a rating's worth: no deal tells anything beyond its own score.
    if !(expected > 1e-6 && denominator > 0.0) {
        return None;
    }
    Some(Dispersion {
        phi: quadratic / expected,
        freedom: expected * expected / denominator,
    })
}

/// `sum_g tr(W_g^2)` and `tr((I - P) D (I - P) D)`, exactly.
fn exact_traces(inverse: &Square, local: &[(Local, f64)]) -> (f64, f64) {
    let size = inverse.size();
    let (mut second, mut third) = (0.0, 0.0);
    let mut k = Square::zeros(size);
    for (l, n) in local {
        let g = l.restricted(inverse);
        let w = product(&g, &l.information, l.width());
        let w2 = product(&w, &w, l.width());
        second += n * trace_of_product(&w, &w, l.width());
        third += n * trace_of_product(&w2, &w, l.width());
        // H_g G H_g = h (g h) = h w.
        let hgh = product(&l.information, &w, l.width());
        for (a, &i) in l.columns.iter().enumerate() {
            for (b, &j) in l.columns.iter().enumerate() {
                k.add(i, j, n * hgh[a * l.width() + b]);
            }
        }
    }
    // tr((G K)^2) = sum_ij (GK)_ij (GK)_ji.
    let gk = times_sparse(inverse, &k);
    let fourth = trace_of_product(&gk, &gk, size);
    (second, second - 2.0 * third + fourth)
}

/// `g k` by rows, for `k` mostly zeros: `K` has an entry only where two entrants shared a deal,
/// a few per entrant in a ladder of a thousand. Each entry is the dense product's sum, its terms
/// added in the same order, less those of `k`'s zeros: the cost is `g`'s size times `k`'s
/// entries, not the size cubed (a second for every fit of a thousand entrants, in a running
/// tournament's one collecting thread).
fn times_sparse(g: &Square, k: &Square) -> Vec<f64> {
    let size = g.size();
    let entries: Vec<Vec<(usize, f64)>> = (0..size)
        .map(|l| {
            let row = k.row(l).iter().enumerate();
            row.filter(|&(_, &x)| x != 0.0)
                .map(|(j, &x)| (j, x))
                .collect()
        })
        .collect();
    let mut out = vec![0.0; size * size];
    for (i, out) in out.chunks_exact_mut(size.max(1)).enumerate() {
        let row = g.row(i);
        for (&x, entries) in row.iter().zip(&entries) {
            for &(j, y) in entries {
                out[j] += x * y;
            }
        }
    }
    out
}

/// A deal's comparisons on the columns they touch: its score and information there.
struct Local {
    columns: Vec<usize>,
    score: Vec<f64>,
    information: Vec<f64>,
}

impl Local {
    fn new(terms: &[Term]) -> Local {
        let mut columns: Vec<usize> = terms
            .iter()
            .flat_map(|t| t.direction.iter().map(|&(i, _)| i))
            .collect();
        columns.sort_unstable();
        columns.dedup();
        let k = columns.len();
        let (mut score, mut information) = (vec![0.0; k], vec![0.0; k * k]);
        for t in terms {
            let at: Vec<(usize, f64)> = t
                .direction
                .iter()
                .map(|&(i, w)| (columns.binary_search(&i).expect("a column of its own"), w))
                .collect();
            for &(a, wa) in &at {
                score[a] += t.residual * wa;
                for &(b, wb) in &at {
                    information[a * k + b] += t.information * wa * wb;
                }
            }
        }
        Local {
            columns,
            score,
            information,
        }
    }

    fn width(&self) -> usize {
        self.columns.len()
    }

    /// `G` on its columns.
    fn restricted(&self, inverse: &Square) -> Vec<f64> {
        let c = &self.columns;
        c.iter()
            .flat_map(|&i| c.iter().map(move |&j| inverse.get(i, j)))
            .collect()
    }

    /// `s' G s`.
    fn quadratic(&self, g: &[f64]) -> f64 {
        let k = self.width();
        (0..k)
            .map(|a| self.score[a] * (0..k).map(|b| g[a * k + b] * self.score[b]).sum::<f64>())
            .sum()
    }

    /// `tr(G H_g)`.
    fn trace(&self, g: &[f64]) -> f64 {
        trace_of_product(g, &self.information, self.width())
    }
}

/// `a b` for `k` x `k` matrices by rows.
fn product(a: &[f64], b: &[f64], k: usize) -> Vec<f64> {
    let mut out = vec![0.0; k * k];
    for i in 0..k {
        for l in 0..k {
            let x = a[i * k + l];
            if x != 0.0 {
                for j in 0..k {
                    out[i * k + j] += x * b[l * k + j];
                }
            }
        }
    }
    out
}

/// `tr(a b)` for `k` x `k` matrices by rows.
fn trace_of_product(a: &[f64], b: &[f64], k: usize) -> f64 {
    (0..k)
        .map(|i| (0..k).map(|j| a[i * k + j] * b[j * k + i]).sum::<f64>())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mean of `d` deals, each one observation of information 1 in one column: the textbook
    /// case, `E = (d - 1) / d` of the rating, `nu = d - 1`.
    #[test]
    fn balanced_deals_give_the_familiar_corrections() {
        for d in [2usize, 3, 5, 20] {
            let mut inverse = Square::zeros(1);
            inverse.add(0, 0, 1.0 / d as f64);
            let residuals: Vec<f64> = (0..d).map(|g| g as f64 - (d - 1) as f64 / 2.0).collect();
            let clusters: Vec<(Vec<Term>, f64)> = residuals
                .iter()
                .map(|&residual| {
                    let term = Term {
                        direction: vec![(0, 1.0)],
                        information: 1.0,
                        residual,
                    };
                    (vec![term], 1.0)
                })
                .collect();
            let found = estimate(&inverse, &clusters).expect("an estimate");
            assert!(
                (found.freedom - (d - 1) as f64).abs() < 1e-9,
                "{d}: {found:?}"
            );
            // The sample variance of the residuals, divided by d - 1.
            let variance = residuals.iter().map(|r| r * r).sum::<f64>() / (d - 1) as f64;
            assert!((found.phi - variance).abs() < 1e-9, "{d}: {found:?}");
        }
    }

    #[test]
    fn the_sparse_product_is_the_dense_one() {
        let size = 7;
        let (mut g, mut k) = (Square::zeros(size), Square::zeros(size));
        for i in 0..size {
            for j in 0..size {
                g.add(i, j, ((i * 31 + j * 17) % 13) as f64 / 7.0 - 0.9);
                if (i + 2 * j) % 3 == 0 {
                    k.add(i, j, ((i * 5 + j) % 11) as f64 / 3.0 - 1.7);
                }
            }
        }
        let dense: Vec<f64> = (0..size)
            .flat_map(|i| {
                let (g, k) = (&g, &k);
                (0..size).map(move |j| (0..size).map(|l| g.get(i, l) * k.get(l, j)).sum::<f64>())
            })
            .collect();
        assert_eq!(times_sparse(&g, &k), dense);
        assert!(times_sparse(&Square::zeros(0), &Square::zeros(0)).is_empty());
    }

    #[test]
    fn one_deal_tells_nothing() {
        let mut inverse = Square::zeros(1);
        inverse.add(0, 0, 1.0);
        let term = Term {
            direction: vec![(0, 1.0)],
            information: 1.0,
            residual: 0.0,
        };
        assert_eq!(estimate(&inverse, &[(vec![term], 1.0)]), None);
    }
}
