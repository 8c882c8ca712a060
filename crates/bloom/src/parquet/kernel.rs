//! The split block of the Parquet specification and the code that probes
//! it: a portable version and an AVX2 one, chosen at run time.
//!
//! A 64-bit hash h picks block ⌊(h >> 32) · z / 2³²⌋ of z blocks, and its
//! low 32 bits x set, in each of the block's eight 32-bit words, bit
//! `(x · SALT[i] mod 2³²) >> 27`. That is the specification's definition,
//! and the only one: there is no mixing and no choice, so the bits are the
//! same on every machine and in every writer.
//!
//! Why a kernel of its own rather than the crate's blocked filter's: that
//! filter chooses its block and lane word from a mixed hash, where Parquet
//! takes them from the hash as it is, and it is free to change its layout;
//! this one is fixed by the specification. The AVX2 probe is the same four
//! instructions (`vpmulld`, `vpsrld`, `vpsllvd`, `vptest`) because the block
//! is the same shape.
//!
//! Why `unsafe`: baseline x86-64 has no per-lane variable shift, so the
//! portable probe builds its eight masks one by one; AVX2 builds them in
//! three instructions and tests the block in one. Calling a function
//! compiled for AVX2 is sound only on a CPU that has it, which
//! [`Kernel::detect`] checks once per filter.

#![allow(unsafe_code)]

/// The split block and its salts are the blocked filter's, which is the
/// same layout: one bit set in each of eight 32-bit words, chosen by the
/// specification's salts.
pub(crate) use crate::block::Block;

/// The block that `hash` selects among `blocks` blocks (fewer than 2³²).
#[inline(always)]
pub(crate) fn block_index(hash: u64, blocks: usize) -> usize {
    // Below `blocks` because (hash >> 32) < 2^32; the cast is lossless.
    (((hash >> 32) * blocks as u64) >> 32) as usize
}

/// Which probe a filter uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// Plain Rust, any target.
    Portable,
    /// AVX2; only constructed after a run-time check that the CPU has it.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    /// The fastest probe this CPU runs.
    pub(crate) fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
        }
        Kernel::Portable
    }

    /// The specification's `filter_check` of `hash` in `blocks`, which is
    /// never empty (every filter has at least one block) and has fewer than
    /// 2³² blocks.
    #[inline(always)]
    pub(crate) fn check(self, blocks: &[Block], hash: u64) -> bool {
        match self {
            // SAFETY: `Avx2` exists only where the CPU has AVX2; every
            // filter has at least one block.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::check(blocks, hash) },
            Kernel::Portable => portable_check(blocks, hash),
        }
    }

    /// `filter_check` of every hash, in order, into `answers` (one per
    /// hash), with each block requested `LOOKAHEAD` hashes ahead when
    /// `prefetch` is set.
    pub(crate) fn check_all(
        self,
        blocks: &[Block],
        hashes: &[u64],
        answers: &mut [bool],
        prefetch: bool,
    ) {
        match self {
            // SAFETY: `Avx2` exists only where the CPU has AVX2; every
            // filter has at least one block.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::check_all(blocks, hashes, answers, prefetch) },
            Kernel::Portable => check_all_with(blocks, hashes, answers, prefetch, portable_check),
        }
    }
}

/// How many hashes ahead a batch requests its blocks: enough misses in
/// flight to cover a DRAM access at a few nanoseconds per lookup.
pub(crate) const LOOKAHEAD: usize = 16;

#[inline(always)]
fn portable_check(blocks: &[Block], hash: u64) -> bool {
    // Truncation intended: the low 32 bits are the block's argument.
    blocks
        .get(block_index(hash, blocks.len()))
        .is_some_and(|b| b.contains(hash as u32))
}

#[inline(always)]
fn check_all_with(
    blocks: &[Block],
    hashes: &[u64],
    answers: &mut [bool],
    prefetch: bool,
    check: impl Fn(&[Block], u64) -> bool,
) {
    for (i, (answer, &hash)) in answers.iter_mut().zip(hashes).enumerate() {
        if prefetch {
            if let Some(&ahead) = hashes.get(i + LOOKAHEAD) {
                filter_core::prefetch::prefetch(blocks, block_index(ahead, blocks.len()));
            }
        }
        *answer = check(blocks, hash);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    // Most intrinsics are safe inside an AVX2 function from Rust 1.87 on;
    // the workspace's minimum Rust (1.85) still requires the blocks.
    #![allow(unused_unsafe)]

    use std::arch::x86_64::{
        __m256i, _mm256_load_si256, _mm256_mullo_epi32, _mm256_set1_epi32, _mm256_setr_epi32,
        _mm256_sllv_epi32, _mm256_srli_epi32, _mm256_testc_si256,
    };

    use super::{Block, block_index, check_all_with};
    use crate::block::SALT;

    /// The bit pattern of a u32 as the i32 the intrinsics take.
    #[inline(always)]
    fn bits(x: u32) -> i32 {
        i32::from_ne_bytes(x.to_ne_bytes())
    }

    /// `filter_check` in AVX2: the whole probe in one function, since a call
    /// into AVX2 code from code compiled without it cannot be inlined. The
    /// block is read without a bounds check, since its index is below the
    /// block count by construction and a lookup is only a dozen
    /// instructions.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2, and `blocks` must not be empty.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn check(blocks: &[Block], hash: u64) -> bool {
        let index = block_index(hash, blocks.len());
        debug_assert!(index < blocks.len());
        // SAFETY: the caller guarantees AVX2 and a non-empty `blocks`, and
        // `block_index` of a non-empty slice is below its length ((h >> 32)
        // < 2^32, so (h >> 32) · len >> 32 < len). The rest are
        // register-only intrinsics and one aligned load of a `Block`, which
        // is 32 bytes aligned to 32 as `_mm256_load_si256` requires.
        unsafe {
            let block = blocks.get_unchecked(index);
            let salt = _mm256_setr_epi32(
                bits(SALT[0]),
                bits(SALT[1]),
                bits(SALT[2]),
                bits(SALT[3]),
                bits(SALT[4]),
                bits(SALT[5]),
                bits(SALT[6]),
                bits(SALT[7]),
            );
            // Truncation intended: the low 32 bits are the block's argument.
            let x = _mm256_set1_epi32(bits(hash as u32));
            let shift = _mm256_srli_epi32::<27>(_mm256_mullo_epi32(x, salt));
            let mask = _mm256_sllv_epi32(_mm256_set1_epi32(1), shift);
            let words = _mm256_load_si256(std::ptr::from_ref(block).cast::<__m256i>());
            // testc(a, b) is 1 when every bit set in b is set in a.
            _mm256_testc_si256(words, mask) == 1
        }
    }

    /// A batch of `check`s in one AVX2 function, so that each is inlined.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2, and `blocks` must not be empty.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn check_all(
        blocks: &[Block],
        hashes: &[u64],
        answers: &mut [bool],
        prefetch: bool,
    ) {
        // SAFETY: this function runs only where the CPU has AVX2, and the
        // caller guarantees `blocks` is not empty.
        check_all_with(blocks, hashes, answers, prefetch, |b, h| unsafe {
            check(b, h)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_is_half_a_cache_line_and_never_straddles_one() {
        assert_eq!(size_of::<Block>(), 32);
        assert_eq!(align_of::<Block>(), 32);
    }

    #[test]
    fn the_block_index_is_the_specifications() {
        assert_eq!(block_index(0, 7), 0);
        assert_eq!(block_index(u64::MAX, 7), 6);
        assert_eq!(block_index(1 << 63, 8), 4);
        assert_eq!(block_index(0xffff_ffff, 1024), 0); // the low half does not choose
    }

    #[test]
    fn every_kernel_answers_alike() {
        let mut blocks = vec![Block::default(); 37];
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            filter_core::mix64(state)
        };
        let mut hashes = Vec::new();
        for _ in 0..300 {
            let h = next();
            let i = block_index(h, blocks.len());
            blocks[i].insert(h as u32);
            hashes.push(h);
        }
        hashes.extend((0..5_000).map(|_| next()));
        let expected: Vec<bool> = hashes.iter().map(|&h| portable_check(&blocks, h)).collect();
        assert!(expected.iter().any(|&a| a) && expected.iter().any(|&a| !a));
        let kernel = Kernel::detect();
        for (&h, &e) in hashes.iter().zip(&expected) {
            assert_eq!(kernel.check(&blocks, h), e);
        }
        for prefetch in [false, true] {
            let mut answers = vec![false; hashes.len()];
            kernel.check_all(&blocks, &hashes, &mut answers, prefetch);
            assert_eq!(answers, expected);
        }
    }
}
