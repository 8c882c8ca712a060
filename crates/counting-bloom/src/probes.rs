//! Which counters an item touches: k positions from one 64-bit hash.
//!
//! The user's hash is first passed through [`mix64`], so that a poor hash
//! (sequential ids through `insert_hash`) still spreads. The k positions then
//! come from **enhanced double hashing** (Dillinger and Manolios, "Bloom
//! Filters in Probabilistic Verification"): with `x = h` and `y` = `h`
//! rotated by 32 bits,
//!
//! ```text
//! position_i = reduce(x_i, counters)
//! x_{i+1} = x_i + y_i,   y_{i+1} = y_i + i·C     (wrapping, in 2^64)
//! ```
//!
//! One hash per key instead of k: hashing is the expensive part for string
//! keys, and Kirsch and Mitzenmacher showed two hash values lose nothing in
//! the asymptotic false-positive rate. The sums run over all 2^64 values and
//! [`reduce`] keeps their *high* bits, so no `%` is needed and the table may
//! have any size. The cubic ("enhanced") term uses an odd constant `C`
//! rather than 1: an increment of 1 would only touch low bits that `reduce`
//! throws away, and the term exists to keep the k positions apart when `y`
//! happens to be near zero.

use filter_core::{mix64, reduce};

/// The odd multiplier of the enhanced term (the 64-bit golden ratio).
const ENHANCE: u64 = 0x9E37_79B9_7F4A_7C15;

/// The counter positions of one item, in probe order.
///
/// Positions may repeat (rarely, about k²/2m of the time); every operation
/// treats a repeated position as two touches of the same counter, so insert
/// and remove stay exact inverses.
#[derive(Clone, Debug)]
pub(crate) struct Probes {
    x: u64,
    y: u64,
    step: u64,
    left: u32,
    counters: usize,
}

impl Probes {
    /// The `hashes` positions in `0..counters` of the item whose raw
    /// (unmixed) hash is `hash`.
    #[inline(always)]
    pub(crate) fn new(hash: u64, hashes: u32, counters: usize) -> Self {
        let h = mix64(hash);
        Probes {
            x: h,
            y: h.rotate_left(32),
            step: 0,
            left: hashes,
            counters,
        }
    }
}

impl Probes {
    /// The next position, without the count check of [`Iterator::next`]:
    /// for hot loops that count probes themselves.
    #[inline(always)]
    pub(crate) fn next_position(&mut self) -> usize {
        let position = reduce(self.x, self.counters);
        self.step = self.step.wrapping_add(ENHANCE);
        self.x = self.x.wrapping_add(self.y);
        self.y = self.y.wrapping_add(self.step);
        position
    }
}

impl Iterator for Probes {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(self.next_position())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for Probes {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_in_range_and_counted() {
        for counters in [1usize, 2, 3, 17, 1000, 1 << 40] {
            for hash in [0u64, 1, u64::MAX, 0xDEAD_BEEF] {
                let p: Vec<usize> = Probes::new(hash, 7, counters).collect();
                assert_eq!(p.len(), 7);
                assert!(p.iter().all(|&i| i < counters), "{p:?} < {counters}");
            }
        }
    }

    #[test]
    fn sequential_hashes_spread() {
        // Sequential raw hashes must not crowd the first counters.
        let counters = 1000;
        let mut seen = vec![false; counters];
        for hash in 0..200u64 {
            for p in Probes::new(hash, 3, counters) {
                seen[p] = true;
            }
        }
        // 600 probes into 1000 counters cover 1 - e^(-0.6) ≈ 45 % of them on
        // average; far fewer would mean the mixing step is missing.
        let covered = seen.iter().filter(|&&s| s).count();
        assert!(covered > 350, "covered {covered}");
    }
}
