//! [`BloomFilter`]: the classic filter of m bits and k probes.
//!
//! All k positions of a key come from its one mixed hash by double hashing
//! in the 64-bit ring ([`filter_core::probes`]), reduced to `0..bits` by
//! multiply-shift, so the bit count need not be a power of two. The table's
//! size picks the sequence ([`ProbeSequence::for_table`]): in the smallest
//! tables plain double hashing puts a non-member's k probes on a few bits
//! now and then, which adds a fixed amount of absolute rate that matters
//! only when the table is tiny, so small tables bend the sequence (cubic)
//! and the smallest mix every probe (hashed).
//!
//! Why lookups are branch-free in cache: a lookup that stops at the first
//! unset bit branches on whether the key is a member, which in a stream
//! that mixes members and non-members the CPU cannot predict. Loading all k
//! probes and combining them without a branch costs no misprediction.
//! Past [`BRANCH_FREE_MAX_BYTES`] the table lives in DRAM and a miss's
//! extra loads cost more than a misprediction, so there a lookup checks two
//! probes first (which ends three misses in four at the optimum fill) and
//! the rest together.
//!
//! Why unchecked word reads and writes: every probe is below the bit count
//! by construction, so the bounds check on each of the k accesses can
//! never fail, yet it cost a visible share of a lookup in measurement.
//!
//! Why the probes are written out ([`for_each_probe`]): as straight-line
//! code, the probes of one key hold fewer instructions in the core's window
//! while their loads wait than a loop does; lookups and inserts measured
//! faster so.

use std::hash::Hash;

use filter_core::probes::{
    BRANCH_FREE_MAX_BYTES, CubicProbes, HashedProbes, LinearProbes, ProbeSequence,
};
use filter_core::sizing::{self, MAX_BITS};
use filter_core::{Error, Filter, HasherProbe, Insert, KeyHasher, PortableHasher, mix64};
use fixedbitset::FixedBitSet;

/// The largest hash count accepted: far beyond any useful rate (k = 64 is
/// already p ≈ 2^−64), small enough that a corrupt header cannot make every
/// query loop for billions of probes.
pub const MAX_HASHES: u32 = 1024;

/// Bits per storage word of `fixedbitset` on this target.
pub(crate) const WORD_BITS: usize = usize::BITS as usize;

/// A classic Bloom filter: `bits` bits, each key sets `hashes` of them.
///
/// ```
/// use bloom::BloomFilter;
///
/// let mut seen = BloomFilter::with_fpr(1_000_000, 0.01)?;
/// seen.insert("https://example.com/");
/// assert!(seen.contains("https://example.com/"));
/// assert_eq!(seen.bits(), 9_592_957); // 9.59 bits per key
/// assert_eq!(seen.hashes(), 7);
/// # Ok::<(), bloom::Error>(())
/// ```
///
/// [`with_fpr`](BloomFilter::with_fpr) sizes it at the textbook optimum,
/// m = −n ln p / (ln 2)² bits and about log2(1/p) probes, **1.44 · log2(1/p)
/// bits per key**, adjusted for a whole number of probes: 9.59 bits per key
/// at 1 %, 14.38 at 0.1 %. After n distinct inserts the false-positive rate
/// is at most p; with a handful of keys a few bits more keep the rate
/// averaged over key sets at p too ([`filter_core::sizing::bloom_shape`]).
///
/// Past n inserts it keeps accepting keys, and its rate rises silently
/// ([`estimated_fpr`](Self::estimated_fpr) tells how far): when the number
/// of keys is not known, use [`ScalableBloomFilter`](crate::ScalableBloomFilter).
///
/// # Invariants
///
/// `1 <= bits <= 2^46`, `1 <= hashes <= MAX_HASHES`, and storage bits past
/// `bits` are zero. The filter never forgets an inserted key: only
/// [`clear`](Self::clear) and [`intersect`](Self::intersect) unset bits.
///
/// # Examples
///
/// The promised rate, measured:
///
/// ```
/// use bloom::BloomFilter;
///
/// let mut filter = BloomFilter::with_fpr(1_000_000, 0.01)?;
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
#[derive(Clone)]
pub struct BloomFilter<S = PortableHasher> {
    pub(crate) bits: FixedBitSet,
    pub(crate) hashes: u32,
    /// Fixed by the table's size and `hashes` ([`ProbeSequence::for_table`]);
    /// kept so that a lookup need not recompute it.
    pub(crate) sequence: ProbeSequence,
    pub(crate) hasher: S,
}

impl BloomFilter {
    /// A filter sized for `expected_items` distinct keys at false-positive
    /// rate `fpr`, with the default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items == 0`, `fpr` outside
    /// the open interval (0, 1) (NaN and infinities included) or so small
    /// (subnormal) that it needs more than [`MAX_HASHES`] probes, or a size
    /// above 2^46 bits or that cannot be allocated.
    pub fn with_fpr(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(expected_items, fpr, PortableHasher::default())
    }

    /// A filter of exactly `bits` bits and `hashes` probes per key, with the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `bits` outside `1..=2^46` (or not
    /// allocatable) and `hashes` outside `1..=MAX_HASHES`.
    pub fn with_bits(bits: u64, hashes: u32) -> Result<Self, Error> {
        Self::with_bits_and_hasher(bits, hashes, PortableHasher::default())
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes) under the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for bytes that are not a valid classic Bloom filter;
    /// [`Error::WrongKind`] for the bytes of another filter;
    /// [`Error::HasherMismatch`] when the filter was built with another
    /// hasher (or seed); [`Error::InvalidParameter`] naming `bits` when the
    /// table, valid, cannot be allocated.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<S: KeyHasher> BloomFilter<S> {
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
        Ok(Self::from_parts(table, hashes, hasher))
    }

    /// Assembles a filter from validated parts; the probe sequence follows
    /// from the table's size.
    pub(crate) fn from_parts(bits: FixedBitSet, hashes: u32, hasher: S) -> Self {
        let sequence = ProbeSequence::for_table(bits.len(), hashes);
        BloomFilter {
            bits,
            hashes,
            sequence,
            hasher,
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

    /// Sets the k bits of the key whose mixed hash is `mixed`; whether one
    /// was unset.
    #[inline(always)]
    pub(crate) fn insert_mixed(&mut self, mixed: u64) -> bool {
        let len = self.bits.len();
        #[allow(unsafe_code)]
        // SAFETY: every probe sequence of a table of `len` cells yields
        // positions in `0..len`, and `len` is the bit count.
        unsafe {
            match self.sequence {
                ProbeSequence::Linear => self.insert_probes(LinearProbes::new(mixed, len)),
                ProbeSequence::Cubic => {
                    self.insert_probes_out_of_line(CubicProbes::new(mixed, len))
                }
                ProbeSequence::Hashed => {
                    self.insert_probes_out_of_line(HashedProbes::new(mixed, len))
                }
            }
        }
    }

    /// [`insert_probes`](Self::insert_probes) for the small tables' cubic
    /// and hashed sequences, kept out of line so that large tables' inserts
    /// and lookups inline one probe loop, not three (which measured slower).
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
    /// was unset. One copy per probe sequence (see [`LinearProbes`] for why).
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

    /// Whether the key whose mixed hash is `mixed` may be in the set:
    /// branch-free in tables up to [`BRANCH_FREE_MAX_BYTES`], two probes
    /// first in larger ones (see the module docs).
    #[inline(always)]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        let early_exit = size_of_val(self.bits.as_slice()) > BRANCH_FREE_MAX_BYTES;
        self.test_mixed(mixed, early_exit)
    }

    /// Whether the k bits of mixed hash `mixed` are all set, tested as
    /// [`test_bits`](Self::test_bits) says.
    #[inline(always)]
    pub(crate) fn test_mixed(&self, mixed: u64, early_exit: bool) -> bool {
        let len = self.bits.len();
        #[allow(unsafe_code)]
        // SAFETY: every probe sequence of a table of `len` cells yields
        // positions in `0..len`, and `len` is the bit count.
        unsafe {
            match self.sequence {
                ProbeSequence::Linear => self.test_bits(LinearProbes::new(mixed, len), early_exit),
                ProbeSequence::Cubic => {
                    self.test_bits_out_of_line(CubicProbes::new(mixed, len), early_exit)
                }
                ProbeSequence::Hashed => {
                    self.test_bits_out_of_line(HashedProbes::new(mixed, len), early_exit)
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
    /// with `early_exit`, the first two before the others are loaded). The
    /// words are read without bounds checks (see the module docs).
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
    /// [`Error::Incompatible`] when the bit or hash counts differ;
    /// [`Error::HasherMismatch`] when the hashers hash differently. `self`
    /// is unchanged on error.
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
        if !HasherProbe::same(&self.hasher, &other.hasher) {
            return Err(Error::HasherMismatch);
        }
        Ok(())
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

    /// The number of set bits.
    pub(crate) fn ones(&self) -> u64 {
        self.bits.count_ones(..) as u64
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for BloomFilter<S> {
    fn contains(&self, item: &T) -> bool {
        BloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        BloomFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Insert<T> for BloomFilter<S> {
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
/// The bits tested without a branch are counted, not ANDed together:
/// summed, `(word >> p) & 1` compiles to `bt` and `adc` on x86-64, where
/// ANDing needs the word shifted by a variable count, `shr r, cl`, which on
/// Intel cores is two micro-ops and needs the count moved into `cl` (BMI2's
/// `shrx` would not, but a default build targets CPUs without it).
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
/// always predicted), the probes of one key are straight-line code, which
/// measured faster than a loop for lookups and inserts: a loop holds more
/// instructions per probe in the core's window while its loads wait.
/// Probes past 16 take a loop.
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
    use filter_core::probes::probe_positions;

    /// What `contains_mixed` must answer: whether all k probed bits are set.
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
                    filter.contains_mixed(hash),
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
