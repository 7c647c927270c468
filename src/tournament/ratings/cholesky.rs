//! Dense symmetric positive definite systems, solved through their Cholesky factor.
//!
//! The batch fit's information matrix is symmetric and, once its level is fixed, positive
//! definite: factoring it once (n^3/6 multiply-adds) and solving with the triangular factors is
//! about six times cheaper than a Gauss-Jordan inverse and as stable (G. Golub and C. Van Loan,
//! "Matrix Computations", 4th ed., 2013, section 4.2). Matrices are flat and row-major so that the
//! inner loops run over contiguous memory.

/// Rows computed together: each earlier row is read from memory once for the block and used by
/// every row of it from the cache, so the triangle streams through memory once per block rather
/// than once per row. Each entry's sum is added in the same order as row by row: the results are
/// the same to the last bit.
const BLOCK: usize = 16;

/// A square matrix, flat and row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Square {
    size: usize,
    values: Vec<f64>,
}

impl Square {
    /// The `size` x `size` zero matrix.
    pub fn zeros(size: usize) -> Square {
        Square {
            size,
            values: vec![0.0; size * size],
        }
    }

    /// Its number of rows (and columns).
    pub fn size(&self) -> usize {
        self.size
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.size..(i + 1) * self.size]
    }

    /// Adds `x` to the entry at row `i`, column `j`.
    pub fn add(&mut self, i: usize, j: usize, x: f64) {
        self.values[i * self.size + j] += x;
    }

    /// The entry at row `i`, column `j`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.values[i * self.size + j]
    }

    /// The largest magnitude of an entry.
    pub fn largest(&self) -> f64 {
        self.values.iter().fold(0.0f64, |m, x| m.max(x.abs()))
    }

    /// `self + level 1 1' + ridge I`.
    pub fn shifted(&self, level: f64, ridge: f64) -> Square {
        let mut shifted = self.clone();
        shifted.values.iter_mut().for_each(|x| *x += level);
        (0..self.size).for_each(|i| shifted.add(i, i, ridge));
        shifted
    }
}

/// The Cholesky factor `L` of a symmetric positive definite `A = L L'`, kept with its transpose
/// so that both triangular solves read rows.
#[derive(Debug, Clone)]
pub struct Cholesky {
    lower: Square,
    upper: Square,
}

impl Cholesky {
    /// The factor of `a` (only its lower triangle is read); `None` unless `a` is finite and
    /// positive definite to working precision.
    pub fn new(a: &Square) -> Option<Cholesky> {
        let lower = factor(a)?;
        let n = a.size;
        let mut upper = Square::zeros(n);
        for i in 0..n {
            for j in 0..=i {
                upper.values[j * n + i] = lower.get(i, j);
            }
        }
        Some(Cholesky { lower, upper })
    }

    /// The `x` with `A x = b`.
    pub fn solve(&self, b: &[f64]) -> Vec<f64> {
        let mut x = b.to_vec();
        self.forward(&mut x);
        self.backward(&mut x);
        x
    }

    /// `A^-1 = M' M` with `M = L^-1`: both products row by row as sums of scaled rows
    /// (n^3/6 multiply-adds each, over contiguous memory, without a running sum to wait on),
    /// [`BLOCK`] rows at a time.
    pub fn inverse(&self) -> Square {
        gram(&lower_inverse(&self.lower))
    }

    /// Solves `L y = x` in place.
    fn forward(&self, x: &mut [f64]) {
        let n = self.lower.size;
        for i in 0..n {
            let row = &self.lower.values[i * n..i * n + i];
            let sum = dot(row, &x[..i]);
            x[i] = (x[i] - sum) / self.lower.get(i, i);
        }
    }

    /// Solves `L' x = y` in place.
    fn backward(&self, x: &mut [f64]) {
        let n = self.upper.size;
        for i in (0..n).rev() {
            let row = &self.upper.values[i * n + i + 1..(i + 1) * n];
            let sum = dot(row, &x[i + 1..]);
            x[i] = (x[i] - sum) / self.upper.get(i, i);
        }
    }
}

/// Defines `$name`, which runs `$body` compiled for AVX2 where the processor has it (checked at
/// run time: the binary itself assumes only the baseline). The same operations in the same
/// order, four lanes at a time where the baseline has two, and no fused multiply-add: the same
/// bits either way.
macro_rules! widened {
    ($(#[$doc:meta])* fn $name:ident = $body:ident($($arg:ident: $ty:ty),*) -> $out:ty) => {
        $(#[$doc])*
        fn $name($($arg: $ty),*) -> $out {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn wide($($arg: $ty),*) -> $out {
                    $body($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the processor has AVX2, checked just above.
                    return unsafe { wide($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}

widened!(
    /// The lower Cholesky factor of `a`, if it is positive definite.
    fn factor = factor_rows(a: &Square) -> Option<Square>
);
widened!(
    /// `M = L^-1` of a lower triangular `L`.
    fn lower_inverse = lower_inverse_rows(lower: &Square) -> Square
);
widened!(
    /// `M' M` of a lower triangular `M`.
    fn gram = gram_rows(m: &Square) -> Square
);

/// [`factor`]: row by row (`L_ij = (A_ij - L_i . L_j) / L_jj`, the dot over the columns before
/// `j`), [`BLOCK`] rows at a time.
#[inline(always)]
fn factor_rows(a: &Square) -> Option<Square> {
    let n = a.size;
    let mut lower = Square::zeros(n);
    for start in (0..n).step_by(BLOCK) {
        let end = (start + BLOCK).min(n);
        // The columns left of the block: each earlier row read once for the block's rows.
        let (done, block) = lower.values.split_at_mut(start * n);
        for j in 0..start {
            let (row_j, pivot) = (&done[j * n..j * n + j], done[j * n + j]);
            for i in start..end {
                let row_i = &mut block[(i - start) * n..];
                let sum = a.get(i, j) - dot(&row_i[..j], row_j);
                row_i[j] = sum / pivot;
            }
        }
        // The block's own columns, row by row.
        for i in start..end {
            for j in start..=i {
                let (row_i, row_j) = (
                    &lower.values[i * n..i * n + j],
                    &lower.values[j * n..j * n + j],
                );
                let sum = a.get(i, j) - dot(row_i, row_j);
                let value = match i == j {
                    true if sum > 0.0 && sum.is_finite() => sum.sqrt(),
                    true => return None,
                    false => sum / lower.get(j, j),
                };
                lower.values[i * n + j] = value;
            }
        }
    }
    Some(lower)
}

/// [`lower_inverse`]: row i of `M` is `(e_i - sum over k < i of L_ik M_k) / L_ii`, the rows
/// `M_k` before the block each read once for the block's rows.
#[inline(always)]
fn lower_inverse_rows(lower: &Square) -> Square {
    let n = lower.size;
    let mut m = Square::zeros(n);
    for start in (0..n).step_by(BLOCK) {
        let end = (start + BLOCK).min(n);
        let (done, block) = m.values.split_at_mut(start * n);
        for i in start..end {
            block[(i - start) * n + i] = 1.0;
        }
        for k in 0..start {
            let above = &done[k * n..=k * n + k];
            for i in start..end {
                let factor = lower.get(i, k);
                block[(i - start) * n..=(i - start) * n + k]
                    .iter_mut()
                    .zip(above)
                    .for_each(|(x, y)| *x -= factor * y);
            }
        }
        for i in start..end {
            let (before, rest) = block.split_at_mut((i - start) * n);
            let row = &mut rest[..=i];
            for k in start..i {
                let factor = lower.get(i, k);
                let above = &before[(k - start) * n..=(k - start) * n + k];
                row[..=k]
                    .iter_mut()
                    .zip(above)
                    .for_each(|(x, y)| *x -= factor * y);
            }
            let pivot = lower.get(i, i);
            row.iter_mut().for_each(|x| *x /= pivot);
        }
    }
    m
}

/// [`gram`]: `G = sum over k of M_k' M_k`, its lower triangle, then mirrored. Row i of `G`
/// gathers the rows `k >= i` (`M_ki` is zero before), each read once for the block's rows.
#[inline(always)]
fn gram_rows(m: &Square) -> Square {
    let n = m.size;
    let mut gram = Square::zeros(n);
    for start in (0..n).step_by(BLOCK) {
        let end = (start + BLOCK).min(n);
        for k in start..n {
            let row_k = m.row(k);
            for i in start..end.min(k + 1) {
                let factor = row_k[i];
                let target = &mut gram.values[i * n..=i * n + i];
                target
                    .iter_mut()
                    .zip(row_k)
                    .for_each(|(x, y)| *x += factor * y);
            }
        }
    }
    for i in 0..n {
        for j in 0..i {
            gram.values[j * n + i] = gram.values[i * n + j];
        }
    }
    gram
}

/// `a . b` over eight running sums, which the compiler can keep in vector registers (one sum
/// must add in order, which no vector unit can do).
#[inline(always)]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    let (chunks_a, chunks_b) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f64 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    let mut sums = [0.0; 8];
    for (x, y) in chunks_a.zip(chunks_b) {
        for k in 0..8 {
            sums[k] += x[k] * y[k];
        }
    }
    let half = |s: &[f64]| (s[0] + s[1]) + (s[2] + s[3]);
    (half(&sums[..4]) + half(&sums[4..])) + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: &[&[f64]]) -> Square {
        let mut m = Square::zeros(rows.len());
        for (i, row) in rows.iter().enumerate() {
            for (j, x) in row.iter().enumerate() {
                m.add(i, j, *x);
            }
        }
        m
    }

    #[test]
    fn solves_and_inverts_a_symmetric_positive_definite_matrix() {
        let a = matrix(&[
            &[4.0, 2.0, 0.4, 0.0, 1.0],
            &[2.0, 5.0, 1.0, 0.5, 0.0],
            &[0.4, 1.0, 3.0, 0.2, 0.1],
            &[0.0, 0.5, 0.2, 2.0, 0.3],
            &[1.0, 0.0, 0.1, 0.3, 6.0],
        ]);
        let factor = Cholesky::new(&a).expect("positive definite");
        let b = [1.0, -2.0, 0.5, 3.0, -1.0];
        let x = factor.solve(&b);
        for (i, bi) in b.iter().enumerate() {
            assert!((dot(a.row(i), &x) - bi).abs() < 1e-12, "{x:?}");
        }
        let inverse = factor.inverse();
        for i in 0..5 {
            for j in 0..5 {
                let product: f64 = (0..5).map(|k| a.get(i, k) * inverse.get(k, j)).sum();
                let identity = if i == j { 1.0 } else { 0.0 };
                assert!((product - identity).abs() < 1e-12, "{inverse:?}");
            }
        }
    }

    #[test]
    fn blocks_give_the_same_bits_as_row_by_row() {
        // Row by row, as before the blocks: each entry's sum in the same order.
        let n = 2 * BLOCK + 5;
        let mut a = Square::zeros(n);
        let mut x = 0.37f64;
        for i in 0..n {
            for j in 0..=i {
                x = (x * 997.0 + 0.123).fract();
                a.add(i, j, x - 0.5);
                if i != j {
                    a.add(j, i, x - 0.5);
                }
            }
            a.add(i, i, n as f64);
        }
        let mut lower = Square::zeros(n);
        for i in 0..n {
            for j in 0..=i {
                let sum = a.get(i, j) - dot(&lower.row(i)[..j], &lower.row(j)[..j]);
                let value = if i == j {
                    sum.sqrt()
                } else {
                    sum / lower.get(j, j)
                };
                lower.values[i * n + j] = value;
            }
        }
        let mut m = Square::zeros(n);
        for i in 0..n {
            let mut row = vec![0.0; n];
            row[i] = 1.0;
            for k in 0..i {
                let factor = lower.get(i, k);
                (0..=k).for_each(|c| row[c] -= factor * m.get(k, c));
            }
            row.iter_mut().for_each(|x| *x /= lower.get(i, i));
            m.values[i * n..(i + 1) * n].copy_from_slice(&row);
        }
        let mut inverse = Square::zeros(n);
        for k in 0..n {
            for i in 0..=k {
                let factor = m.get(k, i);
                (0..=i).for_each(|c| inverse.values[i * n + c] += factor * m.get(k, c));
            }
        }
        let factor = Cholesky::new(&a).expect("positive definite");
        assert_eq!(factor.lower, lower);
        let blocked = factor.inverse();
        for i in 0..n {
            for j in 0..=i {
                assert_eq!(blocked.get(i, j).to_bits(), inverse.get(i, j).to_bits());
                assert_eq!(blocked.get(j, i).to_bits(), inverse.get(i, j).to_bits());
            }
        }
    }

    #[test]
    fn refuses_what_is_not_positive_definite() {
        assert!(Cholesky::new(&matrix(&[&[1.0, 2.0], &[2.0, 1.0]])).is_none());
        assert!(Cholesky::new(&matrix(&[&[0.0, 0.0], &[0.0, 1.0]])).is_none());
        assert!(Cholesky::new(&matrix(&[&[f64::NAN]])).is_none());
    }

    #[test]
    fn dot_adds_every_term() {
        let a: Vec<f64> = (0..19).map(f64::from).collect();
        assert_eq!(dot(&a, &a), (0..19).map(|x| f64::from(x * x)).sum::<f64>());
    }
}
