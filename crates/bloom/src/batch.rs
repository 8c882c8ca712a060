//! Batched lookups and inserts for both filters, through filter-core's
//! [`BatchContains`] and [`BatchInsert`]: the cache lines a key's lookup or
//! insert will touch are requested 32 keys ahead, k lines for
//! [`BloomFilter`], one block for [`BlockedBloomFilter`].
//!
//! Why the classic filter's batched lookups are branch-free at every size:
//! the k lines were prefetched, so the early exit that saves DRAM traffic
//! in a lone lookup saves nothing here. Why it answers in AVX2 chunks only
//! when it prefetches: in cache its chunk loop measured slower than one
//! lookup per call. The blocked filter answers in chunks at every size: its
//! AVX2 probe is then inlined instead of called once per key.

use std::hash::Hash;

use filter_core::batch::{BatchContains, BatchInsert, Lookahead, PREFETCH_MIN_BYTES};
use filter_core::prefetch::prefetch;
use filter_core::probes::{CubicProbes, HashedProbes, LinearProbes, ProbeSequence};
use filter_core::{Error, KeyHasher};

use crate::block::Probe;
use crate::classic::WORD_BITS;
use crate::{BlockedBloomFilter, BloomFilter};

impl<S: KeyHasher> Lookahead for BloomFilter<S> {
    #[inline(always)]
    fn prefetch_hash(&self, mixed: u64) {
        let (words, len, hashes) = (self.bits.as_slice(), self.bits.len(), self.hashes as usize);
        let mut ask = |position: usize| prefetch(words, position / WORD_BITS);
        match self.sequence {
            ProbeSequence::Linear => LinearProbes::new(mixed, len)
                .take(hashes)
                .for_each(&mut ask),
            ProbeSequence::Cubic => CubicProbes::new(mixed, len).take(hashes).for_each(&mut ask),
            ProbeSequence::Hashed => HashedProbes::new(mixed, len)
                .take(hashes)
                .for_each(&mut ask),
        }
    }

    #[inline(always)]
    fn lookup_hash(&self, mixed: u64) -> bool {
        self.test_mixed(mixed, false)
    }

    fn worth_prefetching(&self) -> bool {
        size_of_val(self.bits.as_slice()) >= PREFETCH_MIN_BYTES
    }

    fn answers_in_chunks(&self) -> bool {
        self.worth_prefetching()
    }
}

impl<S: KeyHasher> BatchContains for BloomFilter<S> {
    #[inline(always)]
    fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hasher.mixed_hash(item)
    }
}

impl<S: KeyHasher> BatchInsert for BloomFilter<S> {
    #[inline(always)]
    fn batch_insert(&mut self, mixed: u64) -> Result<(), Error> {
        self.insert_mixed(mixed);
        Ok(())
    }
}

impl<S: KeyHasher> Lookahead for BlockedBloomFilter<S> {
    #[inline(always)]
    fn prefetch_hash(&self, mixed: u64) {
        prefetch(&self.blocks, Probe::new(mixed, self.blocks.len()).block);
    }

    #[inline(always)]
    fn lookup_hash(&self, mixed: u64) -> bool {
        self.contains_mixed(mixed)
    }

    fn worth_prefetching(&self) -> bool {
        size_of_val(&self.blocks[..]) >= PREFETCH_MIN_BYTES
    }

    fn answers_in_chunks(&self) -> bool {
        true
    }
}

impl<S: KeyHasher> BatchContains for BlockedBloomFilter<S> {
    #[inline(always)]
    fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hasher.mixed_hash(item)
    }
}

impl<S: KeyHasher> BatchInsert for BlockedBloomFilter<S> {
    #[inline(always)]
    fn batch_insert(&mut self, mixed: u64) -> Result<(), Error> {
        self.insert_mixed(mixed);
        Ok(())
    }
}
