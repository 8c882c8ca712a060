//! The classic-layout type: construction, insert, contains, remove, count,
//! merge.
//!
//! Every operation works on the key's *mixed* hash: the hasher's
//! [`mixed_hash`](KeyHasher::mixed_hash) for a key, [`mix64`] of what a
//! `*_hash` method is given. The k positions are the Bloom probes of
//! [`filter_core::probes`] started from it, the same cells a classic Bloom
//! filter of m bits would use.

use std::hash::Hash;

use filter_core::probes::{
    BRANCH_FREE_MAX_BYTES, CubicProbes, HashedProbes, LinearProbes, ProbeSequence,
};
use filter_core::sizing::{MAX_BITS, blame_items, bloom_fpr, bloom_shape};
use filter_core::{Error, Filter, HasherProbe, Insert, KeyHasher, PortableHasher, Remove, mix64};

use crate::counters::{
    MAX_COUNT, count_saturated, locate, nonzero_in_word, saturated_in_word, saturating_add_words,
    words_for, zeroed_table,
};
use crate::filter_simd::Lookup;

/// Runs `$body` with `$probes` bound to the probe iterator of mixed hash
/// `$mixed` in `$filter`: one copy of the body per probe sequence, each
/// looping over one concrete iterator.
macro_rules! with_probes {
    ($filter:expr, $mixed:expr, |$probes:ident| $body:expr) => {{
        let len = $filter.counters;
        let mixed = $mixed;
        match $filter.sequence {
            ProbeSequence::Linear => {
                let $probes = LinearProbes::new(mixed, len);
                $body
            }
            ProbeSequence::Cubic => {
                let $probes = CubicProbes::new(mixed, len);
                $body
            }
            ProbeSequence::Hashed => {
                let $probes = HashedProbes::new(mixed, len);
                $body
            }
        }
    }};
}
pub(crate) use with_probes;

/// The largest hash count a filter accepts. Every operation touches this
/// many counters, so the limit bounds the cost of one call; 64 hashes is the
/// optimum for a false-positive rate of about 1e-19.
pub const MAX_HASHES: u32 = 64;

/// The largest counter count a filter accepts: 2^46, the same limit as a
/// classic Bloom filter's bits.
pub const MAX_COUNTERS: u64 = MAX_BITS;

/// A counting Bloom filter: a Bloom filter whose bits are 4-bit counters, so
/// that items can be removed and their multiplicity estimated.
///
/// ```
/// use counting_bloom::CountingBloomFilter;
///
/// let mut sessions = CountingBloomFilter::with_fpr(10_000, 0.01)?;
/// sessions.insert("7f3a");
/// sessions.insert("7f3a");
/// assert_eq!(sessions.count("7f3a"), 2);
/// assert!(sessions.remove("7f3a"));
/// assert!(sessions.contains("7f3a"));      // one copy left
/// assert!(!sessions.remove("b001"));       // certainly absent: nothing changes
/// # Ok::<(), counting_bloom::Error>(())
/// ```
///
/// # Space and false-positive rate
///
/// [`with_fpr(n, p)`](Self::with_fpr) takes the m and k of a classic Bloom
/// filter for n items at rate p ([`filter_core::sizing::bloom_shape`]) and
/// puts a 4-bit counter where the classic filter has a bit: 4·m bits, about
/// 38.4 bits per key at p = 1 %. The false-positive rate with n items
/// present is the classic (1 − e^(−kn/m))^k ≤ p, at every table size (small
/// tables probe a sequence that keeps them at the rate of independent
/// probes: see [`filter_core::probes`]).
///
/// ```
/// use counting_bloom::CountingBloomFilter;
///
/// let filter = CountingBloomFilter::with_fpr(1_000_000, 0.01)?;
/// assert_eq!(filter.counters(), 9_592_957);       // the classic filter's bit count
/// assert_eq!(filter.hashes(), 7);
/// let bits_per_key = filter.memory_bytes() as f64 * 8.0 / 1e6;
/// assert!((bits_per_key - 38.37).abs() < 0.01, "{bits_per_key}");
///
/// // 10,000 items in, 100,000 other keys asked.
/// let mut filter = CountingBloomFilter::with_fpr(10_000, 0.01)?;
/// (0..10_000u64).for_each(|i| filter.insert(&i));
/// let false_positives = (10_000..110_000u64).filter(|i| filter.contains(i)).count();
/// // σ = √(0.01 · 0.99 / 100,000) ≈ 0.03 %, so 1.15 % is 5σ above the target.
/// assert!(false_positives < 1_150, "{false_positives}");
/// # Ok::<(), counting_bloom::Error>(())
/// ```
///
/// # Invariants
///
/// - Every counter is in `0..=15`; counters past [`counters()`](Self::counters)
///   in the last word are always 0.
/// - A counter at 15 is **saturated**: no operation changes it again (merge
///   keeps it at 15). [`saturated_counters()`](Self::saturated_counters)
///   counts them.
/// - An unsaturated counter is at least the number of copies of present items
///   that map to it, provided only present items were removed. Hence no false
///   negatives, and [`count`](Self::count) never underestimates an item whose
///   counters are unsaturated.
///
/// # Removing what was never inserted
///
/// [`remove`](Self::remove) refuses, and changes nothing, when one of the
/// item's counters is zero: such an item was certainly never inserted. But an
/// item that was never inserted and is a *false positive* (all its counters
/// non-zero because of other items) cannot be told apart from a member:
/// removing it decrements counters that belong to other items, which can
/// later make one of them a false negative. Only remove items you inserted;
/// if a remove may be mistaken, check it against an exact set first.
#[derive(Clone)]
pub struct CountingBloomFilter<S = PortableHasher> {
    pub(crate) table: Vec<u64>,
    pub(crate) counters: usize,
    pub(crate) hashes: u32,
    /// Fixed by `counters` and `hashes` ([`ProbeSequence::for_table`]).
    pub(crate) sequence: ProbeSequence,
    /// Derived from `table` (kept to answer in O(1)), so equality and the
    /// bytes leave it out.
    pub(crate) saturated: u64,
    /// How lookups run on this CPU (`filter_simd.rs`): not state, since
    /// both ways give the same answers, so equality and the bytes leave it
    /// out too. Off x86-64 it is always `Lookup::Portable`, and never read.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) lookup: Lookup,
    pub(crate) hasher: S,
}

impl CountingBloomFilter {
    /// A filter for `expected_items` items at false-positive rate `fpr`,
    /// with the default hasher. Sized like the classic Bloom filter: the
    /// same counters as its bits, the same hashes.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items == 0`, `fpr` outside
    /// the open interval (0, 1) or NaN, an `fpr` so small that the optimal
    /// hash count exceeds [`MAX_HASHES`], or a table too large to allocate.
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, PortableHasher::default())
    }

    /// A filter of exactly `counters` counters and `hashes` hashes per item,
    /// with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `counters` outside `1..=2^46`,
    /// `hashes` outside `1..=64`, or a table too large to allocate.
    pub fn with_counters(counters: u64, hashes: u32) -> Result<Self, Error> {
        Self::with_counters_and_hasher(counters, hashes, PortableHasher::default())
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be queried
    /// with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::WrongKind`] for valid bytes of another filter kind;
    /// [`Error::Corrupt`] naming what is wrong with the bytes;
    /// [`Error::HasherMismatch`] when they were written under another
    /// hasher (or another seed).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<S: KeyHasher> CountingBloomFilter<S> {
    /// As [`with_fpr`](CountingBloomFilter::with_fpr), hashing keys with
    /// `hasher`.
    ///
    /// # Errors
    ///
    /// As [`with_fpr`](CountingBloomFilter::with_fpr).
    pub fn with_fpr_and_hasher(expected_items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let (counters, hashes) = bloom_shape(expected_items, fpr, MAX_HASHES)?;
        // The caller chose the item count, not the counter count.
        Self::with_counters_and_hasher(counters, hashes, hasher)
            .map_err(|e| blame_items(e, "counters", counters, expected_items, fpr))
    }

    /// As [`with_counters`](CountingBloomFilter::with_counters), hashing
    /// keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`with_counters`](CountingBloomFilter::with_counters).
    pub fn with_counters_and_hasher(counters: u64, hashes: u32, hasher: S) -> Result<Self, Error> {
        check_counters(counters)?;
        check_hashes(hashes)?;
        let table = zeroed_table(counters)?;
        Ok(Self::from_parts(table, counters, hashes, hasher))
    }

    /// Adds one copy of `item`: increments each of its counters that is not
    /// saturated. Never fails: a counting Bloom filter never fills up, and
    /// saturated counters only raise the false-positive rate.
    ///
    /// It returns nothing, where the [`Insert`] trait's `insert` (which this
    /// type implements by calling it) returns `Ok(())`.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) {
        self.insert_mixed(self.hasher.mixed_hash(item));
    }

    /// Whether `item` may be present: `false` means it is certainly not
    /// (never inserted, or every copy removed).
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
    /// Only remove items that were inserted: removing a false positive (an
    /// item never inserted whose counters are all non-zero) decrements other
    /// items' counters and can make them false negatives. See the type docs.
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
    /// use counting_bloom::CountingBloomFilter;
    ///
    /// let mut filter = CountingBloomFilter::with_fpr(1_000, 0.01)?;
    /// assert!(filter.insert_unique("alice"));  // new
    /// assert!(!filter.insert_unique("alice")); // (probably) present
    /// assert_eq!(filter.count("alice"), 2);    // both copies counted
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_unique<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        let mixed = self.hasher.mixed_hash(item);
        with_probes!(self, mixed, |probes| self.insert_probes(probes))
    }

    /// Adds `other`'s counters into this filter's, each sum capped at 15:
    /// afterwards this filter holds the items of both (a multiset sum).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the counter or hash counts differ;
    /// [`Error::HasherMismatch`] when the two hashers hash differently. On an
    /// error `self` is unchanged.
    pub fn merge(&mut self, other: &Self) -> Result<(), Error> {
        if self.counters != other.counters {
            return Err(Error::incompatible(
                "counters",
                self.counters,
                other.counters,
            ));
        }
        if self.hashes != other.hashes {
            return Err(Error::incompatible("hashes", self.hashes, other.hashes));
        }
        if !HasherProbe::same(&self.hasher, &other.hasher) {
            return Err(Error::HasherMismatch);
        }
        let mut saturated = 0;
        for (mine, &theirs) in self.table.iter_mut().zip(&other.table) {
            *mine = saturating_add_words(*mine, theirs);
            saturated += u64::from(saturated_in_word(*mine));
        }
        self.saturated = saturated;
        Ok(())
    }

    /// Sets every counter to zero, keeping the size and hasher.
    pub fn clear(&mut self) {
        self.table.fill(0);
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
        with_probes!(self, mix64(hash), |probes| self.insert_probes(probes))
    }

    /// Assembles a filter from a validated table of `counters` counters.
    pub(crate) fn from_parts(table: Vec<u64>, counters: u64, hashes: u32, hasher: S) -> Self {
        debug_assert_eq!(table.len() as u64, words_for(counters));
        let saturated = count_saturated(&table);
        // The table was allocated, so its counter count fits in usize.
        let counters = counters as usize;
        let sequence = ProbeSequence::for_table(counters, hashes);
        CountingBloomFilter {
            table,
            counters,
            hashes,
            sequence,
            saturated,
            lookup: Lookup::for_shape(counters, hashes, sequence),
            hasher,
        }
    }

    /// Adds one copy of the item whose mixed hash is `mixed`.
    #[inline]
    pub(crate) fn insert_mixed(&mut self, mixed: u64) {
        // The "was it new" answer is unused here, and compiled away.
        with_probes!(self, mixed, |probes| self.insert_probes(probes));
    }

    /// The body of every insert, once per probe sequence: increments the
    /// item's counters and returns whether one of them was zero. A position
    /// that repeats within the item sees its own increment the second time,
    /// but the first visit already saw the zero.
    #[inline(always)]
    fn insert_probes(&mut self, probes: impl Iterator<Item = usize>) -> bool {
        let mut new = false;
        for position in probes.take(self.hashes as usize) {
            let (word, shift) = locate(position);
            let value = (self.table[word] >> shift) & 15;
            new |= value == 0;
            if value < MAX_COUNT {
                self.table[word] += 1 << shift;
                if value + 1 == MAX_COUNT {
                    self.saturated += 1;
                }
            }
        }
        new
    }

    /// Whether the item whose mixed hash is `mixed` may be present.
    ///
    /// Where the CPU has AVX2 (detected at run time), the k counters are
    /// fetched four at a time and tested without a branch, for tables
    /// probed by the linear sequence (all but the smallest) with at most 16
    /// hashes and fewer than 2^32 counters. Other shapes, and CPUs without
    /// AVX2, use two loops chosen by table size ([`BRANCH_FREE_MAX_BYTES`]):
    /// a table that fits in the last-level cache of most current CPUs is
    /// probed without a data-dependent branch, so all k loads overlap and a
    /// miss costs no misprediction; a larger table is probed with an early
    /// exit at the first zero counter, so a miss fetches fewer cache lines
    /// from DRAM.
    #[inline]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        let branch_free = size_of_val(&self.table[..]) <= BRANCH_FREE_MAX_BYTES;
        self.test_mixed(mixed, branch_free)
    }

    /// Whether the k counters of mixed hash `mixed` are all non-zero: by the
    /// AVX2 lookup where this filter has one, else as
    /// [`test_counters`](Self::test_counters) says.
    #[inline(always)]
    pub(crate) fn test_mixed(&self, mixed: u64, branch_free: bool) -> bool {
        let len = self.counters;
        #[cfg(target_arch = "x86_64")]
        if let Lookup::Gather(gather) = &self.lookup {
            #[allow(unsafe_code)]
            // SAFETY: `gather` was made for this filter's shape
            // (`from_parts`), whose table holds `counters.div_ceil(16)` words.
            return unsafe { crate::filter_simd::all_nonzero(&self.table, gather, mixed) };
        }
        #[allow(unsafe_code)]
        // SAFETY: every probe sequence of a table of `len` cells yields
        // positions in `0..len`, and `len` is the counter count.
        unsafe {
            match self.sequence {
                ProbeSequence::Linear => {
                    self.test_counters(LinearProbes::new(mixed, len), branch_free)
                }
                ProbeSequence::Cubic => {
                    self.test_counters_out_of_line(CubicProbes::new(mixed, len), branch_free)
                }
                ProbeSequence::Hashed => {
                    self.test_counters_out_of_line(HashedProbes::new(mixed, len), branch_free)
                }
            }
        }
    }

    /// [`test_counters`](Self::test_counters) for the small tables' cubic
    /// and hashed sequences, kept out of line so that large tables' lookups
    /// inline one probe loop, not three.
    ///
    /// # Safety
    ///
    /// As [`test_counters`](Self::test_counters).
    #[allow(unsafe_code)]
    #[inline(never)]
    unsafe fn test_counters_out_of_line(
        &self,
        probes: impl Iterator<Item = usize>,
        branch_free: bool,
    ) -> bool {
        // SAFETY: this function's contract is `test_counters`'s.
        unsafe { self.test_counters(probes, branch_free) }
    }

    /// Whether every counter at `probes` is non-zero: all tested without
    /// branches if `branch_free` (every load overlaps), else stopping at the
    /// first zero (no load past it).
    ///
    /// The words are read without bounds checks: the check can never fail,
    /// and it sits on the path of every load of every lookup.
    ///
    /// # Safety
    ///
    /// Every position `probes` yields must be below the counter count,
    /// `self.counters`.
    #[allow(unsafe_code)]
    #[inline(always)]
    unsafe fn test_counters(&self, probes: impl Iterator<Item = usize>, branch_free: bool) -> bool {
        let table = &self.table[..];
        let counter = |position: usize| {
            debug_assert!(position < self.counters);
            let (word, shift) = locate(position);
            // SAFETY: `position < self.counters` (this function's
            // contract), the table holds `self.counters.div_ceil(16)` words
            // of 16 counters, and `locate` divides by 16.
            let word = unsafe { *table.get_unchecked(word) };
            (word >> shift) & 15
        };
        let mut probes = probes.take(self.hashes as usize);
        if branch_free {
            let mut all = 1;
            for position in probes {
                all &= u64::from(counter(position) != 0);
            }
            all == 1
        } else {
            probes.all(|position| counter(position) != 0)
        }
    }

    /// Removes one copy of the item whose mixed hash is `mixed`.
    pub(crate) fn remove_mixed(&mut self, mixed: u64) -> bool {
        if !self.contains_mixed(mixed) {
            return false;
        }
        with_probes!(self, mixed, |probes| self.remove_probes(probes))
    }

    /// The body of [`remove_mixed`](Self::remove_mixed) after its lookup,
    /// once per probe sequence.
    #[inline(always)]
    fn remove_probes(&mut self, probes: impl Iterator<Item = usize> + Clone) -> bool {
        let probes = probes.take(self.hashes as usize);
        for (done, position) in probes.clone().enumerate() {
            let (word, shift) = locate(position);
            let value = (self.table[word] >> shift) & 15;
            if value == 0 {
                // Only reachable when a position repeats within the item and
                // its counter held fewer touches than the repeats: the item
                // was never inserted. Undo the decrements made so far so that
                // a `false` answer changes nothing.
                for undo in probes.take(done) {
                    let (word, shift) = locate(undo);
                    if (self.table[word] >> shift) & 15 < MAX_COUNT {
                        self.table[word] += 1 << shift;
                    }
                }
                return false;
            }
            if value < MAX_COUNT {
                self.table[word] -= 1 << shift;
            }
        }
        true
    }

    /// The smallest counter of the item whose mixed hash is `mixed`.
    fn count_mixed(&self, mixed: u64) -> u32 {
        with_probes!(self, mixed, |probes| self.count_probes(probes))
    }

    /// The body of [`count_mixed`](Self::count_mixed), once per sequence.
    fn count_probes(&self, probes: impl Iterator<Item = usize>) -> u32 {
        probes
            .take(self.hashes as usize)
            .map(|position| {
                let (word, shift) = locate(position);
                ((self.table[word] >> shift) & 15) as u32
            })
            .min()
            .unwrap_or(0)
    }
}

impl<S> CountingBloomFilter<S> {
    /// The number of counters, m.
    pub fn counters(&self) -> u64 {
        self.counters as u64
    }

    /// The number of counters each item touches, k.
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// Bytes of the counter table: ⌈m / 16⌉ × 8.
    pub fn memory_bytes(&self) -> usize {
        self.table.len() * size_of::<u64>()
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

    /// The false-positive rate the classic formula predicts with `items`
    /// distinct items present: (1 − e^(−k·items/m))^k. Saturated counters can
    /// only add to it, negligibly at design load.
    pub fn expected_fpr(&self, items: usize) -> f64 {
        // m and k were validated at construction, so the checked formula
        // cannot fail; 1.0 is the safe answer if it somehow did.
        bloom_fpr(self.counters as u64, items, self.hashes).unwrap_or(1.0)
    }

    /// The false-positive rate of the filter as it is now: (non-zero
    /// counters / m)^k, the classic filter's estimate from its fill. It
    /// follows removes, unlike [`expected_fpr`](Self::expected_fpr), which
    /// needs the item count. Reads every counter: O(m).
    ///
    /// ```
    /// use counting_bloom::CountingBloomFilter;
    ///
    /// let mut filter = CountingBloomFilter::with_fpr(10_000, 0.01)?;
    /// (0..10_000u64).for_each(|i| filter.insert(&i));
    /// let estimate = filter.estimated_fpr();
    /// let false_positives = (10_000..210_000u64).filter(|i| filter.contains(i)).count();
    /// let measured = false_positives as f64 / 200_000.0;
    /// // The measurement's binomial σ is √(0.01 · 0.99 / 200,000) ≈ 0.022 %;
    /// // the estimate is the rate of these very counters, so the two agree
    /// // within 5σ (0.11 %).
    /// assert!((estimate - measured).abs() < 0.0011, "{estimate} {measured}");
    ///
    /// // Removing half the items frees their counters: the estimate is now
    /// // the classic rate for 5,000 items. Its relative σ from the fill's
    /// // spread is about 1.4 % (k times the fill's 0.2 %), so 10 % is 7σ.
    /// (0..5_000u64).for_each(|i| assert!(filter.remove(&i)));
    /// let ratio = filter.estimated_fpr() / filter.expected_fpr(5_000);
    /// assert!((ratio - 1.0).abs() < 0.1, "{ratio}");
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        let fill = self.nonzero_counters() as f64 / self.counters as f64;
        fill.powf(f64::from(self.hashes))
    }

    /// The number of distinct items present, estimated from the fill
    /// (Swamidass and Baldi): n ≈ −(m/k) ln(1 − nonzero/m). Copies of an
    /// item count once. Saturates at `usize::MAX` when every counter is
    /// non-zero. Reads every counter: O(m).
    ///
    /// ```
    /// use counting_bloom::CountingBloomFilter;
    ///
    /// let mut filter = CountingBloomFilter::with_fpr(10_000, 0.01)?;
    /// for i in 0..10_000u64 {
    ///     filter.insert(&i);
    ///     filter.insert(&i); // a second copy counts once
    /// }
    /// // Linear counting's standard error at the optimal fill
    /// // (kn/m = ln 2): √(m (e^(ln 2) − ln 2 − 1)) / k = √(95,930 · 0.307) / 7
    /// // ≈ 25 items; 150 is 6σ.
    /// let estimate = filter.estimated_len();
    /// assert!(estimate.abs_diff(10_000) < 150, "{estimate}");
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    pub fn estimated_len(&self) -> usize {
        let m = self.counters as f64;
        let n = -(m / f64::from(self.hashes)) * (1.0 - self.nonzero_counters() as f64 / m).ln();
        // `as` saturates: +∞ (every counter non-zero) becomes usize::MAX.
        n.round() as usize
    }

    /// The number of non-zero counters: the set bits of a classic Bloom
    /// filter of the same m and k holding the present items, provided only
    /// inserted items were removed and no counter saturated.
    pub(crate) fn nonzero_counters(&self) -> u64 {
        self.table
            .iter()
            .map(|&w| u64::from(nonzero_in_word(w)))
            .sum()
    }
}

/// Checks a counter count against `1..=MAX_COUNTERS`.
pub(crate) fn check_counters(counters: u64) -> Result<u64, Error> {
    filter_core::sizing::check_range("counters", counters, 1..=MAX_COUNTERS)
}

/// Checks a hash count against `1..=MAX_HASHES`.
pub(crate) fn check_hashes(hashes: u32) -> Result<u32, Error> {
    filter_core::sizing::check_range("hashes", hashes, 1..=MAX_HASHES)
}

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for CountingBloomFilter<S> {
    fn contains(&self, item: &T) -> bool {
        CountingBloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        CountingBloomFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Insert<T> for CountingBloomFilter<S> {
    /// Never fails: saturated counters only raise the false-positive rate.
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        CountingBloomFilter::insert(self, item);
        Ok(())
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Remove<T> for CountingBloomFilter<S> {
    fn remove(&mut self, item: &T) -> bool {
        CountingBloomFilter::remove(self, item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use filter_core::probes::probe_positions;

    /// The counters one key sets in an empty filter, as (counter, value).
    fn set_counters(filter: &CountingBloomFilter) -> Vec<(usize, u64)> {
        (0..filter.counters)
            .map(|c| (c, (filter.table[c / 16] >> (4 * (c % 16))) & 15))
            .filter(|&(_, v)| v != 0)
            .collect()
    }

    #[test]
    fn keys_and_hashes_probe_from_the_mixed_hash() {
        // Written out from the definition: probe j of mixed hash x is
        // reduce(x + j·y, m), y = rotl(x, 32) ^ 0x9E37…7C15; a key's x is
        // its hasher's mixed hash, a hash's x is mix64 of it.
        let (m, k) = (1_000_003u64, 7);
        let empty = CountingBloomFilter::with_counters(m, k).unwrap();
        assert_eq!(empty.sequence, ProbeSequence::Linear);
        for i in 0..300u64 {
            let key = format!("key {i}");
            let x = empty.hasher().mixed_hash(&key);
            let y = x.rotate_left(32) ^ 0x9E37_79B9_7F4A_7C15;
            let mut expected: Vec<usize> = (0..u64::from(k))
                .map(|j| filter_core::reduce(x.wrapping_add(j.wrapping_mul(y)), m as usize))
                .collect();
            expected.sort_unstable();
            let mut by_key = empty.clone();
            by_key.insert(&key);
            let set: Vec<usize> = set_counters(&by_key).into_iter().map(|(c, _)| c).collect();
            let mut distinct = expected.clone();
            distinct.dedup();
            assert_eq!(set, distinct, "{key}");
            let mut by_hash = empty.clone();
            by_hash.insert_hash(empty.hasher().hash_key(&key));
            assert_eq!(by_hash.table, by_key.table);
            assert!(by_key.contains_hash(empty.hasher().hash_key(&key)));
            assert!(by_key.remove(&key) && set_counters(&by_key).is_empty());
        }
    }

    #[test]
    fn refused_remove_undoes_partial_decrements() {
        // One counter holding 2, and items that touch it three times: the
        // item looks present (counter non-zero) but its third decrement would
        // go below zero. The remove must refuse and leave the counter at 2.
        // (One counter and three hashes: the hashed sequence.)
        let filter = CountingBloomFilter::from_parts(vec![2], 1, 3, PortableHasher::default());
        let mut f = filter.clone();
        assert!(f.contains_mixed(99));
        assert!(!f.remove_mixed(99));
        assert_eq!(f.table, [2]);
        assert_eq!(f.count_mixed(99), 2);
        // Saturated counters are skipped by both the decrements and the undo.
        // Counter 0 holds 2, counter 1 is saturated; an item touching
        // counter 0 three times and counter 1 once is refused unchanged.
        let mut g = CountingBloomFilter::from_parts(vec![0xF2], 2, 4, PortableHasher::default());
        let before = g.table.clone();
        let mut tried = 0;
        for mixed in 0..1_000 {
            let touches_low = probe_positions(mixed, 2, g.sequence, 4)
                .into_iter()
                .filter(|&p| p == 0)
                .count();
            if touches_low == 3 {
                assert!(!g.remove_mixed(mixed));
                assert_eq!(g.table, before);
                tried += 1;
            }
        }
        // 4 · (1/2)^4 = 1/4 of the hashes touch counter 0 exactly three times.
        assert!(tried > 100, "{tried}");
        assert_eq!(g.saturated_counters(), 1);
    }
}
