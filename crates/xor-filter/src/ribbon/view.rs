//! [`RibbonRef`]: a [`Ribbon`] queried in place over its bytes (see
//! [`crate::view`] for the design shared by every view: header and lengths
//! checked on opening, the checksum on request, safe byte-wise reads).
//!
//! The owned filter looks keys up in a copy of the words laid out for its
//! column kernels (with a shadow of three blocks and zero words after the
//! last block, see `solution.rs`); the bytes have neither. Most bands need
//! neither, though: a band whose four blocks have one column count lies at
//! one stride in the stored words too, and unless it is among the last few
//! of the table, the words a kernel reads past it (at most 32, `Kernel`'s
//! contract) are still inside the bytes. So on x86-64 with AVX2 and BMI2
//! (a little-endian host, whose words are the stored bytes as they are) a
//! view runs the owned filter's kernel, chosen once when it opens, on the
//! borrowed bytes for such bands; the kernels load with unaligned loads,
//! so the table may start at any address. Which bands qualify is two
//! ranges of start blocks worked out on opening from the shape and the
//! bytes' length, so a lookup compares its block with one limit, the end
//! of the range of its column count (the safe loop is out of line). The
//! other bands (those that straddle the change of column count, and the
//! last few, whose kernel reads would pass the table's end) and every band
//! on other hosts take a safe loop, which evaluates every column, one
//! bounds-checked little-endian word at a time. The answers are the same
//! for every key, on either path, as the owned filter's.

use std::fmt;
use std::hash::Hash;

use filter_core::format::{ByteReader, FilterKind};
use filter_core::{Error, Filter, HasherProbe, KeyHasher, PortableHasher, mix64};

use super::Ribbon;
use super::solution::SolutionRef;
#[cfg(target_arch = "x86_64")]
use super::{row, shape::BAND_BLOCKS};
use crate::view::checksum_holds;

/// A borrowed view of a [`Ribbon`] filter's bytes, queried in place without
/// copying its table.
///
/// Opening reads the header only (header, shape and table length, checked as
/// [`Ribbon::from_bytes`] checks them; the checksum is
/// [`verify_checksum`](Self::verify_checksum)), so a filter of gigabytes in
/// a memory-mapped file opens in microseconds; lookups answer exactly as the
/// owned filter's, and stay in bounds for any bytes. Words are read as
/// little-endian bytes, so the table may start at any address and every
/// host borrows.
///
/// # Examples
///
/// ```
/// use xor_filter::{Ribbon, RibbonRef};
///
/// let keys: Vec<u64> = (0..10_000).collect();
/// let bytes = Ribbon::from_keys_with_fpr(&keys, 0.01)?.to_bytes();
/// let view = RibbonRef::from_bytes(&bytes)?;
/// view.verify_checksum()?;
/// assert!(keys.iter().all(|k| view.contains(k)));
/// # Ok::<(), xor_filter::Error>(())
/// ```
#[derive(Clone)]
pub struct RibbonRef<'a, S = PortableHasher> {
    solution: SolutionRef<'a>,
    /// The kernel path, when the CPU and the filter admit it.
    #[cfg(target_arch = "x86_64")]
    fast: Option<Fast>,
    bytes: &'a [u8],
    hasher: S,
}

/// What the kernel path of a view's lookup needs, worked out on opening: a
/// band starting at block `b` is read by the kernel when `b < lower_end`
/// or `upper_start <= b < upper_end`, and by the safe loop otherwise.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
struct Fast {
    /// `simd::kernel(shape.max_columns())`, which serves both column
    /// counts of the shape.
    kernel: super::simd::Kernel,
    /// Every band starting below this block covers lower blocks only, and
    /// the kernel's reads from its first word end inside the words.
    lower_end: usize,
    /// `shape.upper_start`.
    upper_start: usize,
    /// Every band starting at a block from `upper_start` to below this one
    /// covers upper blocks only, and the kernel's reads from its first
    /// word end inside the words.
    upper_end: usize,
    /// `shape.columns`, the columns of a lower block.
    columns: usize,
}

/// Words a kernel may read past its band's last block's first word
/// (`simd::Kernel`'s contract: `3 · columns + 32` words from the first).
#[cfg(target_arch = "x86_64")]
const KERNEL_READ: usize = 32;

#[cfg(target_arch = "x86_64")]
impl Fast {
    /// The kernel path for `solution`, or `None` when the CPU lacks AVX2
    /// or BMI2, or the filter has no keys.
    fn new(solution: &SolutionRef<'_>) -> Option<Fast> {
        let avx2 = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi2");
        if !avx2 || solution.keys == 0 {
            return None;
        }
        let shape = solution.shape;
        // `read` checked that the bytes hold exactly `shape.words()` words;
        // the limits are worked out from the bytes' length all the same,
        // so that they hold for the slice the kernel reads.
        let words = solution.words.len() / size_of::<u32>();
        let columns = shape.columns as usize;
        let upper_start = shape.upper_start;
        // A lower band at `b` reads words `b · columns` to `b · columns +
        // 3 · columns + KERNEL_READ`: in bounds while `b` is at most
        // `(words − 3 · columns − KERNEL_READ) / columns`. It covers lower
        // blocks only while `b + 3 < upper_start`.
        let lower_end = words
            .checked_sub(3 * columns + KERNEL_READ)
            .map_or(0, |room| room / columns + 1)
            .min(upper_start.saturating_sub(BAND_BLOCKS - 1));
        // An upper band at `upper_start + i` starts at word `upper_start ·
        // columns + i · (columns + 1)` and reads `3 · (columns + 1) +
        // KERNEL_READ` words on; every band from `upper_start` on covers
        // upper blocks only. No band starts there when `upper_start ==
        // blocks`, and then `upper_end` is never used. (No overflow: both
        // terms are at most `words`, which `upper_start` is not above, as
        // `shape.words() >= blocks`.)
        let upper_len = words
            .checked_sub(upper_start * columns + 3 * (columns + 1) + KERNEL_READ)
            .map_or(0, |room| room / (columns + 1) + 1);
        Some(Fast {
            kernel: super::simd::kernel(shape.max_columns() as usize),
            lower_end,
            upper_start,
            upper_end: upper_start.saturating_add(upper_len),
            columns,
        })
    }

    /// The first word and the stride of the band starting at block
    /// `block`, if the kernel reads it in place (see [`Fast`]):
    /// `shape.first_word(block)` and `shape.columns_of(block)`, worked out
    /// without branches (`upper` is 0 or 1) but the one on the limit.
    #[inline(always)]
    fn band(&self, block: usize) -> Option<(usize, usize)> {
        let upper = usize::from(block >= self.upper_start);
        let end = if upper == 1 {
            self.upper_end
        } else {
            self.lower_end
        };
        let first = (block * self.columns)
            .wrapping_add(block.wrapping_sub(self.upper_start) & upper.wrapping_neg());
        (block < end).then_some((first, self.columns + upper))
    }
}

impl<'a> RibbonRef<'a, PortableHasher> {
    /// Opens a view over bytes that [`Ribbon::to_bytes`] wrote, with the
    /// default hasher, without copying the table. Reads the header and the
    /// lengths only; call [`verify_checksum`](Self::verify_checksum) to
    /// check the rest.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for bytes that are not a ribbon filter or whose
    /// header, shape or table length is malformed (a truncated or extended
    /// string included); [`Error::HasherMismatch`] when the filter was
    /// built with a hasher that hashes differently.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<'a, S: KeyHasher> RibbonRef<'a, S> {
    /// As [`from_bytes`](RibbonRef::from_bytes), to be queried with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](RibbonRef::from_bytes).
    pub fn from_bytes_with_hasher(bytes: &'a [u8], hasher: S) -> Result<Self, Error> {
        let reader =
            ByteReader::open_unverified(bytes, FilterKind::Ribbon, &HasherProbe::of(&hasher))?;
        let solution = SolutionRef::read(reader)?;
        Ok(RibbonRef {
            #[cfg(target_arch = "x86_64")]
            fast: Fast::new(&solution),
            solution,
            bytes,
            hasher,
        })
    }

    /// Checks the checksum over all the bytes: reads every byte once.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when the bytes were altered after they were
    /// written.
    pub fn verify_checksum(&self) -> Result<(), Error> {
        checksum_holds(self.bytes)
    }

    /// `false` means `item` was certainly not among the keys; `true` means
    /// it probably was. The same answer as the owned filter's.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_mixed(self.hasher.mixed_hash(item))
    }

    /// As [`contains`](Self::contains) for a key's hash, as
    /// `hasher.hash_key(key)` gives it (the filter's hasher is not used).
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.contains_mixed(mix64(hash))
    }

    /// The lookup of a mixed hash, for batches.
    #[inline(always)]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let Some(fast) = &self.fast {
            let solution = &self.solution;
            let h = row::equation_hash(mixed, solution.seed);
            let block = row::start_block(h, solution.shape.starts());
            return match fast.band(block) {
                Some((first, columns)) => self.kernel_lookup(fast, h, first, columns),
                None => self.safe_lookup(h, block),
            };
        }
        self.solution.contains_mixed(mixed)
    }

    /// The safe loop's answer for the equation of hash `h`, whose band
    /// starts at block `block`: out of line, so that the kernel path's
    /// loop stays small.
    #[cfg(target_arch = "x86_64")]
    #[cold]
    #[inline(never)]
    fn safe_lookup(&self, h: u64, block: usize) -> bool {
        self.solution.matches_band(h, block)
    }

    /// The kernel's answer for the equation of hash `h`, whose band
    /// `fast.band` gave as `(first, columns)`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    #[allow(unsafe_code)]
    fn kernel_lookup(&self, fast: &Fast, h: u64, first: usize, columns: usize) -> bool {
        let (low, high) = row::coefficient_words(h);
        let words = self.solution.words;
        debug_assert!({
            let shape = &self.solution.shape;
            let block = row::start_block(h, shape.starts());
            (block + BAND_BLOCKS - 1 < shape.upper_start || block >= shape.upper_start)
                && (first, columns) == (shape.first_word(block), shape.columns_of(block) as usize)
                && size_of::<u32>() * (first + 3 * columns + KERNEL_READ) <= words.len()
        });
        // SAFETY: `fast` exists only where the CPU has AVX2 and BMI2
        // (`Fast::new`), and its kernel serves the shape's column counts,
        // `columns_of(block)` among them. `fast.band(block)` gave `first =
        // shape.first_word(block)` and `columns = columns_of(block)` for a `block`
        // below its limit, so the band's four blocks have one column count: `block
        // < lower_end <= upper_start − 3` puts all four below `upper_start`,
        // `upper_start <= block < upper_end` all four at or above it; so they
        // start at `first + k · columns`, as the kernel reads them. Its reads end
        // `3 · columns + KERNEL_READ` words from `first`. A lower band has `first
        // = block · columns` and `block <= (words − 3 · columns − KERNEL_READ) /
        // columns`; an upper one, of `columns = c + 1` for the lower count `c`,
        // has `first = upper_start · c + i · columns` (`i = block − upper_start <
        // upper_end − upper_start`) and `i <= (words − upper_start · c − 3 ·
        // columns − KERNEL_READ) / columns`. Either way `first + 3 · columns +
        // KERNEL_READ <= words`, the number of whole words in `words` (the limits
        // were computed from its length), so every read is inside the slice, and
        // so is the pointer. The kernels load with unaligned loads (`vmovdqu` or
        // memory operands of VEX and EVEX instructions, which need no alignment),
        // so the pointer, which may be at any address, is never read as an aligned
        // `u32`; on x86-64 (little-endian) each 4 bytes read as a lane are the
        // stored word.
        unsafe {
            (fast.kernel)(
                words.as_ptr().add(size_of::<u32>() * first).cast::<u32>(),
                columns,
                &[low, high],
                row::fingerprint(h),
            )
        }
    }

    /// Whether the lookup of mixed hash `mixed` takes the kernel path
    /// (tests).
    #[cfg(all(test, target_arch = "x86_64"))]
    fn takes_kernel(&self, mixed: u64) -> bool {
        self.fast.is_some_and(|fast| {
            let h = row::equation_hash(mixed, self.solution.seed);
            fast.band(row::start_block(h, self.solution.shape.starts()))
                .is_some()
        })
    }

    /// Hints that the lookup of mixed hash `mixed` will read its words soon.
    #[inline(always)]
    pub(crate) fn prefetch_mixed(&self, mixed: u64) {
        self.solution.prefetch_mixed(mixed);
    }

    /// The number of distinct key hashes the filter was built from.
    pub fn len(&self) -> usize {
        self.solution.keys
    }

    /// Whether the filter was built from no keys (it then answers `false`
    /// for every key).
    pub fn is_empty(&self) -> bool {
        self.solution.keys == 0
    }

    /// The bytes of the solution table (borrowed, not owned).
    pub fn memory_bytes(&self) -> usize {
        self.solution.words.len()
    }

    /// Table bits per distinct key (the table's bits when there are none).
    pub fn bits_per_key(&self) -> f64 {
        (self.memory_bytes() * 8) as f64 / self.len().max(1) as f64
    }

    /// The false-positive rate the shape gives a key not in the set, as
    /// [`Ribbon::fpr`] (0 for a filter of no keys).
    pub fn fpr(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.solution.shape.fpr()
        }
    }

    /// The number of slots (unknowns of the system), as [`Ribbon::slots`].
    pub fn slots(&self) -> usize {
        self.solution.shape.slots()
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// The whole byte string the view was opened over.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Copies the table into an owned filter, which answers alike.
    pub fn to_owned_filter(&self) -> Ribbon<S>
    where
        S: Clone,
    {
        Ribbon {
            solution: self.solution.copy_solution(),
            hasher: self.hasher.clone(),
        }
    }
}

impl<S> fmt::Debug for RibbonRef<'_, S> {
    /// The shape, not the table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = &self.solution.shape;
        f.debug_struct("RibbonRef")
            .field("len", &self.solution.keys)
            .field("slots", &shape.slots())
            .field("columns", &shape.columns)
            .field("upper_start", &shape.upper_start)
            .field("memory_bytes", &self.solution.words.len())
            .finish_non_exhaustive()
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for RibbonRef<'_, S> {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        RibbonRef::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        RibbonRef::memory_bytes(self)
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Views of filters of a few sizes and rates answer as the owned
    /// filter on both paths, and both paths are taken where the CPU has
    /// AVX2: most bands by the kernel, the last few and those across the
    /// change of column count by the safe loop.
    #[test]
    fn kernel_and_safe_paths_answer_as_the_owned_filter() {
        let members: Vec<u64> = (0..3000).map(mix64).collect();
        for fpr in [0.01, 0.001, 0.3, 0.5f64.powi(20)] {
            let owned = Ribbon::from_hashes_with_fpr(&members, fpr).unwrap();
            let bytes = owned.to_bytes();
            let view = RibbonRef::from_bytes(&bytes).unwrap();
            let (mut kernel, mut safe) = (0, 0);
            for i in 0..40_000u64 {
                let mixed = mix64(mix64(i) ^ 0x5555);
                assert_eq!(
                    view.contains_mixed(mixed),
                    owned.contains_mixed(mixed),
                    "{fpr} {i}"
                );
                if view.takes_kernel(mixed) {
                    kernel += 1;
                } else {
                    safe += 1;
                }
            }
            if view.fast.is_some() {
                assert!(kernel > 0 && safe > 0, "{fpr}: {kernel} {safe}");
            }
        }
    }
}
