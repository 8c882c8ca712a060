//! The byte encoding of a [`BlockedCountingBloomFilter`]: `to_bytes` and
//! `from_bytes`.
//!
//! Body layout (after filter-core's header; `docs/format-counting-bloom.md`
//! writes it down for other languages). The header's `FLAG_FOLDED_PAIR`
//! says how keys' hashes became their words ([`PairMix`]): set, folded
//! products (format 1.5, every new filter); clear, `mix64` (bytes of 1.4 and
//! earlier, which keep loading with the counters they were built with).
//! `FLAG_UNIFORM_HASHES` (format 1.6) says the first word was the hash as
//! it is and the second its folded product: a filter of
//! [`UniformHashes`](filter_core::UniformHashes), whose words do not depend
//! on the pair flag.
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

use std::hash::BuildHasher;

use filter_core::format::{
    ByteReader, ByteWriter, FLAG_FOLDED_PAIR, FLAG_UNIFORM_HASHES, FilterKind,
};
use filter_core::memory::zeroed_vec;
use filter_core::{AnyHashes, Error, HashQuality, HasherProbe};

use crate::BlockedCountingBloomFilter;
use crate::blocked::{check_blocks, check_hashes};
use crate::counter_block::{BLOCK_WORDS, Block, PairMix};

impl<S: BuildHasher, Q: HashQuality> BlockedCountingBloomFilter<S, Q> {
    /// The filter as bytes, in the workspace's versioned, checksummed format
    /// (kind `BlockedCountingBloom`). Records a probe of the hasher so that
    /// loading under a different hasher is refused, and the hash quality so
    /// that loading as the other one is.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mix = match self.patterns.mix {
            PairMix::Folded => FLAG_FOLDED_PAIR,
            PairMix::SplitMix => 0,
        };
        let flags = mix | Q::flags();
        let mut w = ByteWriter::with_flags(
            FilterKind::BlockedCountingBloom,
            &HasherProbe::of(self.hasher()),
            8 + 4 + 8 + self.memory_bytes(),
            flags,
        );
        w.u64(self.blocks());
        w.u32(self.hashes());
        let words: Vec<u64> = self.block_slice().iter().flat_map(|b| b.0).collect();
        w.u64_array(&words);
        w.finish()
    }

    /// Loads a filter of hash quality `Q` written by
    /// [`to_bytes`](Self::to_bytes), to be queried with `hasher`: the
    /// loader for filters of [`UniformHashes`](filter_core::UniformHashes),
    /// whose type the `_quality` argument names
    /// ([`from_bytes_with_hasher`](BlockedCountingBloomFilter::from_bytes_with_hasher)
    /// is this with [`AnyHashes`]).
    ///
    /// # Errors
    ///
    /// [`Error::HashQualityMismatch`] when the bytes are of a filter of the
    /// other quality; otherwise as
    /// [`from_bytes_with_hasher`](BlockedCountingBloomFilter::from_bytes_with_hasher).
    pub fn from_bytes_with_quality(bytes: &[u8], hasher: S, _quality: Q) -> Result<Self, Error> {
        let (mut r, flags) = ByteReader::open_with_flags(
            bytes,
            FilterKind::BlockedCountingBloom,
            &HasherProbe::of(&hasher),
            FLAG_FOLDED_PAIR | FLAG_UNIFORM_HASHES,
        )?;
        Q::check_flags(flags)?;
        let mix = if flags & FLAG_FOLDED_PAIR != 0 {
            PairMix::Folded
        } else {
            PairMix::SplitMix
        };
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
            table, hashes, mix, hasher,
        ))
    }
}

impl<S: BuildHasher> BlockedCountingBloomFilter<S> {
    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be queried
    /// with `hasher`.
    ///
    /// Every field is checked before the table is allocated: the block and
    /// hash counts against their ranges, the table length against the block
    /// count.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming the field that is wrong;
    /// [`Error::HasherMismatch`] when `hasher` hashes differently from the
    /// hasher the filter was built with; [`Error::HashQualityMismatch`] when
    /// the bytes are of a filter of
    /// [`UniformHashes`](filter_core::UniformHashes) (load those with
    /// [`from_bytes_with_quality`](BlockedCountingBloomFilter::from_bytes_with_quality)).
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        Self::from_bytes_with_quality(bytes, hasher, AnyHashes)
    }
}
