//! Random number sources for the generators.
//!
//! BRITE draws every random number as `erand48(seed)`, a 48-bit linear congruential generator,
//! and derives everything else from that one uniform draw ([`UniformSource`] helper methods,
//! which mirror BRITE's `RandomVariable` class in `Util.h`). To regenerate BRITE output
//! bit for bit the generators here are written against the [`UniformSource`] trait, with two
//! implementations:
//!
//! * [`Erand48`] — glibc `erand48`, exact (BRITE mode, seeded from seed-file words);
//! * [`PortableRng`] — `Xoshiro256PlusPlus` seeded from a `u64` (portable mode: the same
//!   model, different numbers, the crate's recommended default for new experiments).
//!
//! The recurrence is glibc's `erand48` (the `drand48` family); the unit test checks its first
//! outputs against glibc.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// A source of uniform variates in `[0, 1)` plus BRITE's derived draws.
///
/// Only [`next_f64`](UniformSource::next_f64) must be implemented; the provided methods
/// reproduce BRITE's `RandomVariable::GetVal*` formulas operation for operation, so that with
/// [`Erand48`] they give bit-identical results to the C++ engine (given the same libm).
pub trait UniformSource {
    /// One uniform draw in `[0, 1)` (`erand48()` in BRITE).
    fn next_f64(&mut self) -> f64;

    /// BRITE `GetValUniform(r)`: `r · u`.
    #[inline]
    fn uniform_r(&mut self, r: f64) -> f64 {
        r * self.next_f64()
    }

    /// BRITE `GetValUniform(a, b)`: `a + U(b − a)`.
    #[inline]
    fn uniform_ab(&mut self, a: f64, b: f64) -> f64 {
        a + self.uniform_r(b - a)
    }

    /// BRITE `GetValExponential(λ)`: `−ln(u)/λ` (mean `1/λ`).
    #[inline]
    fn exponential(&mut self, lambda: f64) -> f64 {
        -self.next_f64().ln() / lambda
    }

    /// BRITE `GetValPareto(scale k, shape s)`: `1 / (1 − u + u·(1/k)^s)^(1/s)`.
    ///
    /// This is a bounded Pareto on `[1, k]` with shape `s` (BRITE calls the upper bound the
    /// "scale").
    #[inline]
    fn pareto(&mut self, scale: f64, shape: f64) -> f64 {
        let x = self.next_f64();
        let den = (1.0 - x + x * (1.0 / scale).powf(shape)).powf(1.0 / shape);
        1.0 / den
    }
}

impl<T: UniformSource + ?Sized> UniformSource for &mut T {
    #[inline]
    fn next_f64(&mut self) -> f64 {
        (**self).next_f64()
    }
}

/// glibc/POSIX `erand48`: X_{k+1} = (0x5DEECE66D·X_k + 0xB) mod 2^48, output X_{k+1}/2^48.
///
/// `state` holds the 48-bit X. BRITE's seed files store it as three 16-bit words, the
/// **first word being the least significant** ([`Erand48::from_words`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Erand48 {
    /// The 48-bit generator state X (upper 16 bits always zero).
    pub state: u64,
}

impl Erand48 {
    const A: u64 = 0x5_DEEC_E66D;
    const C: u64 = 0xB;
    const MASK: u64 = (1 << 48) - 1;

    /// Build from the three words of a BRITE seed-file line (`w[0]` = least significant 16 bits),
    /// i.e. the `unsigned short xsubi[3]` array passed to `erand48`.
    pub fn from_words(w: [u16; 3]) -> Self {
        Self {
            state: u64::from(w[0]) | (u64::from(w[1]) << 16) | (u64::from(w[2]) << 32),
        }
    }

    /// The state as the three 16-bit words BRITE writes back to its seed file.
    pub fn words(&self) -> [u16; 3] {
        [
            (self.state & 0xFFFF) as u16,
            ((self.state >> 16) & 0xFFFF) as u16,
            ((self.state >> 32) & 0xFFFF) as u16,
        ]
    }

    /// Advance the state and return the new 48-bit X.
    #[inline]
    pub fn next_u48(&mut self) -> u64 {
        self.state = (Self::A.wrapping_mul(self.state).wrapping_add(Self::C)) & Self::MASK;
        self.state
    }
}

impl UniformSource for Erand48 {
    /// `X/2^48`, exactly as glibc builds the double (48 bits fit the 52-bit mantissa).
    #[inline]
    fn next_f64(&mut self) -> f64 {
        self.next_u48() as f64 * (1.0 / (1u64 << 48) as f64)
    }
}

/// Portable random source: `Xoshiro256PlusPlus`, uniform = top 53 bits / 2^53.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortableRng(pub Xoshiro256PlusPlus);

impl PortableRng {
    /// Seed via `Xoshiro256PlusPlus::seed_from_u64` (SplitMix64 expansion).
    pub fn seed_from_u64(seed: u64) -> Self {
        Self(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// `k` independent, non-overlapping streams from one seed: stream `i` is the seeded
    /// generator advanced by `i` jumps of 2^128 draws. Used to give the PLACES / CONNECT /
    /// BANDWIDTH roles their own streams in portable mode.
    pub fn streams(seed: u64, k: usize) -> Vec<Self> {
        let mut g = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut out = Vec::with_capacity(k);
        for _ in 0..k {
            out.push(Self(g.clone()));
            g.jump();
        }
        out
    }
}

impl UniformSource for PortableRng {
    #[inline]
    fn next_f64(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Adapter: any `rand::Rng` as a [`UniformSource`] (top 53 bits / 2^53).
#[derive(Debug)]
pub struct RandSource<R>(pub R);

impl<R: Rng> UniformSource for RandSource<R> {
    #[inline]
    fn next_f64(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The six named streams of a BRITE C++ `seed_file` (`PLACES`, `CONNECT`, `EDGE_CONN`,
/// `GROUPING`, `ASSIGNMENT`, `BANDWIDTH`), each three 16-bit `erand48` words.
///
/// Router Waxman only uses `places`, `connect` and `bandwidth`; the others are kept so the
/// file can be written back unchanged, as BRITE does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BriteSeeds {
    /// `PLACES`: node placement.
    pub places: [u16; 3],
    /// `CONNECT`: interconnection (target draws and Waxman coin flips).
    pub connect: [u16; 3],
    /// `EDGE_CONN`: hierarchical models only.
    pub edge_conn: [u16; 3],
    /// `GROUPING`: hierarchical models only.
    pub grouping: [u16; 3],
    /// `ASSIGNMENT`: hierarchical models only.
    pub assignment: [u16; 3],
    /// `BANDWIDTH`: link bandwidth assignment.
    pub bandwidth: [u16; 3],
}

impl Default for BriteSeeds {
    /// The default C++ `BRITE/C++/seed_file` (the one used for the reference files).
    fn default() -> Self {
        Self {
            places: [27221, 27842, 27788],
            connect: [36518, 42577, 151],
            edge_conn: [53489, 32975, 5141],
            grouping: [34898, 48253, 21264],
            assignment: [44174, 29196, 31893],
            bandwidth: [2445, 3871, 43415],
        }
    }
}

impl BriteSeeds {
    const NAMES: [&'static str; 6] = [
        "PLACES",
        "CONNECT",
        "EDGE_CONN",
        "GROUPING",
        "ASSIGNMENT",
        "BANDWIDTH",
    ];

    fn slots_mut(&mut self) -> [&mut [u16; 3]; 6] {
        [
            &mut self.places,
            &mut self.connect,
            &mut self.edge_conn,
            &mut self.grouping,
            &mut self.assignment,
            &mut self.bandwidth,
        ]
    }

    fn slots(&self) -> [&[u16; 3]; 6] {
        [
            &self.places,
            &self.connect,
            &self.edge_conn,
            &self.grouping,
            &self.assignment,
            &self.bandwidth,
        ]
    }

    /// Parse the text of a C++ seed file: lines `NAME w0 w1 w2`; every one of the six names must
    /// occur. Returns a message naming the offending line on failure.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = Self::default();
        let mut seen = [false; 6];
        for (ln, line) in text.lines().enumerate() {
            let mut it = line.split_whitespace();
            let Some(name) = it.next() else { continue };
            let Some(k) = Self::NAMES.iter().position(|n| *n == name) else {
                return Err(format!("line {}: unknown seed name {name:?}", ln + 1));
            };
            let mut w = [0u16; 3];
            for slot in &mut w {
                let tok = it
                    .next()
                    .ok_or_else(|| format!("line {}: expected three 16-bit words", ln + 1))?;
                *slot = tok.parse().map_err(|_| {
                    format!("line {}: expected a 16-bit word, found {tok:?}", ln + 1)
                })?;
            }
            *out.slots_mut()[k] = w;
            seen[k] = true;
        }
        if let Some(k) = seen.iter().position(|s| !s) {
            return Err(format!("seed {} missing", Self::NAMES[k]));
        }
        Ok(out)
    }

    /// The seed file text BRITE would write (`NAME w0 w1 w2` per line).
    pub fn to_seed_file_string(&self) -> String {
        let mut s = String::new();
        for (name, w) in Self::NAMES.iter().zip(self.slots()) {
            s.push_str(&format!("{name} {} {} {}\n", w[0], w[1], w[2]));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erand48_first_values_match_glibc() {
        let mut r = Erand48::from_words([27221, 27842, 27788]);
        let v: Vec<f64> = (0..3).map(|_| r.next_f64()).collect();
        let want = [0.314845482735322, 0.872626063142516, 0.608504980478152];
        for (a, b) in v.iter().zip(want) {
            assert!((a - b).abs() < 1e-15, "{a} vs {b}");
        }
        // node 0 of the reference files sits at (314, 872)
        let mut r = Erand48::from_words([27221, 27842, 27788]);
        assert_eq!(r.uniform_r(1000.0).floor(), 314.0);
        assert_eq!(r.uniform_r(1000.0).floor(), 872.0);
    }

    #[test]
    fn words_round_trip() {
        let r = Erand48::from_words([1, 2, 3]);
        assert_eq!(r.state, 1 + (2 << 16) + (3 << 32));
        assert_eq!(r.words(), [1, 2, 3]);
    }

    #[test]
    fn seed_file_round_trip() {
        let s = BriteSeeds::default();
        let t = s.to_seed_file_string();
        assert!(t.starts_with("PLACES 27221 27842 27788\n"));
        assert_eq!(BriteSeeds::parse(&t).unwrap(), s);
        assert!(BriteSeeds::parse("PLACES 1 2\n").is_err());
    }

    #[test]
    fn portable_streams_differ_and_are_reproducible() {
        let mut a = PortableRng::streams(7, 2);
        let mut b = PortableRng::streams(7, 2);
        let x0 = a[0].next_f64();
        let x1 = a[1].next_f64();
        assert_ne!(x0, x1);
        assert_eq!(x0, b[0].next_f64());
        assert!((0.0..1.0).contains(&x0));
    }

    #[test]
    fn pareto_bounds() {
        let mut r = Erand48::from_words([1, 2, 3]);
        for _ in 0..1000 {
            let v = r.pareto(100.0, 1.2);
            assert!((1.0..=100.0).contains(&v));
        }
    }
}
