//! [`AtomicBlockedBloomFilter`]: the blocked filter, inserted into by many
//! threads at once.

use std::fmt;
use std::hash::Hash;
use std::sync::atomic::{AtomicUsize, Ordering};

use filter_core::sizing;
use filter_core::{Error, Filter, Insert, KeyHasher, PortableHasher, mix64};

use crate::BlockedBloomFilter;
use crate::block::{BLOCK_BITS, BLOCK_HASHES, Block, LANE_BITS, LANES, Probe, masks};
use crate::simd::{self, Kernel};

/// Lanes per storage word: two on 64-bit targets, one on 32-bit ones.
const WORD_LANES: usize = (usize::BITS / LANE_BITS) as usize;
/// Storage words per block.
pub(crate) const BLOCK_WORDS: usize = LANES / WORD_LANES;

/// A block of [`AtomicBlockedBloomFilter`]: the eight 32-bit lanes of a
/// [`Block`] in atomic words, lane `i` in word `i / WORD_LANES` at bit
/// `32 · (i % WORD_LANES)` (lanes 0 and 1 share word 0 on 64-bit targets).
/// Aligned like [`Block`], so it never straddles a cache line.
#[repr(C, align(32))]
pub(crate) struct AtomicBlock(pub(crate) [AtomicUsize; BLOCK_WORDS]);

impl AtomicBlock {
    /// The block holding `block`'s bits.
    pub(crate) fn new(block: &Block) -> Self {
        AtomicBlock(pack(&block.0).map(AtomicUsize::new))
    }

    /// The lanes as they are now.
    pub(crate) fn load(&self) -> Block {
        let words = std::array::from_fn(|j| self.0[j].load(Ordering::Relaxed));
        Block(unpack(&words))
    }
}

/// Eight lanes as storage words (see [`AtomicBlock`] for the layout).
#[inline(always)]
pub(crate) fn pack(lanes: &[u32; LANES]) -> [usize; BLOCK_WORDS] {
    std::array::from_fn(|j| {
        (0..WORD_LANES).fold(0, |word, l| {
            word | (lanes[j * WORD_LANES + l] as usize) << (LANE_BITS as usize * l)
        })
    })
}

/// Storage words as eight lanes: the inverse of [`pack`].
fn unpack(words: &[usize; BLOCK_WORDS]) -> [u32; LANES] {
    // Truncation intended: each lane is one 32-bit slice of its word.
    std::array::from_fn(|i| {
        (words[i / WORD_LANES] >> (LANE_BITS as usize * (i % WORD_LANES))) as u32
    })
}

/// A blocked Bloom filter that many threads can insert into at once:
/// [`BlockedBloomFilter`] with its blocks in atomic words, so that
/// [`insert`](Self::insert) takes `&self`.
///
/// ```
/// use bloom::AtomicBlockedBloomFilter;
///
/// let seen = AtomicBlockedBloomFilter::with_fpr(1_000, 0.01)?;
/// std::thread::scope(|s| {
///     s.spawn(|| seen.insert("from a thread"));
///     s.spawn(|| seen.insert("from another"));
/// });
/// assert!(seen.contains("from a thread") && seen.contains("from another"));
/// # Ok::<(), bloom::Error>(())
/// ```
///
/// Share one behind an [`Arc`](std::sync::Arc) (or borrow it into scoped
/// threads) and let every thread insert and query, with no lock.
///
/// It is the same filter, bit for bit: the same size and bits per key as
/// [`BlockedBloomFilter`] (10.53 bits per key at 1 %, 16.89 at 0.1 %), the
/// same block and lane bits for every key, the same bytes, and conversions
/// both ways ([`From`], and
/// [`to_blocked_bloom_filter`](Self::to_blocked_bloom_filter) for a
/// snapshot). Inserting the same keys in any order, from any threads, sets
/// the same bits, because a bit is only ever set (an atomic OR), never
/// cleared while shared.
///
/// **What threads see.** A key whose insert *happens before* a query (the
/// inserting thread was joined, or it published the key through a channel,
/// a lock, or any release store the querying thread acquired) is found: no
/// false negatives. A key inserted at the same moment as the query may or
/// may not be found yet. Bits are set and read with relaxed atomics (on
/// x86-64, plain loads and `lock or`): the ordering comes from the
/// synchronization that says "before", and each bit, once set, stays set.
///
/// **What it costs.** A key's eight bits live in one block of four 64-bit
/// words (eight 32-bit ones on 32-bit targets), so an insert is one atomic
/// OR per word, all on one cache line, where [`AtomicBloomFilter`]'s is k
/// of them on k lines. An insert first reads the block and skips the ORs when
/// every bit of the key is already set, so inserting a key already present
/// (a crawler meeting a known address again) writes nothing, and leaves
/// the line shared among the cores that read it. A lookup reads the
/// block's words one by one, where [`BlockedBloomFilter`] reads the block
/// with one vector load: a plain load of words that other threads write
/// atomically would be a data race. So where threads insert into one
/// filter and the blocked filter's space is acceptable, this is the fastest
/// way in this crate.
///
/// [`insert_unique`](Self::insert_unique) reports whether some bit of the
/// key was unset, like [`BlockedBloomFilter::insert_unique`]; two threads
/// inserting the same new key at the same moment may both be told it was
/// new, so it is no substitute for a lock when exactly one thread must
/// win.
///
/// [`AtomicBloomFilter`]: crate::AtomicBloomFilter
///
/// # Invariants
///
/// As [`BlockedBloomFilter`]'s: `1 <= blocks <= MAX_BLOCKS`, every block
/// 32-byte aligned, and only [`clear`](Self::clear), which takes
/// `&mut self`, unsets bits.
///
/// # Examples
///
/// ```
/// use bloom::AtomicBlockedBloomFilter;
///
/// let seen = AtomicBlockedBloomFilter::with_fpr(100_000, 0.01)?;
/// let bits_per_key = seen.bits() as f64 / 100_000.0;
/// assert!((10.52..10.54).contains(&bits_per_key), "{bits_per_key}");
///
/// // Four threads insert a quarter of the keys each, through `&seen`.
/// std::thread::scope(|s| {
///     for t in 0..4u64 {
///         let seen = &seen;
///         s.spawn(move || (t * 25_000..(t + 1) * 25_000).for_each(|id| seen.insert(&id)));
///     }
/// });
/// // Joined, so every insert happened before these queries.
/// assert!((0..100_000u64).all(|id| seen.contains(&id)));
/// let false_positives = (100_000..300_000u64).filter(|id| seen.contains(id)).count();
/// let fpr = false_positives as f64 / 200_000.0;
/// assert!(fpr < 0.0115, "{fpr}"); // 1 %, plus 5 binomial σ (σ ≈ 0.00022)
///
/// // A snapshot is an ordinary BlockedBloomFilter with the same bits.
/// let snapshot = seen.to_blocked_bloom_filter();
/// assert!(snapshot.contains(&42u64));
/// assert_eq!(snapshot.to_bytes(), seen.to_bytes());
/// # Ok::<(), bloom::Error>(())
/// ```
pub struct AtomicBlockedBloomFilter<S = PortableHasher> {
    blocks: Box<[AtomicBlock]>,
    hasher: S,
    /// How lookups and inserts run on this CPU: not state, since every
    /// kernel sets and reads the same bits.
    kernel: Kernel,
}

impl AtomicBlockedBloomFilter {
    /// A filter sized for `expected_items` distinct keys at false-positive
    /// rate `fpr`, with the default hasher: the size of
    /// [`BlockedBloomFilter::with_fpr`].
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::with_fpr`].
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, PortableHasher::default())
    }

    /// A filter of `blocks` 256-bit blocks, with the default hasher.
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::with_blocks`].
    pub fn with_blocks(blocks: u64) -> Result<Self, Error> {
        Self::with_blocks_and_hasher(blocks, PortableHasher::default())
    }

    /// Loads a filter from the bytes of [`BlockedBloomFilter::to_bytes`] or
    /// [`AtomicBlockedBloomFilter::to_bytes`] (the same format) under the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::from_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<S: KeyHasher> AtomicBlockedBloomFilter<S> {
    /// As [`AtomicBlockedBloomFilter::with_fpr`], hashing keys with
    /// `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::with_fpr`].
    pub fn with_fpr_and_hasher(expected_items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let blocks = crate::blocked::blocks_for(expected_items, fpr)?;
        Self::with_blocks_and_hasher(blocks, hasher)
            .map_err(|e| sizing::blame_items(e, "blocks", blocks, expected_items, fpr))
    }

    /// As [`AtomicBlockedBloomFilter::with_blocks`], hashing keys with
    /// `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::with_blocks`].
    pub fn with_blocks_and_hasher(blocks: u64, hasher: S) -> Result<Self, Error> {
        let len = crate::blocked::check_blocks(blocks)?;
        let mut table = Vec::new();
        table.try_reserve_exact(len).map_err(|_| {
            Error::invalid(
                "blocks",
                blocks,
                format_args!("small enough to allocate ({len} blocks of 32 bytes could not be)"),
            )
        })?;
        table.resize_with(len, || AtomicBlock::new(&Block::default()));
        Ok(AtomicBlockedBloomFilter {
            blocks: table.into_boxed_slice(),
            hasher,
            kernel: Kernel::detect(),
        })
    }

    /// As [`AtomicBlockedBloomFilter::from_bytes`], for a filter built with
    /// `hasher`. The table is read into a [`BlockedBloomFilter`] and copied
    /// into atomic words, so loading holds it twice for a moment.
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::from_bytes`].
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        BlockedBloomFilter::from_bytes_with_hasher(bytes, hasher).map(Self::from)
    }

    /// Adds `item`, through a shared reference. Never fails.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&self, item: &T) {
        self.insert_mixed(self.hasher.mixed_hash(item));
    }

    /// Whether `item` may be in the set: `false` means no insert of it
    /// happened before this call.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_mixed(self.hasher.mixed_hash(item))
    }

    /// Adds `item` and returns `true` if some bit of it was unset, so it
    /// was certainly not there before; `false` means it may have been. Two
    /// threads inserting the same key at once may both get `true` (see the
    /// type's docs).
    #[inline]
    pub fn insert_unique<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.insert_mixed(self.hasher.mixed_hash(item))
    }

    /// Adds the key whose 64-bit hash is `hash`, as
    /// [`BlockedBloomFilter::insert_hash`].
    #[inline]
    pub fn insert_hash(&self, hash: u64) {
        self.insert_mixed(mix64(hash));
    }

    /// Whether the key whose 64-bit hash is `hash` may be in the set, as
    /// [`BlockedBloomFilter::contains_hash`].
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.contains_mixed(mix64(hash))
    }

    #[inline]
    fn insert_mixed(&self, mixed: u64) -> bool {
        simd::atomic_insert(self.kernel, &self.blocks, mixed)
    }

    #[inline]
    fn contains_mixed(&self, mixed: u64) -> bool {
        simd::atomic_contains(self.kernel, &self.blocks, mixed)
    }

    /// The filter's bytes in the shared format, the same as
    /// [`BlockedBloomFilter::to_bytes`] of
    /// [`to_blocked_bloom_filter`](Self::to_blocked_bloom_filter) would
    /// give (a [`BlockedBloomFilter`] loads them, and so does this type).
    /// Keys inserted while it runs may be saved in part; every insert that
    /// happened before the call is saved whole.
    pub fn to_bytes(&self) -> Vec<u8> {
        let lanes: Vec<u32> = self.blocks.iter().flat_map(|b| b.load().0).collect();
        crate::encoding::blocked_bytes(&self.hasher, &lanes)
    }

    /// Forgets every key. Takes `&mut self`: a clear racing an insert could
    /// leave part of a key's bits, and a later query would miss the key.
    pub fn clear(&mut self) {
        for word in self.blocks.iter_mut().flat_map(|b| &mut b.0) {
            *word.get_mut() = 0;
        }
    }

    /// The bit count m (256 per block).
    pub fn bits(&self) -> u64 {
        self.blocks() * u64::from(BLOCK_BITS)
    }

    /// The number of 256-bit blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Bytes of the block array, as [`BlockedBloomFilter::memory_bytes`].
    pub fn memory_bytes(&self) -> usize {
        size_of_val(&*self.blocks)
    }

    /// A [`BlockedBloomFilter`] with the bits set now: every insert that
    /// happened before the call, and perhaps part of those running
    /// meanwhile. It offers what this type does not:
    /// [`union`](BlockedBloomFilter::union),
    /// [`estimated_len`](BlockedBloomFilter::estimated_len) and the other
    /// fill estimates, batched lookups.
    pub fn to_blocked_bloom_filter(&self) -> BlockedBloomFilter<S>
    where
        S: Clone,
    {
        let blocks = self.blocks.iter().map(AtomicBlock::load).collect();
        BlockedBloomFilter::from_parts(blocks, self.hasher.clone())
    }
}

impl<S: KeyHasher> From<BlockedBloomFilter<S>> for AtomicBlockedBloomFilter<S> {
    /// The same filter, its blocks copied into atomic words.
    fn from(filter: BlockedBloomFilter<S>) -> Self {
        AtomicBlockedBloomFilter {
            blocks: filter.blocks.iter().map(AtomicBlock::new).collect(),
            hasher: filter.hasher,
            kernel: Kernel::detect(),
        }
    }
}

impl<S: KeyHasher> From<AtomicBlockedBloomFilter<S>> for BlockedBloomFilter<S> {
    /// The same filter, its blocks copied out of the atomic words (which
    /// nobody else can be writing: the filter is moved).
    fn from(filter: AtomicBlockedBloomFilter<S>) -> Self {
        let blocks = filter.blocks.iter().map(AtomicBlock::load).collect();
        BlockedBloomFilter::from_parts(blocks, filter.hasher)
    }
}

impl<S> fmt::Debug for AtomicBlockedBloomFilter<S> {
    /// The shape, not the blocks, as [`BlockedBloomFilter`]'s `Debug`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicBlockedBloomFilter")
            .field("blocks", &self.blocks.len())
            .field("bits", &(self.blocks.len() as u64 * u64::from(BLOCK_BITS)))
            .field("hashes", &BLOCK_HASHES)
            .field("memory_bytes", &size_of_val(&*self.blocks))
            .finish_non_exhaustive()
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for AtomicBlockedBloomFilter<S> {
    fn contains(&self, item: &T) -> bool {
        AtomicBlockedBloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        AtomicBlockedBloomFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Insert<T> for AtomicBlockedBloomFilter<S> {
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        AtomicBlockedBloomFilter::insert(self, item);
        Ok(())
    }
}

/// The portable lookup: whether every lane of `block` has the bit of lane
/// word `lanes`.
#[inline(always)]
pub(crate) fn block_contains(block: &AtomicBlock, lanes: u32) -> bool {
    let mut missing = 0;
    for (word, mask) in block.0.iter().zip(pack(&masks(lanes))) {
        missing |= mask & !word.load(Ordering::Relaxed);
    }
    missing == 0
}

/// The portable insert: sets the bits of lane word `lanes` in `block`;
/// `true` if any was unset before. Reads first, and writes only when a bit
/// is missing (see the type's docs for why).
#[inline(always)]
pub(crate) fn block_insert(block: &AtomicBlock, lanes: u32) -> bool {
    set_missing(block, pack(&masks(lanes)))
}

/// Sets the bits of `masks`, one mask per storage word of `block`, unless
/// all are set already; `true` if any was unset before.
#[inline(always)]
pub(crate) fn set_missing(block: &AtomicBlock, masks: [usize; BLOCK_WORDS]) -> bool {
    let mut missing = 0;
    for (word, mask) in block.0.iter().zip(masks) {
        missing |= mask & !word.load(Ordering::Relaxed);
    }
    if missing == 0 {
        return false;
    }
    set_all(block, masks);
    true
}

/// Sets the bits of `masks`, one mask per storage word of `block`.
#[inline(always)]
pub(crate) fn set_all(block: &AtomicBlock, masks: [usize; BLOCK_WORDS]) {
    for (word, mask) in block.0.iter().zip(masks) {
        word.fetch_or(mask, Ordering::Relaxed);
    }
}

/// The probe of mixed hash `hash` in `blocks`, and its block.
#[inline(always)]
pub(crate) fn locate(blocks: &[AtomicBlock], hash: u64) -> (&AtomicBlock, u32) {
    let probe = Probe::new(hash, blocks.len());
    (&blocks[probe.block], probe.lanes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_block_is_half_a_cache_line_and_never_straddles_one() {
        assert_eq!(size_of::<AtomicBlock>(), 32);
        assert_eq!(align_of::<AtomicBlock>(), 32);
    }

    #[test]
    fn pack_and_unpack_are_inverses() {
        let lanes = [1, 2, 0x8000_0000, 4, 0xFFFF_FFFF, 0, 7, 0x1234_5678];
        assert_eq!(unpack(&pack(&lanes)), lanes);
        let block = Block(lanes);
        assert_eq!(AtomicBlock::new(&block).load(), block);
    }
}
