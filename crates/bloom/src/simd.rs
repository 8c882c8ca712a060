//! The block probe in AVX2, chosen at run time where the CPU has it.
//!
//! Why `unsafe` here and nowhere else: without AVX2, x86-64 has no
//! per-lane variable shift (nor a 32-bit lane multiply before SSE4.1), so
//! the portable probe builds its eight lane masks with eight scalar
//! multiplies and shifts and moves them into vector registers one by one; a
//! lookup whose cache miss overlaps with others is bound by instructions,
//! not memory, and that measured several times slower. AVX2 builds all eight
//! masks with one `vpmulld`, one `vpsrld` and one `vpsllvd`, and tests the
//! block with one `vptest`. Calling a function compiled for AVX2 is only
//! sound on a CPU that has it, which the caller checks once, when the filter
//! is built ([`Kernel::detect`]).
//!
//! The AVX2 path computes exactly the same bits as the portable one
//! ([`Probe`], [`masks`](crate::block::masks)), so a
//! filter saved on one machine answers identically on another; a test checks
//! the two agree.

#![allow(unsafe_code)]

use crate::atomic_blocked::{self, AtomicBlock};
use crate::block::{Block, Probe};

/// Which probe implementation a filter uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// Plain Rust, any target.
    Portable,
    /// AVX2 intrinsics; only ever constructed after a successful runtime
    /// check for AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    /// The fastest kernel this CPU supports.
    pub(crate) fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
        }
        Kernel::Portable
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    // The intrinsics are called inside `unsafe` blocks although Rust 1.87 and
    // later consider most of them safe in an AVX2 function: the workspace's
    // minimum Rust (1.85) requires the blocks, and newer compilers would
    // otherwise warn that they are unused.
    #![allow(unused_unsafe)]

    use std::arch::x86_64::{
        __m256i, _mm256_load_si256, _mm256_mullo_epi32, _mm256_or_si256, _mm256_set1_epi32,
        _mm256_setr_epi32, _mm256_setr_epi64x, _mm256_sllv_epi32, _mm256_srli_epi32,
        _mm256_store_si256, _mm256_testc_si256,
    };

    use std::sync::atomic::Ordering;

    use crate::atomic_blocked::{self, AtomicBlock, BLOCK_WORDS};
    use crate::block::{Block, Probe, SALT};

    /// The eight lane masks of lane word `lanes`, as one vector: lane i gets
    /// bit `(lanes · SALT[i]) >> 27`, as in the portable probe.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn masks(lanes: u32) -> __m256i {
        // The intrinsics take i32; these are bit-for-bit reinterpretations.
        let bits = |x: u32| i32::from_ne_bytes(x.to_ne_bytes());
        // SAFETY: register-only intrinsics; the caller guarantees AVX2.
        unsafe {
            let salt = _mm256_setr_epi32(
                bits(SALT[0]),
                bits(SALT[1]),
                bits(SALT[2]),
                bits(SALT[3]),
                bits(SALT[4]),
                bits(SALT[5]),
                bits(SALT[6]),
                bits(SALT[7]),
            );
            let index =
                _mm256_srli_epi32::<27>(_mm256_mullo_epi32(_mm256_set1_epi32(bits(lanes)), salt));
            _mm256_sllv_epi32(_mm256_set1_epi32(1), index)
        }
    }

    /// Whether the key with mixed hash `hash` may be in `blocks`.
    ///
    /// The whole lookup (block choice, masks, test) lives in this one
    /// AVX2 function: a call from code compiled without AVX2 cannot be
    /// inlined, and splitting the lookup around that call measured slower
    /// than keeping it inside.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn contains(blocks: &[Block], hash: u64) -> bool {
        let probe = Probe::new(hash, blocks.len());
        // SAFETY: the caller guarantees AVX2. `probe.block = reduce(_, len)`
        // is below `len`, so the block is in bounds; `Block` is 32 bytes
        // aligned to 32, as `_mm256_load_si256` requires.
        unsafe {
            let block = blocks.as_ptr().add(probe.block).cast::<__m256i>();
            // testc(a, b) is 1 when every bit set in b is set in a.
            _mm256_testc_si256(_mm256_load_si256(block), masks(probe.lanes)) == 1
        }
    }

    /// Adds the key with mixed hash `hash` to `blocks`; returns `true` if any
    /// of its bits was unset before.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn insert(blocks: &mut [Block], hash: u64) -> bool {
        let probe = Probe::new(hash, blocks.len());
        let block = blocks[probe.block].0.as_mut_ptr().cast::<__m256i>();
        // SAFETY: as in `contains`; the block is borrowed mutably, so nothing
        // else reads or writes it meanwhile.
        unsafe {
            let mask = masks(probe.lanes);
            let old = _mm256_load_si256(block);
            _mm256_store_si256(block, _mm256_or_si256(old, mask));
            _mm256_testc_si256(old, mask) == 0
        }
    }

    /// The words of an atomic block as they are now, as one vector. Four
    /// relaxed loads (plain `mov`s): one vector load of words that other
    /// threads write atomically would be a data race to the compiler.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2. (An `unsafe fn` although it does nothing
    /// else unsafe: safe functions with `target_feature` need Rust 1.86,
    /// the workspace supports 1.85.)
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load_atomic(block: &AtomicBlock) -> __m256i {
        // The intrinsic takes i64; these are bit-for-bit reinterpretations.
        let word = |j: usize| i64::from_ne_bytes(block.0[j].load(Ordering::Relaxed).to_ne_bytes());
        // SAFETY: a register-only intrinsic; the caller guarantees AVX2.
        unsafe { _mm256_setr_epi64x(word(0), word(1), word(2), word(3)) }
    }

    /// The atomic block of mixed hash `hash` in `blocks`, and the key's lane
    /// masks as one vector. On x86-64 a storage word holds two lanes, the
    /// lower-numbered in its low half, so the masks' eight 32-bit lanes,
    /// read as four 64-bit ones, are already the four words' masks.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn atomic_probe(blocks: &[AtomicBlock], hash: u64) -> (&AtomicBlock, __m256i) {
        let probe = Probe::new(hash, blocks.len());
        // SAFETY: `probe.block = reduce(_, len)` is below `len`; the
        // caller guarantees AVX2.
        unsafe { (blocks.get_unchecked(probe.block), masks(probe.lanes)) }
    }

    /// Whether the key with mixed hash `hash` may be in the atomic `blocks`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn atomic_contains(blocks: &[AtomicBlock], hash: u64) -> bool {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            let (block, mask) = atomic_probe(blocks, hash);
            _mm256_testc_si256(load_atomic(block), mask) == 1
        }
    }

    /// Adds the key with mixed hash `hash` to the atomic `blocks`; `true` if
    /// any of its bits was unset before. Writes nothing when all were set
    /// ([`set_missing`](atomic_blocked::set_missing) says why).
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn atomic_insert(blocks: &[AtomicBlock], hash: u64) -> bool {
        // SAFETY: the caller guarantees AVX2; `__m256i` and `[usize; 4]`
        // are both 32 bytes of plain integers on x86-64, where usize is 64
        // bits, so every bit pattern of one is a valid value of the other.
        unsafe {
            let (block, mask) = atomic_probe(blocks, hash);
            if _mm256_testc_si256(load_atomic(block), mask) == 1 {
                return false;
            }
            let masks: [usize; BLOCK_WORDS] = std::mem::transmute(mask);
            atomic_blocked::set_all(block, masks);
            true
        }
    }
}

/// The portable lookup. Kept out of line where AVX2 is compiled in, so that
/// the dispatching caller stays small: inlined, it made every caller save
/// five registers even on the AVX2 path.
#[cfg_attr(target_arch = "x86_64", inline(never))]
#[cfg_attr(not(target_arch = "x86_64"), inline(always))]
fn portable_contains(blocks: &[Block], hash: u64) -> bool {
    let probe = Probe::new(hash, blocks.len());
    blocks[probe.block].contains(probe.lanes)
}

/// The portable insert; out of line for the same reason.
#[cfg_attr(target_arch = "x86_64", inline(never))]
#[cfg_attr(not(target_arch = "x86_64"), inline(always))]
fn portable_insert(blocks: &mut [Block], hash: u64) -> bool {
    let probe = Probe::new(hash, blocks.len());
    blocks[probe.block].insert(probe.lanes)
}

/// The portable atomic lookup; out of line for the same reason.
#[cfg_attr(target_arch = "x86_64", inline(never))]
#[cfg_attr(not(target_arch = "x86_64"), inline(always))]
fn portable_atomic_contains(blocks: &[AtomicBlock], hash: u64) -> bool {
    let (block, lanes) = atomic_blocked::locate(blocks, hash);
    atomic_blocked::block_contains(block, lanes)
}

/// The portable atomic insert; out of line for the same reason.
#[cfg_attr(target_arch = "x86_64", inline(never))]
#[cfg_attr(not(target_arch = "x86_64"), inline(always))]
fn portable_atomic_insert(blocks: &[AtomicBlock], hash: u64) -> bool {
    let (block, lanes) = atomic_blocked::locate(blocks, hash);
    atomic_blocked::block_insert(block, lanes)
}

/// Whether the key with mixed hash `hash` may be in the atomic `blocks`, by
/// `kernel`.
#[inline(always)]
pub(crate) fn atomic_contains(kernel: Kernel, blocks: &[AtomicBlock], hash: u64) -> bool {
    match kernel {
        Kernel::Portable => portable_atomic_contains(blocks, hash),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `contains`.
        Kernel::Avx2 => unsafe { avx2::atomic_contains(blocks, hash) },
    }
}

/// Adds the key with mixed hash `hash` to the atomic `blocks` by `kernel`;
/// `true` if any of its bits was unset before.
#[inline(always)]
pub(crate) fn atomic_insert(kernel: Kernel, blocks: &[AtomicBlock], hash: u64) -> bool {
    match kernel {
        Kernel::Portable => portable_atomic_insert(blocks, hash),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `contains`.
        Kernel::Avx2 => unsafe { avx2::atomic_insert(blocks, hash) },
    }
}

/// Whether the key with mixed hash `hash` may be in `blocks`, by `kernel`.
#[inline(always)]
pub(crate) fn contains(kernel: Kernel, blocks: &[Block], hash: u64) -> bool {
    match kernel {
        Kernel::Portable => portable_contains(blocks, hash),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Kernel::Avx2` is only constructed by `Kernel::detect`
        // after `is_x86_feature_detected!("avx2")` returned true.
        Kernel::Avx2 => unsafe { avx2::contains(blocks, hash) },
    }
}

/// Adds the key with mixed hash `hash` to `blocks` by `kernel`; `true` if any
/// of its bits was unset before.
#[inline(always)]
pub(crate) fn insert(kernel: Kernel, blocks: &mut [Block], hash: u64) -> bool {
    match kernel {
        Kernel::Portable => portable_insert(blocks, hash),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `contains`.
        Kernel::Avx2 => unsafe { avx2::insert(blocks, hash) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use filter_core::mix64;

    /// Both kernels set and test the same bits, so filters (and their bytes)
    /// do not depend on the CPU they were built on (structured hashes fill
    /// a table unevenly, but both kernels must still agree).
    #[test]
    fn kernels_agree() {
        let kernel = Kernel::detect();
        if kernel == Kernel::Portable {
            return; // nothing to compare on this CPU
        }
        // The smallest tables too, where every key shares one block, and raw
        // hashes with structure (zero, all ones, ids in the high bits) as
        // well as mixed ones.
        let structured = |i: u64| match i % 4 {
            0 => mix64(i),
            1 => i << 40,
            2 => u64::MAX - i,
            _ => i.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        };
        for len in [1, 2, 3, 4, 37] {
            let mut fast = vec![Block::default(); len];
            let mut portable = fast.clone();
            // The atomic filter's kernels too, against the plain ones.
            let atomic = |_| AtomicBlock::new(&Block::default());
            let fast_atomic: Vec<AtomicBlock> = (0..len).map(atomic).collect();
            let portable_atomic: Vec<AtomicBlock> = (0..len).map(atomic).collect();
            let blocks = |table: &[AtomicBlock]| -> Vec<Block> {
                table.iter().map(AtomicBlock::load).collect()
            };
            for i in 0..2_000u64 {
                let h = structured(i);
                let new = insert(kernel, &mut fast, h);
                assert_eq!(new, insert(Kernel::Portable, &mut portable, h));
                assert_eq!(new, atomic_insert(kernel, &fast_atomic, h));
                assert_eq!(new, atomic_insert(Kernel::Portable, &portable_atomic, h));
                assert_eq!(fast, portable, "{len} blocks, after insert {i}");
                assert_eq!(blocks(&fast_atomic), fast, "{len} blocks, insert {i}");
                assert_eq!(blocks(&portable_atomic), fast, "{len} blocks, insert {i}");
                if i % 50 == 0 {
                    // Partly filled tables, where the answers vary.
                    for j in 0..200u64 {
                        let q = structured(j ^ 0xDEAD_BEEF);
                        let found = contains(kernel, &fast, q);
                        let at = format!("{len} blocks, {i} inserts, query {q:#x}");
                        assert_eq!(found, contains(Kernel::Portable, &portable, q), "{at}");
                        assert_eq!(found, atomic_contains(kernel, &fast_atomic, q), "{at}");
                        let portable_found = atomic_contains(Kernel::Portable, &portable_atomic, q);
                        assert_eq!(found, portable_found, "{at}");
                    }
                }
            }
        }
    }
}
