//! The normal distribution, and figures made clean for printing.

/// The standard normal distribution function; exactly 1/2 at 0.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * (1.0 + erf(z / std::f64::consts::SQRT_2))
}

/// The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7), odd and exactly 0 at
/// 0 (the approximation alone gives 1e-9 there, so a LOS of exactly even printed 0.5000000005).
fn erf(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}

/// A figure rounded to 1e-9 (below any precision it is shown with), never -0: JSON then says
/// 0 rather than -0.0.
pub fn clean(x: f64) -> f64 {
    (x * 1e9).round() / 1e9 + 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_is_exactly_even_and_zero_has_no_sign() {
        assert_eq!(normal_cdf(0.0), 0.5);
        assert!((normal_cdf(1.96) - 0.975).abs() < 1e-4);
        assert!((normal_cdf(-1.0) + normal_cdf(1.0) - 1.0).abs() < 1e-12);
        assert!(clean(-0.0).is_sign_positive());
        assert_eq!(clean(0.1 + 0.2), 0.3);
    }
}
