//! The lookup's column parities with AVX2, eight columns per step, chosen
//! at run time (`Solution::new` detects the CPU feature once).
//!
//! A column's bit is the parity of 128 bits: the band's coefficients and-ed
//! with a word of the start block and a word of the next. One 256-bit
//! register holds two adjacent columns' words, so two loads (each fused
//! with its and) and one xor give two columns' and-ed bits. Four such
//! registers (eight columns) are folded to 64 bits per column by one
//! unpack pair, to 32 by a shift, packed into eight 32-bit lanes, and five
//! shift-and-xor steps leave each lane's parity in its top bit, which one
//! `movmskps` gathers. That is about 30 instructions for eight columns,
//! the whole of a lookup at 1 % or 0.1 % in one or two steps, with no
//! branch on the data: a lookup's cost is mostly instructions while the
//! table is in cache, and the fewer it has, the more lookups the CPU keeps
//! in flight while it is not.
#![allow(unsafe_code)]

use std::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_loadu_si256,
    _mm256_movemask_ps, _mm256_permutevar8x32_epi32, _mm256_set_epi32, _mm256_set_epi64x, _mm256_setzero_si256,
    _mm256_shuffle_ps, _mm256_slli_epi32, _mm256_srli_epi64, _mm256_unpackhi_epi64,
    _mm256_unpacklo_epi64, _mm256_xor_si256,
};

/// Columns per step.
pub(crate) const STEP: usize = 8;

/// Whether the bits of the first `columns` columns (1 to 32) equal the low
/// bits of `fingerprint`. `here` is the start block's first column word,
/// and the next block's first word is `here + columns`.
///
/// # Safety
///
/// The CPU must support AVX2, and the `columns + columns.next_multiple_of(STEP)`
/// words from `here` must be readable: columns past `columns` are read,
/// and masked off (`Solution` pads its words for this).
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn matches(
    here: *const u128,
    columns: usize,
    low: u128,
    high: u128,
    fingerprint: u64,
) -> bool {
    // `unused_unsafe`: from Rust 1.87 the value-only intrinsics are safe in
    // an AVX2 function; the crate's minimum Rust (1.85) needs the block.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function (the caller checked the
    // CPU). `step` reads words `base .. base + STEP` from `here` and from
    // `here + columns`, with `base + STEP <= columns.next_multiple_of(STEP)`:
    // readable by the caller's contract. The unaligned loads have no
    // alignment requirement.
    unsafe {
        let there = here.add(columns);
        let low = _mm256_set_epi64x((low >> 64) as i64, low as i64, (low >> 64) as i64, low as i64);
        let high = _mm256_set_epi64x(
            (high >> 64) as i64,
            high as i64,
            (high >> 64) as i64,
            high as i64,
        );
        let step = |base: usize| -> u64 {
            let mut x = [_mm256_setzero_si256(); 4];
            for (k, x) in x.iter_mut().enumerate() {
                let at = base + 2 * k;
                let a = _mm256_loadu_si256(here.add(at).cast());
                let b = _mm256_loadu_si256(there.add(at).cast());
                *x = _mm256_xor_si256(_mm256_and_si256(a, low), _mm256_and_si256(b, high));
            }
            u64::from(parities8(x))
        };
        // One step serves every rate down to 2^-8 (and 1 %); lower rates
        // loop.
        let mut bits = step(0);
        let mut base = STEP;
        while base < columns {
            bits |= step(base) << base;
            base += STEP;
        }
        (bits ^ fingerprint) & ((1u64 << columns) - 1) == 0
    }
}

/// The parities of eight columns' 128-bit values, two per register, as
/// bits 0 to 7 in column order.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn parities8(x: [__m256i; 4]) -> u8 {
    // See `matches` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function; no memory is touched.
    unsafe {
        // Lanes (64 bits) of `a`: [c0, c2 | c1, c3], each a column's two
        // halves xored; `b` the same for c4..c7.
        let a = _mm256_xor_si256(
            _mm256_unpacklo_epi64(x[0], x[1]),
            _mm256_unpackhi_epi64(x[0], x[1]),
        );
        let b = _mm256_xor_si256(
            _mm256_unpacklo_epi64(x[2], x[3]),
            _mm256_unpackhi_epi64(x[2], x[3]),
        );
        // Fold each 64-bit lane into its low 32 bits and gather those:
        // [c0, c2, c4, c6 | c1, c3, c5, c7].
        let a = _mm256_xor_si256(a, _mm256_srli_epi64::<32>(a));
        let b = _mm256_xor_si256(b, _mm256_srli_epi64::<32>(b));
        let v =
            _mm256_shuffle_ps::<0b10_00_10_00>(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
        // Back to column order.
        let v = _mm256_permutevar8x32_epi32(
            _mm256_castps_si256(v),
            _mm256_set_epi32(7, 3, 6, 2, 5, 1, 4, 0),
        );
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<16>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<8>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<4>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<2>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<1>(v));
        _mm256_movemask_ps(_mm256_castsi256_ps(v)) as u8
    }
}
