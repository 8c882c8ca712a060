//! The block of a [`BlockedBloomFilter`](crate::BlockedBloomFilter): 256
//! bits as eight 32-bit lanes (Parquet's "split block"), and how a key picks
//! its bits.
//!
//! A key's raw 64-bit hash x is mixed by one multiply, m = x · `MIXER`
//! (mod 2^64). Its block is [`reduce`]`(m, blocks)`, which reads the high
//! bits of m, and those depend on every bit of x. It sets one bit in each
//! of the eight lanes, cut from the lane word
//! w = low32(m ⊕ (m >> 32) ⊕ (x >> 32)): lane i gets bit
//! `(w · SALT[i] mod 2^32) >> 27`, the top five bits of a product with one of
//! Parquet's eight odd salts. A 32-bit multiply carries every bit of w into
//! the top bits of the product, and the eight salts make the lanes differ
//! from one another.
//!
//! Why w is built that way: the low half of m depends only on the low half
//! of x, and the high half of m is what chose the block. For keys that
//! differ only in their high bits (ids shifted left by 40) the low half of m
//! is zero and its high half repeats the block's bits, so w also takes x's
//! own high half, which relates to the block's bits only through the
//! multiply. Seeded tests measured 12.5 % at a 1 % target for ids `i << 40`
//! with w = low32(m), and 3.5 % for ids `i << 44` with w = low32(m ⊕ (x >> 32)).
//!
//! Why one multiply and not [`filter_core::mix64`] (two xor-shift-multiply
//! rounds): a blocked lookup is a dozen instructions around one cache miss,
//! so every instruction shows. The block's address then waits on one
//! multiply instead of three, and the lane word's xor-folds are off that
//! path. Measured against sbbf-rs-safe, which uses its input hash as is:
//! 1.17× its lookup time with one xor-shift-multiply round before the block
//! choice, 1.10× with this, 1.45× with `mix64`. A seeded test checks the
//! rate with sequential, strided and multiplicatively hashed ids.
//!
//! Under [`UniformHashes`](filter_core::UniformHashes) the multiply is
//! skipped: the block is `reduce(x, blocks)`, from the high bits of x, and
//! the lane word is its low 32 bits, which for a uniform hash are
//! independent of the high ones; the fold that repairs the lane word above
//! repairs structure a uniform hash does not have.
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
//! needs two of everything; measured about 25 % faster lookups. The price
//! is space: a smaller block averages out less of the Poisson variation in
//! block load, so the same rate takes about 4 % more bits (10.53 per key at
//! 1 % against 10.10). Blocks are 32-byte aligned, so a block never
//! straddles two cache lines and a lookup is still one memory access.

use filter_core::{HashQuality, reduce};

/// Bits per block: one AVX2 register, half a cache line.
pub const BLOCK_BITS: u32 = 256;
/// Bits each key sets: one per lane.
pub const BLOCK_HASHES: u32 = 8;
/// Lanes per block.
pub(crate) const LANES: usize = 8;
/// Bits per lane.
pub(crate) const LANE_BITS: u32 = 32;

/// The mixer's odd multiplier (the second constant of SplitMix64's
/// finalizer). Deliberately not the golden ratio φ: φ is the multiplier of
/// many users' own hashes (Fibonacci hashing, and hashers built like it),
/// and multiplying such a hash by φ again leaves the keys times φ², whose
/// high bits cycle with a short period over sequential keys; that measured
/// rates of 7 % to 40 % at a 1 % target.
pub(crate) const MIXER: u64 = 0x94D0_49BB_1331_11EB;

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
    /// The probe of the raw (unmixed) 64-bit `hash` in a filter of `blocks`
    /// blocks and hash quality `Q`: every lookup and insert path (portable,
    /// AVX2, atomic, batched) takes its block and lanes from here, so that
    /// they all agree for either quality.
    #[inline(always)]
    pub(crate) fn new<Q: HashQuality>(hash: u64, blocks: usize) -> Self {
        if Q::UNIFORM {
            return Probe {
                block: reduce(hash, blocks),
                // Truncation intended: the low 32 bits, which `reduce`
                // does not read.
                lanes: hash as u32,
            };
        }
        let m = hash.wrapping_mul(MIXER);
        Probe {
            block: reduce(m, blocks),
            // Truncation intended: the lane word is the low 32 bits of the
            // fold (see the module docs for why each term is there).
            lanes: (m ^ (m >> 32) ^ (hash >> 32)) as u32,
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
    use filter_core::AnyHashes;

    #[test]
    fn block_is_half_a_cache_line_and_never_straddles_one() {
        assert_eq!(size_of::<Block>(), 32);
        assert_eq!(align_of::<Block>(), 32);
    }

    #[test]
    fn a_probe_sets_one_bit_per_lane_and_finds_it() {
        let mut b = Block::default();
        let p = Probe::new::<AnyHashes>(42, 1000);
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
