//! The keys every row is measured on: seeded, members and non-members
//! disjoint by construction, and a hasher every filter that accepts one gets.
//!
//! The generator is `filter_core::testing::keys`, the one the filter crates'
//! tests use (key `i` is `mix64(i + seed·φ)`; members use indices `0..n`,
//! non-members indices from 2^63 up, so the two sets cannot meet).

use std::hash::{BuildHasher, Hasher};

use filter_core::testing::keys;

/// Non-member queries per size: at least this many, so that a rate of
/// 2^-16 still shows about 15 false positives at the smallest size.
pub(crate) const MIN_QUERIES: usize = 1_000_000;

/// Seeded member and non-member keys for one size.
#[derive(Debug)]
pub(crate) struct Workload {
    /// The keys inserted (or built from): distinct.
    pub(crate) members: Vec<u64>,
    /// Keys never inserted: every hit among them is a false positive.
    pub(crate) non_members: Vec<u64>,
}

impl Workload {
    pub(crate) fn new(seed: u64, n: usize) -> Self {
        Workload {
            members: keys::members(seed, n),
            non_members: keys::non_members(seed, n.max(MIN_QUERIES)),
        }
    }
}

/// The hasher given to every filter that accepts one, ours and peers alike:
/// one multiply and one xor-shift per 64-bit word.
///
/// The keys are already uniformly random, so a heavier hasher would only add
/// the same constant to every row and hide the differences between filters.
/// It is a bijection on single `u64`s, so distinct keys keep distinct hashes;
/// multi-word input (cuckoofilter hashes its fingerprint bytes with it) is
/// folded word by word.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cheap64 {
    state: u64,
}

impl Cheap64 {
    /// The hash of one `u64` key; what `hash_one(&key)` returns.
    #[inline(always)]
    pub(crate) fn hash(key: u64) -> u64 {
        let mut h = Cheap64::default();
        h.write_u64(key);
        h.finish()
    }
}

const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

impl Hasher for Cheap64 {
    #[inline(always)]
    fn write_u64(&mut self, word: u64) {
        self.state = (self.state.rotate_left(26) ^ word).wrapping_mul(MULTIPLIER);
    }

    #[inline(always)]
    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        // The multiply leaves the low bits weak; fold the high half into them.
        self.state ^ (self.state >> 32)
    }
}

impl BuildHasher for Cheap64 {
    type Hasher = Cheap64;

    #[inline(always)]
    fn build_hasher(&self) -> Cheap64 {
        Cheap64::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn at_least_min_queries_non_members() {
        let w = Workload::new(7, 1_000);
        assert_eq!(w.members.len(), 1_000);
        assert_eq!(w.non_members.len(), MIN_QUERIES);
        let members: HashSet<u64> = w.members.iter().copied().collect();
        assert!(w.non_members.iter().all(|k| !members.contains(k)));
    }

    #[test]
    fn hasher_is_injective_on_the_keys() {
        let w = Workload::new(3, 100_000);
        let hashes: HashSet<u64> = w.members.iter().map(|&k| Cheap64::hash(k)).collect();
        assert_eq!(hashes.len(), w.members.len());
        assert_eq!(Cheap64::hash(42), Cheap64::default().hash_one(42u64));
    }
}
