//! [`BlockedBloomFilter`]: every key's bits in one cache line.

use std::hash::Hash;

use filter_core::sizing::{self, BlockLayout, MAX_BITS};
use filter_core::{Error, Filter, HasherProbe, Insert, KeyHasher, PortableHasher, mix64};

use crate::block::{BLOCK_BITS, BLOCK_HASHES, Block, LANE_BITS};
use crate::simd::{self, Kernel};

/// The most blocks a filter may have: [`MAX_BITS`] / 256.
pub const MAX_BLOCKS: u64 = MAX_BITS / BLOCK_BITS as u64;

/// The smallest rate [`BlockedBloomFilter::with_fpr`] accepts: 2.3 × 10^−9,
/// just above the Poisson model's rate at one 256-bit block per key
/// (2.288 × 10^−9).
///
/// Every key sets 8 bits whatever the rate, so below this rate the model asks
/// for more blocks than keys: more than 256 bits per key, about 6× the
/// classic filter's 41.4 at this rate, and without bound as the rate falls
/// (at 10^−20, 2.9 GB for a single key). A filter that size is a mistake, so
/// it is refused; [`BloomFilter`](crate::BloomFilter) meets such rates in
/// 1.44 · log2(1/p) bits per key. [`with_blocks`](BlockedBloomFilter::with_blocks)
/// still builds any size asked for explicitly.
pub const MIN_FPR: f64 = 2.3e-9;

/// A blocked Bloom filter: every key's bits in one 256-bit block (half a
/// cache line), one bit in each of the block's eight 32-bit lanes
/// (Parquet's "split block" layout).
///
/// ```
/// use bloom::BlockedBloomFilter;
///
/// let mut seen = BlockedBloomFilter::with_fpr(1_000_000, 0.01)?;
/// seen.insert(&42u64);
/// assert!(seen.contains(&42u64));
/// let bits_per_key = seen.bits() as f64 / 1e6;
/// assert!((10.52..10.54).contains(&bits_per_key), "{bits_per_key}");
/// # Ok::<(), bloom::Error>(())
/// ```
///
/// A lookup costs one hash, one cache-line load and a handful of vector
/// instructions, whatever the rate: the fastest filter of this crate. The
/// price is space: blocks receive keys unevenly (Poisson), and overloaded
/// blocks answer "present" more often, so
/// [`with_fpr`](BlockedBloomFilter::with_fpr) adds the bits the Poisson model
/// ([`sizing::blocked_bloom_bits`]) says the *measured* rate needs to meet
/// the target: **10.53 bits per key at p = 1 % (1.098× the classic
/// optimum), 16.89 at p = 0.1 % (1.175×)**. Every key sets exactly
/// [`BLOCK_HASHES`] = 8 bits at every rate, so below about 10^−4 the cost
/// grows quickly (41 bits per key at 10^−5, 65 at 10^−6): use
/// [`BloomFilter`](crate::BloomFilter) there. `with_fpr` refuses rates
/// below [`MIN_FPR`].
///
/// Past its expected number of keys it keeps accepting keys and its rate
/// rises silently: when the number of keys is not known, use
/// [`ScalableBloomFilter`](crate::ScalableBloomFilter).
///
/// # Invariants
///
/// `1 <= blocks <= MAX_BLOCKS`; every block is 32-byte aligned, so none
/// straddles a cache line. The filter never forgets an inserted key: only
/// [`clear`](Self::clear) and [`intersect`](Self::intersect) unset bits.
///
/// # Examples
///
/// The promised rate, measured:
///
/// ```
/// use bloom::BlockedBloomFilter;
///
/// let mut filter = BlockedBloomFilter::with_fpr(1_000_000, 0.01)?;
/// for id in 0..1_000_000u64 {
///     filter.insert(&id);
/// }
/// assert!((0..1_000_000u64).all(|id| filter.contains(&id)));
/// let false_positives = (1_000_000..1_200_000u64).filter(|id| filter.contains(id)).count();
/// let fpr = false_positives as f64 / 200_000.0;
/// assert!(fpr < 0.0115, "{fpr}"); // 1 %, plus 5 binomial σ (σ ≈ 0.00022)
/// # Ok::<(), bloom::Error>(())
/// ```
#[derive(Clone)]
pub struct BlockedBloomFilter<S = PortableHasher> {
    pub(crate) blocks: Vec<Block>,
    pub(crate) hasher: S,
    /// How lookups run on this CPU: not state, since every kernel sets and
    /// reads the same bits.
    kernel: Kernel,
}

impl BlockedBloomFilter {
    /// A filter sized for `expected_items` distinct keys at false-positive
    /// rate `fpr`, with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items == 0`, `fpr` outside
    /// the open interval (0, 1) (NaN and infinities included) or below
    /// [`MIN_FPR`], or a size above 2^46 bits or that cannot be allocated.
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, PortableHasher::default())
    }

    /// A filter of `blocks` 256-bit blocks, with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `blocks` outside `1..=MAX_BLOCKS` or
    /// not allocatable.
    pub fn with_blocks(blocks: u64) -> Result<Self, Error> {
        Self::with_blocks_and_hasher(blocks, PortableHasher::default())
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes) under the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for bytes that are not a valid blocked Bloom filter;
    /// [`Error::WrongKind`] for the bytes of another filter;
    /// [`Error::HasherMismatch`] when the filter was built with another
    /// hasher (or seed);
    /// [`Error::InvalidParameter`] naming `blocks` when the table, valid, cannot
    /// be allocated.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<S: KeyHasher> BlockedBloomFilter<S> {
    /// As [`BlockedBloomFilter::with_fpr`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::with_fpr`].
    pub fn with_fpr_and_hasher(expected_items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let blocks = blocks_for(expected_items, fpr)?;
        Self::with_blocks_and_hasher(blocks, hasher)
            .map_err(|e| sizing::blame_items(e, "blocks", blocks, expected_items, fpr))
    }

    /// As [`BlockedBloomFilter::with_blocks`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::with_blocks`].
    pub fn with_blocks_and_hasher(blocks: u64, hasher: S) -> Result<Self, Error> {
        let len = check_blocks(blocks)?;
        let blocks = filter_core::memory::zeroed_vec(len, "blocks")?;
        Ok(Self::from_parts(blocks, hasher))
    }

    /// Assembles a filter from validated parts.
    pub(crate) fn from_parts(blocks: Vec<Block>, hasher: S) -> Self {
        BlockedBloomFilter {
            blocks,
            hasher,
            kernel: Kernel::detect(),
        }
    }

    /// Adds `item`. Never fails: a Bloom filter accepts any number of keys,
    /// its false-positive rate rising past the target once more than the
    /// expected number are in.
    ///
    /// It returns nothing, where the [`Insert`] trait's `insert` (which this
    /// type implements by calling it) returns `Ok(())`.
    #[inline(always)]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) {
        self.insert_mixed(self.hasher.mixed_hash(item));
    }

    /// Whether `item` may be in the set: `false` means it was never inserted.
    #[inline(always)]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_mixed(self.hasher.mixed_hash(item))
    }

    /// Adds `item` and returns `true` if it was certainly not there before
    /// (some bit was unset), like [`HashSet::insert`](std::collections::HashSet::insert).
    /// `false` means it may have been there: it was inserted before, or it is
    /// a false positive.
    #[inline(always)]
    pub fn insert_unique<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        self.insert_mixed(self.hasher.mixed_hash(item))
    }

    /// Adds the key whose 64-bit hash is `hash`: `insert_hash(hasher.hash_key(&x))`
    /// is `insert(&x)`. Any `u64` will do (sequential ids too): the filter
    /// mixes it first.
    #[inline(always)]
    pub fn insert_hash(&mut self, hash: u64) {
        self.insert_mixed(mix64(hash));
    }

    /// Whether the key whose 64-bit hash is `hash` may be in the set:
    /// `contains_hash(hasher.hash_key(&x)) == contains(&x)`.
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.contains_mixed(mix64(hash))
    }

    /// Sets the bits of the key whose mixed hash is `mixed`; whether one
    /// was unset.
    #[inline(always)]
    pub(crate) fn insert_mixed(&mut self, mixed: u64) -> bool {
        simd::insert(self.kernel, &mut self.blocks, mixed)
    }

    /// Whether the key whose mixed hash is `mixed` may be in the set.
    #[inline(always)]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        simd::contains(self.kernel, &self.blocks, mixed)
    }

    /// Forgets every key.
    pub fn clear(&mut self) {
        self.blocks.fill(Block::default());
    }

    /// Adds every key of `other` to `self`: afterwards `self` reports present
    /// every key either filter did.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the sizes differ;
    /// [`Error::HasherMismatch`] when the hashers hash differently. `self` is
    /// unchanged on error.
    pub fn union(&mut self, other: &Self) -> Result<(), Error> {
        self.combine(other, |a, b| a | b)
    }

    /// Keeps only bits set in both filters. Every key inserted into *both*
    /// stays present; the false-positive rate is at most that of the union.
    ///
    /// # Errors
    ///
    /// As [`union`](Self::union).
    pub fn intersect(&mut self, other: &Self) -> Result<(), Error> {
        self.combine(other, |a, b| a & b)
    }

    fn combine(&mut self, other: &Self, op: impl Fn(u32, u32) -> u32) -> Result<(), Error> {
        if self.blocks.len() != other.blocks.len() {
            return Err(Error::incompatible("bits", self.bits(), other.bits()));
        }
        if !HasherProbe::same(&self.hasher, &other.hasher) {
            return Err(Error::HasherMismatch);
        }
        for (a, b) in self.blocks.iter_mut().zip(&other.blocks) {
            for (x, y) in a.0.iter_mut().zip(&b.0) {
                *x = op(*x, *y);
            }
        }
        Ok(())
    }

    /// The number of set bits.
    pub(crate) fn ones(&self) -> u64 {
        self.blocks.iter().map(|b| u64::from(b.ones())).sum()
    }

    /// The false-positive rate of the filter as it is now: the mean over
    /// blocks of the product of each lane's fill. Exact for the current
    /// contents (a random non-member picks a block uniformly, then a bit in
    /// each lane uniformly).
    pub fn estimated_fpr(&self) -> f64 {
        let total: f64 = self.blocks.iter().map(Block::hit_probability).sum();
        total / self.blocks.len() as f64
    }

    /// The number of distinct keys inserted, estimated from the fill: each
    /// key sets one bit in each of the 8 lanes of one block. A block
    /// receives a Poisson number L of keys with mean λ = n / blocks, and a
    /// lane bit stays clear with probability E\[(1 − 1/32)^L\] = e^(−λ/32),
    /// so the expected fill is 1 − e^(−λ/32); solving for n gives
    /// n ≈ −32 · blocks · ln(1 − ones/m). Saturates at `usize::MAX` when
    /// every bit is set.
    ///
    /// (Taking every block to hold exactly λ keys, (1 − 1/32)^λ, read 1.6 %
    /// low at every fill: ln(1 − 1/32) is 1.6 % larger than 1/32.)
    pub fn estimated_len(&self) -> usize {
        let m = self.bits() as f64;
        let fill = self.ones() as f64 / m;
        let n = -f64::from(LANE_BITS) * self.blocks.len() as f64 * (1.0 - fill).ln();
        // `as` saturates: +∞ (a full filter) becomes usize::MAX.
        n.round() as usize
    }

    /// The bit count m (256 per block).
    pub fn bits(&self) -> u64 {
        self.blocks.len() as u64 * u64::from(BLOCK_BITS)
    }

    /// The number of 256-bit blocks, the type
    /// [`with_blocks`](BlockedBloomFilter::with_blocks) takes.
    pub fn blocks(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Bytes of the block array.
    pub fn memory_bytes(&self) -> usize {
        size_of_val(self.blocks.as_slice())
    }

    /// The blocks, for serialization.
    pub(crate) fn block_slice(&self) -> &[Block] {
        &self.blocks
    }
}

/// The block count [`with_fpr`](BlockedBloomFilter::with_fpr) gives
/// `expected_items` keys at rate `fpr`.
pub(crate) fn blocks_for(expected_items: usize, fpr: f64) -> Result<u64, Error> {
    if sizing::check_fpr(fpr)? < MIN_FPR {
        return Err(Error::invalid(
            "fpr",
            fpr,
            format_args!(
                "at least {MIN_FPR:e} (below it a blocked filter needs more than one \
                 {BLOCK_BITS}-bit block per key; use BloomFilter)"
            ),
        ));
    }
    let bits = sizing::blocked_bloom_bits(
        expected_items,
        fpr,
        BLOCK_HASHES,
        BLOCK_BITS,
        BlockLayout::Split,
    )?;
    Ok(bits / u64::from(BLOCK_BITS))
}

/// `blocks` as a length, if it is a valid block count (`1..=MAX_BLOCKS`,
/// addressable on this target).
pub(crate) fn check_blocks(blocks: u64) -> Result<usize, Error> {
    if blocks == 0 || blocks > MAX_BLOCKS {
        return Err(Error::invalid(
            "blocks",
            blocks,
            format_args!("in 1..={MAX_BLOCKS}"),
        ));
    }
    usize::try_from(blocks)
        .map_err(|_| Error::invalid("blocks", blocks, "small enough to address on this platform"))
}

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for BlockedBloomFilter<S> {
    fn contains(&self, item: &T) -> bool {
        BlockedBloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        BlockedBloomFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Insert<T> for BlockedBloomFilter<S> {
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        BlockedBloomFilter::insert(self, item);
        Ok(())
    }
}
