//! Structured mutations: byte flips, token swaps, number replacements with extreme values,
//! line deletions, duplications and swaps, splices from other seeds, truncation; plus random
//! inputs. Everything is drawn from the [`Rng`] passed in, so an input is a function of its
//! seed.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::corpus::Seed;

/// Largest input a mutation may produce (bytes).
pub const MAX_LEN: usize = 4 << 20;

/// The random source of one input.
pub struct Rand(Xoshiro256PlusPlus);

impl Rand {
    /// The stream for input `index` of target number `target` under `seed` (SplitMix-style
    /// mixing, so neighbouring indices are unrelated).
    pub fn for_input(seed: u64, target: u64, index: u64) -> Self {
        let mut z = seed
            ^ target.wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ index.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Self(Xoshiro256PlusPlus::seed_from_u64(z ^ (z >> 31)))
    }

    /// A uniform `u64`.
    pub fn u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`0` if `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.u64() % n as u64) as usize
        }
    }

    /// `true` with probability `1/n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// A uniformly chosen element.
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// Replacement values for numbers: extremes, NaN, infinities, negatives, huge, malformed.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-1",
    "1",
    "2",
    "-2.5",
    "0.5",
    "1e308",
    "-1e308",
    "1e309",
    "1e-320",
    "4.9e-324",
    "NaN",
    "nan",
    "-nan",
    "NA",
    "inf",
    "-inf",
    "infinity",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967295",
    "4294967296",
    "2147483647",
    "2147483648",
    "99999999999",
    "1000000000000000000000000",
    "65536",
    "50000",
    "50001",
    "10000001",
    "1e5",
    "0x10",
    "1e",
    "--5",
    "+3",
    "1.2.3",
    ".",
    "",
    "3,5",
    "1_000",
    "true",
    "null",
    "\"7\"",
];

/// Bytes that matter to the formats.
const BYTES: &[u8] = b"\0\xff\n\r\t -.e+\"'[]{}=,:#()\\";

/// A token: a maximal run of bytes that are neither whitespace nor punctuation of the formats.
fn token_spans(b: &[u8]) -> Vec<(usize, usize)> {
    let sep = |c: u8| c.is_ascii_whitespace() || b"\0,[]{}=:\"()".contains(&c);
    let mut out = Vec::new();
    let mut start = None;
    for (i, &c) in b.iter().enumerate() {
        match (sep(c), start) {
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, b.len()));
    }
    out
}

fn is_number(t: &[u8]) -> bool {
    let t = t.strip_prefix(b"-").unwrap_or(t);
    t.first().is_some_and(u8::is_ascii_digit)
}

/// Line spans `(start, end_including_newline)`.
fn line_spans(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut s = 0;
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' {
            out.push((s, i + 1));
            s = i + 1;
        }
    }
    if s < b.len() {
        out.push((s, b.len()));
    }
    out
}

fn replace(b: &mut Vec<u8>, (s, e): (usize, usize), with: &[u8]) {
    b.splice(s..e, with.iter().copied());
}

/// A random number token: integers and floats of every size, sometimes negative.
fn random_number(r: &mut Rand) -> String {
    let neg = if r.one_in(4) { "-" } else { "" };
    match r.below(4) {
        0 => format!("{neg}{}", r.below(10)),
        1 => format!("{neg}{}", r.u64() >> r.below(64)),
        2 => format!("{neg}{}.{}", r.below(1000), r.below(100)),
        _ => format!("{neg}{}e{}", r.below(10), r.below(700) as i64 - 350),
    }
}

/// Apply one mutation to `b`. `others` are seeds of the same target (for splicing) and `words`
/// format words worth inserting (keys, enum names, paths).
pub fn mutate_once(b: &mut Vec<u8>, r: &mut Rand, others: &[Seed], words: &[&str]) {
    match r.below(14) {
        // bit flip
        0 if !b.is_empty() => {
            let i = r.below(b.len());
            b[i] ^= 1 << r.below(8);
        }
        // interesting byte, overwrite or insert
        1 => {
            let c = *r.pick(BYTES);
            if b.is_empty() || r.one_in(2) {
                let i = r.below(b.len() + 1);
                b.insert(i, c);
            } else {
                let i = r.below(b.len());
                b[i] = c;
            }
        }
        // swap two tokens
        2 | 3 => {
            let t = token_spans(b);
            if t.len() >= 2 {
                let (mut x, mut y) = (*r.pick(&t), *r.pick(&t));
                if x.0 > y.0 {
                    std::mem::swap(&mut x, &mut y);
                }
                if x.1 <= y.0 {
                    let (bx, by) = (b[x.0..x.1].to_vec(), b[y.0..y.1].to_vec());
                    replace(b, y, &bx);
                    replace(b, x, &by);
                }
            }
        }
        // replace a number (most often) or any token with an extreme or random number
        4..=6 => {
            let t = token_spans(b);
            let nums: Vec<(usize, usize)> = t
                .iter()
                .copied()
                .filter(|&(s, e)| is_number(&b[s..e]))
                .collect();
            let pool = if nums.is_empty() || r.one_in(8) {
                &t
            } else {
                &nums
            };
            if !pool.is_empty() {
                let span = *r.pick(pool);
                let v = if r.one_in(3) {
                    random_number(r)
                } else {
                    r.pick(NUMBERS).to_string()
                };
                replace(b, span, v.as_bytes());
            }
        }
        // replace a token with a format word
        7 if !words.is_empty() => {
            let t = token_spans(b);
            if !t.is_empty() {
                let span = *r.pick(&t);
                replace(b, span, r.pick(words).as_bytes());
            }
        }
        // delete lines
        8 => {
            let l = line_spans(b);
            if !l.is_empty() {
                let i = r.below(l.len());
                let j = (i + r.below(3)).min(l.len() - 1);
                b.drain(l[i].0..l[j].1);
            }
        }
        // duplicate a line, sometimes many times
        9 => {
            let l = line_spans(b);
            if !l.is_empty() {
                let (s, e) = *r.pick(&l);
                let line = b[s..e].to_vec();
                let times = if r.one_in(8) { 1 + r.below(200) } else { 1 };
                let mut ins = Vec::new();
                for _ in 0..times {
                    ins.extend_from_slice(&line);
                    if !line.ends_with(b"\n") {
                        ins.push(b'\n');
                    }
                }
                b.splice(e..e, ins);
            }
        }
        // swap two lines
        10 => {
            let l = line_spans(b);
            if l.len() >= 2 {
                let (x, y) = (r.below(l.len()), r.below(l.len()));
                let (x, y) = (l[x.min(y)], l[x.max(y)]);
                if x.1 <= y.0 {
                    let (bx, by) = (b[x.0..x.1].to_vec(), b[y.0..y.1].to_vec());
                    replace(b, y, &bx);
                    replace(b, x, &by);
                }
            }
        }
        // splice: a run of lines from another seed
        11 if !others.is_empty() => {
            let o = &r.pick(others).bytes;
            let l = line_spans(o);
            if !l.is_empty() {
                let i = r.below(l.len());
                let j = (i + 1 + r.below(4)).min(l.len());
                let chunk = o[l[i].0..l[j - 1].1].to_vec();
                let at = r.below(b.len() + 1);
                b.splice(at..at, chunk);
            }
        }
        // truncate
        12 if !b.is_empty() => {
            let at = r.below(b.len());
            b.truncate(at);
        }
        // random bytes inserted
        _ => {
            let n = 1 + r.below(16);
            let at = r.below(b.len() + 1);
            let chunk: Vec<u8> = (0..n).map(|_| r.u64() as u8).collect();
            b.splice(at..at, chunk);
        }
    }
    if b.len() > MAX_LEN {
        b.truncate(MAX_LEN);
    }
}

/// Pick a seed by weight.
pub fn pick_seed<'a>(seeds: &'a [Seed], r: &mut Rand) -> &'a Seed {
    let total: u64 = seeds.iter().map(|s| u64::from(s.weight)).sum();
    let mut x = r.u64() % total.max(1);
    for s in seeds {
        if x < u64::from(s.weight) {
            return s;
        }
        x -= u64::from(s.weight);
    }
    &seeds[seeds.len() - 1]
}

/// An input: 1 in 20 random bytes (up to 2 KB), otherwise a weighted seed with 1 to 8 stacked
/// mutations (one in ten inputs is a seed left as it is).
pub fn make_bytes(seeds: &[Seed], r: &mut Rand, words: &[&str]) -> (Vec<u8>, String) {
    if r.one_in(20) {
        let n = r.below(2048);
        let mut v: Vec<u8> = (0..n).map(|_| r.u64() as u8).collect();
        if r.one_in(2) {
            // printable noise, closer to text formats
            for c in &mut v {
                *c = b" \t\n0123456789.-eE+abcxyz#[]=\""[(*c as usize) % 29];
            }
        }
        return (v, "random bytes".into());
    }
    let s = pick_seed(seeds, r);
    let mut b = s.bytes.clone();
    if r.one_in(10) {
        return (b, format!("{} (unchanged)", s.name));
    }
    let k = 1 + r.below(8);
    for _ in 0..k {
        mutate_once(&mut b, r, seeds, words);
    }
    (b, format!("{} + {k} mutations", s.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_lines() {
        assert_eq!(token_spans(b"a 12,x"), vec![(0, 1), (2, 4), (5, 6)]);
        assert_eq!(line_spans(b"a\nb"), vec![(0, 2), (2, 3)]);
        assert!(is_number(b"-3.5") && !is_number(b"x1"));
    }

    #[test]
    fn deterministic() {
        let seeds = vec![Seed {
            name: "s".into(),
            bytes: b"0 1 2\n1 0 3\n2 3 0\n".to_vec(),
            weight: 1,
        }];
        let a: Vec<_> = (0..50)
            .map(|k| make_bytes(&seeds, &mut Rand::for_input(1, 0, k), &["x"]).0)
            .collect();
        let b: Vec<_> = (0..50)
            .map(|k| make_bytes(&seeds, &mut Rand::for_input(1, 0, k), &["x"]).0)
            .collect();
        assert_eq!(a, b);
        assert!(a.iter().any(|x| x != &seeds[0].bytes));
    }
}
