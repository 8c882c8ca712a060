//! Batched lookups (see [`filter_core::batch`]): the four buckets of the
//! key 32 ahead are requested while one is tested.

use std::hash::{BuildHasher, Hash};

use filter_core::batch::{Batch, Lookahead, PREFETCH_MIN_BYTES};
use filter_core::mix64;
use filter_core::prefetch::prefetch;

use super::DLeftCountingBloomFilter;
use super::table::LINE_WORDS;

impl<S: BuildHasher> Lookahead for DLeftCountingBloomFilter<S> {
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

impl<S: BuildHasher> DLeftCountingBloomFilter<S> {
    /// Whether each item of `items` may be present, in order: the answers
    /// of [`contains`](Self::contains), item by item, with the buckets of
    /// the item 32 ahead already requested from memory (tables of 8 MiB and
    /// more; see [`filter_core::batch`]).
    ///
    /// ```
    /// use counting_bloom::DLeftCountingBloomFilter;
    ///
    /// let mut open = DLeftCountingBloomFilter::with_fpr(1_000, 0.01)?;
    /// open.insert("10.0.0.1:443")?;
    /// let answers: Vec<bool> = open.contains_batch(["10.0.0.1:443", "10.0.0.2:80"]).collect();
    /// assert!(answers[0]);
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    pub fn contains_batch<'a>(
        &'a self,
        items: impl IntoIterator<Item: Hash, IntoIter: 'a>,
    ) -> impl Iterator<Item = bool> + 'a {
        Batch::new(self, items.into_iter().map(|item| self.mixed(&item)))
    }

    /// As [`contains_batch`](Self::contains_batch), for 64-bit hashes of
    /// the keys.
    pub fn contains_hash_batch<'a>(
        &'a self,
        hashes: impl IntoIterator<Item = u64, IntoIter: 'a>,
    ) -> impl Iterator<Item = bool> + 'a {
        Batch::new(self, hashes.into_iter().map(mix64))
    }
}
