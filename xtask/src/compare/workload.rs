//! The keys every row is measured on: seeded, members and non-members
//! disjoint by construction, and a hasher every filter that accepts one gets.
//!
//! The generator is `filter_core::testing::keys`, the one the filter crates'
//! tests use (key `i` is `mix64(i + seed·φ)`; members use indices `0..n`,
//! non-members indices from 2^63 up, so the two sets cannot meet).
//!
//! Besides the all-member and all-non-member query sets, a *mixed* set
//! interleaves the two half and half in a seeded random order. Batches of
//! only hits or only misses let the branch predictor learn each lookup's
//! outcome, which flatters filters that branch on the bits they read; a
//! query stream whose answers cannot be guessed is what a filter in front of
//! a cache or a join mostly sees, and Graf and Lemire's filter benchmarks
//! report the same mix ("50 % find").

use std::hash::{BuildHasher, Hasher};

use filter_core::mix64;
use filter_core::testing::keys;

use super::subject::Key;

/// Non-member queries per size: at least this many, so that a rate of
/// 2^-16 still shows about 15 false positives at the smallest size.
pub(crate) const MIN_QUERIES: usize = 1_000_000;

/// Seeded member and non-member keys for one size.
#[derive(Debug)]
pub(crate) struct Workload<K> {
    /// The keys inserted (or built from): distinct.
    pub(crate) members: Vec<K>,
    /// Keys never inserted: every hit among them is a false positive.
    pub(crate) non_members: Vec<K>,
    /// Members and non-members, as many of each, in a seeded random order.
    pub(crate) mixed: Vec<K>,
}

/// Turns the seeded `u64` keys into keys of one type.
pub(crate) trait MakeKey: Key {
    fn make(id: u64) -> Self;
}

impl MakeKey for u64 {
    fn make(id: u64) -> u64 {
        id
    }
}

impl MakeKey for String {
    /// 16 to 64 bytes, the length picked by the key: an id in hex and
    /// filler from its hash, like the URLs, user names and paths filters are
    /// put in front of. Distinct ids give distinct strings (the id is
    /// written in full).
    fn make(id: u64) -> String {
        let len = 16 + (mix64(id) % 49) as usize;
        let mut key = format!("{id:016x}");
        let mut filler = mix64(id ^ 0x5555_5555_5555_5555);
        while key.len() < len {
            key.push(char::from(b'a' + (filler % 26) as u8));
            filler = filler.rotate_right(5) ^ (filler >> 7);
        }
        key
    }
}

impl<K: MakeKey> Workload<K> {
    pub(crate) fn new(seed: u64, n: usize) -> Self {
        let members: Vec<K> = keys::members(seed, n).into_iter().map(K::make).collect();
        let non_members: Vec<K> = keys::non_members(seed, n.max(MIN_QUERIES))
            .into_iter()
            .map(K::make)
            .collect();
        let half = n.min(MIN_QUERIES / 2);
        let sampled = spread(&members, half);
        let mixed = interleave(seed, &sampled, &non_members[..half]);
        Workload {
            members,
            non_members,
            mixed,
        }
    }
}

/// `count` of `keys` (at most all), taken at even steps from the first to
/// the last: the members of the mixed stream span the insertion order, so
/// that a scalable filter's lookups reach every stage as often as its
/// members live there, not only the first stages that the oldest keys fill.
fn spread<K: Clone>(keys: &[K], count: usize) -> Vec<K> {
    if count == 0 {
        return Vec::new();
    }
    (0..count)
        .map(|i| keys[i * keys.len() / count].clone())
        .collect()
}

/// `a` and `b` merged, each in its own order, the source of every next key
/// a seeded coin flip (until one runs out).
fn interleave<K: Clone>(seed: u64, a: &[K], b: &[K]) -> Vec<K> {
    let (mut a, mut b) = (a.iter(), b.iter());
    let mut mixed = Vec::with_capacity(a.len() + b.len());
    for i in 0u64.. {
        // The top bit of a mixed counter: an unbiased, unpredictable coin.
        let from_a = mix64(i ^ seed.rotate_left(32)) >> 63 == 0;
        let next = if from_a {
            a.next().or_else(|| b.next())
        } else {
            b.next().or_else(|| a.next())
        };
        match next {
            Some(k) => mixed.push(k.clone()),
            None => break,
        }
    }
    mixed
}

/// The cheap hasher of the report's "same hasher" section, given to our
/// filters (as `UniformHasher<Cheap64>`) and to the peers that accept a
/// hasher alike: one multiply and one xor-shift per 64-bit word.
///
/// The keys are already uniformly random, so with every row paying the
/// same cheap hash the differences left are the filters'.
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
        let w = Workload::<u64>::new(7, 1_000);
        assert_eq!(w.members.len(), 1_000);
        assert_eq!(w.non_members.len(), MIN_QUERIES);
        let members: HashSet<u64> = w.members.iter().copied().collect();
        assert!(w.non_members.iter().all(|k| !members.contains(k)));
    }

    #[test]
    fn mixed_queries_are_half_members_in_no_fixed_pattern() {
        let w = Workload::<u64>::new(7, 10_000);
        let members: HashSet<u64> = w.members.iter().copied().collect();
        let is_member: Vec<bool> = w.mixed.iter().map(|k| members.contains(k)).collect();
        assert_eq!(is_member.len(), 20_000);
        assert_eq!(is_member.iter().filter(|&&m| m).count(), 10_000);
        // In a random order a query's kind matches the previous one's half
        // the time: 19,999 pairs, σ ≈ 71, so ±500 is 7σ. Alternating or
        // blocked orders give 0 or ~20,000.
        let repeats = is_member.windows(2).filter(|w| w[0] == w[1]).count();
        assert!((9_500..=10_500).contains(&repeats), "{repeats}");
    }

    #[test]
    fn mixed_members_span_the_insertion_order() {
        let w = Workload::<u64>::new(7, 2_000_000);
        let position: std::collections::HashMap<u64, usize> =
            w.members.iter().enumerate().map(|(i, &k)| (k, i)).collect();
        let at: Vec<usize> = w
            .mixed
            .iter()
            .filter_map(|k| position.get(k).copied())
            .collect();
        assert_eq!(at.len(), MIN_QUERIES / 2);
        // Even steps of 4 from the first member: every quarter of the
        // insertion order gives a quarter of the mixed stream's members.
        for quarter in 0..4 {
            let range = quarter * 500_000..(quarter + 1) * 500_000;
            let here = at.iter().filter(|&&i| range.contains(&i)).count();
            assert_eq!(here, MIN_QUERIES / 8, "quarter {quarter}");
        }
    }

    #[test]
    fn string_keys_are_distinct_and_16_to_64_bytes() {
        let w = Workload::<String>::new(3, 10_000);
        let members: HashSet<&String> = w.members.iter().collect();
        assert_eq!(members.len(), 10_000);
        assert!(w.non_members.iter().all(|k| !members.contains(k)));
        let lens: Vec<usize> = w.members.iter().map(String::len).collect();
        assert!(
            lens.iter().all(|l| (16..=64).contains(l)),
            "{:?}",
            &lens[..10]
        );
        assert!(lens.iter().any(|&l| l > 60) && lens.iter().any(|&l| l < 20));
    }

    #[test]
    fn hasher_is_injective_on_the_keys() {
        let w = Workload::<u64>::new(3, 100_000);
        let hashes: HashSet<u64> = w.members.iter().map(|&k| Cheap64::hash(k)).collect();
        assert_eq!(hashes.len(), w.members.len());
        assert_eq!(Cheap64::hash(42), Cheap64::default().hash_one(42u64));
    }
}
