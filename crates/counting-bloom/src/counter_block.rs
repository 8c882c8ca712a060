//! The layout of a [`BlockedCountingBloomFilter`](crate::BlockedCountingBloomFilter):
//! 64-byte blocks of 128 counters, and how a key picks its counters in two of
//! them.
//!
//! A block is one cache line: eight `u64` words of sixteen 4-bit counters
//! (counter `c` of a word is bits `4c .. 4c + 4`, as in the classic table).
//! A key's mixed hash m gives two words ([`words`]): x = m itself and
//! y = `folded_product(m ⊕ φ)` (φ = `0x9E3779B97F4A7C15`), a 64 × 64 →
//! 128-bit product folded to 64 bits:
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
//! is a strided window: words `s + m·d mod 8` for m in 0..j, with start
//! s = `(g >> 32) & 7` and odd stride d = `[1, 3, 5, 7][(g >> 35) & 3]`.
//!
//! Why one counter per distinct word: a half's counters can never coincide,
//! so no counter is spent twice on one key (with replacement, 5 counters
//! drawn from 128 collide 8 % of the time, which costs memory), and the
//! lookup kernels test all eight words at once, masking the unused ones (see
//! `blocked_simd.rs`). Why strided windows: with plain windows (d = 1) a key
//! touching word w tends to touch w + 1 too, so the loads of neighbouring
//! words rise and fall together, and the rate at a given size goes up. By
//! the exact model (`blocked_sizing.rs`) plain windows need 1.6 % more
//! memory at p = 1 % and 0.6 % at 0.1 %; strided ones come within 0.4 % of
//! uniformly random word sets, which would need a table lookup on the hot
//! path. The set is a shift and a rotate of a per-filter constant.
//!
//! Why x is the mixed hash itself: the first block's load then waits on
//! nothing but `reduce`. Why y is a product and not more bits of m: 64 bits
//! cannot hold two blocks and two 37-bit counter choices apart, so a y made
//! of m's own bits reuses bits of x. With y = m ⊕ (m << 32), say, both
//! halves name the same counters in each word, and whenever the two halves
//! share a block (one key in B, and B is small in small filters) a key has
//! only half its counters: small sets then exceed their target rate. The
//! folded product spreads every bit of m in one multiply, so the second
//! half's block and the first half's counters are independent of the bits
//! of x that choose the first block and the second half's counters.
//!
//! The two blocks can coincide (probability 1/blocks); the two halves may then
//! touch the same counter. Every operation walks the same k (block, word,
//! shift) slots in the same order, so a counter touched twice by one key is
//! incremented twice and decremented twice, and nothing else changes.

use filter_core::probes::folded_product;
use filter_core::reduce;

use crate::counters::MAX_COUNT;

/// Words per block.
pub(crate) const BLOCK_WORDS: usize = 8;
/// Counters per block: 8 words of 16.
pub(crate) const BLOCK_COUNTERS: u64 = 128;

/// Xored into the mixed hash before the second word's product, so that
/// the two words differ: the golden gamma.
pub(crate) const SECOND: u64 = 0x9E37_79B9_7F4A_7C15;

/// The strides of a half's word set: odd, so that j ≤ 8 steps never revisit
/// a word.
const STRIDES: [u32; 4] = [1, 3, 5, 7];

/// The word masks of a half of `len` counters (`len ≤ 8`) starting at word 0,
/// one byte per stride of [`STRIDES`]: byte i holds words `{m · STRIDES[i]
/// mod 8 : m < len}`. A filter computes this once per half.
pub(crate) const fn stride_patterns(len: u32) -> u32 {
    let mut patterns = 0u32;
    let mut i = 0;
    while i < 4 {
        let mut mask = 0u32;
        let mut m = 0;
        while m < len {
            mask |= 1 << ((m * STRIDES[i]) % 8);
            m += 1;
        }
        patterns |= mask << (8 * i);
        i += 1;
    }
    patterns
}

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

/// The set of words that counter bits `bits` choose for a half whose
/// [`stride_patterns`] are `patterns`: the stride's pattern rotated to start
/// at word `(bits >> 32) & 7`, the stride picked by `(bits >> 35) & 3`.
#[inline(always)]
pub(crate) const fn words_of(bits: u64, patterns: u32) -> u8 {
    let pattern = (patterns >> (8 * ((bits >> 35) & 3))) as u8;
    pattern.rotate_left(((bits >> 32) & 7) as u32)
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

/// What a filter derives once from its hash count, for the two halves of
/// every key.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HalfPatterns {
    /// The [`stride_patterns`] of the first and the second half.
    pub(crate) words: [u32; 2],
    /// The same word sets as lanes, for the AVX2 kernels.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) unused: Rows,
}

/// The unused lanes of a filter's two halves: a row per window.
pub(crate) type Rows = [&'static [Block; WINDOWS]; 2];

/// The [`HalfPatterns`] of a key with `hashes` (≤ 16) counters, ⌈k/2⌉ in
/// the first half and ⌊k/2⌋ in the second.
pub(crate) fn half_patterns(hashes: u32) -> HalfPatterns {
    let lens = [hashes.div_ceil(2), hashes / 2];
    HalfPatterns {
        words: lens.map(stride_patterns),
        unused: lens.map(|len| &UNUSED_LANES[len as usize]),
    }
}

/// The windows of a half: 8 starts × 4 strides.
pub(crate) const WINDOWS: usize = 32;

/// For every half length 0..=8 and every window, the words the half does
/// *not* use as 64-bit lanes, one per word of a block: all ones in the
/// lanes of the words it skips, 0 in its own. 18 KiB, built at compile
/// time; a filter reads the rows of its two half lengths (4 KiB).
static UNUSED_LANES: [[Block; WINDOWS]; BLOCK_WORDS + 1] = unused_lanes();

/// Builds [`UNUSED_LANES`] from [`words_of`].
const fn unused_lanes() -> [[Block; WINDOWS]; BLOCK_WORDS + 1] {
    let mut table = [[Block([0; BLOCK_WORDS]); WINDOWS]; BLOCK_WORDS + 1];
    let mut len = 0;
    while len <= BLOCK_WORDS {
        let patterns = stride_patterns(len as u32);
        let mut window = 0;
        while window < WINDOWS {
            // The counter bits of this window: bits 32..37 (see `window`).
            let words = words_of((window as u64) << 32, patterns);
            let mut word = 0;
            while word < BLOCK_WORDS {
                if (words >> word) & 1 == 0 {
                    table[len][window].0[word] = u64::MAX;
                }
                word += 1;
            }
            window += 1;
        }
        len += 1;
    }
    table
}

/// The window of a half with counter bits `bits`: start + 8 · stride
/// index, the five bits [`words_of`] reads, in `0..32`. Only the AVX2
/// kernels (and the tests) index rows by it.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) const fn window(bits: u64) -> usize {
    ((bits >> 32) & 31) as usize
}

/// The two words of the key whose mixed hash is `mixed`: x (the first
/// half's block, the second half's counters) and y (the second half's
/// block, the first half's counters).
#[inline(always)]
pub(crate) const fn words(mixed: u64) -> (u64, u64) {
    (mixed, folded_product(mixed ^ SECOND))
}

/// The two halves of the key whose mixed hash is `mixed`, in a table of
/// `blocks` blocks whose halves have [`half_patterns`] `patterns`.
#[inline(always)]
pub(crate) fn halves(mixed: u64, blocks: usize, patterns: HalfPatterns) -> [Half; 2] {
    let (x, y) = words(mixed);
    [
        Half {
            block: reduce(x, blocks),
            bits: y,
            words: words_of(y, patterns.words[0]),
        },
        Half {
            block: reduce(y, blocks),
            bits: x,
            words: words_of(x, patterns.words[1]),
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
    use filter_core::mix64;

    #[test]
    fn the_pair_is_pinned() {
        // The words are part of the byte format (docs/format-counting-bloom.md):
        // these values were computed from its formulas, outside this crate,
        // so a change fails here before it misreads bytes.
        let pinned = [
            (0, 0x883B_BAB1_A52C_1FF6),
            (1, 0xF882_851E_07D7_C4A9),
            (0xDEAD_BEEF, 0x8830_59BB_241A_1E3F),
        ];
        for (mixed, y) in pinned {
            assert_eq!(words(mixed), (mixed, y), "{mixed:#x}");
        }
    }

    #[test]
    fn block_is_one_cache_line() {
        assert_eq!(size_of::<Block>(), 64);
        assert_eq!(align_of::<Block>(), 64);
        assert_eq!(BLOCK_COUNTERS, 16 * BLOCK_WORDS as u64);
    }

    #[test]
    fn strided_sets_have_their_length() {
        for len in 0..=8 {
            let patterns = stride_patterns(len);
            for i in 0..4 {
                assert_eq!(((patterns >> (8 * i)) as u8).count_ones(), len, "len {len}");
            }
        }
        // Stride 3 from word 0 with 4 words: 0, 3, 6, 1.
        assert_eq!((stride_patterns(4) >> 8) as u8, 0b0100_1011);
    }

    #[test]
    fn unused_lanes_are_the_words_a_half_skips() {
        for len in 0..=8u32 {
            let patterns = stride_patterns(len);
            for bits in (0..5_000u64).map(mix64) {
                let words = words_of(bits, patterns);
                let lanes = &UNUSED_LANES[len as usize][window(bits)];
                for (w, &lane) in lanes.0.iter().enumerate() {
                    assert_eq!(lane, if words >> w & 1 == 1 { 0 } else { u64::MAX });
                }
            }
        }
        let patterns = half_patterns(9);
        assert!(std::ptr::eq(patterns.unused[0], &UNUSED_LANES[5]));
        assert!(std::ptr::eq(patterns.unused[1], &UNUSED_LANES[4]));
    }

    #[test]
    fn halves_use_their_length_in_distinct_words() {
        for hash in 0..2_000u64 {
            for hashes in 1..=16 {
                let [a, b] = halves(mix64(hash), 1_000, half_patterns(hashes));
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
            for half in halves(mix64(hash), 1_000, half_patterns(8)) {
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
        // 128,000 halves over 8 starts × 4 strides of 4 words: strides 7
        // and 5 give the sets of strides 1 and 3 from other starts, so 16
        // distinct sets of 8,000 halves each, σ ≈ 87.
        let sets: Vec<u32> = per_set.iter().copied().filter(|&c| c > 0).collect();
        assert_eq!(sets.len(), 16, "{sets:?}");
        assert!(sets.iter().all(|&c| c.abs_diff(8_000) < 600), "{sets:?}");
    }
}
