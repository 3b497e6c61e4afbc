//! A compact Nelder–Mead (downhill simplex) minimiser, used by [GNP](crate::gnp) as in
//! Ng & Zhang (who used the Simplex Downhill method).
//!
//! Written here instead of pulling in `argmin` (a large framework with many dependencies) for a
//! ~100-line routine. It follows Lagarias et al. (1998) for the move order (reflection,
//! expansion, outside/inside contraction, shrink) and, by default, Gao & Han's (2012)
//! dimension-adaptive coefficients `α = 1, γ = 1 + 2/n, ρ = 0.75 − 1/(2n), σ = 1 − 1/n`, which
//! behave much better than the classic `(1, 2, ½, ½)` above ~10 variables. It is deterministic:
//! vertices are ordered by objective value with ties kept in insertion order. `NaN` objective
//! values are treated as `+∞`.

use serde::{Deserialize, Serialize};

/// Stopping rules and coefficients of [`nelder_mead`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NelderMeadConfig {
    /// Maximum number of objective evaluations. Default 20 000.
    pub max_evals: usize,
    /// Converged when `f(worst) − f(best) <= f_tol` **and** every vertex lies within `x_tol`
    /// (max-norm) of the best one. Default `1e-14`.
    pub f_tol: f64,
    /// See `f_tol`. Default `1e-9`.
    pub x_tol: f64,
    /// Use Gao & Han's adaptive coefficients (for `n >= 2`); otherwise the classic
    /// `α = 1, γ = 2, ρ = σ = ½`. Default `true`.
    pub adaptive: bool,
}

impl Default for NelderMeadConfig {
    fn default() -> Self {
        Self {
            max_evals: 20_000,
            f_tol: 1e-14,
            x_tol: 1e-9,
            adaptive: true,
        }
    }
}

/// Outcome of [`nelder_mead`].
#[derive(Debug, Clone, PartialEq)]
pub struct NelderMeadResult {
    /// Best point found.
    pub x: Vec<f64>,
    /// Objective value at `x`.
    pub f: f64,
    /// Objective evaluations used.
    pub evals: usize,
    /// `true` if the tolerance test was met before `max_evals`.
    pub converged: bool,
}

/// Minimises `f` starting from the simplex `x0, x0 + step·e_1, …, x0 + step·e_n`.
///
/// # Panics
/// If `x0` is empty.
pub fn nelder_mead<F: FnMut(&[f64]) -> f64>(
    mut f: F,
    x0: &[f64],
    step: f64,
    config: &NelderMeadConfig,
) -> NelderMeadResult {
    let n = x0.len();
    assert!(n > 0, "nelder_mead needs at least one variable");
    let nf = n as f64;
    let (alpha, gamma, rho, sigma) = if config.adaptive && n >= 2 {
        (1.0, 1.0 + 2.0 / nf, 0.75 - 0.5 / nf, 1.0 - 1.0 / nf)
    } else {
        (1.0, 2.0, 0.5, 0.5)
    };
    let mut evals = 0usize;
    let mut eval = |x: &[f64], evals: &mut usize| {
        *evals += 1;
        let v = f(x);
        if v.is_nan() { f64::INFINITY } else { v }
    };
    let mut pts: Vec<(Vec<f64>, f64)> = Vec::with_capacity(n + 1);
    pts.push((x0.to_vec(), eval(x0, &mut evals)));
    for i in 0..n {
        let mut x = x0.to_vec();
        x[i] += step;
        let fx = eval(&x, &mut evals);
        pts.push((x, fx));
    }
    let along = |c: &[f64], to: &[f64], t: f64| -> Vec<f64> {
        c.iter()
            .zip(to)
            .map(|(ci, ti)| ci + t * (ti - ci))
            .collect()
    };
    let mut converged = false;
    loop {
        pts.sort_by(|a, b| a.1.total_cmp(&b.1));
        let spread = pts[n].1 - pts[0].1;
        let size = pts[1..]
            .iter()
            .flat_map(|(x, _)| x.iter().zip(&pts[0].0).map(|(a, b)| (a - b).abs()))
            .fold(0.0, f64::max);
        if spread <= config.f_tol && size <= config.x_tol {
            converged = true;
            break;
        }
        if evals >= config.max_evals {
            break;
        }
        let mut c = vec![0.0; n];
        for (x, _) in &pts[..n] {
            for (ci, xi) in c.iter_mut().zip(x) {
                *ci += xi / nf;
            }
        }
        let (f_best, f_second_worst, f_worst) = (pts[0].1, pts[n - 1].1, pts[n].1);
        let xr = along(&c, &pts[n].0, -alpha);
        let fr = eval(&xr, &mut evals);
        if fr < f_best {
            let xe = along(&c, &pts[n].0, -alpha * gamma);
            let fe = eval(&xe, &mut evals);
            pts[n] = if fe < fr { (xe, fe) } else { (xr, fr) };
            continue;
        }
        if fr < f_second_worst {
            pts[n] = (xr, fr);
            continue;
        }
        let (xc, fc, accept) = if fr < f_worst {
            let xc = along(&c, &xr, rho);
            let fc = eval(&xc, &mut evals);
            (xc, fc, fc <= fr)
        } else {
            let xc = along(&c, &pts[n].0, rho);
            let fc = eval(&xc, &mut evals);
            (xc, fc, fc < f_worst)
        };
        if accept {
            pts[n] = (xc, fc);
            continue;
        }
        let best = pts[0].0.clone();
        for p in pts.iter_mut().skip(1) {
            p.0 = along(&best, &p.0, sigma);
            p.1 = eval(&p.0, &mut evals);
        }
    }
    let (x, fx) = pts.swap_remove(0);
    NelderMeadResult {
        x,
        f: fx,
        evals,
        converged,
    }
}
