//! Parquet's split-block Bloom filter (SBBF), byte for byte as the Parquet
//! specification defines it: the filter a writer stores for each column
//! chunk, which readers consult to skip row groups.
//!
//! [`ParquetBloomFilter`] loads the bytes at a column chunk's
//! `bloom_filter_offset` (a Thrift `BloomFilterHeader` followed by the
//! bitset) or a bare bitset, answers as every Parquet reader does, and
//! writes filters that every reader loads: the bitset, or header and bitset
//! together.
//!
//! # The filter
//!
//! A value is hashed with XXH64, seed 0, of its plain encoding ([`hash`],
//! [`ParquetValue`]). The filter is z blocks of 256 bits, each eight 32-bit
//! little-endian words. A hash h selects block ⌊(h >> 32) · z / 2³²⌋, and its
//! low 32 bits x set one bit in each word i of that block: bit
//! `(x · SALT[i] mod 2³²) >> 27`, with the specification's eight odd salts.
//! Nothing else is stored: no hash count, no seed, no item count.
//!
//! # Design decisions
//!
//! - **The specification's sizes.** A filter built here has a power-of-two
//!   number of bytes from [`MIN_BYTES`] (one block) to [`MAX_BYTES`]
//!   (128 MiB), the range parquet-mr and arrow-rs write and read, sized for
//!   a count and rate by the split-block formula those writers use
//!   (bits = −8n / ln(1 − p^(1/8))). A loaded filter may be any whole
//!   number of blocks up to the `i32` length its header can state, since
//!   the specification allows any block count.
//! - **Hashes as they are.** The block and bits come from the hash without
//!   mixing, as the specification requires, so [`insert_hash`] and
//!   [`contains_hash`] must be given XXH64 hashes (or other uniform
//!   hashes): unlike the crate's own filters, this one does not spread
//!   sequential ids.
//! - **Its own small kernel.** The probe is the specification's, in a
//!   portable and an AVX2 version (see `kernel.rs`); batched lookups request
//!   each block a few hashes ahead once the bitset outgrows the cache.
//!
//! [`insert_hash`]: ParquetBloomFilter::insert_hash
//! [`contains_hash`]: ParquetBloomFilter::contains_hash

mod header;
mod kernel;
mod value;

pub use value::{ParquetValue, hash};

use filter_core::{Error, Filter, Insert};

use kernel::{Block, Kernel, block_index};

/// The smallest bitset a filter is built with: one 32-byte block.
pub const MIN_BYTES: usize = 32;
/// The largest bitset a filter is built with: 128 MiB, the bound of
/// parquet-mr and arrow-rs.
pub const MAX_BYTES: usize = 128 << 20;
/// The largest bitset a filter is loaded from: the most whole blocks a
/// header's `i32` length can state.
pub const MAX_LOAD_BYTES: usize = (i32::MAX as usize) / 32 * 32;

/// Bitsets from this size on are looked up in batches with their blocks
/// requested ahead: smaller ones stay in the cache, where the requests only
/// cost instructions.
const PREFETCH_MIN_BYTES: usize = 4 << 20;

/// Parquet's split-block Bloom filter: the bitset a column chunk stores,
/// answering as every Parquet reader does.
///
/// ```
/// use bloom::parquet::ParquetBloomFilter;
///
/// let mut f = ParquetBloomFilter::with_fpr(10_000, 0.01)?;
/// assert_eq!(f.bytes(), 16_384); // 12 102 bytes needed, a power of two used
/// for id in 0..10_000i64 {
///     f.insert(&id);
/// }
/// assert!((0..10_000i64).all(|id| f.contains(&id)));
/// let false_positives = (10_000..110_000i64).filter(|id| f.contains(id)).count();
/// assert!(false_positives < 1_000, "{false_positives}"); // below 1 % of 100 000
///
/// // The bytes a column chunk holds at its bloom_filter_offset, and back.
/// let bytes = f.to_bytes();
/// assert_eq!(ParquetBloomFilter::from_bytes(&bytes)?, f);
/// assert_eq!(ParquetBloomFilter::from_bitset(&f.to_bitset())?, f);
/// # Ok::<(), bloom::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ParquetBloomFilter {
    /// Never empty; at most `MAX_LOAD_BYTES / 32` blocks.
    blocks: Vec<Block>,
    kernel: Kernel,
}

impl PartialEq for ParquetBloomFilter {
    /// Equal bitsets; the probe kernel does not change what a filter is.
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks
    }
}

impl Eq for ParquetBloomFilter {}

impl ParquetBloomFilter {
    fn with_blocks(blocks: Vec<Block>) -> Self {
        ParquetBloomFilter {
            blocks,
            kernel: Kernel::detect(),
        }
    }

    /// An empty filter sized for `expected_items` distinct values at rate
    /// `fpr`, as parquet-mr and arrow-rs size theirs: −8n / ln(1 − p^(1/8))
    /// bits, rounded up to a power of two bytes, at least [`MIN_BYTES`].
    ///
    /// The rounding up leaves the rate at or below `fpr` after
    /// `expected_items` inserts, often well below.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] if `fpr` is not in (0, 1), or if the
    /// filter would need more than [`MAX_BYTES`].
    pub fn with_fpr(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        if !(fpr > 0.0 && fpr < 1.0) {
            return Err(Error::invalid("fpr", fpr, "in the open interval (0, 1)"));
        }
        #[allow(clippy::cast_precision_loss)]
        let bits = -8.0 * expected_items as f64 / (1.0 - fpr.powf(1.0 / 8.0)).ln();
        let bytes = (bits / 8.0).ceil();
        #[allow(clippy::cast_precision_loss)]
        if bytes.is_nan() || bytes > MAX_BYTES as f64 {
            return Err(Error::invalid(
                "expected_items",
                expected_items,
                format_args!("small enough to fit in {MAX_BYTES} bytes at fpr {fpr}"),
            ));
        }
        // Checked above: 0 ≤ bytes ≤ MAX_BYTES.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let bytes = (bytes as usize).max(MIN_BYTES).next_power_of_two();
        Self::with_bytes(bytes)
    }

    /// An empty filter of exactly `bytes` bytes.
    ///
    /// ```
    /// use bloom::parquet::ParquetBloomFilter;
    ///
    /// assert_eq!(ParquetBloomFilter::with_bytes(1 << 20)?.blocks(), 32_768);
    /// assert!(ParquetBloomFilter::with_bytes(1000).is_err());
    /// # Ok::<(), bloom::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] unless `bytes` is a power of two from
    /// [`MIN_BYTES`] to [`MAX_BYTES`].
    pub fn with_bytes(bytes: usize) -> Result<Self, Error> {
        if !bytes.is_power_of_two() || !(MIN_BYTES..=MAX_BYTES).contains(&bytes) {
            return Err(Error::invalid(
                "bytes",
                bytes,
                format_args!("a power of two from {MIN_BYTES} to {MAX_BYTES}"),
            ));
        }
        Ok(Self::with_blocks(vec![Block::default(); bytes / 32]))
    }

    /// Loads a bare bitset: the bytes after a column chunk's
    /// `BloomFilterHeader`, or what [`to_bitset`](Self::to_bitset) wrote.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] unless the length is a positive multiple of 32 of
    /// at most [`MAX_LOAD_BYTES`].
    pub fn from_bitset(bitset: &[u8]) -> Result<Self, Error> {
        if bitset.is_empty() || bitset.len() % 32 != 0 || bitset.len() > MAX_LOAD_BYTES {
            return Err(Error::corrupt(format_args!(
                "a Parquet SBBF bitset is a positive multiple of 32 bytes up to {MAX_LOAD_BYTES}, \
                 got {} bytes",
                bitset.len()
            )));
        }
        let blocks = bitset
            .chunks_exact(32)
            .map(|block| {
                Block(std::array::from_fn(|i| {
                    let w = &block[4 * i..4 * i + 4];
                    u32::from_le_bytes([w[0], w[1], w[2], w[3]])
                }))
            })
            .collect();
        Ok(Self::with_blocks(blocks))
    }

    /// The bitset, as a column chunk stores it after its header: each block's
    /// eight words, little-endian.
    pub fn to_bitset(&self) -> Vec<u8> {
        self.blocks
            .iter()
            .flat_map(|b| b.0)
            .flat_map(u32::to_le_bytes)
            .collect()
    }

    /// Loads a `BloomFilterHeader` and the bitset that follows it, and
    /// nothing else: the `bloom_filter_length` bytes at a column chunk's
    /// `bloom_filter_offset`.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] if the header is malformed, names an algorithm,
    /// hash or compression other than the specification's split blocks,
    /// XXH64 and none, or states a bitset length that is not a positive
    /// multiple of 32, or if the bytes do not end where the bitset does.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (filter, used) = Self::from_prefix(bytes)?;
        if used != bytes.len() {
            return Err(Error::corrupt(format_args!(
                "{} bytes follow the Parquet SBBF's {used} bytes",
                bytes.len() - used
            )));
        }
        Ok(filter)
    }

    /// Loads a `BloomFilterHeader` and its bitset from the front of `bytes`
    /// and returns the filter and how many bytes it took: for files whose
    /// metadata records a column chunk's `bloom_filter_offset` but not its
    /// length.
    ///
    /// ```
    /// use bloom::parquet::ParquetBloomFilter;
    ///
    /// let f = ParquetBloomFilter::with_bytes(64)?;
    /// let mut file = f.to_bytes();
    /// file.extend_from_slice(b"the next column's filter...");
    /// let (g, used) = ParquetBloomFilter::from_prefix(&file)?;
    /// assert_eq!((g, used), (f, 80)); // a 16-byte header and 64 bytes of bits
    /// # Ok::<(), bloom::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](Self::from_bytes), except that bytes after the
    /// bitset are allowed.
    pub fn from_prefix(bytes: &[u8]) -> Result<(Self, usize), Error> {
        let (num_bytes, header_len) = header::read(bytes)?;
        let bitset = bytes
            .get(header_len..)
            .and_then(|rest| rest.get(..num_bytes))
            .ok_or_else(|| {
                Error::corrupt(format_args!(
                    "the Parquet BloomFilterHeader states a {num_bytes}-byte bitset, \
                     but {} bytes follow it",
                    bytes.len() - header_len
                ))
            })?;
        Ok((Self::from_bitset(bitset)?, header_len + num_bytes))
    }

    /// The header and bitset a writer stores at a column chunk's
    /// `bloom_filter_offset`, which [`from_bytes`](Self::from_bytes), arrow-rs's
    /// `Sbbf::from_bytes` and parquet-mr load.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.bytes());
        // At most MAX_LOAD_BYTES, which fits in an i32.
        header::write(i32::try_from(self.bytes()).unwrap_or(i32::MAX), &mut out);
        out.extend_from_slice(&self.to_bitset());
        out
    }

    /// Inserts `value`; returns whether any of its bits was unset before
    /// (`true` means it was certainly new).
    #[inline]
    pub fn insert<V: ParquetValue + ?Sized>(&mut self, value: &V) -> bool {
        self.insert_hash(value.parquet_hash())
    }

    /// Whether `value` may have been inserted: `false` means never.
    #[inline]
    pub fn contains<V: ParquetValue + ?Sized>(&self, value: &V) -> bool {
        self.contains_hash(value.parquet_hash())
    }

    /// Inserts a value by its XXH64 hash ([`hash`]): the specification's
    /// `filter_insert`. Returns whether any bit was unset before.
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let index = block_index(hash, self.blocks.len());
        // Truncation intended: the low 32 bits are the block's argument.
        self.blocks
            .get_mut(index)
            .is_some_and(|b| b.insert(hash as u32))
    }

    /// Whether a value with XXH64 hash `hash` may have been inserted: the
    /// specification's `filter_check`.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.kernel.check(&self.blocks, hash)
    }

    /// The answers of [`contains_hash`](Self::contains_hash) for each of
    /// `hashes`, in order. Large bitsets are probed with each block
    /// requested from memory a few hashes ahead, so that many lookups wait
    /// for memory at once.
    ///
    /// ```
    /// use bloom::parquet::{ParquetBloomFilter, hash};
    ///
    /// let mut f = ParquetBloomFilter::with_fpr(1_000, 0.01)?;
    /// f.insert("a");
    /// let answers = f.contains_hash_batch(&[hash("a"), hash("a")]);
    /// assert_eq!(answers, [true, true]);
    /// # Ok::<(), bloom::Error>(())
    /// ```
    pub fn contains_hash_batch(&self, hashes: &[u64]) -> Vec<bool> {
        let mut answers = vec![false; hashes.len()];
        let prefetch = self.bytes() >= PREFETCH_MIN_BYTES;
        self.kernel
            .check_all(&self.blocks, hashes, &mut answers, prefetch);
        answers
    }

    /// The answers of [`contains`](Self::contains) for each of `values`, in
    /// order, looked up as by [`contains_hash_batch`](Self::contains_hash_batch).
    pub fn contains_batch<'v, V: ParquetValue + ?Sized + 'v>(
        &self,
        values: impl IntoIterator<Item = &'v V>,
    ) -> Vec<bool> {
        let hashes: Vec<u64> = values.into_iter().map(ParquetValue::parquet_hash).collect();
        self.contains_hash_batch(&hashes)
    }

    /// Adds every value of `other` (bitwise OR of the bitsets), as
    /// parquet-mr's `merge` does.
    ///
    /// ```
    /// use bloom::parquet::ParquetBloomFilter;
    ///
    /// let mut a = ParquetBloomFilter::with_bytes(1024)?;
    /// let mut b = ParquetBloomFilter::with_bytes(1024)?;
    /// a.insert(&1i64);
    /// b.insert(&2i64);
    /// a.union(&b)?;
    /// assert!(a.contains(&1i64) && a.contains(&2i64));
    /// assert!(a.union(&ParquetBloomFilter::with_bytes(2048)?).is_err());
    /// # Ok::<(), bloom::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] if the two differ in size: a value's block
    /// depends on the block count. `self` is then unchanged.
    pub fn union(&mut self, other: &Self) -> Result<(), Error> {
        if self.blocks.len() != other.blocks.len() {
            return Err(Error::incompatible("bytes", self.bytes(), other.bytes()));
        }
        for (a, b) in self.blocks.iter_mut().zip(&other.blocks) {
            for (x, y) in a.0.iter_mut().zip(b.0) {
                *x |= y;
            }
        }
        Ok(())
    }

    /// The bitset's length in bytes (32 per block).
    pub fn bytes(&self) -> usize {
        self.blocks.len() * 32
    }

    /// The number of 256-bit blocks z.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The number of set bits.
    pub fn ones(&self) -> u64 {
        self.blocks
            .iter()
            .flat_map(|b| b.0)
            .map(|w| u64::from(w.count_ones()))
            .sum()
    }

    /// The rate at which a value never inserted is reported present, as the
    /// fill predicts it: the mean over blocks of the product of the eight
    /// words' fills.
    pub fn expected_fpr(&self) -> f64 {
        let total: f64 = self
            .blocks
            .iter()
            .map(|b| {
                b.0.iter()
                    .map(|w| f64::from(w.count_ones()) / 32.0)
                    .product::<f64>()
            })
            .sum();
        #[allow(clippy::cast_precision_loss)]
        let blocks = self.blocks.len() as f64;
        total / blocks
    }
}

impl<V: ParquetValue + ?Sized> Filter<V> for ParquetBloomFilter {
    fn contains(&self, item: &V) -> bool {
        ParquetBloomFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        self.bytes()
    }
}

impl<V: ParquetValue + ?Sized> Insert<V> for ParquetBloomFilter {
    fn insert(&mut self, item: &V) -> Result<(), Error> {
        ParquetBloomFilter::insert(self, item);
        Ok(())
    }
}
