//! Batched lookups, inserts and removals for both layouts, through
//! filter-core's [`BatchContains`], [`BatchInsert`] and [`BatchRemove`]:
//! the cache lines a key's operation will touch are requested 32 keys
//! ahead, k lines for [`CountingBloomFilter`], two for
//! [`BlockedCountingBloomFilter`].
//!
//! The batch engine works on mixed hashes, as the filters do: a key's is
//! its hasher's [`mixed_hash`](KeyHasher::mixed_hash), a 64-bit hash's is
//! its [`mix64`](filter_core::mix64), so batched answers and counters are exactly those of the
//! one-by-one methods.
//!
//! Why the classic layout answers in chunks at every size and the blocked
//! one only from [`PREFETCH_MIN_BYTES`]: in cache, the blocked layout's
//! chunk loop (its AVX2 kernel inlined) was slower than one call per key,
//! while the classic layout's gathers gained from it at every size.

use std::hash::Hash;

use filter_core::batch::{Lookahead, PREFETCH_MIN_BYTES};
use filter_core::prefetch::prefetch;
use filter_core::probes::{CubicProbes, HashedProbes, LinearProbes, ProbeSequence};
use filter_core::{BatchContains, BatchInsert, BatchRemove, Error, KeyHasher, reduce};

use crate::counter_block::words;
use crate::counters::locate;
use crate::filter::with_probes;
use crate::{BlockedCountingBloomFilter, CountingBloomFilter};

impl<S: KeyHasher> Lookahead for CountingBloomFilter<S> {
    #[inline(always)]
    fn prefetch_hash(&self, mixed: u64) {
        let hashes = self.hashes as usize;
        let mut ask = |position: usize| prefetch(&self.table, locate(position).0);
        with_probes!(self, mixed, |probes| probes.take(hashes).for_each(&mut ask));
    }

    /// Branch-free at every size: the counters were prefetched, so the
    /// early exit that saves DRAM traffic in a lone lookup saves nothing
    /// here and mispredicts.
    #[inline(always)]
    fn lookup_hash(&self, mixed: u64) -> bool {
        self.test_mixed(mixed, true)
    }

    fn worth_prefetching(&self) -> bool {
        self.table.len() * 8 >= PREFETCH_MIN_BYTES
    }

    fn answers_in_chunks(&self) -> bool {
        true
    }
}

impl<S: KeyHasher> BatchContains for CountingBloomFilter<S> {
    #[inline(always)]
    fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hasher.mixed_hash(item)
    }
}

impl<S: KeyHasher> BatchInsert for CountingBloomFilter<S> {
    /// Never fails: saturated counters only raise the false-positive rate.
    #[inline(always)]
    fn batch_insert(&mut self, mixed: u64) -> Result<(), Error> {
        self.insert_mixed(mixed);
        Ok(())
    }
}

impl<S: KeyHasher> BatchRemove for CountingBloomFilter<S> {
    #[inline(always)]
    fn batch_remove(&mut self, mixed: u64) -> bool {
        self.remove_mixed(mixed)
    }
}

impl<S: KeyHasher> Lookahead for BlockedCountingBloomFilter<S> {
    #[inline(always)]
    fn prefetch_hash(&self, mixed: u64) {
        let (x, y) = words(mixed);
        prefetch(&self.blocks, reduce(x, self.blocks.len()));
        prefetch(&self.blocks, reduce(y, self.blocks.len()));
    }

    #[inline(always)]
    fn lookup_hash(&self, mixed: u64) -> bool {
        self.contains_mixed(mixed)
    }

    fn worth_prefetching(&self) -> bool {
        self.blocks.len() * 64 >= PREFETCH_MIN_BYTES
    }

    fn answers_in_chunks(&self) -> bool {
        self.worth_prefetching()
    }
}

impl<S: KeyHasher> BatchContains for BlockedCountingBloomFilter<S> {
    #[inline(always)]
    fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hasher.mixed_hash(item)
    }
}

impl<S: KeyHasher> BatchInsert for BlockedCountingBloomFilter<S> {
    /// Never fails: saturated counters only raise the false-positive rate.
    #[inline(always)]
    fn batch_insert(&mut self, mixed: u64) -> Result<(), Error> {
        self.insert_mixed(mixed);
        Ok(())
    }
}

impl<S: KeyHasher> BatchRemove for BlockedCountingBloomFilter<S> {
    #[inline(always)]
    fn batch_remove(&mut self, mixed: u64) -> bool {
        self.remove_mixed(mixed)
    }
}
