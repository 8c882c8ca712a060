//! The standard traits a user expects beyond `Clone`, for both filters: a
//! `Debug` that shows the filter's shape instead of its table, equality of
//! whole state, and `Extend` to insert many items in one call.
//!
//! `Extend` only where inserts cannot fail: it has no way to return an
//! error. [`ScalableBloomFilter`](crate::ScalableBloomFilter), whose inserts
//! can be refused past its memory cap, has equality (beside its fields, in
//! `scalable.rs`) but no `Extend`; its `insert_batch` returns the error.

use std::fmt;
use std::hash::Hash;

use filter_core::batch::insert_all_ahead;
use filter_core::{HasherProbe, KeyHasher};

use crate::block::{BLOCK_BITS, BLOCK_HASHES};
use crate::{BlockedBloomFilter, BloomFilter};

impl<S> fmt::Debug for BloomFilter<S> {
    /// The shape, not the bits: a table can be gigabytes, and a `{:?}` in a
    /// log line should not print it (nor the bit set's heap address, which
    /// would make equal filters print differently).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BloomFilter")
            .field("bits", &self.bits.len())
            .field("hashes", &self.hashes)
            .field("memory_bytes", &size_of_val(self.bits.as_slice()))
            .finish_non_exhaustive()
    }
}

impl<S> fmt::Debug for BlockedBloomFilter<S> {
    /// The shape, not the blocks: a table can be gigabytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockedBloomFilter")
            .field("blocks", &self.blocks.len())
            .field("bits", &(self.blocks.len() as u64 * u64::from(BLOCK_BITS)))
            .field("hashes", &BLOCK_HASHES)
            .field("memory_bytes", &size_of_val(self.blocks.as_slice()))
            .finish_non_exhaustive()
    }
}

/// Two filters are equal when they have the same bit and hash counts and
/// the same bits, and their hashers hash alike
/// ([`HasherProbe::same`], which asks integer keys only, so hashers for
/// integers alone compare too): then their
/// [`to_bytes`](BloomFilter::to_bytes) are equal as well. Equal
/// filters answer every query alike and stay equal under the same inserts.
impl<S: KeyHasher> PartialEq for BloomFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        // Storage bits past `bits` are zero (an invariant), so equal words
        // of equal lengths are equal bit arrays.
        self.bits.len() == other.bits.len()
            && self.hashes == other.hashes
            && self.bits.as_slice() == other.bits.as_slice()
            && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: KeyHasher> Eq for BloomFilter<S> {}

/// Two filters are equal when they have the same blocks and their hashers hash alike ([`HasherProbe::same`]): then their
/// [`to_bytes`](BlockedBloomFilter::to_bytes) are equal as well. The lookup kernel
/// (AVX2 or portable) is not compared: both set and read the same bits.
impl<S: KeyHasher> PartialEq for BlockedBloomFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: KeyHasher> Eq for BlockedBloomFilter<S> {}

/// Inserts every item in order, as [`insert`](BloomFilter::insert)
/// does, through [`insert_batch`](crate::BatchInsert::insert_batch): inserts never
/// fail, so neither does this. Items may be owned or borrowed, hashed
/// alike: `filter.extend(&ids)` takes a `&Vec<u64>`, `filter.extend(0..n)`
/// a range, `filter.extend(["a", "b"])` string slices.
impl<T: Hash, S: KeyHasher> Extend<T> for BloomFilter<S> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        insert_all_ahead(
            self,
            items,
            |filter, item| filter.hasher.mixed_hash(&item),
            |filter, mixed| {
                filter.insert_mixed(mixed);
            },
        );
    }
}

/// Inserts every item in order, as [`insert`](BlockedBloomFilter::insert)
/// does, through [`insert_batch`](crate::BatchInsert::insert_batch): inserts never
/// fail, so neither does this. Items may be owned or borrowed, hashed
/// alike: `filter.extend(&ids)` takes a `&Vec<u64>`, `filter.extend(0..n)`
/// a range, `filter.extend(["a", "b"])` string slices.
impl<T: Hash, S: KeyHasher> Extend<T> for BlockedBloomFilter<S> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        insert_all_ahead(
            self,
            items,
            |filter, item| filter.hasher.mixed_hash(&item),
            |filter, mixed| {
                filter.insert_mixed(mixed);
            },
        );
    }
}
