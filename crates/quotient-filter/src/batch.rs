//! Batched lookups, inserts and removals through filter-core's batch
//! traits: the lookahead works on the mixed hash, and prefetches the block
//! of its quotient once the table is larger than a core's own cache
//! ([`PREFETCH_BYTES`]).
//!
//! `insert_batch` and `remove_batch` (and their `_hash` twins) take another
//! way for a batch that is large next to the filter: sort its fingerprints
//! and rebuild the table from them and the filter's entries in one pass.
//! An insert or remove in a filter near its maximum load shifts a long
//! stretch of slots; the rebuild writes each slot once, so a bulk load or
//! purge costs a sort and a pass instead. It keeps the traits' contract,
//! the state one-by-one operations leave, because a table is a function of
//! the multiset it holds (loading bytes relies on the same fact); see
//! `QuotientFilter::insert_mixed_batch`.
//! The price is memory while it runs (the hashes, their fingerprints and
//! the new table beside the old), which is why a long batch is taken a
//! table's worth of items at a time, and why small batches, and batches
//! small next to a full filter (where the pass over the whole table would
//! cost more than their inserts), still go one by one.

use std::hash::Hash;

use filter_core::batch::{BatchContains, BatchInsert, BatchRemove, Lookahead};
use filter_core::{Error, KeyHasher};

use crate::QuotientFilter;

/// Tables at least this large are prefetched: 1 MiB, a core's own cache on
/// many CPUs, where the workspace's default waits for 8 MiB. A lookup reads
/// the run's metadata and then, from what it finds there, its remainders:
/// two dependent reads, which a loop of lookups overlaps poorly, so the
/// lookahead pays as soon as the table leaves the core's cache.
const PREFETCH_BYTES: usize = 1 << 20;

impl<S: KeyHasher> Lookahead for QuotientFilter<S> {
    #[inline]
    fn prefetch_hash(&self, hash: u64) {
        filter_core::prefetch::prefetch(self.core.table().words(), self.core.block_word(hash));
    }

    #[inline]
    fn lookup_hash(&self, hash: u64) -> bool {
        self.core.contains(hash)
    }

    fn worth_prefetching(&self) -> bool {
        self.memory_bytes() >= PREFETCH_BYTES
    }
}

impl<S: KeyHasher> BatchContains for QuotientFilter<S> {
    #[inline]
    fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hasher.mixed_hash(item)
    }
}

impl<S: KeyHasher> BatchInsert for QuotientFilter<S> {
    fn batch_insert(&mut self, hash: u64) -> Result<(), Error> {
        self.insert_mixed(hash)
    }

    /// Inserts every item of `items`, in order: the filter ends as
    /// one-by-one inserts leave it. The items are taken as many at a time
    /// as the filter has [quotients](QuotientFilter::quotients); a chunk of
    /// at least 256 items and a quarter of [`len`](QuotientFilter::len) is
    /// sorted and written in one pass over the table, holding 16 bytes for
    /// each of its items and each entry already in the filter, and a
    /// second table, while it runs.
    ///
    /// # Errors
    ///
    /// As one-by-one inserts: the first error (`Full`); the items before
    /// it are inserted, it and those after it are not.
    fn insert_batch<I>(&mut self, items: I) -> Result<(), Error>
    where
        I: IntoIterator<Item: Hash>,
    {
        self.insert_chunked(items, |filter, item| filter.hasher.mixed_hash(&item))
    }

    /// As [`insert_batch`](BatchInsert::insert_batch), for 64-bit hashes.
    ///
    /// # Errors
    ///
    /// As [`insert_batch`](BatchInsert::insert_batch).
    fn insert_hash_batch<I>(&mut self, hashes: I) -> Result<(), Error>
    where
        I: IntoIterator<Item = u64>,
    {
        self.insert_chunked(hashes, |_, hash| filter_core::mix64(hash))
    }
}

impl<S: KeyHasher> BatchRemove for QuotientFilter<S> {
    fn batch_remove(&mut self, hash: u64) -> bool {
        self.core.remove(hash)
    }

    /// Removes one copy of each item of `items`, in order; returns how
    /// many removals succeeded. The filter ends as one-by-one removes leave
    /// it. Items are taken in chunks as [`insert_batch`](Self::insert_batch)
    /// takes them, and a large chunk is taken out in one pass over the
    /// table, with the same memory while it runs.
    fn remove_batch<I>(&mut self, items: I) -> usize
    where
        I: IntoIterator<Item: Hash>,
    {
        self.remove_chunked(items, |filter, item| filter.hasher.mixed_hash(&item))
    }

    /// As [`remove_batch`](BatchRemove::remove_batch), for 64-bit hashes.
    fn remove_hash_batch<I>(&mut self, hashes: I) -> usize
    where
        I: IntoIterator<Item = u64>,
    {
        self.remove_chunked(hashes, |_, hash| filter_core::mix64(hash))
    }
}
