//! The standard traits a user expects beyond `Clone`, for both filters: a
//! `Debug` that shows the filter's shape instead of its table.

use std::fmt;

use crate::block::{BLOCK_BITS, BLOCK_HASHES};
use crate::{BlockedBloomFilter, BloomFilter};

impl<S> fmt::Debug for BloomFilter<S> {
    /// The shape, not the bits: a table can be gigabytes, and a `{:?}` in a
    /// log line should not print it (nor the bit set's heap address, which
    /// made equal filters print differently).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BloomFilter")
            .field("bits", &self.bits.len())
            .field("hashes", &self.hashes)
            .field("probe_sequence", &self.sequence)
            .field("memory_bytes", &size_of_val(self.bits.as_slice()))
            .finish_non_exhaustive()
    }
}

impl<S> fmt::Debug for BlockedBloomFilter<S> {
    /// The shape, not the blocks: printing every block of a filter for 10^6
    /// keys took 1.36 MB of text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockedBloomFilter")
            .field("blocks", &self.blocks.len())
            .field("bits", &(self.blocks.len() as u64 * u64::from(BLOCK_BITS)))
            .field("hashes", &BLOCK_HASHES)
            .field("memory_bytes", &size_of_val(self.blocks.as_slice()))
            .finish_non_exhaustive()
    }
}
