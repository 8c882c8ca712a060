//! Space against false-positive rate, as theory has it: the curves the
//! measured points are drawn against.
//!
//! Each curve gives bits per key as a function of the rate p:
//! - lower bound: log2(1/p), for any filter (Carter et al.);
//! - Bloom with the optimal (real) hash count: log2(1/p) / ln 2 ≈ 1.44·log2(1/p);
//! - counting Bloom with 4-bit counters: four times that;
//! - split-block Bloom (k = 8, one bit per lane) with 256-bit blocks
//!   (Parquet's, as in this workspace's `BlockedBloomFilter` and in
//!   sbbf-rs-safe) and with 512-bit blocks (a whole cache line: fewer bits,
//!   slower probes), by the Poisson model of `filter_core::sizing::blocked_bloom_fpr`;
//! - cuckoo, 4-slot buckets at 95 % load: log2(8/p) / 0.95;
//! - xor (3-wise, 1.23 slots per key): 1.23·log2(1/p);
//! - binary fuse (3-wise, ~1.125 slots per key at large n): 1.125·log2(1/p).
//!
//! The fingerprint filters only exist at whole fingerprint widths; their
//! curves are drawn continuous to show the trend.

use filter_core::sizing::{BlockLayout, blocked_bloom_fpr};

/// A named curve of (bits per key, rate) points.
#[derive(Clone, Debug)]
pub(crate) struct Curve {
    pub(crate) name: &'static str,
    pub(crate) points: Vec<(f64, f64)>,
}

/// Rates from 50 % down to 10^-6, log-spaced.
fn rates() -> impl Iterator<Item = f64> {
    (0..=60).map(|i| 0.5 * 10f64.powf(-(i as f64) * 5.7 / 60.0))
}

fn curve(name: &'static str, bits: impl Fn(f64) -> f64) -> Curve {
    Curve {
        name,
        points: rates().map(|p| (bits(p), p)).collect(),
    }
}

/// The bits per key a split-block Bloom filter with `block_bits`-bit blocks
/// and 8 bits per key needs for rate `p`, found by bisection on the model.
fn blocked_bits_per_key(p: f64, block_bits: u32) -> f64 {
    // Model at 1M keys; the rate depends on bits/key, not on n, once
    // there are many blocks.
    let n = 1_000_000usize;
    let rate = |bpk: f64| {
        let bits =
            ((bpk * n as f64) as u64).div_ceil(u64::from(block_bits)) * u64::from(block_bits);
        blocked_bloom_fpr(bits, n, 8, block_bits, BlockLayout::Split).unwrap_or(1.0)
    };
    let (mut lo, mut hi) = (0.5f64, 256.0f64);
    for _ in 0..40 {
        let mid = (lo + hi) / 2.0;
        if rate(mid) <= p {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

pub(crate) fn curves() -> Vec<Curve> {
    let lg = |p: f64| -p.log2();
    vec![
        curve("lower bound log2(1/p)", lg),
        curve("Bloom, optimal k", move |p| lg(p) / std::f64::consts::LN_2),
        curve("counting Bloom, 4-bit counters", move |p| {
            4.0 * lg(p) / std::f64::consts::LN_2
        }),
        curve("split-block Bloom, 512-bit blocks", |p| {
            blocked_bits_per_key(p, 512)
        }),
        curve("split-block Bloom, 256-bit blocks", |p| {
            blocked_bits_per_key(p, 256)
        }),
        curve("cuckoo, b = 4, 95 % load", move |p| (lg(p) + 3.0) / 0.95),
        curve("xor, 1.23 slots/key", move |p| 1.23 * lg(p)),
        curve("binary fuse, 1.125 slots/key", move |p| 1.125 * lg(p)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocking_costs_bits_but_not_many() {
        let classic = -(0.01f64.log2()) / std::f64::consts::LN_2;
        let blocked = blocked_bits_per_key(0.01, 512);
        assert!(
            blocked > classic && blocked < classic * 1.3,
            "{blocked} vs {classic}"
        );
    }
}
