//! The solved system: the solution bits of every slot, stored column-major
//! in blocks of 64 slots ("interleaved"), and the lookup that reads them.
//!
//! Block `b` holds one 64-bit word per column; bit `i` of column `j`'s word
//! is the solution bit of slot `64 b + i` in column `j`. A key whose band
//! of 128 slots starts at slot `s = 64 b + o` covers blocks `b`, `b + 1`
//! and (when `o > 0`) `b + 2`: its coefficients shifted into place make
//! three 64-bit words, one per block, and for each column the parity of
//! the three words and-ed with the blocks' words of that column is the
//! key's bit in that column. The blocks' words are adjacent in memory, so
//! a lookup reads one run of about `3 × columns` words, usually within
//! three or four cache lines.

use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::prefetch::prefetch;
use filter_core::{Error, HasherProbe};

use super::row;
use super::shape::{BLOCK, Shape};

/// The filter's state: the shape, the construction's seed and the words.
#[derive(Clone, Debug)]
pub(crate) struct Solution {
    pub(crate) shape: Shape,
    /// The construction attempt's seed, added to each hash before mixing.
    pub(crate) seed: u64,
    /// The number of distinct key hashes the filter was built from.
    pub(crate) keys: usize,
    /// `shape.words()` words, then [`PAD`] zero words that no key's
    /// equation covers (lookups read whole steps of columns past the last
    /// block's words).
    pub(crate) words: Vec<u64>,
    /// Whether lookups may use AVX2: detected once, when the solution is
    /// made, so that a lookup tests a field instead of the CPU.
    avx2: bool,
}

/// Zero words after the last block's: the widest read past a block's
/// first word, `MAX_COLUMNS` rounded up to whole AVX2 steps.
pub(crate) const PAD: usize = 32;

/// Equal solutions have equal shapes, seeds, key counts and words (the
/// CPU a lookup runs on is no part of the filter).
impl PartialEq for Solution {
    fn eq(&self, other: &Self) -> bool {
        (self.shape, self.seed, self.keys) == (other.shape, other.seed, other.keys)
            && self.words == other.words
    }
}

impl Eq for Solution {}

/// Whether the bits of the `columns` columns equal the low bits of
/// `fingerprint`, one parity per column, stopping at the first that
/// differs: a key not in the set is turned away after two columns on
/// average, while a member pays for all of them. (Without SIMD, one parity
/// per column costs enough that stopping early pays.) `blocks` are the
/// three blocks' words from their first column on.
#[inline(always)]
fn matches_portable(
    blocks: [&[u64]; 3],
    columns: usize,
    coefficients: [u64; 3],
    fingerprint: u64,
) -> bool {
    let [a, b, c] = blocks;
    let [ca, cb, cc] = coefficients;
    for (j, ((&a, &b), &c)) in a.iter().zip(b).zip(c).take(columns).enumerate() {
        let x = (ca & a) ^ (cb & b) ^ (cc & c);
        if (u64::from(x.count_ones()) ^ (fingerprint >> j)) & 1 != 0 {
            return false;
        }
    }
    true
}

impl Solution {
    /// The solution of `keys` distinct keys in `shape` under `seed`.
    pub(crate) fn new(shape: Shape, seed: u64, keys: usize, mut words: Vec<u64>) -> Self {
        // A no-op for callers that allocated the padding already.
        words.resize(shape.words() + PAD, 0);
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        Solution {
            shape,
            seed,
            keys,
            words,
            avx2,
        }
    }

    /// Whether the key of mixed hash `mixed` may be in the set.
    #[inline]
    #[allow(unsafe_code)]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            return self.lookup::<true>(mixed);
        }
        self.lookup::<false>(mixed)
    }

    /// The lookup: with `AVX2` (true only when `self.avx2` is) the columns
    /// are evaluated by `simd::matches`, a call to a small function
    /// compiled for AVX2, otherwise one at a time. Both give the same
    /// answer for every key.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn lookup<const AVX2: bool>(&self, mixed: u64) -> bool {
        let h = row::equation_hash(mixed, self.seed);
        let shape = &self.shape;
        let s = row::start(h, shape.starts());
        let block = s / BLOCK;
        let offset = (s % BLOCK) as u32;
        let (low, high) = row::coefficient_words(h);
        // `>> 1 >> (63 - offset)` is `>> (64 - offset)`, and 0 for offset 0.
        let coefficients = [
            low << offset,
            (high << offset) | ((low >> 1) >> (63 - offset)),
            (high >> 1) >> (63 - offset),
        ];
        let columns = shape.columns_of(block) as usize;
        let first = shape.first_word(block);
        // The start is below `blocks · 64 − 127`, so `block + 1` is a
        // block, and `block + 2` one unless `offset` is 0 (its word is
        // then the padding, and-ed with 0).
        let second = columns;
        let third = second + shape.columns_of(block + 1) as usize;
        let fingerprint = row::fingerprint(h);
        #[cfg(target_arch = "x86_64")]
        if AVX2 {
            debug_assert!(
                first + third + columns.next_multiple_of(super::simd::STEP) <= self.words.len()
            );
            // SAFETY: `AVX2` is true only when `self.avx2` is, and that
            // only when the CPU has AVX2 (`new`). `first + third` is at most `shape.words()`
            // (block `block + 2` is at most `blocks`), and the kernel
            // reads at most `MAX_COLUMNS` words from there, inside the
            // `shape.words() + PAD` words `new` made `words` hold; `first`
            // is below `words.len()`, so the pointer is in bounds.
            return unsafe {
                super::simd::matches(
                    self.words.as_ptr().add(first),
                    second,
                    third,
                    columns,
                    coefficients,
                    fingerprint,
                )
            };
        }
        let words = &self.words[first..];
        matches_portable(
            [words, &words[second..], &words[third..]],
            columns,
            coefficients,
            fingerprint,
        )
    }

    /// Hints that the lookup of mixed hash `mixed` will read its words
    /// soon. Never changes an answer.
    #[inline(always)]
    pub(crate) fn prefetch_mixed(&self, mixed: u64) {
        let h = row::equation_hash(mixed, self.seed);
        let s = row::start(h, self.shape.starts());
        let block = s / BLOCK;
        let first = self.shape.first_word(block);
        let words = 3 * self.shape.columns_of(block) as usize;
        // Eight 8-byte words per 64-byte line.
        let mut word = first;
        while word < first + words {
            prefetch(&self.words, word);
            word += 8;
        }
        prefetch(&self.words, first + words - 1);
    }

    /// The bytes of the solution words.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.shape.words() * size_of::<u64>()
    }
}

impl Solution {
    /// Body: seed, keys, blocks, columns, upper_start, then the words as a
    /// u64 array. See `docs/format-ribbon.md`.
    pub(crate) fn to_bytes(&self, probe: &HasherProbe) -> Vec<u8> {
        let mut w = ByteWriter::new(FilterKind::Ribbon, probe, 48 + self.memory_bytes());
        w.u64(self.seed);
        w.u64(self.keys as u64);
        w.u64(self.shape.blocks as u64);
        w.u32(self.shape.columns);
        w.u64(self.shape.upper_start as u64);
        w.u64_array(&self.words[..self.shape.words()]);
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
        let stored = r.u64_array("words")?;
        if stored.len() != shape.words() {
            return Err(Error::corrupt(format_args!(
                "words has {} words, but the shape needs {}",
                stored.len(),
                shape.words()
            )));
        }
        r.finish()?;
        let mut words = Vec::new();
        words.try_reserve_exact(shape.words() + PAD).map_err(|_| {
            Error::corrupt(format_args!("{} words cannot be allocated", shape.words()))
        })?;
        words.extend_from_slice(&stored);
        Ok(Solution::new(shape, seed, keys, words))
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Whole lookups, AVX2 and portable, agree on members (all present)
    /// and non-members, at rates with one, one and a half and two steps.
    #[test]
    fn simd_and_portable_lookups_agree() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let hashes: Vec<u64> = (0..5000).map(filter_core::mix64).collect();
        for fpr in [0.1, 0.01, 0.001, 1e-5, 1e-9] {
            let shape = Shape::for_keys(hashes.len(), fpr).unwrap();
            let solution = super::super::band::build(&hashes, shape).unwrap();
            for &h in &hashes {
                assert!(solution.lookup::<true>(h) && solution.lookup::<false>(h));
            }
            for i in 5000..25_000 {
                let h = filter_core::mix64(i);
                assert_eq!(solution.lookup::<true>(h), solution.lookup::<false>(h));
            }
        }
    }

    /// The AVX2 lookup and the portable one agree on every column count.
    #[test]
    #[allow(unsafe_code)]
    fn simd_and_portable_columns_agree() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let words: Vec<u64> = (0..200).map(filter_core::mix64).collect();
        for trial in 0..4000u64 {
            let columns = 1 + (trial % 32) as usize;
            // Blocks of `columns` or `columns + 1` columns.
            let second = columns + (trial as usize / 32) % 2;
            let third = second + columns + (trial as usize / 64) % 2;
            let c = |k: u64| filter_core::mix64(trial * 3 + k + 1000);
            let coefficients = [c(0), c(1), c(2)];
            let blocks = [&words[..], &words[second..], &words[third..]];
            let simd = |fingerprint| {
                // SAFETY: the CPU has AVX2 (checked above), and `words`
                // holds 200 >= 3 * 33 + 32 words.
                unsafe {
                    super::super::simd::matches(
                        words.as_ptr(),
                        second,
                        third,
                        columns,
                        coefficients,
                        fingerprint,
                    )
                }
            };
            // A fingerprint that matches, then one wrong bit at a time.
            let mut fingerprint = 0u64;
            for (j, ((&a, &b), &c)) in blocks[0].iter().zip(blocks[1]).zip(blocks[2]).enumerate() {
                if j < columns {
                    let x = (coefficients[0] & a) ^ (coefficients[1] & b) ^ (coefficients[2] & c);
                    fingerprint |= u64::from(x.count_ones() & 1) << j;
                }
            }
            fingerprint |= c(3) & !((1u64 << columns) - 1);
            assert!(matches_portable(blocks, columns, coefficients, fingerprint));
            assert!(simd(fingerprint));
            let wrong = fingerprint ^ (1 << (trial as usize % columns));
            assert!(!matches_portable(blocks, columns, coefficients, wrong));
            assert!(!simd(wrong));
        }
    }
}
