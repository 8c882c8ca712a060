//! The blocked filter's lookup, insert and remove in AVX2, chosen at run
//! time where the CPU has it.
//!
//! Why `unsafe` here and nowhere else: lookups of different keys are
//! independent, so once the table is out of cache their speed is set by
//! how many of them the CPU keeps in flight, and that is set by how many
//! instructions each one holds in the CPU's window while its two cache
//! misses are outstanding. Plain x86-64 has no per-lane variable shift, so
//! portable code reaches each counter with its own load and scalar shift
//! (about 8 instructions per counter). AVX2's `vpsllvq` and `vpsrlvq` shift
//! four words by four amounts in one instruction, so a block is tested with
//! two 32-byte loads and a handful of vector instructions. Calling a
//! function compiled for AVX2 (with BMI1, BMI2 and POPCNT, which every AVX2
//! CPU has) is only sound on a CPU that has them, which [`Kernel::detect`]
//! checks once, when the filter is built.
//!
//! # The shape of the lookup
//!
//! Everything that does not need the blocks is computed from the hash
//! first, for each half and each 256-bit vector (words 0–3, then 4–7):
//!
//! - `nibbles`: 0xF at the counter the half names in every word, whether the
//!   half uses the word or not: broadcast the counter bits, shift them by
//!   per-lane constants (`vpsrlvq`), keep the shift field (`vpand`), shift
//!   0xF by it (`vpsllvq`);
//! - `unused`: all ones in the lanes of the words the half does not use, 0
//!   in its own, read from a table (`counter_block.rs`, 18 KiB built at
//!   compile time): the five hash bits that choose a half's word window
//!   index its row directly, where deriving the lanes from the word set
//!   took a scalar rotate, a broadcast and an AND and compare per vector.
//!
//! Once a block arrives, one `vpand` (the load folded into it) and one
//! `vpcmpeqq` against `unused` per vector remain: a used lane is zero
//! exactly when its counter is, and an unused lane holds at most four bits,
//! so it never equals all ones. The four compares are ORed and tested once.
//! Fewer instructions waiting for the data means more lookups in flight,
//! which is what a lookup in DRAM is bounded by: a key's instructions that
//! wait on memory hold the core's window. A remove tests and decrements in
//! one pass over the two blocks it loaded.
//!
//! What did not pay: masking the nibbles of the unused lanes in the lookup
//! too (comparing with `unused` makes it unnecessary), reading both masks
//! from a 128-byte row, or passing the two rows in registers. The call into
//! the AVX2 function (its `vzeroupper`, the arguments) can only be inlined
//! into callers compiled for AVX2; batched lookups of large tables do that
//! (`filter_core::batch`'s chunks).
//!
//! Both kernels test and change exactly the counters of `counter_block.rs`,
//! so answers and bytes never depend on the CPU; tests check that they agree.

#![allow(unsafe_code)]

use crate::counter_block::{Block, Half, HalfPatterns, halves, shift_in_word};
use crate::counters::MAX_COUNT;
use crate::kernel::Kernel;

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
        __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256, _mm256_castsi256_pd,
        _mm256_cmpeq_epi64, _mm256_load_si256, _mm256_movemask_pd, _mm256_or_si256,
        _mm256_set1_epi64x, _mm256_setr_epi64x, _mm256_sllv_epi64, _mm256_srlv_epi64,
        _mm256_store_si256, _mm256_sub_epi64, _mm256_testz_si256, _mm256_xor_si256,
    };

    use filter_core::reduce;

    use crate::counter_block::{Block, Rows, WINDOWS, window, words};

    /// What one half of a key tests and changes its block with, computed
    /// from the hash alone, before the block arrives. Each field holds two
    /// vectors: words 0–3, then 4–7.
    #[derive(Clone, Copy)]
    struct Masks {
        /// 0xF at the counter the half names in each word (the word's
        /// nibble mask), in every lane, used by the half or not.
        nibbles: [__m256i; 2],
        /// All ones in the lanes of the words the half does not use, 0 in
        /// the others.
        unused: [__m256i; 2],
    }

    impl Masks {
        /// The nibble masks of the words the half uses, 0 in the others.
        ///
        /// # Safety
        ///
        /// The CPU must support AVX2.
        #[inline]
        #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
        unsafe fn own(self, i: usize) -> __m256i {
            // SAFETY: the caller guarantees AVX2; no memory is touched.
            // andnot(a, b) is !a & b.
            unsafe { _mm256_andnot_si256(self.unused[i], self.nibbles[i]) }
        }
    }

    /// The [`Masks`] of a half with counter bits `bits` whose unused lanes
    /// are `unused`. Word w's counter shift is 4·((bits >> 4w) & 15), that
    /// is ((bits << LIFT) >> (4w + LIFT − 2)) & 0x3C: the counters are
    /// named by the low 32 bits, so lifting them by 2 or 6 bits loses
    /// nothing. The two halves of a key lift by different amounts so that
    /// their shift constants differ: each is then used once, and the
    /// compiler folds it into its instruction instead of loading it into a
    /// register first.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    unsafe fn masks<const LIFT: i32>(bits: u64, unused: [__m256i; 2]) -> Masks {
        // SAFETY: the caller guarantees AVX2; no memory is touched.
        unsafe {
            // A bit-for-bit reinterpretation: the intrinsic takes i64.
            let g = _mm256_set1_epi64x(i64::from_ne_bytes((bits << LIFT).to_ne_bytes()));
            let shift_mask = _mm256_set1_epi64x(0x3C);
            let nibble = _mm256_set1_epi64x(15);
            let nibbles = |first: i64| {
                let first = first + i64::from(LIFT) - 2;
                let shifts = _mm256_and_si256(
                    _mm256_srlv_epi64(
                        g,
                        _mm256_setr_epi64x(first, first + 4, first + 8, first + 12),
                    ),
                    shift_mask,
                );
                _mm256_sllv_epi64(nibble, shifts)
            };
            Masks {
                nibbles: [nibbles(0), nibbles(16)],
                unused,
            }
        }
    }

    /// Two vectors from eight aligned words.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    unsafe fn load(block: &Block) -> [__m256i; 2] {
        let lanes = block.0.as_ptr().cast::<__m256i>();
        // SAFETY: the caller guarantees AVX2. `Block` is 64 bytes aligned to
        // 64, so both 32-byte halves are in bounds and 32-byte aligned as
        // `_mm256_load_si256` requires.
        unsafe { [_mm256_load_si256(lanes), _mm256_load_si256(lanes.add(1))] }
    }

    /// The [`Masks`] of a half with counter bits `bits` that uses the words
    /// `words` (bit w for word w): the unused lanes the table holds,
    /// computed (for the tests, which compare it with the portable kernel).
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[cfg(test)]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    unsafe fn masks_of_words(bits: u64, words: u8) -> Masks {
        use std::arch::x86_64::_mm256_setzero_si256;

        // SAFETY: the caller guarantees AVX2; no memory is touched.
        unsafe {
            let active = _mm256_set1_epi64x(i64::from(words));
            let zero = _mm256_setzero_si256();
            let unused = [(1, 2, 4, 8), (16, 32, 64, 128)].map(|(a, b, c, d)| {
                let select = _mm256_setr_epi64x(a, b, c, d);
                _mm256_cmpeq_epi64(_mm256_and_si256(active, select), zero)
            });
            masks::<2>(bits, unused)
        }
    }

    /// The two halves of the key with mixed hash `mixed`: their blocks'
    /// indexes and masks. The same blocks, counters and words as
    /// `halves`, with the word sets read as lanes from `unused`, the rows of
    /// the filter's half lengths.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    unsafe fn key(blocks: usize, mixed: u64, unused: Rows) -> [(usize, Masks); 2] {
        let (x, y) = words(mixed);
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            [
                (reduce(x, blocks), masks::<2>(y, load(row(unused[0], y)))),
                (reduce(y, blocks), masks::<6>(x, load(row(unused[1], x)))),
            ]
        }
    }

    /// The row of `rows` for counter bits `bits`: `&rows[window(bits)]`,
    /// addressed by the byte offset 64 · window(bits) = (bits >> 26) & 0x7C0
    /// in two instructions instead of three.
    #[inline(always)]
    fn row(rows: &[Block; WINDOWS], bits: u64) -> &Block {
        let offset = ((bits >> 26) & 0x7C0) as usize;
        debug_assert_eq!(offset, window(bits) * size_of::<Block>());
        // SAFETY: the offset is a multiple of 64 below 32 · 64, the size of
        // `rows`, so it addresses one whole, aligned `Block` of `rows`.
        unsafe { &*rows.as_ptr().cast::<u8>().add(offset).cast::<Block>() }
    }

    /// Block `index` of `blocks`, unchecked.
    ///
    /// # Safety
    ///
    /// `index` must be below `blocks.len()`.
    #[inline(always)]
    unsafe fn block(blocks: &[Block], index: usize) -> &Block {
        // SAFETY: the caller guarantees the index is in bounds.
        unsafe { blocks.get_unchecked(index) }
    }

    /// All ones in the lanes of the words of `block` the half uses whose
    /// counter is zero. Only one AND and one compare per vector wait for the
    /// block: a used lane of `block & nibbles` is zero exactly when its
    /// counter is, and is compared with 0; an unused lane holds at most the
    /// four bits of some counter and is compared with all ones, so it never
    /// matches.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    unsafe fn zero_lanes(block: &Block, masks: Masks) -> [__m256i; 2] {
        let lanes = block.0.as_ptr().cast::<__m256i>();
        // SAFETY: the caller guarantees AVX2. `Block` is 64 bytes aligned to
        // 64, so both 32-byte halves are in bounds and 32-byte aligned as
        // `_mm256_load_si256` requires.
        unsafe {
            [0, 1].map(|i| {
                let counters = _mm256_and_si256(_mm256_load_si256(lanes.add(i)), masks.nibbles[i]);
                _mm256_cmpeq_epi64(counters, masks.unused[i])
            })
        }
    }

    /// Whether no lane of `zero` is set.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    unsafe fn none([a, b]: [__m256i; 2], [c, d]: [__m256i; 2]) -> bool {
        // SAFETY: the caller guarantees AVX2; no memory is touched.
        unsafe {
            let any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
            _mm256_testz_si256(any, any) == 1
        }
    }

    /// The words of `block` whose counter named by `bits` is zero, as a bit
    /// mask (bit w for word w): the AVX2 twin of `zero_words_portable`, by
    /// the lookup's own masks with every word in use.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[cfg(test)]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    pub(super) unsafe fn zero_words(block: &Block, bits: u64) -> u8 {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            let [low, high] = zero_lanes(block, masks_of_words(bits, 0xFF));
            let low_zero = _mm256_movemask_pd(_mm256_castsi256_pd(low));
            let high_zero = _mm256_movemask_pd(_mm256_castsi256_pd(high));
            // movemask sets only the low four bits of each.
            (low_zero | (high_zero << 4)) as u8
        }
    }

    /// Whether the key with mixed hash `mixed` finds all its counters
    /// non-zero in `blocks`, whose halves' unused lanes are in the rows
    /// `unused`. The whole lookup, hashing included, is compiled for AVX2,
    /// so nothing crosses a call. Once the blocks arrive, four ANDs, four
    /// compares, three ORs and a test remain.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2, and `blocks` must not be empty.
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    pub(super) unsafe fn contains(blocks: &[Block], mixed: u64, unused: Rows) -> bool {
        // SAFETY: the caller guarantees AVX2 and a block; `key`'s indexes
        // are `reduce(_, blocks.len())`, below `blocks.len()`.
        unsafe {
            let [(a, a_masks), (b, b_masks)] = key(blocks.len(), mixed, unused);
            none(
                zero_lanes(block(blocks, a), a_masks),
                zero_lanes(block(blocks, b), b_masks),
            )
        }
    }

    /// Adds one (`up`) or takes one away from the counters of `block` that
    /// `masks` name, skipping saturated counters; returns how many counters
    /// reached 15. Taking away assumes every named counter is non-zero. The
    /// AVX2 twin of `Half::increment` and the portable decrement.
    ///
    /// With `own` the half's nibble masks (0 in unused lanes), a named
    /// counter is saturated when `block & own` equals `own`; in an unused
    /// lane both are 0, so the lane counts as saturated and is never
    /// changed. The step is the low bit of each nibble mask.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    unsafe fn step(block: &mut Block, masks: Masks, up: bool) -> u32 {
        let lanes = block.0.as_mut_ptr().cast::<__m256i>();
        // SAFETY: the caller guarantees AVX2. `Block` is 64 bytes aligned to
        // 64, so both 32-byte halves are in bounds and 32-byte aligned as
        // `_mm256_load_si256` and `_mm256_store_si256` require; the block is
        // borrowed mutably, so nothing else reads or writes it meanwhile.
        unsafe {
            let low_bits = _mm256_set1_epi64x(0x1111_1111_1111_1111);
            let mut full = 0;
            for i in 0..2 {
                let own = masks.own(i);
                let one = _mm256_and_si256(own, low_bits);
                let words = _mm256_load_si256(lanes.add(i));
                let counters = _mm256_and_si256(words, own);
                let stuck = _mm256_cmpeq_epi64(counters, own);
                // andnot(a, b) is !a & b.
                let step = _mm256_andnot_si256(stuck, one);
                if up {
                    _mm256_store_si256(lanes.add(i), _mm256_add_epi64(words, step));
                    // 14 in a used lane; all ones, which no counter matches,
                    // in an unused one.
                    let fourteen = _mm256_or_si256(_mm256_xor_si256(own, one), masks.unused[i]);
                    let reached = _mm256_cmpeq_epi64(counters, fourteen);
                    full |= _mm256_movemask_pd(_mm256_castsi256_pd(reached)) << (4 * i);
                } else {
                    _mm256_store_si256(lanes.add(i), _mm256_sub_epi64(words, step));
                }
            }
            full.count_ones()
        }
    }

    /// Adds one copy of the key with mixed hash `mixed`; returns how many
    /// counters reached 15.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    pub(super) unsafe fn insert(blocks: &mut [Block], mixed: u64, unused: Rows) -> u64 {
        // SAFETY: the caller guarantees AVX2. The halves are applied one
        // after the other, so coinciding blocks add up like the scalar slots.
        unsafe {
            let [(a, a_masks), (b, b_masks)] = key(blocks.len(), mixed, unused);
            let full = step(&mut blocks[a], a_masks, true) + step(&mut blocks[b], b_masks, true);
            u64::from(full)
        }
    }

    /// Takes one copy of the key with mixed hash `mixed` away: `Some(false)`,
    /// changing nothing, when one of its counters is zero; `Some(true)` when
    /// none is and its two blocks differ; `None`, changing nothing, when
    /// none is and its blocks coincide (the caller's scalar path handles a
    /// counter the two halves share).
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    pub(super) unsafe fn remove(blocks: &mut [Block], mixed: u64, unused: Rows) -> Option<bool> {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            let [(a, a_masks), (b, b_masks)] = key(blocks.len(), mixed, unused);
            if !none(
                zero_lanes(&blocks[a], a_masks),
                zero_lanes(&blocks[b], b_masks),
            ) {
                return Some(false);
            }
            if a == b {
                return None;
            }
            step(&mut blocks[a], a_masks, false);
            step(&mut blocks[b], b_masks, false);
            Some(true)
        }
    }
}

/// The portable lookup. Kept out of line where AVX2 is compiled in, so that
/// the dispatching caller stays small.
#[cfg_attr(target_arch = "x86_64", inline(never))]
#[cfg_attr(not(target_arch = "x86_64"), inline(always))]
fn contains_portable(blocks: &[Block], mixed: u64, patterns: HalfPatterns) -> bool {
    let [first, second] = halves(mixed, blocks.len(), patterns);
    let (a, b) = (&blocks[first.block], &blocks[second.block]);
    (zero_words_portable(a, first.bits) & first.words)
        | (zero_words_portable(b, second.bits) & second.words)
        == 0
}

/// Whether the key with mixed hash `mixed` finds all its counters non-zero in
/// `blocks`, whose halves have `patterns`, by `kernel`. Both blocks are read
/// before anything is tested, and nothing branches on their contents.
#[inline(always)]
pub(crate) fn contains(
    kernel: Kernel,
    blocks: &[Block],
    mixed: u64,
    patterns: HalfPatterns,
) -> bool {
    match kernel {
        Kernel::Portable => contains_portable(blocks, mixed, patterns),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Kernel::Avx2` is only constructed by `Kernel::detect`
        // after `is_x86_feature_detected!` found AVX2 (and BMI1, BMI2 and
        // POPCNT); the guard checked for a block.
        Kernel::Avx2 if !blocks.is_empty() => unsafe {
            avx2::contains(blocks, mixed, patterns.unused)
        },
        // No block holds no counter (filters have at least two blocks).
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => false,
    }
}

/// Adds one copy of the key with mixed hash `mixed` to `blocks`, whose halves
/// have `patterns`, by `kernel`; returns how many counters reached 15. The
/// AVX2 kernel locates the counters with the lookup's masks.
#[inline(always)]
pub(crate) fn insert(
    kernel: Kernel,
    blocks: &mut [Block],
    mixed: u64,
    patterns: HalfPatterns,
) -> u64 {
    match kernel {
        Kernel::Portable => {
            let [first, second] = halves(mixed, blocks.len(), patterns);
            first.increment(&mut blocks[first.block]) + second.increment(&mut blocks[second.block])
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Kernel::Avx2` is only constructed after AVX2 was detected.
        Kernel::Avx2 => unsafe { avx2::insert(blocks, mixed, patterns.unused) },
    }
}

/// Takes one copy away from the counters of two halves in *different*
/// blocks whose counters are all non-zero: the portable kernel's decrement.
/// (A half's counters are in distinct words, so no counter is decremented
/// twice.)
fn remove_present_portable(blocks: &mut [Block], first: Half, second: Half) {
    debug_assert_ne!(first.block, second.block);
    for half in [first, second] {
        let block = &mut blocks[half.block];
        for (word, shift) in half.slots() {
            if (block.0[word] >> shift) & 15 < MAX_COUNT {
                block.0[word] -= 1 << shift;
            }
        }
    }
}

/// Takes one copy of the key with mixed hash `mixed` away from `blocks`, whose
/// halves have `patterns`, by `kernel`: `Some(false)`, changing nothing,
/// when one of its counters is zero (it was never inserted); `Some(true)`
/// when none is and its two blocks differ; `None`, changing nothing, when
/// none is and its two blocks coincide, for the caller to walk the slots.
#[inline(always)]
pub(crate) fn remove(
    kernel: Kernel,
    blocks: &mut [Block],
    mixed: u64,
    patterns: HalfPatterns,
) -> Option<bool> {
    match kernel {
        Kernel::Portable => {
            if !contains_portable(blocks, mixed, patterns) {
                return Some(false);
            }
            let [first, second] = halves(mixed, blocks.len(), patterns);
            if first.block == second.block {
                return None;
            }
            remove_present_portable(blocks, first, second);
            Some(true)
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Kernel::Avx2` is only constructed after AVX2 was detected.
        Kernel::Avx2 => unsafe { avx2::remove(blocks, mixed, patterns.unused) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter_block::{half_patterns, halves, slots};
    use filter_core::mix64;

    /// A block of random counters, about a quarter of them zero.
    fn random_block(seed: u64) -> Block {
        let mut block = Block::default();
        for (w, word) in block.0.iter_mut().enumerate() {
            let r = mix64(seed * 8 + w as u64);
            let nonzero = (r | (r >> 1)) & 0x1111_1111_1111_1111;
            *word = nonzero | (mix64(r) & 0xEEEE_EEEE_EEEE_EEEE & (nonzero * 0xF));
        }
        block
    }

    /// Both kernels find the same zero counters, and they are exactly the
    /// counters the scalar slots name.
    #[test]
    fn kernels_agree_with_the_slots() {
        let kernel = Kernel::detect();
        for i in 0..20_000u64 {
            let block = random_block(i);
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
        }
        let blocks: Vec<Block> = (0..3).map(random_block).collect();
        for hashes in 1..=16 {
            let patterns = half_patterns(hashes);
            for mixed in (0..3_000u64).map(mix64) {
                let by_slots = slots(halves(mixed, 3, patterns))
                    .all(|(b, w, s)| (blocks[b].0[w] >> s) & 15 != 0);
                assert_eq!(contains(kernel, &blocks, mixed, patterns), by_slots);
                assert_eq!(
                    contains(Kernel::Portable, &blocks, mixed, patterns),
                    by_slots
                );
            }
        }
    }

    /// Both kernels change the same counters the same way, saturation
    /// included, so tables (and their bytes) do not depend on the CPU.
    #[test]
    fn kernels_update_alike() {
        let kernel = Kernel::detect();
        for hashes in [1, 7, 10, 16] {
            let patterns = half_patterns(hashes);
            let mut fast = vec![Block::default(); 3];
            let mut portable = fast.clone();
            for i in 0..6_000u64 {
                // 300 keys inserted 20 times each in 3 blocks: many counters
                // saturate, and blocks often coincide.
                let h = mix64(i % 300);
                assert_eq!(
                    insert(kernel, &mut fast, h, patterns),
                    insert(Kernel::Portable, &mut portable, h, patterns)
                );
                assert_eq!(fast, portable, "insert {i}");
            }
            assert!(portable.iter().any(|b| b.0.iter().any(|w| w & 0xF == 0xF)));
            let mut removed = 0;
            for i in 0..300u64 {
                let h = mix64(i);
                let [a, b] = halves(h, 3, patterns);
                if a.block != b.block && contains(Kernel::Portable, &portable, h, patterns) {
                    assert_eq!(remove(kernel, &mut fast, h, patterns), Some(true));
                    assert_eq!(
                        remove(Kernel::Portable, &mut portable, h, patterns),
                        Some(true)
                    );
                    assert_eq!(fast, portable, "remove {i}");
                    removed += 1;
                }
            }
            assert!(removed > 50, "{removed}");
        }
    }

    /// Both kernels' removes by hash answer alike and change the same
    /// counters, refusals, coinciding blocks and saturated counters
    /// included.
    #[test]
    fn kernels_remove_alike() {
        let kernel = Kernel::detect();
        for hashes in [1, 6, 9, 16] {
            let patterns = half_patterns(hashes);
            // 8 blocks: 100 keys twice, one key 40 times (its counters
            // saturate); then keys in and out, many twice, so some removes
            // are refused and 1 in 8 finds its blocks coinciding.
            let mut fast = vec![Block::default(); 8];
            for i in 0..240u64 {
                let key = if i < 200 { i % 100 } else { 7 };
                insert(Kernel::Portable, &mut fast, mix64(key), patterns);
            }
            let mut portable = fast.clone();
            let (mut removed, mut refused, mut coinciding) = (0, 0, 0);
            for i in 0..600u64 {
                let h = mix64(i % 300);
                let answer = remove(kernel, &mut fast, h, patterns);
                assert_eq!(answer, remove(Kernel::Portable, &mut portable, h, patterns));
                assert_eq!(fast, portable, "remove {i}");
                match answer {
                    Some(true) => removed += 1,
                    Some(false) => refused += 1,
                    None => coinciding += 1,
                }
            }
            assert!(
                removed > 50 && refused > 50 && coinciding > 10,
                "{removed} {refused} {coinciding}"
            );
        }
    }
}
