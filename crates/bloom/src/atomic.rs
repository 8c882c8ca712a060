//! [`AtomicBloomFilter`]: the classic filter, inserted into by many threads
//! at once.

use std::fmt;
use std::hash::Hash;
use std::sync::atomic::{AtomicUsize, Ordering};

use filter_core::probes::{
    BRANCH_FREE_MAX_BYTES, CubicProbes, HashedProbes, LinearProbes, ProbeSequence,
};
use filter_core::sizing::{self, MAX_BITS};
use filter_core::{Error, Filter, Insert, KeyHasher, PortableHasher, mix64};
use fixedbitset::FixedBitSet;

use crate::BloomFilter;
use crate::classic::{MAX_HASHES, WORD_BITS, all_set, check_hashes, for_each_probe};

/// A classic Bloom filter that many threads can insert into at once:
/// [`BloomFilter`] with its bits in atomic words, so that
/// [`insert`](Self::insert) takes `&self`.
///
/// ```
/// use bloom::AtomicBloomFilter;
///
/// let seen = AtomicBloomFilter::with_fpr(1_000, 0.01)?;
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
/// It is the same filter, bit for bit: the same size, probes and sizing
/// as [`BloomFilter`] (9.59 bits per key at 1 %, 14.38 at 0.1 %), the
/// same bytes, and conversions both ways ([`From`], and
/// [`to_bloom_filter`](Self::to_bloom_filter) for a snapshot). Inserting
/// the same keys in any order, from any threads, sets the same bits,
/// because a bit is only ever set (an atomic OR), never cleared while
/// shared.
///
/// **What threads see.** A key whose insert *happens before* a query (the
/// inserting thread was joined, or it published the key through a channel,
/// a lock, or any release store the querying thread acquired) is found: no
/// false negatives. A key inserted at the same moment as the query may or
/// may not be found yet. Bits are set and read with relaxed atomics (on
/// x86-64, plain loads and `lock or`): the ordering comes from the
/// synchronization that says "before", and each bit, once set, stays set.
///
/// **What it costs.** Lookups are the [`BloomFilter`] loop with atomic
/// loads, which compile to the same plain loads. An insert is k atomic ORs
/// (locked instructions on x86-64) instead of k plain ones, several times
/// the cost. So it pays where threads would otherwise take turns at a
/// lock. When one thread builds a filter that others then only read, build
/// a [`BloomFilter`] and share it (it is `Sync`); when threads insert
/// independent streams that are only queried at the end, give each its own
/// [`BloomFilter`] and [`union`](BloomFilter::union) them.
///
/// [`insert_unique`](Self::insert_unique) reports whether some bit of the
/// key was unset, like [`BloomFilter::insert_unique`]; two threads inserting
/// the same new key at the same moment may both be told it was new (each
/// may set some of its bits first), so it is no substitute for a lock when
/// exactly one thread must win.
///
/// # Invariants
///
/// As [`BloomFilter`]'s: `1 <= bits <= 2^46`, `1 <= hashes <= MAX_HASHES`,
/// storage bits past `bits` are zero, and only [`clear`](Self::clear),
/// which takes `&mut self`, unsets bits.
///
/// # Examples
///
/// ```
/// use bloom::AtomicBloomFilter;
///
/// let seen = AtomicBloomFilter::with_fpr(100_000, 0.01)?;
/// assert_eq!(seen.bits(), 959_298); // 9.59 bits per key, as BloomFilter
/// assert_eq!(seen.hashes(), 7);
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
/// // A snapshot is an ordinary BloomFilter with the same bits.
/// let snapshot = seen.to_bloom_filter();
/// assert!(snapshot.contains(&42u64));
/// assert_eq!(snapshot.to_bytes(), seen.to_bytes());
/// # Ok::<(), bloom::Error>(())
/// ```
pub struct AtomicBloomFilter<S = PortableHasher> {
    /// The bit array, laid out as `fixedbitset`'s: bit `i` is bit
    /// `i % WORD_BITS` of word `i / WORD_BITS`, `bits.div_ceil(WORD_BITS)`
    /// words.
    words: Box<[AtomicUsize]>,
    /// The bit count, `1..=2^46`.
    bits: usize,
    hashes: u32,
    sequence: ProbeSequence,
    hasher: S,
}

impl AtomicBloomFilter {
    /// A filter sized for `expected_items` distinct keys at false-positive
    /// rate `fpr`, with the default hasher: the size of
    /// [`BloomFilter::with_fpr`].
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::with_fpr`].
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, PortableHasher::default())
    }

    /// A filter of exactly `bits` bits and `hashes` probes per key, with the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::with_bits`].
    pub fn with_bits(bits: u64, hashes: u32) -> Result<Self, Error> {
        Self::with_bits_and_hasher(bits, hashes, PortableHasher::default())
    }

    /// Loads a filter from the bytes of [`BloomFilter::to_bytes`] or
    /// [`AtomicBloomFilter::to_bytes`] (the same format) under the default
    /// hasher.
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::from_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<S: KeyHasher> AtomicBloomFilter<S> {
    /// As [`AtomicBloomFilter::with_fpr`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::with_fpr`].
    pub fn with_fpr_and_hasher(expected_items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let (bits, hashes) = sizing::bloom_shape(expected_items, fpr, MAX_HASHES)?;
        Self::with_bits_and_hasher(bits, hashes, hasher)
            .map_err(|e| sizing::blame_items(e, "bits", bits, expected_items, fpr))
    }

    /// As [`AtomicBloomFilter::with_bits`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::with_bits`].
    pub fn with_bits_and_hasher(bits: u64, hashes: u32, hasher: S) -> Result<Self, Error> {
        let bits = sizing::check_bits(bits)?;
        check_hashes(hashes)?;
        debug_assert!(bits <= MAX_BITS);
        let len = usize::try_from(bits)
            .map_err(|_| Error::invalid("bits", bits, "addressable on this target"))?;
        let count = len.div_ceil(WORD_BITS);
        let mut words = Vec::new();
        words.try_reserve_exact(count).map_err(|_| {
            Error::invalid(
                "bits",
                bits,
                format_args!(
                    "small enough to allocate ({count} words of {} bytes could not be allocated)",
                    size_of::<usize>()
                ),
            )
        })?;
        words.resize_with(count, || AtomicUsize::new(0));
        Ok(AtomicBloomFilter {
            words: words.into_boxed_slice(),
            bits: len,
            hashes,
            sequence: ProbeSequence::for_table(len, hashes),
            hasher,
        })
    }

    /// As [`AtomicBloomFilter::from_bytes`], for a filter built with
    /// `hasher`. The table is read into a [`BloomFilter`] and copied into
    /// atomic words, so loading holds it twice for a moment.
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::from_bytes`].
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        BloomFilter::from_bytes_with_hasher(bytes, hasher).map(Self::from)
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
    /// [`BloomFilter::insert_hash`].
    #[inline]
    pub fn insert_hash(&self, hash: u64) {
        self.insert_mixed(mix64(hash));
    }

    /// Whether the key whose 64-bit hash is `hash` may be in the set, as
    /// [`BloomFilter::contains_hash`].
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.contains_mixed(mix64(hash))
    }

    /// Sets the bits of mixed hash `mixed`; whether one was unset.
    #[inline]
    fn insert_mixed(&self, mixed: u64) -> bool {
        let len = self.bits;
        match self.sequence {
            ProbeSequence::Linear => self.set_bits(LinearProbes::new(mixed, len)),
            ProbeSequence::Cubic => self.set_bits(CubicProbes::new(mixed, len)),
            ProbeSequence::Hashed => self.set_bits(HashedProbes::new(mixed, len)),
        }
    }

    /// Whether the key of mixed hash `mixed` may be in the set. As
    /// [`BloomFilter`]'s, tables above 16 MiB test the first two probes
    /// before loading the others.
    #[inline]
    fn contains_mixed(&self, mixed: u64) -> bool {
        let early_exit = size_of_val(&*self.words) > BRANCH_FREE_MAX_BYTES;
        self.test_mixed(mixed, early_exit)
    }

    /// Whether the k bits of mixed hash `mixed` are all set, testing the
    /// first two before the others with `early_exit` ([`all_set`]).
    #[inline(always)]
    fn test_mixed(&self, mixed: u64, early_exit: bool) -> bool {
        let len = self.bits;
        match self.sequence {
            ProbeSequence::Linear => self.test_bits(LinearProbes::new(mixed, len), early_exit),
            ProbeSequence::Cubic => self.test_bits(CubicProbes::new(mixed, len), early_exit),
            ProbeSequence::Hashed => self.test_bits(HashedProbes::new(mixed, len), early_exit),
        }
    }

    /// Sets the bits of the first k `positions` with atomic ORs; returns
    /// whether one of them was unset before.
    ///
    /// Why no read first, as [`AtomicBlockedBloomFilter`](crate::AtomicBlockedBloomFilter)
    /// does: loading the k words, and ORing only when a bit was missing,
    /// measured slower here, probably because a line first read in the
    /// shared state takes a second coherence request when the OR then
    /// writes it: k such upgrades a key, where the blocked filter has one.
    #[inline(always)]
    fn set_bits(&self, positions: impl Iterator<Item = usize>) -> bool {
        let mut new = false;
        for_each_probe(positions, self.hashes as usize, |p| {
            let mask = 1 << (p % WORD_BITS);
            new |= self.word(p).fetch_or(mask, Ordering::Relaxed) & mask == 0;
        });
        new
    }

    /// Whether the first k bits at `positions` are all set.
    #[inline(always)]
    fn test_bits(&self, positions: impl Iterator<Item = usize>, early_exit: bool) -> bool {
        all_set(positions, self.hashes, early_exit, |p| {
            self.word(p).load(Ordering::Relaxed)
        })
    }

    /// The word that holds bit `p`, a position from this table's probe
    /// sequence (below the bit count).
    #[inline(always)]
    #[allow(unsafe_code)]
    fn word(&self, p: usize) -> &AtomicUsize {
        debug_assert!(p < self.bits);
        // SAFETY: every probe sequence of a table of `self.bits` cells
        // yields positions below it, and `words` holds
        // `self.bits.div_ceil(WORD_BITS)` words, so `p / WORD_BITS` is in
        // bounds. (Unchecked for the reason BloomFilter's reads are: a check
        // that cannot fail cost about 13 % of a lookup.)
        unsafe { self.words.get_unchecked(p / WORD_BITS) }
    }

    /// The filter's bytes in the shared format, the same as
    /// [`BloomFilter::to_bytes`] of [`to_bloom_filter`](Self::to_bloom_filter)
    /// would give (a [`BloomFilter`] loads them, and so does this type).
    /// Keys inserted while it runs may be saved in part; every insert that
    /// happened before the call is saved whole.
    pub fn to_bytes(&self) -> Vec<u8> {
        crate::encoding::classic_bytes(
            &self.hasher,
            self.bits as u64,
            self.hashes,
            &self.snapshot_words(),
        )
    }

    /// Forgets every key. Takes `&mut self`: a clear racing an insert could
    /// leave part of a key's bits, and a later query would miss the key.
    pub fn clear(&mut self) {
        for word in &mut self.words {
            *word.get_mut() = 0;
        }
    }

    /// Number of bits m.
    pub fn bits(&self) -> u64 {
        self.bits as u64
    }

    /// Number of probes k per key.
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Bytes of the bit array (whole storage words), as
    /// [`BloomFilter::memory_bytes`].
    pub fn memory_bytes(&self) -> usize {
        size_of_val(&*self.words)
    }

    /// A [`BloomFilter`] with the bits set now: every insert that happened
    /// before the call, and perhaps part of those running meanwhile. It
    /// offers what this type does not: [`union`](BloomFilter::union),
    /// [`estimated_len`](BloomFilter::estimated_len) and the other fill
    /// estimates, batched lookups.
    pub fn to_bloom_filter(&self) -> BloomFilter<S>
    where
        S: Clone,
    {
        let table = FixedBitSet::with_capacity_and_blocks(self.bits, self.snapshot_words());
        BloomFilter::from_parts(table, self.hashes, self.hasher.clone())
    }

    /// The bits as they are now, word by word.
    fn snapshot_words(&self) -> Vec<usize> {
        self.words
            .iter()
            .map(|word| word.load(Ordering::Relaxed))
            .collect()
    }
}

impl<S: KeyHasher> From<BloomFilter<S>> for AtomicBloomFilter<S> {
    /// The same filter, its bits copied into atomic words.
    fn from(filter: BloomFilter<S>) -> Self {
        AtomicBloomFilter {
            words: filter
                .words()
                .iter()
                .map(|&w| AtomicUsize::new(w))
                .collect(),
            bits: filter.bits.len(),
            hashes: filter.hashes,
            sequence: filter.sequence,
            hasher: filter.hasher,
        }
    }
}

impl<S: KeyHasher> From<AtomicBloomFilter<S>> for BloomFilter<S> {
    /// The same filter, its bits copied out of the atomic words (which
    /// nobody else can be writing: the filter is moved).
    fn from(filter: AtomicBloomFilter<S>) -> Self {
        let bits = filter.bits;
        let words = filter.words.into_iter().map(AtomicUsize::into_inner);
        let table = FixedBitSet::with_capacity_and_blocks(bits, words);
        BloomFilter::from_parts(table, filter.hashes, filter.hasher)
    }
}

impl<S> fmt::Debug for AtomicBloomFilter<S> {
    /// The shape, not the bits, as [`BloomFilter`]'s `Debug`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicBloomFilter")
            .field("bits", &self.bits)
            .field("hashes", &self.hashes)
            .field("memory_bytes", &size_of_val(&*self.words))
            .finish_non_exhaustive()
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for AtomicBloomFilter<S> {
    fn contains(&self, item: &T) -> bool {
        AtomicBloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        AtomicBloomFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Insert<T> for AtomicBloomFilter<S> {
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        AtomicBloomFilter::insert(self, item);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table with about half its bits set, built by `BloomFilter` and
    /// converted, so that both lookup shapes meet hits and misses.
    fn half_full(bits: u64, hashes: u32) -> (BloomFilter, AtomicBloomFilter) {
        let mut filter = BloomFilter::with_bits(bits, hashes).unwrap();
        let keys = (bits as f64 * std::f64::consts::LN_2 / f64::from(hashes)) as u64;
        for key in 0..keys {
            filter.insert(&key);
        }
        (filter.clone(), AtomicBloomFilter::from(filter))
    }

    #[test]
    fn both_lookup_shapes_answer_as_bloom_filter() {
        // Large, small (cubic) and smallest (hashed) tables, k = 1 included
        // (where the early exit's second probe is the first again).
        let shapes = [
            (100_003, 7, ProbeSequence::Linear),
            (100_003, 1, ProbeSequence::Linear),
            (1000, 7, ProbeSequence::Cubic),
            (64, 8, ProbeSequence::Hashed),
        ];
        for (bits, hashes, sequence) in shapes {
            let (classic, atomic) = half_full(bits, hashes);
            assert_eq!(classic.sequence, sequence, "{bits} {hashes}");
            assert_eq!(atomic.sequence, sequence, "{bits} {hashes}");
            let mut hits = 0;
            // Members (below about 0.69 · bits / hashes) and non-members.
            for key in (0..10_000u64).chain(1 << 40..(1 << 40) + 10_000) {
                let hash = classic.hasher().mixed_hash(&key);
                let expected = classic.contains_mixed(hash);
                hits += usize::from(expected);
                assert_eq!(
                    atomic.test_mixed(hash, false),
                    expected,
                    "{bits} {hashes} {key}"
                );
                assert_eq!(
                    atomic.test_mixed(hash, true),
                    expected,
                    "{bits} {hashes} {key}"
                );
            }
            // Both answers occur, so both branches of the early exit ran.
            assert!(
                (50..=19_950).contains(&hits),
                "{bits} {hashes}: {hits} hits"
            );
        }
    }
}
