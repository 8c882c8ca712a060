//! Seeded key generators.
//!
//! Key `i` under seed `s` is `mix64(i + s·φ)`, where φ is the 64-bit golden
//! ratio. `mix64` is a bijection and `i ↦ i + c` is one too, so distinct
//! indices give distinct keys. Members use indices `0..n` and non-members
//! indices from 2^63 up: the two sets are disjoint by construction for any
//! n below 2^63, with no rejection sampling.

use crate::mix64;

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
const NON_MEMBER_BASE: u64 = 1 << 63;

/// A shape of [`STRUCTURED_IDS`]: its name, and id `i`'s value.
pub type IdShape = (&'static str, fn(u64) -> u64);

/// Structured ids, as users pass them to the `*_hash` methods without
/// hashing them first: the shape's name and id `i`'s value. Strided ids
/// (`i << s`, as when ids carry a shard or type tag in their low bits),
/// byte-swapped and bit-reversed ids, and ids put through a single multiply
/// (Fibonacci hashing by the golden ratio φ, rustc's FxHash constant),
/// with and without an xor-fold, and squares. A filter's own mix must
/// spread each of them as it spreads random hashes; several broke mixes
/// that were tried (the filters' docs say which). Distinct ids below 2^20 give distinct
/// values in every shape (`i << 44` wraps above).
pub const STRUCTURED_IDS: [IdShape; 14] = [
    ("i << 8", |i| i << 8),
    ("i << 16", |i| i << 16),
    ("i << 21", |i| i << 21),
    ("i << 24", |i| i << 24),
    ("i << 32", |i| i << 32),
    ("i << 40", |i| i << 40),
    ("i << 44", |i| i << 44),
    ("bswap(i)", |i| i.swap_bytes()),
    ("reverse(i)", |i| i.reverse_bits()),
    ("i · φ", |i| i.wrapping_mul(GOLDEN)),
    ("fold(i · φ)", |i| {
        let x = i.wrapping_mul(GOLDEN);
        x ^ (x >> 32)
    }),
    ("i · fx", |i| i.wrapping_mul(0x517C_C1B7_2722_0A95)),
    ("i · (2^32 + 1)", |i| i.wrapping_mul((1 << 32) + 1)),
    ("i · i", |i| i.wrapping_mul(i)),
];

/// The key with index `index` under `seed`.
pub fn key(seed: u64, index: u64) -> u64 {
    mix64(index.wrapping_add(seed.wrapping_mul(GOLDEN)))
}

/// `count` distinct member keys (indices `0..count`).
pub fn members(seed: u64, count: usize) -> Vec<u64> {
    (0..count as u64).map(|i| key(seed, i)).collect()
}

/// `count` distinct keys, none of which is among `members(seed, _)` of any
/// length below 2^63.
pub fn non_members(seed: u64, count: usize) -> Vec<u64> {
    (0..count as u64)
        .map(|i| key(seed, NON_MEMBER_BASE + i))
        .collect()
}

/// `members` and `non_members` alternating, a member first, as long as
/// the shorter of the two allows: a query stream whose answers alternate,
/// for tests that compare two ways of answering it.
pub fn interleaved(members: &[u64], non_members: &[u64]) -> Vec<u64> {
    members
        .iter()
        .zip(non_members)
        .flat_map(|(&member, &non_member)| [member, non_member])
        .collect()
}

/// A string key, shaped like a crawler's URL, for the key with this index.
pub fn url(seed: u64, index: u64) -> String {
    format!("https://example.com/{:016x}/page", key(seed, index))
}

/// `count` distinct URL-shaped member strings.
pub fn member_urls(seed: u64, count: usize) -> Vec<String> {
    (0..count as u64).map(|i| url(seed, i)).collect()
}

/// `count` distinct URL-shaped strings disjoint from [`member_urls`].
pub fn non_member_urls(seed: u64, count: usize) -> Vec<String> {
    (0..count as u64)
        .map(|i| url(seed, NON_MEMBER_BASE + i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn interleaved_alternates_and_stops_at_the_shorter() {
        assert_eq!(interleaved(&[1, 2, 3], &[7, 8]), [1, 7, 2, 8]);
        assert_eq!(interleaved(&[1], &[7, 8]), [1, 7]);
        assert!(interleaved(&[], &[7]).is_empty());
    }

    #[test]
    fn members_and_non_members_are_distinct_and_disjoint() {
        let m: HashSet<u64> = members(7, 10_000).into_iter().collect();
        let n: HashSet<u64> = non_members(7, 10_000).into_iter().collect();
        assert_eq!(m.len(), 10_000);
        assert_eq!(n.len(), 10_000);
        assert!(m.is_disjoint(&n));
        assert_eq!(members(7, 3), members(7, 3));
        assert_ne!(members(7, 3), members(8, 3));
    }

    #[test]
    fn urls_are_distinct() {
        let m: HashSet<String> = member_urls(1, 1000).into_iter().collect();
        let n: HashSet<String> = non_member_urls(1, 1000).into_iter().collect();
        assert_eq!(m.len() + n.len(), 2000);
        assert!(m.is_disjoint(&n));
    }
}
