//! Batched lookups, inserts and removals for both layouts (see
//! [`filter_core::batch`]): the cache lines a key's lookup or insert will
//! touch are prefetched 32 keys ahead,
//! k lines for [`CountingBloomFilter`], two for
//! [`BlockedCountingBloomFilter`].

use std::hash::{BuildHasher, Hash};

use filter_core::batch::{Batch, Lookahead, PREFETCH_MIN_BYTES, insert_all_ahead, remove_ahead};
use filter_core::prefetch::prefetch;
use filter_core::{CubicProbes, HashQuality, HashedProbes, LinearProbes, ProbeSequence, reduce};

use crate::counter_block::words;
use crate::counters::locate;
use crate::filter::with_probes;
use crate::{BlockedCountingBloomFilter, CountingBloomFilter};

impl<S: BuildHasher, Q: HashQuality> Lookahead for CountingBloomFilter<S, Q> {
    #[inline(always)]
    fn prefetch_hash(&self, hash: u64) {
        let hashes = self.hashes as usize;
        let mut ask = |position: usize| prefetch(&self.table, locate(position).0);
        with_probes!(self, hash, |probes| probes.take(hashes).for_each(&mut ask));
    }

    /// Branch-free at every size: the counters were prefetched, so the
    /// early exit that saves DRAM traffic in a lone lookup saves nothing
    /// here and mispredicts (measured at 10M keys, p = 1 %: 23 ns against
    /// 27 ns per key).
    #[inline(always)]
    fn lookup_hash(&self, hash: u64) -> bool {
        self.test_hash(hash, true)
    }

    fn worth_prefetching(&self) -> bool {
        self.table.len() * 8 >= PREFETCH_MIN_BYTES
    }

    // Faster at every size measured (1M keys, 1 %: 13.3 against 13.9 ns;
    // see `filter_core::batch`).
    fn answers_in_chunks(&self) -> bool {
        true
    }
}

impl<S: BuildHasher, Q: HashQuality> CountingBloomFilter<S, Q> {
    /// Whether each item of `items` may be present, in order: the answers
    /// of [`contains`](Self::contains), item by item, computed with the
    /// counters of the items 32 ahead already requested from memory
    /// (see [`filter_core::batch`]). Use it when the items are known up
    /// front and the table is larger than the cache: at 10M items and
    /// p = 1 % (a 48 MB table) a full `cargo xtask compare` measured
    /// 18.6 ns per item against 62.9 ns for [`contains`](Self::contains)
    /// one by one (shared 2-core AMD EPYC). Tables under 8 MiB are not
    /// prefetched, since in cache that costs more than it saves; on CPUs
    /// with AVX2, tables of every size answer 32 items at a time in a loop
    /// compiled for it ([chunks](filter_core::batch#chunks)).
    ///
    /// ```
    /// use counting_bloom::CountingBloomFilter;
    ///
    /// let mut blocklist = CountingBloomFilter::with_fpr(1_000, 0.01)?;
    /// blocklist.insert("spam.example");
    /// let senders = ["spam.example", "friend.example"];
    /// let blocked: Vec<bool> = blocklist.contains_batch(senders).collect();
    /// assert_eq!(blocked[0], true);
    /// # Ok::<(), counting_bloom::Error>(())
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

    /// As [`contains_batch`](Self::contains_batch), for raw 64-bit hashes.
    pub fn contains_hash_batch<'a>(
        &'a self,
        hashes: impl IntoIterator<Item = u64, IntoIter: 'a>,
    ) -> impl Iterator<Item = bool> + 'a {
        Batch::new(self, hashes.into_iter())
    }

    /// Inserts every item of `items`, in order: the filter ends exactly as
    /// [`insert`](Self::insert) on each item would leave it (saturated
    /// counters included), but the memory of the item 32 ahead is requested
    /// while one is inserted (see [`filter_core::batch`]). Use it to load
    /// many items at once; tables under 8 MiB are filled one by one, as by
    /// `insert`. [`Extend`] calls it.
    ///
    /// ```
    /// use counting_bloom::CountingBloomFilter;
    ///
    /// let blocklist = ["spam.example", "scam.example", "junk.example"];
    /// let mut blocked = CountingBloomFilter::with_fpr(1_000, 0.01)?;
    /// blocked.insert_batch(blocklist);
    /// assert!(blocked.remove("scam.example"));
    /// assert!(blocked.contains("spam.example") && blocked.contains("junk.example"));
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    pub fn insert_batch(&mut self, items: impl IntoIterator<Item: Hash>) {
        insert_all_ahead(
            self,
            items,
            |filter, item| filter.hasher.hash_one(item),
            Self::insert_hash,
        );
    }

    /// As [`insert_batch`](Self::insert_batch), for raw 64-bit hashes.
    pub fn insert_hash_batch(&mut self, hashes: impl IntoIterator<Item = u64>) {
        insert_all_ahead(self, hashes, |_, hash| hash, Self::insert_hash);
    }

    /// Removes every item of `items`, in order, and returns how many were
    /// removed: exactly the removals of [`remove`](Self::remove), item by
    /// item (an item with a zero counter is skipped and changes nothing),
    /// with the memory of the item 32 ahead requested while one is removed
    /// (see [`filter_core::batch`]). Use it to expire many items at once;
    /// tables under 8 MiB are emptied one by one, as by `remove`. The rule
    /// of `remove` holds for each item: only remove what was inserted.
    ///
    /// ```
    /// use counting_bloom::CountingBloomFilter;
    ///
    /// let mut blocked = CountingBloomFilter::with_fpr(1_000, 0.01)?;
    /// blocked.insert_batch(["spam.example", "scam.example", "junk.example"]);
    /// // Two entries leave the blocklist; "never.example" was never on it.
    /// let left = blocked.remove_batch(["scam.example", "junk.example", "never.example"]);
    /// assert_eq!(left, 2);
    /// assert!(blocked.contains("spam.example"));
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    pub fn remove_batch(&mut self, items: impl IntoIterator<Item: Hash>) -> usize {
        remove_ahead(
            self,
            items,
            |filter, item| filter.hasher.hash_one(item),
            Self::remove_hash,
        )
    }

    /// As [`remove_batch`](Self::remove_batch), for raw 64-bit hashes.
    pub fn remove_hash_batch(&mut self, hashes: impl IntoIterator<Item = u64>) -> usize {
        remove_ahead(self, hashes, |_, hash| hash, Self::remove_hash)
    }
}

impl<S: BuildHasher, Q: HashQuality> Lookahead for BlockedCountingBloomFilter<S, Q> {
    #[inline(always)]
    fn prefetch_hash(&self, hash: u64) {
        let (x, y) = words::<Q>(hash, self.patterns.mix);
        prefetch(&self.blocks, reduce(x, self.blocks.len()));
        prefetch(&self.blocks, reduce(y, self.blocks.len()));
    }

    #[inline(always)]
    fn lookup_hash(&self, hash: u64) -> bool {
        self.contains_hash(hash)
    }

    fn worth_prefetching(&self) -> bool {
        self.blocks.len() * 64 >= PREFETCH_MIN_BYTES
    }

    // Only with prefetching: in cache a chunk loop, with the kernel
    // inlined, measured slower than calling it per key (1M keys, 1 %:
    // 8.2–8.5 ns against 7.7, in a build that took the chunk's hashes
    // before answering them; see `filter_core::batch`).
    fn answers_in_chunks(&self) -> bool {
        self.worth_prefetching()
    }
}

impl<S: BuildHasher, Q: HashQuality> BlockedCountingBloomFilter<S, Q> {
    /// Whether each item of `items` may be present, in order: the answers
    /// of [`contains`](Self::contains), item by item, computed with the
    /// blocks of the items 32 ahead already requested from memory (see
    /// [`filter_core::batch`]). Use it when the items are known up front and
    /// the table is larger than the cache: at 10M items and p = 1 % (a
    /// 49 MB table) a full `cargo xtask compare` measured 12.6 ns per item
    /// against 41.4 ns for [`contains`](Self::contains) one by one (shared
    /// 2-core AMD EPYC). Tables under 8 MiB are looked up one by one, as
    /// by `contains`; larger ones, on CPUs with AVX2, 32 items at a time in
    /// a loop compiled for it, with the kernel inlined
    /// ([chunks](filter_core::batch#chunks)).
    ///
    /// ```
    /// use counting_bloom::BlockedCountingBloomFilter;
    ///
    /// let mut blocklist = BlockedCountingBloomFilter::with_fpr(1_000, 0.01)?;
    /// blocklist.insert(&42u64);
    /// let present = blocklist.contains_batch(&[42u64, 7]).filter(|&p| p).count();
    /// assert!(present >= 1);
    /// # Ok::<(), counting_bloom::Error>(())
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

    /// As [`contains_batch`](Self::contains_batch), for raw 64-bit hashes.
    pub fn contains_hash_batch<'a>(
        &'a self,
        hashes: impl IntoIterator<Item = u64, IntoIter: 'a>,
    ) -> impl Iterator<Item = bool> + 'a {
        Batch::new(self, hashes.into_iter())
    }

    /// Inserts every item of `items`, in order: the filter ends exactly as
    /// [`insert`](Self::insert) on each item would leave it (saturated
    /// counters included), but the memory of the item 32 ahead is requested
    /// while one is inserted (see [`filter_core::batch`]). Use it to load
    /// many items at once; tables under 8 MiB are filled one by one, as by
    /// `insert`. [`Extend`] calls it.
    ///
    /// ```
    /// use counting_bloom::BlockedCountingBloomFilter;
    ///
    /// let ids: Vec<u64> = (0..10_000).collect();
    /// let mut live = BlockedCountingBloomFilter::with_fpr(ids.len(), 0.01)?;
    /// live.insert_batch(&ids);
    /// assert!(ids.iter().all(|id| live.contains(id)));
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    pub fn insert_batch(&mut self, items: impl IntoIterator<Item: Hash>) {
        insert_all_ahead(
            self,
            items,
            |filter, item| filter.hasher.hash_one(item),
            Self::insert_hash,
        );
    }

    /// As [`insert_batch`](Self::insert_batch), for raw 64-bit hashes.
    pub fn insert_hash_batch(&mut self, hashes: impl IntoIterator<Item = u64>) {
        insert_all_ahead(self, hashes, |_, hash| hash, Self::insert_hash);
    }

    /// Removes every item of `items`, in order, and returns how many were
    /// removed: exactly the removals of [`remove`](Self::remove), item by
    /// item (an item with a zero counter is skipped and changes nothing),
    /// with the memory of the item 32 ahead requested while one is removed
    /// (see [`filter_core::batch`]). Use it to expire many items at once;
    /// tables under 8 MiB are emptied one by one, as by `remove`. The rule
    /// of `remove` holds for each item: only remove what was inserted.
    ///
    /// ```
    /// use counting_bloom::BlockedCountingBloomFilter;
    ///
    /// let ids: Vec<u64> = (0..10_000).collect();
    /// let mut live = BlockedCountingBloomFilter::with_fpr(ids.len(), 0.01)?;
    /// live.insert_batch(&ids);
    /// // The first half expires.
    /// assert_eq!(live.remove_batch(&ids[..5_000]), 5_000);
    /// assert!(ids[5_000..].iter().all(|id| live.contains(id)));
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    pub fn remove_batch(&mut self, items: impl IntoIterator<Item: Hash>) -> usize {
        remove_ahead(
            self,
            items,
            |filter, item| filter.hasher.hash_one(item),
            Self::remove_hash,
        )
    }

    /// As [`remove_batch`](Self::remove_batch), for raw 64-bit hashes.
    pub fn remove_hash_batch(&mut self, hashes: impl IntoIterator<Item = u64>) -> usize {
        remove_ahead(self, hashes, |_, hash| hash, Self::remove_hash)
    }
}
