//! The byte encoding of a [`DLeftCountingBloomFilter`]: filter-core's header
//! (kind `DLeftCountingBloom`), then the shape and the table's words.
//!
//! ```text
//! u8   subtables          always 4
//! u8   cell_bits          one of 8, 9, 10, 12, 16, 21, 32, 64
//! u8   counter_bits       always 4
//! u8   bucket_words       1 or 2
//! u64  buckets            per subtable, 1 ..= 2^40
//! u64  word count         4 · buckets · bucket_words
//! u64… words              subtable 0's buckets in order, then 1, 2, 3
//! ```
//!
//! `docs/format-dleft-counting-bloom.md` describes the cells. The reader
//! checks every field, that no bits lie outside the cells, that a cell's
//! remainder and counter are both zero or both non-zero, and that no true
//! fingerprint has two cells, so that loaded bytes keep every invariant an
//! insert keeps.

use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::{Error, HasherProbe, KeyHasher};

use super::DLeftCountingBloomFilter;
use super::table::{COUNTER_BITS, LINE_WORDS, Line, SATURATED, SUBTABLES, Shape, Table};

impl<S: KeyHasher> DLeftCountingBloomFilter<S> {
    /// The filter as bytes, for [`from_bytes`](DLeftCountingBloomFilter::from_bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let shape = &self.shape;
        let words = shape.words();
        let mut w = ByteWriter::new(
            FilterKind::DLeftCountingBloom,
            &HasherProbe::of(&self.hasher),
            12 + 8 + words * 8,
        );
        w.u8(SUBTABLES as u8);
        w.u8(shape.cell_bits as u8);
        w.u8(COUNTER_BITS as u8);
        w.u8(shape.bucket_words as u8);
        w.u64(shape.buckets as u64);
        let table: Vec<u64> = (0..words).map(|i| self.table.word(i)).collect();
        w.u64_array(&table);
        w.finish()
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be queried
    /// with `hasher`.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming what is wrong with the bytes, or
    /// [`Error::HasherMismatch`] when they were written under a hasher that
    /// hashes differently from `hasher`.
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        let mut r = ByteReader::open(
            bytes,
            FilterKind::DLeftCountingBloom,
            &HasherProbe::of(&hasher),
        )?;
        let subtables = r.u8("subtables")?;
        if usize::from(subtables) != SUBTABLES {
            return Err(Error::corrupt(format_args!(
                "subtables must be {SUBTABLES}, got {subtables}"
            )));
        }
        let cell_bits = r.u8("cell_bits")?;
        let counter_bits = r.u8("counter_bits")?;
        if u32::from(counter_bits) != COUNTER_BITS {
            return Err(Error::corrupt(format_args!(
                "counter_bits must be {COUNTER_BITS}, got {counter_bits}"
            )));
        }
        let bucket_words = r.u8("bucket_words")?;
        let buckets = r.u64("buckets")?;
        let shape = Shape::new(buckets, usize::from(bucket_words), u32::from(cell_bits))
            .map_err(|e| Error::corrupt(e.to_string()))?;
        let words = r.u64_array("table")?;
        r.finish()?;
        if words.len() != shape.words() {
            return Err(Error::corrupt(format_args!(
                "table has {} words, but 4 subtables of {} buckets of {} words need {}",
                words.len(),
                shape.buckets,
                shape.bucket_words,
                shape.words()
            )));
        }
        let mut lines = filter_core::memory::zeroed_vec::<Line>(shape.lines(), "table")
            .map_err(|e| Error::corrupt(e.to_string()))?;
        for (i, &word) in words.iter().enumerate() {
            lines[i / LINE_WORDS].0[i % LINE_WORDS] = word;
        }
        let table = Table { lines };
        check_cells(&shape, &words)?;
        check_unique(&shape, &table)?;
        Ok(Self::from_parts(shape, table, hasher))
    }
}

/// No bits outside the lanes; in each lane, remainder and counter both zero
/// (empty) or both non-zero.
fn check_cells(shape: &Shape, words: &[u64]) -> Result<(), Error> {
    let lane = u64::MAX >> (64 - shape.cell_bits);
    let used = shape.lanes * shape.cell_bits;
    for (i, &word) in words.iter().enumerate() {
        if used < 64 && word >> used != 0 {
            return Err(Error::corrupt(format_args!(
                "word {i} has bits set above its {} cells",
                shape.lanes
            )));
        }
        for j in 0..shape.lanes {
            let cell = (word >> (j * shape.cell_bits)) & lane;
            let (remainder, count) = (cell >> COUNTER_BITS, cell & SATURATED);
            if (remainder == 0) != (count == 0) {
                return Err(Error::corrupt(format_args!(
                    "word {i}, cell {j}: remainder {remainder} with counter {count} \
                     (an empty cell has both zero, an occupied one both non-zero)"
                )));
            }
        }
    }
    Ok(())
}

/// Each true fingerprint in one cell: a stored remainder appears once
/// among its four buckets.
fn check_unique(shape: &Shape, table: &Table) -> Result<(), Error> {
    for (subtable, bucket, remainder, _) in shape.cells(table) {
        let place = shape.place_of(shape.home(subtable, bucket, remainder), remainder);
        let copies: u32 = place
            .words
            .iter()
            .flat_map(|&first| first..first + shape.bucket_words)
            .map(|word| shape.matches(table.word(word), place.pattern).count_ones())
            .sum();
        if copies != 1 {
            return Err(Error::corrupt(format_args!(
                "subtable {subtable}, bucket {bucket}: remainder {remainder} is stored \
                 {copies} times among its four buckets (at most once is valid)"
            )));
        }
    }
    Ok(())
}
