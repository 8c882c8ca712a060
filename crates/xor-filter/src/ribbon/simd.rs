//! The lookup's column parities with AVX2, eight columns per step (four in
//! a half step), chosen at run time (`Solution::new` detects the CPU
//! feature once).
//!
//! A column's bit is the parity of the band's three coefficient words
//! and-ed with the column's words of the three blocks the band covers. One
//! 256-bit register holds four adjacent columns' words of a block, so
//! three loads (each fused with its and) and two xors give four columns'
//! and-ed bits. Two such registers (eight columns) are folded to 32 bits
//! per column, packed into eight 32-bit lanes, and five shift-and-xor
//! steps leave each lane's parity in its top bit, which one `movmskps`
//! gathers: about 30 instructions for eight columns, the whole of a lookup
//! at 1 % in one step, with no branch on the data. Four columns fold in
//! their own 64-bit lanes and `movmskpd` gathers them: a half step, for
//! the last few columns of a lookup (the tenth of a lookup at 0.1 %). A lookup's cost is
//! mostly instructions while the table is in cache, and the fewer it has,
//! the more lookups the CPU keeps in flight while it is not.
#![allow(unsafe_code)]

use std::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_castps_si256, _mm256_castsi256_pd, _mm256_castsi256_ps,
    _mm256_loadu_si256, _mm256_movemask_pd, _mm256_movemask_ps, _mm256_permutevar8x32_epi32,
    _mm256_set_epi32, _mm256_set1_epi64x, _mm256_shuffle_ps, _mm256_slli_epi32, _mm256_slli_epi64,
    _mm256_srli_epi64, _mm256_xor_si256,
};

/// Columns per step.
pub(crate) const STEP: usize = 8;

/// Whether the bits of the first `columns` columns (1 to 32) equal the low
/// bits of `fingerprint`. `first` is the start block's first column word;
/// the next two blocks' first words are `first + second` and
/// `first + third`; `coefficients` are the band's three words, one per
/// block.
///
/// # Safety
///
/// The CPU must support AVX2, and the `third + columns.next_multiple_of(STEP)`
/// words from `first` must be readable (`second <= third`): columns past
/// `columns` are read, and masked off (`Solution` pads its words for this).
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn matches(
    first: *const u64,
    second: usize,
    third: usize,
    columns: usize,
    coefficients: [u64; 3],
    fingerprint: u64,
) -> bool {
    // `unused_unsafe`: from Rust 1.87 the value-only intrinsics are safe in
    // an AVX2 function; the crate's minimum Rust (1.85) needs the block.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function (the caller checked the
    // CPU). A step reads words `base .. base + STEP` from `first`,
    // `first + second` and `first + third`, with
    // `base + STEP <= columns.next_multiple_of(STEP)`: readable by the
    // caller's contract. The unaligned loads have no alignment requirement.
    unsafe {
        let blocks = [first, first.add(second), first.add(third)];
        // The same 64 bits in each lane.
        let c = coefficients.map(|c| _mm256_set1_epi64x(i64::from_ne_bytes(c.to_ne_bytes())));
        let four = |at: usize| -> __m256i {
            let x = |k: usize| _mm256_and_si256(_mm256_loadu_si256(blocks[k].add(at).cast()), c[k]);
            _mm256_xor_si256(_mm256_xor_si256(x(0), x(1)), x(2))
        };
        let step = |base: usize| u64::from(parities8(four(base), four(base + 4)));
        let half = |base: usize| u64::from(parities4(four(base)));
        // One step serves the rates down to 2^-8 (1 % among them), a half
        // step those down to 2^-4; lower rates take more steps, and a half
        // step for a last four columns or fewer (0.1 % takes one and a half).
        let (mut bits, mut base) = if columns <= 4 {
            (half(0), 4)
        } else {
            (step(0), STEP)
        };
        while base + 4 < columns {
            bits |= step(base) << base;
            base += STEP;
        }
        if base < columns {
            bits |= half(base) << base;
        }
        (bits ^ fingerprint) & ((1u64 << columns) - 1) == 0
    }
}

/// The parities of four columns' 64-bit values, one per lane, as bits 0
/// to 3 in column order.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn parities4(x: __m256i) -> u8 {
    // See `matches` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function; no memory is touched.
    unsafe {
        // Each lane's fold into its high 32 bits, then down to the lane's
        // top bit, which `movmskpd` gathers.
        let v = _mm256_xor_si256(x, _mm256_slli_epi64::<32>(x));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<16>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<8>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<4>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<2>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<1>(v));
        _mm256_movemask_pd(_mm256_castsi256_pd(v)) as u8
    }
}

/// The parities of eight columns' 64-bit values, four per register, as
/// bits 0 to 7 in column order.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn parities8(a: __m256i, b: __m256i) -> u8 {
    // See `matches` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function; no memory is touched.
    unsafe {
        // Fold each 64-bit lane into its low 32 bits and gather those:
        // [c0, c1, c4, c5 | c2, c3, c6, c7].
        let a = _mm256_xor_si256(a, _mm256_srli_epi64::<32>(a));
        let b = _mm256_xor_si256(b, _mm256_srli_epi64::<32>(b));
        let v = _mm256_shuffle_ps::<0b10_00_10_00>(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
        // Back to column order.
        let v = _mm256_permutevar8x32_epi32(
            _mm256_castps_si256(v),
            _mm256_set_epi32(7, 6, 3, 2, 5, 4, 1, 0),
        );
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<16>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<8>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<4>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<2>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<1>(v));
        _mm256_movemask_ps(_mm256_castsi256_ps(v)) as u8
    }
}
