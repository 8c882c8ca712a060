//! The standard traits a user expects beyond `Clone`, for both filters: a
//! `Debug` that shows the filter's shape instead of its table, equality of
//! whole state, and `Extend` to insert many items in one call.

use std::fmt;
use std::hash::{BuildHasher, Hash};

use filter_core::{HashQuality, HasherProbe};

use crate::block::{BLOCK_BITS, BLOCK_HASHES};
use crate::{BlockedBloomFilter, BloomFilter};

impl<S, Q: HashQuality> fmt::Debug for BloomFilter<S, Q> {
    /// The shape, not the bits: a table can be gigabytes, and a `{:?}` in a
    /// log line should not print it (nor the bit set's heap address, which
    /// made equal filters print differently).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BloomFilter")
            .field("bits", &self.bits.len())
            .field("hashes", &self.hashes)
            .field("probe_sequence", &self.sequence)
            .field("hash_quality", &self.quality)
            .field("memory_bytes", &size_of_val(self.bits.as_slice()))
            .finish_non_exhaustive()
    }
}

impl<S, Q: HashQuality> fmt::Debug for BlockedBloomFilter<S, Q> {
    /// The shape, not the blocks: printing every block of a filter for 10^6
    /// keys took 1.36 MB of text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockedBloomFilter")
            .field("blocks", &self.blocks.len())
            .field("bits", &(self.blocks.len() as u64 * u64::from(BLOCK_BITS)))
            .field("hashes", &BLOCK_HASHES)
            .field("hash_quality", &self.quality)
            .field("memory_bytes", &size_of_val(self.blocks.as_slice()))
            .finish_non_exhaustive()
    }
}

/// Two filters (of one hash quality, which is part of the type) are equal
/// when they have the same bit and hash counts, the same probe sequence and
/// the same bits, and their hashers hash alike
/// ([`HasherProbe::same`], which asks integer keys only, so hashers for
/// integers alone compare too): then their
/// [`to_bytes`](BloomFilter::to_bytes) are equal as well. Equal
/// filters answer every query alike and stay equal under the same inserts.
impl<S: BuildHasher, Q: HashQuality> PartialEq for BloomFilter<S, Q> {
    fn eq(&self, other: &Self) -> bool {
        // Storage bits past `bits` are zero (an invariant), so equal words
        // of equal lengths are equal bit arrays.
        self.bits.len() == other.bits.len()
            && self.hashes == other.hashes
            && self.sequence == other.sequence
            && self.bits.as_slice() == other.bits.as_slice()
            && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: BuildHasher, Q: HashQuality> Eq for BloomFilter<S, Q> {}

/// Two filters (of one hash quality, which is part of the type) are equal
/// when they have the same blocks and their hashers hash alike ([`HasherProbe::same`]): then their
/// [`to_bytes`](BlockedBloomFilter::to_bytes) are equal as well. The lookup kernel
/// (AVX2 or portable) is not compared: both set and read the same bits.
impl<S: BuildHasher, Q: HashQuality> PartialEq for BlockedBloomFilter<S, Q> {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: BuildHasher, Q: HashQuality> Eq for BlockedBloomFilter<S, Q> {}

/// Inserts every item in order, as [`insert`](BloomFilter::insert)
/// does, through [`insert_batch`](BloomFilter::insert_batch): inserts never
/// fail, so neither does this. Items may be owned or borrowed, hashed
/// alike: `filter.extend(&ids)` takes a `&Vec<u64>`, `filter.extend(0..n)`
/// a range, `filter.extend(["a", "b"])` string slices.
impl<T: Hash, S: BuildHasher, Q: HashQuality> Extend<T> for BloomFilter<S, Q> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        self.insert_batch(items);
    }
}

/// Inserts every item in order, as [`insert`](BlockedBloomFilter::insert)
/// does, through [`insert_batch`](BlockedBloomFilter::insert_batch): inserts never
/// fail, so neither does this. Items may be owned or borrowed, hashed
/// alike: `filter.extend(&ids)` takes a `&Vec<u64>`, `filter.extend(0..n)`
/// a range, `filter.extend(["a", "b"])` string slices.
impl<T: Hash, S: BuildHasher, Q: HashQuality> Extend<T> for BlockedBloomFilter<S, Q> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        self.insert_batch(items);
    }
}
