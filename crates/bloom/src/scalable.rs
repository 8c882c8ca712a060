//! [`ScalableBloomFilter`]: a Bloom filter that grows with its keys
//! (Almeida, Baquero, Preguiça and Hutchison, "Scalable Bloom Filters",
//! 2007).
//!
//! A sequence of classic Bloom stages: stage i holds n₀·sⁱ keys at rate
//! p·(1 − r)·rⁱ, so the stages' rates sum to less than p at every size and a
//! query is a false positive with probability at most p (the union bound
//! holds whatever the correlation between stages). Keys go to the newest
//! stage; when it holds its n₀·sⁱ keys, a new stage s times larger starts.
//!
//! Why these defaults, s = 2 and r = 0.9: a stage of nᵢ keys at rate pᵢ
//! takes about 1.44·nᵢ·log2(1/pᵢ) bits, so the bits per key at a given
//! size are set by how much of the newest stage is still empty (the larger
//! s, the more) and by how tight the late stages' rates are: the newest of
//! L stages runs at p·(1 − r)·r^(L−1), log2(1/(1 − r)) + (L − 1)·log2(1/r)
//! bits per key beyond a fixed filter's log2(1/p). A small r pays the
//! second term, a large r the first, so the best r depends on how many
//! stages there are: grown from 10^3 at s = 2 that is 5 stages at 10^4
//! keys and 14 at 10^7. With the stage sizes computed as the filter
//! computes them (whole probe counts, whole words), bits per key averaged
//! over 10^4 to 10^8 keys are lowest for r between 0.88 and 0.9, about 1 %
//! below r = 0.85 on average and 3 % below at 10^7 keys, and they rise
//! again from 0.92 on. s = 3 and s = 4 cost more on average and at most
//! sizes (a stage that many times the last stays mostly empty for longer).
//! Of
//! 0.88 and 0.9, 0.9 leaves a larger share of p to the stages not yet
//! built (the built ones sum to p·(1 − r^L)), so its measured rate sits
//! further below the target, and at a given *measured* rate it takes the
//! fewer bits. [`with_growth`](ScalableBloomFilter::with_growth) sets both.
//!
//! Why classic stages and not blocked ones: the stages' rates fall as rⁱ,
//! and a blocked filter needs many more bits than a classic one at small
//! rates (1.10× at 1 %, 1.37× at 10^−4, and far more below), so a blocked
//! sequence would pay more the longer it grows.
//!
//! Why a key is hashed once for all stages: every stage takes its probes
//! from the same mixed hash, each reduced to its own size. The union bound
//! needs only each stage's own rate, which a shared hash does not change.
//!
//! Why lookups request the large stages' first probes and then test the
//! stages oldest first: a non-member must be refused by every stage, and a
//! stage past the core's own caches costs a trip to memory. So a lookup
//! first requests the words of the first two probes (the pair that refuses
//! three non-members in four) in every stage of at least 128 KiB, all at
//! once, so that those trips overlap; then it tests the stages with an
//! early exit, the small ones first, from the caches, while the large
//! ones' lines arrive. Tested newest first instead, a non-member waited for
//! the large stages one after another whenever a stage's early exit was
//! mispredicted, and a member of an older stage was tested against every
//! larger stage before its own. Oldest first, a member of the newest stage
//! is tested against every older stage, but those tests mostly overlap the
//! trip to memory its own stage needs anyway. In the benchmarks this made
//! lookups of non-members and of mixed streams faster at every size, and
//! lookups of members of the newest stage slower. A two-pass lookup (the
//! first two bits of every stage loaded without a branch, then the stages
//! that passed in full) measured slower than either: every lookup then
//! waits for the slowest stage's first lines.
//!
//! Why inserts check for the key first: a key already reported present
//! adds nothing, and not counting it keeps duplicates (a crawler meeting a
//! known URL again) from filling stages early.

use std::fmt;
use std::hash::Hash;

use filter_core::batch::{BatchContains, BatchInsert, Lookahead, PREFETCH_MIN_BYTES};
use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::prefetch::prefetch;
use filter_core::probes::LinearProbes;
use filter_core::sizing;
use filter_core::{Error, Filter, HasherProbe, Insert, KeyHasher, PortableHasher, mix64};

use crate::BloomFilter;
use crate::classic::{MAX_HASHES, WORD_BITS, allocate_bits};

/// The default growth factor s: each stage holds twice the keys of the last.
pub const DEFAULT_GROWTH_FACTOR: u32 = 2;
/// The default tightening ratio r: each stage's rate is 0.9 times the last.
pub const DEFAULT_TIGHTENING_RATIO: f64 = 0.9;
/// The most stages a filter may have (and bytes may claim): far more than
/// memory allows at any growth factor (2^64 keys at s = 2 need 64 stages).
const MAX_STAGES: usize = 128;
/// Stages at least this large have the first two probes of a lookup
/// requested before any stage is tested: 128 KiB, past which a stage
/// mostly lives outside the core's own caches (see the module docs).
const PREFETCH_MIN_STAGE_BYTES: usize = 128 << 10;

/// The hasher of a stage: stages take mixed hashes from the filter and never
/// hash a key themselves.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StageHasher;

impl KeyHasher for StageHasher {
    fn hash_key<T: Hash + ?Sized>(&self, _key: &T) -> u64 {
        0
    }
}

/// A Bloom filter that grows as keys arrive, keeping its false-positive
/// rate at most the target at every size.
///
/// ```
/// use bloom::ScalableBloomFilter;
///
/// let mut seen = ScalableBloomFilter::with_fpr(1_000, 0.01)?;
/// for i in 0..50_000u64 {
///     seen.insert(&i)?; // fifty times the initial size: it grows
/// }
/// assert!((0..50_000u64).all(|i| seen.contains(&i)));
/// let false_positives = (50_000..250_000u64).filter(|i| seen.contains(i)).count();
/// assert!(false_positives < 2_000 + 230, "{false_positives}"); // 1 %, plus 5σ (σ ≈ 44)
/// // Keys reported present before their insert (false positives) are not added.
/// assert!(seen.len() > 49_500 && seen.len() <= 50_000);
/// # Ok::<(), bloom::Error>(())
/// ```
///
/// Use it when the number of keys is not known in advance (a crawler's
/// frontier, a stream's distinct ids); when it is, a [`BloomFilter`] sized
/// for it takes about half the memory. Memory grows in proportion to the
/// keys: the stages' rates are tightened as it grows, so a key costs more
/// bits than in a filter sized for the final count (about 2× to 3× at
/// 10^7 keys grown from 10^3; the module docs and the tests give figures).
///
/// [`with_max_bytes`](Self::with_max_bytes) caps its memory: an insert that
/// would need a new stage past the cap returns [`Error::Full`] instead of
/// allocating. So it has no `Extend`, which could only drop that error or
/// panic: load many keys with [`insert_batch`](crate::BatchInsert::insert_batch),
/// which returns it.
///
/// # Invariants
///
/// Every stage but the newest holds exactly its capacity n₀·sⁱ keys;
/// [`len`](Self::len) is the sum of the stages' keys. The filter never
/// forgets a key.
pub struct ScalableBloomFilter<S = PortableHasher> {
    /// Oldest first.
    stages: Vec<BloomFilter<StageHasher>>,
    /// Keys added to the newest stage.
    newest_len: usize,
    /// Keys added in all.
    len: usize,
    initial_items: usize,
    fpr: f64,
    growth_factor: u32,
    tightening_ratio: f64,
    max_bytes: usize,
    hasher: S,
}

impl ScalableBloomFilter {
    /// A filter whose first stage holds `initial_items` keys, growing as
    /// needed, with false-positive rate at most `fpr` at every size, with
    /// the default hasher and growth ([`DEFAULT_GROWTH_FACTOR`],
    /// [`DEFAULT_TIGHTENING_RATIO`]).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `initial_items == 0`, `fpr` outside
    /// the open interval (0, 1), or a first stage too large to allocate.
    pub fn with_fpr(initial_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(initial_items, fpr, PortableHasher::default())
    }

    /// As [`with_fpr`](Self::with_fpr), each stage holding `growth_factor`
    /// times the keys of the last at `tightening_ratio` times its rate.
    ///
    /// # Errors
    ///
    /// As [`with_fpr`](Self::with_fpr); [`Error::InvalidParameter`] for
    /// `growth_factor` outside `2..=16` and `tightening_ratio` outside the
    /// open interval (0, 1).
    pub fn with_growth(
        initial_items: usize,
        fpr: f64,
        growth_factor: u32,
        tightening_ratio: f64,
    ) -> Result<Self, Error> {
        Self::with_growth_and_hasher(
            initial_items,
            fpr,
            growth_factor,
            tightening_ratio,
            PortableHasher::default(),
        )
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes) under the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for bytes that are not a valid scalable Bloom
    /// filter; [`Error::WrongKind`] for another filter's bytes;
    /// [`Error::HasherMismatch`] when it was built with another hasher.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<S: KeyHasher> ScalableBloomFilter<S> {
    /// As [`ScalableBloomFilter::with_fpr`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`ScalableBloomFilter::with_fpr`].
    pub fn with_fpr_and_hasher(initial_items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        Self::with_growth_and_hasher(
            initial_items,
            fpr,
            DEFAULT_GROWTH_FACTOR,
            DEFAULT_TIGHTENING_RATIO,
            hasher,
        )
    }

    /// As [`ScalableBloomFilter::with_growth`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`ScalableBloomFilter::with_growth`].
    pub fn with_growth_and_hasher(
        initial_items: usize,
        fpr: f64,
        growth_factor: u32,
        tightening_ratio: f64,
        hasher: S,
    ) -> Result<Self, Error> {
        let mut filter = Self::empty(initial_items, fpr, growth_factor, tightening_ratio, hasher)?;
        let first = filter.new_stage(0).map_err(|e| match e {
            Error::InvalidParameter { name: "bits", .. } => Error::invalid(
                "initial_items",
                initial_items,
                format_args!("small enough that a first stage at fpr {fpr} can be allocated"),
            ),
            other => other,
        })?;
        filter.stages.push(first);
        Ok(filter)
    }

    /// A filter of no stages, its parameters checked.
    fn empty(
        initial_items: usize,
        fpr: f64,
        growth_factor: u32,
        tightening_ratio: f64,
        hasher: S,
    ) -> Result<Self, Error> {
        if initial_items == 0 {
            return Err(Error::invalid("initial_items", 0, "at least 1"));
        }
        sizing::check_fpr(fpr)?;
        sizing::check_range("growth_factor", growth_factor, 2..=16)?;
        if !(tightening_ratio > 0.0 && tightening_ratio < 1.0) {
            return Err(Error::invalid(
                "tightening_ratio",
                tightening_ratio,
                "in the open interval (0, 1)",
            ));
        }
        Ok(ScalableBloomFilter {
            stages: Vec::new(),
            newest_len: 0,
            len: 0,
            initial_items,
            fpr,
            growth_factor,
            tightening_ratio,
            max_bytes: usize::MAX,
            hasher,
        })
    }

    /// The same filter, refusing to grow past `max_bytes` bytes of tables:
    /// an insert that would need a new stage beyond it returns
    /// [`Error::Full`]. The stages already allocated stay.
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// Adds `item` unless it is already reported present; returns whether
    /// it was added (`false`: it was inserted before, or is a false
    /// positive), like [`HashSet::insert`](std::collections::HashSet::insert).
    ///
    /// # Errors
    ///
    /// [`Error::Full`] when a new stage is needed and would take the
    /// filter past [`with_max_bytes`](Self::with_max_bytes), or cannot be
    /// allocated or sized; the item is then not inserted, and every earlier
    /// item is still present.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) -> Result<bool, Error> {
        self.insert_mixed(self.hasher.mixed_hash(item))
    }

    /// Whether `item` may be in the set: `false` means it was never inserted.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_mixed(self.hasher.mixed_hash(item))
    }

    /// As [`insert`](Self::insert), for the key whose 64-bit hash is
    /// `hash` (`insert_hash(hasher.hash_key(&x))` is `insert(&x)`).
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> Result<bool, Error> {
        self.insert_mixed(mix64(hash))
    }

    /// Whether the key whose 64-bit hash is `hash` may be in the set:
    /// `contains_hash(hasher.hash_key(&x)) == contains(&x)`.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.contains_mixed(mix64(hash))
    }

    /// Whether the key whose mixed hash is `mixed` may be in some stage:
    /// the large stages' first probes requested, then every stage tested
    /// oldest first (see the module docs).
    #[inline]
    fn contains_mixed(&self, mixed: u64) -> bool {
        self.prefetch_large_stages(mixed);
        self.test_stages(mixed)
    }

    /// Requests the words of the first two probes of `mixed` in every stage
    /// of at least [`PREFETCH_MIN_STAGE_BYTES`], newest (largest) first.
    #[inline(always)]
    fn prefetch_large_stages(&self, mixed: u64) {
        for stage in self.stages.iter().rev() {
            if stage.memory_bytes() < PREFETCH_MIN_STAGE_BYTES {
                break;
            }
            // The linear and cubic sequences share their first two probes
            // (a stage this large takes one of them unless its rate is
            // below about 2^-26, and a prefetch of some other word is only
            // a wasted hint); the sequence is endless, so both are `Some`.
            let mut probes = LinearProbes::new(mixed, stage.bits.len());
            for position in [probes.next(), probes.next()].into_iter().flatten() {
                prefetch(stage.words(), position / WORD_BITS);
            }
        }
    }

    /// Whether some stage, tested oldest first, reports `mixed` present.
    #[inline(always)]
    fn test_stages(&self, mixed: u64) -> bool {
        self.stages
            .iter()
            .any(|stage| stage.test_mixed(mixed, true))
    }

    fn insert_mixed(&mut self, mixed: u64) -> Result<bool, Error> {
        if self.contains_mixed(mixed) {
            return Ok(false);
        }
        if self.newest_len >= self.capacity(self.stages.len() - 1)? {
            let stage = self.new_stage(self.stages.len())?;
            self.stages.push(stage);
            self.newest_len = 0;
        }
        if let Some(newest) = self.stages.last_mut() {
            newest.insert_mixed(mixed);
        }
        self.newest_len += 1;
        self.len += 1;
        Ok(true)
    }

    /// The keys stage `index` holds: n₀·s^index.
    fn capacity(&self, index: usize) -> Result<usize, Error> {
        u32::try_from(index)
            .ok()
            .and_then(|i| (self.growth_factor as usize).checked_pow(i))
            .and_then(|g| g.checked_mul(self.initial_items))
            .ok_or(Error::Full)
    }

    /// The rate of stage `index`: p·(1 − r)·r^index.
    fn stage_fpr(&self, index: usize) -> f64 {
        let exponent = i32::try_from(index).unwrap_or(i32::MAX);
        self.fpr * (1.0 - self.tightening_ratio) * self.tightening_ratio.powi(exponent)
    }

    /// The shape (bits, hashes) of stage `index`.
    fn stage_shape(&self, index: usize) -> Result<(u64, u32), Error> {
        let items = self.capacity(index)?;
        sizing::bloom_shape(items, self.stage_fpr(index), MAX_HASHES)
    }

    /// A new, empty stage `index`: [`Error::Full`] past the memory limit
    /// (or past [`MAX_STAGES`], or a capacity that overflows), the sizing's
    /// or the allocation's error otherwise.
    fn new_stage(&self, index: usize) -> Result<BloomFilter<StageHasher>, Error> {
        if index >= MAX_STAGES {
            return Err(Error::Full);
        }
        let (bits, hashes) = self.stage_shape(index)?;
        let stage_bytes = usize::try_from(bits.div_ceil(WORD_BITS as u64))
            .ok()
            .and_then(|words| words.checked_mul(WORD_BITS / 8))
            .ok_or(Error::Full)?;
        let total = self.memory_bytes().checked_add(stage_bytes);
        if total.is_none_or(|total| total > self.max_bytes) {
            return Err(Error::Full);
        }
        let table = allocate_bits(sizing::check_bits(bits)?)?;
        Ok(BloomFilter::from_parts(table, hashes, StageHasher))
    }

    /// Keys added: inserts of keys not already reported present.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no key was added.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of all stages' tables.
    pub fn memory_bytes(&self) -> usize {
        self.stages.iter().map(BloomFilter::memory_bytes).sum()
    }

    /// The number of stages.
    pub fn stages(&self) -> usize {
        self.stages.len()
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// The filter's bytes in the shared format (`docs/format-bloom.md`):
    /// its parameters, then each stage's keys and bit array.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(
            FilterKind::ScalableBloom,
            &HasherProbe::of(&self.hasher),
            self.memory_bytes() + 64 + 24 * self.stages.len(),
        );
        w.u64(self.initial_items as u64);
        w.f64(self.fpr);
        w.u32(self.growth_factor);
        w.f64(self.tightening_ratio);
        w.byte_limit(self.max_bytes);
        w.u64(self.newest_len as u64);
        w.u64(self.stages.len() as u64);
        for stage in &self.stages {
            w.u64_array(&crate::encoding::words_as_u64(stage.words(), stage.bits()));
        }
        w.finish()
    }

    /// As [`ScalableBloomFilter::from_bytes`], for a filter built with
    /// `hasher`.
    ///
    /// # Errors
    ///
    /// As [`ScalableBloomFilter::from_bytes`].
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        let mut r = ByteReader::open(bytes, FilterKind::ScalableBloom, &HasherProbe::of(&hasher))?;
        let initial_items = usize::try_from(r.u64("initial_items")?)
            .map_err(|_| Error::corrupt("initial_items is not addressable here"))?;
        let fpr = r.f64("fpr")?;
        let growth_factor = r.u32("growth_factor")?;
        let tightening_ratio = r.f64("tightening_ratio")?;
        let max_bytes = r.byte_limit("max_bytes")?;
        let newest_len = r.u64("newest stage keys")?;
        let stage_count = r.u64("stages")?;
        let mut filter = Self::empty(initial_items, fpr, growth_factor, tightening_ratio, hasher)
            .map_err(|e| Error::corrupt(format_args!("parameters: {e}")))?;
        filter.max_bytes = max_bytes;
        if stage_count == 0 || stage_count > MAX_STAGES as u64 {
            return Err(Error::corrupt(format_args!(
                "stages is {stage_count}, outside 1..={MAX_STAGES}"
            )));
        }
        let mut len = 0usize;
        for index in 0..stage_count as usize {
            let (bits, hashes) = filter
                .stage_shape(index)
                .map_err(|_| Error::corrupt(format_args!("stage {index} has no valid shape")))?;
            let words = r.u64_array("stage bits")?;
            if words.len() as u64 != bits.div_ceil(64) {
                return Err(Error::corrupt(format_args!(
                    "stage {index} has {} words, its {bits} bits need {}",
                    words.len(),
                    bits.div_ceil(64)
                )));
            }
            let spare = (bits.div_ceil(64) * 64 - bits) as u32;
            if spare > 0 && words.last().is_some_and(|&last| last >> (64 - spare) != 0) {
                return Err(Error::corrupt(format_args!(
                    "stage {index} sets bits past bit {bits}"
                )));
            }
            let mut table = allocate_bits(bits)?;
            crate::encoding::u64_as_words(&words, table.as_mut_slice());
            filter
                .stages
                .push(BloomFilter::from_parts(table, hashes, StageHasher));
            let full = filter
                .capacity(index)
                .map_err(|_| Error::corrupt("stage capacity overflows"))?;
            let keys = if index + 1 == stage_count as usize {
                usize::try_from(newest_len)
                    .ok()
                    .filter(|&n| n <= full)
                    .ok_or_else(|| {
                        Error::corrupt(format_args!(
                            "the newest stage claims {newest_len} keys, it holds at most {full}"
                        ))
                    })?
            } else {
                full
            };
            len = len
                .checked_add(keys)
                .ok_or_else(|| Error::corrupt("key count overflows"))?;
        }
        r.finish()?;
        filter.newest_len = newest_len as usize;
        filter.len = len;
        Ok(filter)
    }
}

impl<S: KeyHasher> Lookahead for ScalableBloomFilter<S> {
    /// Requests the first probe's word of every stage, newest first: the
    /// word a non-member is most often refused at.
    #[inline]
    fn prefetch_hash(&self, mixed: u64) {
        for stage in self.stages.iter().rev() {
            let mut probes = LinearProbes::new(mixed, stage.bits.len());
            if let Some(first) = probes.next() {
                prefetch(stage.words(), first / WORD_BITS);
            }
        }
    }

    #[inline]
    fn lookup_hash(&self, mixed: u64) -> bool {
        self.test_stages(mixed)
    }

    fn worth_prefetching(&self) -> bool {
        self.memory_bytes() >= PREFETCH_MIN_BYTES
    }
}

impl<S: KeyHasher> BatchContains for ScalableBloomFilter<S> {
    #[inline]
    fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hasher.mixed_hash(item)
    }
}

/// `insert_batch` and `insert_hash_batch`: the inserts of
/// [`insert`](ScalableBloomFilter::insert), item by item, stopping at the
/// first error ([`Error::Full`] past the memory cap) as they would. Compare
/// [`len`](ScalableBloomFilter::len) before and after to learn how many
/// keys were added.
///
/// ```
/// use bloom::{BatchInsert, Error, ScalableBloomFilter};
///
/// let mut crawled = ScalableBloomFilter::with_fpr(100, 0.01)?;
/// crawled.insert_batch((0..1_000u64).map(|i| format!("https://a.example/{i}")))?;
/// assert!(crawled.contains("https://a.example/999"));
///
/// // Past the memory cap, the batch stops at the first refused key.
/// let mut capped = ScalableBloomFilter::with_fpr(100, 0.01)?.with_max_bytes(1_024);
/// assert_eq!(capped.insert_batch(0..10_000u64), Err(Error::Full));
/// assert!(capped.len() < 10_000 && capped.memory_bytes() <= 1_024);
/// # Ok::<(), bloom::Error>(())
/// ```
impl<S: KeyHasher> BatchInsert for ScalableBloomFilter<S> {
    #[inline]
    fn batch_insert(&mut self, mixed: u64) -> Result<(), Error> {
        self.insert_mixed(mixed).map(drop)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for ScalableBloomFilter<S> {
    fn contains(&self, item: &T) -> bool {
        ScalableBloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        ScalableBloomFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Insert<T> for ScalableBloomFilter<S> {
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        ScalableBloomFilter::insert(self, item).map(drop)
    }
}

impl<S: Clone> Clone for ScalableBloomFilter<S> {
    fn clone(&self) -> Self {
        ScalableBloomFilter {
            stages: self.stages.clone(),
            newest_len: self.newest_len,
            len: self.len,
            initial_items: self.initial_items,
            fpr: self.fpr,
            growth_factor: self.growth_factor,
            tightening_ratio: self.tightening_ratio,
            max_bytes: self.max_bytes,
            hasher: self.hasher.clone(),
        }
    }
}

/// Two filters are equal when their parameters (memory cap included),
/// key counts and stages are, and their hashers hash alike
/// ([`HasherProbe::same`]): then their
/// [`to_bytes`](ScalableBloomFilter::to_bytes) are equal as well. Equal
/// filters answer every query alike and stay equal under the same inserts.
impl<S: KeyHasher> PartialEq for ScalableBloomFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.initial_items == other.initial_items
            && self.fpr.to_bits() == other.fpr.to_bits()
            && self.growth_factor == other.growth_factor
            && self.tightening_ratio.to_bits() == other.tightening_ratio.to_bits()
            && self.max_bytes == other.max_bytes
            && self.len == other.len
            && self.newest_len == other.newest_len
            && self.stages == other.stages
            && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: KeyHasher> Eq for ScalableBloomFilter<S> {}

impl<S> fmt::Debug for ScalableBloomFilter<S> {
    /// The shape, not the tables.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScalableBloomFilter")
            .field("len", &self.len)
            .field("stages", &self.stages.len())
            .field("fpr", &self.fpr)
            .field("growth_factor", &self.growth_factor)
            .field("tightening_ratio", &self.tightening_ratio)
            .field(
                "memory_bytes",
                &self
                    .stages
                    .iter()
                    .map(BloomFilter::memory_bytes)
                    .sum::<usize>(),
            )
            .finish_non_exhaustive()
    }
}
