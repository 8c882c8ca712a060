//! [`Ribbon`]: a static filter at any false-positive rate from 1/2 down to
//! 2^-32, within a few percent of the space bound log2(1/p) bits per key
//! (Dillinger and Walzer, "Ribbon filter: practically smaller than Bloom and
//! Xor", 2021).
//!
//! # How it works
//!
//! Each key is a linear equation over GF(2): 128 consecutive unknowns (its
//! *band*, starting at a block of 32 slots taken from its hash) with pseudo-random
//! coefficients, and a right-hand side, its `r`-bit fingerprint. The table
//! stores one solution of the system, `r` bits per slot, for a little more
//! slots than keys. A lookup evaluates the key's equation (an and, and a
//! parity, per bit of the fingerprint) and compares with its fingerprint: a
//! key of the set always matches; any other key matches with probability
//! 2^-r. Banding (Gaussian elimination that keeps every row inside its band)
//! solves the system in about linear time; see `band.rs`.
//!
//! # Design decisions
//!
//! - **Standard ribbon, not homogeneous.** A standard ribbon stores
//!   fingerprints as right-hand sides, so its false-positive rate is
//!   exactly 2^-r whatever the load: the table can be packed to within a
//!   few percent of the key count, at the price of a construction that can
//!   fail and is then retried with a new seed. Homogeneous ribbon (all
//!   right-hand sides zero, as the `pleat` crate builds) never fails, but
//!   its rate rises above 2^-r as the table fills, so it needs more slack
//!   for the same rate. The rate targets here are promises, so the rate is
//!   what must be exact.
//! - **Band width 128.** The slack a standard ribbon needs grows with
//!   the number of keys and shrinks with the band width: with 64-bit bands
//!   it passes the 8 % overhead this filter promises near a million keys,
//!   with 128-bit bands it stays near 5 % at 10^7 keys (RocksDB's
//!   measurements agree, and `shape.rs` has the fit used here).
//! - **Interleaved, column-major solution in 32-slot blocks; bands start
//!   at block boundaries.** Each block of 32 slots stores one 32-bit word
//!   per fingerprint bit, and a band starts at a block's first slot, so it
//!   covers exactly four blocks: its coefficients are four 32-bit words used
//!   as they are (no shifting), and a lookup reads one contiguous run of
//!   `4 × columns` words, 16 bytes a column, the least a 128-slot band can
//!   need. Bands starting at any slot (64-slot blocks, three per band) read
//!   half as much again and take more instructions to shift coefficients
//!   into place; starts at block boundaries cost about one percent more
//!   slots for the same chance that construction succeeds, which the
//!   sizing in `shape.rs` includes, and longer eliminations (keys of one
//!   block start at one slot), which `band.rs` makes cheap by sweeping the
//!   slots in order with all pending equations at once.
//! - **Fractional columns.** Blocks can hold different numbers of
//!   columns: the first blocks store `r` bits per slot and the rest
//!   `r + 1`, in the proportion that meets the target rate. So 1 % costs
//!   about 6.7 bits per slot, not the 7 of a whole-bit fingerprint, and any
//!   rate in [2^-32, 1/2] is served.
//! - **Lookups evaluate every column, eight or sixteen at a time, without
//!   branching.** On x86-64 CPUs with AVX2 and BMI2 (detected once, when
//!   the filter is built or loaded), one register holds eight columns'
//!   words of a block, and eight columns' parities take about 25
//!   instructions; on CPUs with AVX-512 and its population count, one
//!   512-bit step takes sixteen columns in about fifteen (`simd.rs`, as
//!   inline assembly, since the minimum Rust has no AVX-512 intrinsics). A
//!   lookup's cost is mostly instructions while the table is in cache, and
//!   the fewer it has, the more lookups overlap while it is not. The
//!   kernel for the filter's column counts is chosen once and called
//!   through a pointer, taking its arguments in registers; everything
//!   before it is inlined into the caller, so a loop of lookups keeps its
//!   constants in registers. Stopping at the first column that differs
//!   makes misses cheaper, but a mix of members and non-members slower:
//!   each stop is a branch the CPU cannot predict. Other CPUs take a
//!   portable loop that does stop early; all give the same answers.
//! - **Every band at one stride.** The few bands that start just below
//!   the first block with one more column would cover blocks of both
//!   column counts. In memory (not in the bytes), a copy of the first
//!   columns of the three blocks after the lower ones follows the lower
//!   blocks, so those bands read four blocks at one stride too: every
//!   lookup finds its band's first word with one branch-free formula, for
//!   `3 × columns` words more.
//! - **The first seed costs nothing at lookup.** Attempt 0 takes a key's
//!   mixed hash as it is (it is uniform already); only a filter built with
//!   a later seed mixes it again with that seed.
//! - **Construction sweeps the table once.** Keys are ordered by start
//!   block (a counting sort); banding then goes slot by slot, and each
//!   slot's coefficient is eliminated from all pending equations (a few
//!   dozen) in one vectorized pass of xors, instead of one key at a time
//!   down a chain of dependent loads and unpredictable branches. The
//!   solution is the one any elimination order gives. Back substitution
//!   with AVX2 solves all columns of a slot at once, one byte a slot for up
//!   to eight columns, two for up to sixteen.
//! - **Duplicates cost nothing.** A key given twice eliminates to an empty
//!   equation with an empty right-hand side and is dropped; construction
//!   carries 64 fingerprint bits (not just the stored ones) so that two
//!   distinct keys are never mistaken for a duplicate (probability 2^-64).
//! - **An empty filter answers `false`.** Built from no keys, the table
//!   holds nothing a key could match, so every lookup says no.
//! - **A view reads the bytes as they are.** [`RibbonRef`] queries the
//!   bytes of [`Ribbon::to_bytes`] in place (`view.rs`): they have no
//!   shadow and no padding, but a band whose blocks have one column count
//!   and whose kernel reads end inside the bytes is at one stride there
//!   too, so on x86-64 with AVX2 the view runs the owned filter's column
//!   kernel on the bytes for it, at about the owned filter's cost. The
//!   others (across the change of column count, the last few bands) and
//!   other hosts take a safe loop that finds the four blocks with
//!   `Shape::first_word` and reads each word as bounds-checked
//!   little-endian bytes. It answers as the owned filter either way.
//! - **Bounded retries.** An attempt fails for a few percent of key sets;
//!   after [`MAX_ATTEMPTS`](band::MAX_ATTEMPTS) failed seeds the build
//!   returns [`Error::ConstructionFailed`] instead of looping.

mod band;
mod batch;
mod pending;
mod row;
#[cfg(feature = "serde")]
mod serde_impls;
mod shape;
#[cfg(target_arch = "x86_64")]
mod simd;
mod solution;
mod view;

use std::hash::Hash;

use filter_core::{Error, Filter, HasherProbe, KeyHasher, PortableHasher, mix64};

pub use shape::MAX_RIBBON_KEYS;
use shape::Shape;
use solution::Solution;
pub use view::RibbonRef;

/// A static standard ribbon filter: built once from all keys, at any
/// false-positive rate from 1/2 down to 2^-32, in about
/// `1.07 × log2(1/fpr)` bits per key.
///
/// At 1 % it takes about 7 bits per key (a Bloom filter needs 9.6, a
/// [`BinaryFuse8`](crate::BinaryFuse8) 9 for 0.39 %); at 0.1 % about 10.6.
///
/// # Invariants
///
/// Every distinct key hash the filter was built from satisfies its
/// equation: no false negatives. A filter built from no keys answers
/// `false` for every key. The table never changes after construction.
///
/// # Examples
///
/// ```
/// use xor_filter::Ribbon;
///
/// let keys: Vec<u64> = (0..1_000_000).collect();
/// let filter = Ribbon::from_keys_with_fpr(&keys, 0.01)?;
/// assert!(keys.iter().all(|k| filter.contains(k)));
/// // log2(100) = 6.64 bits is the bound; at most 1.08 times that.
/// assert!(filter.bits_per_key() <= 1.08 * 6.644, "{}", filter.bits_per_key());
///
/// // At most 1 %: 10^6 non-members give at most 10^4 ± 99.5 (binomial σ);
/// // the target plus 4σ allows 10 398.
/// let fp = (1_000_000..2_000_000u64).filter(|k| filter.contains(k)).count();
/// assert!(fp <= 10_398, "{fp}");
/// # Ok::<(), xor_filter::Error>(())
/// ```
///
/// At 0.1 %, with batched lookups ([`BatchContains`](crate::BatchContains)):
///
/// ```
/// use xor_filter::{BatchContains, Ribbon};
///
/// let keys: Vec<u64> = (0..1_000_000).collect();
/// let filter = Ribbon::from_keys_with_fpr(&keys, 0.001)?;
/// assert!(filter.contains_batch(&keys).all(|hit| hit));
/// // log2(1000) = 9.97 bits is the bound; at most 1.08 times that.
/// assert!(filter.bits_per_key() <= 1.08 * 9.966, "{}", filter.bits_per_key());
///
/// // At most 0.1 %: 10^6 non-members give at most 1000 ± 31.6 (binomial
/// // σ); the target plus 4σ allows 1126.
/// let fp = filter.contains_batch(1_000_000..2_000_000u64).filter(|&hit| hit).count();
/// assert!(fp <= 1126, "{fp}");
/// # Ok::<(), xor_filter::Error>(())
/// ```
#[derive(Clone)]
pub struct Ribbon<S = PortableHasher> {
    solution: Solution,
    hasher: S,
}

impl Ribbon<PortableHasher> {
    /// Builds the filter from `keys`, hashed with the default hasher
    /// ([`PortableHasher`]), for a false-positive rate of at most `fpr`.
    ///
    /// Duplicates are fine: equal keys (and distinct keys whose 64-bit
    /// hashes collide) count once, and [`len`](Self::len) reports the
    /// distinct hashes.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `fpr` outside [2^-32, 1/2] (or NaN),
    /// more than [`MAX_RIBBON_KEYS`] keys, or tables
    /// that cannot be allocated; [`Error::ConstructionFailed`] if every seed
    /// failed (for honest keys practically impossible).
    pub fn from_keys_with_fpr<T: Hash>(keys: &[T], fpr: f64) -> Result<Self, Error> {
        Self::from_keys_with_hasher(keys, fpr, PortableHasher::default())
    }

    /// Builds the filter from pre-hashed keys: each `u64` is a key's hash,
    /// to be queried with [`contains_hash`](Self::contains_hash). The filter
    /// mixes the hashes itself ([`mix64`]), so sequential ids work.
    ///
    /// # Errors
    ///
    /// As [`from_keys_with_fpr`](Self::from_keys_with_fpr).
    pub fn from_hashes_with_fpr(hashes: &[u64], fpr: f64) -> Result<Self, Error> {
        Self::from_hashes_with_hasher(hashes, fpr, PortableHasher::default())
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes) with the
    /// default hasher. The loaded filter answers exactly as the original.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for anything malformed (a checksum mismatch for
    /// altered, truncated or extended bytes; a message naming the field for
    /// a wrong kind or inconsistent parameters); [`Error::HasherMismatch`]
    /// when the filter was built with a hasher that hashes differently.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<S: KeyHasher> Ribbon<S> {
    /// Builds the filter from `keys`, hashed with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`from_keys_with_fpr`](Ribbon::from_keys_with_fpr).
    pub fn from_keys_with_hasher<T: Hash>(keys: &[T], fpr: f64, hasher: S) -> Result<Self, Error> {
        let mut hashes: Vec<u64> = Vec::new();
        hashes.try_reserve_exact(keys.len()).map_err(|_| {
            Error::invalid(
                "number of keys",
                keys.len(),
                "small enough that their 64-bit hashes can be allocated",
            )
        })?;
        hashes.extend(keys.iter().map(|key| hasher.mixed_hash(key)));
        Self::from_mixed(&hashes, fpr, hasher)
    }

    /// Builds the filter from hashes made by `hasher` (`hasher.hash_key(key)`),
    /// so that [`contains`](Self::contains) can be asked with keys.
    ///
    /// # Errors
    ///
    /// As [`from_keys_with_fpr`](Ribbon::from_keys_with_fpr).
    pub fn from_hashes_with_hasher(hashes: &[u64], fpr: f64, hasher: S) -> Result<Self, Error> {
        let mut mixed: Vec<u64> = Vec::new();
        mixed.try_reserve_exact(hashes.len()).map_err(|_| {
            Error::invalid(
                "number of hashes",
                hashes.len(),
                "small enough that a mixed copy can be allocated",
            )
        })?;
        mixed.extend(hashes.iter().map(|&hash| mix64(hash)));
        Self::from_mixed(&mixed, fpr, hasher)
    }

    /// Builds the filter from mixed hashes (`hasher.mixed_hash(key)`).
    fn from_mixed(mixed: &[u64], fpr: f64, hasher: S) -> Result<Self, Error> {
        let shape = Shape::for_keys(mixed.len(), fpr)?;
        Ok(Ribbon {
            solution: band::build(mixed, shape)?,
            hasher,
        })
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be
    /// queried with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](Ribbon::from_bytes).
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        let solution = Solution::from_bytes(bytes, &HasherProbe::of(&hasher))?;
        Ok(Ribbon { solution, hasher })
    }

    /// `false` means `item` was certainly not among the keys; `true` means
    /// it probably was.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_mixed(self.hasher.mixed_hash(item))
    }

    /// As [`contains`](Self::contains) for a key's hash, as
    /// `hasher.hash_key(key)` gives it (the filter's hasher is not used).
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.contains_mixed(mix64(hash))
    }

    /// The lookup of a mixed hash: what both `contains` paths meet at.
    #[inline(always)]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        self.solution.contains_mixed(mixed)
    }

    /// The number of distinct key hashes the filter was built from.
    pub fn len(&self) -> usize {
        self.solution.keys
    }

    /// Whether the filter was built from no keys (it then answers `false`
    /// for every key).
    pub fn is_empty(&self) -> bool {
        self.solution.keys == 0
    }

    /// The bytes of the solution table.
    pub fn memory_bytes(&self) -> usize {
        self.solution.memory_bytes()
    }

    /// Table bits per distinct key (the table's bits when there are none).
    pub fn bits_per_key(&self) -> f64 {
        (self.memory_bytes() * 8) as f64 / self.len().max(1) as f64
    }

    /// The false-positive rate the shape gives a key not in the set: at most
    /// the rate the filter was built for (0 for a filter of no keys).
    pub fn fpr(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.solution.shape.fpr()
        }
    }

    /// The number of slots (unknowns of the system): whole blocks of 32, a
    /// few percent more than [`len`](Self::len).
    pub fn slots(&self) -> usize {
        self.solution.shape.slots()
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Serializes the filter (layout in `docs/format-ribbon.md`).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.solution.to_bytes(&HasherProbe::of(&self.hasher))
    }
}

impl<S> std::fmt::Debug for Ribbon<S> {
    /// The shape, not the table: a table can be gigabytes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shape = &self.solution.shape;
        f.debug_struct("Ribbon")
            .field("len", &self.solution.keys)
            .field("slots", &shape.slots())
            .field("columns", &shape.columns)
            .field("upper_start", &shape.upper_start)
            .field("memory_bytes", &self.solution.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// Two filters are equal when they hold the same solution (shape, seed, key
/// count and words) and their hashers hash alike (`HasherProbe::same`):
/// then their `to_bytes` are equal too, and they answer every query alike.
impl<S: KeyHasher> PartialEq for Ribbon<S> {
    fn eq(&self, other: &Self) -> bool {
        self.solution == other.solution && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: KeyHasher> Eq for Ribbon<S> {}

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for Ribbon<S> {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        Ribbon::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        Ribbon::memory_bytes(self)
    }
}
