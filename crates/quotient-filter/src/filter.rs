//! The public type: a counting quotient filter over any hashable key.

use std::hash::Hash;

use filter_core::{Error, HasherProbe, KeyHasher, PortableHasher, mix64};

use crate::core::{Core, Full, MIN_REMAINDER_BITS};
use crate::shape;

/// Batches of fewer items are inserted one by one: below this, sorting
/// and a pass over the whole table cost more than the inserts.
const BULK_MIN_ITEMS: usize = 256;

/// A counting quotient filter: a set of keys with counts, no false
/// negatives, and a false-positive rate set at construction.
///
/// Each key's hash gives a quotient (its home slot, any number of them)
/// and an r-bit remainder, kept in sorted runs of a rank-and-select table;
/// repeated keys share one entry whose count is encoded in slots. A key
/// inserted c times costs O(1 + log c / r) slots.
///
/// ```
/// use quotient_filter::QuotientFilter;
///
/// let mut words = QuotientFilter::with_fpr(1_000, 0.01)?;
/// for word in "the cat saw the dog and the bird".split(' ') {
///     words.insert(word)?;
/// }
/// assert_eq!(words.count("the"), 3);
/// assert!(words.contains("cat"));
/// assert!(words.remove("the"));
/// assert_eq!(words.count("the"), 2);
/// assert_eq!(words.len(), 7);
/// # Ok::<(), quotient_filter::Error>(())
/// ```
///
/// Invariants: `len()` is the number of successful inserts minus
/// successful removes; `count` never reads below the number of copies of a
/// key inserted and not removed; no slot is used past the maximum load of
/// 95 % of the quotients.
#[derive(Clone)]
pub struct QuotientFilter<S: KeyHasher = PortableHasher> {
    pub(crate) core: Core,
    pub(crate) hasher: S,
    pub(crate) growable: bool,
}

impl QuotientFilter {
    /// A filter that takes `expected_items` inserts without [`Error::Full`]
    /// and then answers with a false-positive rate of at most `fpr`.
    ///
    /// Its remainders are the fewest bits that give `fpr` at 95 % load:
    /// 7 bits for 1 %, 10 for 0.1 %, 14 for 0.01 %, plus 2.125 bits of
    /// metadata a slot.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items == 0` or too large to
    /// address, and for an `fpr` outside (0, 1) or too small for the 57
    /// remainder bits a 64-bit hash allows.
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, PortableHasher::default())
    }

    /// A filter that doubles instead of reporting [`Error::Full`], and keeps
    /// its rate at most `fpr` through `doublings` doublings (up to
    /// `expected_items · 2^doublings` keys).
    ///
    /// It reserves one remainder bit per planned doubling (each doubling
    /// moves one bit from the remainder to the quotient), so it starts with
    /// a rate of `fpr / 2^doublings` at `expected_items`. Past the planned
    /// doublings it still doubles while a remainder keeps 2 bits, and each
    /// further doubling doubles the rate at full load.
    ///
    /// # Errors
    ///
    /// As [`with_fpr`](Self::with_fpr); `doublings` above 16 is
    /// [`Error::InvalidParameter`].
    pub fn growable_with_fpr(
        expected_items: usize,
        fpr: f64,
        doublings: u32,
    ) -> Result<Self, Error> {
        Self::growable_with_fpr_and_hasher(
            expected_items,
            fpr,
            doublings,
            PortableHasher::default(),
        )
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes) under the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// As [`from_bytes_with_hasher`](Self::from_bytes_with_hasher).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<S: KeyHasher> QuotientFilter<S> {
    /// As [`QuotientFilter::with_fpr`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`QuotientFilter::with_fpr`].
    pub fn with_fpr_and_hasher(expected_items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let shape = shape::for_rate(expected_items, fpr, 0)?;
        Ok(QuotientFilter {
            core: Core::new(shape, "expected_items")?,
            hasher,
            growable: false,
        })
    }

    /// As [`QuotientFilter::growable_with_fpr`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`QuotientFilter::growable_with_fpr`].
    pub fn growable_with_fpr_and_hasher(
        expected_items: usize,
        fpr: f64,
        doublings: u32,
        hasher: S,
    ) -> Result<Self, Error> {
        let shape = shape::for_rate(expected_items, fpr, doublings)?;
        Ok(QuotientFilter {
            core: Core::new(shape, "expected_items")?,
            hasher,
            growable: true,
        })
    }

    /// Inserts one copy of `item`.
    ///
    /// # Errors
    ///
    /// [`Error::Full`] when its slots would pass 95 % of the quotients (or,
    /// rarely, the spare slots past the last one), unless the filter is
    /// growable; a growable filter doubles instead, and reports `Full` only
    /// when its remainders have no bit left to give or the larger table
    /// cannot be allocated. Nothing is changed by a failed insert.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) -> Result<(), Error> {
        self.insert_mixed(self.hasher.mixed_hash(item))
    }

    /// As [`insert`](Self::insert), for the 64-bit hash of an item
    /// ([`KeyHasher::hash_key`]); any 64-bit values will do, ids included.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> Result<(), Error> {
        self.insert_mixed(mix64(hash))
    }

    pub(crate) fn insert_mixed(&mut self, m: u64) -> Result<(), Error> {
        match self.core.insert(m) {
            Ok(()) => Ok(()),
            Err(Full) if self.growable => {
                // Doubling makes room for as many slots again as were used,
                // so one doubling is enough for one copy; a copy that still
                // does not fit (its count would pass u64::MAX) leaves the
                // filter as it was.
                let mut doubled = self.core.doubled("quotients").map_err(|_| Error::Full)?;
                doubled.insert(m)?;
                self.core = doubled;
                Ok(())
            }
            Err(full) => Err(full.into()),
        }
    }

    /// Hands `each` the mixed hashes (by `hash`) of `keys`, in order, a
    /// chunk at a time, and stops at its first error: a chunk is as many
    /// keys as the filter has quotients (at least `BULK_MIN_ITEMS`), so
    /// that the memory a batch holds stays in proportion to the table
    /// however long the batch, and a filter loaded from empty is rebuilt a
    /// few times, not once a key.
    fn for_each_chunk<K, E>(
        &mut self,
        keys: impl IntoIterator<Item = K>,
        hash: impl Fn(&Self, K) -> u64,
        mut each: impl FnMut(&mut Self, Vec<u64>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut keys = keys.into_iter();
        loop {
            let size = self.quotients().max(BULK_MIN_ITEMS);
            let chunk: Vec<u64> = keys.by_ref().take(size).map(|k| hash(self, k)).collect();
            let full_chunk = chunk.len() == size;
            if !chunk.is_empty() {
                each(self, chunk)?;
            }
            if !full_chunk {
                return Ok(());
            }
        }
    }

    /// Whether a rebuild pays for a batch of `items` operations: they are
    /// many, and a quarter or more of the copies the table holds.
    fn rebuild_pays(&self, items: usize) -> bool {
        items >= BULK_MIN_ITEMS && items as u64 >= self.core.len() / 4
    }

    /// Inserts `keys`, in order, by their mixed hashes (`hash`), a chunk at
    /// a time ([`for_each_chunk`](Self::for_each_chunk)) through
    /// [`insert_mixed_batch`](Self::insert_mixed_batch).
    pub(crate) fn insert_chunked<K>(
        &mut self,
        keys: impl IntoIterator<Item = K>,
        hash: impl Fn(&Self, K) -> u64,
    ) -> Result<(), Error> {
        self.for_each_chunk(keys, hash, Self::insert_mixed_batch)
    }

    /// Inserts the items of mixed hashes `mixed`, in order: the filter
    /// ends as `insert_mixed` one by one leaves it, and so does the error.
    ///
    /// A batch that is large next to the filter is added by one rebuild
    /// of the table instead (sort its fingerprints, walk them beside the
    /// filter's entries, write every slot once; see the module docs of
    /// `batch`). Tables are canonical (one multiset of fingerprints has one
    /// table, as loading bytes checks), so the rebuild is the table the
    /// inserts would leave; a growable filter is rebuilt at the fewest
    /// doublings that hold every entry, which are the doublings the inserts
    /// would make. Smaller batches, and those whose entries do not fit or
    /// whose new table cannot be allocated, go in one by one (with the
    /// lookahead of filter-core's batches), which finds the first item
    /// that does not fit.
    pub(crate) fn insert_mixed_batch(&mut self, mixed: Vec<u64>) -> Result<(), Error> {
        let items = mixed.len() as u64;
        // A count could pass u64::MAX only if the total does: such a batch
        // fails part way, where only one-by-one inserts know the place.
        let counts_fit = self.core.len().checked_add(items).is_some();
        if self.rebuild_pays(mixed.len()) && counts_fit {
            let prints = crate::sorted::sorted_fingerprints(&self.core, &mixed);
            let mut shape = self.core.shape();
            loop {
                match self.core.with_sorted(&prints, shape, "items") {
                    Ok(core) => {
                        self.core = core;
                        return Ok(());
                    }
                    Err(Error::Full) if self.growable => match shape.doubled() {
                        Some(doubled) => shape = doubled,
                        None => break,
                    },
                    Err(_) => break,
                }
            }
        }
        filter_core::batch::insert_ahead(self, mixed, |_, m| m, Self::insert_mixed)
    }

    /// Removes one copy for each of `keys`, in order, by their mixed
    /// hashes (`hash`), a chunk at a time
    /// ([`for_each_chunk`](Self::for_each_chunk)); how many removals
    /// succeeded.
    pub(crate) fn remove_chunked<K>(
        &mut self,
        keys: impl IntoIterator<Item = K>,
        hash: impl Fn(&Self, K) -> u64,
    ) -> usize {
        let mut removed = 0;
        let Ok(()) = self.for_each_chunk(keys, hash, |filter, chunk| {
            removed += filter.remove_mixed_batch(chunk);
            Ok::<(), std::convert::Infallible>(())
        });
        removed
    }

    /// Removes one copy for each of mixed hashes `mixed`, in order, and
    /// says how many removals succeeded: the filter ends as `remove` one by
    /// one leaves it. A chunk large next to the filter is taken out by one
    /// rebuild, as [`insert_mixed_batch`](Self::insert_mixed_batch) puts
    /// one in. The order of removes does not matter here: each fingerprint
    /// loses as many copies as were asked of it, up to as many as it had.
    fn remove_mixed_batch(&mut self, mixed: Vec<u64>) -> usize {
        if self.rebuild_pays(mixed.len()) {
            let prints = crate::sorted::sorted_fingerprints(&self.core, &mixed);
            if let Ok((core, removed)) = self.core.without_sorted(&prints, "items") {
                self.core = core;
                // At most one a hash, so no more than `mixed.len()`.
                return usize::try_from(removed).unwrap_or(mixed.len());
            }
        }
        filter_core::batch::remove_ahead(self, mixed, |_, m| m, |filter, m| filter.core.remove(m))
    }

    /// Whether `item` may be present: `false` means it was never inserted
    /// (or all its copies were removed).
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.core.contains(self.hasher.mixed_hash(item))
    }

    /// As [`contains`](Self::contains), for a 64-bit hash.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.core.contains(mix64(hash))
    }

    /// How many copies of `item` are held: never below the number inserted
    /// and not removed, and exactly that unless another key shares its
    /// fingerprint (which happens at the filter's rate).
    #[inline]
    pub fn count<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.core.count(self.hasher.mixed_hash(item))
    }

    /// As [`count`](Self::count), for a 64-bit hash.
    #[inline]
    pub fn count_hash(&self, hash: u64) -> u64 {
        self.core.count(mix64(hash))
    }

    /// Removes one copy of `item`: `true` when one was held; `false` and
    /// nothing changed otherwise. Removing the last copy frees its slot.
    ///
    /// Remove only items that were inserted: removing a false positive
    /// takes a copy of another key that shares its fingerprint. Two distinct
    /// keys whose fingerprints collide are two copies, so removing one never
    /// makes the other absent.
    pub fn remove<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        self.core.remove(self.hasher.mixed_hash(item))
    }

    /// As [`remove`](Self::remove), for a 64-bit hash.
    pub fn remove_hash(&mut self, hash: u64) -> bool {
        self.core.remove(mix64(hash))
    }

    /// Adds every copy held by `other` to this filter (the multiset sum).
    ///
    /// The two must hash alike and have the same fingerprint space
    /// (quotients × 2^remainder bits): built with the same
    /// `expected_items`, `fpr` and planned doublings, either possibly grown
    /// from the other's size by [`grow`](Self::grow) or by inserts. Their
    /// sizes may differ; the sum takes the larger, and a growable filter
    /// doubles further if the sum needs it. Filters of other sizes hold
    /// fingerprints of other spaces, which no table of either size can
    /// hold without losing keys or the rate (see the crate's design notes).
    ///
    /// # Errors
    ///
    /// [`Error::HasherMismatch`] when the hashers differ,
    /// [`Error::Incompatible`] naming both spaces when they differ,
    /// [`Error::Full`] when the sum does not fit (and the filter is not
    /// growable). Nothing is changed by a failed merge.
    pub fn merge(&mut self, other: &Self) -> Result<(), Error> {
        if !HasherProbe::same(&self.hasher, &other.hasher) {
            return Err(Error::HasherMismatch);
        }
        if self.core.space() != other.core.space() {
            let describe = |core: &Core| {
                let shape = core.shape();
                format!(
                    "{} x 2^{} = {}",
                    shape.quotients,
                    shape.remainder_bits,
                    core.space()
                )
            };
            return Err(Error::incompatible(
                "fingerprint space (quotients x 2^remainder bits, which must be equal: \
                 the same expected_items, fpr and planned doublings, either side possibly grown)",
                describe(&self.core),
                describe(&other.core),
            ));
        }
        let mut shape = if other.core.shape().quotients > self.core.shape().quotients {
            other.core.shape()
        } else {
            self.core.shape()
        };
        loop {
            match self.core.merged(&other.core, shape, "quotients") {
                Ok(core) => {
                    self.core = core;
                    return Ok(());
                }
                Err(Error::Full) if self.growable => {
                    shape = shape.doubled().ok_or(Error::Full)?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Doubles the quotients, keeping every key and count: the table then
    /// holds twice as many slots, each remainder one bit shorter, so the
    /// rate at a given number of keys is unchanged and at full load doubles.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when the remainders have 2 bits (the
    /// fewest counters can be encoded in), or the larger table cannot be
    /// allocated. Nothing is changed then.
    pub fn grow(&mut self) -> Result<(), Error> {
        self.core = self.core.doubled("quotients")?;
        Ok(())
    }

    /// Whether a full insert doubles the filter instead of failing.
    pub fn is_growable(&self) -> bool {
        self.growable
    }

    /// Copies held: successful inserts minus successful removes (saturating
    /// at `usize::MAX` where that is below the count).
    pub fn len(&self) -> usize {
        usize::try_from(self.core.len()).unwrap_or(usize::MAX)
    }

    /// Whether no copy is held.
    pub fn is_empty(&self) -> bool {
        self.core.len() == 0
    }

    /// Bytes of the table: blocks of 64 slots of r + 2 bits and a byte of
    /// offset each.
    pub fn memory_bytes(&self) -> usize {
        self.core.memory_bytes()
    }

    /// Slots in use over quotients: at most 0.95, but for a few slots more
    /// where remainder 0 is counted 3 or 4 times (its encoding takes a slot
    /// more than its count, and the maximum load charges it by count).
    pub fn load_factor(&self) -> f64 {
        self.core.used() as f64 / self.core.shape().quotients as f64
    }

    /// Slots in use: one per key of count one, a few more for counted keys.
    pub fn used_slots(&self) -> usize {
        self.core.used()
    }

    /// Quotients: the home slots keys are spread over.
    pub fn quotients(&self) -> usize {
        self.core.shape().quotients
    }

    /// Remainder bits a slot, at least 2.
    pub fn remainder_bits(&self) -> u32 {
        self.core.shape().remainder_bits
    }

    /// Whether [`grow`](Self::grow) can double the filter again.
    pub fn can_grow(&self) -> bool {
        self.core.shape().remainder_bits > MIN_REMAINDER_BITS
    }

    /// The hasher.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }
}

/// A summary, not the table: a filter of millions of slots prints in a line.
impl<S: KeyHasher + std::fmt::Debug> std::fmt::Debug for QuotientFilter<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuotientFilter")
            .field("len", &self.len())
            .field("quotients", &self.quotients())
            .field("remainder_bits", &self.remainder_bits())
            .field("used_slots", &self.used_slots())
            .field("growable", &self.growable)
            .field("hasher", &self.hasher)
            .finish_non_exhaustive()
    }
}

/// Equal when they hold the same entries in the same shape under hashers
/// that hash alike: what `to_bytes` would write.
impl<S: KeyHasher> PartialEq for QuotientFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.growable == other.growable
            && self.core == other.core
            && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: KeyHasher> Eq for QuotientFilter<S> {}
