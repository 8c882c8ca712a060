//! The d-left counting Bloom filter: deletes and counts at about half the
//! memory of a counting Bloom filter.
//!
//! Bonomi, Mitzenmacher, Panigrahy, Singh and Varghese ("An Improved
//! Construction for Counting Bloom Filters", ESA 2006) keep the counting
//! filter's functions (insert, remove, multiplicity) but store, for each
//! key, one small fingerprint with a counter in a d-left hash table, instead
//! of incrementing k counters spread over a bit-like array. A key's
//! fingerprint goes to the least loaded of d = 4 candidate buckets, one in
//! each of four subtables (the leftmost on ties), which keeps bucket loads
//! so even that buckets of a few cells fill to 80–95 % without overflow.
//!
//! # Design decisions
//!
//! - **The permutation construction.** A key's four buckets and its
//!   remainder all derive from one true fingerprint through permutations, so
//!   a cell belongs to exactly one true fingerprint and the same key always
//!   meets the same cell: inserts of a key count in one cell, and a remove
//!   decrements the cell its inserts incremented, never another key's
//!   (`table.rs` says why independent hashes would break deletes). The
//!   permutation shifts the subtable-0 bucket by an offset that depends on
//!   the remainder alone, which works for any bucket count, so tables are
//!   sized to what the rate needs, not to a power of two.
//! - **Cells packed in words, tested together.** A cell is a 4-bit counter
//!   and a remainder packed in a lane of a `u64`; a bucket is one or two
//!   words, never straddling a cache line. A lookup reads its four buckets,
//!   one line each, and tests every lane of every word with a few word
//!   operations and no branch on the cells.
//! - **Shapes chosen by size.** `with_fpr` sizes every cell width and bucket
//!   length against two bounds, the rate (a non-member matches only a
//!   stored true fingerprint: rate ≤ n / (buckets · (2^r − 2))) and the
//!   load at which overflow is practically impossible, and keeps the
//!   smallest: 16-bit cells in 16-byte buckets at p = 1 % (about 19 bits
//!   per key), 21-bit cells at 0.1 % and 0.01 % (about 27 and 35).
//! - **Saturation, as in the other counting filters.** A counter that
//!   reaches 15 stays at 15: inserts and removes no longer change it, so a
//!   key that shares it is never lost.
//! - **`Full` loses nothing.** An insert fails only when its fingerprint is
//!   not stored and all four of its buckets are full, and then changes
//!   nothing. `with_fpr(n, p)` is sized so that this does not happen before
//!   n inserts.
//!
//! # Which counting filter
//!
//! - [`CountingBloomFilter`](crate::CountingBloomFilter) and
//!   [`BlockedCountingBloomFilter`](crate::BlockedCountingBloomFilter) never
//!   refuse an insert: past their size the rate rises, but inserts go on.
//!   Pick them when the number of keys has no firm bound, or when a counter
//!   per key is not enough (the d-left table holds one counter per distinct
//!   fingerprint). They cost about twice the memory.
//! - `DLeftCountingBloomFilter` halves that memory for the same n and p
//!   and answers `count` from one counter, but has a capacity: past about
//!   n / 0.85 keys inserts start to fail with `Full` (losing nothing).
//! - `cuckoo::CuckooFilter` is smaller still (about 10.5 bits per key at
//!   1 %) with two buckets per lookup instead of four, but it stores a
//!   duplicate key as a second copy of its fingerprint (a few copies at
//!   most) where this filter counts it, and it cannot count.
//! - `quotient_filter::QuotientFilter` stores fingerprints in one table in
//!   order, counts duplicates exactly, merges and grows; its lookups and
//!   inserts scan a run of neighbouring slots, where this filter touches
//!   four fixed buckets. Pick it for multisets with heavy repeats, or when
//!   the filter must grow.

mod batch;
mod encoding;
#[cfg(feature = "serde")]
mod serde;
mod sizing;
mod table;

use std::fmt;
use std::hash::Hash;

use filter_core::{Error, Filter, HasherProbe, Insert, KeyHasher, PortableHasher, Remove, mix64};

use table::{Line, SATURATED, SUBTABLES, Shape, Table};

/// A counting filter that stores one fingerprint and a 4-bit counter per
/// distinct key in a d-left hash table: insert, remove and count at about
/// half the memory of a [`CountingBloomFilter`](crate::CountingBloomFilter).
///
/// ```
/// use counting_bloom::DLeftCountingBloomFilter;
///
/// let mut sessions = DLeftCountingBloomFilter::with_fpr(1_000_000, 0.01)?;
/// sessions.insert("alice")?;
/// sessions.insert("bob")?;
/// sessions.insert("bob")?;
/// assert_eq!(sessions.count("bob"), 2);
/// assert!(sessions.remove("alice"));
/// assert!(!sessions.contains("alice"));
/// assert!(!sessions.remove("carol")); // certainly absent: nothing changes
///
/// // About 19 bits per key at 1 %, half a counting Bloom filter's 38.4.
/// let bits_per_key = sessions.memory_bytes() as f64 * 8.0 / 1e6;
/// assert!(bits_per_key < 19.2, "{bits_per_key}");
///
/// // The rate is at most 1 % after a million distinct inserts.
/// let mut filter = DLeftCountingBloomFilter::with_fpr(1_000_000, 0.01)?;
/// for i in 0..1_000_000u64 {
///     filter.insert(&i)?;
/// }
/// let false_positives = (1_000_000..1_100_000u64).filter(|i| filter.contains(i)).count();
/// assert!(false_positives <= 1_000, "{false_positives}");
/// # Ok::<(), counting_bloom::Error>(())
/// ```
///
/// # Invariants
///
/// Each true fingerprint has at most one cell; a cell is empty exactly when
/// its remainder is zero, and then its counter is zero too. [`len`](Self::len)
/// is the sum of the counters.
///
/// Only remove what was inserted: removing a never-inserted key that is a
/// false positive decrements the cell of the key whose true fingerprint it
/// shares, which can then go missing (one key at most, or the few that
/// share that fingerprint).
#[derive(Clone)]
pub struct DLeftCountingBloomFilter<S: KeyHasher = PortableHasher> {
    shape: Shape,
    table: Table,
    /// The sum of the counters, kept to answer `len` in O(1).
    items: u64,
    hasher: S,
}

impl DLeftCountingBloomFilter<PortableHasher> {
    /// A filter for `expected_items` keys at false-positive rate `fpr`, with
    /// the default hasher: the rate is at most `fpr` after
    /// `expected_items` distinct inserts, and those inserts never meet
    /// [`Error::Full`] (the chance is below 10^−15 per key by the sizing
    /// model; see the module docs).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items == 0`, `fpr` outside
    /// the open interval (0, 1) or NaN, a rate so small that no table of
    /// 2^40 buckets per subtable serves one key, or a table too large to
    /// allocate.
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, PortableHasher::default())
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be queried
    /// with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming what is wrong with the bytes, or
    /// [`Error::HasherMismatch`] when they were written under a hasher that
    /// hashes differently.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<S: KeyHasher> DLeftCountingBloomFilter<S> {
    /// As [`with_fpr`](DLeftCountingBloomFilter::with_fpr), hashing keys
    /// with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`with_fpr`](DLeftCountingBloomFilter::with_fpr).
    pub fn with_fpr_and_hasher(expected_items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let shape = sizing::shape_for(expected_items, fpr)?;
        let lines = filter_core::memory::zeroed_vec::<Line>(shape.lines(), "expected_items")
            .map_err(|_| {
                Error::invalid(
                    "expected_items",
                    expected_items,
                    format_args!(
                        "small enough to allocate at fpr {fpr} ({} bytes could not be allocated)",
                        // In u64: on 32-bit targets the bytes of a table too
                        // large to allocate may pass `usize::MAX`.
                        shape.lines() as u64 * 64
                    ),
                )
            })?;
        Ok(Self::from_parts(shape, Table { lines }, hasher))
    }

    pub(crate) fn from_parts(shape: Shape, table: Table, hasher: S) -> Self {
        let items = shape.cells(&table).map(|(.., count)| count).sum();
        DLeftCountingBloomFilter {
            shape,
            table,
            items,
            hasher,
        }
    }

    #[inline]
    fn mixed<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hasher.mixed_hash(item)
    }

    /// Adds one copy of `item`.
    ///
    /// # Errors
    ///
    /// [`Error::Full`] when `item`'s fingerprint is not stored and all four
    /// of its buckets are full; the filter is then unchanged.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) -> Result<(), Error> {
        self.insert_mixed(self.mixed(item))
    }

    /// As [`insert`](Self::insert), for a 64-bit hash of the key (what
    /// [`KeyHasher::hash_key`] gives, so that `insert(k)` and
    /// `insert_hash(hasher.hash_key(k))` agree); the filter mixes it with
    /// [`mix64`] first, so any hash serves, sequential ids included.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> Result<(), Error> {
        self.insert_mixed(mix64(hash))
    }

    pub(crate) fn insert_mixed(&mut self, mixed: u64) -> Result<(), Error> {
        let place = self.shape.place(mixed);
        self.items += self.shape.add(&mut self.table, &place, 1)?;
        Ok(())
    }

    /// Whether `item` may be present: `false` means it was never inserted
    /// (or every copy was removed).
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_mixed(self.mixed(item))
    }

    /// As [`contains`](Self::contains), for a 64-bit hash of the key.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.contains_mixed(mix64(hash))
    }

    #[inline(always)]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        self.shape.contains(&self.table, mixed)
    }

    /// Removes one copy of `item`: decrements its counter, or leaves it if
    /// saturated. Returns `false`, and changes nothing, when `item`'s
    /// fingerprint is not stored (it was certainly never inserted).
    ///
    /// Only remove what was inserted: see the type docs.
    #[inline]
    pub fn remove<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        self.remove_mixed(self.mixed(item))
    }

    /// As [`remove`](Self::remove), for a 64-bit hash of the key.
    #[inline]
    pub fn remove_hash(&mut self, hash: u64) -> bool {
        self.remove_mixed(mix64(hash))
    }

    pub(crate) fn remove_mixed(&mut self, mixed: u64) -> bool {
        let place = self.shape.place(mixed);
        match self.shape.take(&mut self.table, &place) {
            None => false,
            Some(decremented) => {
                self.items -= u64::from(decremented);
                true
            }
        }
    }

    /// How many copies of `item` the filter holds: never below the number
    /// inserted minus removed, unless that exceeds 15 (the counter then
    /// saturates at 15); above it only when another key shares `item`'s
    /// true fingerprint (with probability about the false-positive rate).
    #[inline]
    pub fn count<T: Hash + ?Sized>(&self, item: &T) -> u32 {
        self.count_mixed(self.mixed(item))
    }

    /// As [`count`](Self::count), for a 64-bit hash of the key.
    #[inline]
    pub fn count_hash(&self, hash: u64) -> u32 {
        self.count_mixed(mix64(hash))
    }

    fn count_mixed(&self, mixed: u64) -> u32 {
        self.shape.count(&self.table, &self.shape.place(mixed)) as u32
    }

    /// Adds every copy `other` holds to this filter (a multiset sum;
    /// counters saturate at 15).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the shapes differ (filters made by
    /// `with_fpr` with the same arguments have the same shape),
    /// [`Error::HasherMismatch`] when the hashers hash differently, and
    /// [`Error::Full`] when a fingerprint of `other` finds all four of its
    /// buckets here full; in every case this filter is unchanged.
    pub fn merge(&mut self, other: &Self) -> Result<(), Error> {
        let (a, b) = (&self.shape, &other.shape);
        for (parameter, left, right) in [
            ("buckets", a.buckets, b.buckets),
            ("bucket_words", a.bucket_words, b.bucket_words),
            ("cell_bits", a.cell_bits as usize, b.cell_bits as usize),
        ] {
            if left != right {
                return Err(Error::incompatible(parameter, left, right));
            }
        }
        if !HasherProbe::same(&self.hasher, &other.hasher) {
            return Err(Error::HasherMismatch);
        }
        let shape = self.shape;
        let mut table = self.table.clone();
        let mut added = 0;
        for (subtable, bucket, remainder, count) in shape.cells(&other.table) {
            let home = shape.home(subtable, bucket, remainder);
            added += shape.add(&mut table, &shape.place_of(home, remainder), count)?;
        }
        self.table = table;
        self.items += added;
        Ok(())
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }
}

impl<S: KeyHasher> DLeftCountingBloomFilter<S> {
    /// The number of copies the counters hold: successful inserts minus
    /// removes that returned `true`, except that a saturated counter holds
    /// 15 copies however many more were inserted or removed.
    pub fn len(&self) -> usize {
        usize::try_from(self.items).unwrap_or(usize::MAX)
    }

    /// Whether no cell is occupied.
    pub fn is_empty(&self) -> bool {
        self.items == 0
    }

    /// Bytes of the table: four subtables of buckets, in 64-byte lines.
    pub fn memory_bytes(&self) -> usize {
        self.table.lines.len() * size_of::<Line>()
    }

    /// Buckets in each of the four subtables.
    pub fn buckets(&self) -> usize {
        self.shape.buckets
    }

    /// Cells in each bucket.
    pub fn bucket_cells(&self) -> u32 {
        self.shape.bucket_cells()
    }

    /// Bits of each cell's remainder (a cell also has a 4-bit counter).
    pub fn remainder_bits(&self) -> u32 {
        self.shape.remainder_bits()
    }

    /// The largest value of a counter: a counter that reaches it saturates.
    pub fn max_count(&self) -> u32 {
        SATURATED as u32
    }

    /// Cells in the table: a bound on the distinct fingerprints it can hold.
    pub fn capacity(&self) -> usize {
        SUBTABLES * self.shape.buckets * self.shape.bucket_cells() as usize
    }

    /// An upper bound on the false-positive rate after `items` distinct
    /// inserts: items / (buckets · (2^remainder_bits − 2)), which is what
    /// `with_fpr` sizes for.
    pub fn fpr_bound(&self, items: usize) -> f64 {
        let remainders = f64::from(self.shape.remainder_bits()).exp2() - 2.0;
        (items as f64 / (self.shape.buckets as f64 * remainders)).min(1.0)
    }

    /// Empties the filter, keeping its shape and hasher.
    pub fn clear(&mut self) {
        self.table.lines.fill(Line::default());
        self.items = 0;
    }
}

impl<S: KeyHasher> fmt::Debug for DLeftCountingBloomFilter<S> {
    /// The shape, not the table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DLeftCountingBloomFilter")
            .field("buckets", &self.shape.buckets)
            .field("bucket_cells", &self.shape.bucket_cells())
            .field("remainder_bits", &self.shape.remainder_bits())
            .field("len", &self.items)
            .field("memory_bytes", &self.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// Equal when the shapes and cells are equal and the hashers hash alike
/// ([`HasherProbe::same`]): then the bytes are equal too.
impl<S: KeyHasher> PartialEq for DLeftCountingBloomFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.shape == other.shape
            && self.table == other.table
            && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: KeyHasher> Eq for DLeftCountingBloomFilter<S> {}

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for DLeftCountingBloomFilter<S> {
    fn contains(&self, item: &T) -> bool {
        DLeftCountingBloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        DLeftCountingBloomFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Insert<T> for DLeftCountingBloomFilter<S> {
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        DLeftCountingBloomFilter::insert(self, item)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Remove<T> for DLeftCountingBloomFilter<S> {
    fn remove(&mut self, item: &T) -> bool {
        DLeftCountingBloomFilter::remove(self, item)
    }
}
