//! Byte encoding of both filters in the shared format (body layouts in
//! `docs/format-bloom.md`).
//!
//! Classic body: `bits` (u64), `hashes` (u32), then the bit array as a u64
//! array of ⌈bits/64⌉ words, bit i in word i/64 at position i % 64. The
//! probe sequence is not stored: the table's size and hash count fix it
//! ([`ProbeSequence::for_table`](filter_core::probes::ProbeSequence::for_table)).
//! Blocked body: `blocks` (u64), `hashes` (u32, always 8), then the blocks as
//! a u32 array of 8·blocks lane words, block by block.
//!
//! Every parameter is checked against its range and against the array length
//! before the table is allocated, and the padding bits past `bits` must be
//! zero, so a resealed lie is refused rather than loaded.

use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::sizing::MAX_BITS;
use filter_core::{Error, HasherProbe, KeyHasher};

use crate::block::{BLOCK_HASHES, Block, LANES};
use crate::blocked::MAX_BLOCKS;
use crate::classic::MAX_HASHES;
use crate::{BlockedBloomFilter, BloomFilter};

impl<S: KeyHasher> BloomFilter<S> {
    /// The filter's bytes in the shared format (`docs/format-bloom.md`):
    /// parameters, the hasher's probe, the bit array and a checksum.
    pub fn to_bytes(&self) -> Vec<u8> {
        classic_bytes(self.hasher(), self.bits(), self.hashes(), self.words())
    }

    /// As [`BloomFilter::from_bytes`], for a filter built with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::from_bytes`].
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        let mut r = ByteReader::open(bytes, FilterKind::Bloom, &HasherProbe::of(&hasher))?;
        let bits = r.u64("bits")?;
        if !(1..=MAX_BITS).contains(&bits) {
            return Err(Error::corrupt(format_args!(
                "bits is {bits}, outside 1..={MAX_BITS}"
            )));
        }
        let hashes = r.u32("hashes")?;
        if !(1..=MAX_HASHES).contains(&hashes) {
            return Err(Error::corrupt(format_args!(
                "hashes is {hashes}, outside 1..={MAX_HASHES}"
            )));
        }
        let expected_words = bits.div_ceil(64);
        // The reader checks the array's claimed length against the bytes
        // present before allocating; the claim is then checked against bits.
        let words = r.u64_array("bit array")?;
        r.finish()?;
        if words.len() as u64 != expected_words {
            return Err(Error::corrupt(format_args!(
                "bit array has {} words, {bits} bits need {expected_words}",
                words.len()
            )));
        }
        let spare = (expected_words * 64 - bits) as u32;
        if let Some(&last) = words.last() {
            if spare > 0 && last >> (64 - spare) != 0 {
                return Err(Error::corrupt(format_args!(
                    "bit array sets bits past bit {bits}"
                )));
            }
        }
        let mut table = crate::classic::allocate_bits(bits)?;
        u64_as_words(&words, table.as_mut_slice());
        Ok(BloomFilter::from_parts(table, hashes, hasher))
    }
}

/// The bytes of a classic filter of `bits` bits and `hashes` probes whose
/// storage words are `words`: [`BloomFilter::to_bytes`], and
/// [`AtomicBloomFilter::to_bytes`](crate::AtomicBloomFilter::to_bytes) of
/// a snapshot of its words.
pub(crate) fn classic_bytes(
    hasher: &impl KeyHasher,
    bits: u64,
    hashes: u32,
    words: &[usize],
) -> Vec<u8> {
    let mut w = ByteWriter::new(
        FilterKind::Bloom,
        &HasherProbe::of(hasher),
        size_of_val(words) + 24,
    );
    w.u64(bits);
    w.u32(hashes);
    w.u64_array(&words_as_u64(words, bits));
    w.finish()
}

impl<S: KeyHasher> BlockedBloomFilter<S> {
    /// The filter's bytes in the shared format (`docs/format-bloom.md`):
    /// parameters, the hasher's probe, the blocks and a checksum.
    pub fn to_bytes(&self) -> Vec<u8> {
        let lanes: Vec<u32> = self.block_slice().iter().flat_map(|b| b.0).collect();
        blocked_bytes(self.hasher(), &lanes)
    }

    /// As [`BlockedBloomFilter::from_bytes`], for a filter built with
    /// `hasher`.
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::from_bytes`].
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        let mut r = ByteReader::open(bytes, FilterKind::BlockedBloom, &HasherProbe::of(&hasher))?;
        let blocks = r.u64("blocks")?;
        if !(1..=MAX_BLOCKS).contains(&blocks) {
            return Err(Error::corrupt(format_args!(
                "blocks is {blocks}, outside 1..={MAX_BLOCKS}"
            )));
        }
        let hashes = r.u32("hashes")?;
        if hashes != BLOCK_HASHES {
            return Err(Error::corrupt(format_args!(
                "hashes is {hashes}, the blocked layout has {BLOCK_HASHES}"
            )));
        }
        let lanes = r.u32_array("blocks")?;
        r.finish()?;
        if lanes.len() as u64 != blocks * LANES as u64 {
            return Err(Error::corrupt(format_args!(
                "block array has {} lanes, {blocks} blocks need {}",
                lanes.len(),
                blocks * LANES as u64
            )));
        }
        let count = usize::try_from(blocks).map_err(|_| {
            Error::corrupt(format_args!("{blocks} blocks are not addressable here"))
        })?;
        let mut table: Vec<Block> = filter_core::memory::zeroed_vec(count, "blocks")?;
        for (block, chunk) in table.iter_mut().zip(lanes.chunks_exact(LANES)) {
            block.0.copy_from_slice(chunk);
        }
        Ok(BlockedBloomFilter::from_parts(table, hasher))
    }
}

/// The bytes of a blocked filter whose blocks' lanes, block by block, are
/// `lanes`: [`BlockedBloomFilter::to_bytes`], and
/// [`AtomicBlockedBloomFilter::to_bytes`](crate::AtomicBlockedBloomFilter::to_bytes)
/// of a snapshot of its blocks.
pub(crate) fn blocked_bytes(hasher: &impl KeyHasher, lanes: &[u32]) -> Vec<u8> {
    let mut w = ByteWriter::new(
        FilterKind::BlockedBloom,
        &HasherProbe::of(hasher),
        size_of_val(lanes) + 24,
    );
    w.u64((lanes.len() / LANES) as u64);
    w.u32(BLOCK_HASHES);
    w.u32_array(lanes);
    w.finish()
}

/// Storage words (`usize`, 32 or 64 bits) as the format's u64 words.
pub(crate) fn words_as_u64(words: &[usize], bits: u64) -> Vec<u64> {
    let count = bits.div_ceil(64) as usize;
    if usize::BITS == 64 {
        words.iter().take(count).map(|&w| w as u64).collect()
    } else {
        let mut out = vec![0u64; count];
        for (i, &w) in words.iter().enumerate() {
            let bit = i * usize::BITS as usize;
            if let Some(o) = out.get_mut(bit / 64) {
                *o |= (w as u64) << (bit % 64);
            }
        }
        out
    }
}

/// The format's u64 words into storage words (`storage` is zeroed and sized
/// for the same bit count).
pub(crate) fn u64_as_words(words: &[u64], storage: &mut [usize]) {
    for (i, s) in storage.iter_mut().enumerate() {
        let bit = i * usize::BITS as usize;
        if let Some(&w) = words.get(bit / 64) {
            *s = (w >> (bit % 64)) as usize;
        }
    }
}
