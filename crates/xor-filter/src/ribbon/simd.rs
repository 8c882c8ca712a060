//! The lookup's column parities with AVX2 (or AVX-512), chosen once per
//! filter (`Solution::new` detects the CPU features and picks a [`Kernel`]
//! for the shape's column counts, so no lookup branches on either).
//!
//! A column's bit is the parity of the band's four coefficient words
//! and-ed with the column's words of the four blocks the band covers. One
//! 256-bit register holds eight adjacent columns' words of a block, so four
//! loads (each fused with its and) and three xors give eight columns'
//! and-ed bits in eight 32-bit lanes; shift-and-xor steps leave each
//! lane's parity in its top bit, which one `movmskps` gathers: about 25
//! instructions for eight columns, the whole of a lookup at 1 % in one
//! step, with no branch on the data. Nine to sixteen columns (0.1 %) take
//! two steps whose lanes share the folds. With AVX-512 one `vpternlogd` a
//! block does the and and the xor, and `vpopcntd` replaces the folds: one
//! 512-bit step serves sixteen columns in about fifteen instructions. A
//! lookup's cost is mostly instructions while the table is in cache, and
//! the fewer it has, the more lookups the CPU keeps in flight while it is
//! not.
//!
//! The `unused_unsafe` allowances (see the `matches` kernels): from Rust
//! 1.87 the value-only intrinsics are safe in an AVX2 function; the
//! crate's minimum Rust (1.85) needs the `unsafe` blocks.
#![allow(unsafe_code)]

use std::arch::x86_64::{
    __m256i, _mm_cvtsi32_si128, _mm_cvtsi128_si64, _mm_set_epi64x, _mm_srli_si128, _mm_xor_si128,
    _mm256_and_si256, _mm256_blend_epi16, _mm256_broadcastsi128_si256, _mm256_castsi256_ps,
    _mm256_castsi256_si128, _mm256_cmpeq_epi8, _mm256_extracti128_si256, _mm256_loadu_si256,
    _mm256_movemask_epi8, _mm256_movemask_ps, _mm256_packs_epi16, _mm256_permute4x64_epi64,
    _mm256_set_epi64x, _mm256_set1_epi64x, _mm256_setr_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_sll_epi16, _mm256_slli_epi16, _mm256_slli_epi32, _mm256_xor_si256,
};
use std::arch::x86_64::{_bzhi_u64, _mm256_set1_epi16, _mm256_set1_epi32, _mm256_srli_epi16};

/// Columns per step.
pub(crate) const STEP: usize = 8;

/// A lookup kernel: whether the bits of the first `columns` columns equal
/// the low bits of `fingerprint`. The band's four blocks of `columns` words
/// each start at `first`, `first + columns`, `first + 2 · columns` and
/// `first + 3 · columns`; `coefficients` are the band's 128 coefficients,
/// low word first, 32 bits per block from the low end.
///
/// # Safety
///
/// The CPU must support AVX2 and BMI2, `columns` must be in the kernel's
/// range ([`kernel`]), and the `3 · columns + 32` words from `first` must
/// be readable: up to 24 columns past `columns` may be read, and masked off
/// (`Solution` pads its words for this).
pub(crate) type Kernel = unsafe fn(*const u32, usize, &[u64; 2], u64) -> bool;

/// The kernel for a filter whose blocks have `max_columns − 1` or
/// `max_columns` columns (or `max_columns` only): one eight-column step up
/// to 8 columns, two up to 16, four beyond. Each is free of branches. Up
/// to 16 columns, CPUs with AVX-512 and its population count
/// (`avx512vpopcntdq`) take [`matches16_avx512`] instead.
pub(crate) fn kernel(max_columns: usize) -> Kernel {
    match max_columns {
        0..=STEP if avx512() => matches8_avx512,
        9..=16 if avx512() => matches16_avx512,
        0..=STEP => matches8,
        9..=16 => matches16,
        _ => matches32,
    }
}

/// Whether the CPU has what [`matches8_avx512`] and [`matches16_avx512`]
/// need (besides AVX2 and BMI2, which every kernel needs). Never under
/// Miri, which runs no inline assembly (the AVX2 kernels run there).
pub(crate) fn avx512() -> bool {
    !cfg!(miri)
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
}

/// [`Kernel`] for 1 to 8 columns with AVX-512 on 256-bit registers: as
/// [`matches16_avx512`] with eight lanes, whose low count bits
/// `vmovmskps` gathers once shifted to the top.
///
/// # Safety
///
/// As [`Kernel`], and the CPU must have the features [`avx512`] tests;
/// `columns` is at most 8.
#[target_feature(enable = "avx2,bmi2")]
unsafe fn matches8_avx512(
    first: *const u32,
    columns: usize,
    coefficients: &[u64; 2],
    fingerprint: u64,
) -> bool {
    let bits: u32;
    // SAFETY: as in `matches16_avx512`, reading words `0 .. 8` from each
    // block's first.
    unsafe {
        std::arch::asm!(
            "vpbroadcastd ymm0, dword ptr [{c}]",
            "vpbroadcastd ymm1, dword ptr [{c} + 4]",
            "vpbroadcastd ymm2, dword ptr [{c} + 8]",
            "vpbroadcastd ymm3, dword ptr [{c} + 12]",
            "vpand ymm4, ymm0, ymmword ptr [{f}]",
            "vpternlogd ymm4, ymm1, ymmword ptr [{f} + 4 * {n}], 0x78",
            "vpternlogd ymm4, ymm2, ymmword ptr [{f} + 8 * {n}], 0x78",
            "vpternlogd ymm4, ymm3, ymmword ptr [{f3}], 0x78",
            "vpopcntd ymm4, ymm4",
            "vpslld ymm4, ymm4, 31",
            "vmovmskps {bits:e}, ymm4",
            "vzeroupper",
            c = in(reg) coefficients.as_ptr(),
            f = in(reg) first,
            n = in(reg) columns,
            f3 = in(reg) first.add(3 * columns),
            bits = lateout(reg) bits,
            // The registers written, and every one whose upper half
            // `vzeroupper` clears.
            out("ymm0") _,
            out("ymm1") _,
            out("ymm2") _,
            out("ymm3") _,
            out("ymm4") _,
            out("ymm5") _,
            out("ymm6") _,
            out("ymm7") _,
            out("ymm8") _,
            out("ymm9") _,
            out("ymm10") _,
            out("ymm11") _,
            out("ymm12") _,
            out("ymm13") _,
            out("ymm14") _,
            out("ymm15") _,
            options(nostack, readonly, preserves_flags),
        );
    }
    // Only the low `columns` bits count. See `matches32` for
    // `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: BMI2 is enabled on this function; no memory is touched.
    unsafe {
        _bzhi_u64(u64::from(bits) ^ fingerprint, columns as u32) == 0
    }
}

/// [`Kernel`] for 1 to 16 columns with AVX-512: one 16-column step. Each
/// block's sixteen words from its first are and-ed with its coefficient
/// word and xored together (one `vpternlogd` a block), `vpopcntd` counts
/// each lane's bits, and the low bits of the counts are the columns'
/// bits: about fifteen instructions for all columns, where the AVX2
/// kernels fold each lane with shifts.
///
/// The workspace's minimum Rust (1.85) has neither the AVX-512 intrinsics
/// nor `target_feature(enable = "avx512f")`, so the step is written as
/// inline assembly, run only where [`avx512`] detected the features at run
/// time. It declares clobbered every vector register it writes or
/// `vzeroupper` changes (ymm0 to ymm15, whole; `vzeroupper` leaves any
/// others alone) and uses no mask register.
///
/// # Safety
///
/// As [`Kernel`], and the CPU must have the features [`avx512`] tests;
/// `columns` is at most 16.
#[target_feature(enable = "avx2,bmi2")]
unsafe fn matches16_avx512(
    first: *const u32,
    columns: usize,
    coefficients: &[u64; 2],
    fingerprint: u64,
) -> bool {
    let bits: u32;
    // SAFETY: the CPU has AVX-512F and AVX-512 VPOPCNTDQ (the caller's
    // contract). The loads read words `0 .. 16` from `first + k ·
    // columns` for k < 4, at most `3 · columns + 16` words from `first`,
    // readable by the caller's contract, and the 16 bytes of
    // `coefficients`. Every vector register it writes or `vzeroupper`
    // changes is declared clobbered.
    unsafe {
        std::arch::asm!(
            "vpbroadcastd zmm0, dword ptr [{c}]",
            "vpbroadcastd zmm1, dword ptr [{c} + 4]",
            "vpbroadcastd zmm2, dword ptr [{c} + 8]",
            "vpbroadcastd zmm3, dword ptr [{c} + 12]",
            "vpandd zmm4, zmm0, zmmword ptr [{f}]",
            // x ^= c_k & block k (truth table 0x78: a ^ (b & c)).
            "vpternlogd zmm4, zmm1, zmmword ptr [{f} + 4 * {n}], 0x78",
            "vpternlogd zmm4, zmm2, zmmword ptr [{f} + 8 * {n}], 0x78",
            "vpternlogd zmm4, zmm3, zmmword ptr [{f3}], 0x78",
            "vpopcntd zmm4, zmm4",
            // Each lane's low bit to its low byte's top bit, the lanes'
            // low bytes to one register, and their top bits to a mask.
            "vpslld zmm4, zmm4, 7",
            "vpmovdb xmm4, zmm4",
            "vpmovmskb {bits:e}, xmm4",
            "vzeroupper",
            c = in(reg) coefficients.as_ptr(),
            f = in(reg) first,
            n = in(reg) columns,
            f3 = in(reg) first.add(3 * columns),
            bits = lateout(reg) bits,
            // The registers written, and every one whose upper half
            // `vzeroupper` clears.
            out("ymm0") _,
            out("ymm1") _,
            out("ymm2") _,
            out("ymm3") _,
            out("ymm4") _,
            out("ymm5") _,
            out("ymm6") _,
            out("ymm7") _,
            out("ymm8") _,
            out("ymm9") _,
            out("ymm10") _,
            out("ymm11") _,
            out("ymm12") _,
            out("ymm13") _,
            out("ymm14") _,
            out("ymm15") _,
            options(nostack, readonly, preserves_flags),
        );
    }
    // Only the low `columns` bits count. See `matches32` for
    // `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: BMI2 is enabled on this function; no memory is touched.
    unsafe {
        _bzhi_u64(u64::from(bits) ^ fingerprint, columns as u32) == 0
    }
}

/// The four coefficient words, each in all eight lanes of a register,
/// broadcast from memory (one load each).
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn coefficients(words: &[u64; 2]) -> [__m256i; 4] {
    // See `matches32` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function; the reads are of `words`.
    unsafe {
        let at = words.as_ptr().cast::<i32>();
        std::array::from_fn(|k| _mm256_set1_epi32(at.add(k).read_unaligned()))
    }
}

/// Eight adjacent columns' and-ed words from `at` on, xored over the four
/// blocks: lane `i` holds column `at + i`'s 32 bits, whose parity is the
/// column's bit.
///
/// # Safety
///
/// The CPU must support AVX2; words `at .. at + 8` from `first + k ·
/// columns` must be readable for k < 4.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn eight(first: *const u32, columns: usize, c: &[__m256i; 4], at: usize) -> __m256i {
    // See `matches32` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function; the reads are readable by
    // the caller's contract, and the unaligned loads have no alignment
    // requirement.
    unsafe {
        let x = |k: usize| {
            _mm256_and_si256(_mm256_loadu_si256(first.add(k * columns + at).cast()), c[k])
        };
        _mm256_xor_si256(_mm256_xor_si256(x(0), x(1)), _mm256_xor_si256(x(2), x(3)))
    }
}

/// [`Kernel`] for 1 to 8 columns: one step.
///
/// # Safety
///
/// As [`Kernel`].
#[target_feature(enable = "avx2,bmi2")]
unsafe fn matches8(
    first: *const u32,
    columns: usize,
    coefficients: &[u64; 2],
    fingerprint: u64,
) -> bool {
    // See `matches32` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function (the caller checked the
    // CPU); the step reads words `0 .. 8` of each block, at most `3 ·
    // columns + 8` words from `first`, readable by the caller's contract.
    unsafe {
        let c = self::coefficients(coefficients);
        let bits = u64::from(parities8(eight(first, columns, &c, 0)));
        // Only the low `columns` bits count.
        _bzhi_u64(bits ^ fingerprint, columns as u32) == 0
    }
}

/// [`Kernel`] for 8 to 16 columns: two steps, columns 0 to 7 and the last
/// eight, `columns − 8` on. Where they overlap a column is compared twice,
/// so no bit needs masking, and the second step's reads end where the
/// band's words do: they touch no cache line past the band's.
///
/// # Safety
///
/// As [`Kernel`].
#[target_feature(enable = "avx2,bmi2")]
unsafe fn matches16(
    first: *const u32,
    columns: usize,
    coefficients: &[u64; 2],
    fingerprint: u64,
) -> bool {
    // See `matches32` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function (the caller checked the
    // CPU); the steps read words `0 .. 8` and `columns − 8 .. columns` of
    // each block, at most `3 · columns + 8` words from `first`, readable by
    // the caller's contract.
    unsafe {
        let c = self::coefficients(coefficients);
        let last = columns - STEP;
        let (a, b) = parities16(
            eight(first, columns, &c, 0),
            eight(first.add(last), columns, &c, 0),
        );
        let wrong = (u64::from(a) ^ fingerprint) | (u64::from(b) ^ (fingerprint >> last));
        wrong as u8 == 0
    }
}

/// [`Kernel`] for 16 to 32 columns: four steps, the last one taking the
/// last eight columns, `columns − 8` on, which may repeat columns of the
/// step before (the same bits again).
///
/// # Safety
///
/// As [`Kernel`].
#[target_feature(enable = "avx2,bmi2")]
unsafe fn matches32(
    first: *const u32,
    columns: usize,
    coefficients: &[u64; 2],
    fingerprint: u64,
) -> bool {
    // `unused_unsafe`: from Rust 1.87 the value-only intrinsics are safe in
    // an AVX2 function; the crate's minimum Rust (1.85) needs the block.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function (the caller checked the
    // CPU). The steps read words `0 .. 24` and `columns − 8 .. columns` of
    // each block, at most `3 · columns + 24` words from `first`, readable
    // by the caller's contract.
    unsafe {
        let c = self::coefficients(coefficients);
        let last = columns - STEP;
        let (a, b) = parities16(
            eight(first, columns, &c, 0),
            eight(first, columns, &c, STEP),
        );
        let (x, d) = parities16(
            eight(first, columns, &c, 2 * STEP),
            eight(first, columns, &c, last),
        );
        let bits =
            u64::from(a) | u64::from(b) << STEP | u64::from(x) << (2 * STEP) | u64::from(d) << last;
        // Only the low `columns` bits count.
        _bzhi_u64(bits ^ fingerprint, columns as u32) == 0
    }
}

/// Every kernel [`kernel`]`(max_columns)` may return on some CPU that this
/// one can run (tests): the AVX2 one, and the AVX-512 one where [`avx512`].
#[cfg(test)]
pub(crate) fn kernels(max_columns: usize) -> Vec<Kernel> {
    let mut kernels: Vec<Kernel> = vec![match max_columns {
        0..=STEP => matches8,
        9..=16 => matches16,
        _ => matches32,
    }];
    if max_columns <= 16 && avx512() {
        kernels.push(if max_columns <= STEP {
            matches8_avx512
        } else {
            matches16_avx512
        });
    }
    kernels
}

/// Whether blocks of `columns` columns may meet [`kernel`]`(max_columns)`:
/// those of `max_columns − 1` and `max_columns` columns (tests).
#[cfg(test)]
pub(crate) fn kernel_serves(max_columns: usize, columns: usize) -> bool {
    (max_columns.saturating_sub(1)..=max_columns).contains(&columns) && columns >= 1
}

/// The parities of eight columns' 32-bit values, one per lane, as bits 0
/// to 7 in column order.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn parities8(v: __m256i) -> u8 {
    // See `matches32` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function; no memory is touched.
    unsafe {
        // Each lane folds down to its top bit, which `movmskps` gathers.
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<16>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<8>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<4>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<2>(v));
        let v = _mm256_xor_si256(v, _mm256_slli_epi32::<1>(v));
        _mm256_movemask_ps(_mm256_castsi256_ps(v)) as u8
    }
}

/// The parities of two registers of eight columns' 32-bit values, one
/// byte each (bit `i` for lane `i`). Both fold to 16 bits and share one
/// register, `a` in the high halves of its lanes and `b` in the low ones,
/// so the last four steps serve both.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn parities16(a: __m256i, b: __m256i) -> (u8, u8) {
    // See `matches32` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function; no memory is touched.
    unsafe {
        // `a`'s high halves and `b`'s low ones, xored with the other
        // halves swapped into place: each 16-bit half of `v` is one
        // column's fold to 16 bits.
        let kept = _mm256_blend_epi16::<0b1010_1010>(b, a);
        let other = _mm256_blend_epi16::<0b1010_1010>(a, b);
        let swap = _mm256_setr_epi8(
            2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11,
            8, 9, 14, 15, 12, 13,
        );
        let v = _mm256_xor_si256(kept, _mm256_shuffle_epi8(other, swap));
        // Each 16-bit half folds to 4 bits (bits 8 to 11), whose parity a
        // table gives as the top bit of the half.
        let v = _mm256_xor_si256(v, _mm256_slli_epi16::<8>(v));
        let v = _mm256_xor_si256(v, _mm256_srli_epi16::<4>(v));
        let nibble = _mm256_and_si256(v, _mm256_set1_epi16(0x0F00));
        let odd = _mm256_setr_epi8(
            0, -128, -128, 0, -128, 0, 0, -128, -128, 0, 0, -128, 0, -128, -128, 0, 0, -128, -128,
            0, -128, 0, 0, -128, -128, 0, 0, -128, 0, -128, -128, 0,
        );
        let v = _mm256_shuffle_epi8(odd, nibble);
        let high = _mm256_movemask_ps(_mm256_castsi256_ps(v)) as u8;
        let low = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32::<16>(v))) as u8;
        (high, low)
    }
}

/// Bytes past the last slot that [`solve_bytes`] reads (as zeros).
pub(crate) const SOLVE_PAD: usize = 144;

/// Back substitution with AVX2 for at most eight columns: every slot's
/// solution bits, one byte a slot (bit `j` for column `j`), from the last
/// slot down. `rows` are the banded equations (coefficients' low and high
/// words and fingerprint, all 0 for a free slot); `solved` has
/// [`SOLVE_PAD`] zero bytes more than `rows` has slots and is written in
/// place.
///
/// A slot's byte is its fingerprint's low byte xor the bytes of the slots
/// its other coefficients name: the coefficients, spread to one byte mask
/// a slot, select the bytes from the slot up, and a fold xors them
/// together; about 50 instructions a slot for all columns at once, where
/// the column-by-column parities take a dozen a column. The eight slots
/// just solved are taken from a register, not from memory: a wide load of
/// bytes stored a moment ago waits until the stores reach the cache.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn solve_bytes(rows: &[[u64; 3]], solved: &mut [u8]) {
    /// Slots above the current one that come from the register.
    const NEAR: u32 = 8;
    assert!(solved.len() >= rows.len() + SOLVE_PAD);
    // See `matches32` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function (the caller checked the
    // CPU). The loads read bytes `slot + 9 .. slot + 137` of `solved`,
    // inside it by the assertion above (`slot < rows.len()`).
    unsafe {
        let bit_of_byte =
            _mm256_set1_epi64x(i64::from_ne_bytes(0x8040_2010_0804_0201u64.to_ne_bytes()));
        // Byte `i` of mask `q` takes coefficient byte `4 q + i / 8`.
        let spread: [__m256i; 4] = std::array::from_fn(|q| {
            let b = |k: usize| (4 * q + k) as i8;
            _mm256_setr_epi8(
                b(0),
                b(0),
                b(0),
                b(0),
                b(0),
                b(0),
                b(0),
                b(0),
                b(1),
                b(1),
                b(1),
                b(1),
                b(1),
                b(1),
                b(1),
                b(1),
                b(2),
                b(2),
                b(2),
                b(2),
                b(2),
                b(2),
                b(2),
                b(2),
                b(3),
                b(3),
                b(3),
                b(3),
                b(3),
                b(3),
                b(3),
                b(3),
            )
        });
        let base = solved.as_mut_ptr();
        // Byte `k − 1` is slot `slot + k`'s, for k = 1 to 8.
        let mut recent = 0u64;
        for (slot, &[low, high, fingerprint]) in rows.iter().enumerate().rev() {
            let byte = if low | high == 0 {
                // A free slot takes 0.
                0
            } else {
                // Coefficients of slots `slot + 9` on, from bit 0.
                let coefficients = (u128::from(low) | u128::from(high) << 64) >> (NEAR + 1);
                let both = _mm256_broadcastsi128_si256(_mm_set_epi64x(
                    i64::from_ne_bytes(((coefficients >> 64) as u64).to_ne_bytes()),
                    i64::from_ne_bytes((coefficients as u64).to_ne_bytes()),
                ));
                let at = base.add(slot + NEAR as usize + 1);
                let mut acc = _mm256_setzero_si256();
                for (q, spread) in spread.iter().enumerate() {
                    let bits = _mm256_and_si256(_mm256_shuffle_epi8(both, *spread), bit_of_byte);
                    let mask = _mm256_cmpeq_epi8(bits, bit_of_byte);
                    let bytes = _mm256_loadu_si256(at.add(32 * q).cast());
                    acc = _mm256_xor_si256(acc, _mm256_and_si256(mask, bytes));
                }
                let x = _mm_xor_si128(
                    _mm256_castsi256_si128(acc),
                    _mm256_extracti128_si256::<1>(acc),
                );
                let x = _mm_cvtsi128_si64(_mm_xor_si128(x, _mm_srli_si128::<8>(x)));
                // The near slots: coefficient bits 1 to 8 to byte masks
                // (bit k of the byte-spread copy, then each non-zero byte
                // to 0xFF).
                let near = (low >> 1) & 0xFF;
                let near = near.wrapping_mul(0x0101_0101_0101_0101) & 0x8040_2010_0804_0201;
                let near = ((near | near.wrapping_add(0x7F7F_7F7F_7F7F_7F7F)) >> 7)
                    & 0x0101_0101_0101_0101;
                let x = u64::from_ne_bytes(x.to_ne_bytes()) ^ (recent & near.wrapping_mul(0xFF));
                let x = x ^ (x >> 32);
                let x = x ^ (x >> 16);
                let x = x ^ (x >> 8);
                (x ^ fingerprint) as u8
            };
            *base.add(slot) = byte;
            recent = recent << 8 | u64::from(byte);
        }
    }
}

/// As [`solve_bytes`] for at most sixteen columns: 16 bits a slot. The
/// coefficients select 16-bit lanes, and the four slots just solved come
/// from a register.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn solve_halves(rows: &[[u64; 3]], solved: &mut [u16]) {
    /// Slots above the current one that come from the register.
    const NEAR: u32 = 4;
    assert!(solved.len() >= rows.len() + SOLVE_PAD);
    // See `matches32` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function (the caller checked the
    // CPU). The loads read slots `slot + 5 .. slot + 133` of `solved`,
    // inside it by the assertion above (`slot < rows.len()`).
    unsafe {
        // Lane `i` of a register: bit `i mod 8` in both its bytes.
        let (lanes_0_3, lanes_4_7) = (0x0808_0404_0202_0101u64, 0x8080_4040_2020_1010u64);
        let (lanes_0_3, lanes_4_7) = (
            i64::from_ne_bytes(lanes_0_3.to_ne_bytes()),
            i64::from_ne_bytes(lanes_4_7.to_ne_bytes()),
        );
        let bit_of_lane = _mm256_set_epi64x(lanes_4_7, lanes_0_3, lanes_4_7, lanes_0_3);
        // Lane `i` of register `q` takes coefficient byte `2 q + i / 8`
        // (the low 128-bit half holds lanes 0 to 7).
        let spread: [__m256i; 8] = std::array::from_fn(|q| {
            let b = |k: usize| i64::from_ne_bytes([(2 * q + k) as u8; 8]);
            _mm256_set_epi64x(b(1), b(1), b(0), b(0))
        });
        let base = solved.as_mut_ptr();
        // Lane `k − 1` is slot `slot + k`'s, for k = 1 to 4.
        let mut recent = 0u64;
        for (slot, &[low, high, fingerprint]) in rows.iter().enumerate().rev() {
            let value = if low | high == 0 {
                // A free slot takes 0.
                0
            } else {
                // Coefficients of slots `slot + 5` on, from bit 0.
                let coefficients = (u128::from(low) | u128::from(high) << 64) >> (NEAR + 1);
                let both = _mm256_broadcastsi128_si256(_mm_set_epi64x(
                    i64::from_ne_bytes(((coefficients >> 64) as u64).to_ne_bytes()),
                    i64::from_ne_bytes((coefficients as u64).to_ne_bytes()),
                ));
                let at = base.add(slot + NEAR as usize + 1);
                let mut acc = _mm256_setzero_si256();
                for (q, spread) in spread.iter().enumerate() {
                    let bits = _mm256_and_si256(_mm256_shuffle_epi8(both, *spread), bit_of_lane);
                    let mask = _mm256_cmpeq_epi8(bits, bit_of_lane);
                    let lanes = _mm256_loadu_si256(at.add(16 * q).cast());
                    acc = _mm256_xor_si256(acc, _mm256_and_si256(mask, lanes));
                }
                let x = _mm_xor_si128(
                    _mm256_castsi256_si128(acc),
                    _mm256_extracti128_si256::<1>(acc),
                );
                let x = _mm_cvtsi128_si64(_mm_xor_si128(x, _mm_srli_si128::<8>(x)));
                // The near slots: coefficient bits 1 to 4 to lane masks.
                let near = (low >> 1) & 0xF;
                let near = near.wrapping_mul(0x0001_0001_0001_0001) & 0x0008_0004_0002_0001;
                let near = ((near | near.wrapping_add(0x7FFF_7FFF_7FFF_7FFF)) >> 15)
                    & 0x0001_0001_0001_0001;
                let x = u64::from_ne_bytes(x.to_ne_bytes()) ^ (recent & near.wrapping_mul(0xFFFF));
                let x = x ^ (x >> 32);
                let x = x ^ (x >> 16);
                (x ^ fingerprint) as u16
            };
            *base.add(slot) = value;
            recent = recent << 16 | u64::from(value);
        }
    }
}

/// As [`column_words`] for the 16-bit slots [`solve_halves`] leaves.
///
/// # Safety
///
/// The CPU must support AVX2, and 32 slots from `slots` must be readable.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn column_words_halves(slots: *const u16, columns: usize, words: &mut [u32]) {
    // See `matches32` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function; 32 slots from `slots` are
    // readable (the caller's contract).
    unsafe {
        let a = _mm256_loadu_si256(slots.cast());
        let b = _mm256_loadu_si256(slots.add(16).cast());
        for (column, word) in (0..16).zip(words.iter_mut().take(columns)) {
            // Bit `column` of each lane to its sign bit; a saturating pack
            // to bytes keeps the sign, then the halves back in slot order.
            let count = _mm_cvtsi32_si128(15 - column);
            let packed = _mm256_packs_epi16(_mm256_sll_epi16(a, count), _mm256_sll_epi16(b, count));
            let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
            *word = _mm256_movemask_epi8(ordered) as u32;
        }
    }
}

/// Column `column`'s word of each of the 32 slots whose bytes start at
/// `bytes` (as [`solve_bytes`] leaves them): bit `i` is bit `column` of
/// byte `i`.
///
/// # Safety
///
/// The CPU must support AVX2, and 32 bytes from `bytes` must be readable.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn column_words(bytes: *const u8, columns: usize, words: &mut [u32]) {
    // See `matches32` for `unused_unsafe`.
    #[allow(unused_unsafe)]
    // SAFETY: AVX2 is enabled on this function; 32 bytes from `bytes` are
    // readable (the caller's contract).
    unsafe {
        let v = _mm256_loadu_si256(bytes.cast());
        for (column, word) in (0..8).zip(words.iter_mut().take(columns)) {
            // Bit `column` of each byte to the byte's top bit: a 16-bit
            // shift moves no bit of a lane's low byte into its high byte's
            // top bit for shifts below 8.
            let shifted = _mm256_sll_epi16(v, _mm_cvtsi32_si128(7 - column));
            *word = _mm256_movemask_epi8(shifted) as u32;
        }
    }
}
