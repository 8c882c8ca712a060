//! Batched lookups for both filters (see [`filter_core::batch`]): the cache
//! lines a key's lookup will read are prefetched 32 keys ahead, k lines
//! for [`BloomFilter`], one block for [`BlockedBloomFilter`].

use std::hash::{BuildHasher, Hash};

use filter_core::batch::{Batch, Lookahead, PREFETCH_MIN_BYTES};
use filter_core::prefetch::prefetch;
use filter_core::{CubicProbes, LinearProbes, ProbeSequence};

use crate::block::Probe;
use crate::classic::WORD_BITS;
use crate::{BlockedBloomFilter, BloomFilter};

impl<S: BuildHasher> Lookahead for BloomFilter<S> {
    #[inline(always)]
    fn prefetch_hash(&self, hash: u64) {
        let (words, len, hashes) = (self.bits.as_slice(), self.bits.len(), self.hashes as usize);
        let mut ask = |position: usize| prefetch(words, position / WORD_BITS);
        match self.sequence {
            ProbeSequence::Linear => LinearProbes::new(hash, len).take(hashes).for_each(&mut ask),
            ProbeSequence::Cubic => CubicProbes::new(hash, len).take(hashes).for_each(&mut ask),
        }
    }

    /// Branch-free at every size: the k lines were prefetched, so the early
    /// exit that saves DRAM traffic in a lone lookup saves nothing here.
    #[inline(always)]
    fn lookup_hash(&self, hash: u64) -> bool {
        let len = self.bits.len();
        match self.sequence {
            ProbeSequence::Linear => self.test_bits(LinearProbes::new(hash, len), false),
            ProbeSequence::Cubic => self.test_bits(CubicProbes::new(hash, len), false),
        }
    }

    fn worth_prefetching(&self) -> bool {
        size_of_val(self.bits.as_slice()) >= PREFETCH_MIN_BYTES
    }
}

impl<S: BuildHasher> BloomFilter<S> {
    /// Whether each item of `items` may be present, in order: the answers
    /// of [`contains`](Self::contains), item by item, computed with the bits
    /// of the items 32 ahead already requested from memory (see
    /// [`filter_core::batch`]). Use it when the items are known up front
    /// and the table is larger than the cache. Tables under 8 MiB are looked
    /// up one by one, as by `contains`.
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
    pub fn contains_batch<'a, T: Hash + ?Sized + 'a>(
        &'a self,
        items: impl IntoIterator<Item = &'a T, IntoIter: 'a>,
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
}

impl<S: BuildHasher> Lookahead for BlockedBloomFilter<S> {
    #[inline(always)]
    fn prefetch_hash(&self, hash: u64) {
        prefetch(&self.blocks, Probe::new(hash, self.blocks.len()).block);
    }

    #[inline(always)]
    fn lookup_hash(&self, hash: u64) -> bool {
        self.contains_hash(hash)
    }

    fn worth_prefetching(&self) -> bool {
        size_of_val(&self.blocks[..]) >= PREFETCH_MIN_BYTES
    }
}

impl<S: BuildHasher> BlockedBloomFilter<S> {
    /// Whether each item of `items` may be present, in order: the answers
    /// of [`contains`](Self::contains), item by item, computed with the
    /// blocks of the items 32 ahead already requested from memory (see
    /// [`filter_core::batch`]). Use it when the items are known up front
    /// and the table is larger than the cache. Tables under 8 MiB are looked
    /// up one by one, as by `contains`.
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
    pub fn contains_batch<'a, T: Hash + ?Sized + 'a>(
        &'a self,
        items: impl IntoIterator<Item = &'a T, IntoIter: 'a>,
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
}
