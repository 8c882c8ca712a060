//! A key's equation: where its band starts, its 128 coefficients, and the
//! fingerprint its solution bits must produce.
//!
//! Everything derives from one mixed hash `h = mix64(hash + seed)`:
//!
//! - the band's start is `reduce(h, starts)`, from the high bits of `h`, so
//!   that sorting hashes by their top bits sorts keys by start;
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

/// The seeded mix every part of a key's equation derives from. Adding the
/// seed then applying the bijective `mix64` keeps distinct hashes distinct.
#[inline(always)]
pub(crate) fn mixed(hash: u64, seed: u64) -> u64 {
    mix64(hash.wrapping_add(seed))
}

/// The first slot of the key's band, below `starts`.
#[inline(always)]
pub(crate) fn start(h: u64, starts: usize) -> usize {
    reduce(h, starts)
}

/// The key's 128 coefficients: bit `i` is the coefficient of slot
/// `start + i`. Bit 0 is always set.
#[inline(always)]
pub(crate) fn coefficients(h: u64) -> u128 {
    let low = h.wrapping_mul(COEFF_LOW);
    let high = h.wrapping_mul(COEFF_HIGH);
    ((u128::from(high) << 64) | u128::from(low)) | 1
}

/// The key's fingerprint: bit `j` is what column `j` must give. The low 32
/// bits are stored; all 64 take part in construction.
#[inline(always)]
pub(crate) fn fingerprint(h: u64) -> u64 {
    folded_product(h)
}
