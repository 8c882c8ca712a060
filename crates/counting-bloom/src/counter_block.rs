//! The layout of a [`BlockedCountingBloomFilter`](crate::BlockedCountingBloomFilter):
//! 64-byte blocks of 128 counters, and how a key picks its counters in two of
//! them.
//!
//! A block is one cache line: eight `u64` words of sixteen 4-bit counters
//! (counter `c` of a word is bits `4c .. 4c + 4`, as in the classic table).
//! A key's raw hash gives two mixed words x and y (see [`PairMix`]): in
//! filters built since format 1.5, x = `folded_product(hash)` and
//! y = `folded_product(hash ⊕ φ)` (φ = `0x9E3779B97F4A7C15`), two
//! independent 64 × 64 → 128-bit products, each folded to 64 bits (in
//! filters of [`UniformHashes`](filter_core::UniformHashes), x = hash itself,
//! see `uniform.rs`):
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
//! The two blocks can coincide (probability 1/blocks); the two halves may then
//! touch the same counter. Every operation walks the same k (block, word,
//! shift) slots in the same order, so a counter touched twice by one key is
//! incremented twice and decremented twice, and nothing else changes.

use filter_core::probes::folded_product;
use filter_core::{HashQuality, mix64, reduce};

use crate::counters::MAX_COUNT;
use crate::uniform;

/// Words per block.
pub(crate) const BLOCK_WORDS: usize = 8;
/// Counters per block: 8 words of 16.
pub(crate) const BLOCK_COUNTERS: u64 = 128;

/// What sets the second word's input apart from the first's: the golden
/// gamma, added ([`PairMix::SplitMix`]) or xored ([`PairMix::Folded`]).
pub(crate) const SECOND: u64 = 0x9E37_79B9_7F4A_7C15;

/// How a key's raw hash becomes its two words x and y. Set by the format
/// version: new filters use [`Folded`](Self::Folded); bytes without
/// `FLAG_FOLDED_PAIR` (format 1.4 and earlier) load as
/// [`SplitMix`](Self::SplitMix), the counters they were built with.
///
/// Why the change: x and y are on the path to both loads of every
/// operation. Two `mix64`s are two chains of two multiplies each; two
/// folded products are two independent multiplies, and the AVX2 lookup
/// drops from 76 instructions to 67 (`blocked_simd.rs`), which decides how
/// many lookups the CPU keeps in flight. Measured with `cargo xtask compare
/// --n 1M,10M --fpr 0.01,0.001 --filters BlockedCounting`, three runs of
/// each build alternating, medians at p = 1 %: at 1M keys lookups took
/// 7.7 ns against 8.1, inserts 12.3 against 13.1 and removes 12.6 against
/// 13.5; at 10M keys (a 49 MB table, in DRAM) lookups 45.5 against 46.5,
/// within the noise, and removes 63 against 83 (65 against 86 at 0.1 %).
///
/// And the old pair had a flaw: for keys hashed by a multiply with the
/// golden ratio (Fibonacci hashing), `hash + φ` is the next key's hash, so
/// one key's y is the next key's x: the block that takes a key's second
/// half always takes the next key's first half too, so the blocks' loads
/// clump, and the rate rises. Over 78 shapes of structured ids (200,000 members; shifts, xors,
/// multiplies, byte and bit reversals), the worst rate was 1.31× the
/// target at 0.1 % for ids times φ with `SplitMix` (1.06× at 1 %); with
/// `Folded` that shape measured 1.02×, the worst of all 1.06×, and the
/// mean 1.00× at both rates. A seeded test checks such shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PairMix {
    /// x = `mix64(hash)`, y = `mix64(hash + φ)`: two successive SplitMix64
    /// outputs. Format 1.0 to 1.4.
    SplitMix,
    /// x = `folded_product(hash)`, y = `folded_product(hash ⊕ φ)`. Format
    /// 1.5; every new filter.
    Folded,
}

impl PairMix {
    /// [`Folded`](Self::Folded) if `folded`, else
    /// [`SplitMix`](Self::SplitMix): for kernels compiled once per mix, with
    /// `folded` a constant, so that no operation branches on the mix.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline(always)]
    pub(crate) const fn folded_if(folded: bool) -> Self {
        if folded {
            PairMix::Folded
        } else {
            PairMix::SplitMix
        }
    }
}

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

/// What a filter derives once from its hash count and its [`PairMix`],
/// for the two halves of every key.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HalfPatterns {
    /// How keys' hashes become their two words.
    pub(crate) mix: PairMix,
    /// The [`stride_patterns`] of the first and the second half.
    pub(crate) words: [u32; 2],
    /// The same word sets as lanes, for the AVX2 kernels.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) unused: Rows,
}

/// The unused lanes of a filter's two halves: a row per window.
pub(crate) type Rows = [&'static [Block; WINDOWS]; 2];

/// The [`HalfPatterns`] of a key with `hashes` (≤ 16) counters, ⌈k/2⌉ in
/// the first half and ⌊k/2⌋ in the second, whose words come from `mix`.
pub(crate) fn half_patterns(hashes: u32, mix: PairMix) -> HalfPatterns {
    let lens = [hashes.div_ceil(2), hashes / 2];
    HalfPatterns {
        mix,
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

/// The two mixed words of the key with raw hash `hash` under `mix`: x
/// (the first half's block, the second half's counters) and y (the second
/// half's block, the first half's counters).
#[inline(always)]
pub(crate) fn mixed(hash: u64, mix: PairMix) -> (u64, u64) {
    match mix {
        PairMix::Folded => (folded_product(hash), folded_product(hash ^ SECOND)),
        PairMix::SplitMix => (mix64(hash), mix64(hash.wrapping_add(SECOND))),
    }
}

/// The two words of the key with raw hash `hash` in a filter of hash
/// quality `Q`: [`mixed`] by `mix` for the default, the hash as it is for
/// [`UniformHashes`](filter_core::UniformHashes) (`uniform.rs` says how and
/// why; `mix` is then unused). A test of a constant, so each quality
/// compiles to its own arm alone.
#[inline(always)]
pub(crate) fn words<Q: HashQuality>(hash: u64, mix: PairMix) -> (u64, u64) {
    if Q::UNIFORM {
        uniform::pair(hash)
    } else {
        mixed(hash, mix)
    }
}

/// The two halves of the key with raw hash `hash`, in a table of `blocks`
/// blocks whose halves have [`half_patterns`] `patterns`, in a filter of
/// hash quality `Q`.
#[inline(always)]
pub(crate) fn halves<Q: HashQuality>(
    hash: u64,
    blocks: usize,
    patterns: HalfPatterns,
) -> [Half; 2] {
    let (x, y) = words::<Q>(hash, patterns.mix);
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
    use filter_core::AnyHashes;

    #[test]
    fn both_pairs_are_pinned() {
        // The words are part of the byte format (docs/format-counting-bloom.md):
        // these values were computed from its formulas, outside this crate,
        // so a change to either pair fails here before it misreads bytes.
        let pinned = [
            (
                0,
                (0x2DEE_5C35_7147_7A81, 0x883B_BAB1_A52C_1FF6),
                (0, 0xE220_A839_7B1D_CDAF),
            ),
            (
                1,
                (0xFE25_0C81_07AE_1C0C, 0xF882_851E_07D7_C4A9),
                (0x5692_161D_100B_05E5, 0x910A_2DEC_8902_5CC1),
            ),
            (
                0xDEAD_BEEF,
                (0x67C8_C42F_8B26_2EBA, 0x8830_59BB_241A_1E3F),
                (0x4E06_2702_EC92_9EEA, 0x4ADF_B90F_68C9_EB9B),
            ),
        ];
        for (hash, folded, split_mix) in pinned {
            assert_eq!(mixed(hash, PairMix::Folded), folded, "{hash:#x}");
            assert_eq!(mixed(hash, PairMix::SplitMix), split_mix, "{hash:#x}");
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
        let patterns = half_patterns(9, PairMix::Folded);
        assert!(std::ptr::eq(patterns.unused[0], &UNUSED_LANES[5]));
        assert!(std::ptr::eq(patterns.unused[1], &UNUSED_LANES[4]));
    }

    #[test]
    fn halves_use_their_length_in_distinct_words() {
        for hash in 0..2_000u64 {
            for hashes in 1..=16 {
                let [a, b] =
                    halves::<AnyHashes>(hash, 1_000, half_patterns(hashes, PairMix::Folded));
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
            for half in halves::<AnyHashes>(hash, 1_000, half_patterns(8, PairMix::Folded)) {
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
