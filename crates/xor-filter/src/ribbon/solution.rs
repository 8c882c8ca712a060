//! The solved system: the solution bits of every slot, stored column-major
//! in blocks of 32 slots ("interleaved"), and the lookup that reads them.
//!
//! Block `b` holds one 32-bit word per column; bit `i` of column `j`'s word
//! is the solution bit of slot `32 b + i` in column `j`. A key's band of
//! 128 slots starts at the first slot of a block `b` and covers blocks `b`
//! to `b + 3`: its coefficients, as four 32-bit words, meet one block each
//! with no shifting, and for each column the parity of the four words
//! and-ed with the blocks' words of that column is the key's bit in that
//! column. The blocks' words are adjacent in memory, so a lookup reads one
//! run of `4 × columns` words (16 bytes a column), the least a band of 128
//! slots can need.

use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::prefetch::prefetch;
use filter_core::{Error, HasherProbe};

use super::row;
use super::shape::{BAND_BLOCKS, Shape};

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
    pub(crate) words: Vec<u32>,
    /// What a lookup reads besides the words, worked out once.
    lookup: Lookup,
}

/// The lookup's view of a solution: which path it takes, and the shape's
/// numbers in the form the AVX2 path uses them.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct Lookup {
    /// The path: [`EMPTY`], [`AVX2_FIRST_SEED`], [`AVX2`] or [`PORTABLE`].
    /// AVX2 is detected once, when the solution is made, so that a lookup
    /// tests a field instead of the CPU.
    path: u8,
    /// `shape.starts()`.
    starts: usize,
    /// `upper_start − 3` (wrapping): a band starting at block `b` covers
    /// blocks of both column counts when `b − straddle_from < 3`.
    straddle_from: usize,
    /// `shape.upper_start`.
    upper_start: usize,
    /// The AVX2 kernel for the shape's column counts.
    #[cfg(target_arch = "x86_64")]
    kernel: super::simd::Kernel,
    /// The columns of a lower (0) and an upper (1) block.
    columns: [usize; 2],
    /// What `first_word(b)` is short of `b × columns`: 0 for a lower
    /// block, `upper_start` for an upper one.
    offset: [usize; 2],
}

/// A filter of no keys: every lookup says no.
const EMPTY: u8 = 0;
/// AVX2, and the first seed (the mixed hash is the equation hash).
const AVX2_FIRST_SEED: u8 = 1;
/// AVX2, a later seed.
const AVX2: u8 = 2;
/// No AVX2.
const PORTABLE: u8 = 3;

/// Zero words after the last block's: the widest read past a block's
/// first word, `MAX_COLUMNS` (a whole number of AVX2 steps).
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
/// four blocks' words from their first column on.
#[inline(always)]
fn matches_portable(
    blocks: [&[u32]; BAND_BLOCKS],
    columns: usize,
    coefficients: [u32; BAND_BLOCKS],
    fingerprint: u64,
) -> bool {
    let [a, b, c, d] = blocks;
    let [ca, cb, cc, cd] = coefficients;
    for (j, (((&a, &b), &c), &d)) in a.iter().zip(b).zip(c).zip(d).take(columns).enumerate() {
        let x = (ca & a) ^ (cb & b) ^ (cc & c) ^ (cd & d);
        if (u64::from(x.count_ones()) ^ (fingerprint >> j)) & 1 != 0 {
            return false;
        }
    }
    true
}

impl Solution {
    /// The solution of `keys` distinct keys in `shape` under `seed`.
    pub(crate) fn new(shape: Shape, seed: u64, keys: usize, mut words: Vec<u32>) -> Self {
        // A no-op for callers that allocated the padding already.
        words.resize(shape.words() + PAD, 0);
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        let path = match (keys, avx2, seed) {
            (0, _, _) => EMPTY,
            (_, true, 0) => AVX2_FIRST_SEED,
            (_, true, _) => AVX2,
            (_, false, _) => PORTABLE,
        };
        let columns = shape.columns as usize;
        let lookup = Lookup {
            path,
            starts: shape.starts(),
            straddle_from: shape.upper_start.wrapping_sub(BAND_BLOCKS - 1),
            upper_start: shape.upper_start,
            #[cfg(target_arch = "x86_64")]
            kernel: super::simd::kernel(shape.max_columns() as usize),
            columns: [columns, columns + 1],
            offset: [0, shape.upper_start],
        };
        Solution {
            shape,
            seed,
            keys,
            words,
            lookup,
        }
    }

    /// Whether the key of mixed hash `mixed` may be in the set (`false`
    /// for every key when there are none).
    #[inline(always)]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.lookup.path == AVX2_FIRST_SEED {
            return self.lookup_avx2(mixed);
        }
        self.contains_mixed_other(mixed)
    }

    /// The lookup of every path but the most common one, out of line so
    /// that the common one stays small where it is inlined.
    #[inline(never)]
    fn contains_mixed_other(&self, mixed: u64) -> bool {
        match self.lookup.path {
            EMPTY => false,
            #[cfg(target_arch = "x86_64")]
            AVX2_FIRST_SEED | AVX2 => self.lookup_avx2(mixed),
            _ => self.lookup_portable(mixed),
        }
    }

    /// The lookup with the AVX2 column kernel (`simd::matches`): everything
    /// up to the kernel is inlined into the caller (whose loop keeps the
    /// constants in registers), and the kernel takes its arguments in
    /// registers. Only call when the path is `AVX2` or `AVX2_FIRST_SEED`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    #[allow(unsafe_code)]
    fn lookup_avx2(&self, mixed: u64) -> bool {
        let lookup = &self.lookup;
        let h = if lookup.path == AVX2_FIRST_SEED {
            mixed
        } else {
            row::equation_hash(mixed, self.seed)
        };
        let block = row::start_block(h, lookup.starts);
        // A band whose four blocks have one column count (all but the
        // three bands that straddle `upper_start`) reads its blocks at one
        // stride; the others take the portable path. The test is the same
        // for almost every lookup, so it is predicted.
        if block.wrapping_sub(lookup.straddle_from) < BAND_BLOCKS - 1 {
            return self.lookup_straddling(mixed);
        }
        // `shape.columns_of(block)` and `shape.first_word(block)`, from
        // arithmetic (no load waits on the comparison).
        let columns = lookup.columns[0] + usize::from(block >= lookup.upper_start);
        let first = block * lookup.columns[0] + block.saturating_sub(lookup.upper_start);
        debug_assert_eq!(first, self.shape.first_word(block));
        debug_assert_eq!(columns, self.shape.columns_of(block) as usize);
        let (low, high) = row::coefficient_words(h);
        debug_assert!(lookup.path != PORTABLE && first + 3 * columns + PAD <= self.words.len());
        // SAFETY: the path is an AVX2 one (the caller's contract), and
        // that only when the CPU has AVX2 (`new`). `first + 3 · columns` is
        // block `block + 3`'s first word, at most `shape.words()`, and the
        // kernel reads at most `MAX_COLUMNS` (= `PAD`) words from there,
        // inside the `shape.words() + PAD` words `new` made `words` hold;
        // `first` is below `words.len()`, so the pointer is in bounds.
        unsafe {
            (lookup.kernel)(
                self.words.as_ptr().add(first),
                columns,
                low,
                high,
                row::fingerprint(h),
            )
        }
    }

    /// The lookup of a band that straddles `upper_start`, out of line so
    /// that the common path stays small.
    #[cfg(target_arch = "x86_64")]
    #[cold]
    #[inline(never)]
    fn lookup_straddling(&self, mixed: u64) -> bool {
        self.lookup_portable(mixed)
    }

    /// The lookup one column at a time, for any CPU: the same answer as
    /// the AVX2 lookup for every key.
    #[inline(always)]
    fn lookup_portable(&self, mixed: u64) -> bool {
        let h = row::equation_hash(mixed, self.seed);
        let shape = &self.shape;
        let block = row::start_block(h, shape.starts());
        let (low, high) = row::coefficient_words(h);
        let coefficients = [
            low as u32,
            (low >> 32) as u32,
            high as u32,
            (high >> 32) as u32,
        ];
        let columns = shape.columns_of(block) as usize;
        // The start is below `blocks − 3`, so blocks `block` to `block + 3`
        // exist.
        let at = |k: usize| &self.words[shape.first_word(block + k)..];
        matches_portable(
            [at(0), at(1), at(2), at(3)],
            columns,
            coefficients,
            row::fingerprint(h),
        )
    }

    /// Hints that the lookup of mixed hash `mixed` will read its words
    /// soon. Never changes an answer.
    #[inline(always)]
    pub(crate) fn prefetch_mixed(&self, mixed: u64) {
        let h = row::equation_hash(mixed, self.seed);
        let block = row::start_block(h, self.shape.starts());
        let first = self.shape.first_word(block);
        let words = BAND_BLOCKS * self.shape.columns_of(block) as usize;
        // Sixteen 4-byte words per 64-byte line.
        let mut word = first;
        while word < first + words {
            prefetch(&self.words, word);
            word += 16;
        }
        prefetch(&self.words, first + words - 1);
    }

    /// The bytes of the solution words.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.shape.words() * size_of::<u32>()
    }
}

impl Solution {
    /// Body: seed, keys, blocks, columns, upper_start, then the words as a
    /// u32 array. See `docs/format-ribbon.md`.
    pub(crate) fn to_bytes(&self, probe: &HasherProbe) -> Vec<u8> {
        let mut w = ByteWriter::new(FilterKind::Ribbon, probe, 48 + self.memory_bytes());
        w.u64(self.seed);
        w.u64(self.keys as u64);
        w.u64(self.shape.blocks as u64);
        w.u32(self.shape.columns);
        w.u64(self.shape.upper_start as u64);
        w.u32_array(&self.words[..self.shape.words()]);
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
        let stored = r.u32_array("words")?;
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
    /// and non-members, at rates with one, two and four steps.
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
                assert!(solution.contains_mixed(h) && solution.lookup_portable(h));
            }
            for i in 5000..25_000 {
                let h = filter_core::mix64(i);
                assert_eq!(solution.contains_mixed(h), solution.lookup_portable(h));
            }
            // A later seed's path (the answers are another system's, but
            // both paths must give them alike).
            let seeded = Solution::new(shape, 12_345, solution.keys, solution.words.clone());
            for i in 0..20_000 {
                let h = filter_core::mix64(i);
                assert_eq!(seeded.contains_mixed(h), seeded.lookup_portable(h));
            }
        }
    }

    /// Every AVX2 kernel and the portable loop agree on every column count
    /// the kernel serves.
    #[test]
    #[allow(clippy::needless_range_loop)]
    #[allow(unsafe_code)]
    fn simd_and_portable_columns_agree() {
        if !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi2"))
        {
            return;
        }
        let words: Vec<u32> = (0..200).map(|i| filter_core::mix64(i) as u32).collect();
        for trial in 0..3000u64 {
            let columns = 1 + (trial % 32) as usize;
            let stride = columns;
            let c = |k: u64| filter_core::mix64(trial * 3 + k + 1000);
            let (low, high) = (c(0), c(1));
            let coefficients = [
                low as u32,
                (low >> 32) as u32,
                high as u32,
                (high >> 32) as u32,
            ];
            let blocks: [&[u32]; 4] = std::array::from_fn(|k| &words[k * stride..]);
            // A fingerprint that matches, then one wrong bit at a time.
            let mut fingerprint = 0u64;
            for j in 0..columns {
                let x = (0..4).fold(0, |x, k| x ^ (coefficients[k] & blocks[k][j]));
                fingerprint |= u64::from(x.count_ones() & 1) << j;
            }
            fingerprint |= c(3) & !((1u64 << columns) - 1);
            let wrong = fingerprint ^ (1 << (trial as usize % columns));
            assert!(matches_portable(blocks, columns, coefficients, fingerprint));
            assert!(!matches_portable(blocks, columns, coefficients, wrong));
            let mut served = 0;
            for max_columns in 1..=32 {
                if !super::super::simd::kernel_serves(max_columns, columns) {
                    continue;
                }
                served += 1;
                let kernel = super::super::simd::kernel(max_columns);
                // SAFETY: the CPU has AVX2 and BMI2 (checked above), the
                // kernel serves `columns`, and `words` holds 200 >= 3 * 32
                // + 32 words.
                let simd = |f| unsafe { kernel(words.as_ptr(), stride, low, high, f) };
                assert!(simd(fingerprint), "{max_columns} {columns}");
                assert!(!simd(wrong), "{max_columns} {columns}");
            }
            assert!(served > 0);
        }
    }
}
