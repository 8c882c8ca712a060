//! The byte encoding: `to_bytes` and `from_bytes`.
//!
//! Body layout (after filter-core's header; `docs/format-counting-bloom.md`
//! writes it down for other languages):
//!
//! ```text
//! u64        counters   m, in 1..=2^46
//! u32        hashes     k, in 1..=64
//! u64 array  table      ⌈m/16⌉ words; counter j is bits 4(j%16)..4(j%16)+4 of word j/16
//! ```
//!
//! The header flags `FLAG_CUBIC_PROBES`, `FLAG_HASHED_PROBES` and
//! `FLAG_FOLDED_PROBES` say which probe sequence placed the counts; bytes
//! with none, format 1.0's among them, used the linear one.
//! `FLAG_UNIFORM_HASHES` (format 1.6) says the sequence started from each
//! hash as it is: a filter of [`UniformHashes`](filter_core::UniformHashes).
//!
//! The saturated-counter count is not stored: it is recomputed from the table,
//! so it cannot disagree with it.

use std::hash::BuildHasher;

use filter_core::format::{ByteReader, ByteWriter, FLAG_UNIFORM_HASHES, FilterKind};
use filter_core::{AnyHashes, Error, HashQuality, HasherProbe, ProbeSequence};

use crate::CountingBloomFilter;
use crate::counters::{COUNTERS_PER_WORD, words_for};
use crate::filter::{check_counters, check_hashes};

impl<S: BuildHasher, Q: HashQuality> CountingBloomFilter<S, Q> {
    /// The filter as bytes, in the workspace's versioned, checksummed format
    /// (kind `CountingBloom`). Records a probe of the hasher so that loading
    /// under a different hasher is refused, and the hash quality so that
    /// loading as the other one is.
    pub fn to_bytes(&self) -> Vec<u8> {
        let table = self.table();
        let mut w = ByteWriter::with_flags(
            FilterKind::CountingBloom,
            &HasherProbe::of(self.hasher()),
            8 + 4 + 8 + table.len() * 8,
            self.probe_sequence().header_flags() | Q::flags(),
        );
        w.u64(self.counters());
        w.u32(self.hashes());
        w.u64_array(table);
        w.finish()
    }

    /// Loads a filter of hash quality `Q` written by
    /// [`to_bytes`](Self::to_bytes), to be queried with `hasher`: the
    /// loader for filters of [`UniformHashes`](filter_core::UniformHashes),
    /// whose type the `_quality` argument names
    /// ([`from_bytes_with_hasher`](CountingBloomFilter::from_bytes_with_hasher)
    /// is this with [`AnyHashes`]).
    ///
    /// # Errors
    ///
    /// [`Error::HashQualityMismatch`] when the bytes are of a filter of the
    /// other quality; otherwise as
    /// [`from_bytes_with_hasher`](CountingBloomFilter::from_bytes_with_hasher).
    pub fn from_bytes_with_quality(bytes: &[u8], hasher: S, _quality: Q) -> Result<Self, Error> {
        let (mut r, flags) = ByteReader::open_with_flags(
            bytes,
            FilterKind::CountingBloom,
            &HasherProbe::of(&hasher),
            ProbeSequence::HEADER_FLAGS | FLAG_UNIFORM_HASHES,
        )?;
        Q::check_flags(flags)?;
        // Bytes with no sequence flag (all of format 1.0's) use linear probes.
        let sequence = ProbeSequence::from_header_flags(flags)?;
        let counters = r.u64("counters")?;
        check_counters(counters).map_err(|e| Error::corrupt(format_args!("{e}")))?;
        let hashes = r.u32("hashes")?;
        check_hashes(hashes).map_err(|e| Error::corrupt(format_args!("{e}")))?;
        // The reader checks the claimed length against the bytes present
        // before allocating; the counter count was bounded above.
        let table = r.u64_array("table")?;
        let words = words_for(counters);
        if table.len() as u64 != words {
            return Err(Error::corrupt(format_args!(
                "table has {} words, but {counters} counters need {words}",
                table.len()
            )));
        }
        r.finish()?;
        let used = counters - (words - 1) * COUNTERS_PER_WORD;
        if used < COUNTERS_PER_WORD {
            let padding = table[table.len() - 1] >> (4 * used);
            if padding != 0 {
                return Err(Error::corrupt(format_args!(
                    "table's last word has non-zero counters past counter {counters}"
                )));
            }
        }
        Ok(CountingBloomFilter::from_parts(
            table, counters, hashes, sequence, hasher,
        ))
    }
}

impl<S: BuildHasher> CountingBloomFilter<S> {
    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be queried
    /// with `hasher`.
    ///
    /// Every field is checked before the table is allocated: the counter and
    /// hash counts against their ranges, the table length against the
    /// counter count, and the unused counters of the last word must be zero.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming the field that is wrong;
    /// [`Error::HasherMismatch`] when `hasher` hashes differently from the
    /// hasher the filter was built with; [`Error::HashQualityMismatch`] when
    /// the bytes are of a filter of
    /// [`UniformHashes`](filter_core::UniformHashes) (load those with
    /// [`from_bytes_with_quality`](CountingBloomFilter::from_bytes_with_quality)).
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        Self::from_bytes_with_quality(bytes, hasher, AnyHashes)
    }
}
