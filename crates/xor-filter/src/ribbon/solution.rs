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
    /// The words as lookups read them (see [`Solution::new`]): the lower
    /// blocks' words, a copy of the first `columns` columns of blocks
    /// `upper_start` to `upper_start + 2` (the *shadow*, when there are
    /// upper blocks), the upper blocks' words, then zero words that no
    /// key's equation covers (lookups read whole steps of columns past the
    /// last block's words). [`Solution::table_words`] gives the stored
    /// words without the shadow.
    words: Vec<u32>,
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
    /// `shape.upper_start`.
    upper_start: usize,
    /// `shape.columns`: the columns of a lower block (an upper one has one
    /// more).
    columns: usize,
    /// What an upper block's first word in `words` is beyond `b ×
    /// (columns + 1)`: the shadow's words less `upper_start` (wrapping).
    /// (Beyond `b × columns` it is `b + upper_offset`.)
    upper_offset: usize,
    /// The words of the shadow.
    shadow: usize,
    /// The AVX2 kernel for the shape's column counts.
    #[cfg(target_arch = "x86_64")]
    kernel: super::simd::Kernel,
}

/// A filter of no keys: every lookup says no.
const EMPTY: u8 = 0;
/// AVX2, and the first seed (the mixed hash is the equation hash).
const AVX2_FIRST_SEED: u8 = 1;
/// AVX2, a later seed.
const AVX2: u8 = 2;
/// No AVX2.
const PORTABLE: u8 = 3;

/// Words after the last block's that a caller of [`Solution::new`] may
/// allocate: the shadow's words (at most `3 × (MAX_COLUMNS − 1)`) and the
/// zero words lookups read past the last block ([`READ_PAD`]), so that the
/// shadow is put in place without a new allocation.
pub(crate) const PAD: usize = 128;

/// Zero words after the last block's in `words`: the widest read past a
/// block's first word, `MAX_COLUMNS` (a whole number of AVX2 steps).
const READ_PAD: usize = 32;

/// Equal solutions have equal shapes, seeds, key counts and words (the
/// CPU a lookup runs on is no part of the filter).
impl PartialEq for Solution {
    fn eq(&self, other: &Self) -> bool {
        (self.shape, self.seed, self.keys) == (other.shape, other.seed, other.keys)
            && self.table_words().eq(other.table_words())
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

/// [`matches_portable`] for a borrowed table ([`SolutionRef`]): `blocks`
/// are the four blocks' words of the band's columns as little-endian
/// bytes, 4 a word and the same number in each. It evaluates every column
/// instead of stopping at the first that differs: on a mix of members and
/// non-members the stop is a branch the CPU cannot predict, and without
/// the owned filter's column kernels that costs more than the columns it
/// saves.
#[inline(always)]
fn matches_le(
    blocks: [&[u8]; BAND_BLOCKS],
    coefficients: [u32; BAND_BLOCKS],
    fingerprint: u64,
) -> bool {
    let le = |w: &[u8]| u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    let [a, b, c, d] = blocks.map(|block| block.chunks_exact(size_of::<u32>()));
    let [ca, cb, cc, cd] = coefficients;
    let mut differ = 0u32;
    for (j, (((a, b), c), d)) in a.zip(b).zip(c).zip(d).enumerate() {
        let x = (ca & le(a)) ^ (cb & le(b)) ^ (cc & le(c)) ^ (cd & le(d));
        differ |= (x.count_ones() ^ (fingerprint >> j) as u32) & 1;
    }
    differ == 0
}

/// The four 32-bit coefficient words of a key's band, one per block.
#[inline(always)]
fn coefficient_blocks(h: u64) -> [u32; BAND_BLOCKS] {
    let (low, high) = row::coefficient_words(h);
    [
        low as u32,
        (low >> 32) as u32,
        high as u32,
        (high >> 32) as u32,
    ]
}

impl Solution {
    /// The solution of `keys` distinct keys in `shape` under `seed`, from
    /// its `shape.words()` stored words (block after block, as
    /// [`Shape::first_word`] places them; any words beyond are ignored).
    ///
    /// A band that starts in one of the last three lower blocks covers
    /// blocks of both column counts, so its words are not at one stride.
    /// Rather than branch for them, a lookup reads such a band from the
    /// *shadow*: right after the lower blocks, the first `columns` columns
    /// of blocks `upper_start` to `upper_start + 2` again (the only ones
    /// such a band compares), so that blocks `0` to `upper_start + 2` lie
    /// at one stride. It costs `3 × columns` words, and every lookup
    /// computes its first word with one formula.
    pub(crate) fn new(shape: Shape, seed: u64, keys: usize, mut words: Vec<u32>) -> Self {
        let stored = shape.words();
        let columns = shape.columns as usize;
        let shadow = if shape.upper_start < shape.blocks {
            3 * columns
        } else {
            0
        };
        // No new allocation for callers that allocated `PAD` words more.
        words.truncate(stored);
        words.resize(stored + shadow + READ_PAD, 0);
        let lower_end = shape.upper_start * columns;
        words.copy_within(lower_end..stored, lower_end + shadow);
        for k in 0..shadow / columns.max(1) {
            let block = shape.upper_start + k;
            let at = lower_end + k * columns;
            if block < shape.blocks {
                let from = shape.first_word(block) + shadow;
                words.copy_within(from..from + columns, at);
            } else {
                words[at..at + columns].fill(0);
            }
        }
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
        let lookup = Lookup {
            path,
            starts: shape.starts(),
            upper_start: shape.upper_start,
            columns,
            upper_offset: shadow.wrapping_sub(shape.upper_start),
            shadow,
            #[cfg(target_arch = "x86_64")]
            kernel: super::simd::kernel(shape.max_columns() as usize),
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

    /// The band of a key whose band starts at block `block`: the index in
    /// `words` of its first word, and its stride, the columns of `block`.
    /// Its four blocks' words are at `first + k × columns` for k < 4 (in
    /// the shadow for a band starting in the last three lower blocks), and
    /// their first `columns` columns are the band's.
    #[inline(always)]
    fn band(&self, block: usize) -> (usize, usize) {
        let lookup = &self.lookup;
        // Branch-free: `upper` is 0 or 1, and the offset applies to upper
        // blocks only.
        let upper = usize::from(block >= lookup.upper_start);
        let columns = lookup.columns + upper;
        // `block × columns` plus the offset, for an upper block `block +
        // upper_offset` (the multiplication does not wait on the comparison).
        let first = (block * lookup.columns)
            .wrapping_add(block.wrapping_add(lookup.upper_offset) & upper.wrapping_neg());
        debug_assert_eq!(
            first,
            self.shape.first_word(block) + lookup.shadow * upper,
            "{block}"
        );
        debug_assert_eq!(columns, self.shape.columns_of(block) as usize);
        (first, columns)
    }

    /// The lookup with the AVX2 column kernel (`simd::Kernel`): everything
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
        let (first, columns) = self.band(row::start_block(h, lookup.starts));
        let (low, high) = row::coefficient_words(h);
        debug_assert!(
            lookup.path != PORTABLE && first + 3 * columns + READ_PAD <= self.words.len()
        );
        // SAFETY: the path is an AVX2 one (the caller's contract), and
        // that only when the CPU has AVX2 and BMI2 (`new`); the kernel is
        // the one for the shape's column counts (`new`), which include
        // `columns`. `first + 3 · columns` is the band's last block's
        // first word in `words`, at most the index of the last block's
        // end, and the kernel reads at most `MAX_COLUMNS` (= `READ_PAD`)
        // words from there, inside the `READ_PAD` words `new` put after
        // the last block's; `first` is below `words.len()`, so the
        // pointer is in bounds.
        unsafe {
            (lookup.kernel)(
                self.words.as_ptr().add(first),
                columns,
                &[low, high],
                row::fingerprint(h),
            )
        }
    }

    /// The lookup one column at a time, for any CPU: the same answer as
    /// the AVX2 lookup for every key.
    #[inline(always)]
    fn lookup_portable(&self, mixed: u64) -> bool {
        let h = row::equation_hash(mixed, self.seed);
        let (first, columns) = self.band(row::start_block(h, self.lookup.starts));
        let at = |k: usize| &self.words[first + k * columns..];
        matches_portable(
            [at(0), at(1), at(2), at(3)],
            columns,
            coefficient_blocks(h),
            row::fingerprint(h),
        )
    }

    /// Hints that the lookup of mixed hash `mixed` will read its words
    /// soon. Never changes an answer.
    #[inline(always)]
    pub(crate) fn prefetch_mixed(&self, mixed: u64) {
        let h = row::equation_hash(mixed, self.seed);
        let (first, columns) = self.band(row::start_block(h, self.lookup.starts));
        let words = BAND_BLOCKS * columns;
        // Sixteen 4-byte words per 64-byte line.
        let mut word = first;
        while word < first + words {
            prefetch(&self.words, word);
            word += 16;
        }
        prefetch(&self.words, first + words - 1);
    }

    /// The bytes of the solution words (without the shadow's few
    /// hundred bytes at most, a copy).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.shape.words() * size_of::<u32>()
    }

    /// The stored words, `shape.words()` of them, block after block (as
    /// [`Shape::first_word`] places them): `words` without the shadow.
    pub(crate) fn table_words(&self) -> impl Iterator<Item = u32> + '_ {
        let lower_end = self.shape.upper_start * self.shape.columns as usize;
        let shadow = self.lookup.shadow;
        self.words[..lower_end]
            .iter()
            .chain(&self.words[lower_end + shadow..self.shape.words() + shadow])
            .copied()
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
        // As `u32_array` writes it: the count, then the words.
        w.u64(self.shape.words() as u64);
        self.table_words().for_each(|word| w.u32(word));
        w.finish()
    }

    /// Reads what [`to_bytes`](Self::to_bytes) wrote, checking every field.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming the field; [`Error::HasherMismatch`].
    pub(crate) fn from_bytes(bytes: &[u8], probe: &HasherProbe) -> Result<Self, Error> {
        let stored = SolutionRef::read(ByteReader::open(bytes, FilterKind::Ribbon, probe)?)?;
        let mut words = Vec::new();
        words
            .try_reserve_exact(stored.shape.words() + PAD)
            .map_err(|_| {
                Error::corrupt(format_args!(
                    "{} words cannot be allocated",
                    stored.shape.words()
                ))
            })?;
        words.extend(stored.stored_words());
        Ok(stored.with_words(words))
    }
}

/// A solution whose words are borrowed little-endian bytes, as
/// [`Solution::to_bytes`] wrote them (no shadow, no padding): what a
/// borrowed view ([`RibbonRef`](crate::RibbonRef)) queries, and what
/// [`Solution::from_bytes`] copies from, so that both accept exactly the
/// same bytes (bar the checksum, which the view leaves to its own call).
///
/// `words.len() == 4 × shape.words()`, so every word of every band the
/// shape admits is in bounds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolutionRef<'a> {
    pub(crate) shape: Shape,
    pub(crate) seed: u64,
    pub(crate) keys: usize,
    /// The stored words, 4 bytes each, block after block (as
    /// [`Shape::first_word`] places them).
    pub(crate) words: &'a [u8],
}

impl<'a> SolutionRef<'a> {
    /// Reads the body after the header `r` has validated, checking every
    /// field and the words' count against the shape, at a cost independent
    /// of the number of words.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming the field.
    pub(crate) fn read(mut r: ByteReader<'a>) -> Result<Self, Error> {
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
        // The reader checks the claimed count against the bytes present.
        let words = r.borrow_array(size_of::<u32>(), "words")?;
        let count = words.len() / size_of::<u32>();
        if count != shape.words() {
            return Err(Error::corrupt(format_args!(
                "words has {count} words, but the shape needs {}",
                shape.words()
            )));
        }
        r.finish()?;
        Ok(SolutionRef {
            shape,
            seed,
            keys,
            words,
        })
    }

    /// The stored words, in order.
    pub(crate) fn stored_words(&self) -> impl Iterator<Item = u32> + 'a {
        self.words
            .chunks_exact(size_of::<u32>())
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    }

    /// The owned solution of this shape, seed and key count, with `words`
    /// (this one's words, as [`Solution::new`] takes them).
    pub(crate) fn with_words(&self, words: Vec<u32>) -> Solution {
        Solution::new(self.shape, self.seed, self.keys, words)
    }

    /// The owned solution: a copy of the words.
    pub(crate) fn copy_solution(&self) -> Solution {
        let mut words = Vec::with_capacity(self.shape.words() + PAD);
        words.extend(self.stored_words());
        self.with_words(words)
    }

    /// The four blocks' words of the band that starts at block `block`
    /// (below `shape.starts()`), as little-endian bytes: of each block, the
    /// first `columns_of(block)` columns, the ones the band compares. The
    /// band's last block is below `shape.blocks`, and no block has fewer
    /// columns than one before it, so every range ends at or before
    /// `first_word(block + 4) <= shape.words()`: in bounds for any shape
    /// [`Shape::new`] accepts, since `read` checked the words' length.
    #[inline(always)]
    fn band(&self, block: usize) -> [&'a [u8]; BAND_BLOCKS] {
        let bytes = size_of::<u32>() * self.shape.columns_of(block) as usize;
        let words = self.words;
        std::array::from_fn(|k| {
            let first = size_of::<u32>() * self.shape.first_word(block + k);
            &words[first..first + bytes]
        })
    }

    /// Whether the key of mixed hash `mixed` may be in the set: the same
    /// answer as [`Solution::contains_mixed`] for the same bytes (`false`
    /// for every key when there are none). Reads words with bounds-checked
    /// indexing, so no bytes can make it read out of bounds.
    #[inline]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        if self.keys == 0 {
            return false;
        }
        let h = row::equation_hash(mixed, self.seed);
        self.matches_band(h, row::start_block(h, self.shape.starts()))
    }

    /// Whether the equation of hash `h` (as [`row::equation_hash`] gives
    /// it), whose band starts at block `block` (below `shape.starts()`),
    /// holds: the safe loop of [`contains_mixed`](Self::contains_mixed),
    /// for a caller that worked out `h` and `block` itself.
    #[inline(always)]
    pub(crate) fn matches_band(&self, h: u64, block: usize) -> bool {
        matches_le(self.band(block), coefficient_blocks(h), row::fingerprint(h))
    }

    /// Hints that the lookup of mixed hash `mixed` will read its words
    /// soon. Never changes an answer.
    #[inline(always)]
    pub(crate) fn prefetch_mixed(&self, mixed: u64) {
        let h = row::equation_hash(mixed, self.seed);
        let block = row::start_block(h, self.shape.starts());
        let first = size_of::<u32>() * self.shape.first_word(block);
        let last = size_of::<u32>() * self.shape.first_word(block + BAND_BLOCKS) - 1;
        // 64-byte lines.
        let mut at = first;
        while at < last {
            prefetch(self.words, at);
            at += 64;
        }
        prefetch(self.words, last);
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
            let seeded = Solution::new(
                shape,
                12_345,
                solution.keys,
                solution.table_words().collect(),
            );
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
                for kernel in super::super::simd::kernels(max_columns) {
                    // SAFETY: the CPU has AVX2 and BMI2 (checked above) and
                    // what `kernels` checked for the AVX-512 ones, the
                    // kernel serves `columns`, and `words` holds 200 >= 3 *
                    // 32 + 32 words.
                    let simd = |f| unsafe { kernel(words.as_ptr(), stride, &[low, high], f) };
                    assert!(simd(fingerprint), "{max_columns} {columns}");
                    assert!(!simd(wrong), "{max_columns} {columns}");
                }
            }
            assert!(served > 0);
        }
    }
}
