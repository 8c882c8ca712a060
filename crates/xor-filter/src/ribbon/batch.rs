//! Batched lookups (see [`filter_core::batch`]): the words a key's lookup
//! will read are prefetched 32 keys ahead.

use std::hash::{BuildHasher, Hash};

use filter_core::batch::{Batch, Lookahead, PREFETCH_MIN_BYTES};

use super::Ribbon;

impl<S: BuildHasher> Lookahead for Ribbon<S> {
    #[inline(always)]
    fn prefetch_hash(&self, hash: u64) {
        self.solution.prefetch_hash(hash);
    }

    #[inline(always)]
    fn lookup_hash(&self, hash: u64) -> bool {
        self.contains_hash(hash)
    }

    fn worth_prefetching(&self) -> bool {
        self.solution.memory_bytes() >= PREFETCH_MIN_BYTES
    }
}

impl<S: BuildHasher> Ribbon<S> {
    /// Whether each item of `items` may be among the keys, in order: the
    /// answers of [`contains`](Self::contains), item by item, computed with
    /// the words of the items 32 ahead already requested from memory (see
    /// [`filter_core::batch`]). Use it when the items are known up front
    /// and the table is larger than the last-level cache; tables under
    /// 8 MiB are not prefetched.
    ///
    /// ```
    /// use xor_filter::Ribbon;
    ///
    /// let tables = ["users", "orders", "invoices"];
    /// let filter = Ribbon::from_keys_with_fpr(&tables, 0.001)?;
    /// let asked = ["orders", "refunds", "users"];
    /// let maybe: Vec<bool> = filter.contains_batch(asked).collect();
    /// assert!(maybe[0] && maybe[2]);
    /// # Ok::<(), xor_filter::Error>(())
    /// ```
    pub fn contains_batch<'a>(
        &'a self,
        items: impl IntoIterator<Item: Hash, IntoIter: 'a>,
    ) -> impl Iterator<Item = bool> + 'a {
        Batch::new(
            self,
            items.into_iter().map(|item| self.hasher.hash_one(item)),
        )
    }

    /// As [`contains_batch`](Self::contains_batch), for raw 64-bit hashes
    /// (as [`contains_hash`](Self::contains_hash) takes them).
    pub fn contains_hash_batch<'a>(
        &'a self,
        hashes: impl IntoIterator<Item = u64, IntoIter: 'a>,
    ) -> impl Iterator<Item = bool> + 'a {
        Batch::new(self, hashes.into_iter())
    }
}
