//! The statistics of a claim: the mean of per-repetition values and its 95 % confidence
//! interval from Student's t distribution.

/// Mean and 95 % confidence interval of per-repetition values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Number of repetitions.
    pub n: usize,
    /// Arithmetic mean of the values.
    pub mean: f64,
    /// Half-width of the 95 % interval, `t(0.975, n − 1) · s / √n`; `None` when `n < 2`.
    pub half_width: Option<f64>,
}

impl Estimate {
    /// The estimate of `values` (in the order given; the sums run in that order, so the
    /// result is the same bytes on every machine).
    pub fn of(values: &[f64]) -> Estimate {
        let n = values.len();
        if n == 0 {
            return Estimate {
                n: 0,
                mean: f64::NAN,
                half_width: None,
            };
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let half_width = (n >= 2).then(|| {
            let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
            let sd = (ss / (n - 1) as f64).sqrt();
            t_975(n - 1) * sd / (n as f64).sqrt()
        });
        Estimate {
            n,
            mean,
            half_width,
        }
    }

    /// The interval's lower end (the mean itself when there is no interval).
    pub fn lo(&self) -> f64 {
        self.mean - self.half_width.unwrap_or(0.0)
    }

    /// The interval's upper end (the mean itself when there is no interval).
    pub fn hi(&self) -> f64 {
        self.mean + self.half_width.unwrap_or(0.0)
    }

    /// Whether `x` lies inside the interval (with no interval: equals the mean).
    pub fn covers(&self, x: f64) -> bool {
        x >= self.lo() && x <= self.hi()
    }
}

/// The 97.5 % quantile of Student's t distribution with `df` degrees of freedom, the
/// factor of a two-sided 95 % interval. Exact table values (to 4 decimals, as printed in
/// every statistics text) for `df ≤ 30`; above, the Cornish–Fisher expansion around the
/// normal quantile, whose error there is below 10⁻⁵.
pub fn t_975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010,
        2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739,
        2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => TABLE[df - 1],
        _ => {
            let z: f64 = 1.959_963_984_540_054;
            let v = df as f64;
            let z3 = z.powi(3);
            let z5 = z.powi(5);
            let z7 = z.powi(7);
            z + (z3 + z) / (4.0 * v)
                + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
                + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v * v * v)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_printed_tables() {
        assert_eq!(t_975(4), 2.7764);
        // Beyond the table: 40, 60, 120 degrees of freedom print 2.0211, 2.0003, 1.9799.
        assert!((t_975(40) - 2.0211).abs() < 1e-4, "{}", t_975(40));
        assert!((t_975(60) - 2.0003).abs() < 1e-4, "{}", t_975(60));
        assert!((t_975(120) - 1.9799).abs() < 1e-4, "{}", t_975(120));
        // The expansion joins the table smoothly.
        assert!((t_975(31) - 2.0395).abs() < 1e-4, "{}", t_975(31));
    }

    #[test]
    fn interval_of_five_values_by_hand() {
        // mean 3, s = sqrt(2.5), half-width = 2.7764 * 1.58114 / 2.23607 = 1.96324
        let e = Estimate::of(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(e.n, 5);
        assert_eq!(e.mean, 3.0);
        assert!((e.half_width.unwrap() - 1.963_24).abs() < 1e-4);
        assert!(e.covers(4.9) && !e.covers(5.0));
        let one = Estimate::of(&[7.0]);
        assert_eq!(one.half_width, None);
        assert!(one.covers(7.0) && !one.covers(7.1));
    }
}
