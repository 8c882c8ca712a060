//! [`BlockedBloomFilter`]: every key's bits in one cache line.

use std::hash::{BuildHasher, Hash};

use filter_core::sizing::{self, BlockLayout, MAX_BITS};
use filter_core::{
    AnyHashes, DefaultHashBuilder, Error, Filter, HashQuality, HasherProbe, Insert, UniformHashes,
};

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
/// 1.44 · log2(1/p) bits per key. [`with_bits`](BlockedBloomFilter::with_bits)
/// still builds any size asked for explicitly.
pub const MIN_FPR: f64 = 2.3e-9;

/// A blocked Bloom filter: an array of 256-bit blocks (half a cache line
/// each, never straddling two); a key sets one bit in each of the eight
/// 32-bit lanes of one block (Parquet's "split block" layout).
///
/// A lookup costs one hash, one cache-line load and a handful of vector
/// instructions, whatever the rate: the fastest filter of this workspace for
/// lookups and inserts. The price is space: blocks receive keys unevenly
/// (Poisson), and overloaded blocks answer "present" more often, so
/// [`with_fpr`](BlockedBloomFilter::with_fpr) adds the bits the Poisson model
/// ([`sizing::blocked_bloom_bits`]) says are needed for the *measured* rate to
/// still meet the target: **10.53 bits per key at p = 1 % (1.098× the classic
/// optimum), 16.89 at p = 0.1 % (1.175×), 26.34 at p = 0.01 % (1.374×)**:
/// the smaller the rate, the more a block's bad luck costs. Every key sets exactly
/// [`BLOCK_HASHES`] = 8 bits, at every rate, so below about 10^−4 the cost
/// grows quickly: 41 bits per key at 10^−5 (1.71×), 65 at 10^−6 (2.25×),
/// 177 at 10^−8 (4.6×). For rates that small, use
/// [`BloomFilter`](crate::BloomFilter), or a binary fuse filter when the
/// keys are known up front. `with_fpr` refuses rates below [`MIN_FPR`]
/// (2.3 × 10^−9), where a key would need more than a block to itself.
///
/// # Hash quality
///
/// The second type parameter, `Q`, says what the filter may assume about
/// the 64-bit hashes it is given ([`filter_core::hash_quality`]). With the
/// default, [`AnyHashes`], it multiplies each hash by a constant and folds
/// the product before choosing the block and the lane bits, so any `u64`
/// may be passed to the `*_hash` methods. With [`UniformHashes`], made from
/// an empty filter by [`assume_uniform_hashes`](Self::assume_uniform_hashes),
/// the block is `reduce(hash, blocks)` (the hash's high bits) and the lane
/// word its low 32 bits: lookups at 10^6 keys and 1 % took 1.55 ns instead
/// of 2.0 (`cargo xtask compare` with the mixing removed). Sizes, rates
/// with a good hasher (the default is one) and every other method are the
/// same; the bytes say which quality wrote them, and load only as it
/// ([`from_bytes_with_quality`](Self::from_bytes_with_quality)).
///
/// The promise is the caller's: ids, counters or other structured values
/// passed to `insert_hash` / `contains_hash` of a uniform filter share
/// their high bits and so their block. No member is ever lost, but the rate
/// can blow up: ids below 2^40 all land in the first block of any filter of
/// fewer than 2^24 blocks, and even ids 0 to 2·10^4 inserted as hashes made
/// every odd id in that range answer "present" (a seeded test,
/// `tests/uniform.rs`).
///
/// # Invariants
///
/// `1 <= blocks <= MAX_BLOCKS`; every block is 32-byte aligned, so none
/// straddles a cache line (the storage as a whole is aligned to 32 bytes,
/// not necessarily to 64). The filter never forgets an inserted key: only
/// [`clear`](Self::clear) and [`intersect`](Self::intersect) unset bits.
///
/// # Examples
///
/// ```
/// use bloom::BlockedBloomFilter;
///
/// let mut filter = BlockedBloomFilter::with_fpr(1_000_000, 0.01)?;
/// let bits_per_key = filter.bits() as f64 / 1e6;
/// assert!((10.52..10.54).contains(&bits_per_key), "{bits_per_key}");
///
/// for id in 0..1_000_000u64 {
///     filter.insert(&id);
/// }
/// assert!((0..1_000_000u64).all(|id| filter.contains(&id)));
/// let false_positives = (1_000_000..1_200_000u64).filter(|id| filter.contains(id)).count();
/// let fpr = false_positives as f64 / 200_000.0;
/// assert!(fpr < 0.0115, "{fpr}"); // 1 %, plus 5 binomial σ (σ ≈ 0.00022)
/// # Ok::<(), bloom::Error>(())
/// ```
///
/// Keys hashed by the filter's own hasher (ahash, uniform) need no mix:
///
/// ```
/// use bloom::{BlockedBloomFilter, UniformHashes};
///
/// let mut filter: BlockedBloomFilter<_, UniformHashes> =
///     BlockedBloomFilter::with_fpr(100_000, 0.01)?.assume_uniform_hashes()?;
/// filter.extend(0..100_000u64);
/// assert!((0..100_000u64).all(|id| filter.contains(&id)));
/// let false_positives = (100_000..300_000u64).filter(|id| filter.contains(id)).count();
/// let fpr = false_positives as f64 / 200_000.0;
/// assert!(fpr < 0.0115, "{fpr}"); // 1 %, plus 5 binomial σ (σ ≈ 0.00022)
///
/// // Its bytes load only as a uniform filter.
/// let bytes = filter.to_bytes();
/// assert!(BlockedBloomFilter::from_bytes(&bytes).is_err());
/// let hasher = bloom::DefaultHashBuilder::default();
/// let restored = BlockedBloomFilter::from_bytes_with_quality(&bytes, hasher, UniformHashes)?;
/// assert!(restored.contains(&42u64));
///
/// // Only an empty filter converts: its keys would be looked for elsewhere.
/// let mut used = BlockedBloomFilter::with_fpr(1_000, 0.01)?;
/// used.insert("a key");
/// let err = used.assume_uniform_hashes().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "assume_uniform_hashes must be called on an empty filter, got a filter of about 1 items"
/// );
/// # Ok::<(), bloom::Error>(())
/// ```
#[derive(Clone)]
pub struct BlockedBloomFilter<S = DefaultHashBuilder, Q = AnyHashes> {
    pub(crate) blocks: Vec<Block>,
    pub(crate) hasher: S,
    /// How lookups run on this CPU: not state, since every kernel sets and
    /// reads the same bits.
    kernel: Kernel,
    /// Whether a key's block and lanes come from the hash or from its
    /// mix: a marker of no size, so that the choice is made when a lookup
    /// is compiled.
    pub(crate) quality: Q,
}

impl BlockedBloomFilter<DefaultHashBuilder> {
    /// A filter sized for `expected_items` distinct keys at false-positive
    /// rate `fpr`, with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items == 0`, `fpr` outside
    /// the open interval (0, 1) (NaN and infinities included) or below
    /// [`MIN_FPR`], or a size above 2^46 bits or that cannot be allocated.
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, DefaultHashBuilder::default())
    }

    /// A filter of exactly `bits` bits, each key setting `hashes` bits, with
    /// the default hasher. The layout fixes `hashes` at 8 (one per lane) and
    /// the bit count at a whole number of 256-bit blocks; other values are
    /// refused rather than rounded.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `bits` not a multiple of 256 in
    /// `256..=2^46` (or not allocatable) and `hashes != 8`.
    pub fn with_bits(bits: u64, hashes: u32) -> Result<Self, Error> {
        Self::with_bits_and_hasher(bits, hashes, DefaultHashBuilder::default())
    }

    /// A filter of `blocks` 256-bit blocks, with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `blocks` outside `1..=MAX_BLOCKS` or
    /// not allocatable.
    pub fn with_blocks(blocks: u64) -> Result<Self, Error> {
        Self::with_blocks_and_hasher(blocks, DefaultHashBuilder::default())
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes) under the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for bytes that are not a valid blocked Bloom filter;
    /// [`Error::HasherMismatch`] when the filter was built with a hasher that
    /// hashes differently from this build's default;
    /// [`Error::InvalidParameter`] naming `blocks` when the table, valid, cannot
    /// be allocated.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, DefaultHashBuilder::default())
    }
}

impl<S: BuildHasher> BlockedBloomFilter<S> {
    /// As [`BlockedBloomFilter::with_fpr`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::with_fpr`].
    pub fn with_fpr_and_hasher(expected_items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let bits = Self::blocks_for(expected_items, fpr)? * u64::from(BLOCK_BITS);
        Self::with_bits_and_hasher(bits, BLOCK_HASHES, hasher)
            .map_err(|e| sizing::blame_items(e, "bits", bits, expected_items, fpr))
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

    /// As [`BlockedBloomFilter::with_bits`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::with_bits`].
    pub fn with_bits_and_hasher(bits: u64, hashes: u32, hasher: S) -> Result<Self, Error> {
        if hashes != BLOCK_HASHES {
            return Err(Error::invalid(
                "hashes",
                hashes,
                "8 (one bit in each 32-bit lane of a 256-bit block)",
            ));
        }
        if bits == 0 || bits % u64::from(BLOCK_BITS) != 0 || bits > MAX_BITS {
            return Err(Error::invalid(
                "bits",
                bits,
                format_args!("a multiple of {BLOCK_BITS} in {BLOCK_BITS}..={MAX_BITS}"),
            ));
        }
        let blocks = bits / u64::from(BLOCK_BITS);
        // The caller passed bits: a table that cannot be allocated is
        // reported against them, not against the block count.
        Self::with_blocks_and_hasher(blocks, hasher).map_err(|e| match e {
            Error::InvalidParameter { name: "blocks", .. } => Error::invalid(
                "bits",
                bits,
                format_args!("small enough to allocate ({blocks} blocks of 32 bytes)"),
            ),
            other => other,
        })
    }

    /// As [`BlockedBloomFilter::with_blocks`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::with_blocks`].
    pub fn with_blocks_and_hasher(blocks: u64, hasher: S) -> Result<Self, Error> {
        let len = check_blocks(blocks)?;
        let blocks = filter_core::memory::zeroed_vec(len, "blocks")?;
        Ok(Self::from_parts(blocks, hasher, AnyHashes))
    }

    /// The same filter, taking each key's block and lane bits from its
    /// hash as it is ([`UniformHashes`]) instead of mixing it first: faster
    /// lookups, for hashes that are uniform already (see the type's docs,
    /// "Hash quality"). Only an empty filter converts, since the keys of a
    /// filter with bits set sit where the mixed hashes put them.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming `assume_uniform_hashes` when a
    /// bit is set, with the number of items estimated from the fill.
    pub fn assume_uniform_hashes(self) -> Result<BlockedBloomFilter<S, UniformHashes>, Error> {
        if self.ones() != 0 {
            return Err(crate::quality::not_empty(self.estimated_len()));
        }
        Ok(BlockedBloomFilter::from_parts(
            self.blocks,
            self.hasher,
            UniformHashes,
        ))
    }
}

impl<S: BuildHasher, Q: HashQuality> BlockedBloomFilter<S, Q> {
    /// Assembles a filter from validated parts.
    pub(crate) fn from_parts(blocks: Vec<Block>, hasher: S, quality: Q) -> Self {
        BlockedBloomFilter {
            blocks,
            hasher,
            kernel: Kernel::detect(),
            quality,
        }
    }

    /// Adds `item`. Never fails: a Bloom filter accepts any number of keys,
    /// its false-positive rate rising past the target once more than the
    /// expected number are in.
    ///
    /// It returns nothing, where the [`Insert`] trait's `insert` (which this
    /// type implements by calling it) returns `Ok(())`: code written for any
    /// filter, `insert(..)?` included, calls `Insert::insert`.
    #[inline(always)]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) {
        self.insert_hash(self.hasher.hash_one(item));
    }

    /// Whether `item` may be in the set: `false` means it was never inserted.
    #[inline(always)]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_hash(self.hasher.hash_one(item))
    }

    /// Adds `item` and returns `true` if it was certainly not there before
    /// (some bit was unset), like [`HashSet::insert`](std::collections::HashSet::insert).
    /// `false` means it may have been there: it was inserted before, or it is
    /// a false positive.
    #[inline(always)]
    pub fn insert_unique<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        self.insert_unique_hash(self.hasher.hash_one(item))
    }

    /// Adds the key whose 64-bit hash is `hash` (before mixing:
    /// `insert_hash(hasher.hash_one(&x))` is `insert(&x)`).
    #[inline(always)]
    pub fn insert_hash(&mut self, hash: u64) {
        self.insert_unique_hash(hash);
    }

    /// As [`insert_unique`](Self::insert_unique), for a pre-hashed key.
    #[inline(always)]
    pub fn insert_unique_hash(&mut self, hash: u64) -> bool {
        simd::insert::<Q>(self.kernel, &mut self.blocks, hash)
    }

    /// Whether the key whose 64-bit hash is `hash` may be in the set.
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        simd::contains::<Q>(self.kernel, &self.blocks, hash)
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

    /// The number of set bits (a `u64`, like [`bits`](Self::bits)).
    pub fn ones(&self) -> u64 {
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

    /// The bits each key sets: always [`BLOCK_HASHES`] (8).
    pub fn hashes(&self) -> u32 {
        BLOCK_HASHES
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

impl<T: Hash + ?Sized, S: BuildHasher, Q: HashQuality> Filter<T> for BlockedBloomFilter<S, Q> {
    fn contains(&self, item: &T) -> bool {
        BlockedBloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        BlockedBloomFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: BuildHasher, Q: HashQuality> Insert<T> for BlockedBloomFilter<S, Q> {
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        BlockedBloomFilter::insert(self, item);
        Ok(())
    }
}
