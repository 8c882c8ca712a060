//! The block of a [`BlockedBloomFilter`](crate::BlockedBloomFilter): 256
//! bits as eight 32-bit lanes (Parquet's "split block"), and how a key picks
//! its bits.
//!
//! A key's block is [`reduce`]`(m, blocks)` of its mixed hash m (see
//! [`filter_core::hash`]), which reads the high bits of m. It sets one bit
//! in each of the eight lanes, cut from the lane word w = low32(m): lane i
//! gets bit `(w · SALT[i] mod 2^32) >> 27`, the top five bits of a product
//! with one of Parquet's eight odd salts. A 32-bit multiply carries every
//! bit of w into the top bits of the product, and the eight salts make the
//! lanes differ from one another. The mixed hash is uniform in every bit, so
//! the low half that picks the bits is independent of the high half that
//! picked the block, and no further mixing is needed.
//!
//! Why one bit per lane: the eight lane masks are independent of each other,
//! so building them is one vector multiply, one shift and one variable shift
//! with no dependency chain; a lookup is "every lane has its bit", one
//! `vptest`; and no two of a key's bits collide.
//!
//! Why 256-bit blocks rather than a whole 512-bit cache line: a lookup is a
//! handful of instructions around one cache miss, and lookups whose misses
//! overlap are bound by instructions. A 256-bit block is one AVX2 register,
//! so its masks and its test are one instruction each, where a 512-bit block
//! needs two of everything, so lookups are faster. The price is space: a
//! smaller block averages out less of the Poisson variation in block load,
//! so the same rate takes a few percent more bits (10.53 per key at 1 %
//! against 10.10, from the sizing model). Blocks are 32-byte aligned, so a block never
//! straddles two cache lines and a lookup is still one memory access.

use filter_core::reduce;

/// Bits per block: one AVX2 register, half a cache line.
pub const BLOCK_BITS: u32 = 256;
/// Bits each key sets: one per lane.
pub const BLOCK_HASHES: u32 = 8;
/// Lanes per block.
pub(crate) const LANES: usize = 8;
/// Bits per lane.
pub(crate) const LANE_BITS: u32 = 32;

/// Parquet's split-block salts: eight odd 32-bit multipliers, one per lane.
pub(crate) const SALT: [u32; LANES] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// Half a cache line of the filter. `align(32)` makes every block start at
/// a multiple of 32 bytes, so it never straddles two cache lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(32))]
pub(crate) struct Block(pub(crate) [u32; LANES]);

/// Where a key lives: its block index, and the 32-bit word its lane bits
/// are cut from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe {
    pub(crate) block: usize,
    pub(crate) lanes: u32,
}

impl Probe {
    /// The probe of the mixed hash `mixed` in a filter of `blocks`
    /// blocks: every lookup and insert path (portable, AVX2, atomic,
    /// batched) takes its block and lanes from here, so that they agree.
    #[inline(always)]
    pub(crate) fn new(mixed: u64, blocks: usize) -> Self {
        Probe {
            block: reduce(mixed, blocks),
            // Truncation intended: the low 32 bits, which `reduce` does not
            // read.
            lanes: mixed as u32,
        }
    }
}

/// The eight lane masks of lane word `lanes`: lane i gets bit
/// `(lanes · SALT[i]) >> 27`.
#[inline(always)]
pub(crate) fn masks(lanes: u32) -> [u32; LANES] {
    std::array::from_fn(|i| 1u32 << (lanes.wrapping_mul(SALT[i]) >> 27))
}

impl Block {
    /// Whether every lane has its bit. Written as one OR of the missing bits,
    /// without early exits, so that the compiler can use vector instructions.
    #[inline(always)]
    pub(crate) fn contains(&self, lanes: u32) -> bool {
        let mut missing = 0;
        for (lane, mask) in self.0.iter().zip(masks(lanes)) {
            missing |= mask & !lane;
        }
        missing == 0
    }

    /// Sets the key's bits; returns `true` if any was unset before.
    #[inline(always)]
    pub(crate) fn insert(&mut self, lanes: u32) -> bool {
        let mut missing = 0;
        for (lane, mask) in self.0.iter_mut().zip(masks(lanes)) {
            missing |= mask & !*lane;
            *lane |= mask;
        }
        missing != 0
    }

    /// Set bits in this block.
    pub(crate) fn ones(&self) -> u32 {
        self.0.iter().map(|lane| lane.count_ones()).sum()
    }

    /// The probability that a random key's probe finds all its bits in this
    /// block: the product over lanes of the lane's fill.
    pub(crate) fn hit_probability(&self) -> f64 {
        self.0
            .iter()
            .map(|lane| f64::from(lane.count_ones()) / f64::from(LANE_BITS))
            .product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_is_half_a_cache_line_and_never_straddles_one() {
        assert_eq!(size_of::<Block>(), 32);
        assert_eq!(align_of::<Block>(), 32);
    }

    #[test]
    fn a_probe_sets_one_bit_per_lane_and_finds_it() {
        let mut b = Block::default();
        let p = Probe::new(filter_core::mix64(42), 1000);
        assert!(p.block < 1000);
        assert!(b.insert(p.lanes));
        assert_eq!(b.ones(), 8);
        assert!(b.0.iter().all(|lane| lane.count_ones() == 1));
        assert!(b.contains(p.lanes));
        assert!(!b.insert(p.lanes));
        assert!(!Block::default().contains(p.lanes));
    }

    #[test]
    fn every_lane_bit_is_reachable() {
        // Each lane's bit index is the top five bits of an odd multiple, a
        // bijection of the lane word: all 32 positions occur.
        let mut seen = [0u32; LANES];
        for x in 0..4096u32 {
            for (lane, mask) in seen.iter_mut().zip(masks(x.wrapping_mul(0x9E37_79B9))) {
                *lane |= mask;
            }
        }
        assert!(seen.iter().all(|&lane| lane == u32::MAX), "{seen:x?}");
    }
}
