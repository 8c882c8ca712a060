//! Batched lookups, inserts and removals through filter-core's batch
//! traits: the lookahead works on the mixed hash, and prefetches the block
//! of its quotient once the table is larger than the caches hold.

use std::hash::Hash;

use filter_core::batch::{BatchContains, BatchInsert, BatchRemove, Lookahead, PREFETCH_MIN_BYTES};
use filter_core::{Error, KeyHasher};

use crate::QuotientFilter;

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
        self.memory_bytes() >= PREFETCH_MIN_BYTES
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
}

impl<S: KeyHasher> BatchRemove for QuotientFilter<S> {
    fn batch_remove(&mut self, hash: u64) -> bool {
        self.core.remove(hash)
    }
}
