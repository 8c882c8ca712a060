//! No false negatives: every key the filter was built from is reported
//! present, for u64, `str` and `String` keys, with and without duplicates,
//! for every n from 0 to 50 and at 10^6.

mod common;

use std::hash::{BuildHasher, Hasher};

use filter_core::testing::keys;
use xor_filter::{BinaryFuse8, Filter, KeyHasher, PortableHasher, Xor8, Xor16};

use common::for_each_type;

/// `keys` with every third key repeated (once, twice, ...), shuffled in by
/// position so duplicates are not adjacent.
fn with_duplicates<T: Clone>(keys: &[T]) -> Vec<T> {
    let mut out = keys.to_vec();
    for (i, k) in keys.iter().enumerate().step_by(3) {
        for _ in 0..=(i % 4) {
            out.push(k.clone());
        }
    }
    let third = out.len() / 3;
    out.rotate_left(third);
    out
}

#[test]
fn every_small_n_u64_str_and_string_with_and_without_duplicates() {
    for n in 0..=50usize {
        let ints = keys::members(u64::try_from(n).unwrap(), n);
        let strings = keys::member_urls(n as u64, n);
        let strs: Vec<&str> = strings.iter().map(String::as_str).collect();
        for_each_type!(F => {
            for dup in [false, true] {
                let ints_in = if dup { with_duplicates(&ints) } else { ints.clone() };
                let f = F::from_keys(&ints_in).unwrap();
                assert!(ints.iter().all(|k| f.contains(k)), "u64 n={n} dup={dup}");
                assert_eq!(f.len(), n);

                let strings_in = if dup { with_duplicates(&strings) } else { strings.clone() };
                let f = F::from_keys(&strings_in).unwrap();
                assert!(strings.iter().all(|k| f.contains(k)), "String n={n}");
                // A String and its str hash alike, so either can be asked.
                assert!(strs.iter().all(|k| f.contains(*k)), "String/str n={n}");
                assert_eq!(f.len(), n);

                let strs_in = if dup { with_duplicates(&strs) } else { strs.clone() };
                let f = F::from_keys(&strs_in).unwrap();
                assert!(strs.iter().all(|k| f.contains(*k)), "str n={n} dup={dup}");
                assert!(strings.iter().all(|k| f.contains(k)), "str/String n={n}");
            }
        });
    }
}

#[test]
fn small_n_across_many_key_sets() {
    // Small hypergraphs fail to peel most often; many seeds of key sets
    // exercise the retry path. Every build must succeed.
    for seed in 0..40u64 {
        for n in [1usize, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233] {
            let ks = keys::members(1000 + seed, n);
            for_each_type!(F => {
                let f = F::from_hashes(&ks).unwrap();
                assert!(ks.iter().all(|&k| f.contains_hash(k)), "seed {seed} n {n}");
            });
        }
    }
}

#[test]
fn one_million_keys_with_and_without_duplicates() {
    let ints = keys::members(7, 1_000_000);
    let dup = with_duplicates(&ints[..300_000]);
    let mut ints_dup = ints.clone();
    ints_dup.extend_from_slice(&dup);
    for_each_type!(F => {
        for input in [&ints, &ints_dup] {
            let f = F::from_keys(input).unwrap();
            assert_eq!(f.len(), 1_000_000);
            assert!(ints.iter().all(|k| f.contains(k)));
        }
    });
}

#[test]
fn one_million_string_keys_with_duplicates() {
    let mut urls = keys::member_urls(8, 1_000_000);
    urls.extend_from_within(..100_000);
    for_each_type!(F => {
        let f = F::from_keys(&urls).unwrap();
        assert_eq!(f.len(), 1_000_000);
        assert!(urls.iter().all(|u| f.contains(u.as_str())));
    });
}

#[test]
fn sequential_hashes_are_mixed() {
    let hashes: Vec<u64> = (0..100_000).collect();
    for_each_type!(F => {
        let f = F::from_hashes(&hashes).unwrap();
        assert!(hashes.iter().all(|&h| f.contains_hash(h)));
        // Sequential hashes must not crowd the first slots: the measured
        // rate on other sequential hashes stays near 2^-8 (or lower).
        let fp = (100_000..200_000u64).filter(|&h| f.contains_hash(h)).count();
        assert!(fp < 600, "{fp}");
    });
}

#[test]
fn all_keys_equal() {
    // 1000 copies overflow a slot's 8-bit count: detected, deduplicated.
    for copies in [2usize, 255, 256, 1000] {
        let same = vec!["the same key"; copies];
        for_each_type!(F => {
            let f = F::from_keys(&same).unwrap();
            assert_eq!(f.len(), 1);
            assert!(f.contains("the same key"));
        });
    }
}

#[test]
fn structured_and_extreme_hashes() {
    // Hashes at the edges of u64 and strided by every power of two (i << k,
    // and u64::MAX minus that): the seeded mix must spread them all, and
    // strides of 2^63 and up wrap into duplicates that must count once.
    let mut sets: Vec<Vec<u64>> = vec![
        vec![0],
        vec![u64::MAX],
        vec![0, u64::MAX],
        vec![u64::MAX, u64::MAX - 1, u64::MAX - 2],
        vec![1 << 63, 0, u64::MAX, 1],
    ];
    for k in 0..64u32 {
        for n in [2u64, 3, 17, 200] {
            sets.push((0..n).map(|i| i.wrapping_shl(k)).collect());
            sets.push((0..n).map(|i| u64::MAX - i.wrapping_shl(k)).collect());
        }
    }
    for set in &sets {
        let mut distinct = set.clone();
        distinct.sort_unstable();
        distinct.dedup();
        for_each_type!(F => {
            let f = F::from_hashes(set).unwrap();
            assert_eq!(f.len(), distinct.len(), "{set:?}");
            assert!(set.iter().all(|&h| f.contains_hash(h)), "{set:?}");
        });
    }
}

#[test]
fn sizes_around_segment_length_steps() {
    // The binary fuse segment length doubles at n = 3, 9, 28, 91, 303, 1009,
    // 3360, 11 190, 37 262, 124 000 (2^floor(log_3.33 n + 2.25)), where the
    // segment count drops to a few; just past 8192 slots the construction
    // switches to its counting sort. Each side of each step, with and
    // without duplicates.
    for (s, step) in [3usize, 9, 28, 91, 303, 1009, 3360, 11_190, 37_262, 124_000]
        .into_iter()
        .enumerate()
    {
        for n in step - 2..step + 2 {
            let hashes = keys::members(500 + s as u64, n);
            let mut dup = hashes.clone();
            dup.extend_from_slice(&hashes[..n / 2]);
            for_each_type!(F => {
                for input in [&hashes, &dup] {
                    let f = F::from_hashes(input).unwrap();
                    assert_eq!(f.len(), n);
                    assert!(hashes.iter().all(|&h| f.contains_hash(h)), "n={n}");
                }
            });
        }
    }
}

#[test]
fn many_distinct_keys_each_past_a_count_byte() {
    // 50 distinct hashes, 300 copies each: their slots' 8-bit counts
    // overflow with several distinct keys present, not just one.
    let hashes: Vec<u64> = (0..50u64)
        .flat_map(|i| std::iter::repeat_n(i * 7919, 300))
        .collect();
    for_each_type!(F => {
        let f = F::from_hashes(&hashes).unwrap();
        assert_eq!(f.len(), 50);
        assert!(hashes.iter().all(|&h| f.contains_hash(h)));
    });
}

/// A hasher with only 16 distinct outputs: distinct keys collide.
#[derive(Clone, Default)]
struct SixteenHashes;
struct SixteenHasher(u64);
impl Hasher for SixteenHasher {
    fn finish(&self) -> u64 {
        self.0 % 16
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.wrapping_mul(31).wrapping_add(u64::from(b));
        }
    }
}
impl BuildHasher for SixteenHashes {
    type Hasher = SixteenHasher;
    fn build_hasher(&self) -> SixteenHasher {
        SixteenHasher(0)
    }
}

#[test]
fn colliding_hashes_of_distinct_keys_count_once() {
    let ks: Vec<u64> = (0..10_000).collect();
    let f = BinaryFuse8::from_keys_with_hasher(&ks, SixteenHashes).unwrap();
    assert_eq!(f.len(), 16);
    assert!(ks.iter().all(|k| f.contains(k)));
    let f = Xor16::from_keys_with_hasher(&ks, SixteenHashes).unwrap();
    assert_eq!(f.len(), 16);
    assert!(ks.iter().all(|k| f.contains(k)));
}

#[test]
fn contains_equals_contains_hash_of_the_hasher() {
    let ks = keys::member_urls(3, 1000);
    let h = PortableHasher::default();
    for_each_type!(F => {
        let f = F::from_keys(&ks).unwrap();
        for q in keys::non_member_urls(3, 5000).iter().chain(&ks) {
            assert_eq!(f.contains(q), f.contains_hash(h.hash_key(q)));
            assert_eq!(f.contains(q), Filter::<String>::contains(&f, q));
        }
    });
}

#[test]
fn builds_are_deterministic_and_memory_is_the_table() {
    let ks = keys::members(4, 10_000);
    for_each_type!(F => {
        let a = F::from_keys(&ks).unwrap();
        let b = F::from_keys(&ks).unwrap();
        assert_eq!(a.to_bytes(), b.to_bytes());
        assert!(a.memory_bytes() > 0);
        assert_eq!(a.memory_bytes(), Filter::<u64>::memory_bytes(&a));
    });
    let empty = BinaryFuse8::from_keys::<u64>(&[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
}

#[test]
fn a_filter_of_no_keys_answers_false_for_every_key() {
    // 10^6 queries: at the usual 2^-8 an empty filter would report ~3900.
    let queries = keys::non_members(6, 1_000_000);
    for_each_type!(F => {
        let empty = F::from_keys::<u64>(&[]).unwrap();
        assert!(queries.iter().all(|q| !empty.contains(q) && !empty.contains_hash(*q)));
        let loaded = F::from_bytes(&empty.to_bytes()).unwrap();
        assert!(queries.iter().all(|q| !loaded.contains(q)));
        let hashes = [0u64, 1, u64::MAX];
        assert!(hashes.iter().all(|&h| !loaded.contains_hash(h)));
    });
    let bytes = xor_filter::BinaryFuse16::from_keys::<u64>(&[])
        .unwrap()
        .to_bytes();
    let view = xor_filter::BinaryFuse16Ref::from_bytes(&bytes).unwrap();
    assert!(queries.iter().all(|q| !view.contains(q)));
    let partitioned = xor_filter::PartitionedBinaryFuse8::from_keys::<u64>(&[], 3).unwrap();
    assert!(queries.iter().all(|q| !partitioned.contains(q)));
}

#[test]
fn custom_hasher_round_trip() {
    let ks = keys::members(5, 1000);
    let hasher = PortableHasher::with_seed(99);
    let f = Xor8::from_keys_with_hasher(&ks, hasher).unwrap();
    assert!(ks.iter().all(|k| f.contains(k)));
    let loaded = Xor8::from_bytes_with_hasher(&f.to_bytes(), hasher).unwrap();
    assert!(ks.iter().all(|k| loaded.contains(k)));
    // The default hasher hashes differently: refused, never wrong answers.
    assert_eq!(
        Xor8::from_bytes(&f.to_bytes()).unwrap_err(),
        xor_filter::Error::HasherMismatch
    );
}

quickcheck::quickcheck! {
    fn quickcheck_no_false_negatives_and_reload_answers_identically(hashes: Vec<u64>, queries: Vec<u64>) -> bool {
        // Small domains make duplicates common.
        let hashes: Vec<u64> = hashes.iter().map(|h| h % 64).chain(hashes.iter().copied()).collect();
        let mut ok = true;
        for_each_type!(F => {
            let f = F::from_hashes(&hashes).unwrap();
            let g = F::from_bytes(&f.to_bytes()).unwrap();
            ok &= hashes.iter().all(|&h| f.contains_hash(h) && g.contains_hash(h));
            ok &= queries.iter().all(|&q| f.contains_hash(q) == g.contains_hash(q));
        });
        ok
    }
}
