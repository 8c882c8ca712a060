//! The public blocked type: construction, insert, contains, remove, count,
//! merge. The layout is in `counter_block.rs`, the sizing in
//! `blocked_sizing.rs`.

use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use filter_core::hash_quality::not_empty;
use filter_core::memory::zeroed_vec;
use filter_core::sizing::{blame_items, check_range};
use filter_core::{
    AnyHashes, DefaultHashBuilder, Error, Filter, HashQuality, HasherProbe, Insert, Remove,
    UniformHashes,
};

use crate::blocked_simd;
use crate::blocked_sizing::{
    MAX_BLOCKED_HASHES, MAX_BLOCKS, MIN_BLOCKS, blocked_counting_fpr, sized,
};
use crate::counter_block::{
    BLOCK_COUNTERS, Block, HalfPatterns, PairMix, half_patterns, halves, slots,
};
use crate::counters::{MAX_COUNT, saturated_in_word, saturating_add_words};
use crate::kernel::Kernel;

/// A counting Bloom filter whose k counters per key lie in **two cache
/// lines**: faster lookups, inserts and removes than
/// [`CountingBloomFilter`](crate::CountingBloomFilter) (see the crate docs
/// for measurements), for a few percent more memory.
///
/// The table is an array of 64-byte blocks of 128 four-bit counters. A key
/// puts ⌈k/2⌉ of its counters in one block and ⌊k/2⌋ in another, each block
/// chosen by its own hash, one counter per 64-bit word (see the crate docs for
/// why two blocks and not one). A lookup therefore costs two cache misses,
/// issued together, where the classic layout costs up to k.
///
/// # Space and false-positive rate
///
/// [`with_fpr(n, p)`](Self::with_fpr) picks the hash count and the fewest
/// blocks whose modelled rate (see [`expected_fpr`](Self::expected_fpr)) is
/// at most p. The model is exact given Poisson block loads, so the measured
/// rate sits at p, not below it. Blocking costs counters: the uneven load of
/// the blocks raises the rate at a given size, and more so for each extra
/// counter a key sets in its crowded block, so the best k is usually one
/// below the classic filter's. Against `sizing::bloom_bits(n, p)` (the
/// textbook classic size; the classic filter itself takes 0.08 % more at
/// 1 %, to meet p with a whole number of hashes), at 1M keys:
///
/// | target p | k | bits per key | × classic bits | × [`CountingBloomFilter`](crate::CountingBloomFilter) |
/// | --- | --- | --- | --- | --- |
/// | 1 % | 6 | 39.4 | 4.11 | 1.027 |
/// | 0.1 % | 9 | 61.8 | 4.30 | 1.074 |
/// | 0.01 % | 12 | 87.3 | 4.56 | 1.138 |
///
/// So the 4.3× memory budget of the classic-layout filter holds for every
/// p ≥ 0.1 %, not below: pick [`CountingBloomFilter`](crate::CountingBloomFilter)
/// where memory matters more than lookup speed. k is limited to 16 (8
/// counters per block), and p must be large enough that the classic k is
/// at most 16: above about 1.1e-5.
///
/// ```
/// use counting_bloom::BlockedCountingBloomFilter;
/// use filter_core::sizing::bloom_bits;
///
/// let filter = BlockedCountingBloomFilter::with_fpr(1_000_000, 0.01)?;
/// assert_eq!(filter.hashes(), 6);
/// assert_eq!(filter.memory_bytes() as u64, filter.blocks() * 64);
/// let bits_per_key = filter.memory_bytes() as f64 * 8.0 / 1e6;
/// assert!((bits_per_key - 39.42).abs() < 0.01, "{bits_per_key}");
/// let ratio = bits_per_key * 1e6 / bloom_bits(1_000_000, 0.01)? as f64;
/// assert!(ratio < 4.12, "{ratio}");
/// assert!(filter.expected_fpr(1_000_000) <= 0.01);
///
/// // Measured: 10,000 items in, 100,000 other keys asked.
/// let mut filter = BlockedCountingBloomFilter::with_fpr(10_000, 0.01)?;
/// (0..10_000u64).for_each(|i| filter.insert(&i));
/// let false_positives = (10_000..110_000u64).filter(|i| filter.contains(i)).count();
/// // σ = √(0.01 · 0.99 / 100,000) ≈ 0.03 %, so 1.15 % is 5σ above the target.
/// assert!(false_positives < 1_150, "{false_positives}");
/// # Ok::<(), counting_bloom::Error>(())
/// ```
///
/// # Hash quality
///
/// The second type parameter, `Q`, says what the filter may assume about
/// the hashes it sees. The default, [`AnyHashes`], spreads every hash
/// before its two words come from it, so any `u64` is safe to pass to the
/// `*_hash` methods. [`UniformHashes`]
/// ([`assume_uniform_hashes`](Self::assume_uniform_hashes)) takes the
/// first from the hash as it is (and the second, as the default does, from
/// a folded product), which takes that work off the first load's path and
/// asks the caller for uniform hashes (a good hasher's output, not ids):
/// structured hashes then share counters and raise the rate, never causing
/// a false negative. Bytes record the choice and load only as it
/// ([`from_bytes_with_quality`](Self::from_bytes_with_quality)):
///
/// ```
/// use counting_bloom::{BlockedCountingBloomFilter, DefaultHashBuilder, UniformHashes};
///
/// let mut filter = BlockedCountingBloomFilter::with_fpr(1_000, 0.01)?.assume_uniform_hashes()?;
/// filter.insert("alice");
/// let bytes = filter.to_bytes();
/// let hasher = DefaultHashBuilder::default();
/// let again = BlockedCountingBloomFilter::from_bytes_with_quality(&bytes, hasher, UniformHashes)?;
/// assert_eq!(again, filter);
/// assert!(BlockedCountingBloomFilter::from_bytes(&bytes).is_err()); // not as `AnyHashes`
/// # Ok::<(), counting_bloom::Error>(())
/// ```
///
/// # Invariants
///
/// - There are at least 2 blocks; every counter is in `0..=15`, and every
///   counter of every block is in use (no padding).
/// - A counter at 15 is **saturated**: no operation changes it again (merge
///   keeps it at 15). [`saturated_counters()`](Self::saturated_counters)
///   counts them.
/// - An unsaturated counter is at least the number of copies of present items
///   that touch it (an item touching it twice counts twice), provided only
///   present items were removed. Hence no false negatives, and
///   [`count`](Self::count) never underestimates an item whose counters are
///   unsaturated.
///
/// # Removing what was never inserted
///
/// As for [`CountingBloomFilter`](crate::CountingBloomFilter):
/// [`remove`](Self::remove) refuses, changing nothing, when one of the
/// item's counters is zero, but cannot tell a false positive from a member.
/// Removing a false positive decrements other items' counters and can make
/// them false negatives. Only remove items you inserted. (The cuckoo filter
/// has the same rule; a mistaken remove there loses at most one other item,
/// where here it decrements k counters shared with many: see
/// [`CountingBloomFilter`](crate::CountingBloomFilter).)
#[derive(Clone)]
pub struct BlockedCountingBloomFilter<S = DefaultHashBuilder, Q = AnyHashes> {
    pub(crate) blocks: Vec<Block>,
    pub(crate) hashes: u32,
    /// The word sets of the two halves, from `hashes`, and how keys'
    /// hashes become their words: [`PairMix::Folded`] unless loaded from
    /// bytes older than format 1.5.
    pub(crate) patterns: HalfPatterns,
    /// Derived from `blocks` (kept to answer in O(1)), so equality and the
    /// bytes leave it out.
    pub(crate) saturated: u64,
    pub(crate) hasher: S,
    /// How operations run on this CPU: not state, since every kernel
    /// computes the same counters.
    kernel: Kernel,
    /// Whether a key's words are its hash as it is or its mix: a type, so
    /// the choice costs nothing at run time.
    quality: PhantomData<Q>,
}

impl BlockedCountingBloomFilter<DefaultHashBuilder> {
    /// A filter for `expected_items` items at false-positive rate `fpr`, with
    /// the default hasher: the hash count and the fewest blocks that meet
    /// `fpr` by the model (see the type docs for the memory this takes:
    /// 4.11× the classic bits at 1 %, 4.30× at 0.1 %).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items == 0`, `fpr` outside
    /// the open interval (0, 1) or NaN, an `fpr` below about 1.1e-5 (the
    /// optimal hash count would exceed [`MAX_BLOCKED_HASHES`]), or a table
    /// too large to allocate.
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, DefaultHashBuilder::default())
    }

    /// A filter of exactly `blocks` blocks (128 counters each) and `hashes`
    /// counters per item, with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `blocks` outside `2..=2^39`, `hashes`
    /// outside `1..=16`, or a table too large to allocate.
    pub fn with_blocks(blocks: u64, hashes: u32) -> Result<Self, Error> {
        Self::with_blocks_and_hasher(blocks, hashes, DefaultHashBuilder::default())
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be queried
    /// with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming what is wrong with the bytes;
    /// [`Error::HasherMismatch`] when they were written under a hasher that
    /// hashes differently from the default one on this build;
    /// [`Error::InvalidParameter`] naming `blocks` when the table, valid,
    /// cannot be allocated.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, DefaultHashBuilder::default())
    }
}

impl<S: BuildHasher> BlockedCountingBloomFilter<S> {
    /// As [`with_fpr`](BlockedCountingBloomFilter::with_fpr), hashing keys
    /// with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`with_fpr`](BlockedCountingBloomFilter::with_fpr).
    pub fn with_fpr_and_hasher(expected_items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let (hashes, blocks) = sized(expected_items, fpr)?;
        // The caller chose the item count, not the block count.
        Self::with_blocks_and_hasher(blocks, hashes, hasher)
            .map_err(|e| blame_items(e, "blocks", blocks, expected_items, fpr))
    }

    /// As [`with_blocks`](BlockedCountingBloomFilter::with_blocks), hashing
    /// keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`with_blocks`](BlockedCountingBloomFilter::with_blocks).
    pub fn with_blocks_and_hasher(blocks: u64, hashes: u32, hasher: S) -> Result<Self, Error> {
        check_blocks(blocks)?;
        check_hashes(hashes)?;
        let len = usize::try_from(blocks).map_err(|_| {
            Error::invalid("blocks", blocks, "small enough to address on this platform")
        })?;
        let table = zeroed_vec(len, "blocks")?;
        Ok(Self::from_parts(table, hashes, PairMix::Folded, hasher))
    }

    /// This filter, which must be empty, as one of [`UniformHashes`]: one
    /// that takes a key's first word from its hash as it is, without mixing
    /// it first (the second is the default's, a folded product of the hash;
    /// `uniform.rs` says why).
    ///
    /// In exchange every hash the filter sees, through its hasher or a
    /// `*_hash` method, must be uniform: the output of a good hasher, such
    /// as the default one. Structured values (sequential ids, ids shifted
    /// into the high bits) then crowd into a few blocks and counters, and
    /// the false-positive rate may exceed its target many times over; no
    /// item is ever lost either way, and
    /// [`count`](BlockedCountingBloomFilter::count) never falls below the
    /// truth for that. See [`filter_core::hash_quality`] for the trade-off.
    ///
    /// The choice is part of the filter's bytes: load them with
    /// [`from_bytes_with_quality`](BlockedCountingBloomFilter::from_bytes_with_quality).
    ///
    /// ```
    /// use counting_bloom::{BlockedCountingBloomFilter, DefaultHashBuilder, UniformHashes};
    ///
    /// let filter = BlockedCountingBloomFilter::with_fpr(10_000, 0.01)?;
    /// let mut sessions = filter.assume_uniform_hashes()?;
    /// sessions.insert("7f3a-session");
    /// assert!(sessions.contains("7f3a-session"));
    ///
    /// let bytes = sessions.to_bytes();
    /// let hasher = DefaultHashBuilder::default();
    /// let loaded =
    ///     BlockedCountingBloomFilter::from_bytes_with_quality(&bytes, hasher, UniformHashes)?;
    /// assert_eq!(loaded.count("7f3a-session"), 1);
    /// // Bytes of one quality never load as the other.
    /// assert!(BlockedCountingBloomFilter::from_bytes(&bytes).is_err());
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] if any counter is non-zero: its items sit
    /// where the mixed hashes put them, and the filter would look for them
    /// elsewhere. (A filter emptied by removes qualifies, unless a counter
    /// saturated.) The check reads every block.
    pub fn assume_uniform_hashes(
        self,
    ) -> Result<BlockedCountingBloomFilter<S, UniformHashes>, Error> {
        if self.blocks.iter().any(|block| block.0 != [0; 8]) {
            // At least one item, whatever the estimate rounds to.
            let items = self.estimated_len().max(1);
            return Err(not_empty(
                "assume_uniform_hashes",
                format_args!("about {items}"),
            ));
        }
        Ok(BlockedCountingBloomFilter {
            blocks: self.blocks,
            hashes: self.hashes,
            patterns: self.patterns,
            saturated: self.saturated,
            hasher: self.hasher,
            kernel: self.kernel,
            quality: PhantomData,
        })
    }
}

impl<S: BuildHasher, Q: HashQuality> BlockedCountingBloomFilter<S, Q> {
    /// Assembles a filter from a validated table whose keys' words come
    /// from `mix` (unused by filters of [`UniformHashes`]).
    pub(crate) fn from_parts(blocks: Vec<Block>, hashes: u32, mix: PairMix, hasher: S) -> Self {
        let saturated = blocks
            .iter()
            .flat_map(|b| b.0)
            .map(|w| u64::from(saturated_in_word(w)))
            .sum();
        BlockedCountingBloomFilter {
            blocks,
            hashes,
            patterns: half_patterns(hashes, mix),
            saturated,
            hasher,
            kernel: Kernel::detect(),
            quality: PhantomData,
        }
    }

    /// Adds one copy of `item`: increments each of its counters that is not
    /// saturated. Never fails: saturated counters only raise the
    /// false-positive rate.
    ///
    /// It returns nothing, where the [`Insert`] trait's `insert` (which this
    /// type implements by calling it) returns `Ok(())`: code written for any
    /// filter, `insert(..)?` included, calls `Insert::insert`.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) {
        self.insert_hash(self.hasher.hash_one(item));
    }

    /// As [`insert`](Self::insert), for an item whose raw 64-bit hash is
    /// `hash` (the filter mixes it before use, unless its hashes are
    /// [`UniformHashes`]).
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) {
        self.saturated +=
            blocked_simd::insert::<Q>(self.kernel, &mut self.blocks, hash, self.patterns);
    }

    /// Adds one copy of `item` and returns `true` if it was certainly not
    /// present before (one of its counters was zero), like
    /// [`HashSet::insert`](std::collections::HashSet::insert). `false`
    /// means it may have been: a copy is present, or it is a false
    /// positive. Either way the copy is counted, as by
    /// [`insert`](Self::insert).
    ///
    /// ```
    /// use counting_bloom::BlockedCountingBloomFilter;
    ///
    /// let mut filter = BlockedCountingBloomFilter::with_fpr(1_000, 0.01)?;
    /// assert!(filter.insert_unique("alice"));  // new
    /// assert!(!filter.insert_unique("alice")); // (probably) present
    /// assert_eq!(filter.count("alice"), 2);    // both copies counted
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_unique<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        self.insert_unique_hash(self.hasher.hash_one(item))
    }

    /// As [`insert_unique`](Self::insert_unique), for a raw 64-bit hash.
    ///
    /// A lookup, then the insert: the insert finds the two blocks the
    /// lookup just loaded in cache, and the kernels stay one per operation.
    #[inline]
    pub fn insert_unique_hash(&mut self, hash: u64) -> bool {
        let new = !self.contains_hash(hash);
        self.insert_hash(hash);
        new
    }

    /// Whether `item` may be present: `false` means it is certainly not
    /// (never inserted, or every copy removed).
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_hash(self.hasher.hash_one(item))
    }

    /// As [`contains`](Self::contains), for a raw 64-bit hash.
    ///
    /// Both blocks are located and read before either is tested, and the
    /// test has no data-dependent branch, so the two cache misses overlap.
    /// Where the CPU has AVX2 (checked once, at construction) all eight
    /// words of a block are tested at once, with masks computed from the
    /// hash before the blocks arrive, so that only an AND and a compare per
    /// 32 bytes wait for them and more lookups fit in flight (about 20 %
    /// faster in DRAM than testing the loaded words; see `blocked_simd.rs`).
    /// Elsewhere a portable loop gives the same answers. An early exit after
    /// the first block was measured no faster for misses, and it
    /// mispredicts.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        blocked_simd::contains::<Q>(self.kernel, &self.blocks, hash, self.patterns)
    }

    /// Removes one copy of `item`: decrements each of its counters that is
    /// not saturated.
    ///
    /// Returns `false`, and changes nothing, when one of the item's counters
    /// is zero: the item is certainly not present. Returns `true` otherwise.
    ///
    /// Only remove items that were inserted: removing a false positive
    /// decrements other items' counters and can make them false negatives.
    #[inline]
    pub fn remove<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        self.remove_hash(self.hasher.hash_one(item))
    }

    /// As [`remove`](Self::remove), for a raw 64-bit hash.
    pub fn remove_hash(&mut self, hash: u64) -> bool {
        if let Some(removed) =
            blocked_simd::remove::<Q>(self.kernel, &mut self.blocks, hash, self.patterns)
        {
            return removed;
        }
        // Every counter is non-zero, and the two blocks coincide.
        let [first, second] = halves::<Q>(hash, self.blocks.len(), self.patterns);
        let slots = slots([first, second]);
        for (done, (block, word, shift)) in slots.clone().enumerate() {
            let value = (self.blocks[block].0[word] >> shift) & 15;
            if value == 0 {
                // Only reachable when the two blocks coincide and both halves
                // touch one counter that holds fewer touches than that: the
                // item was never inserted. Undo the decrements made so far so
                // that a `false` answer changes nothing.
                for (block, word, shift) in slots.take(done) {
                    let cell = &mut self.blocks[block].0[word];
                    if (*cell >> shift) & 15 < MAX_COUNT {
                        *cell += 1 << shift;
                    }
                }
                return false;
            }
            if value < MAX_COUNT {
                self.blocks[block].0[word] -= 1 << shift;
            }
        }
        true
    }

    /// An estimate of how many copies of `item` are present: the smallest of
    /// its counters.
    ///
    /// Never below the true multiplicity unless one of the item's counters
    /// saturated (then it reports 15), or a false positive was removed. It can
    /// be above it, when other items share all of this item's counters.
    #[inline]
    pub fn count<T: Hash + ?Sized>(&self, item: &T) -> u32 {
        self.count_hash(self.hasher.hash_one(item))
    }

    /// As [`count`](Self::count), for a raw 64-bit hash.
    pub fn count_hash(&self, hash: u64) -> u32 {
        slots(halves::<Q>(hash, self.blocks.len(), self.patterns))
            .map(|(block, word, shift)| ((self.blocks[block].0[word] >> shift) & 15) as u32)
            .min()
            .unwrap_or(0)
    }

    /// Adds `other`'s counters into this filter's, each sum capped at 15:
    /// afterwards this filter holds the items of both (a multiset union).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the block or hash counts differ, or when
    /// one side was loaded from bytes older than format 1.5 and the other
    /// was not (their keys' counters are chosen differently);
    /// [`Error::HasherMismatch`] when the two hashers hash differently. On an
    /// error `self` is unchanged.
    pub fn merge(&mut self, other: &Self) -> Result<(), Error> {
        if self.blocks.len() != other.blocks.len() {
            return Err(Error::incompatible(
                "blocks",
                self.blocks.len(),
                other.blocks.len(),
            ));
        }
        if self.hashes != other.hashes {
            return Err(Error::incompatible("hashes", self.hashes, other.hashes));
        }
        if self.patterns.mix != other.patterns.mix {
            return Err(Error::incompatible(
                "pair mix",
                format_args!("{:?}", self.patterns.mix),
                format_args!("{:?}", other.patterns.mix),
            ));
        }
        if !HasherProbe::same(&self.hasher, &other.hasher) {
            return Err(Error::HasherMismatch);
        }
        let mut saturated = 0;
        for (mine, theirs) in self.blocks.iter_mut().zip(&other.blocks) {
            for (a, &b) in mine.0.iter_mut().zip(&theirs.0) {
                *a = saturating_add_words(*a, b);
                saturated += u64::from(saturated_in_word(*a));
            }
        }
        self.saturated = saturated;
        Ok(())
    }

    /// Sets every counter to zero, keeping the size and hasher.
    pub fn clear(&mut self) {
        self.blocks.fill(Block::default());
        self.saturated = 0;
    }
}

impl<S, Q> BlockedCountingBloomFilter<S, Q> {
    /// The false-positive rate the model predicts with `items` distinct items
    /// present: each block holds Poisson(items/blocks) first halves and as
    /// many second halves, and the rate follows exactly from the layout's
    /// word windows (the formula is in the source, `blocked_sizing.rs`).
    /// Saturated counters can only add to it, negligibly at design load.
    pub fn expected_fpr(&self, items: usize) -> f64 {
        blocked_counting_fpr(self.blocks.len() as u64, items, self.hashes)
    }

    /// The number of 64-byte blocks, the type
    /// [`with_blocks`](BlockedCountingBloomFilter::with_blocks) takes.
    pub fn blocks(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// The number of counters: 128 per block.
    pub fn counters(&self) -> u64 {
        self.blocks.len() as u64 * BLOCK_COUNTERS
    }

    /// The number of counters each item touches, k: ⌈k/2⌉ in its first
    /// block, ⌊k/2⌋ in its second.
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// How many counters are saturated (stuck at 15). Each one stays
    /// non-zero forever; a growing number means the filter holds far more
    /// items, or far more copies, than it was sized for.
    pub fn saturated_counters(&self) -> u64 {
        self.saturated
    }

    /// Bytes of the counter table: 64 per block.
    pub fn memory_bytes(&self) -> usize {
        size_of_val(self.blocks.as_slice())
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// The blocks, for the encoder.
    pub(crate) fn block_slice(&self) -> &[Block] {
        &self.blocks
    }
}

/// Checks a block count against `2..=MAX_BLOCKS`.
pub(crate) fn check_blocks(blocks: u64) -> Result<u64, Error> {
    check_range("blocks", blocks, MIN_BLOCKS..=MAX_BLOCKS)
}

/// Checks a hash count against `1..=MAX_BLOCKED_HASHES`.
pub(crate) fn check_hashes(hashes: u32) -> Result<u32, Error> {
    check_range("hashes", hashes, 1..=MAX_BLOCKED_HASHES)
}

impl<T: Hash + ?Sized, S: BuildHasher, Q: HashQuality> Filter<T>
    for BlockedCountingBloomFilter<S, Q>
{
    fn contains(&self, item: &T) -> bool {
        BlockedCountingBloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        BlockedCountingBloomFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: BuildHasher, Q: HashQuality> Insert<T>
    for BlockedCountingBloomFilter<S, Q>
{
    /// Never fails: saturated counters only raise the false-positive rate.
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        BlockedCountingBloomFilter::insert(self, item);
        Ok(())
    }
}

impl<T: Hash + ?Sized, S: BuildHasher, Q: HashQuality> Remove<T>
    for BlockedCountingBloomFilter<S, Q>
{
    fn remove(&mut self, item: &T) -> bool {
        BlockedCountingBloomFilter::remove(self, item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_hashes_take_their_first_word_from_the_hash_as_it_is() {
        // Written out from the definition, not from `uniform.rs`: x = h,
        // y = folded_product(h ^ φ); the first half in block reduce(x) with
        // counters from y, the second in block reduce(y) with counters
        // from x. One key in an empty filter sets exactly those counters.
        use crate::counter_block::{shift_in_word, words_of};
        let (blocks, k) = (1_001usize, 9);
        let any = BlockedCountingBloomFilter::with_blocks(blocks as u64, k).unwrap();
        let uniform = any.clone().assume_uniform_hashes().unwrap();
        let mut moved = 0;
        for h in (0..500u64).map(|i| filter_core::mix64(i ^ 0xBEEF)) {
            let y = filter_core::probes::folded_product(h ^ 0x9E37_79B9_7F4A_7C15);
            let (x, y) = (h, y);
            let mut expected = vec![Block::default(); blocks];
            for (block, bits, len) in [
                (filter_core::reduce(x, blocks), y, k.div_ceil(2)),
                (filter_core::reduce(y, blocks), x, k / 2),
            ] {
                let words = words_of(bits, crate::counter_block::stride_patterns(len));
                for w in (0..8).filter(|w| words >> w & 1 == 1) {
                    expected[block].0[w] += 1 << shift_in_word(bits, w);
                }
            }
            let mut u = uniform.clone();
            u.insert_hash(h);
            assert_eq!(u.blocks, expected, "hash {h:#x}");
            let mut a = any.clone();
            a.insert_hash(h);
            moved += usize::from(a.blocks != u.blocks);
            assert!(u.contains_hash(h) && u.count_hash(h) == 1 && u.remove_hash(h));
            assert_eq!(u.nonzero_counters(), 0);
        }
        assert_eq!(moved, 500);
    }

    #[test]
    fn refused_remove_undoes_partial_decrements() {
        // Two blocks; find hashes whose halves share a block and a counter.
        // With that counter at 1 and the item's other counters non-zero, the
        // item looks present, but its second decrement of the shared counter
        // would go below zero: remove must refuse and change nothing.
        let mut tried = 0;
        for hash in 0..20_000u64 {
            let [a, b] = halves::<AnyHashes>(hash, 2, half_patterns(16, PairMix::Folded));
            if a.block != b.block {
                continue;
            }
            let shared = a.slots().any(|sa| b.slots().any(|sb| sa == sb));
            if !shared {
                continue;
            }
            let mut f = BlockedCountingBloomFilter::with_blocks(2, 16).unwrap();
            // Every counter of both blocks at 1, then saturate one counter
            // only the first half touches, so the undo must skip it.
            for block in &mut f.blocks {
                block.0 = [0x1111_1111_1111_1111; 8];
            }
            if let Some((word, shift)) = a.slots().find(|sa| b.slots().all(|sb| sb != *sa)) {
                f.blocks[a.block].0[word] |= 0xF << shift;
            }
            let f = BlockedCountingBloomFilter::<DefaultHashBuilder>::from_parts(
                f.blocks,
                16,
                PairMix::Folded,
                f.hasher,
            );
            let mut g = f.clone();
            assert!(g.contains_hash(hash));
            assert!(!g.remove_hash(hash));
            assert_eq!(g.block_slice(), f.block_slice());
            assert_eq!(g.saturated_counters(), f.saturated_counters());
            tried += 1;
        }
        // A coinciding pair (1/2) sharing one of 64 (word, counter) pairs
        // is common with 8 + 8 counters: hundreds of the 20,000 hashes.
        assert!(tried > 100, "{tried}");
    }

    #[test]
    fn kernels_agree_on_every_operation_at_every_size() {
        // Filters of 2 to 64 blocks and every hash count, one on the
        // portable kernel and one on the detected one (AVX2 here), driven
        // through the same structured keys (0, tiny, `i << 40`, `i << 28`,
        // near u64::MAX), inserts and removes of anything, false positives
        // included: same answers, same tables, same saturated count (and
        // that count matches the table), and a refused remove changes
        // nothing. The kernel tests in `blocked_simd.rs` cover 3 and 8
        // blocks at the kernel level; this covers the smallest filter and
        // the scalar path for coinciding blocks through the public methods.
        let detected = Kernel::detect();
        let mut state = 3u64;
        let mut next = || {
            state = filter_core::mix64(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
            state
        };
        for blocks in [2u64, 3, 4, 7, 64] {
            for k in 1..=MAX_BLOCKED_HASHES {
                let mut portable = BlockedCountingBloomFilter::with_blocks(blocks, k).unwrap();
                portable.kernel = Kernel::Portable;
                let mut fast = portable.clone();
                fast.kernel = detected;
                for step in 0..3_000 {
                    let r = next();
                    let key = match r % 6 {
                        0 => 0,
                        1 => (r >> 8) % 8,
                        2 => ((r >> 8) % 16) << 40,
                        3 => ((r >> 8) % 16) << 28,
                        4 => u64::MAX - (r >> 8) % 4,
                        _ => r >> 56,
                    };
                    let at = format!("blocks {blocks} k {k} step {step}");
                    if (r >> 3) % 3 == 0 {
                        portable.insert_hash(key);
                        fast.insert_hash(key);
                    } else {
                        let before = portable.blocks.clone();
                        let removed = portable.remove_hash(key);
                        assert_eq!(fast.remove_hash(key), removed, "{at}");
                        if !removed {
                            assert_eq!(portable.blocks, before, "{at}");
                        }
                    }
                    assert_eq!(fast.blocks, portable.blocks, "{at}");
                    assert_eq!(fast.saturated, portable.saturated, "{at}");
                    let recount = BlockedCountingBloomFilter::<DefaultHashBuilder>::from_parts(
                        portable.blocks.clone(),
                        k,
                        portable.patterns.mix,
                        DefaultHashBuilder::default(),
                    );
                    assert_eq!(portable.saturated, recount.saturated, "{at}");
                    for h in [next(), key, next() >> 60] {
                        let present = portable.contains_hash(h);
                        assert_eq!(fast.contains_hash(h), present, "{at}");
                        assert_eq!(fast.count_hash(h), portable.count_hash(h), "{at}");
                        assert_eq!(portable.count_hash(h) > 0, present, "{at}");
                    }
                }
            }
        }
    }
}
