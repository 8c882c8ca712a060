//! Batched lookups through [`BatchContains`] (see [`filter_core::batch`]):
//! the words a key's lookup will read are requested 32 keys ahead, in
//! tables of 8 MiB or more, for the owned filter and its view alike.

use std::hash::Hash;

use filter_core::batch::{Lookahead, PREFETCH_MIN_BYTES};
use filter_core::{BatchContains, KeyHasher};

use super::{Ribbon, RibbonRef};

impl<S: KeyHasher> Lookahead for Ribbon<S> {
    #[inline(always)]
    fn prefetch_hash(&self, mixed: u64) {
        self.solution.prefetch_mixed(mixed);
    }

    #[inline(always)]
    fn lookup_hash(&self, mixed: u64) -> bool {
        self.contains_mixed(mixed)
    }

    fn worth_prefetching(&self) -> bool {
        self.solution.memory_bytes() >= PREFETCH_MIN_BYTES
    }
}

impl<S: KeyHasher> BatchContains for Ribbon<S> {
    #[inline(always)]
    fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hasher.mixed_hash(item)
    }
}

impl<S: KeyHasher> Lookahead for RibbonRef<'_, S> {
    #[inline(always)]
    fn prefetch_hash(&self, mixed: u64) {
        self.prefetch_mixed(mixed);
    }

    #[inline(always)]
    fn lookup_hash(&self, mixed: u64) -> bool {
        self.contains_mixed(mixed)
    }

    fn worth_prefetching(&self) -> bool {
        self.memory_bytes() >= PREFETCH_MIN_BYTES
    }
}

impl<S: KeyHasher> BatchContains for RibbonRef<'_, S> {
    #[inline(always)]
    fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hasher().mixed_hash(item)
    }
}
