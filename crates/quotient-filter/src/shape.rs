//! Sizing: the quotients and remainder bits for `n` keys at rate `p`.
//!
//! The rate of a quotient filter holding n distinct keys is the chance
//! that a new key's fingerprint equals one of theirs, at most n / S for a
//! fingerprint space S = Q · 2^r. The table needs Q ≥ n / 0.95 quotients
//! (the maximum load), and then the smallest r with n / (Q · 2^r) ≤ p. One
//! bit of remainder fewer with proportionally more quotients sometimes
//! costs fewer bits in all ((r + 2.125) bits a slot); the cheaper of the
//! two is taken. The growable mode adds one remainder bit per doubling it
//! plans for, so that the rate stays at most p through them.
//!
//! # Why n keys fill the table to the maximum load
//!
//! The quotients could be sized so that n keys reach a lower load (say
//! 80 %) while `Full` still waits for 95 %; the rate, about load · 2^−r,
//! allows it at the same r. Runs and clusters would be shorter, so inserts
//! and removes would shift fewer slots, fewer lookups would find their
//! quotient occupied, and fewer runs would end past their home block.
//! Measured against the table sized to 95 %, at a million and at ten
//! million keys, sizing for 80 to 85 % made every operation a little
//! faster, by far less than the 12 to 19 % more bits per key it costs:
//! each operation waits first for the cache line of its home block, and
//! most of its work is the rank, select and remainder reads that find the
//! run, which cost the same at any load. A short shift inside a line or
//! two costs little beside that wait, and an insert at a free home slot
//! moves nothing at all. So n keys fill the table to the maximum load, and
//! a key costs the fewest bits the rate allows.

use filter_core::Error;
use filter_core::sizing::{check_fpr, check_items};

use crate::core::{MAX_LOAD_DEN, MAX_LOAD_NUM, MAX_REMAINDER_BITS, MIN_REMAINDER_BITS, Shape};

/// Doublings a growable filter may plan for: each costs a remainder bit.
pub(crate) const MAX_PLANNED_DOUBLINGS: u32 = 16;

/// Metadata bits per slot: occupieds, runends and an 8-bit offset per 64.
const METADATA_BITS: f64 = 2.125;

/// The shape for `expected_items` keys at rate `fpr`, with `doublings`
/// spare remainder bits.
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `expected_items` (0, or too many to
/// address), `fpr` (outside (0, 1), or too small for 64-bit hashes) or
/// `doublings` (more than [`MAX_PLANNED_DOUBLINGS`]).
pub(crate) fn for_rate(expected_items: usize, fpr: f64, doublings: u32) -> Result<Shape, Error> {
    let n = check_items(expected_items)?;
    let p = check_fpr(fpr)?;
    if doublings > MAX_PLANNED_DOUBLINGS {
        return Err(Error::invalid(
            "doublings",
            doublings,
            format_args!("at most {MAX_PLANNED_DOUBLINGS}"),
        ));
    }
    let too_many = || {
        Error::invalid(
            "expected_items",
            n,
            "small enough for a table of that many slots to be addressed with 64-bit hashes",
        )
    };
    let min_quotients = n
        .checked_mul(MAX_LOAD_DEN)
        .map(|x| x.div_ceil(MAX_LOAD_NUM))
        .ok_or_else(too_many)?;
    // The smallest r with n / (Q · 2^r) ≤ p at the fewest quotients.
    let mut r = MIN_REMAINDER_BITS;
    while (n as f64) / (min_quotients as f64 * pow2(r)) > p {
        r += 1;
        if r > MAX_REMAINDER_BITS {
            break;
        }
    }
    let mut best = (min_quotients, r);
    if r > MIN_REMAINDER_BITS {
        // One bit fewer, with enough quotients to make up for it.
        let fewer = r - 1;
        let quotients = ((n as f64) / (p * pow2(fewer))).ceil();
        let bits = |q: f64, r: u32| q * (r as f64 + METADATA_BITS);
        if quotients < usize::MAX as f64
            && bits(quotients, fewer) < bits(min_quotients as f64, r)
            && (n as f64) / (quotients * pow2(fewer)) <= p
        {
            best = (quotients as usize, fewer);
        }
    }
    let remainder_bits = best.1 + doublings;
    if remainder_bits > MAX_REMAINDER_BITS {
        return Err(Error::invalid(
            "fpr",
            p,
            format_args!(
                "large enough for a remainder of at most {MAX_REMAINDER_BITS} bits ({} planned doublings included)",
                doublings
            ),
        ));
    }
    let shape = Shape {
        quotients: best.0,
        remainder_bits,
    };
    shape.space().ok_or_else(too_many)?;
    shape.blocks().ok_or_else(too_many)?;
    Ok(shape)
}

/// 2^`r` exactly, for `r` < 64. Not `f64::exp2`: the standard library
/// does not promise that it is exact, and the shape decides whether two
/// filters merge, so every machine must compute the same one from the same
/// `expected_items` and `fpr`; products and quotients of exact values
/// round the same everywhere (IEEE 754).
fn pow2(r: u32) -> f64 {
    debug_assert!(r < 64);
    (1u64 << r) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_percent_takes_seven_bits_at_full_load() {
        let s = for_rate(1_000_000, 0.01, 0).unwrap();
        assert_eq!(s.remainder_bits, 7);
        assert_eq!(s.quotients, 1_052_632);
        let s = for_rate(1_000_000, 0.01, 3).unwrap();
        assert_eq!((s.quotients, s.remainder_bits), (1_052_632, 10));
    }

    #[test]
    fn every_shape_meets_its_rate_and_load() {
        for n in [1, 2, 3, 10, 1000, 996_000, 1 << 20, 10_000_000] {
            for p in [0.5, 0.1, 0.01, 0.003, 1e-3, 1e-4, 1e-6, 1e-9] {
                let s = for_rate(n, p, 0).unwrap();
                let space = s.space().unwrap() as f64;
                assert!(n as f64 / space <= p, "n {n} p {p} {s:?}");
                assert!(s.max_used() >= n, "n {n} p {p} {s:?}");
            }
        }
    }

    #[test]
    fn edges_are_errors() {
        assert!(for_rate(0, 0.01, 0).is_err());
        assert!(for_rate(usize::MAX, 0.01, 0).is_err());
        assert!(for_rate(usize::MAX / 19, 0.01, 0).is_err());
        assert!(for_rate(1000, 1e-300, 0).is_err());
        assert!(for_rate(1000, 0.01, MAX_PLANNED_DOUBLINGS + 1).is_err());
        for p in filter_core::testing::BAD_RATES {
            assert!(for_rate(1000, p, 0).is_err());
        }
    }
}
