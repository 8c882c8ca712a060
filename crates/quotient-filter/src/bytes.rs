//! The byte encoding (see `docs/format-quotient-filter.md`).
//!
//! The body after filter-core's common header: quotients (u64), remainder
//! bits (u8), fingerprint space (u64, quotients · 2^remainder bits: a
//! check, and what merges compare), growable (u8, 0 or 1), copies held (u64), the interleaved
//! block words (u64 array), the offsets (u8 array). The loader checks every
//! field, then rebuilds the table from the entries it decodes and refuses
//! the bytes unless the rebuild is identical: every accepted byte string is
//! a state the filter's own operations reach, so no later query can meet
//! metadata that lies.

use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::{Error, HasherProbe, KeyHasher};

use crate::QuotientFilter;
use crate::core::{Core, MAX_REMAINDER_BITS, MIN_REMAINDER_BITS, Shape};
use crate::table::Table;

impl<S: KeyHasher> QuotientFilter<S> {
    /// The filter as bytes, loadable by [`from_bytes`](QuotientFilter::from_bytes)
    /// on any machine (with the same hasher).
    pub fn to_bytes(&self) -> Vec<u8> {
        let table = self.core.table();
        let mut w = ByteWriter::new(
            FilterKind::Quotient,
            &HasherProbe::of(&self.hasher),
            self.memory_bytes() + 48,
        );
        w.u64(self.core.shape().quotients as u64);
        w.u8(self.core.shape().remainder_bits as u8);
        w.u64(self.core.space());
        w.u8(u8::from(self.growable));
        w.u64(self.core.len());
        w.u64_array(table.words());
        w.u8_array(table.stored_offsets());
        w.finish()
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be used
    /// with `hasher`.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for anything malformed (truncated, altered,
    /// lengths that disagree, metadata or counters that the entries do not
    /// give), [`Error::WrongKind`] for another filter's bytes,
    /// [`Error::HasherMismatch`] when `hasher` hashes differently from the
    /// one the filter was built with.
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        let mut r = ByteReader::open(bytes, FilterKind::Quotient, &HasherProbe::of(&hasher))?;
        let quotients = r.u64("quotients")?;
        let remainder_bits = u32::from(r.u8("remainder bits")?);
        let space = r.u64("fingerprint space")?;
        let growable = match r.u8("growable")? {
            0 => false,
            1 => true,
            other => {
                return Err(Error::corrupt(format_args!(
                    "growable must be 0 or 1, found {other}"
                )));
            }
        };
        let len = r.u64("copies")?;
        if !(MIN_REMAINDER_BITS..=MAX_REMAINDER_BITS).contains(&remainder_bits) {
            return Err(Error::corrupt(format_args!(
                "remainder bits {remainder_bits} outside {MIN_REMAINDER_BITS}..={MAX_REMAINDER_BITS}"
            )));
        }
        let shape = usize::try_from(quotients)
            .ok()
            .filter(|&q| q >= 1)
            .map(|quotients| Shape {
                quotients,
                remainder_bits,
            })
            .filter(|s| s.space().is_some())
            .ok_or_else(|| {
                Error::corrupt(format_args!(
                    "{quotients} quotients with {remainder_bits}-bit remainders"
                ))
            })?;
        if shape.space() != Some(space) {
            return Err(Error::corrupt(format_args!(
                "fingerprint space {space} is not {quotients} quotients times 2^{remainder_bits}"
            )));
        }
        let blocks = shape
            .blocks()
            .ok_or_else(|| Error::corrupt(format_args!("{quotients} quotients")))?;
        let words = r.u64_array("block words")?;
        let offsets = r.u8_array("offsets")?;
        r.finish()?;
        let stride = 2 + remainder_bits as usize;
        if blocks.checked_mul(stride) != Some(words.len()) || offsets.len() != blocks {
            return Err(Error::corrupt(format_args!(
                "{} block words and {} offsets for {blocks} blocks of {stride} words",
                words.len(),
                offsets.len()
            )));
        }
        let table = Table::from_parts(remainder_bits, blocks, words, offsets);
        let core = Core::from_table(shape, table, len)?;
        Ok(QuotientFilter {
            core,
            hasher,
            growable,
        })
    }
}
