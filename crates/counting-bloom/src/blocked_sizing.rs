//! Sizing of a [`BlockedCountingBloomFilter`](crate::BlockedCountingBloomFilter):
//! the false-positive model of its two-block layout, and the smallest block
//! count that meets a target rate.
//!
//! # The model
//!
//! n keys, B blocks of C = 128 counters, k counters per key split into a
//! first half of j₁ = ⌈k/2⌉ and a second half of j₂ = ⌊k/2⌋ (see
//! `counter_block.rs`). Each half lands in a uniformly random block, so a
//! block receives L₁ ~ Poisson(λ) first halves and L₂ ~ Poisson(λ) second
//! halves, λ = n/B, independently. A half of j counters uses j distinct words
//! and one uniformly random counter in each, so it touches a given counter
//! with probability j/C. Given the loads, a counter is therefore non-zero
//! with probability
//!
//! ```text
//! q(L₁, L₂) = 1 − a^L₁ · b^L₂,    a = 1 − j₁/C,  b = 1 − j₂/C,
//! ```
//!
//! and a query half of j counters (in distinct words) finds them all non-zero
//! with probability q^j. The two halves of a query lie in independent blocks,
//! so
//!
//! ```text
//! FPR = E[q^j₁] · E[q^j₂].
//! ```
//!
//! The expectations have a closed form: expand q^j binomially and use the
//! Poisson generating function E[c^L] = e^(−λ(1−c)):
//!
//! ```text
//! E[q^j] = Σ_{i=0..j} C(j, i) (−1)^i · e^(−λ(2 − a^i − b^i)).
//! ```
//!
//! The model leaves out that a key's two blocks coincide with probability
//! 1/B, and treats a block's counters as independent given its loads (the
//! classic Bloom approximation). The seeded tests measure the real rate
//! against it. The alternating sum loses about 1e-14 in absolute terms to
//! cancellation, irrelevant for any rate a filter is sized for.

use filter_core::Error;
use filter_core::sizing::{bloom_bits, bloom_hashes, check_fpr, check_items};

use crate::counter_block::BLOCK_COUNTERS;

/// The most blocks a filter may have: 2^46 counters (the classic limit) in
/// blocks of 128.
pub const MAX_BLOCKS: u64 = crate::MAX_COUNTERS / BLOCK_COUNTERS;

/// The most counters per key: 8 in each of the two blocks, one per word.
pub const MAX_BLOCKED_HASHES: u32 = 16;

/// The fewest blocks a filter may have: a key's two blocks are then usually
/// different.
pub(crate) const MIN_BLOCKS: u64 = 2;

/// The model's false-positive rate with `items` keys in `blocks` blocks,
/// `hashes` counters per key. `blocks` ≥ 1 and `hashes` ≤ 16 are the
/// caller's to guarantee.
pub(crate) fn blocked_counting_fpr(blocks: u64, items: usize, hashes: u32) -> f64 {
    let first = hashes.div_ceil(2);
    let second = hashes / 2;
    let c = BLOCK_COUNTERS as f64;
    let a = 1.0 - f64::from(first) / c;
    let b = 1.0 - f64::from(second) / c;
    let lambda = items as f64 / blocks as f64;
    let half = |j: u32| {
        let mut sum = 0.0;
        let mut binomial = 1.0; // C(j, i), built up term by term
        let (mut a_i, mut b_i) = (1.0, 1.0); // a^i and b^i
        for i in 0..=j {
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            let exponent = -lambda * (2.0 - a_i - b_i);
            sum += sign * binomial * exponent.exp();
            binomial = binomial * f64::from(j - i) / f64::from(i + 1);
            a_i *= a;
            b_i *= b;
        }
        sum
    };
    (half(first) * half(second)).clamp(0.0, 1.0)
}

/// The counters per key a filter sized for `expected_items` at `fpr` uses:
/// the classic Bloom filter's optimal k.
///
/// # Errors
///
/// As [`bloom_bits`]; [`Error::InvalidParameter`] naming `fpr` when that k
/// exceeds [`MAX_BLOCKED_HASHES`].
pub(crate) fn sized_hashes(expected_items: usize, fpr: f64) -> Result<u32, Error> {
    check_items(expected_items)?;
    check_fpr(fpr)?;
    let hashes = bloom_hashes(bloom_bits(expected_items, fpr)?, expected_items)?;
    if hashes > MAX_BLOCKED_HASHES {
        return Err(Error::invalid(
            "fpr",
            fpr,
            format_args!(
                "large enough that the optimal hash count is at most {MAX_BLOCKED_HASHES} \
                 (it would be {hashes}; about 1.1e-5 is the smallest such rate)"
            ),
        ));
    }
    Ok(hashes)
}

/// The smallest block count (at least 2) at which `expected_items` keys with
/// `hashes` counters each meet `fpr` by [`blocked_counting_fpr`].
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `expected_items` when more than
/// [`MAX_BLOCKS`] blocks would be needed.
pub(crate) fn sized_blocks(expected_items: usize, fpr: f64, hashes: u32) -> Result<u64, Error> {
    let too_many = || {
        Error::invalid(
            "expected_items",
            expected_items,
            format_args!("small enough that the filter fits in {MAX_BLOCKS} blocks at fpr {fpr}"),
        )
    };
    let rate = |blocks: u64| blocked_counting_fpr(blocks, expected_items, hashes);
    // Blocking never beats the classic layout: start from the classic
    // counter count, double until the target is met, then bisect.
    let classic = bloom_bits(expected_items, fpr)?;
    let mut lo = classic.div_ceil(BLOCK_COUNTERS).max(MIN_BLOCKS);
    if lo > MAX_BLOCKS {
        return Err(too_many());
    }
    if rate(lo) <= fpr {
        return Ok(lo);
    }
    let mut hi = lo;
    loop {
        hi = hi.saturating_mul(2).min(MAX_BLOCKS);
        if rate(hi) <= fpr {
            break;
        }
        if hi == MAX_BLOCKS {
            return Err(too_many());
        }
        lo = hi;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if rate(mid) <= fpr {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same model by brute force: the double Poisson sum over the two
    /// loads, term by term.
    fn by_poisson_sum(blocks: u64, items: usize, hashes: u32) -> f64 {
        let (j1, j2) = (hashes.div_ceil(2), hashes / 2);
        let a = 1.0 - f64::from(j1) / 128.0;
        let b = 1.0 - f64::from(j2) / 128.0;
        let lambda = items as f64 / blocks as f64;
        let last = (lambda + 30.0 * lambda.sqrt() + 30.0) as u32;
        let mut weights = vec![(-lambda).exp()];
        for l in 1..=last {
            let w = weights[l as usize - 1] * lambda / f64::from(l);
            weights.push(w);
        }
        let (mut e1, mut e2) = (0.0, 0.0);
        for (l1, w1) in weights.iter().enumerate() {
            for (l2, w2) in weights.iter().enumerate() {
                // Small test values: the exponents fit i32.
                let int = |v: usize| i32::try_from(v).unwrap_or(i32::MAX);
                let q = 1.0 - a.powi(int(l1)) * b.powi(int(l2));
                e1 += w1 * w2 * q.powi(int(j1 as usize));
                e2 += w1 * w2 * q.powi(int(j2 as usize));
            }
        }
        e1 * e2
    }

    #[test]
    fn closed_form_matches_the_poisson_sum() {
        for (blocks, items, hashes) in [
            (1_000, 12_000, 7),
            (1_000, 8_000, 10),
            (500, 2_000, 13),
            (100, 10_000, 3),
            (77, 1_000, 1),
            (2, 50, 16),
        ] {
            let closed = blocked_counting_fpr(blocks, items, hashes);
            let brute = by_poisson_sum(blocks, items, hashes);
            assert!(
                (closed - brute).abs() <= 1e-12 + 1e-9 * brute,
                "{blocks} {items} {hashes}: {closed} vs {brute}"
            );
        }
    }

    #[test]
    fn rate_falls_with_blocks_and_rises_with_items() {
        let mut last = 1.0;
        for blocks in [100, 1_000, 10_000, 100_000] {
            let rate = blocked_counting_fpr(blocks, 10_000, 7);
            assert!(rate < last, "{blocks}: {rate}");
            last = rate;
        }
        assert_eq!(blocked_counting_fpr(100, 0, 7), 0.0);
        assert!(blocked_counting_fpr(100, 1_000_000, 7) > 0.999);
    }

    #[test]
    fn sized_blocks_is_the_smallest_that_meets_the_target() {
        for (n, p) in [
            (1_000_000, 0.01),
            (1_000_000, 0.001),
            (1_000, 0.0001),
            (10, 0.5),
        ] {
            let k = sized_hashes(n, p).unwrap();
            let blocks = sized_blocks(n, p, k).unwrap();
            assert!(blocked_counting_fpr(blocks, n, k) <= p);
            if blocks > MIN_BLOCKS {
                assert!(blocked_counting_fpr(blocks - 1, n, k) > p);
            }
        }
        // At 1M keys and 1 %, k = 7 and about 4.14× the classic bits.
        let blocks = sized_blocks(1_000_000, 0.01, 7).unwrap();
        let ratio = (blocks * 512) as f64 / bloom_bits(1_000_000, 0.01).unwrap() as f64;
        assert!((4.13..4.15).contains(&ratio), "{ratio}");
    }

    #[test]
    fn limits_are_errors() {
        assert!(sized_hashes(10, 1e-6).is_err());
        assert!(sized_hashes(10, 2e-5).is_ok());
        assert!(sized_hashes(0, 0.01).is_err());
        assert!(sized_hashes(10, 1.5).is_err());
        assert!(sized_blocks(usize::MAX, 0.01, 7).is_err());
    }
}
