//! How the classic filter turns one 64-bit hash into k bit positions.
//!
//! Double hashing (Kirsch and Mitzenmacher, "Less hashing, same performance",
//! 2006): from two values x and y, position i is derived from x + i·y. Two
//! hash values give the same asymptotic false-positive rate as k independent
//! ones, and a lookup does one add per probe instead of hashing k times.
//!
//! Here x and y live in the 64-bit ring and each position is
//! [`reduce`]`(x + i·y, m)`, so the arithmetic is "mod 2^64, then scaled to m"
//! instead of "mod m": no division, any m. That also removes the weakness the
//! *enhanced* variant (Dillinger and Manolios, 2004) was invented for: mod m,
//! a step y sharing a factor with m cycles through few positions, so an extra
//! i-dependent increment is needed. Mod 2^64, two probes i < j of a key land
//! on the same position only when (j − i)·y falls within about 2^64/m of a
//! multiple of 2^64: probability about k²/m per key, far below the rate. (An
//! increment by a fixed sequence would only shift every key's positions by the
//! same offsets, which changes nothing.)
//!
//! x is the mixed hash ([`mix64`]); y is x rotated by 32 bits, so the high
//! bits [`reduce`] reads for the step are the low bits of x, independent of
//! the high bits that pick the first position.

use filter_core::{mix64, reduce};

/// The sequence of bit positions of one key in a filter of `bits` bits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Positions {
    x: u64,
    y: u64,
    bits: usize,
}

impl Positions {
    /// Starts the sequence for the raw (unmixed) 64-bit `hash`.
    #[inline(always)]
    pub(crate) fn new(hash: u64, bits: usize) -> Self {
        let x = mix64(hash);
        Positions {
            x,
            y: x.rotate_left(32),
            bits,
        }
    }

    /// Position `j`, in `0..bits`: `reduce(x + j·y)`. Independent of the
    /// other positions, so a lookup can compute several at once.
    #[inline(always)]
    pub(crate) fn at(&self, j: u32) -> usize {
        reduce(
            self.x.wrapping_add(self.y.wrapping_mul(u64::from(j))),
            self.bits,
        )
    }

    /// The next position, in `0..bits` (the sequence `at(0), at(1), ..`).
    #[cfg(test)]
    pub(crate) fn next_position(&mut self) -> usize {
        let position = reduce(self.x, self.bits);
        self.x = self.x.wrapping_add(self.y);
        position
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_in_range_and_spread() {
        for bits in [1usize, 2, 63, 64, 65, 1000, 9_585_059] {
            let mut p = Positions::new(12345, bits);
            let ps: Vec<usize> = (0..20).map(|_| p.next_position()).collect();
            assert!(ps.iter().all(|&x| x < bits), "{bits}: {ps:?}");
            if bits >= 1000 {
                let mut d = ps.clone();
                d.sort_unstable();
                d.dedup();
                assert!(d.len() >= 19, "{bits}: {ps:?}");
            }
        }
    }

    #[test]
    fn sequential_hashes_spread_over_the_table() {
        // A poor user hash (sequential ids) must still fill every region.
        let bits = 1024;
        let mut seen = vec![false; bits];
        for h in 0..2000u64 {
            seen[Positions::new(h, bits).next_position()] = true;
        }
        let filled = seen.iter().filter(|&&s| s).count();
        // 2000 uniform throws into 1024 cells leave ≈ 1024·e^(−2000/1024) ≈ 145 empty.
        assert!(filled > 800, "{filled}");
    }
}
