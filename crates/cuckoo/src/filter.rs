//! The public type: construction, insert (with eviction and the victim
//! slot), lookup and removal.
//!
//! # How it works
//!
//! Partial-key cuckoo hashing (Fan, Andersen, Kaminsky, Mitzenmacher,
//! "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014). Each item
//! is an `f`-bit fingerprint stored in one of two buckets of four slots.
//! The second bucket is computed from the first and the fingerprint alone,
//! so a resident can be moved ("kicked") to its other bucket without
//! knowing its key, and an item can be removed by clearing its fingerprint.
//!
//! # Design decisions
//!
//! - **Positions from the mixed hash, mixed once.** A key's first bucket
//!   is `reduce(m, buckets)` (the high bits of the mixed hash `m`, by
//!   multiply-shift) and its fingerprint comes from the low 32 bits of `m`;
//!   the two are independent when `m` is uniform. The key path asks the
//!   hasher for `m` directly ([`KeyHasher::mixed_hash`]), which for the
//!   default [`PortableHasher`] is the hasher's own last step, so nothing is
//!   mixed twice. The `*_hash` methods apply [`mix64`] to what they are
//!   given, so sequential or shifted ids keep the rate and fill the table
//!   as random keys do (`tests/structured.rs`), and
//!   `contains(k) == contains_hash(hasher.hash_key(k))` for every key.
//! - **A victim slot, so no key is ever lost.** When 500 evictions do not
//!   find a free slot, the textbook filter drops the fingerprint in hand,
//!   which belongs to some earlier item: a false negative. Here it goes to
//!   a one-entry victim slot that lookups and removes also check; from then
//!   on inserts return [`Error::Full`] (and change nothing) until a remove
//!   frees a slot that the victim can reach by a chain of moves.
//! - **Near capacity: both buckets at once, the emptier one, and short
//!   chains first.** Past half load an insert reads both of its buckets
//!   before looking at either, so the second bucket's cache miss overlaps
//!   the first's, and puts the fingerprint in the emptier one, which leaves
//!   fewer items with both buckets full later. When both are full, a
//!   shallow breadth-first search looks for a chain of one or two moves to
//!   a free slot (`search.rs`), each level read all at once so that it
//!   costs about one cache miss where the paper's random walk pays one per
//!   step. Only when that fails does the random walk run, and after it a
//!   bounded breadth-first search, so inserts first fail at about 97 %
//!   load rather than 95 %.
//! - **Fingerprints of any width, packed.** The width follows the target
//!   rate, 4 to 16 bits, and buckets of `4f` bits lie back to back, so a
//!   10-bit fingerprint costs 10 bits (`table.rs`).
//! - **No power-of-two tables.** The alternate bucket is
//!   `(c(fp) − i) mod m`, an involution for every `m`; the paper's
//!   `i XOR h(fp)` needs `m` a power of two, which wastes up to half the
//!   memory (`table.rs` says how `c` is chosen).
//! - **Lookups sized for memory-level parallelism.** A lookup that misses
//!   the cache waits on two independent loads, and how many lookups the CPU
//!   overlaps is set by how many instructions each holds while it waits. So
//!   the lookup tests the (almost always empty) victim slot first, loads
//!   both buckets before comparing anything, and branches on nothing it
//!   loaded. The unchecked 8-byte accesses this needs are the crate's only
//!   `unsafe`, in `table.rs` and in the two lookups' calls to it here (a
//!   filter's, and a scalable filter's stage's at a pair found already).
//! - **Seeded evictions.** Which resident to evict is drawn from a
//!   SplitMix64 generator with a fixed seed whose state is part of the
//!   bytes: the same operations give the same table, on every run and
//!   after a reload.
//! - **Copies are bounded, and say so.** An item can be inserted up to
//!   [`MAX_COPIES`] = 8 times (every slot of its two buckets); the ninth
//!   insert is [`Error::TooManyCopies`] and changes nothing, however empty
//!   the rest of the table is. [`CuckooFilter::insert_unique`] never meets
//!   the limit.

use std::hash::Hash;

use filter_core::{Error, KeyHasher, PortableHasher, mix64, reduce, sizing};
use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

use crate::search::{INSERT_SEARCH_BUCKETS, REINSERT_SEARCH_BUCKETS};
use crate::table::{
    Flat, MAX_FINGERPRINT_BITS, MIN_FINGERPRINT_BITS, Pairing, SLOTS, Table, bytes_for,
};

/// How many residents one insert may evict before it gives up and parks the
/// fingerprint in hand in the victim slot (the paper's bound).
const MAX_KICKS: u32 = 500;

/// How many copies of one item the filter holds: every slot of both of its
/// buckets (2b with b = 4). A further insert of it is
/// [`Error::TooManyCopies`].
pub const MAX_COPIES: usize = 2 * SLOTS;

/// The load factor the sizing constructors size for,
/// `expected_items / (4 · buckets)`, for fingerprints of 7 bits or more.
///
/// With four slots per bucket, 500 kicks and the breadth-first fallback,
/// inserts first fail at about 97 % load at every width. Narrow
/// fingerprints are sized for lower loads, 80 % (4 bits), 90 % (5) and
/// 93 % (6), which keeps two risks small that grow with the load: nine
/// distinct items sharing a fingerprint and a pair of buckets (its chance
/// grows as the load's eighth power), and at 4 bits the rate bound
/// `8 · load / 15`, which passes 1/2 above a load of 0.9375. Small tables
/// also get `√n` extra buckets, because a few unlucky buckets decide when
/// they fill. Together these make "n inserts never see `Full`" hold while
/// bits/key stays within 2 % of `f / 0.95` for fingerprints of 7 bits or
/// more at large n (600,000 and up).
const TARGET_LOAD: f64 = 0.95;

/// Extra buckets per `√expected_items` (see [`TARGET_LOAD`]): 0.5 % more
/// space at 600,000 items, 0.1 % at 10,000,000, more than double at 10 items.
const MARGIN: f64 = 1.0;

/// The load a table of `fingerprint_bits`-bit fingerprints is sized for.
fn target_load(fingerprint_bits: u32) -> f64 {
    match fingerprint_bits {
        ..=4 => 0.80,
        5 => 0.90,
        6 => 0.93,
        _ => TARGET_LOAD,
    }
}

/// The seed of the eviction generator of a new filter. Fixed, so that the
/// same inserts give the same table on every run.
const EVICTION_SEED: u64 = 0x6375_636B_6F6F_2121;

/// A fingerprint that could not be placed, kept so that no item is ever lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Victim {
    /// One of its two buckets (the other is `alt(bucket, fingerprint)`).
    pub(crate) bucket: usize,
    /// Non-zero when the slot is occupied; 0 means empty.
    pub(crate) fingerprint: u64,
}

impl Victim {
    /// The empty victim slot.
    pub(crate) const EMPTY: Victim = Victim {
        bucket: 0,
        fingerprint: 0,
    };
}

/// An approximate set with inserts and deletes: a cuckoo filter of 4-slot
/// buckets and packed `f`-bit fingerprints.
///
/// ```
/// use cuckoo::CuckooFilter;
///
/// let mut sessions = CuckooFilter::with_fpr(100_000, 0.01)?;
/// for i in 0..100_000u64 {
///     sessions.insert(&i)?;
/// }
/// assert!(sessions.contains(&42u64));
/// assert!(sessions.remove(&42u64));
/// assert!(!sessions.contains(&42u64));
/// // About f / 0.95 bits per item (f = 10 for 1 %), and at most 1 % false
/// // positives.
/// let bits_per_key = sessions.memory_bytes() as f64 * 8.0 / 100_000.0;
/// assert!(bits_per_key < 10.7, "{bits_per_key}");
/// let false_positives = (100_000..200_000u64).filter(|i| sessions.contains(i)).count();
/// assert!(false_positives < 1_000, "{false_positives}");
/// # Ok::<(), cuckoo::Error>(())
/// ```
///
/// # Space and false-positive rate
///
/// `f` bits per slot, so about `f / load` bits per item. A lookup of an
/// absent item compares against up to 8 occupied slots, each a false match
/// with probability `1 / (2^f − 1)`: the rate is at most
/// `8 · load / (2^f − 1)`. [`with_fpr`](CuckooFilter::with_fpr) picks
/// `f = ⌈log2(8 / p)⌉`, so the rate stays below `p`.
///
/// # Invariants
///
/// - Every stored fingerprint, the victim's included, is non-zero; 0 marks an
///   empty slot.
/// - `len()` counts successful inserts minus successful removes, and equals
///   the occupied slots plus 1 if the victim slot is occupied.
/// - An item inserted and not removed is always found: in one of its two
///   buckets or in the victim slot. A failed insert changes nothing.
/// - While the victim slot is occupied, every insert returns
///   [`Error::Full`]; a remove that frees a slot tries to put the victim back.
///
/// # Removing items never inserted
///
/// Removing an item that was never inserted but collides with a stored one (a
/// false positive) removes that stored fingerprint, and the item it belonged
/// to is then missing. Remove only items you inserted, or check with an exact
/// set first. Removing an item the filter reports absent is always safe: it
/// returns `false` and changes nothing.
#[derive(Clone)]
pub struct CuckooFilter<S = PortableHasher> {
    pub(crate) cuckoo: Cuckoo,
    pub(crate) hasher: S,
}

/// Everything of a cuckoo filter but its hasher: the table, the item
/// count, the victim slot and the eviction generator, and the insert,
/// lookup and removal that work on them. Generic over the table's
/// alternate-bucket rule: a [`CuckooFilter`] holds one of [`Flat`]
/// tables, a [`ScalableCuckooFilter`](crate::ScalableCuckooFilter) one of
/// [`Nested`](crate::nested::Nested) tables per stage. The invariants are
/// [`CuckooFilter`]'s.
#[derive(Clone)]
pub(crate) struct Cuckoo<P = Flat> {
    pub(crate) table: Table<P>,
    pub(crate) len: usize,
    pub(crate) victim: Victim,
    pub(crate) rng: SplitMix64,
}

impl CuckooFilter {
    /// A filter that accepts `expected_items` distinct inserts without
    /// [`Error::Full`] and then has a false-positive rate of at most `fpr`,
    /// with the default hasher.
    ///
    /// The fingerprint width is `⌈log2(8 / fpr)⌉` bits (4, the narrowest,
    /// for every `fpr` from 0.5 up); the table has about
    /// `expected_items / (4 · 0.95)` buckets. Narrow widths are raised a bit
    /// at large `expected_items` (4 bits beyond about 480,000 items, 5
    /// beyond about 53 million): at most [`MAX_COPIES`] items can share a
    /// fingerprint and a pair of buckets, and with few fingerprint values
    /// some nine distinct items would then be likely to.
    ///
    /// ```
    /// let filter = cuckoo::CuckooFilter::with_fpr(1_000, 0.01)?;
    /// assert_eq!(filter.fingerprint_bits(), 10);
    /// assert!(cuckoo::CuckooFilter::with_fpr(1_000, 1.5).is_err());
    /// # Ok::<(), cuckoo::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items == 0`, an `fpr` outside
    /// (0, 1), an `fpr` below 8 / 2^16 = 0.0001220703125 (wider than 16-bit
    /// fingerprints), or a table too large to allocate.
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, PortableHasher::default())
    }

    /// A filter sized for `expected_items` at the target load, with
    /// `fingerprint_bits`-bit fingerprints (4 to 16), and the default
    /// hasher.
    ///
    /// It accepts `expected_items` distinct inserts without [`Error::Full`]
    /// as [`with_fpr`](CuckooFilter::with_fpr)'s filters do, except that
    /// narrow widths at large counts may meet nine distinct items with one
    /// fingerprint and one pair of buckets (with 4 bits about once per 500
    /// million items, with 5 bits once per 50 billion), which
    /// [`with_fpr`](CuckooFilter::with_fpr) avoids by widening.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items == 0`, a width outside
    /// 4..=16, or a table too large to allocate.
    pub fn with_capacity(expected_items: usize, fingerprint_bits: u32) -> Result<Self, Error> {
        Self::with_capacity_and_hasher(expected_items, fingerprint_bits, PortableHasher::default())
    }

    /// A filter of exactly `buckets` buckets (4 slots each) of
    /// `fingerprint_bits`-bit fingerprints, with the default hasher. Any
    /// bucket count works; none is rounded. With an odd count, each
    /// fingerprint has one bucket that is its own alternate (about 1 item in
    /// `buckets` then has one bucket, not two, and at most 4 copies); the
    /// sizing constructors use even counts.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `buckets == 0`, a width outside 4..=16,
    /// or a table too large to allocate.
    pub fn with_buckets(buckets: usize, fingerprint_bits: u32) -> Result<Self, Error> {
        Self::with_buckets_and_hasher(buckets, fingerprint_bits, PortableHasher::default())
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

impl<S: KeyHasher> CuckooFilter<S> {
    /// [`with_fpr`](CuckooFilter::with_fpr) with a hasher of your choice:
    /// any [`std::hash::BuildHasher`], a seeded
    /// [`PortableHasher`], or any other
    /// [`KeyHasher`].
    ///
    /// # Errors
    ///
    /// As [`with_fpr`](CuckooFilter::with_fpr).
    pub fn with_fpr_and_hasher(expected_items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let bits = widen_for_copies(expected_items, fingerprint_bits_for(fpr)?);
        let buckets = buckets_for(expected_items, bits)?;
        Self::allocate(buckets, bits, hasher, "expected_items", expected_items)
    }

    /// [`with_capacity`](CuckooFilter::with_capacity) with a hasher of your
    /// choice.
    ///
    /// # Errors
    ///
    /// As [`with_capacity`](CuckooFilter::with_capacity).
    pub fn with_capacity_and_hasher(
        expected_items: usize,
        fingerprint_bits: u32,
        hasher: S,
    ) -> Result<Self, Error> {
        check_fingerprint_bits(fingerprint_bits)?;
        let buckets = buckets_for(expected_items, fingerprint_bits)?;
        Self::allocate(
            buckets,
            fingerprint_bits,
            hasher,
            "expected_items",
            expected_items,
        )
    }

    /// [`with_buckets`](CuckooFilter::with_buckets) with a hasher of your
    /// choice.
    ///
    /// # Errors
    ///
    /// As [`with_buckets`](CuckooFilter::with_buckets).
    pub fn with_buckets_and_hasher(
        buckets: usize,
        fingerprint_bits: u32,
        hasher: S,
    ) -> Result<Self, Error> {
        let bits = check_fingerprint_bits(fingerprint_bits)?;
        Self::allocate(buckets, bits, hasher, "buckets", buckets)
    }

    /// Adds one copy of `item`.
    ///
    /// # Errors
    ///
    /// [`Error::Full`] when the victim slot is occupied (the table is
    /// full); [`Error::TooManyCopies`] when `item` already has
    /// [`MAX_COPIES`] copies. A failed insert changes nothing.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, item: &T) -> Result<(), Error> {
        self.cuckoo.insert_mixed(self.hasher.mixed_hash(item))
    }

    /// Adds `item` unless it is (probably) present already: `Ok(true)` if it
    /// was added, `Ok(false)` if the filter already reported it present (an
    /// absent item that is a false positive is therefore not added either).
    ///
    /// After `Ok(false)` nothing of `item` was stored, so do not
    /// [`remove`](Self::remove) it on that insert's account: the remove would
    /// take the fingerprint that made it look present, which may be another
    /// item's. Where removes follow, use [`insert`](Self::insert), which
    /// stores a copy every time.
    ///
    /// # Errors
    ///
    /// [`Error::Full`] as [`insert`](Self::insert); never
    /// [`Error::TooManyCopies`].
    #[inline]
    pub fn insert_unique<T: Hash + ?Sized>(&mut self, item: &T) -> Result<bool, Error> {
        self.cuckoo
            .insert_unique_mixed(self.hasher.mixed_hash(item))
    }

    /// Whether `item` may be present: `false` means it was never inserted (or
    /// was removed).
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.cuckoo.contains_mixed(self.hasher.mixed_hash(item))
    }

    /// Removes one copy of `item`: `true` if one was removed, `false` if
    /// nothing changed. See the type docs on removing items never inserted.
    #[inline]
    pub fn remove<T: Hash + ?Sized>(&mut self, item: &T) -> bool {
        self.cuckoo.remove_mixed(self.hasher.mixed_hash(item))
    }

    /// Items held: successful inserts minus successful removes.
    pub fn len(&self) -> usize {
        self.cuckoo.len
    }

    /// Whether the filter holds no item.
    pub fn is_empty(&self) -> bool {
        self.cuckoo.len == 0
    }

    /// [`insert`](Self::insert) for a key already hashed to 64 bits, by the
    /// caller or by [`KeyHasher::hash_key`]: `insert(&k)` and
    /// `insert_hash(self.hasher().hash_key(&k))` store the same fingerprint
    /// in the same place. The hash is mixed first, so sequential or shifted
    /// ids do as well as random ones.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> Result<(), Error> {
        self.cuckoo.insert_mixed(mix64(hash))
    }

    /// [`insert_unique`](Self::insert_unique) for a pre-hashed key.
    ///
    /// # Errors
    ///
    /// As [`insert_unique`](Self::insert_unique).
    #[inline]
    pub fn insert_unique_hash(&mut self, hash: u64) -> Result<bool, Error> {
        self.cuckoo.insert_unique_mixed(mix64(hash))
    }

    /// [`contains`](Self::contains) for a pre-hashed key (see
    /// [`insert_hash`](Self::insert_hash)).
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.cuckoo.contains_mixed(mix64(hash))
    }

    /// [`remove`](Self::remove) for a pre-hashed key (see
    /// [`insert_hash`](Self::insert_hash)).
    #[inline]
    pub fn remove_hash(&mut self, hash: u64) -> bool {
        self.cuckoo.remove_mixed(mix64(hash))
    }

    /// The size of the table in bytes: `4 · f · buckets` bits rounded up to
    /// whole bytes, plus 7 padding bytes, plus the alternate offsets of
    /// every fingerprint (`4 · 2^f` bytes) where the table keeps them (in
    /// every table of 4- to 6-bit fingerprints, and in wider ones where they
    /// are at most 1/128 of the buckets' space).
    pub fn memory_bytes(&self) -> usize {
        self.cuckoo.table.memory_bytes()
    }

    /// Slots in the table: 4 per bucket. Not how many items fit: inserts
    /// meet [`Error::Full`] a little before every slot is used, and the
    /// sizing constructors promise `expected_items`, not this.
    pub fn slots(&self) -> usize {
        self.cuckoo.table.buckets() * SLOTS
    }

    /// The fingerprint width in bits (4 to 16).
    pub fn fingerprint_bits(&self) -> u32 {
        self.cuckoo.table.fingerprint_bits()
    }

    /// Whether the victim slot is occupied, so that every insert fails with
    /// [`Error::Full`] until a remove frees room.
    pub fn is_full(&self) -> bool {
        self.cuckoo.victim.fingerprint != 0
    }

    /// The false-positive rate of the filter as it is now, from its load:
    /// an absent item is compared with the occupied slots of two buckets
    /// (`8 · load` on average), each a false match with probability
    /// `1 / (2^f − 1)`, so the rate is `1 − (1 − 1/(2^f − 1))^(8 · load)`.
    /// It grows with the load, up to the rate
    /// [`with_fpr`](CuckooFilter::with_fpr) promises at `expected_items`.
    ///
    /// ```
    /// let mut filter = cuckoo::CuckooFilter::with_fpr(100_000, 0.01)?;
    /// assert_eq!(filter.estimated_fpr(), 0.0);
    /// for i in 0..100_000u64 {
    ///     filter.insert(&i)?;
    /// }
    /// let estimate = filter.estimated_fpr(); // 0.74 % at 95 % load, f = 10
    /// assert!((0.007..0.0075).contains(&estimate), "{estimate}");
    /// // 200,000 absent items: 1,480 ± 38 (binomial σ) false positives
    /// // expected; 5σ is 190.
    /// let hits = (100_000..300_000u64).filter(|i| filter.contains(i)).count();
    /// assert!((hits as f64 - estimate * 200_000.0).abs() < 190.0, "{hits}");
    /// # Ok::<(), cuckoo::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        let values = f64::from(self.cuckoo.table.fingerprint_bits()).exp2() - 1.0;
        let compared = 2.0 * SLOTS as f64 * self.cuckoo.len as f64 / self.slots() as f64;
        1.0 - (1.0 - 1.0 / values).powf(compared)
    }

    /// Removes every item, keeping the table's shape and the hasher: the
    /// filter is then equal to a new one of the same shape, eviction
    /// generator included, so the same inserts give the same table again.
    ///
    /// ```
    /// let mut filter = cuckoo::CuckooFilter::with_fpr(1_000, 0.01)?;
    /// filter.insert("a")?;
    /// filter.clear();
    /// assert!(filter.is_empty() && !filter.contains("a"));
    /// assert_eq!(filter, cuckoo::CuckooFilter::with_fpr(1_000, 0.01)?);
    /// # Ok::<(), cuckoo::Error>(())
    /// ```
    pub fn clear(&mut self) {
        self.cuckoo.table.clear();
        self.cuckoo.len = 0;
        self.cuckoo.victim = Victim::EMPTY;
        self.cuckoo.rng = SplitMix64::seed_from_u64(EVICTION_SEED);
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }
}

impl<S> CuckooFilter<S> {
    /// An empty filter of `buckets` buckets of `bits`-bit fingerprints (a
    /// checked width), as [`Cuckoo::allocate`].
    fn allocate(
        buckets: usize,
        bits: u32,
        hasher: S,
        parameter: &'static str,
        value: usize,
    ) -> Result<Self, Error> {
        let flat = |table_bytes| Flat::new(buckets, bits, table_bytes);
        Ok(CuckooFilter {
            cuckoo: Cuckoo::allocate(buckets, bits, flat, parameter, value)?,
            hasher,
        })
    }
}

/// The operations on mixed hashes that every public method comes down to.
impl<P: Pairing> Cuckoo<P> {
    /// An empty table of `buckets` buckets of `bits`-bit fingerprints (a
    /// checked width), paired by the rule `pairing` makes from the table's
    /// byte count. An allocation failure names the caller's `parameter` and
    /// its `value`, not the byte count. The bucket count is checked as the
    /// caller's `buckets`: only `with_buckets` passes one that can fail the
    /// check, since [`buckets_for`] stays within [`MAX_TABLE_BITS`].
    pub(crate) fn allocate(
        buckets: usize,
        bits: u32,
        pairing: impl FnOnce(usize) -> P,
        parameter: &'static str,
        value: usize,
    ) -> Result<Self, Error> {
        let bytes = checked_bytes(buckets, bits, "buckets")?;
        let bytes = filter_core::memory::zeroed_vec(bytes, parameter).map_err(|_| {
            Error::invalid(
                parameter,
                value,
                format_args!("small enough that a table of {bytes} bytes can be allocated"),
            )
        })?;
        let pairing = pairing(bytes.len());
        Ok(Cuckoo::with_table(Table::with_pairing(
            bytes, buckets, bits, pairing,
        )))
    }

    /// An empty filter's state around `table` (whose slots are all empty).
    pub(crate) fn with_table(table: Table<P>) -> Self {
        Cuckoo {
            table,
            len: 0,
            victim: Victim::EMPTY,
            rng: SplitMix64::seed_from_u64(EVICTION_SEED),
        }
    }

    /// The bucket and fingerprint of a mixed hash: the bucket from its high
    /// bits (multiply-shift), the fingerprint from its low 32 bits.
    #[inline]
    pub(crate) fn locate(&self, mixed: u64) -> (usize, u64) {
        (
            reduce(mixed, self.table.buckets()),
            self.table.fingerprint(mixed),
        )
    }

    /// Inserts the item of mixed hash `mixed`.
    pub(crate) fn insert_mixed(&mut self, mixed: u64) -> Result<(), Error> {
        if self.victim.fingerprint != 0 {
            return Err(Error::Full);
        }
        let (first, fp) = self.locate(mixed);
        // Past half load the first bucket is full often enough that reading
        // both buckets at once pays; below it, the second read is mostly
        // wasted. A branch on the load, taken the same way for long runs of
        // inserts, so always predicted.
        let both_read = self.len > self.table.buckets() * (SLOTS / 2);
        let placed = if both_read {
            let second = self.table.alt(first, fp);
            self.table.try_put_either(first, second, fp)
        } else {
            self.table.try_put(first, fp)
        };
        if placed {
            self.len += 1;
            return Ok(());
        }
        self.insert_past_full(first, fp, both_read)
    }

    /// The rest of an insert whose first bucket is full, and whose second
    /// is too if `second_full` (both were read at once). Out of line, so
    /// that the common insert stays a few dozen instructions: an insert that
    /// misses the cache waits on its load, and how many the CPU overlaps is
    /// set by how many instructions each one holds.
    #[inline(never)]
    fn insert_past_full(&mut self, first: usize, fp: u64, second_full: bool) -> Result<(), Error> {
        let second = self.table.alt(first, fp);
        if !second_full && self.table.try_put(second, fp) {
            self.len += 1;
            return Ok(());
        }
        // Both buckets are full. If all their slots already hold this
        // fingerprint, evicting can only shuffle copies between the two:
        // refuse before changing anything.
        let copies = if first == second {
            self.table.count(first, fp) * 2
        } else {
            self.table.count(first, fp) + self.table.count(second, fp)
        };
        if copies as usize >= MAX_COPIES {
            return Err(Error::TooManyCopies { limit: MAX_COPIES });
        }
        if !self.table.place_nearby(first, second, fp) {
            let start = if self.rng.next_u32() & 1 == 0 {
                first
            } else {
                second
            };
            self.kick(start, fp);
        }
        self.len += 1;
        Ok(())
    }

    /// Places `fp`, whose buckets are both full and for which no chain of
    /// two moves leads to a free slot (`Table::place_nearby`), by evicting
    /// residents along a random walk that starts at `bucket`, one of its
    /// buckets chosen at random. Each step first looks one move
    /// ahead: if a resident of the current bucket can move to its other
    /// bucket, it does and `fp` takes its slot. Otherwise a random resident
    /// is evicted, and the walk continues from its other bucket (full, as
    /// the look-ahead just saw). After [`MAX_KICKS`] evictions a bounded
    /// breadth-first search looks for a chain of moves to a free slot (see
    /// `search.rs`); only if that fails too does the fingerprint in hand go
    /// to the (empty) victim slot, so nothing is lost.
    fn kick(&mut self, mut bucket: usize, mut fp: u64) {
        for _ in 0..MAX_KICKS {
            if self.table.put_by_moving_one(bucket, fp) {
                return;
            }
            // The top two bits of a 32-bit draw: a uniform slot in 0..4.
            let slot = self.rng.next_u32() >> 30;
            fp = self.table.swap(bucket, slot, fp);
            bucket = self.table.alt(bucket, fp);
        }
        if self
            .table
            .place_by_search(bucket, fp, INSERT_SEARCH_BUCKETS)
        {
            return;
        }
        self.victim = Victim {
            bucket,
            fingerprint: fp,
        };
    }

    /// Inserts the item of mixed hash `mixed` unless it tests present.
    pub(crate) fn insert_unique_mixed(&mut self, mixed: u64) -> Result<bool, Error> {
        if self.contains_mixed(mixed) {
            return Ok(false);
        }
        self.insert_mixed(mixed).map(|()| true)
    }

    /// Whether the item of mixed hash `mixed` may be present.
    #[inline]
    #[allow(unsafe_code)]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        // The victim slot is empty except in a full table. Testing it first
        // is one predicted branch, and the lookup proper then keeps nothing
        // live for the victim.
        if self.victim.fingerprint != 0 {
            return self.contains_mixed_with_victim(mixed);
        }
        let (first, fp) = self.locate(mixed);
        let second = self.table.alt(first, fp);
        // SAFETY: `first = reduce(_, m) < m` (m ≥ 1), and `alt` maps a
        // bucket `< m` to a bucket `< m`.
        unsafe { self.table.either_has(first, second, fp) }
    }

    /// [`contains_mixed`](Self::contains_mixed) while the victim slot is
    /// occupied. Out of line: it runs only in a full table, and inlined it
    /// would make every other lookup longer.
    #[cold]
    #[inline(never)]
    #[allow(unsafe_code)]
    fn contains_mixed_with_victim(&self, mixed: u64) -> bool {
        let (first, fp) = self.locate(mixed);
        let second = self.table.alt(first, fp);
        // SAFETY: as in `contains_mixed`.
        let in_table = unsafe { self.table.either_has(first, second, fp) };
        // The victim's buckets are {v, alt(v, fp)}; they are this item's
        // buckets iff v is one of them (alt depends on fp alone).
        let in_victim = self.victim.fingerprint == fp
            && (self.victim.bucket == first || self.victim.bucket == second);
        in_table | in_victim
    }

    /// Removes one copy of the item of mixed hash `mixed`.
    ///
    /// Always inlined: one copy serves every hasher's filter, and as a
    /// function of several callers the compiler left it out of line in
    /// loops where a copy per hasher had been inlined.
    #[inline(always)]
    pub(crate) fn remove_mixed(&mut self, mixed: u64) -> bool {
        // As in `contains_mixed`: the common remove carries nothing for the
        // victim slot.
        if self.victim.fingerprint != 0 {
            return self.remove_mixed_with_victim(mixed);
        }
        let (first, fp) = self.locate(mixed);
        let second = self.table.alt(first, fp);
        if !self.table.remove_from_either(first, second, fp) {
            return false;
        }
        self.len -= 1;
        true
    }

    /// [`remove_mixed`](Self::remove_mixed) while the victim slot is
    /// occupied.
    #[cold]
    #[inline(never)]
    fn remove_mixed_with_victim(&mut self, mixed: u64) -> bool {
        let (first, fp) = self.locate(mixed);
        let second = self.table.alt(first, fp);
        self.remove_in(first, second, fp)
    }

    /// Whether `fp` is in bucket `first` or `second`, a pair of this table
    /// (`second = alt(first, fp)`), or in the victim slot with one of them:
    /// [`contains_mixed`](Self::contains_mixed) for a pair found already.
    ///
    /// # Panics
    ///
    /// If a bucket is `≥ buckets`: a bug in this crate, never a user input.
    #[inline]
    #[allow(unsafe_code)]
    pub(crate) fn contains_in(&self, first: usize, second: usize, fp: u64) -> bool {
        let buckets = self.table.buckets();
        assert!(first < buckets && second < buckets);
        // SAFETY: both buckets are `< buckets` (asserted).
        let in_table = unsafe { self.table.either_has(first, second, fp) };
        // Stored fingerprints are never 0, so an empty victim slot never
        // matches.
        let in_victim = self.victim.fingerprint == fp
            && (self.victim.bucket == first || self.victim.bucket == second);
        in_table | in_victim
    }

    /// Removes one copy of `fp` from bucket `first` or `second`, a pair of
    /// this table, or from the victim slot if it holds `fp` with one of
    /// them: [`remove_mixed`](Self::remove_mixed) for a pair found already.
    /// `false`, with nothing changed, if none holds it.
    pub(crate) fn remove_in(&mut self, first: usize, second: usize, fp: u64) -> bool {
        let victim = self.victim;
        if victim.fingerprint == fp && (victim.bucket == first || victim.bucket == second) {
            self.victim = Victim::EMPTY;
            self.len -= 1;
            return true;
        }
        if !self.table.remove_from_either(first, second, fp) {
            return false;
        }
        self.len -= 1;
        // A slot is free now: search for a chain of moves that puts the
        // victim back. If none is found the victim stays where it is.
        if victim.fingerprint != 0
            && self.table.place_by_search(
                victim.bucket,
                victim.fingerprint,
                REINSERT_SEARCH_BUCKETS,
            )
        {
            self.victim = Victim::EMPTY;
        }
        true
    }
}

/// The fingerprint width for `fpr`, within what the table supports.
pub(crate) fn fingerprint_bits_for(fpr: f64) -> Result<u32, Error> {
    let bits = sizing::cuckoo_fingerprint_bits(fpr, SLOTS as u32)?;
    if bits > MAX_FINGERPRINT_BITS {
        return Err(Error::invalid(
            "fpr",
            fpr,
            "at least 8 / 2^16 = 0.0001220703125 (the 16-bit fingerprint limit)",
        ));
    }
    Ok(bits.max(MIN_FINGERPRINT_BITS))
}

/// How many (bucket pair, fingerprint) classes `expected_items` distinct
/// items are expected to give more than [`MAX_COPIES`] members, in a table
/// sized by [`buckets_for`]. Such a class cannot be held: its ninth insert
/// is [`Error::Full`] however empty the rest of the table is.
///
/// With an even bucket count `m` there are `(2^f − 1) · m / 2` classes,
/// equally likely, so a class has about Poisson(λ) members with
/// `λ = n / ((2^f − 1) · m / 2) = 8 · load / (2^f − 1)`, and there are
/// `n / λ` classes. At 4 bits (λ ≈ 0.43) that is about `2 · 10^-9 · n`.
fn overfull_classes(expected_items: usize, fingerprint_bits: u32) -> f64 {
    let lambda = 2.0 * SLOTS as f64 * target_load(fingerprint_bits)
        / ((1u64 << fingerprint_bits) - 1) as f64;
    // P(X > 8) summed upwards from the first term (the terms fall fast for
    // λ < 1; the complement 1 − P(X ≤ 8) would cancel catastrophically).
    let mut term = (-lambda).exp();
    let limit = MAX_COPIES as u32;
    for k in 1..=limit + 1 {
        term *= lambda / f64::from(k);
    }
    let mut tail = 0.0;
    for k in limit + 2..limit + 40 {
        tail += term;
        term *= lambda / f64::from(k);
    }
    expected_items as f64 / lambda * tail
}

/// `fingerprint_bits`, widened while `expected_items` distinct items would
/// be likely (an expected 1 in 1,000 or more) to fill some class past
/// [`MAX_COPIES`]: at 4 bits beyond about 480,000 items, at 5 beyond about
/// 53 million, at 6 beyond about 10^10, at 7 beyond about 2 · 10^12. A
/// wider fingerprint only lowers the false-positive rate.
fn widen_for_copies(expected_items: usize, fingerprint_bits: u32) -> u32 {
    let mut bits = fingerprint_bits;
    while bits < MAX_FINGERPRINT_BITS && overfull_classes(expected_items, bits) >= 1e-3 {
        bits += 1;
    }
    bits
}

/// Checks a fingerprint width given by the caller.
pub(crate) fn check_fingerprint_bits(bits: u32) -> Result<u32, Error> {
    sizing::check_range(
        "fingerprint_bits",
        bits,
        MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS,
    )
}

/// The most bits a table may have on this target: [`sizing::MAX_BITS`]
/// (2^46), or `usize::MAX` where a `usize` cannot count that many bits (a
/// table's bit offsets are `usize`), as on 32-bit targets.
const MAX_TABLE_BITS: u64 = if (usize::MAX as u64) < sizing::MAX_BITS {
    usize::MAX as u64
} else {
    sizing::MAX_BITS
};

/// [`MAX_TABLE_BITS`] in words, for error messages.
const MAX_TABLE_BITS_TEXT: &str = if (usize::MAX as u64) < sizing::MAX_BITS {
    "usize::MAX bits on this target"
} else {
    "2^46 bits"
};

/// Buckets for `expected_items` at [`TARGET_LOAD`].
pub(crate) fn buckets_for(expected_items: usize, fingerprint_bits: u32) -> Result<usize, Error> {
    sizing::check_items(expected_items)?;
    let n = expected_items as f64;
    let load = target_load(fingerprint_bits);
    // Small tables fill unevenly (a few unlucky buckets decide), so they get
    // an additive margin that vanishes relative to large ones.
    let buckets = (n / (SLOTS as f64 * load) + MARGIN * n.sqrt()).ceil();
    // The most buckets of this width a table of at most MAX_TABLE_BITS
    // holds, made even so that rounding up to even below stays within it.
    // (Exact as a float: at most 2^42.)
    let max_buckets = (MAX_TABLE_BITS / (SLOTS as u64 * u64::from(fingerprint_bits))) & !1;
    if buckets > max_buckets as f64 {
        // The largest n with n / (4 · load) + √n ≤ max_buckets, a quadratic
        // in √n: the allowed range, in the caller's terms.
        let a = 1.0 / (SLOTS as f64 * load);
        let root = ((1.0 + 4.0 * a * max_buckets as f64).sqrt() - 1.0) / (2.0 * a);
        return Err(Error::invalid(
            "expected_items",
            expected_items,
            format_args!(
                "between 1 and about {:.0} for {fingerprint_bits}-bit fingerprints \
                 (tables of at most {MAX_TABLE_BITS_TEXT})",
                (root * root).floor()
            ),
        ));
    }
    // Even, so that every item has two distinct buckets (see `Table::alt`).
    let buckets = buckets as usize;
    Ok(buckets + buckets % 2)
}

/// The byte count for a table, or an error naming `parameter`.
pub(crate) fn checked_bytes(
    buckets: usize,
    fingerprint_bits: u32,
    parameter: &'static str,
) -> Result<usize, Error> {
    let allowed = || {
        format!(
            "between 1 and {} for {fingerprint_bits}-bit fingerprints (tables of at most {MAX_TABLE_BITS_TEXT})",
            MAX_TABLE_BITS / (SLOTS as u64 * u64::from(fingerprint_bits))
        )
    };
    let fits = (buckets as u64)
        .checked_mul(SLOTS as u64 * u64::from(fingerprint_bits))
        .is_some_and(|bits| bits <= MAX_TABLE_BITS);
    match bytes_for(buckets, fingerprint_bits) {
        Some(bytes) if buckets > 0 && fits => Ok(bytes),
        _ => Err(Error::invalid(parameter, buckets, allowed())),
    }
}

// Its key counts are past a 32-bit `usize`.
#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use super::*;

    #[test]
    fn positions_come_from_the_mixed_hash() {
        // The bucket from the high bits of the mixed hash (multiply-shift),
        // the fingerprint from its low 32 bits; `*_hash` mixes first.
        let filter = CuckooFilter::with_buckets(1000, 12).unwrap();
        for i in 0..1000u64 {
            let m = mix64(i);
            let expected = (reduce(m, 1000), filter_core::fingerprint(m, 12));
            assert_eq!(filter.cuckoo.locate(m), expected, "mixed hash {m:#x}");
        }
    }

    #[test]
    fn widening_thresholds_are_the_documented_ones() {
        // The item counts at which each narrow width is widened, as the
        // docs of `with_fpr` and `widen_for_copies` state them.
        let first_widened = |bits: u32| {
            let (mut lo, mut hi) = (1usize, 1usize << 46);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if widen_for_copies(mid, bits) > bits {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo
        };
        let [four, five, six, seven] = [4, 5, 6, 7].map(first_widened);
        println!("widened from 4 bits at {four}, 5 at {five}, 6 at {six}, 7 at {seven}");
        assert!((400_000..600_000).contains(&four), "{four}");
        assert!((40_000_000..70_000_000).contains(&five), "{five}");
        assert!((5_000_000_000..20_000_000_000).contains(&six), "{six}");
        assert!(
            (1_000_000_000_000..5_000_000_000_000).contains(&seven),
            "{seven}"
        );
        // Wider fingerprints are never widened within the table-size limit.
        for bits in 8..=16 {
            assert_eq!(widen_for_copies(1 << 46, bits), bits);
        }
        // At 4 bits the model gives about 2 · 10^-9 per item (λ ≈ 0.43).
        let per_item = overfull_classes(400_000_000, 4) / 400_000_000.0;
        assert!((1.5e-9..3e-9).contains(&per_item), "{per_item}");
    }

    /// The measurement behind the one alternate-offset rule (`table.rs`):
    /// the load at the first `Full` for every width, with `mix64(fp)` and
    /// with the golden-ratio rule `fp · φ`. Run with
    /// `cargo test --release -p cuckoo --lib first_full_by_rule -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement of a few minutes; its figures are in the commit"]
    fn first_full_by_rule() {
        use crate::table::GOLDEN_FOR_MEASUREMENT;
        use std::sync::atomic::Ordering;
        for golden in [false, true] {
            GOLDEN_FOR_MEASUREMENT.store(golden, Ordering::Relaxed);
            for items in [479_000usize, 5_000_000] {
                let mut row = String::new();
                for bits in MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS {
                    let mut filter = CuckooFilter::with_capacity(items, bits).unwrap();
                    let mut i = 0u64;
                    while filter.insert_hash(i ^ 0x5EED).is_ok() {
                        i += 1;
                    }
                    let load = filter.len() as f64 / filter.slots() as f64;
                    row += &format!(" {bits}:{load:.3}/{:.3}", i as f64 / items as f64);
                }
                println!("golden {golden} n {items}:{row}");
            }
        }
        GOLDEN_FOR_MEASUREMENT.store(false, Ordering::Relaxed);
    }
}
