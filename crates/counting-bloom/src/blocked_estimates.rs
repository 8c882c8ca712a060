//! What a [`BlockedCountingBloomFilter`] can say about itself from its
//! counters alone: how many are non-zero, the false-positive rate of its
//! current contents, and how many distinct items it holds.
//!
//! Both estimates rest on how a key picks its counters (`counter_block.rs`):
//! each half's block comes from the high bits of one mixed word, its window
//! of words from bits 32..37 of the other (8 starts × 4 strides, uniform),
//! and its counter in each word from that word's nibble (uniform over 16).
//! The two halves use disjoint bits of two independent words.

use std::array;

use crate::BlockedCountingBloomFilter;
use crate::counter_block::{BLOCK_WORDS, WINDOWS, words_of};
use crate::counters::nonzero_in_word;

impl<S> BlockedCountingBloomFilter<S> {
    /// The number of non-zero counters: the counters some present item
    /// touches, provided only inserted items were removed, plus the
    /// saturated ones (which stay non-zero after their items leave).
    pub(crate) fn nonzero_counters(&self) -> u64 {
        self.blocks
            .iter()
            .flat_map(|block| block.0)
            .map(|word| u64::from(nonzero_in_word(word)))
            .sum()
    }

    /// The false-positive rate of the filter as it is now, exact for its
    /// current counters: a random non-member's first half hits when every
    /// counter it names is non-zero, which in block b and window W happens
    /// with probability Π_{w ∈ W} (non-zero counters of word w / 16);
    /// averaged over the blocks and the 32 windows, times the same for the
    /// second half. (The case of both halves in one block, probability
    /// 1/blocks, is treated as independent.) It follows removes, unlike
    /// [`expected_fpr`](Self::expected_fpr), which needs the item count.
    /// Reads every block: O(blocks · 32 windows).
    ///
    /// ```
    /// use counting_bloom::BlockedCountingBloomFilter;
    ///
    /// let mut filter = BlockedCountingBloomFilter::with_fpr(10_000, 0.01)?;
    /// (0..10_000u64).for_each(|i| filter.insert(&i));
    /// let estimate = filter.estimated_fpr();
    /// let false_positives = (10_000..210_000u64).filter(|i| filter.contains(i)).count();
    /// let measured = false_positives as f64 / 200_000.0;
    /// // The measurement's binomial σ is √(0.01 · 0.99 / 200,000) ≈ 0.022 %;
    /// // the estimate is the rate of these very counters, so the two agree
    /// // within 5σ (0.11 %).
    /// assert!((estimate - measured).abs() < 0.0011, "{estimate} {measured}");
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        // The word set of every window, for each half's length.
        let windows: [[u8; WINDOWS]; 2] = self
            .patterns
            .words
            .map(|patterns| array::from_fn(|window| words_of((window as u64) << 32, patterns)));
        let mut sums = [0.0f64; 2];
        for block in &self.blocks {
            let fill: [f64; BLOCK_WORDS] =
                array::from_fn(|w| f64::from(nonzero_in_word(block.0[w])) / 16.0);
            for (sum, sets) in sums.iter_mut().zip(&windows) {
                let hits: f64 = sets
                    .iter()
                    .map(|&words| {
                        (0..BLOCK_WORDS)
                            .filter(|w| (words >> w) & 1 == 1)
                            .map(|w| fill[w])
                            .product::<f64>()
                    })
                    .sum();
                *sum += hits / WINDOWS as f64;
            }
        }
        let blocks = self.blocks.len() as f64;
        (sums[0] / blocks) * (sums[1] / blocks)
    }

    /// The number of distinct items present, estimated from the fill. One
    /// key touches a given counter with probability exactly k/m (its first
    /// half lands in the counter's block with probability 1/blocks, its
    /// window holds the counter's word with probability ⌈k/2⌉/8, its nibble
    /// names the counter with probability 1/16; likewise the second half
    /// with ⌊k/2⌋/8), as in the classic layout, so after n distinct keys a
    /// counter is zero with probability (1 − k/m)^n, and
    /// n ≈ ln(1 − nonzero/m) / ln(1 − k/m). Copies of an item count once;
    /// saturated counters count as present. Saturates at `usize::MAX` when
    /// every counter is non-zero. Reads every counter: O(m).
    ///
    /// ```
    /// use counting_bloom::BlockedCountingBloomFilter;
    ///
    /// let mut filter = BlockedCountingBloomFilter::with_fpr(10_000, 0.01)?;
    /// for i in 0..10_000u64 {
    ///     filter.insert(&i);
    ///     filter.insert(&i); // a second copy counts once
    /// }
    /// // Linear counting's standard error at this fill,
    /// // √(m (e^t − t − 1)) / k with t = kn/m ≈ 0.61, is about 25 items;
    /// // 150 is 6σ.
    /// let estimate = filter.estimated_len();
    /// assert!(estimate.abs_diff(10_000) < 150, "{estimate}");
    ///
    /// // Removing every copy of half the items takes them out of the estimate.
    /// for i in 0..5_000u64 {
    ///     assert!(filter.remove(&i) && filter.remove(&i));
    /// }
    /// let estimate = filter.estimated_len();
    /// assert!(estimate.abs_diff(5_000) < 150, "{estimate}");
    /// # Ok::<(), counting_bloom::Error>(())
    /// ```
    pub fn estimated_len(&self) -> usize {
        let m = self.counters() as f64;
        let fill = self.nonzero_counters() as f64 / m;
        let n = (-fill).ln_1p() / (-f64::from(self.hashes) / m).ln_1p();
        // `as` saturates: +∞ (every counter non-zero) becomes usize::MAX.
        n.round() as usize
    }
}
