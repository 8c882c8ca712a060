//! Batched lookups and inserts for both filters (see [`filter_core::batch`]):
//! the cache lines a key's lookup or insert will touch are prefetched 32 keys
//! ahead, k lines for [`BloomFilter`], one block for [`BlockedBloomFilter`].

use std::hash::{BuildHasher, Hash};

use filter_core::batch::{Batch, Lookahead, PREFETCH_MIN_BYTES, insert_all_ahead};
use filter_core::prefetch::prefetch;
use filter_core::{CubicProbes, HashQuality, HashedProbes, LinearProbes, ProbeSequence};

use crate::block::Probe;
use crate::classic::WORD_BITS;
use crate::{BlockedBloomFilter, BloomFilter};

impl<S: BuildHasher, Q: HashQuality> Lookahead for BloomFilter<S, Q> {
    #[inline(always)]
    fn prefetch_hash(&self, hash: u64) {
        let (words, len, hashes) = (self.bits.as_slice(), self.bits.len(), self.hashes as usize);
        let mut ask = |position: usize| prefetch(words, position / WORD_BITS);
        // The positions `insert_hash` and `contains_hash` will touch: the
        // same start for the same quality.
        match self.sequence {
            ProbeSequence::Linear => LinearProbes::new_for::<Q>(hash, len)
                .take(hashes)
                .for_each(&mut ask),
            ProbeSequence::Folded => LinearProbes::folded_for::<Q>(hash, len)
                .take(hashes)
                .for_each(&mut ask),
            ProbeSequence::Cubic => CubicProbes::new_for::<Q>(hash, len)
                .take(hashes)
                .for_each(&mut ask),
            ProbeSequence::Hashed => HashedProbes::new_for::<Q>(hash, len)
                .take(hashes)
                .for_each(&mut ask),
        }
    }

    /// Branch-free at every size: the k lines were prefetched, so the early
    /// exit that saves DRAM traffic in a lone lookup saves nothing here.
    #[inline(always)]
    fn lookup_hash(&self, hash: u64) -> bool {
        self.test_hash(hash, false)
    }

    fn worth_prefetching(&self) -> bool {
        size_of_val(self.bits.as_slice()) >= PREFETCH_MIN_BYTES
    }

    // Only with prefetching: in cache the chunk loop measured slower than
    // one lookup per call (100k keys, 1 %: 8.1 ns against 7.4; see
    // `filter_core::batch`).
    fn answers_in_chunks(&self) -> bool {
        self.worth_prefetching()
    }
}

impl<S: BuildHasher, Q: HashQuality> BloomFilter<S, Q> {
    /// Whether each item of `items` may be present, in order: the answers
    /// of [`contains`](Self::contains), item by item, computed with the bits
    /// of the items 32 ahead already requested from memory (see
    /// [`filter_core::batch`]). Use it when the items are known up front
    /// and the table is larger than the cache. Tables under 8 MiB are looked
    /// up one by one, as by `contains`; larger ones, on CPUs with AVX2, 32
    /// items at a time in a loop compiled for it
    /// ([chunks](filter_core::batch#chunks)).
    ///
    /// ```
    /// use bloom::BloomFilter;
    ///
    /// let mut seen = BloomFilter::with_fpr(1_000, 0.01)?;
    /// seen.insert("https://example.com/");
    /// let frontier = ["https://example.com/", "https://example.org/"];
    /// let known: Vec<bool> = seen.contains_batch(frontier).collect();
    /// assert!(known[0]);
    /// # Ok::<(), bloom::Error>(())
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
    /// [`insert`](Self::insert) on each item would leave it, but the memory
    /// of the item 32 ahead is requested while one is inserted (see
    /// [`filter_core::batch`]). Use it to load many keys at once (an
    /// SSTable's keys when it is written, a blocklist at start-up); tables
    /// under 8 MiB are filled one by one, as by `insert`.
    /// [`Extend`] calls it.
    ///
    /// ```
    /// use bloom::BloomFilter;
    ///
    /// let blocklist = ["spam.example", "scam.example", "junk.example"];
    /// let mut blocked = BloomFilter::with_fpr(blocklist.len(), 0.01)?;
    /// blocked.insert_batch(blocklist);
    /// assert!(blocklist.iter().all(|host| blocked.contains(host)));
    /// # Ok::<(), bloom::Error>(())
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
}

impl<S: BuildHasher, Q: HashQuality> Lookahead for BlockedBloomFilter<S, Q> {
    #[inline(always)]
    fn prefetch_hash(&self, hash: u64) {
        prefetch(&self.blocks, Probe::new::<Q>(hash, self.blocks.len()).block);
    }

    #[inline(always)]
    fn lookup_hash(&self, hash: u64) -> bool {
        self.contains_hash(hash)
    }

    fn worth_prefetching(&self) -> bool {
        size_of_val(&self.blocks[..]) >= PREFETCH_MIN_BYTES
    }

    // The AVX2 probe is inlined into the chunk loop instead of called per
    // key (see `filter_core::batch`).
    fn answers_in_chunks(&self) -> bool {
        true
    }
}

impl<S: BuildHasher, Q: HashQuality> BlockedBloomFilter<S, Q> {
    /// Whether each item of `items` may be present, in order: the answers
    /// of [`contains`](Self::contains), item by item, computed with the
    /// blocks of the items 32 ahead already requested from memory (see
    /// [`filter_core::batch`]). Use it when the items are known up front
    /// and the table is larger than the cache. Tables under 8 MiB are not
    /// prefetched, since in cache that costs more than it saves; on CPUs
    /// with AVX2, tables of every size answer 32 items at a time in a loop
    /// compiled for it ([chunks](filter_core::batch#chunks)).
    /// There the AVX2 probe is inlined instead of called once per item.
    ///
    /// ```
    /// use bloom::BlockedBloomFilter;
    ///
    /// let mut seen = BlockedBloomFilter::with_fpr(1_000, 0.01)?;
    /// seen.insert(&42u64);
    /// let present = seen.contains_batch(&[42u64, 7]).filter(|&p| p).count();
    /// assert!(present >= 1);
    /// # Ok::<(), bloom::Error>(())
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
    /// [`insert`](Self::insert) on each item would leave it, but the memory
    /// of the item 32 ahead is requested while one is inserted (see
    /// [`filter_core::batch`]). Use it to load many keys at once (an
    /// SSTable's keys when it is written, a blocklist at start-up); tables
    /// under 8 MiB are filled one by one, as by `insert`.
    /// [`Extend`] calls it.
    ///
    /// ```
    /// use bloom::BlockedBloomFilter;
    ///
    /// let ids: Vec<u64> = (0..10_000).collect();
    /// let mut keys = BlockedBloomFilter::with_fpr(ids.len(), 0.01)?;
    /// keys.insert_batch(&ids);
    /// assert!(ids.iter().all(|id| keys.contains(id)));
    /// # Ok::<(), bloom::Error>(())
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
}
