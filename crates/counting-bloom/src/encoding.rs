//! The byte encoding of a [`CountingBloomFilter`]: `to_bytes` and
//! `from_bytes_with_hasher`.
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
//! The probe sequence is not stored: m and k fix it. The saturated-counter
//! count is not stored either: it is recomputed from the table, so it
//! cannot disagree with it.

use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::{Error, HasherProbe, KeyHasher};

use crate::CountingBloomFilter;
use crate::counters::{COUNTERS_PER_WORD, words_for};
use crate::filter::{check_counters, check_hashes};

impl<S: KeyHasher> CountingBloomFilter<S> {
    /// The filter as bytes, in the workspace's versioned, checksummed format
    /// (kind `CountingBloom`, `docs/format-counting-bloom.md`). Records a
    /// probe of the hasher so that loading under a different hasher is
    /// refused.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(
            FilterKind::CountingBloom,
            &HasherProbe::of(&self.hasher),
            8 + 4 + 8 + self.table.len() * 8,
        );
        w.u64(self.counters());
        w.u32(self.hashes());
        w.u64_array(&self.table);
        w.finish()
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be queried
    /// with `hasher`.
    ///
    /// Every field is checked before the table is allocated: the counter and
    /// hash counts against their ranges, the table length against the
    /// counter count, and the unused counters of the last word must be zero.
    ///
    /// # Errors
    ///
    /// [`Error::WrongKind`] for valid bytes of another filter kind;
    /// [`Error::Corrupt`] naming the field that is wrong;
    /// [`Error::HasherMismatch`] when `hasher` hashes differently from the
    /// hasher the filter was built with.
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        let mut r = ByteReader::open(bytes, FilterKind::CountingBloom, &HasherProbe::of(&hasher))?;
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
            table, counters, hashes, hasher,
        ))
    }
}
