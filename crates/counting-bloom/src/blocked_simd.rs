//! The blocked filter's lookup in AVX2, chosen at run time where the CPU has
//! it.
//!
//! Why `unsafe` here and nowhere else: a lookup whose two cache misses overlap
//! with other lookups' is bound by how many instructions and loads each
//! lookup puts in the CPU's window, not by memory. The portable lookup tests
//! each counter with its own load, shift and compare (about 130 instructions
//! and 10 loads for k = 10); measured at 1M keys and p = 0.1 % on a 2-core
//! AMD EPYC it answered in 55–90 ns, 3–4× the classic-layout counting filter,
//! although it touches 2 cache lines instead of 10. The AVX2 kernel reads each
//! block with two 32-byte loads and tests all eight words at once with
//! per-lane variable shifts (`vpsrlvq`, which plain x86-64 lacks), about 45
//! instructions per lookup. Calling a function compiled for AVX2 is only sound
//! on a CPU that has it, which [`Kernel::detect`] checks once, when the filter
//! is built.
//!
//! Both kernels test exactly the counters of `counter_block.rs`, so answers
//! never depend on the CPU; a test checks that they agree.

#![allow(unsafe_code)]

use crate::counter_block::{Block, Half, shift_in_word};

/// Which lookup implementation a filter uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// Plain Rust, any target.
    Portable,
    /// AVX2 intrinsics; only ever constructed after a successful runtime
    /// check for AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    /// The fastest kernel this CPU supports.
    pub(crate) fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
        }
        Kernel::Portable
    }
}

/// The words of `block` whose counter named by `bits` is zero, as a bit mask
/// (bit w for word w), in plain Rust.
#[inline(always)]
fn zero_words_portable(block: &Block, bits: u64) -> u8 {
    let mut zero = 0u8;
    for (w, word) in block.0.iter().enumerate() {
        zero |= u8::from((word >> shift_in_word(bits, w)) & 15 == 0) << w;
    }
    zero
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    // The intrinsics are called inside `unsafe` blocks although Rust 1.87 and
    // later consider most of them safe in an AVX2 function: the workspace's
    // minimum Rust (1.85) requires the blocks, and newer compilers would
    // otherwise warn that they are unused.
    #![allow(unused_unsafe)]

    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_castsi256_pd, _mm256_cmpeq_epi64, _mm256_load_si256,
        _mm256_movemask_pd, _mm256_set1_epi64x, _mm256_setr_epi64x, _mm256_setzero_si256,
        _mm256_srlv_epi64,
    };

    use crate::counter_block::Block;

    /// The words of `block` whose counter named by `bits` is zero, as a bit
    /// mask (bit w for word w): the AVX2 twin of `zero_words_portable`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn zero_words(block: &Block, bits: u64) -> u8 {
        let lanes = block.0.as_ptr().cast::<__m256i>();
        // SAFETY: the caller guarantees AVX2. `Block` is 64 bytes aligned to
        // 64, so both 32-byte halves are in bounds and 32-byte aligned as
        // `_mm256_load_si256` requires.
        unsafe {
            // A bit-for-bit reinterpretation: the intrinsic takes i64. The
            // counters are named by the low 32 bits, so shifting two bits out
            // at the top loses nothing.
            let g = _mm256_set1_epi64x(i64::from_ne_bytes((bits << 2).to_ne_bytes()));
            let nibble = _mm256_set1_epi64x(15);
            let shift_mask = _mm256_set1_epi64x(0x3C);
            // Word w's counter shift is 4·((bits >> 4w) & 15), that is
            // ((bits << 2) >> 4w) & 0x3C.
            let low_shift = _mm256_and_si256(
                _mm256_srlv_epi64(g, _mm256_setr_epi64x(0, 4, 8, 12)),
                shift_mask,
            );
            let high_shift = _mm256_and_si256(
                _mm256_srlv_epi64(g, _mm256_setr_epi64x(16, 20, 24, 28)),
                shift_mask,
            );
            let low = _mm256_and_si256(
                _mm256_srlv_epi64(_mm256_load_si256(lanes), low_shift),
                nibble,
            );
            let high = _mm256_and_si256(
                _mm256_srlv_epi64(_mm256_load_si256(lanes.add(1)), high_shift),
                nibble,
            );
            let zero = _mm256_setzero_si256();
            let low_zero = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(low, zero)));
            let high_zero = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(high, zero)));
            // movemask sets only the low four bits of each.
            (low_zero | (high_zero << 4)) as u8
        }
    }

    /// Whether both halves find all their counters non-zero.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn contains(
        a: &Block,
        a_bits: u64,
        b: &Block,
        b_bits: u64,
        active: [u8; 2],
    ) -> bool {
        // SAFETY: the caller guarantees AVX2.
        unsafe { (zero_words(a, a_bits) & active[0]) | (zero_words(b, b_bits) & active[1]) == 0 }
    }
}

/// The portable lookup. Kept out of line where AVX2 is compiled in, so that
/// the dispatching caller stays small.
#[cfg_attr(target_arch = "x86_64", inline(never))]
#[cfg_attr(not(target_arch = "x86_64"), inline(always))]
fn contains_portable(a: &Block, a_bits: u64, b: &Block, b_bits: u64, active: [u8; 2]) -> bool {
    (zero_words_portable(a, a_bits) & active[0]) | (zero_words_portable(b, b_bits) & active[1]) == 0
}

/// Whether every counter of both halves is non-zero, `first` in block `a`
/// and `second` in block `b`, by `kernel`. Both blocks are read before
/// anything is tested, and nothing branches on their contents.
#[inline(always)]
pub(crate) fn contains(kernel: Kernel, first: Half, a: &Block, second: Half, b: &Block) -> bool {
    let active = [first.words, second.words];
    match kernel {
        Kernel::Portable => contains_portable(a, first.bits, b, second.bits, active),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Kernel::Avx2` is only constructed by `Kernel::detect`
        // after `is_x86_feature_detected!("avx2")` returned true.
        Kernel::Avx2 => unsafe { avx2::contains(a, first.bits, b, second.bits, active) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter_block::halves;
    use filter_core::mix64;

    /// Both kernels find the same zero counters, and they are exactly the
    /// counters the scalar slots name.
    #[test]
    fn kernels_agree_with_the_slots() {
        let kernel = Kernel::detect();
        for i in 0..20_000u64 {
            let mut block = Block::default();
            for (w, word) in block.0.iter_mut().enumerate() {
                // Random counters, a quarter of them zero.
                let r = mix64(i * 8 + w as u64);
                let nonzero = (r | (r >> 1)) & 0x1111_1111_1111_1111;
                *word = nonzero | (mix64(r) & 0xEEEE_EEEE_EEEE_EEEE & (nonzero * 0xF));
            }
            let bits = mix64(!i);
            let portable = zero_words_portable(&block, bits);
            #[cfg(target_arch = "x86_64")]
            if kernel == Kernel::Avx2 {
                // SAFETY: detect() saw AVX2.
                assert_eq!(unsafe { avx2::zero_words(&block, bits) }, portable);
            }
            for w in 0..8 {
                let value = (block.0[w] >> shift_in_word(bits, w)) & 15;
                assert_eq!(portable >> w & 1 == 1, value == 0);
            }
            let len = (i % 9) as u32;
            let [first, _] = halves(i, 10, 2 * len.max(1));
            let first = Half {
                words: crate::counter_block::words_of(first.bits, len),
                ..first
            };
            let by_slots = first.slots().all(|(w, s)| (block.0[w] >> s) & 15 != 0);
            let none = Half { words: 0, ..first };
            assert_eq!(contains(kernel, first, &block, none, &block), by_slots);
            assert_eq!(contains(kernel, none, &block, first, &block), by_slots);
            assert_eq!(
                contains(Kernel::Portable, first, &block, none, &block),
                by_slots
            );
        }
    }
}
