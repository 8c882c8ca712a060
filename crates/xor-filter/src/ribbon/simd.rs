//! The lookup's column parities, four columns at a time in SSE2 registers
//! (every x86-64 CPU has SSE2, so no detection is needed).
//!
//! A column's bit is the parity of 128 bits (the band's coefficients and-ed
//! with two 128-bit words). One 128-bit register holds a column's and-ed
//! bits; two columns' halves are xored into two 64-bit lanes, two such
//! pairs are folded to 32 bits and packed into four 32-bit lanes, five
//! shift-and-xor steps leave each lane's parity in its top bit, and one
//! `movmskps` gathers the four bits. About a third of the instructions of
//! one parity per column in general-purpose registers, which is what
//! bounds a lookup while the table is in cache and how many lookups the
//! CPU can keep in flight while it is not.
#![allow(unsafe_code)]

use std::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_castps_si128, _mm_castsi128_ps, _mm_loadu_si128, _mm_movemask_ps,
    _mm_set_epi64x, _mm_shuffle_ps, _mm_slli_epi32, _mm_slli_epi64, _mm_unpackhi_epi64,
    _mm_unpacklo_epi64, _mm_xor_si128,
};

/// The and-ed bits of one column: `(low & here) ^ (high & there)`.
#[inline(always)]
fn column(here: &u128, there: &u128, low: __m128i, high: __m128i) -> __m128i {
    // SAFETY: SSE2 is part of every x86-64 target's baseline, so the
    // intrinsics are available; `_mm_loadu_si128` reads 16 bytes from a
    // pointer made from a reference to a `u128` (16 bytes, valid for
    // reads), and the unaligned load has no alignment requirement.
    unsafe {
        let a = _mm_loadu_si128(std::ptr::from_ref(here).cast());
        let b = _mm_loadu_si128(std::ptr::from_ref(there).cast());
        _mm_xor_si128(_mm_and_si128(a, low), _mm_and_si128(b, high))
    }
}

/// The parities of four columns' 128-bit values, as bits 0 to 3.
#[inline(always)]
fn parities4(x: [__m128i; 4]) -> u64 {
    // SAFETY: SSE2 only (see `column`); no memory is touched.
    unsafe {
        // Lanes [x0.lo ^ x0.hi, x1.lo ^ x1.hi] and the same for x2, x3.
        let a = _mm_xor_si128(
            _mm_unpacklo_epi64(x[0], x[1]),
            _mm_unpackhi_epi64(x[0], x[1]),
        );
        let b = _mm_xor_si128(
            _mm_unpacklo_epi64(x[2], x[3]),
            _mm_unpackhi_epi64(x[2], x[3]),
        );
        // Fold each 64-bit lane into its high 32 bits, then gather those.
        let a = _mm_xor_si128(a, _mm_slli_epi64::<32>(a));
        let b = _mm_xor_si128(b, _mm_slli_epi64::<32>(b));
        let mut v = _mm_castsi128_ps(a);
        v = _mm_shuffle_ps::<0b11_01_11_01>(v, _mm_castsi128_ps(b));
        let mut v = _mm_castps_si128(v);
        v = _mm_xor_si128(v, _mm_slli_epi32::<16>(v));
        v = _mm_xor_si128(v, _mm_slli_epi32::<8>(v));
        v = _mm_xor_si128(v, _mm_slli_epi32::<4>(v));
        v = _mm_xor_si128(v, _mm_slli_epi32::<2>(v));
        v = _mm_xor_si128(v, _mm_slli_epi32::<1>(v));
        _mm_movemask_ps(_mm_castsi128_ps(v)) as u64
    }
}

/// The 128-bit value `x` in a register.
#[inline(always)]
fn register(x: u128) -> __m128i {
    // SAFETY: SSE2 only (see `column`); no memory is touched.
    unsafe { _mm_set_epi64x((x >> 64) as i64, x as i64) }
}

/// Whether the bits of the `here.len()` columns (1 to 32) equal the low
/// bits of `fingerprint`. Every column is evaluated, without a branch on
/// the bits: stopping at the first group that differs made misses cheaper
/// but a mix of members and non-members slower (each stop is a branch
/// the CPU cannot predict). `here` and `there` have equal lengths.
#[inline(always)]
pub(crate) fn matches(
    here: &[u128],
    there: &[u128],
    low: u128,
    high: u128,
    fingerprint: u64,
) -> bool {
    let (low, high) = (register(low), register(high));
    let columns = here.len();
    let last = columns - 1;
    let mut group = 0;
    let mut bits = 0;
    while group < columns {
        // Columns past the last read the last one again; their bits are
        // masked off below.
        let at = |k: usize| (group + k).min(last);
        let x = [
            column(&here[at(0)], &there[at(0)], low, high),
            column(&here[at(1)], &there[at(1)], low, high),
            column(&here[at(2)], &there[at(2)], low, high),
            column(&here[at(3)], &there[at(3)], low, high),
        ];
        bits |= parities4(x) << group;
        group += 4;
    }
    (bits ^ fingerprint) & ((1u64 << columns) - 1) == 0
}
