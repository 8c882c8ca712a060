//! [`BloomFilter`]: the classic filter of m bits and k probes.

use std::hash::{BuildHasher, Hash};

use filter_core::sizing::{self, MAX_BITS};
use filter_core::{
    AnyHashes, DefaultHashBuilder, Error, Filter, HashQuality, HasherProbe, Insert, UniformHashes,
};
use fixedbitset::FixedBitSet;

use filter_core::{BRANCH_FREE_MAX_BYTES, CubicProbes, HashedProbes, LinearProbes, ProbeSequence};

use crate::quality;

/// The largest hash count accepted: far beyond any useful rate (k = 64 is
/// already p ≈ 2^−64), small enough that a corrupt header cannot make every
/// query loop for billions of probes.
pub const MAX_HASHES: u32 = 1024;

/// Bits per storage word of `fixedbitset` on this target.
pub(crate) const WORD_BITS: usize = usize::BITS as usize;

/// A classic Bloom filter: `bits` bits, each key sets `hashes` of them.
///
/// Sized by [`with_fpr`](BloomFilter::with_fpr) at the textbook optimum,
/// m = −n ln p / (ln 2)² bits and log2(1/p) probes, **1.44 · log2(1/p)
/// bits per key**, adjusted for a whole number of probes: of the two whole
/// counts around log2(1/p), the one that meets p in fewer bits, with the
/// fewest bits that do (the textbook size with a rounded k gives 1.0039 %
/// at 1 %). That is 0.08 % more bits at 1 %, 9.59 bits per key; 14.38 at
/// p = 0.1 %; far more only above p = ½, where one probe is the fewest
/// and the formula's size would not meet p. The false-positive rate after
/// n distinct inserts is (1 − e^(−kn/m))^k ≤ p, and with a handful of keys
/// a few bits more keep the rate averaged over key sets at p too (see
/// [`filter_core::sizing::bloom_shape`] and "Small filters" below).
///
/// All k positions come from one 64-bit hash by double hashing in the 64-bit
/// ring ([`filter_core::probes`]), reduced to `0..bits` by multiply-shift,
/// so the bit count need not be a power of two.
///
/// **Small filters.** Plain double hashing puts a non-member's k probes on
/// a few bits for about 1/m of the keys, which adds roughly 0.4/m to the
/// rate: 1.49× the target at p = 1 % and n = 10. Filters below 64·2^k bits
/// (about 850 keys at 1 %, 4,500 at 0.1 %) therefore probe a cubic sequence
/// with a third hash value, and the smallest a hashed one (below;
/// [`probe_sequence()`](Self::probe_sequence) says which), and measure what
/// independent probes would. Even those exceed
/// the formula's rate with few keys, because a small table's fill varies
/// with its keys and the rate grows as its k-th power: at the fewest bits
/// that meet p at the mean fill (with the whole k chosen above), 1.09× the
/// target at 1 % and n = 10, 1.17× for 2 keys, 1.55× for one, and more at
/// smaller rates (1.8× for one key at 0.1 %). So
/// `with_fpr` sizes small filters by the rate averaged over key sets: one
/// key at 1 % takes 11 bits, not 10; 10 keys 98 bits, not 96; from a few
/// hundred keys the difference is a few bits. Measured over 20,000 key sets
/// at 1 %: 0.96× the target for 1 key, 0.93× for 2, 0.97× for 5, 0.98× for
/// 10; at most the target, within noise, for 1 to 50 keys at rates from
/// 10 % to 10^−4.
///
/// **The smallest filters at tiny rates.** In a table of a few dozen bits
/// probed 16 to 30 times per key the cubic sequence still puts a query's k
/// probes on only a few bits now and then (at 33 bits and 19 probes, on 8
/// bits or fewer about 20 times as often as independent probes would), and
/// such a query is a false positive about as often as one bit is set. That
/// put a floor of about 10^−6 under the rate: 2.2× the target for one key
/// at 10^−6, 26× at 10^−8. Filters below 2^(1 + ⌊3k/4⌋) bits therefore mix
/// each probe as well (the hashed sequence, format 1.3): from `with_fpr`,
/// up to 5 keys at 1 %, 53 at 10^−4, 2,278 at 10^−6, 54,694 at 10^−8. Their
/// lookups take 1.3–1.75× the time of the cubic sequence's (21 → 30 ns for
/// one key at 10^−6, 26 → 39 ns for 20,000 keys at 10^−8). Measured over
/// 20,000 key sets: 0.75× the target for one key at 10^−6, 0.66× at 10^−8,
/// 0.90× for three keys at 10^−8. Filters stored by earlier versions in
/// these sizes load with the cubic sequence they were built with, and keep
/// its excess until rebuilt.
///
/// # Hash quality
///
/// The second type parameter, `Q`, says what the filter may assume about
/// the 64-bit hashes it is given ([`filter_core::hash_quality`]). With the
/// default, [`AnyHashes`], it mixes each hash before taking probes from
/// it (the folded product above), so any `u64` may be passed to the
/// `*_hash` methods. With [`UniformHashes`], made from an empty filter by
/// [`assume_uniform_hashes`](Self::assume_uniform_hashes), the probe
/// sequence starts at the hash itself: the mix is on the path to every
/// load of a lookup, and without it lookups at 10^6 keys and 1 % took
/// 5.6 ns instead of 6.5 (`cargo xtask compare` with the mixing removed).
/// Sizes, rates with a good hasher (the default is one) and every other
/// method are the same; the bytes say which quality wrote them, and load
/// only as it ([`from_bytes_with_quality`](Self::from_bytes_with_quality)).
///
/// The promise is the caller's: ids, counters or other structured values
/// passed to `insert_hash` / `contains_hash` of a uniform filter pile up
/// on a few probe sequences. No member is ever lost, but the rate can blow
/// up: even ids 0 to 2·10^4 inserted as hashes made every odd id in that
/// range answer "present" (a seeded test, `tests/uniform.rs`).
///
/// # Invariants
///
/// `1 <= bits <= 2^46`, `1 <= hashes <= MAX_HASHES`, and storage bits past
/// `bits` are zero. The filter never forgets an inserted key: only
/// [`clear`](Self::clear) and [`intersect`](Self::intersect) unset bits.
///
/// # Examples
///
/// ```
/// use bloom::BloomFilter;
///
/// let mut filter = BloomFilter::with_fpr(1_000_000, 0.01)?;
/// assert_eq!(filter.bits(), 9_592_957);
/// assert_eq!(filter.hashes(), 7);
/// assert!((filter.bits() as f64 / 1e6 - 9.59).abs() < 0.01); // bits per key
///
/// for id in 0..1_000_000u64 {
///     filter.insert(&id);
/// }
/// assert!((0..1_000_000u64).all(|id| filter.contains(&id)));
/// let false_positives = (1_000_000..1_200_000u64).filter(|id| filter.contains(id)).count();
/// let fpr = false_positives as f64 / 200_000.0;
/// assert!(fpr < 0.0115, "{fpr}"); // 1 %, plus 5 binomial σ (σ ≈ 0.00022)
/// assert!((filter.estimated_fpr() - 0.01).abs() < 0.001);
/// # Ok::<(), bloom::Error>(())
/// ```
///
/// Keys hashed by the filter's own hasher (ahash, uniform) need no mix:
///
/// ```
/// use bloom::{BloomFilter, UniformHashes};
///
/// let mut filter: BloomFilter<_, UniformHashes> =
///     BloomFilter::with_fpr(100_000, 0.01)?.assume_uniform_hashes()?;
/// (0..100_000u64).for_each(|id| filter.insert(&id));
/// assert!((0..100_000u64).all(|id| filter.contains(&id)));
/// let false_positives = (100_000..300_000u64).filter(|id| filter.contains(id)).count();
/// let fpr = false_positives as f64 / 200_000.0;
/// assert!(fpr < 0.0115, "{fpr}"); // 1 %, plus 5 binomial σ (σ ≈ 0.00022)
///
/// // Its bytes load only as a uniform filter.
/// let bytes = filter.to_bytes();
/// assert!(BloomFilter::from_bytes(&bytes).is_err());
/// let hasher = bloom::DefaultHashBuilder::default();
/// let restored = BloomFilter::from_bytes_with_quality(&bytes, hasher, UniformHashes)?;
/// assert!(restored.contains(&42u64));
///
/// // Only an empty filter converts: its keys would be looked for elsewhere.
/// let mut used = BloomFilter::with_fpr(1_000, 0.01)?;
/// used.insert("a key");
/// assert!(used.assume_uniform_hashes().is_err());
/// # Ok::<(), bloom::Error>(())
/// ```
#[derive(Clone)]
pub struct BloomFilter<S = DefaultHashBuilder, Q = AnyHashes> {
    pub(crate) bits: FixedBitSet,
    pub(crate) hashes: u32,
    pub(crate) sequence: ProbeSequence,
    pub(crate) hasher: S,
    /// Whether the probes start from the hash or from its mix: a marker
    /// of no size, so that the choice is made when a lookup is compiled.
    pub(crate) quality: Q,
}

impl BloomFilter<DefaultHashBuilder> {
    /// A filter sized for `expected_items` distinct keys at false-positive
    /// rate `fpr`, with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items == 0`, `fpr` outside
    /// the open interval (0, 1) (NaN and infinities included) or so small
    /// (subnormal, below about 2^−1024) that it needs more than
    /// [`MAX_HASHES`] probes, or a size above 2^46 bits or that cannot be
    /// allocated.
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, DefaultHashBuilder::default())
    }

    /// A filter of exactly `bits` bits and `hashes` probes per key, with the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `bits` outside `1..=2^46` (or not
    /// allocatable) and `hashes` outside `1..=MAX_HASHES`.
    pub fn with_bits(bits: u64, hashes: u32) -> Result<Self, Error> {
        Self::with_bits_and_hasher(bits, hashes, DefaultHashBuilder::default())
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes) under the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for bytes that are not a valid classic Bloom filter;
    /// [`Error::HasherMismatch`] when the filter was built with a hasher that
    /// hashes differently from this build's default;
    /// [`Error::InvalidParameter`] naming `bits` when the table, valid, cannot
    /// be allocated.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, DefaultHashBuilder::default())
    }
}

impl<S: BuildHasher> BloomFilter<S> {
    /// As [`BloomFilter::with_fpr`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::with_fpr`].
    pub fn with_fpr_and_hasher(expected_items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        // The optimum needs log2(1/p) probes: only subnormal rates exceed
        // MAX_HASHES, and they are refused naming `fpr`.
        let (bits, hashes) = sizing::bloom_shape(expected_items, fpr, MAX_HASHES)?;
        Self::with_bits_and_hasher(bits, hashes, hasher)
            .map_err(|e| sizing::blame_items(e, "bits", bits, expected_items, fpr))
    }

    /// As [`BloomFilter::with_bits`], hashing keys with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::with_bits`].
    pub fn with_bits_and_hasher(bits: u64, hashes: u32, hasher: S) -> Result<Self, Error> {
        let bits = sizing::check_bits(bits)?;
        check_hashes(hashes)?;
        let table = allocate_bits(bits)?;
        // Allocated, so the bit count fits in usize.
        let sequence = ProbeSequence::for_table(table.len(), hashes);
        Ok(Self::from_parts(table, hashes, sequence, hasher, AnyHashes))
    }

    /// The same filter, taking positions from each hash as it is
    /// ([`UniformHashes`]) instead of mixing it first: faster lookups, for
    /// hashes that are uniform already (see the type's docs, "Hash
    /// quality"). Only an empty filter converts, since the keys of a
    /// filter with bits set sit where the mixed hashes put them.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming `assume_uniform_hashes` when a
    /// bit is set, with the number of items estimated from the fill.
    pub fn assume_uniform_hashes(self) -> Result<BloomFilter<S, UniformHashes>, Error> {
        if !self.bits.is_clear() {
            return Err(quality::not_empty(self.estimated_len()));
        }
        let BloomFilter {
            bits,
            hashes,
            sequence,
            hasher,
            quality: AnyHashes,
        } = self;
        Ok(BloomFilter::from_parts(
            bits,
            hashes,
            sequence,
            hasher,
            UniformHashes,
        ))
    }
}

impl<S: BuildHasher, Q: HashQuality> BloomFilter<S, Q> {
    /// Assembles a filter from validated parts.
    pub(crate) fn from_parts(
        bits: FixedBitSet,
        hashes: u32,
        sequence: ProbeSequence,
        hasher: S,
        quality: Q,
    ) -> Self {
        BloomFilter {
            bits,
            hashes,
            sequence,
            hasher,
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
        let len = self.bits.len();
        #[allow(unsafe_code)]
        // SAFETY: every probe sequence of a table of `len` cells yields
        // positions in `0..len`, and `len` is the bit count.
        unsafe {
            match self.sequence {
                ProbeSequence::Folded => {
                    self.insert_probes(LinearProbes::folded_for::<Q>(hash, len))
                }
                ProbeSequence::Linear => {
                    self.insert_probes_out_of_line(LinearProbes::new_for::<Q>(hash, len))
                }
                ProbeSequence::Cubic => {
                    self.insert_probes_out_of_line(CubicProbes::new_for::<Q>(hash, len))
                }
                ProbeSequence::Hashed => {
                    self.insert_probes_out_of_line(HashedProbes::new_for::<Q>(hash, len))
                }
            }
        }
    }

    /// [`insert_probes`](Self::insert_probes) for the small tables' cubic
    /// and hashed sequences and for linear tables loaded from older bytes,
    /// kept out of line so that new large (folded) tables' inserts and
    /// lookups inline one probe loop, not three: with three, lookups of 1M
    /// keys measured 5–7 % slower.
    ///
    /// # Safety
    ///
    /// As [`insert_probes`](Self::insert_probes).
    #[allow(unsafe_code)]
    #[inline(never)]
    unsafe fn insert_probes_out_of_line(&mut self, positions: impl Iterator<Item = usize>) -> bool {
        // SAFETY: this function's contract is `insert_probes`'s.
        unsafe { self.insert_probes(positions) }
    }

    /// Sets the bits of the first k `positions`; returns whether one of them
    /// was unset. One copy per probe sequence (see
    /// [`LinearProbes`] for why).
    ///
    /// The words are written without bounds checks, as lookups read them
    /// ([`test_bits`](Self::test_bits)).
    ///
    /// # Safety
    ///
    /// Every position `positions` yields must be below the bit count,
    /// `self.bits.len()`.
    #[allow(unsafe_code)]
    #[inline(always)]
    unsafe fn insert_probes(&mut self, positions: impl Iterator<Item = usize>) -> bool {
        let len = self.bits.len();
        let words = self.bits.as_mut_slice();
        let mut new = false;
        for_each_probe(positions, self.hashes as usize, |p| {
            debug_assert!(p < len);
            let mask = 1 << (p % WORD_BITS);
            // SAFETY: `p < self.bits.len()` (this function's contract), and
            // the bit set holds `self.bits.len().div_ceil(WORD_BITS)` words.
            let word = unsafe { words.get_unchecked_mut(p / WORD_BITS) };
            new |= *word & mask == 0;
            *word |= mask;
        });
        new
    }

    /// Whether the key whose 64-bit hash is `hash` may be in the set.
    ///
    /// Two shapes, chosen by table size ([`BRANCH_FREE_MAX_BYTES`], 16 MiB).
    /// A table that fits in the last-level cache of most current CPUs is
    /// probed without a data-dependent branch: all k loads overlap, and no
    /// answer is mispredicted, which is what a stream mixing members and
    /// non-members pays for an early exit (13.9 ns per lookup against 9.2 ns
    /// branch-free at 1M keys, 1 %). In a larger table a miss stops after the
    /// first two probes when either bit is unset (at the optimum half the
    /// bits are set, so three misses in four stop there), fetching two cache
    /// lines from DRAM instead of k; the remaining probes of a key that
    /// passes are checked without branching between them.
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        let early_exit = size_of_val(self.bits.as_slice()) > BRANCH_FREE_MAX_BYTES;
        self.test_hash(hash, early_exit)
    }

    /// Whether the k bits of raw hash `hash` are all set, tested as
    /// [`test_bits`](Self::test_bits) says.
    #[inline(always)]
    pub(crate) fn test_hash(&self, hash: u64, early_exit: bool) -> bool {
        let len = self.bits.len();
        #[allow(unsafe_code)]
        // SAFETY: every probe sequence of a table of `len` cells yields
        // positions in `0..len`, and `len` is the bit count.
        unsafe {
            match self.sequence {
                ProbeSequence::Folded => {
                    self.test_bits(LinearProbes::folded_for::<Q>(hash, len), early_exit)
                }
                ProbeSequence::Linear => {
                    self.test_bits_out_of_line(LinearProbes::new_for::<Q>(hash, len), early_exit)
                }
                ProbeSequence::Cubic => {
                    self.test_bits_out_of_line(CubicProbes::new_for::<Q>(hash, len), early_exit)
                }
                ProbeSequence::Hashed => {
                    self.test_bits_out_of_line(HashedProbes::new_for::<Q>(hash, len), early_exit)
                }
            }
        }
    }

    /// [`test_bits`](Self::test_bits) for the small tables' cubic and
    /// hashed sequences, kept out of line for the reason
    /// [`insert_probes_out_of_line`](Self::insert_probes_out_of_line) gives.
    ///
    /// # Safety
    ///
    /// As [`test_bits`](Self::test_bits).
    #[allow(unsafe_code)]
    #[inline(never)]
    unsafe fn test_bits_out_of_line(
        &self,
        positions: impl Iterator<Item = usize>,
        early_exit: bool,
    ) -> bool {
        // SAFETY: this function's contract is `test_bits`'s.
        unsafe { self.test_bits(positions, early_exit) }
    }

    /// Whether the first k bits at `positions` are all set ([`all_set`]:
    /// with `early_exit`, the first two before the others are loaded).
    ///
    /// The words are read without bounds checks: a check that can never
    /// fail cost about 13 % of a member lookup at 1M keys (see the crate
    /// docs).
    ///
    /// # Safety
    ///
    /// Every position `positions` yields must be below the bit count,
    /// `self.bits.len()`.
    #[allow(unsafe_code)]
    #[inline(always)]
    unsafe fn test_bits(&self, positions: impl Iterator<Item = usize>, early_exit: bool) -> bool {
        let words = self.bits.as_slice();
        let word_of = |p: usize| {
            debug_assert!(p < self.bits.len());
            // SAFETY: `p < self.bits.len()` (this function's contract), and
            // the bit set holds `self.bits.len().div_ceil(WORD_BITS)` words.
            unsafe { *words.get_unchecked(p / WORD_BITS) }
        };
        all_set(positions, self.hashes, early_exit, word_of)
    }

    /// Forgets every key.
    pub fn clear(&mut self) {
        self.bits.clear();
    }

    /// Adds every key of `other` to `self`: afterwards `self` reports present
    /// every key either filter did.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the bit or hash counts or the probe
    /// sequences differ (equal sizes can differ in sequence when one filter
    /// was loaded from bytes of an older format: 1.0 at any size, 1.1 and
    /// 1.2 in the smallest tables); [`Error::HasherMismatch`] when the
    /// hashers hash differently. `self` is unchanged on error.
    pub fn union(&mut self, other: &Self) -> Result<(), Error> {
        self.check_compatible(other)?;
        self.bits.union_with(&other.bits);
        Ok(())
    }

    /// Keeps only bits set in both filters. Every key inserted into *both*
    /// stays present; the false-positive rate is at most that of the union,
    /// and estimates from the fill are rougher than after inserts.
    ///
    /// # Errors
    ///
    /// As [`union`](Self::union).
    pub fn intersect(&mut self, other: &Self) -> Result<(), Error> {
        self.check_compatible(other)?;
        self.bits.intersect_with(&other.bits);
        Ok(())
    }

    fn check_compatible(&self, other: &Self) -> Result<(), Error> {
        if self.bits.len() != other.bits.len() {
            return Err(Error::incompatible(
                "bits",
                self.bits.len(),
                other.bits.len(),
            ));
        }
        if self.hashes != other.hashes {
            return Err(Error::incompatible("hashes", self.hashes, other.hashes));
        }
        if self.sequence != other.sequence {
            // Equal sizes, but one side was loaded from older bytes (1.0
            // at any size; 1.1 or 1.2 in a table now built hashed).
            return Err(Error::incompatible(
                "probe sequence",
                format_args!("{:?}", self.sequence),
                format_args!("{:?}", other.sequence),
            ));
        }
        if !HasherProbe::same(&self.hasher, &other.hasher) {
            return Err(Error::HasherMismatch);
        }
        Ok(())
    }

    /// The number of set bits (a `u64`, like [`bits`](Self::bits)).
    pub fn ones(&self) -> u64 {
        self.bits.count_ones(..) as u64
    }

    /// The false-positive rate of the filter as it is now: (set bits / m)^k.
    pub fn estimated_fpr(&self) -> f64 {
        let fill = self.ones() as f64 / self.bits.len() as f64;
        fill.powf(f64::from(self.hashes))
    }

    /// The number of distinct keys inserted, estimated from the fill
    /// (Swamidass and Baldi): n ≈ −(m/k) ln(1 − ones/m). Saturates at
    /// `usize::MAX` when every bit is set.
    pub fn estimated_len(&self) -> usize {
        let m = self.bits.len() as f64;
        let n = -(m / f64::from(self.hashes)) * (1.0 - self.ones() as f64 / m).ln();
        // `as` saturates: +∞ (a full filter) becomes usize::MAX.
        n.round() as usize
    }

    /// The bit count m.
    pub fn bits(&self) -> u64 {
        self.bits.len() as u64
    }

    /// The probes per key k.
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// Which positions keys probe: [`ProbeSequence::Hashed`] in the
    /// smallest tables, [`ProbeSequence::Cubic`] in other small ones,
    /// [`ProbeSequence::Folded`] in large ones (see
    /// [`ProbeSequence::for_table`]); [`ProbeSequence::Linear`] in tables
    /// loaded from bytes that name no sequence (format 1.0's, and large
    /// tables' before 1.4).
    pub fn probe_sequence(&self) -> ProbeSequence {
        self.sequence
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Bytes of the bit array (whole storage words).
    pub fn memory_bytes(&self) -> usize {
        size_of_val(self.bits.as_slice())
    }

    /// The storage words, for serialization.
    pub(crate) fn words(&self) -> &[usize] {
        self.bits.as_slice()
    }
}

impl<T: Hash + ?Sized, S: BuildHasher, Q: HashQuality> Filter<T> for BloomFilter<S, Q> {
    fn contains(&self, item: &T) -> bool {
        BloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        BloomFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: BuildHasher, Q: HashQuality> Insert<T> for BloomFilter<S, Q> {
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        BloomFilter::insert(self, item);
        Ok(())
    }
}

/// Whether the first `hashes` bits at `positions` are all set, reading the
/// storage word that holds bit `p` with `word_of(p)`: the lookup loop of
/// [`BloomFilter`] and [`AtomicBloomFilter`](crate::AtomicBloomFilter),
/// which differ only in how they read a word.
///
/// With `early_exit`, the first two bits are tested before the others are
/// loaded (a miss in a table in DRAM then usually costs two cache lines, not
/// k); without, all k are loaded and tested without a branch.
///
/// The bits tested without a branch are counted, not ANDed together: summed,
/// `(word >> p) & 1` compiles to `bt` and `adc` on x86-64, where ANDing
/// needs the word shifted by a variable count, `shr r, cl`, which on Intel
/// cores is two micro-ops and needs the count moved into `cl` (BMI2's `shrx`
/// would not, but a default build targets CPUs without it). On a 2-core
/// Intel Xeon (AVX-512, 2 MiB L2 per core), lookups at 10^6 keys took 7.6 ns
/// instead of 8.8 at 1 % and 14.5 instead of 15.5 at 0.1 % (medians of three
/// alternating runs of `cargo xtask compare --n 1M --filters
/// BloomFilter,fastbloom`).
#[inline(always)]
pub(crate) fn all_set(
    mut positions: impl Iterator<Item = usize>,
    hashes: u32,
    early_exit: bool,
    word_of: impl Fn(usize) -> usize,
) -> bool {
    let bit = |p: usize| word_of(p) >> (p % WORD_BITS);
    let mut unchecked = hashes as usize;
    if early_exit {
        // The sequence is endless, so both are `Some`.
        let first = positions.next().unwrap_or(0);
        let second = positions.next().unwrap_or(0);
        // With k = 1 the "second" probe is the first one again.
        let second = if hashes > 1 { second } else { first };
        if bit(first) & bit(second) & 1 == 0 {
            return false;
        }
        unchecked = unchecked.saturating_sub(2);
    }
    let mut set = 0;
    for_each_probe(positions, unchecked, |p| set += bit(p) & 1);
    // `for_each_probe` calls its closure exactly `unchecked` times.
    set == unchecked
}

/// The most probes per key that [`for_each_probe`] writes out one after
/// another: every rate down to 2^−16 (k = 16 at the optimum).
const UNROLLED_PROBES: usize = 16;

/// Calls `each` with the first `k` of `positions`, in order: the probe loop
/// of the classic filters' lookups and inserts.
///
/// Why not a plain loop: written out as [`UNROLLED_PROBES`] probes, each
/// behind a test of `k` (the same outcome on every call of a filter, so
/// always predicted), the probes of one key are straight-line code.
/// `BloomFilter` lookups at 10^6 keys measured 4 % faster at k = 7 (8.22 →
/// 7.88 ns) and 5 % at k = 10 (11.67 → 11.06 ns), and inserts 1.5–3.5 %,
/// in `cargo xtask compare` (six alternating runs, medians). A loop over
/// the probes, even one the compiler unrolls by two, holds more
/// instructions per probe in the core's window while its loads wait;
/// groups of four with a loop around them measured slower than the plain
/// loop. Probes past 16 take a loop. (The counting filter's insert, whose
/// probes branch on each counter's value, measured slower written out so,
/// 18.0 → 21.1 ns a key at 1 %, fastest of six alternating runs, and
/// keeps its loop.)
#[inline(always)]
pub(crate) fn for_each_probe(
    mut positions: impl Iterator<Item = usize>,
    k: usize,
    mut each: impl FnMut(usize),
) {
    let written_out = k.min(UNROLLED_PROBES);
    for j in 0..UNROLLED_PROBES {
        if j < written_out {
            // The sequence is endless, so this is `Some`.
            each(positions.next().unwrap_or(0));
        }
    }
    for p in positions.take(k - written_out) {
        each(p);
    }
}

/// Checks a hash count against `1..=MAX_HASHES`.
pub(crate) fn check_hashes(hashes: u32) -> Result<u32, Error> {
    sizing::check_range("hashes", hashes, 1..=MAX_HASHES)
}

/// A zeroed bit array of `bits` bits (already checked against `MAX_BITS`),
/// or an `Err` naming `bits` where the allocation would fail.
///
/// `fixedbitset` allocates infallibly (an out-of-memory abort), and has no
/// constructor that adopts a vector allocated elsewhere. So the same bytes
/// (rounded up to its largest storage block, 256 bits) are first requested
/// fallibly and handed back untouched; a request the allocator refuses is an
/// `Err`, and one it grants is then made by `fixedbitset`. The table is
/// allocated and written once: allocating a zeroed vector and copying it in
/// held twice the table at the peak.
pub(crate) fn allocate_bits(bits: u64) -> Result<FixedBitSet, Error> {
    debug_assert!(bits <= MAX_BITS);
    let (len, words) = usize::try_from(bits)
        .ok()
        .zip(usize::try_from(bits.div_ceil(256) * 4).ok())
        .ok_or_else(|| Error::invalid("bits", bits, "addressable on this target"))?;
    let mut probe: Vec<u64> = Vec::new();
    probe.try_reserve_exact(words).map_err(|_| {
        Error::invalid(
            "bits",
            bits,
            format_args!(
                "small enough to allocate ({words} words of 8 bytes could not be allocated)"
            ),
        )
    })?;
    drop(probe);
    Ok(FixedBitSet::with_capacity(len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use filter_core::mix64;
    use filter_core::probes::probe_positions;

    /// What `contains_hash` must answer: whether all k probed bits are set.
    fn naive_contains(filter: &BloomFilter, hash: u64) -> bool {
        probe_positions(hash, filter.bits.len(), filter.sequence, filter.hashes)
            .into_iter()
            .all(|p| filter.bits.contains(p))
    }

    /// A filter of `bits` bits with every storage word random (about half
    /// the bits set, as at the optimum), bits past the end left zero.
    fn half_full(bits: usize, hashes: u32) -> BloomFilter {
        let mut filter = BloomFilter::with_bits(bits as u64, hashes).unwrap();
        for (i, word) in filter.bits.as_mut_slice().iter_mut().enumerate() {
            *word = mix64(i as u64 + 1) as usize;
        }
        let tail = bits % WORD_BITS;
        if tail != 0 {
            let last = filter.bits.as_mut_slice().last_mut().unwrap();
            *last &= (1 << tail) - 1;
        }
        filter
    }

    #[test]
    fn both_lookup_shapes_answer_as_the_definition() {
        // One table below the branch-free limit and one just above it, so
        // both shapes run; at half fill a quarter of the keys pass the
        // early exit's first two probes and go on to the rest.
        let above = BRANCH_FREE_MAX_BYTES * 8 + 1000;
        for (bits, hashes) in [
            (100_003, 7),
            (100_003, 1),
            (above, 7),
            (above, 1),
            (above, 2),
        ] {
            let filter = half_full(bits, hashes);
            let mut present = 0;
            for i in 0..100_000u64 {
                let hash = mix64(i ^ 0xF00D);
                let expected = naive_contains(&filter, hash);
                assert_eq!(
                    filter.contains_hash(hash),
                    expected,
                    "{bits} bits, k={hashes}, hash {hash:#x}"
                );
                present += usize::from(expected);
            }
            // Half the bits are set, so about 100,000 / 2^k keys pass: the
            // test would not notice a lookup that always answers false.
            assert!(
                present > 100_000 >> (hashes + 1),
                "{bits} bits, k={hashes}: {present}"
            );
        }
    }
}
