//! Batched lookups answer exactly as one-by-one lookups, in order, for tables
//! below and above the prefetching threshold, for all four types.

mod common;

use std::sync::OnceLock;

use filter_core::batch::PREFETCH_MIN_BYTES;
use filter_core::testing::keys;
use quickcheck::quickcheck;
use xor_filter::{BatchContains, BinaryFuse8, BinaryFuse16, Xor8, Xor16};

use common::for_each_type;

/// 1,000 keys take 1.1 to 2.5 KB (not prefetched); 4,000,000 keys 9.0 MB
/// (`BinaryFuse16`) and 9.8 MB (`Xor16`), prefetched, and 4.5 to 4.9 MB
/// with 8-bit fingerprints, not prefetched. (On CPUs with AVX2 every size
/// is answered in chunks.)
const SIZES: [usize; 2] = [1_000, LARGE_KEYS];

/// The key count of the large filters.
const LARGE_KEYS: usize = 4_000_000;

#[test]
fn batches_agree_with_single_lookups_in_small_and_large_tables() {
    for n in SIZES {
        let members = keys::members(3, n);
        let non_members = keys::non_members(3, n);
        let asked = keys::interleaved(&members, &non_members);
        let hashes: Vec<u64> = asked
            .iter()
            .map(|&k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        for_each_type!(Filter => {
            let name = std::any::type_name::<Filter>();
            let filter = Filter::from_keys(&members).unwrap();
            assert_eq!(
                filter.memory_bytes() >= PREFETCH_MIN_BYTES,
                n == LARGE_KEYS && filter.fingerprint_bits() == 16,
                "{name}: the sizes straddle the threshold ({} bytes)",
                filter.memory_bytes()
            );
            let one_by_one: Vec<bool> = asked.iter().map(|k| filter.contains(k)).collect();
            let batched: Vec<bool> = filter.contains_batch(&asked).collect();
            assert_eq!(batched, one_by_one, "{name}, {n} keys");
            assert!(
                batched.iter().step_by(2).all(|&found| found),
                "{name}: no false negatives"
            );

            let by_hash: Vec<bool> = hashes.iter().map(|&h| filter.contains_hash(h)).collect();
            let batched: Vec<bool> = filter.contains_hash_batch(hashes.iter().copied()).collect();
            assert_eq!(batched, by_hash, "{name}, {n} hashes");

            // Keys of other types go through the same hasher.
            let strings: Vec<String> = asked.iter().take(100).map(ToString::to_string).collect();
            let one_by_one: Vec<bool> = strings.iter().map(|k| filter.contains(k)).collect();
            assert_eq!(filter.contains_batch(&strings).collect::<Vec<_>>(), one_by_one);
            let strs: Vec<&str> = strings.iter().map(String::as_str).collect();
            assert_eq!(filter.contains_batch(strs).collect::<Vec<_>>(), one_by_one);
        });
    }
}

/// The large filters of the quickcheck below, built once from [`LARGE_KEYS`]
/// keys, so the 16-bit ones are prefetched.
fn large() -> &'static (Xor8, Xor16, BinaryFuse8, BinaryFuse16) {
    static LARGE: OnceLock<(Xor8, Xor16, BinaryFuse8, BinaryFuse16)> = OnceLock::new();
    LARGE.get_or_init(|| {
        let members = keys::members(5, LARGE_KEYS);
        (
            Xor8::from_keys(&members).unwrap(),
            Xor16::from_keys(&members).unwrap(),
            BinaryFuse8::from_keys(&members).unwrap(),
            BinaryFuse16::from_keys(&members).unwrap(),
        )
    })
}

quickcheck! {
    /// Any sequence of queries, of any length (shorter and longer than the
    /// lookahead), in filters built from the given keys (small, looked up
    /// one by one) and in the large prefetched ones.
    fn batches_agree_for_any_keys_and_queries(members: Vec<u64>, asked: Vec<u64>) -> bool {
        let agree = |batched: Vec<bool>, single: Vec<bool>| batched == single;
        let (x8, x16, f8, f16) = large();
        let mut ok = true;
        for_each_type!(Filter => {
            let small = Filter::from_keys(&members).unwrap();
            ok &= agree(
                small.contains_batch(&asked).collect(),
                asked.iter().map(|k| small.contains(k)).collect(),
            );
            ok &= agree(
                small.contains_hash_batch(asked.iter().copied()).collect(),
                asked.iter().map(|&h| small.contains_hash(h)).collect(),
            );
        });
        // Against the large filters, each query also asks a member.
        let asked: Vec<u64> = asked
            .iter()
            .flat_map(|&a| [a, keys::key(5, a % LARGE_KEYS as u64)])
            .collect();
        ok &= asked.iter().skip(1).step_by(2).all(|k| f8.contains(k));
        ok &= agree(x8.contains_batch(&asked).collect(), asked.iter().map(|k| x8.contains(k)).collect());
        ok &= agree(x16.contains_batch(&asked).collect(), asked.iter().map(|k| x16.contains(k)).collect());
        ok &= agree(f8.contains_batch(&asked).collect(), asked.iter().map(|k| f8.contains(k)).collect());
        ok &= agree(f16.contains_batch(&asked).collect(), asked.iter().map(|k| f16.contains(k)).collect());
        ok
    }
}
