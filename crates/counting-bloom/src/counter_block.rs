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
//!   `reduce(x, blocks)` and takes its counters from y;
//! - the **second half**, ⌊k/2⌋ counters, lies in block `reduce(y, blocks)`
//!   and takes its counters from x.
//!
//! `reduce` keeps the high bits of its word, so each half's block and its
//! counters come from different words and stay independent at any table size.
//!
//! Within its block, a half of j counters (j ≤ 8) with counter bits g uses a
//! set of j distinct words, one counter in each: in word w, counter
//! `(g >> 4w) & 15` (the low 32 bits of g name one counter per word). The set
//! is entry `((g >> 32) & 0xFFFF) · C(8, j) >> 16` of the C(8, j) sets of j
//! words in [`SUBSETS`] order (by increasing value of the word mask), so
//! every set is about equally likely.
//!
//! Why one counter per distinct word: a half's counters can never coincide,
//! so no counter is spent twice on one key (with replacement, 5 counters
//! drawn from 128 collide 8 % of the time, which costs memory), and the
//! lookup kernels test all eight words at once, masking the unused ones (see
//! `blocked_simd.rs`). Why a uniformly random set of words rather than j
//! consecutive ones: with windows, a key touching word w tends to touch
//! w + 1 too, so the loads of neighbouring words rise and fall together and
//! the measured rate came out 4 % above the model at 1M keys; random sets
//! make the words' loads slightly negatively correlated, as the model
//! assumes (or better).
//!
//! The two blocks can coincide (probability 1/blocks); the two halves may then
//! touch the same counter. Every operation walks the same k (block, word,
//! shift) slots in the same order, so a counter touched twice by one key is
//! incremented twice and decremented twice, and nothing else changes.

use filter_core::{mix64, reduce};

use crate::counters::MAX_COUNT;

/// Words per block.
pub(crate) const BLOCK_WORDS: usize = 8;
/// Counters per block: 8 words of 16.
pub(crate) const BLOCK_COUNTERS: u64 = 128;

/// The offset between the two SplitMix64 inputs: the golden gamma.
const SECOND: u64 = 0x9E37_79B9_7F4A_7C15;

/// Every 8-bit word mask, sorted by the number of words it holds (then by
/// value): the sets of j words are `SUBSETS[SUBSET_START[j]..SUBSET_START[j + 1]]`.
const SUBSETS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut at = 0;
    let mut j = 0;
    while j <= 8 {
        let mut mask = 0u32;
        while mask < 256 {
            if mask.count_ones() == j {
                table[at] = mask as u8;
                at += 1;
            }
            mask += 1;
        }
        j += 1;
    }
    table
};

/// Where the sets of j words start in [`SUBSETS`]: the partial sums of
/// C(8, j).
const SUBSET_START: [u16; 10] = [0, 1, 9, 37, 93, 163, 219, 247, 255, 256];

/// One cache line of counters. `align(64)` makes every block start a cache
/// line, so a key touches exactly two lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct Block(pub(crate) [u64; BLOCK_WORDS]);

/// One half of a key: its block, the bits that name a counter in every
/// word, and the words it uses (bit w for word w).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Half {
    pub(crate) block: usize,
    pub(crate) bits: u64,
    pub(crate) words: u8,
}

/// The bit shift of the counter that counter bits `bits` name in word `word`.
#[inline(always)]
pub(crate) fn shift_in_word(bits: u64, word: usize) -> u32 {
    (((bits >> (4 * word)) & 15) as u32) << 2
}

/// The set of `len` words (`len ≤ 8`) that counter bits `bits` choose.
#[inline(always)]
pub(crate) fn words_of(bits: u64, len: u32) -> u8 {
    let start = SUBSET_START[len as usize] as usize;
    let count = (SUBSET_START[len as usize + 1] - SUBSET_START[len as usize]) as u64;
    SUBSETS[start + ((((bits >> 32) & 0xFFFF) * count) >> 16) as usize]
}

impl Half {
    /// The (word, shift) of each of the half's counters, in word order.
    #[inline(always)]
    pub(crate) fn slots(self) -> impl Iterator<Item = (usize, u32)> + Clone {
        let mut words = self.words;
        std::iter::from_fn(move || {
            if words == 0 {
                return None;
            }
            let word = words.trailing_zeros() as usize;
            words &= words - 1;
            Some((word, shift_in_word(self.bits, word)))
        })
    }

    /// Increments the half's counters in `block` that are below 15; returns
    /// how many of them reached 15.
    #[inline(always)]
    pub(crate) fn increment(self, block: &mut Block) -> u64 {
        let mut saturated = 0;
        for (word, shift) in self.slots() {
            let value = (block.0[word] >> shift) & 15;
            if value < MAX_COUNT {
                block.0[word] += 1 << shift;
                saturated += u64::from(value + 1 == MAX_COUNT);
            }
        }
        saturated
    }
}

/// The two halves of the key with raw hash `hash`, in a table of `blocks`
/// blocks, for `hashes` (≤ 16) counters per key.
#[inline(always)]
pub(crate) fn halves(hash: u64, blocks: usize, hashes: u32) -> [Half; 2] {
    let x = mix64(hash);
    let y = mix64(hash.wrapping_add(SECOND));
    [
        Half {
            block: reduce(x, blocks),
            bits: y,
            words: words_of(y, hashes.div_ceil(2)),
        },
        Half {
            block: reduce(y, blocks),
            bits: x,
            words: words_of(x, hashes / 2),
        },
    ]
}

/// Every (block, word, shift) slot of a key, first half then second half:
/// the one order every operation walks.
#[inline(always)]
pub(crate) fn slots(halves: [Half; 2]) -> impl Iterator<Item = (usize, usize, u32)> + Clone {
    halves.into_iter().flat_map(|half| {
        half.slots()
            .map(move |(word, shift)| (half.block, word, shift))
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
    fn subset_table_lists_every_set_once_by_size() {
        for j in 0..=8usize {
            let sets = &SUBSETS[SUBSET_START[j] as usize..SUBSET_START[j + 1] as usize];
            let binomial = (0..j).fold(1, |c, i| c * (8 - i) / (i + 1));
            assert_eq!(sets.len(), binomial, "j {j}");
            assert!(sets.iter().all(|s| s.count_ones() as usize == j));
            assert!(sets.windows(2).all(|w| w[0] < w[1]));
        }
    }

    #[test]
    fn halves_use_their_length_in_distinct_words() {
        for hash in 0..2_000u64 {
            for hashes in 1..=16 {
                let [a, b] = halves(hash, 1_000, hashes);
                assert!(a.block < 1_000 && b.block < 1_000);
                assert_eq!(a.words.count_ones(), hashes.div_ceil(2));
                assert_eq!(b.words.count_ones(), hashes / 2);
                assert_eq!(slots([a, b]).count(), hashes as usize);
                for (_, _, shift) in slots([a, b]) {
                    assert!(shift % 4 == 0 && shift < 64);
                }
            }
        }
    }

    #[test]
    fn blocks_words_and_counters_spread() {
        // 128,000 halves over 1,000 blocks: about 128 per block; every word
        // set and every counter of a word about equally often.
        let mut per_block = vec![0u32; 1_000];
        let mut per_nibble = [0u32; 16];
        let mut per_word = [0u32; 8];
        let mut per_set = [0u32; 256];
        for hash in 0..64_000u64 {
            for half in halves(hash, 1_000, 8) {
                per_block[half.block] += 1;
                per_set[half.words as usize] += 1;
                for (word, shift) in half.slots() {
                    per_word[word] += 1;
                    per_nibble[(shift / 4) as usize] += 1;
                }
            }
        }
        // Poisson(128): σ ≈ 11.3, so 60 and 200 are 6σ away.
        assert!(per_block.iter().all(|&c| (60..200).contains(&c)));
        // 512,000 counters over 8 words (64,000 each, σ ≈ 240) and over 16
        // counters (32,000 each, σ ≈ 175): within 1,500 is over 6σ.
        assert!(
            per_word.iter().all(|&c| c.abs_diff(64_000) < 1_500),
            "{per_word:?}"
        );
        assert!(
            per_nibble.iter().all(|&c| c.abs_diff(32_000) < 1_500),
            "{per_nibble:?}"
        );
        // 128,000 halves over the 70 sets of 4 words: 1,829 each, σ ≈ 43.
        let sets: Vec<u32> = per_set.iter().copied().filter(|&c| c > 0).collect();
        assert_eq!(sets.len(), 70);
        assert!(sets.iter().all(|&c| c.abs_diff(1_829) < 300), "{sets:?}");
    }
}
