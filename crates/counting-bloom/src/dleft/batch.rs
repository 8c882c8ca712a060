//! Batched lookups, inserts and removals through filter-core's
//! [`BatchContains`], [`BatchInsert`] and [`BatchRemove`]: the four buckets
//! of the key 32 ahead are requested while one is handled, in tables of
//! 8 MiB and more.
//!
//! ```
//! use counting_bloom::{BatchContains, BatchInsert, BatchRemove, DLeftCountingBloomFilter};
//!
//! let mut open = DLeftCountingBloomFilter::with_fpr(1_000, 0.01)?;
//! open.insert_batch(["10.0.0.1:443", "10.0.0.2:80"])?;
//! let answers: Vec<bool> = open.contains_batch(["10.0.0.1:443", "10.0.0.3:22"]).collect();
//! assert!(answers[0]);
//! assert_eq!(open.remove_batch(["10.0.0.2:80"]), 1);
//! # Ok::<(), counting_bloom::Error>(())
//! ```

use std::hash::Hash;

use filter_core::batch::{BatchContains, BatchInsert, BatchRemove, Lookahead, PREFETCH_MIN_BYTES};
use filter_core::prefetch::prefetch;
use filter_core::{Error, KeyHasher};

use super::DLeftCountingBloomFilter;
use super::table::LINE_WORDS;

impl<S: KeyHasher> Lookahead for DLeftCountingBloomFilter<S> {
    /// `mixed` is the key's mixed hash.
    #[inline(always)]
    fn prefetch_hash(&self, mixed: u64) {
        let place = self.shape.place(mixed);
        for word in place.words {
            prefetch(&self.table.lines, word / LINE_WORDS);
        }
    }

    #[inline(always)]
    fn lookup_hash(&self, mixed: u64) -> bool {
        self.contains_mixed(mixed)
    }

    fn worth_prefetching(&self) -> bool {
        self.memory_bytes() >= PREFETCH_MIN_BYTES
    }
}

impl<S: KeyHasher> BatchContains for DLeftCountingBloomFilter<S> {
    #[inline(always)]
    fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.mixed(item)
    }
}

impl<S: KeyHasher> BatchInsert for DLeftCountingBloomFilter<S> {
    fn batch_insert(&mut self, mixed: u64) -> Result<(), Error> {
        self.insert_mixed(mixed)
    }
}

impl<S: KeyHasher> BatchRemove for DLeftCountingBloomFilter<S> {
    fn batch_remove(&mut self, mixed: u64) -> bool {
        self.remove_mixed(mixed)
    }
}
