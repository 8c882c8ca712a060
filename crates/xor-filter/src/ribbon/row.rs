//! A key's equation: the block its band starts at, its 128 coefficients, and the
//! fingerprint its solution bits must produce.
//!
//! Everything derives from one 64-bit value `h`, the key's mixed hash
//! (`KeyHasher::mixed_hash`, uniform) as it is under the first seed, 0,
//! and `mix64(mixed + seed)` under any other (see [`equation_hash`]):
//!
//! - the band's first block is `reduce(h, starts)`, from the high bits of
//!   `h`, so that sorting hashes by their top bits sorts keys by start; the
//!   band starts at that block's first slot;
//! - the coefficients are two odd multiples of `h` (two bijections of it,
//!   whose relation is a multiplication, not anything linear over GF(2)),
//!   low word and high word, with bit 0 set: the band's first slot is always
//!   in the equation, so a key never has an empty equation. A product's low
//!   bits depend on the low bits of `h` only, which the start does not use;
//! - the fingerprint is a folded 128-bit product of `h`
//!   ([`folded_product`]): 64 bits, nonlinear in the coefficient bits, so a
//!   key not in the set matches with the probability of a random guess. The
//!   low 32 are the stored fingerprint; construction carries all 64, so that
//!   two distinct keys whose equations happen to coincide are told apart
//!   from a key given twice (see `band.rs`).

use filter_core::probes::folded_product;
use filter_core::{mix64, reduce};

/// Odd multipliers for the coefficients' two words (digits of e and √2).
const COEFF_LOW: u64 = 0xB7E1_5162_8AED_2A6B;
const COEFF_HIGH: u64 = 0x6A09_E667_F3BC_C909;

/// The value every part of a key's equation derives from, under `seed`.
///
/// Seed 0, the first attempt's, takes the mixed hash as it is: it is
/// uniform already, and almost every build succeeds at its first attempt,
/// so lookups skip a second mix. Any other seed adds itself and mixes
/// again, which gives the system new, independent-looking equations. Both
/// are bijections, so distinct hashes stay distinct. The branch is the same
/// for every lookup of a filter, so it is predicted.
#[inline(always)]
pub(crate) fn equation_hash(mixed: u64, seed: u64) -> u64 {
    if seed == 0 {
        mixed
    } else {
        mix64(mixed.wrapping_add(seed))
    }
}

/// The first block of the key's band, below `starts`.
#[inline(always)]
pub(crate) fn start_block(h: u64, starts: usize) -> usize {
    reduce(h, starts)
}

/// The key's coefficients as one 128-bit value, as
/// [`coefficient_words`] gives them (the tests' reference elimination
/// works on these).
#[cfg(test)]
pub(crate) fn coefficients(h: u64) -> u128 {
    let low = h.wrapping_mul(COEFF_LOW);
    let high = h.wrapping_mul(COEFF_HIGH);
    ((u128::from(high) << 64) | u128::from(low)) | 1
}

/// The key's 128 coefficients as (low, high) 64-bit words: bit `i` is the
/// coefficient of slot `start + i`. Bit 0 is always set.
#[inline(always)]
pub(crate) fn coefficient_words(h: u64) -> (u64, u64) {
    (h.wrapping_mul(COEFF_LOW) | 1, h.wrapping_mul(COEFF_HIGH))
}

/// The key's fingerprint: bit `j` is what column `j` must give. The low 32
/// bits are stored; all 64 take part in construction.
#[inline(always)]
pub(crate) fn fingerprint(h: u64) -> u64 {
    folded_product(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The equation of a key is part of the byte format
    /// (`docs/format-ribbon.md`): these values must never change.
    #[test]
    fn equations_are_pinned() {
        let h = 0x0123_4567_89AB_CDEF;
        assert_eq!(equation_hash(h, 0), h);
        assert_eq!(equation_hash(h, 7), mix64(h + 7));
        assert_eq!(start_block(h, 1000), 4);
        assert_eq!(
            coefficients(h),
            ((u128::from(h.wrapping_mul(COEFF_HIGH)) << 64)
                | u128::from(h.wrapping_mul(COEFF_LOW)))
                | 1
        );
        let p = u128::from(h ^ 0xBF58_476D_1CE4_E5B9)
            * u128::from(h.rotate_left(32) ^ 0x94D0_49BB_1331_11EB);
        assert_eq!(fingerprint(h), (p as u64) ^ ((p >> 64) as u64));
        assert_eq!(coefficients(0), 1);
        let (low, high) = coefficient_words(h);
        assert_eq!(coefficients(h), (u128::from(high) << 64) | u128::from(low));
    }
}
