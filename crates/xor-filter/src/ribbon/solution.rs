//! The solved system: the solution bits of every slot, stored column-major
//! in blocks of 128 slots ("interleaved"), and the lookup that reads them.
//!
//! Block `b` holds one 128-bit word per column; bit `i` of column `j`'s word
//! is the solution bit of slot `128 b + i` in column `j`. A key whose band
//! starts at slot `s = 128 b + o` reads, for each column, one word of block
//! `b` and one of block `b + 1`: the band's coefficients shifted into place
//! are and-ed with both, and the parity of the result is the key's bit in
//! that column. The two blocks' words are adjacent in memory (block `b`'s
//! columns are followed by block `b + 1`'s), so a lookup reads one run of
//! `2 × columns` words, usually within two to four cache lines.

use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::prefetch::prefetch;
use filter_core::{Error, HasherProbe};

use super::row;
use super::shape::{BAND, Shape};

/// The filter's state: the shape, the construction's seed and the words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solution {
    pub(crate) shape: Shape,
    /// The construction attempt's seed, added to each hash before mixing.
    pub(crate) seed: u64,
    /// The number of distinct key hashes the filter was built from.
    pub(crate) keys: usize,
    /// `shape.words()` words.
    pub(crate) words: Vec<u128>,
}

/// Whether the bits of the `here.len()` columns equal the low bits of
/// `fingerprint`, one parity per column, stopping at the first that
/// differs: a key not in the set is turned away after two columns on
/// average, while a member pays for all of them. (Without SIMD, one parity
/// per column costs enough that stopping early pays.)
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn matches_portable(
    here: &[u128],
    there: &[u128],
    low: u128,
    high: u128,
    fingerprint: u64,
) -> bool {
    for (j, (&a, &b)) in here.iter().zip(there).enumerate() {
        let x = (low & a) ^ (high & b);
        let x = x as u64 ^ (x >> 64) as u64;
        if (u64::from(x.count_ones()) ^ (fingerprint >> j)) & 1 != 0 {
            return false;
        }
    }
    true
}

impl Solution {
    /// Whether the key of mixed hash `mixed` may be in the set.
    #[inline]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        let h = row::equation_hash(mixed, self.seed);
        let shape = &self.shape;
        let s = row::start(h, shape.starts());
        let block = s / BAND;
        let offset = (s % BAND) as u32;
        let coefficients = row::coefficients(h);
        let low = coefficients << offset;
        // `>> 1 >> (127 - offset)` is `>> (128 - offset)`, and 0 for offset 0.
        let high = (coefficients >> 1) >> (127 - offset);
        let columns = shape.columns_of(block) as usize;
        let first = shape.first_word(block);
        // The last block has no successor; its keys have offset 0 (the
        // band starts below `blocks · 128 − 127`), so `high` is 0 and any
        // word will do: read block `block` again.
        let next = if block + 1 < shape.blocks {
            first + columns
        } else {
            first
        };
        let fingerprint = row::fingerprint(h);
        let here = &self.words[first..first + columns];
        let there = &self.words[next..next + columns];
        #[cfg(target_arch = "x86_64")]
        {
            super::simd::matches(here, there, low, high, fingerprint)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            matches_portable(here, there, low, high, fingerprint)
        }
    }

    /// Hints that the lookup of mixed hash `mixed` will read its words
    /// soon. Never changes an answer.
    #[inline(always)]
    pub(crate) fn prefetch_mixed(&self, mixed: u64) {
        let h = row::equation_hash(mixed, self.seed);
        let s = row::start(h, self.shape.starts());
        let block = s / BAND;
        let first = self.shape.first_word(block);
        let words = 2 * self.shape.columns_of(block) as usize;
        // Four 16-byte words per 64-byte line.
        let mut word = first;
        while word < first + words {
            prefetch(&self.words, word);
            word += 4;
        }
        prefetch(&self.words, first + words - 1);
    }

    /// The bytes of the solution words.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.len() * size_of::<u128>()
    }
}

impl Solution {
    /// Body: seed, keys, blocks, columns, upper_start, then the words as a
    /// u64 array (low half, high half of each). See `docs/format-ribbon.md`.
    pub(crate) fn to_bytes(&self, probe: &HasherProbe) -> Vec<u8> {
        let mut w = ByteWriter::new(FilterKind::Ribbon, probe, 48 + self.memory_bytes());
        w.u64(self.seed);
        w.u64(self.keys as u64);
        w.u64(self.shape.blocks as u64);
        w.u32(self.shape.columns);
        w.u64(self.shape.upper_start as u64);
        let halves: Vec<u64> = self
            .words
            .iter()
            .flat_map(|&word| [word as u64, (word >> 64) as u64])
            .collect();
        w.u64_array(&halves);
        w.finish()
    }

    /// Reads what [`to_bytes`](Self::to_bytes) wrote, checking every field.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming the field; [`Error::HasherMismatch`].
    pub(crate) fn from_bytes(bytes: &[u8], probe: &HasherProbe) -> Result<Self, Error> {
        let mut r = ByteReader::open(bytes, FilterKind::Ribbon, probe)?;
        let seed = r.u64("seed")?;
        let keys = r.u64("keys")?;
        let blocks = r.u64("blocks")?;
        let columns = r.u32("columns")?;
        let upper_start = r.u64("upper_start")?;
        let size = |value: u64, field: &str| {
            usize::try_from(value)
                .map_err(|_| Error::corrupt(format_args!("{field} is {value}, too large")))
        };
        let shape = Shape::new(
            size(blocks, "blocks")?,
            columns,
            size(upper_start, "upper_start")?,
        )?;
        let keys = size(keys, "keys")?;
        if keys > shape.slots() {
            return Err(Error::corrupt(format_args!(
                "keys is {keys}, more than the {} slots",
                shape.slots()
            )));
        }
        // The reader checks the claimed count against the bytes present
        // before allocating, so a lying count cannot exhaust memory.
        let halves = r.u64_array("words")?;
        if halves.len() != 2 * shape.words() {
            return Err(Error::corrupt(format_args!(
                "words has {} u64 halves, but the shape needs {}",
                halves.len(),
                2 * shape.words()
            )));
        }
        r.finish()?;
        let words = halves
            .chunks_exact(2)
            .map(|pair| u128::from(pair[0]) | (u128::from(pair[1]) << 64))
            .collect();
        Ok(Solution {
            shape,
            seed,
            keys,
            words,
        })
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// The SSE2 lookup and the portable one agree on every column count.
    #[test]
    fn simd_and_portable_columns_agree() {
        let word =
            |i: u64| (u128::from(filter_core::mix64(i)) << 64) | u128::from(filter_core::mix64(!i));
        let words: Vec<u128> = (0..64).map(word).collect();
        for trial in 0..2000u64 {
            let columns = 1 + (trial % 32) as usize;
            let (low, high) = (word(trial + 100), word(trial + 200));
            let here = &words[..columns];
            let there = &words[32..32 + columns];
            // A fingerprint that matches, then one wrong bit at a time.
            let mut fingerprint = 0u64;
            for j in 0..columns {
                let x = (low & here[j]) ^ (high & there[j]);
                fingerprint |= u64::from(x.count_ones() & 1) << j;
            }
            fingerprint |= word(trial) as u64 & !((1u64 << columns) - 1);
            assert!(matches_portable(here, there, low, high, fingerprint));
            assert!(super::super::simd::matches(
                here,
                there,
                low,
                high,
                fingerprint
            ));
            let wrong = fingerprint ^ (1 << (trial as usize % columns));
            assert!(!matches_portable(here, there, low, high, wrong));
            assert!(!super::super::simd::matches(here, there, low, high, wrong));
        }
    }
}
