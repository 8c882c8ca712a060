//! The layout of a [`BlockedCountingBloomFilter`](crate::BlockedCountingBloomFilter):
//! 64-byte blocks of 128 counters, and how a key picks its counters in two of
//! them.
//!
//! A block is one cache line: eight `u64` words of sixteen 4-bit counters
//! (counter `c` of a word is bits `4c .. 4c + 4`, as in the classic table).
//! A key's raw hash gives two mixed words, x = `mix64(hash)` and
//! y = `mix64(hash + φ)` (φ = `0x9E3779B97F4A7C15`: x and y are two
//! successive SplitMix64 outputs, independent for any input):
//!
//! - the **first half** of the key, ⌈k/2⌉ counters, lies in block
//!   `reduce(x, blocks)` and takes its counters from the low bits of y;
//! - the **second half**, ⌊k/2⌋ counters, lies in block `reduce(y, blocks)`
//!   and takes its counters from the low bits of x.
//!
//! `reduce` keeps the high bits of its word, so each half's block and its
//! counters come from different words and stay independent at any table size.
//! Within a block, a half of j counters (j ≤ 8) with counter bits g uses
//! the j consecutive words `(g + i) mod 8` for i in 0..j, one counter in each:
//! counter `(g >> (3 + 4i)) & 15` of its word (35 bits of g at most).
//!
//! Why one counter per distinct word: a half's counters can never coincide,
//! so no counter is spent twice on one key (with replacement, 5 counters
//! drawn from 128 collide 8 % of the time, which cost 0.6 % more memory at
//! p = 0.1 %), and the word and shift of each counter are a mask and a shift,
//! no multiply. Why a rotating start word rather than the first j words:
//! every word of a block is used equally often whatever j is.
//!
//! The two blocks can coincide (probability 1/blocks); the two halves may then
//! touch the same counter. Every operation walks the same k (block, word,
//! shift) slots in the same order, so a counter touched twice by one key is
//! incremented twice and decremented twice, and nothing else changes.

use filter_core::{mix64, reduce};

/// Words per block.
pub(crate) const BLOCK_WORDS: usize = 8;
/// Counters per block: 8 words of 16.
pub(crate) const BLOCK_COUNTERS: u64 = 128;
/// The most counters one half of a key can have: one per word.
pub(crate) const MAX_PER_HALF: u32 = BLOCK_WORDS as u32;

/// The offset between the two SplitMix64 inputs: the golden gamma.
const SECOND: u64 = 0x9E37_79B9_7F4A_7C15;

/// One cache line of counters. `align(64)` makes every block start a cache
/// line, so a key touches exactly two lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct Block(pub(crate) [u64; BLOCK_WORDS]);

/// One half of a key: its block, the bits its counters are cut from, and
/// how many counters it has.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Half {
    pub(crate) block: usize,
    bits: u64,
    pub(crate) len: u32,
}

impl Half {
    /// The word and bit shift of the half's counter `i` (`i < len ≤ 8`).
    #[inline(always)]
    pub(crate) fn slot(&self, i: u32) -> (usize, u32) {
        let word = (self.bits as usize).wrapping_add(i as usize) & (BLOCK_WORDS - 1);
        let shift = (((self.bits >> (3 + 4 * i)) & 15) as u32) << 2;
        (word, shift)
    }

    /// Whether every counter of this half in `block` is non-zero, without a
    /// data-dependent branch.
    #[inline(always)]
    pub(crate) fn all_nonzero(&self, block: &Block) -> bool {
        let mut all = true;
        for i in 0..self.len {
            let (word, shift) = self.slot(i);
            all &= (block.0[word] >> shift) & 15 != 0;
        }
        all
    }
}

/// The two halves of the key with raw hash `hash`, in a table of `blocks`
/// blocks, for `hashes` counters per key.
#[inline(always)]
pub(crate) fn halves(hash: u64, blocks: usize, hashes: u32) -> [Half; 2] {
    let x = mix64(hash);
    let y = mix64(hash.wrapping_add(SECOND));
    [
        Half {
            block: reduce(x, blocks),
            bits: y,
            len: hashes.div_ceil(2),
        },
        Half {
            block: reduce(y, blocks),
            bits: x,
            len: hashes / 2,
        },
    ]
}

/// Every (block, word, shift) slot of a key, first half then second half:
/// the one order every operation walks.
#[inline(always)]
pub(crate) fn slots(halves: [Half; 2]) -> impl Iterator<Item = (usize, usize, u32)> + Clone {
    halves.into_iter().flat_map(|half| {
        (0..half.len).map(move |i| {
            let (word, shift) = half.slot(i);
            (half.block, word, shift)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_is_one_cache_line() {
        assert_eq!(size_of::<Block>(), 64);
        assert_eq!(align_of::<Block>(), 64);
        assert_eq!(BLOCK_COUNTERS, 16 * BLOCK_WORDS as u64);
    }

    #[test]
    fn a_half_uses_distinct_words() {
        for hash in 0..2_000u64 {
            for hashes in 1..=16 {
                let [a, b] = halves(hash, 1_000, hashes);
                assert!(a.block < 1_000 && b.block < 1_000);
                assert_eq!(a.len + b.len, hashes);
                for half in [a, b] {
                    let mut words: Vec<usize> = (0..half.len).map(|i| half.slot(i).0).collect();
                    assert!(words.iter().all(|&w| w < BLOCK_WORDS));
                    assert!((0..half.len).all(|i| half.slot(i).1 % 4 == 0));
                    assert!((0..half.len).all(|i| half.slot(i).1 < 64));
                    words.sort_unstable();
                    words.dedup();
                    assert_eq!(words.len(), half.len as usize);
                }
                assert_eq!(slots([a, b]).count(), hashes as usize);
            }
        }
    }

    #[test]
    fn blocks_and_counters_spread() {
        // 128,000 halves over 1,000 blocks: about 128 per block and one per
        // counter slot of each word; every block and every nibble is used.
        let mut per_block = vec![0u32; 1_000];
        let mut per_nibble = [0u32; 16];
        let mut per_word = [0u32; 8];
        for hash in 0..64_000u64 {
            for half in halves(hash, 1_000, 7) {
                per_block[half.block] += 1;
                for i in 0..half.len {
                    let (word, shift) = half.slot(i);
                    per_word[word] += 1;
                    per_nibble[(shift / 4) as usize] += 1;
                }
            }
        }
        // Poisson(128): σ ≈ 11.3, so 60 and 200 are 6σ away.
        assert!(per_block.iter().all(|&c| (60..200).contains(&c)));
        // 448,000 counters over 8 words (56,000 each, σ ≈ 220) and over 16
        // nibbles (28,000 each, σ ≈ 160): within 1,500 is over 6σ.
        assert!(
            per_word.iter().all(|&c| c.abs_diff(56_000) < 1_500),
            "{per_word:?}"
        );
        assert!(
            per_nibble.iter().all(|&c| c.abs_diff(28_000) < 1_500),
            "{per_nibble:?}"
        );
    }
}
