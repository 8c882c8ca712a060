//! Batched lookups ([`BatchContains`]) for
//! every type of the crate, owned and borrowed: the three slots a key's
//! lookup will read are prefetched 32 keys ahead (see
//! [`filter_core::batch`]) in tables of 8 MiB or more, and on CPUs with
//! AVX2 a batch answers 32 queries at a time in a loop compiled for it.
//! In cache, prefetching costs more than it saves (every key is located
//! twice), so smaller tables only take the chunked loop.

use std::hash::Hash;

use filter_core::batch::{Lookahead, PREFETCH_MIN_BYTES};
use filter_core::{BatchContains, KeyHasher};

use crate::fingerprint::Fingerprint;
use crate::{
    BinaryFuse, BinaryFuseRef, PartitionedBinaryFuse, PartitionedBinaryFuseRef, Xor, XorRef,
};

/// Implements [`Lookahead`] and [`BatchContains`] for `$name`, whose
/// `batch_key`, `batch_key_of_hash`, `batch_lookup`, `prefetch_slots`
/// and `memory_bytes` it calls.
macro_rules! batch_contains {
    ($($lt:lifetime,)? $name:ident) => {
        impl<$($lt,)? F: Fingerprint, S: KeyHasher> Lookahead for $name<$($lt,)? F, S> {
            #[inline(always)]
            fn prefetch_hash(&self, hash: u64) {
                self.prefetch_slots(hash);
            }

            #[inline(always)]
            fn lookup_hash(&self, hash: u64) -> bool {
                self.batch_lookup(hash)
            }

            fn worth_prefetching(&self) -> bool {
                self.memory_bytes() >= PREFETCH_MIN_BYTES
            }

            fn answers_in_chunks(&self) -> bool {
                true
            }
        }

        impl<$($lt,)? F: Fingerprint, S: KeyHasher> BatchContains for $name<$($lt,)? F, S> {
            #[inline(always)]
            fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64 {
                self.batch_key(item)
            }

            #[inline(always)]
            fn batch_hash_of_hash(&self, hash: u64) -> u64 {
                self.batch_key_of_hash(hash)
            }
        }
    };
}

batch_contains!(Xor);
batch_contains!(BinaryFuse);
batch_contains!(PartitionedBinaryFuse);
batch_contains!('a, XorRef);
batch_contains!('a, BinaryFuseRef);
batch_contains!('a, PartitionedBinaryFuseRef);
