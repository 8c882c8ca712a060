//! Spark's `BloomFilter` (`org.apache.spark.util.sketch`), read and written
//! byte for byte as Spark's `writeTo` and `readFrom` do, answering exactly
//! as Spark's `mightContain` does.
//!
//! Spark builds these filters where the data is: `df.stat.bloomFilter(col,
//! expectedNumItems, fpp)` aggregates one over a column across a cluster,
//! merging per-partition filters with `mergeInPlace`, and
//! `BloomFilter.writeTo` saves it. [`SparkBloomFilter`] loads those bytes in
//! a Rust service and answers queries as Spark would, and goes the other
//! way: filters built here, per partition or per file, merge with Spark's
//! own under Spark's compatibility rule and load in Spark with
//! `BloomFilter.readFrom`.
//!
//! # The format
//!
//! Every field is big-endian, as Java's `DataOutputStream` writes it:
//!
//! | field | version 1 | version 2 |
//! | --- | --- | --- |
//! | version (`int`) | 1 | 2 |
//! | hash functions k (`int`) | yes | yes |
//! | seed (`int`) | no (always 0) | yes |
//! | words w (`int`) | yes | yes |
//! | bits (`long` × w) | bit i is bit `i % 64` of word `i / 64` | same |
//!
//! A value is hashed twice with Spark's 32-bit Murmur3 (see `murmur3.rs`
//! for its departures from the reference): h1 under the seed, h2 under h1.
//! Version 1 takes probe i (1 ≤ i ≤ k) from the 32-bit sum h1 + i·h2;
//! version 2 from the 64-bit running sum h1·(2³¹ − 1) + i·h2. Either sum,
//! if negative, is bit-inverted, and the bit is that value modulo the bit
//! count 64·w. Version 1's 32-bit sums never reach past bit 2³¹, so in
//! larger filters it leaves most bits unused; version 2 fixed that and is
//! what Spark writes by default (seed 0), so it is what
//! [`SparkBloomFilter::with_fpr`] builds.
//!
//! # Design decisions
//!
//! - **Spark's arithmetic, not this crate's.** Positions come from `%` and
//!   from Spark's Murmur3 rather than from the crate's multiply-shift and
//!   portable hasher, because a filter that answered differently from Spark
//!   on the same bytes would be a different filter.
//! - **Stricter than Spark on load.** Spark's `readFrom` trusts the word
//!   count it reads (a negative count throws, a huge one allocates) and
//!   ignores bytes after the filter. [`SparkBloomFilter::from_bytes`]
//!   checks that the bytes hold exactly one filter of the size they claim
//!   before allocating, and refuses what Spark never writes: no hash
//!   functions, more hash functions than bits, no words. Every filter Spark
//!   writes passes those checks.

mod encoding;
mod murmur3;
mod value;

pub use value::SparkValue;

use filter_core::{Error, Filter, Insert};

/// Which of Spark's two layouts a filter uses.
///
/// `V1` is Spark's original filter; `V2` (Spark 4.1 on) takes its probes
/// from a 64-bit running sum, so it reaches every bit of a large filter, and
/// hashes under a seed. Spark's `BloomFilter.create` builds `V2 { seed: 0 }`.
///
/// ```
/// use bloom::spark::{SparkBloomFilter, SparkVersion};
///
/// let f = SparkBloomFilter::with_bits(SparkVersion::V1, 1_000, 8_192)?;
/// assert_eq!(f.version(), SparkVersion::V1);
/// assert_eq!(SparkBloomFilter::with_fpr(1_000, 0.03)?.version(), SparkVersion::V2 { seed: 0 });
/// # Ok::<(), bloom::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SparkVersion {
    /// Format version 1: 32-bit probe sums, no seed.
    V1,
    /// Format version 2: 64-bit probe sums and a hash seed.
    V2 {
        /// The seed of the first Murmur3 hash; Spark's default is 0.
        seed: i32,
    },
}

impl SparkVersion {
    /// The version number Spark writes first (1 or 2).
    pub fn number(self) -> i32 {
        match self {
            SparkVersion::V1 => 1,
            SparkVersion::V2 { .. } => 2,
        }
    }

    fn seed(self) -> i32 {
        match self {
            SparkVersion::V1 => 0,
            SparkVersion::V2 { seed } => seed,
        }
    }
}

/// Spark's `BloomFilter`: loads the bytes Spark's `writeTo` wrote, answers
/// as Spark's `mightContain` does, and writes bytes Spark's `readFrom`
/// loads.
///
/// Values are integers (hashed as Spark's `long`), strings (as their UTF-8
/// bytes) and byte strings: see [`SparkValue`]. Like every Bloom filter it
/// has no false negatives; its rate is Spark's, about `fpr` after
/// `expected_items` inserts when built by [`with_fpr`](Self::with_fpr).
///
/// ```
/// use bloom::spark::SparkBloomFilter;
///
/// let mut f = SparkBloomFilter::with_fpr(10_000, 0.03)?;
/// for id in 0..10_000i64 {
///     f.insert(&id);
/// }
/// // Spark's sizing: 7.3 bits per item for 3 %, five hash functions.
/// assert_eq!(f.bits(), 73_024);
/// assert_eq!(f.hashes(), 5);
/// let false_positives = (10_000..110_000i64).filter(|id| f.contains(id)).count();
/// assert!(false_positives < 3_300, "{false_positives}"); // 3 % of 100 000, with room
///
/// // What Spark's `readFrom` loads, and back.
/// let bytes = f.to_bytes();
/// assert_eq!(&bytes[..4], &[0, 0, 0, 2]); // version 2, big-endian
/// assert_eq!(SparkBloomFilter::from_bytes(&bytes)?, f);
/// # Ok::<(), bloom::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SparkBloomFilter {
    version: SparkVersion,
    /// k, in 1..=min(i32::MAX, bits).
    hashes: u32,
    /// The bit array, word i holding bits 64·i to 64·i + 63; never empty,
    /// never more than `i32::MAX` words.
    words: Vec<u64>,
}

/// The most words a Spark bit array holds: its word count is a Java `int`.
pub const MAX_WORDS: usize = i32::MAX as usize;

/// The probe sequence shared by inserts and lookups: calls `probe` with
/// each of the k bit indexes of a value whose two hashes are `h1` and `h2`
/// until it returns `false`; returns whether every call returned `true`.
#[inline(always)]
fn for_each_bit(
    version: SparkVersion,
    hashes: u32,
    bits: u64,
    (h1, h2): (i32, i32),
    mut probe: impl FnMut(u64) -> bool,
) -> bool {
    match version {
        SparkVersion::V1 => {
            for i in 1..=hashes {
                // `hashes` is at most i32::MAX, so `i` fits; the sum wraps as
                // Java's `int` arithmetic does.
                let i = i32::try_from(i).unwrap_or(i32::MAX);
                let combined = h1.wrapping_add(i.wrapping_mul(h2));
                let index = if combined < 0 { !combined } else { combined };
                if !probe(u64::from(index.unsigned_abs()) % bits) {
                    return false;
                }
            }
        }
        SparkVersion::V2 { .. } => {
            let mut combined = i64::from(h1) * i64::from(i32::MAX);
            for _ in 0..hashes {
                combined = combined.wrapping_add(i64::from(h2));
                let index = if combined < 0 { !combined } else { combined };
                if !probe(index.unsigned_abs() % bits) {
                    return false;
                }
            }
        }
    }
    true
}

impl SparkBloomFilter {
    /// An empty filter sized as Spark's `BloomFilter.create(expected_items,
    /// fpr)` sizes it: version 2 with seed 0, ⌊−n·ln p / ln² 2⌋ bits (rounded
    /// up to whole 64-bit words) and k = round(bits / n · ln 2) hash functions.
    ///
    /// ```
    /// use bloom::spark::SparkBloomFilter;
    ///
    /// let f = SparkBloomFilter::with_fpr(1_000_000, 0.03)?;
    /// assert_eq!((f.bits(), f.hashes()), (7_298_496, 5));
    /// # Ok::<(), bloom::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] if `fpr` is not in (0, 1), if
    /// `expected_items` is 0 or so small for `fpr` that Spark's formula gives
    /// no bits, or if the filter would need more than [`MAX_WORDS`] words.
    pub fn with_fpr(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_version(SparkVersion::V2 { seed: 0 }, expected_items, fpr)
    }

    /// [`with_fpr`](Self::with_fpr) for a chosen version (and seed): what
    /// Spark's `create(version, expectedNumItems, optimalNumOfBits(n, fpp),
    /// seed)` builds.
    ///
    /// # Errors
    ///
    /// As [`with_fpr`](Self::with_fpr).
    pub fn with_fpr_version(
        version: SparkVersion,
        expected_items: u64,
        fpr: f64,
    ) -> Result<Self, Error> {
        if !(fpr > 0.0 && fpr < 1.0) {
            return Err(Error::invalid("fpr", fpr, "in the open interval (0, 1)"));
        }
        // Spark's optimalNumOfBits, in the same f64 operations; the float to
        // integer cast saturates, as Java's `(long)` does.
        #[allow(clippy::cast_precision_loss)]
        let n = expected_items as f64;
        let ln2 = std::f64::consts::LN_2;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let bits = (-n * fpr.ln() / (ln2 * ln2)) as u64;
        if bits == 0 && expected_items > 0 {
            return Err(Error::invalid(
                "expected_items",
                expected_items,
                format_args!(
                    "large enough that Spark's formula gives at least one bit at fpr {fpr}"
                ),
            ));
        }
        Self::with_bits(version, expected_items, bits)
    }

    /// An empty filter of `bits` bits (rounded up to whole 64-bit words)
    /// with Spark's choice of hash functions for `expected_items` items,
    /// k = max(1, round(bits / n · ln 2)): Spark's
    /// `BloomFilter.create(version, expectedNumItems, numBits, seed)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] if `expected_items` or `bits` is 0, or if
    /// `bits` needs more than [`MAX_WORDS`] words.
    pub fn with_bits(version: SparkVersion, expected_items: u64, bits: u64) -> Result<Self, Error> {
        if expected_items == 0 {
            return Err(Error::invalid("expected_items", 0, "at least 1"));
        }
        #[allow(clippy::cast_precision_loss)]
        let per_item = bits as f64 / expected_items as f64;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let hashes = ((per_item * std::f64::consts::LN_2).round() as u64).max(1);
        let hashes = u32::try_from(hashes)
            .ok()
            .filter(|&k| i32::try_from(k).is_ok())
            .ok_or_else(|| {
                Error::invalid(
                    "bits",
                    bits,
                    format_args!(
                        "at most 2^31 / ln 2 bits per expected item ({expected_items} items)"
                    ),
                )
            })?;
        Self::with_hashes(version, hashes, bits)
    }

    /// An empty filter of `bits` bits (rounded up to whole 64-bit words) and
    /// exactly `hashes` hash functions: for instance a partition's filter
    /// that must [`union`](Self::union) with one Spark built
    /// (`SparkBloomFilter::with_hashes(f.version(), f.hashes(), f.bits())`).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] if `bits` is 0 or needs more than
    /// [`MAX_WORDS`] words, or if `hashes` is 0, above `i32::MAX`, or above
    /// the bit count (Spark never builds such a filter).
    pub fn with_hashes(version: SparkVersion, hashes: u32, bits: u64) -> Result<Self, Error> {
        let words = bits.div_ceil(64);
        let words = usize::try_from(words)
            .ok()
            .filter(|&w| (1..=MAX_WORDS).contains(&w))
            .ok_or_else(|| {
                Error::invalid(
                    "bits",
                    bits,
                    format_args!("in 1..={}", MAX_WORDS as u64 * 64),
                )
            })?;
        let bit_count = words as u64 * 64;
        if hashes == 0 || i32::try_from(hashes).is_err() || u64::from(hashes) > bit_count {
            return Err(Error::invalid(
                "hashes",
                hashes,
                format_args!("in 1..={}", bit_count.min(MAX_WORDS as u64)),
            ));
        }
        Ok(SparkBloomFilter {
            version,
            hashes,
            words: vec![0; words],
        })
    }

    /// Whether `value` may have been inserted: Spark's `mightContain`
    /// (`mightContainLong` for integers, `mightContainString` for strings,
    /// `mightContainBinary` for byte strings). `false` means never inserted.
    #[inline]
    pub fn contains<V: SparkValue + ?Sized>(&self, value: &V) -> bool {
        let hashes = self.hash_pair(value);
        let words = &self.words;
        for_each_bit(self.version, self.hashes, self.bits(), hashes, |bit| {
            words
                .get(word_of(bit))
                .is_some_and(|w| w & (1 << (bit % 64)) != 0)
        })
    }

    /// Inserts `value` as Spark's `put` does. Returns whether any bit
    /// changed: `true` means `value` was certainly new, `false` that it
    /// (probably) was not, the opposite of what `contains` said before.
    #[inline]
    pub fn insert<V: SparkValue + ?Sized>(&mut self, value: &V) -> bool {
        let hashes = self.hash_pair(value);
        let (version, k, bits) = (self.version, self.hashes, self.bits());
        let words = &mut self.words;
        let mut changed = false;
        for_each_bit(version, k, bits, hashes, |bit| {
            if let Some(w) = words.get_mut(word_of(bit)) {
                let mask = 1 << (bit % 64);
                changed |= *w & mask == 0;
                *w |= mask;
            }
            true
        });
        changed
    }

    fn hash_pair<V: SparkValue + ?Sized>(&self, value: &V) -> (i32, i32) {
        let h1 = value.spark_hash(self.version.seed());
        (h1, value.spark_hash(h1))
    }

    /// Adds every value of `other` to `self` (bitwise OR): Spark's
    /// `mergeInPlace`, under its rule that the two have the same version,
    /// bit count, number of hash functions and seed.
    ///
    /// ```
    /// use bloom::spark::SparkBloomFilter;
    ///
    /// let mut a = SparkBloomFilter::with_fpr(1_000, 0.01)?;
    /// let mut b = SparkBloomFilter::with_fpr(1_000, 0.01)?;
    /// a.insert("left");
    /// b.insert("right");
    /// a.union(&b)?;
    /// assert!(a.contains("left") && a.contains("right"));
    /// assert!(a.union(&SparkBloomFilter::with_fpr(1_000, 0.02)?).is_err());
    /// # Ok::<(), bloom::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] naming the first field that differs; `self`
    /// is then unchanged.
    pub fn union(&mut self, other: &Self) -> Result<(), Error> {
        self.check_compatible(other)?;
        self.words
            .iter_mut()
            .zip(&other.words)
            .for_each(|(a, b)| *a |= b);
        Ok(())
    }

    /// Keeps only the bits set in both (bitwise AND): Spark's
    /// `intersectInPlace`. Every value inserted into both still answers
    /// `true`.
    ///
    /// # Errors
    ///
    /// As [`union`](Self::union).
    pub fn intersect(&mut self, other: &Self) -> Result<(), Error> {
        self.check_compatible(other)?;
        self.words
            .iter_mut()
            .zip(&other.words)
            .for_each(|(a, b)| *a &= b);
        Ok(())
    }

    /// Spark's `isCompatible`, as an error naming what differs.
    fn check_compatible(&self, other: &Self) -> Result<(), Error> {
        let (a, b) = (self.version, other.version);
        if a.number() != b.number() {
            return Err(Error::incompatible("version", a.number(), b.number()));
        }
        if self.bits() != other.bits() {
            return Err(Error::incompatible("bits", self.bits(), other.bits()));
        }
        if a.seed() != b.seed() {
            return Err(Error::incompatible("seed", a.seed(), b.seed()));
        }
        if self.hashes != other.hashes {
            return Err(Error::incompatible("hashes", self.hashes, other.hashes));
        }
        Ok(())
    }

    /// The format version and, for version 2, the seed.
    pub fn version(&self) -> SparkVersion {
        self.version
    }

    /// The number of hash functions k (Spark's `numHashFunctions`).
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// The number of bits, a multiple of 64 (Spark's `bitSize`).
    pub fn bits(&self) -> u64 {
        self.words.len() as u64 * 64
    }

    /// The number of set bits (Spark's `cardinality`).
    pub fn ones(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// The rate at which a value never inserted is reported present, as the
    /// fill predicts it: (ones / bits)^k (Spark's `expectedFpp`).
    pub fn expected_fpr(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let fill = self.ones() as f64 / self.bits() as f64;
        fill.powf(f64::from(self.hashes))
    }
}

#[inline(always)]
fn word_of(bit: u64) -> usize {
    // Below the word count, which is a usize, whenever `bit < bits`.
    usize::try_from(bit / 64).unwrap_or(usize::MAX)
}

impl<V: SparkValue + ?Sized> Filter<V> for SparkBloomFilter {
    fn contains(&self, item: &V) -> bool {
        SparkBloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        size_of_val(self.words.as_slice())
    }
}

impl<V: SparkValue + ?Sized> Insert<V> for SparkBloomFilter {
    fn insert(&mut self, item: &V) -> Result<(), Error> {
        SparkBloomFilter::insert(self, item);
        Ok(())
    }
}
