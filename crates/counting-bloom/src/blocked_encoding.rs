//! The byte encoding of a [`BlockedCountingBloomFilter`]: `to_bytes` and
//! `from_bytes_with_hasher`.
//!
//! Body layout (after filter-core's header; `docs/format-counting-bloom.md`
//! writes it down for other languages):
//!
//! ```text
//! u64        blocks   B, in 2..=2^39
//! u32        hashes   k, in 1..=16
//! u64 array  table    8·B words; block b is words 8b..8b+8, counter c of a
//!                     word is bits 4c..4c+4
//! ```
//!
//! The saturated-counter count is not stored: it is recomputed from the table,
//! so it cannot disagree with it.

use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::memory::zeroed_vec;
use filter_core::{Error, HasherProbe, KeyHasher};

use crate::BlockedCountingBloomFilter;
use crate::blocked::{check_blocks, check_hashes};
use crate::counter_block::{BLOCK_WORDS, Block};

impl<S: KeyHasher> BlockedCountingBloomFilter<S> {
    /// The filter as bytes, in the workspace's versioned, checksummed format
    /// (kind `BlockedCountingBloom`, `docs/format-counting-bloom.md`).
    /// Records a probe of the hasher so that loading under a different
    /// hasher is refused.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(
            FilterKind::BlockedCountingBloom,
            &HasherProbe::of(&self.hasher),
            8 + 4 + 8 + self.memory_bytes(),
        );
        w.u64(self.blocks());
        w.u32(self.hashes());
        let words: Vec<u64> = self.blocks.iter().flat_map(|b| b.0).collect();
        w.u64_array(&words);
        w.finish()
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be queried
    /// with `hasher`.
    ///
    /// Every field is checked before the table is allocated: the block and
    /// hash counts against their ranges, the table length against the block
    /// count.
    ///
    /// # Errors
    ///
    /// [`Error::WrongKind`] for valid bytes of another filter kind;
    /// [`Error::Corrupt`] naming the field that is wrong;
    /// [`Error::HasherMismatch`] when `hasher` hashes differently from the
    /// hasher the filter was built with; [`Error::InvalidParameter`] naming
    /// `blocks` when the table, valid, cannot be allocated.
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        let mut r = ByteReader::open(
            bytes,
            FilterKind::BlockedCountingBloom,
            &HasherProbe::of(&hasher),
        )?;
        let blocks = r.u64("blocks")?;
        check_blocks(blocks).map_err(|e| Error::corrupt(format_args!("{e}")))?;
        let hashes = r.u32("hashes")?;
        check_hashes(hashes).map_err(|e| Error::corrupt(format_args!("{e}")))?;
        // The reader checks the claimed length against the bytes present
        // before allocating; the block count was bounded above.
        let words = r.u64_array("table")?;
        let needed = blocks * BLOCK_WORDS as u64;
        if words.len() as u64 != needed {
            return Err(Error::corrupt(format_args!(
                "table has {} words, but {blocks} blocks need {needed}",
                words.len()
            )));
        }
        r.finish()?;
        // The words are in memory, so their block count fits in usize.
        let mut table: Vec<Block> = zeroed_vec(blocks as usize, "blocks")?;
        for (block, chunk) in table.iter_mut().zip(words.chunks_exact(BLOCK_WORDS)) {
            block.0.copy_from_slice(chunk);
        }
        Ok(BlockedCountingBloomFilter::from_parts(
            table, hashes, hasher,
        ))
    }
}
