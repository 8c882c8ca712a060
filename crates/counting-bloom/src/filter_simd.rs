//! The classic-layout lookup in AVX2: an item's k counters fetched four at
//! a time with `vpgatherqq`, where the CPU has AVX2.
//!
//! Why: lookups of different keys are independent, so the CPU overlaps
//! their cache misses, and how many it overlaps is set by how many
//! instructions each lookup holds in its window while it waits. The
//! portable loop spends about ten instructions per counter (position, load,
//! shift, mask, test, loop) against about eight per bit in the classic
//! Bloom filter. Here four positions are computed, fetched, shifted and
//! tested by one vector instruction each, so a lookup holds fewer
//! instructions and more lookups fit in flight. Once the table is in DRAM
//! the portable lookup stops at the first zero counter to save memory
//! traffic on misses; the gathered one always fetches all k lines, and
//! keeps up on misses because more lookups are in flight.
//!
//! What costs: the call. A function compiled for AVX2 cannot be inlined
//! into portable code. Where it could be (a build for an AVX2 target), it
//! is still kept out of line (`#[inline(never)]`): inlined into a caller's
//! lookup loop it made that loop slower. One unrolled copy per group count
//! beat a loop over the groups with the count known at run time.
//!
//! The vector code computes exactly the probes of
//! [`filter_core::probes::LinearProbes`]: probe j of a key is `reduce(x + j·y, m)`, and
//! `reduce` (the high word of a 64 × 64-bit product) is rebuilt from two
//! 32 × 32-bit products, exact for m < 2^32. So answers never depend on
//! the CPU, and a test checks the two kernels agree.

#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use filter_core::probes::LinearProbes;
use filter_core::probes::ProbeSequence;

use crate::kernel::Kernel;

/// The most hashes the AVX2 lookup takes: four groups of four probes, so
/// every rate down to about 10^−5 (k = 17 is the optimum near 7·10^−6).
/// More hashes use the portable lookup.
const MAX_GATHERED_HASHES: u32 = 16;

/// How a classic-layout filter looks its keys up on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// The portable loops of `filter.rs`.
    Portable,
    /// The AVX2 lookup. Only [`Lookup::for_shape`] makes one, after AVX2
    /// was detected, for a shape whose probes the vector code reproduces:
    /// holding one is the proof that [`all_nonzero`] may run.
    #[cfg(target_arch = "x86_64")]
    Gather(Gather),
}

/// What the AVX2 lookup of one filter shape needs besides the table,
/// computed once rather than on every call.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gather {
    /// The counter count, in each of four lanes.
    len: [u64; 4],
    /// All ones in the lanes of the last group of four that hold a probe,
    /// 0 in the others (k = 7: the first three).
    used: [u64; 4],
    /// k / 4, rounded up: 1 to 4.
    groups: u32,
}

impl Lookup {
    /// The lookup for a table of `counters` counters probed `hashes` times
    /// by `sequence`: AVX2 where the CPU has it and the vector lookup
    /// reaches the same counters as the portable one, that is for the
    /// linear sequence, at most [`MAX_GATHERED_HASHES`] hashes
    /// and fewer than 2^32 counters (a 2 GiB table); else portable.
    ///
    /// Small tables (the cubic and hashed sequences) keep the portable
    /// lookup: they are in cache, where a lookup waits on nothing and
    /// gathers do not pay.
    pub(crate) fn for_shape(counters: usize, hashes: u32, sequence: ProbeSequence) -> Lookup {
        let fits = sequence == ProbeSequence::Linear
            && (1..=MAX_GATHERED_HASHES).contains(&hashes)
            && u32::try_from(counters).is_ok();
        if !fits {
            return Lookup::Portable;
        }
        match Kernel::detect() {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => {
                let groups = hashes.div_ceil(4);
                let last_group = hashes - 4 * (groups - 1);
                Lookup::Gather(Gather {
                    len: [counters as u64; 4],
                    used: [0, 1, 2, 3].map(|lane| if lane < last_group { u64::MAX } else { 0 }),
                    groups,
                })
            }
            _ => Lookup::Portable,
        }
    }
}

/// Whether the counters of mixed hash `mixed` are all non-zero in `table`, a
/// table of the shape `gather` was made for, by the AVX2 lookup.
///
/// # Safety
///
/// `table` holds at least `counters.div_ceil(16)` words, for the counter
/// count `gather` was made for. (That the CPU has AVX2 and the shape fits
/// follows from `gather` existing.)
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn all_nonzero(table: &[u64], gather: &Gather, mixed: u64) -> bool {
    debug_assert!(table.len() as u64 >= gather.len[0].div_ceil(16));
    // One copy per group count, each unrolled: a branch on the hash count,
    // the same for every lookup of a filter, so always predicted.
    // SAFETY: `gather` was made by `Lookup::for_shape` after AVX2 was
    // detected, and its group count matches its lanes; the caller promises
    // the table.
    unsafe {
        match gather.groups {
            1 => avx2::all_nonzero::<1>(table, gather, mixed),
            2 => avx2::all_nonzero::<2>(table, gather, mixed),
            3 => avx2::all_nonzero::<3>(table, gather, mixed),
            _ => avx2::all_nonzero::<4>(table, gather, mixed),
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    // The intrinsics are called inside `unsafe` blocks although Rust 1.87 and
    // later consider most of them safe in an AVX2 function: the workspace's
    // minimum Rust (1.85) requires the blocks, and newer compilers would
    // otherwise warn that they are unused.
    #![allow(unused_unsafe)]

    use std::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_blendv_epi8, _mm256_cmpeq_epi64,
        _mm256_i64gather_epi64, _mm256_loadu_si256, _mm256_mul_epu32, _mm256_or_si256,
        _mm256_permute4x64_epi64, _mm256_set1_epi64x, _mm256_setr_epi64x, _mm256_setzero_si256,
        _mm256_slli_epi64, _mm256_srli_epi64, _mm256_srlv_epi64, _mm256_testz_si256,
    };

    use super::{Gather, LinearProbes};

    /// The intrinsics take i64; these are bit-for-bit reinterpretations.
    fn lane(x: u64) -> i64 {
        i64::from_ne_bytes(x.to_ne_bytes())
    }

    /// `reduce(v, len)` in each lane: the high word of `v · len`, from
    /// `v = hi·2^32 + lo` as `(hi·len + (lo·len >> 32)) >> 32`. Exact for
    /// `len < 2^32` (the first product is below 2^64 − 2^33 + 2, the second
    /// term below 2^32, so the sum does not wrap).
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn reduce(values: __m256i, len: __m256i) -> __m256i {
        // SAFETY: register-only intrinsics; the caller guarantees AVX2.
        unsafe {
            let high = _mm256_mul_epu32(_mm256_srli_epi64::<32>(values), len);
            let low = _mm256_srli_epi64::<32>(_mm256_mul_epu32(values, len));
            _mm256_srli_epi64::<32>(_mm256_add_epi64(high, low))
        }
    }

    /// [`all_nonzero`](super::all_nonzero) with its probes in `GROUPS`
    /// groups of four: lanes past the last probe repeat probe 0, so they
    /// test nothing new.
    ///
    /// # Safety
    ///
    /// As [`all_nonzero`](super::all_nonzero), and
    /// `GROUPS = gather.groups`.
    // Out of line even where it could be inlined (see the module docs).
    #[inline(never)]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn all_nonzero<const GROUPS: usize>(
        table: &[u64],
        gather: &Gather,
        mixed: u64,
    ) -> bool {
        let counters = gather.len[0] as usize;
        let (x, y) = LinearProbes::new(mixed, counters).next_and_step();
        let at = |j: u64| lane(x.wrapping_add(y.wrapping_mul(j)));
        // SAFETY: the CPU has AVX2 (the caller's promise), and the gathers
        // stay in the table: each lane's position is `reduce(_, counters) <
        // counters`, so its word `position / 16` is below
        // `counters.div_ceil(16) ≤ table.len()`.
        unsafe {
            let len = _mm256_loadu_si256(gather.len.as_ptr().cast());
            let used = _mm256_loadu_si256(gather.used.as_ptr().cast());
            let fifteen = _mm256_set1_epi64x(15);
            let zero = _mm256_setzero_si256();
            let step = _mm256_set1_epi64x(lane(y.wrapping_mul(4)));
            let mut values = _mm256_setr_epi64x(at(0), at(1), at(2), at(3));
            let mut first = zero;
            let mut zero_counters = zero;
            for group in 0..GROUPS {
                let mut positions = reduce(values, len);
                if group == 0 {
                    first = _mm256_permute4x64_epi64::<0>(positions);
                }
                if group + 1 == GROUPS {
                    positions = _mm256_blendv_epi8(first, positions, used);
                }
                let words = _mm256_i64gather_epi64::<8>(
                    table.as_ptr().cast::<i64>(),
                    _mm256_srli_epi64::<4>(positions),
                );
                let shifts = _mm256_slli_epi64::<2>(_mm256_and_si256(positions, fifteen));
                let counter = _mm256_and_si256(_mm256_srlv_epi64(words, shifts), fifteen);
                zero_counters = _mm256_or_si256(zero_counters, _mm256_cmpeq_epi64(counter, zero));
                values = _mm256_add_epi64(values, step);
            }
            _mm256_testz_si256(zero_counters, zero_counters) == 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CountingBloomFilter;
    use crate::counters::zeroed_table;
    use filter_core::{PortableHasher, mix64};

    /// A filter of `counters` counters and `hashes` hashes probed by the
    /// linear sequence whatever its size (small tables would pick another),
    /// holding `counters / (2·hashes)` keys (about 40 % of the counters
    /// non-zero, so lookups answer both ways) and one key inserted 20
    /// times (saturated counters).
    fn linear_filter(counters: u64, hashes: u32) -> CountingBloomFilter {
        let table = zeroed_table(counters).unwrap();
        let mut filter =
            CountingBloomFilter::from_parts(table, counters, hashes, PortableHasher::default());
        filter.sequence = ProbeSequence::Linear;
        filter.lookup = Lookup::for_shape(counters as usize, hashes, ProbeSequence::Linear);
        for i in 0..=counters / (2 * u64::from(hashes)) {
            filter.insert_mixed(mix64(i));
        }
        for _ in 0..20 {
            filter.insert_mixed(u64::MAX);
        }
        filter
    }

    /// 1 word, a partial last word and cache-resident tables with every
    /// hash count the AVX2 lookup takes; a 4.8 MB table with one hash count
    /// per group count (the slowest shape to fill). On a CPU without AVX2
    /// both filters run the portable lookup.
    #[test]
    fn both_lookups_agree_at_every_hash_count() {
        let avx2 = Kernel::detect() != Kernel::Portable;
        let shapes = [1u64, 17, 1_000, 100_003]
            .into_iter()
            .flat_map(|counters| (1..=MAX_GATHERED_HASHES).map(move |hashes| (counters, hashes)))
            .chain([3, 7, 12, 16].map(|hashes| (9_585_059, hashes)));
        for (counters, hashes) in shapes {
            let mut fast = linear_filter(counters, hashes);
            assert_eq!(
                fast.lookup != Lookup::Portable,
                avx2,
                "{counters}, {hashes}"
            );
            let mut portable = fast.clone();
            portable.lookup = Lookup::Portable;
            let queries = (0..2_000)
                .map(|i| mix64(i ^ 0xABCD_0000_0000))
                .chain([u64::MAX]);
            let (mut present, mut absent) = (0, 0);
            for mixed in queries {
                let answer = fast.contains_mixed(mixed);
                assert_eq!(
                    answer,
                    portable.contains_mixed(mixed),
                    "{counters}, {hashes}, {mixed}"
                );
                if answer {
                    present += 1;
                } else {
                    absent += 1;
                }
            }
            // The saturated key is present; from 1,000 counters on, so
            // few are set that most random hashes are absent.
            assert!(present >= 1);
            if counters >= 1_000 {
                assert!(absent > 1_000, "{counters}, {hashes}: {absent} absent");
            }
            // A remove looks the key up first: both ways, every key
            // inserted comes out, and the tables stay equal.
            for i in 0..=counters / (2 * u64::from(hashes)) {
                assert!(fast.remove_mixed(mix64(i)), "{counters}, {hashes}, {i}");
                assert!(portable.remove_mixed(mix64(i)));
            }
            assert_eq!(fast.table, portable.table);
        }
    }

    #[test]
    fn only_shapes_the_vector_lookup_reproduces_get_it() {
        let avx2 = Kernel::detect() != Kernel::Portable;
        let gathered = |counters, hashes, sequence| {
            Lookup::for_shape(counters, hashes, sequence) != Lookup::Portable
        };
        assert_eq!(gathered(9_585_059, 7, ProbeSequence::Linear), avx2);
        assert_eq!(gathered(9_585_059, 16, ProbeSequence::Linear), avx2);
        assert_eq!(gathered(u32::MAX as usize, 1, ProbeSequence::Linear), avx2);
        // More than four groups of four, the cubic and hashed sequences,
        // 2^32 counters.
        assert!(!gathered(9_585_059, 17, ProbeSequence::Linear));
        assert!(!gathered(1_000, 7, ProbeSequence::Cubic));
        assert!(!gathered(9_585_059, 7, ProbeSequence::Hashed));
        if let Ok(len) = usize::try_from(1u64 << 32) {
            assert!(!gathered(len, 7, ProbeSequence::Linear));
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_last_group_uses_only_its_probes() {
        let Lookup::Gather(gather) = Lookup::for_shape(1 << 20, 7, ProbeSequence::Linear) else {
            return; // No AVX2 on this CPU.
        };
        assert_eq!(gather.groups, 2);
        assert_eq!(gather.used, [u64::MAX, u64::MAX, u64::MAX, 0]);
        assert_eq!(gather.len, [1 << 20; 4]);
    }
}
