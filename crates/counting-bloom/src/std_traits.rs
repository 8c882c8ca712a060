//! The standard traits a user expects beyond `Clone`, for both filters: a
//! `Debug` that shows the filter's shape instead of its table, equality of
//! whole state, and `Extend` to insert many items in one call.

use std::fmt;
use std::hash::Hash;

use filter_core::batch::insert_all_ahead;
use filter_core::{HasherProbe, KeyHasher};

use crate::{BlockedCountingBloomFilter, CountingBloomFilter};

impl<S> fmt::Debug for CountingBloomFilter<S> {
    /// The shape, not the table: a table can be gigabytes, and a `{:?}` in
    /// a log line should not print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CountingBloomFilter")
            .field("counters", &self.counters)
            .field("hashes", &self.hashes)
            .field("saturated_counters", &self.saturated)
            .field("memory_bytes", &self.memory_bytes())
            .finish_non_exhaustive()
    }
}

impl<S> fmt::Debug for BlockedCountingBloomFilter<S> {
    /// The shape, not the blocks.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockedCountingBloomFilter")
            .field("blocks", &self.blocks.len())
            .field("hashes", &self.hashes)
            .field("saturated_counters", &self.saturated)
            .field("memory_bytes", &self.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// Two filters are equal when they have the same counter and hash counts
/// and the same counters, and their hashers hash alike
/// ([`HasherProbe::same`], which asks integer keys only, so hashers for
/// integers alone compare too): then their
/// [`to_bytes`](CountingBloomFilter::to_bytes) are equal as well. The
/// saturated-counter count follows from the counters, so it needs no
/// comparison. Equal filters answer every query (and
/// [`count`](CountingBloomFilter::count)) alike and stay equal under the
/// same operations.
impl<S: KeyHasher> PartialEq for CountingBloomFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.counters == other.counters
            && self.hashes == other.hashes
            && self.table == other.table
            && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: KeyHasher> Eq for CountingBloomFilter<S> {}

/// Two filters are equal when they have the same hash count and the same
/// blocks, and their hashers hash alike ([`HasherProbe::same`]): then their
/// [`to_bytes`](BlockedCountingBloomFilter::to_bytes) are equal as well. The
/// saturated-counter count follows from the blocks and the kernel (AVX2 or
/// portable) computes the same counters, so neither is compared.
impl<S: KeyHasher> PartialEq for BlockedCountingBloomFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.hashes == other.hashes
            && self.blocks == other.blocks
            && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: KeyHasher> Eq for BlockedCountingBloomFilter<S> {}

/// Inserts every item in order, as [`insert`](CountingBloomFilter::insert)
/// does, with the memory of the item 32 ahead requested while one is
/// inserted (as [`insert_batch`](filter_core::BatchInsert::insert_batch)):
/// inserts never fail, so neither does this. Items may be owned or
/// borrowed, hashed alike: `filter.extend(&ids)` takes a `&Vec<u64>`,
/// `filter.extend(0..n)` a range, `filter.extend(["a", "b"])` string slices.
impl<T: Hash, S: KeyHasher> Extend<T> for CountingBloomFilter<S> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        insert_all_ahead(
            self,
            items,
            |filter, item| filter.hasher.mixed_hash(&item),
            Self::insert_mixed,
        );
    }
}

/// Inserts every item in order, as
/// [`insert`](BlockedCountingBloomFilter::insert) does, with the memory of
/// the item 32 ahead requested while one is inserted (as
/// [`insert_batch`](filter_core::BatchInsert::insert_batch)): inserts never
/// fail, so neither does this.
impl<T: Hash, S: KeyHasher> Extend<T> for BlockedCountingBloomFilter<S> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        insert_all_ahead(
            self,
            items,
            |filter, item| filter.hasher.mixed_hash(&item),
            Self::insert_mixed,
        );
    }
}
