//! The blocked type: construction, insert, contains, remove, count,
//! merge. The layout is in `counter_block.rs`, the sizing in
//! `blocked_sizing.rs`, the kernels in `blocked_simd.rs`.
//!
//! Every operation works on the key's *mixed* hash, as in the classic
//! layout: the hasher's [`mixed_hash`](KeyHasher::mixed_hash) for a key,
//! [`mix64`] of what a `*_hash` method is given.

use std::hash::Hash;

use filter_core::memory::zeroed_vec;
use filter_core::sizing::{blame_items, check_range};
use filter_core::{Error, Filter, HasherProbe, Insert, KeyHasher, PortableHasher, Remove, mix64};

use crate::blocked_simd;
use crate::blocked_sizing::{
    MAX_BLOCKED_HASHES, MAX_BLOCKS, MIN_BLOCKS, blocked_counting_fpr, sized,
};
use crate::counter_block::{BLOCK_COUNTERS, Block, HalfPatterns, half_patterns, halves, slots};
use crate::counters::{MAX_COUNT, saturated_in_word, saturating_add_words};
use crate::kernel::Kernel;

/// A counting Bloom filter whose k counters per key lie in **two cache
/// lines**: faster lookups, inserts and removes than
/// [`CountingBloomFilter`](crate::CountingBloomFilter), for a few percent
/// more memory.
///
/// ```
/// use counting_bloom::BlockedCountingBloomFilter;
///
/// let mut live = BlockedCountingBloomFilter::with_fpr(10_000, 0.01)?;
/// live.insert(&42u64);
/// live.insert(&42u64);
/// assert_eq!(live.count(&42u64), 2);
/// assert!(live.remove(&42u64));
/// assert!(live.contains(&42u64));          // one copy left
/// assert!(!live.remove(&7u64));            // certainly absent: nothing changes
/// # Ok::<(), counting_bloom::Error>(())
/// ```
///
/// The table is an array of 64-byte blocks of 128 four-bit counters. A key
/// puts ⌈k/2⌉ of its counters in one block and ⌊k/2⌋ in another, each block
/// chosen by its own word of the key's hash, one counter per 64-bit word. A
/// lookup therefore costs two cache misses, issued together, where the
/// classic layout costs up to k. Why two blocks and not one: with all k
/// counters in one block the blocks' uneven load would need far more
/// counters for the same rate; splitting halves its variance.
///
/// # Space and false-positive rate
///
/// [`with_fpr(n, p)`](Self::with_fpr) picks the hash count and the fewest
/// blocks whose modelled rate (see [`expected_fpr`](Self::expected_fpr)) is
/// at most p. The model is exact given Poisson block loads, so the rate with
/// n items sits at p, not below it. Blocking costs counters: the uneven load
/// of the blocks raises the rate at a given size, so the best k is usually
/// one below the classic filter's. Against `sizing::bloom_bits(n, p)` (the
/// textbook classic size), at 1M keys:
///
/// | target p | k | bits per key | × classic bits | × [`CountingBloomFilter`](crate::CountingBloomFilter) |
/// | --- | --- | --- | --- | --- |
/// | 1 % | 6 | 39.4 | 4.11 | 1.027 |
/// | 0.1 % | 9 | 61.8 | 4.30 | 1.074 |
/// | 0.01 % | 12 | 87.3 | 4.56 | 1.138 |
///
/// k is limited to 16 (8 counters per block), so p must be above about
/// 1.1e-5. Small sets cost more per item than in the classic layout (a
/// filter has two blocks at least) and sit below p.
///
/// ```
/// use counting_bloom::BlockedCountingBloomFilter;
///
/// let filter = BlockedCountingBloomFilter::with_fpr(1_000_000, 0.01)?;
/// assert_eq!(filter.hashes(), 6);
/// assert_eq!(filter.memory_bytes() as u64, filter.blocks() * 64);
/// let bits_per_key = filter.memory_bytes() as f64 * 8.0 / 1e6;
/// assert!((bits_per_key - 39.42).abs() < 0.01, "{bits_per_key}");
///
/// // 10,000 items in, 100,000 other keys asked.
/// let mut filter = BlockedCountingBloomFilter::with_fpr(10_000, 0.01)?;
/// (0..10_000u64).for_each(|i| filter.insert(&i));
/// let false_positives = (10_000..110_000u64).filter(|i| filter.contains(i)).count();
/// // σ = √(0.01 · 0.99 / 100,000) ≈ 0.03 %, so 1.15 % is 5σ above the target.
/// assert!(false_positives < 1_150, "{false_positives}");
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
/// them false negatives. Only remove items you inserted.
#[derive(Clone)]
pub struct BlockedCountingBloomFilter<S = PortableHasher> {
    pub(crate) blocks: Vec<Block>,
    pub(crate) hashes: u32,
    /// The word sets of the two halves, from `hashes`.
    pub(crate) patterns: HalfPatterns,
    /// Derived from `blocks` (kept to answer in O(1)), so equality and the
    /// bytes leave it out.
    pub(crate) saturated: u64,
    pub(crate) hasher: S,
    /// How operations run on this CPU: not state, since every kernel
    /// computes the same counters.
    kernel: Kernel,
}

impl BlockedCountingBloomFilter {
    /// A filter for `expected_items` items at false-positive rate `fpr`, with
    /// the default hasher: the hash count and the fewest blocks that meet
    /// `fpr` by the model (see the type docs for the memory this takes).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items == 0`, `fpr` outside
    /// the open interval (0, 1) or NaN, an `fpr` below about 1.1e-5 (the
    /// optimal hash count would exceed [`MAX_BLOCKED_HASHES`]), or a table
    /// too large to allocate.
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, PortableHasher::default())
    }

    /// A filter of exactly `blocks` blocks (128 counters each) and `hashes`
    /// counters per item, with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `blocks` outside `2..=2^39`, `hashes`
    /// outside `1..=16`, or a table too large to allocate.
    pub fn with_blocks(blocks: u64, hashes: u32) -> Result<Self, Error> {
        Self::with_blocks_and_hasher(blocks, hashes, PortableHasher::default())
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be queried
    /// with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::WrongKind`] for valid bytes of another filter kind;
    /// [`Error::Corrupt`] naming what is wrong with the bytes;
    /// [`Error::HasherMismatch`] when they were written under another
    /// hasher (or another seed); [`Error::InvalidParameter`] naming
    /// `blocks` when the table, valid, cannot be allocated.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<S: KeyHasher> BlockedCountingBloomFilter<S> {
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
        Ok(Self::from_parts(table, hashes, hasher))
    }

    /// Adds one copy of `item`: increments each of its counters that is not
    /// saturated. Never fails: saturated counters only raise the
    /// false-positive rate.
    ///
    /// It returns nothing, where the [`Insert`] trait's `insert` (which this
    /// type implements by calling it) returns `Ok(())`.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) {
        self.insert_mixed(self.hasher.mixed_hash(item));
    }

    /// Whether `item` may be present: `false` means it is certainly not
    /// (never inserted, or every copy removed).
    ///
    /// Both blocks are located and read before either is tested, and the
    /// test has no data-dependent branch, so the two cache misses overlap.
    /// Where the CPU has AVX2 (checked once, at construction) all eight
    /// words of a block are tested at once; elsewhere a portable loop gives
    /// the same answers.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_mixed(self.hasher.mixed_hash(item))
    }

    /// Removes one copy of `item`: decrements each of its counters that is
    /// not saturated.
    ///
    /// Returns `false`, and changes nothing, when one of the item's counters
    /// is zero: the item is certainly not present. Returns `true` otherwise.
    /// A saturated counter (15) is never decremented, so an item inserted 15
    /// times or more stays present after any number of removes.
    ///
    /// Only remove items that were inserted: removing a false positive
    /// decrements other items' counters and can make them false negatives.
    #[inline]
    pub fn remove<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        self.remove_mixed(self.hasher.mixed_hash(item))
    }

    /// An estimate of how many copies of `item` are present: the smallest of
    /// its counters.
    ///
    /// Never below the true multiplicity unless one of the item's counters
    /// saturated (then it reports 15), or a false positive was removed. It can
    /// be above it, when other items share all of this item's counters.
    #[inline]
    pub fn count<T: Hash + ?Sized>(&self, item: &T) -> u32 {
        self.count_mixed(self.hasher.mixed_hash(item))
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
        self.insert_unique_mixed(self.hasher.mixed_hash(item))
    }

    /// Adds `other`'s counters into this filter's, each sum capped at 15:
    /// afterwards this filter holds the items of both (a multiset sum).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the block or hash counts differ;
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

    /// As [`insert`](Self::insert), for an item whose 64-bit hash is `hash`
    /// (the filter mixes it first, so sequential ids are fine).
    /// `f.insert_hash(f.hasher().hash_key(&k))` is `f.insert(&k)`.
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) {
        self.insert_mixed(mix64(hash));
    }

    /// As [`contains`](Self::contains), for a 64-bit hash.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.contains_mixed(mix64(hash))
    }

    /// As [`remove`](Self::remove), for a 64-bit hash.
    #[inline]
    pub fn remove_hash(&mut self, hash: u64) -> bool {
        self.remove_mixed(mix64(hash))
    }

    /// As [`count`](Self::count), for a 64-bit hash.
    #[inline]
    pub fn count_hash(&self, hash: u64) -> u32 {
        self.count_mixed(mix64(hash))
    }

    /// As [`insert_unique`](Self::insert_unique), for a 64-bit hash.
    #[inline]
    pub fn insert_unique_hash(&mut self, hash: u64) -> bool {
        self.insert_unique_mixed(mix64(hash))
    }

    /// Assembles a filter from a validated table.
    pub(crate) fn from_parts(blocks: Vec<Block>, hashes: u32, hasher: S) -> Self {
        let saturated = blocks
            .iter()
            .flat_map(|b| b.0)
            .map(|w| u64::from(saturated_in_word(w)))
            .sum();
        BlockedCountingBloomFilter {
            blocks,
            hashes,
            patterns: half_patterns(hashes),
            saturated,
            hasher,
            kernel: Kernel::detect(),
        }
    }

    /// Adds one copy of the item whose mixed hash is `mixed`.
    #[inline]
    pub(crate) fn insert_mixed(&mut self, mixed: u64) {
        self.saturated += blocked_simd::insert(self.kernel, &mut self.blocks, mixed, self.patterns);
    }

    /// A lookup, then the insert: the insert finds the two blocks the
    /// lookup just loaded in cache, and the kernels stay one per operation.
    #[inline]
    fn insert_unique_mixed(&mut self, mixed: u64) -> bool {
        let new = !self.contains_mixed(mixed);
        self.insert_mixed(mixed);
        new
    }

    /// Whether the item whose mixed hash is `mixed` may be present.
    #[inline]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        blocked_simd::contains(self.kernel, &self.blocks, mixed, self.patterns)
    }

    /// Removes one copy of the item whose mixed hash is `mixed`.
    pub(crate) fn remove_mixed(&mut self, mixed: u64) -> bool {
        if let Some(removed) =
            blocked_simd::remove(self.kernel, &mut self.blocks, mixed, self.patterns)
        {
            return removed;
        }
        // Every counter is non-zero, and the two blocks coincide.
        let [first, second] = halves(mixed, self.blocks.len(), self.patterns);
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

    /// The smallest counter of the item whose mixed hash is `mixed`.
    fn count_mixed(&self, mixed: u64) -> u32 {
        slots(halves(mixed, self.blocks.len(), self.patterns))
            .map(|(block, word, shift)| ((self.blocks[block].0[word] >> shift) & 15) as u32)
            .min()
            .unwrap_or(0)
    }
}

impl<S> BlockedCountingBloomFilter<S> {
    /// The number of 64-byte blocks, the count
    /// [`with_blocks`](BlockedCountingBloomFilter::with_blocks) takes.
    pub fn blocks(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// The number of counters each item touches, k: ⌈k/2⌉ in its first
    /// block, ⌊k/2⌋ in its second.
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// Bytes of the counter table: 64 per block.
    pub fn memory_bytes(&self) -> usize {
        size_of_val(self.blocks.as_slice())
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// How many counters are saturated (stuck at 15). Each one stays
    /// non-zero forever; a growing number means the filter holds far more
    /// items, or far more copies, than it was sized for.
    pub fn saturated_counters(&self) -> u64 {
        self.saturated
    }

    /// The false-positive rate the model predicts with `items` distinct items
    /// present: each block holds Poisson(items/blocks) first halves and as
    /// many second halves, and the rate follows exactly from the layout's
    /// word windows (the formula is in the source, `blocked_sizing.rs`).
    /// Saturated counters can only add to it, negligibly at design load.
    pub fn expected_fpr(&self, items: usize) -> f64 {
        blocked_counting_fpr(self.blocks.len() as u64, items, self.hashes)
    }

    /// The number of counters: 128 per block.
    pub(crate) fn counters(&self) -> u64 {
        self.blocks.len() as u64 * BLOCK_COUNTERS
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

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for BlockedCountingBloomFilter<S> {
    fn contains(&self, item: &T) -> bool {
        BlockedCountingBloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        BlockedCountingBloomFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Insert<T> for BlockedCountingBloomFilter<S> {
    /// Never fails: saturated counters only raise the false-positive rate.
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        BlockedCountingBloomFilter::insert(self, item);
        Ok(())
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Remove<T> for BlockedCountingBloomFilter<S> {
    fn remove(&mut self, item: &T) -> bool {
        BlockedCountingBloomFilter::remove(self, item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_hashes_take_their_words_from_the_mixed_hash() {
        // Written out from the definition: x = m, y = folded_product(m ^ φ)
        // for the key's mixed hash m (mix64 of a `*_hash` argument); the
        // first half in block reduce(x) with counters from y, the second in
        // block reduce(y) with counters from x. One key in an empty filter
        // sets exactly those counters.
        use crate::counter_block::{shift_in_word, stride_patterns, words_of};
        let (blocks, k) = (1_001usize, 9);
        let empty = BlockedCountingBloomFilter::with_blocks(blocks as u64, k).unwrap();
        for i in 0..300u64 {
            let key = format!("key {i}");
            let x = empty.hasher().mixed_hash(&key);
            let y = filter_core::probes::folded_product(x ^ 0x9E37_79B9_7F4A_7C15);
            let mut expected = vec![Block::default(); blocks];
            for (block, bits, len) in [
                (filter_core::reduce(x, blocks), y, k.div_ceil(2)),
                (filter_core::reduce(y, blocks), x, k / 2),
            ] {
                let words = words_of(bits, stride_patterns(len));
                for w in (0..8).filter(|w| words >> w & 1 == 1) {
                    expected[block].0[w] += 1 << shift_in_word(bits, w);
                }
            }
            let mut by_key = empty.clone();
            by_key.insert(&key);
            assert_eq!(by_key.blocks, expected, "{key}");
            let mut by_hash = empty.clone();
            by_hash.insert_hash(empty.hasher().hash_key(&key));
            assert_eq!(by_hash.blocks, expected, "{key}");
            assert!(by_key.contains_hash(empty.hasher().hash_key(&key)));
            assert!(by_key.count(&key) == 1 && by_key.remove(&key));
            assert_eq!(by_key.blocks, empty.blocks);
        }
    }

    #[test]
    fn refused_remove_undoes_partial_decrements() {
        // Two blocks; find hashes whose halves share a block and a counter.
        // With that counter at 1 and the item's other counters non-zero, the
        // item looks present, but its second decrement of the shared counter
        // would go below zero: remove must refuse and change nothing.
        let mut tried = 0;
        for mixed in (0..20_000u64).map(mix64) {
            let [a, b] = halves(mixed, 2, half_patterns(16));
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
            let f = BlockedCountingBloomFilter::from_parts(f.blocks, 16, f.hasher);
            let mut g = f.clone();
            assert!(g.contains_mixed(mixed));
            assert!(!g.remove_mixed(mixed));
            assert_eq!(g.blocks, f.blocks);
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
            state = mix64(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
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
                    let recount = BlockedCountingBloomFilter::from_parts(
                        portable.blocks.clone(),
                        k,
                        PortableHasher::default(),
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
