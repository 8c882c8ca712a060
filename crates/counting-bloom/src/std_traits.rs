//! The standard traits a user expects beyond `Clone`, for both filters: a
//! `Debug` that shows the filter's shape instead of its table, equality of
//! whole state, and `Extend` to insert many items in one call.

use std::fmt;
use std::hash::{BuildHasher, Hash};

use filter_core::{HashQuality, HasherProbe};

use crate::{BlockedCountingBloomFilter, CountingBloomFilter};

impl<S, Q: HashQuality> fmt::Debug for CountingBloomFilter<S, Q> {
    /// The shape, not the table: a table can be gigabytes, and a `{:?}` in
    /// a log line should not print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CountingBloomFilter")
            .field("counters", &self.counters)
            .field("hashes", &self.hashes)
            .field("probe_sequence", &self.sequence)
            .field("saturated_counters", &self.saturated)
            .field("memory_bytes", &self.memory_bytes())
            .field("hash_quality", &Q::NAME)
            .finish_non_exhaustive()
    }
}

impl<S, Q: HashQuality> fmt::Debug for BlockedCountingBloomFilter<S, Q> {
    /// The shape, not the blocks, and how keys' hashes become their words
    /// (`Folded`, or `SplitMix` in a filter loaded from bytes older than
    /// format 1.5).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockedCountingBloomFilter")
            .field("blocks", &self.blocks.len())
            .field("hashes", &self.hashes)
            .field("pair_mix", &self.patterns.mix)
            .field("saturated_counters", &self.saturated)
            .field("memory_bytes", &self.memory_bytes())
            .field("hash_quality", &Q::NAME)
            .finish_non_exhaustive()
    }
}

/// Two filters are equal when they have the same counter and hash counts,
/// the same probe sequence and the same counters, and their hashers hash
/// alike ([`HasherProbe::same`], which asks integer keys only, so hashers
/// for integers alone compare too): then their
/// [`to_bytes`](CountingBloomFilter::to_bytes) are equal as well. The saturated-counter count follows from the counters, so it
/// needs no comparison. Equal filters answer every query (and
/// [`count`](CountingBloomFilter::count)) alike and stay equal under the
/// same operations.
impl<S: BuildHasher, Q: HashQuality> PartialEq for CountingBloomFilter<S, Q> {
    fn eq(&self, other: &Self) -> bool {
        self.counters == other.counters
            && self.hashes == other.hashes
            && self.sequence == other.sequence
            && self.table == other.table
            && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: BuildHasher, Q: HashQuality> Eq for CountingBloomFilter<S, Q> {}

/// Two filters are equal when they have the same hash count, the same
/// key mix (both new, or both loaded from bytes older than format 1.5) and
/// the same blocks, and their hashers hash alike ([`HasherProbe::same`]): then their
/// [`to_bytes`](BlockedCountingBloomFilter::to_bytes) are equal as well. The
/// saturated-counter count follows from the blocks and the kernel (AVX2 or
/// portable) computes the same counters, so neither is compared.
impl<S: BuildHasher, Q: HashQuality> PartialEq for BlockedCountingBloomFilter<S, Q> {
    fn eq(&self, other: &Self) -> bool {
        self.hashes == other.hashes
            && self.patterns.mix == other.patterns.mix
            && self.blocks == other.blocks
            && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<S: BuildHasher, Q: HashQuality> Eq for BlockedCountingBloomFilter<S, Q> {}

/// Inserts every item in order, as [`insert`](CountingBloomFilter::insert)
/// does, through [`insert_batch`](CountingBloomFilter::insert_batch): inserts never
/// fail, so neither does this. Items may be owned or borrowed, hashed
/// alike: `filter.extend(&ids)` takes a `&Vec<u64>`, `filter.extend(0..n)`
/// a range, `filter.extend(["a", "b"])` string slices.
impl<T: Hash, S: BuildHasher, Q: HashQuality> Extend<T> for CountingBloomFilter<S, Q> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        self.insert_batch(items);
    }
}

/// Inserts every item in order, as [`insert`](BlockedCountingBloomFilter::insert)
/// does, through [`insert_batch`](BlockedCountingBloomFilter::insert_batch): inserts never
/// fail, so neither does this. Items may be owned or borrowed, hashed
/// alike: `filter.extend(&ids)` takes a `&Vec<u64>`, `filter.extend(0..n)`
/// a range, `filter.extend(["a", "b"])` string slices.
impl<T: Hash, S: BuildHasher, Q: HashQuality> Extend<T> for BlockedCountingBloomFilter<S, Q> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        self.insert_batch(items);
    }
}
