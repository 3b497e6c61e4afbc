//! GNP — Global Network Positioning (Ng & Zhang, "Predicting Internet Network Distance with
//! Coordinates-Based Approaches", INFOCOM 2002), a landmark-based coordinate system.
//!
//! 1. **Landmarks** measure RTTs among themselves and compute coordinates `y_1 … y_L` in a
//!    `D`-dimensional Euclidean space by minimising `Σ_{a≠b} ε(d(l_a,l_b), ‖y_a − y_b‖)`.
//! 2. **Hosts** measure their RTT to each landmark and, with the landmark coordinates fixed,
//!    minimise `Σ_l ε(d(h,l), ‖x_h − y_l‖)` for their own coordinate `x_h`.
//! 3. The estimate of `d(a,b)` is `‖x_a − x_b‖`.
//!
//! `ε` is GNP's normalised (relative) squared error `((d − d̂)/d)²` by default
//! ([`GnpObjective::SquaredRelative`]); plain squared error is offered as
//! [`GnpObjective::Squared`]. As in the paper, both problems are solved with the downhill
//! simplex method ([`nelder_mead`]); here each is run from several seeded random starts and,
//! within a start, restarted from its best vertex a few times (a standard remedy for simplex
//! collapse), keeping the best result. Ordered pairs are used, so asymmetric data contributes
//! both directions; unusable entries ([`is_usable_rtt`]) are skipped.

use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use crate::nelder_mead::{NelderMeadConfig, nelder_mead};
use crate::{LatencyTable, NetcoordError, is_usable_rtt};

/// Error function `ε(d, d̂)` minimised by GNP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum GnpObjective {
    /// `((d − d̂)/d)²`, Ng & Zhang's normalised error (default).
    #[default]
    SquaredRelative,
    /// `(d − d̂)²`.
    Squared,
}

impl GnpObjective {
    fn eval(self, measured: f64, predicted: f64) -> f64 {
        let e = measured - predicted;
        match self {
            GnpObjective::SquaredRelative => (e / measured) * (e / measured),
            GnpObjective::Squared => e * e,
        }
    }
}

/// Parameters of GNP.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GnpConfig {
    /// Dimensions `D` of the coordinate space. Default 2 (the plane used by the core-selection
    /// paper for Vivaldi); Ng & Zhang evaluate more dimensions with 15 landmarks — raise it for
    /// real Internet data.
    pub dimensions: usize,
    /// Independent seeded random starts for the landmark embedding. Default 4.
    pub landmark_starts: usize,
    /// Independent starts for each host (the first is the nearest landmark's coordinate, the
    /// others random). Default 3.
    pub host_starts: usize,
    /// Simplex restarts from the best vertex within one start. Default 4.
    pub restarts: usize,
    /// Error function. Default [`GnpObjective::SquaredRelative`].
    pub objective: GnpObjective,
    /// Nelder–Mead stopping rules for each simplex run.
    pub nelder_mead: NelderMeadConfig,
}

impl Default for GnpConfig {
    fn default() -> Self {
        Self {
            dimensions: 2,
            landmark_starts: 4,
            host_starts: 3,
            restarts: 4,
            objective: GnpObjective::SquaredRelative,
            nelder_mead: NelderMeadConfig::default(),
        }
    }
}

impl GnpConfig {
    /// Checks the configuration.
    ///
    /// # Errors
    /// [`NetcoordError::InvalidConfig`] naming the bad field.
    pub fn validate(&self) -> Result<(), NetcoordError> {
        let bad = |m: &str| Err(NetcoordError::InvalidConfig(m.to_owned()));
        if self.dimensions == 0 {
            return bad("gnp.dimensions must be >= 1");
        }
        if self.landmark_starts == 0 || self.host_starts == 0 {
            return bad("gnp.landmark_starts and gnp.host_starts must be >= 1");
        }
        if self.nelder_mead.max_evals == 0 {
            return bad("gnp.nelder_mead.max_evals must be >= 1");
        }
        Ok(())
    }
}

/// Result of [`gnp_embed_landmarks`].
#[derive(Debug, Clone, PartialEq)]
pub struct LandmarkEmbedding {
    /// One coordinate per landmark, in the order of the input matrix.
    pub coords: Vec<Vec<f64>>,
    /// Final value of the objective.
    pub objective: f64,
}

/// Result of [`gnp_locate_host`].
#[derive(Debug, Clone, PartialEq)]
pub struct HostPosition {
    /// The host's coordinate.
    pub coord: Vec<f64>,
    /// Final value of the objective.
    pub objective: f64,
}

fn euclid(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// Runs Nelder–Mead from `x0`, then restarts `restarts` times from the best point, keeping the
/// best result.
fn minimise(
    f: &mut dyn FnMut(&[f64]) -> f64,
    x0: Vec<f64>,
    step: f64,
    restarts: usize,
    cfg: &NelderMeadConfig,
) -> (Vec<f64>, f64) {
    let mut best = nelder_mead(&mut *f, &x0, step, cfg);
    for _ in 0..restarts {
        let next = nelder_mead(&mut *f, &best.x, step, cfg);
        let improved = next.f < best.f;
        if improved {
            best = next;
        }
        if !improved || best.f <= cfg.f_tol {
            break;
        }
    }
    (best.x, best.f)
}

/// Phase 1 of GNP: embeds `L = rtt.n()` landmarks from their `L × L` RTT matrix.
///
/// Starts are uniform in a cube whose side is the largest usable RTT; the simplex step is a
/// tenth of that. The best of [`GnpConfig::landmark_starts`] runs (lowest objective, ties to the
/// earlier start) is returned.
///
/// # Errors
/// [`NetcoordError::InvalidConfig`] for a bad configuration;
/// [`NetcoordError::NotEnoughMeasurements`] if fewer than 2 landmarks or no usable RTT.
pub fn gnp_embed_landmarks<R: Rng + ?Sized>(
    rtt: &(impl LatencyTable + ?Sized),
    config: &GnpConfig,
    rng: &mut R,
) -> Result<LandmarkEmbedding, NetcoordError> {
    config.validate()?;
    let l = rtt.n();
    let dims = config.dimensions;
    let pairs: Vec<(usize, usize, f64)> = (0..l)
        .flat_map(|a| (0..l).map(move |b| (a, b)))
        .filter(|&(a, b)| a != b)
        .map(|(a, b)| (a, b, rtt.get(a, b)))
        .filter(|&(_, _, d)| is_usable_rtt(d))
        .collect();
    if l < 2 || pairs.is_empty() {
        return Err(NetcoordError::NotEnoughMeasurements(format!(
            "GNP needs >= 2 landmarks with usable RTTs (got {l} landmarks, {} usable pairs)",
            pairs.len()
        )));
    }
    let scale = pairs.iter().map(|p| p.2).fold(0.0, f64::max);
    let objective = config.objective;
    let mut f = |x: &[f64]| -> f64 {
        pairs
            .iter()
            .map(|&(a, b, d)| {
                let pred = euclid(&x[a * dims..(a + 1) * dims], &x[b * dims..(b + 1) * dims]);
                objective.eval(d, pred)
            })
            .sum()
    };
    let mut best: Option<(Vec<f64>, f64)> = None;
    for _ in 0..config.landmark_starts {
        let x0: Vec<f64> = (0..l * dims)
            .map(|_| (rng.random::<f64>() - 0.5) * scale)
            .collect();
        let (x, fx) = minimise(
            &mut f,
            x0,
            0.1 * scale,
            config.restarts,
            &config.nelder_mead,
        );
        if best.as_ref().is_none_or(|b| fx < b.1) {
            best = Some((x, fx));
        }
    }
    let (x, fx) = best.expect("at least one start");
    Ok(LandmarkEmbedding {
        coords: x.chunks(dims).map(<[f64]>::to_vec).collect(),
        objective: fx,
    })
}

/// Phase 2 of GNP: positions one host from its RTTs to the landmarks (`rtt_to_landmarks[l]` is
/// the RTT from the host to landmark `l`; unusable entries are skipped). At least `D + 1` usable
/// RTTs are needed for a unique position; fewer still returns a (non-unique) minimiser.
///
/// # Errors
/// [`NetcoordError::DimensionMismatch`] if lengths/dimensions disagree;
/// [`NetcoordError::NotEnoughMeasurements`] if no RTT is usable.
pub fn gnp_locate_host<R: Rng + ?Sized>(
    landmark_coords: &[Vec<f64>],
    rtt_to_landmarks: &[f64],
    config: &GnpConfig,
    rng: &mut R,
) -> Result<HostPosition, NetcoordError> {
    config.validate()?;
    let dims = config.dimensions;
    if rtt_to_landmarks.len() != landmark_coords.len() {
        return Err(NetcoordError::DimensionMismatch {
            expected: landmark_coords.len(),
            got: rtt_to_landmarks.len(),
        });
    }
    if let Some(c) = landmark_coords.iter().find(|c| c.len() != dims) {
        return Err(NetcoordError::DimensionMismatch {
            expected: dims,
            got: c.len(),
        });
    }
    let usable: Vec<(usize, f64)> = rtt_to_landmarks
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, d)| is_usable_rtt(d))
        .collect();
    let Some(&(nearest, _)) = usable.iter().min_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Err(NetcoordError::NotEnoughMeasurements(
            "host has no usable RTT to any landmark".into(),
        ));
    };
    let scale = usable.iter().map(|p| p.1).fold(0.0, f64::max);
    let objective = config.objective;
    let mut f = |x: &[f64]| -> f64 {
        usable
            .iter()
            .map(|&(l, d)| objective.eval(d, euclid(x, &landmark_coords[l])))
            .sum()
    };
    let mut best: Option<(Vec<f64>, f64)> = None;
    for s in 0..config.host_starts {
        let x0: Vec<f64> = if s == 0 {
            // Slightly off the nearest landmark, so the start is not a kink of the objective.
            landmark_coords[nearest]
                .iter()
                .map(|v| v + 1e-3 * scale)
                .collect()
        } else {
            let c = &landmark_coords[nearest];
            c.iter()
                .map(|v| v + (rng.random::<f64>() - 0.5) * 2.0 * scale)
                .collect()
        };
        let (x, fx) = minimise(
            &mut f,
            x0,
            0.1 * scale,
            config.restarts,
            &config.nelder_mead,
        );
        if best.as_ref().is_none_or(|b| fx < b.1) {
            best = Some((x, fx));
        }
    }
    let (coord, objective) = best.expect("at least one start");
    Ok(HostPosition { coord, objective })
}

/// A fitted GNP model over all nodes of a matrix: landmarks embedded from their mutual RTTs,
/// every other node positioned from its RTTs to the landmarks. Implements [`LatencyTable`]
/// (estimate = Euclidean distance, 0 on the diagonal).
#[derive(Debug, Clone, PartialEq)]
pub struct Gnp {
    landmarks: Vec<usize>,
    coords: Vec<Vec<f64>>,
    landmark_objective: f64,
}

impl Gnp {
    /// Fits GNP on `matrix` with the given landmark node ids. The host phase uses `matrix.get(h, l)`
    /// (RTT from host to landmark). All randomness comes from a [`Xoshiro256PlusPlus`] seeded
    /// with `seed`; hosts are solved in id order.
    ///
    /// # Errors
    /// [`NetcoordError::IndexOutOfRange`] for a bad landmark id, and the errors of
    /// [`gnp_embed_landmarks`] / [`gnp_locate_host`] (a host without any usable landmark RTT).
    pub fn fit(
        matrix: &(impl LatencyTable + ?Sized),
        landmarks: &[usize],
        config: &GnpConfig,
        seed: u64,
    ) -> Result<Self, NetcoordError> {
        let n = matrix.n();
        if let Some(&bad) = landmarks.iter().find(|&&l| l >= n) {
            return Err(NetcoordError::IndexOutOfRange { index: bad, n });
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let sub = crate::FnTable::new(landmarks.len(), |a, b| {
            matrix.get(landmarks[a], landmarks[b])
        });
        let emb = gnp_embed_landmarks(&sub, config, &mut rng)?;
        let mut coords = vec![Vec::new(); n];
        for (k, &l) in landmarks.iter().enumerate() {
            coords[l] = emb.coords[k].clone();
        }
        for h in 0..n {
            if landmarks.contains(&h) {
                continue;
            }
            let rtts: Vec<f64> = landmarks.iter().map(|&l| matrix.get(h, l)).collect();
            coords[h] = gnp_locate_host(&emb.coords, &rtts, config, &mut rng)?.coord;
        }
        Ok(Self {
            landmarks: landmarks.to_vec(),
            coords,
            landmark_objective: emb.objective,
        })
    }

    /// The landmark node ids.
    pub fn landmarks(&self) -> &[usize] {
        &self.landmarks
    }

    /// The coordinate of node `i`.
    pub fn coord(&self, i: usize) -> &[f64] {
        &self.coords[i]
    }

    /// Objective value reached by the landmark embedding.
    pub fn landmark_objective(&self) -> f64 {
        self.landmark_objective
    }

    /// Estimated RTT between `a` and `b`: Euclidean distance of their coordinates.
    pub fn estimate(&self, a: usize, b: usize) -> f64 {
        if a == b {
            0.0
        } else {
            euclid(&self.coords[a], &self.coords[b])
        }
    }
}

impl LatencyTable for Gnp {
    fn n(&self) -> usize {
        self.coords.len()
    }
    fn get(&self, i: usize, j: usize) -> f64 {
        self.estimate(i, j)
    }
}
