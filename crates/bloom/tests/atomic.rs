//! `AtomicBloomFilter`: inserts from many threads give exactly the filter
//! one thread would build, queries see every insert that happened before
//! them, and the type is a `BloomFilter` in every other respect (oracle,
//! bytes, errors).

// quickcheck hands properties their generated input by value.
#![allow(clippy::needless_pass_by_value)]

use std::sync::atomic::{AtomicU64, Ordering};

use bloom::{AtomicBloomFilter, BloomFilter, Error};
use filter_core::testing::keys;
use filter_core::testing::oracle::{Codec, Harness, Op};
use quickcheck::{QuickCheck, TestResult};

const THREADS: u64 = 4;

/// The keys of thread `t` of `THREADS`: a quarter of `0..n` each, and a
/// common tail that every thread inserts, so that threads also race to set
/// the same bits.
fn thread_keys(t: u64, n: u64) -> impl Iterator<Item = u64> {
    let quarter = n / THREADS;
    (t * quarter..(t + 1) * quarter).chain(n..n + 1000)
}

#[test]
fn threads_build_the_filter_one_thread_builds() {
    // Bits are only ever ORed in, so any interleaving of the same inserts
    // leaves the same bits: the result must equal the sequential filter
    // exactly, at every probe sequence (tiny tables probe a hashed one,
    // small ones a cubic one, the rest a linear one).
    for (n, fpr) in [(4, 1e-6), (400, 0.01), (200_000, 0.01), (200_000, 0.001)] {
        let shared = AtomicBloomFilter::with_fpr(n as usize, fpr).unwrap();
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let shared = &shared;
                s.spawn(move || thread_keys(t, n).for_each(|k| shared.insert(&k)));
            }
        });
        let mut alone = BloomFilter::with_fpr(n as usize, fpr).unwrap();
        for t in 0..THREADS {
            thread_keys(t, n).for_each(|k| alone.insert(&k));
        }
        assert_eq!(shared.probe_sequence(), alone.probe_sequence(), "n {n}");
        assert_eq!(shared.to_bytes(), alone.to_bytes(), "n {n}");
        assert_eq!(BloomFilter::from(shared), alone, "n {n}");
    }
}

#[test]
fn a_query_finds_every_insert_published_before_it() {
    // One writer inserts keys in order and publishes how many are in with a
    // release store; readers acquire the count and check that every key
    // below it is found, the newest first. This is the promise the type's
    // docs make (an insert that happened before the query is found).
    let n = 100_000u64;
    let filter = AtomicBloomFilter::with_fpr(n as usize, 0.01).unwrap();
    let published = AtomicU64::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            for k in 0..n {
                filter.insert(&keys::key(3, k));
                published.store(k + 1, Ordering::Release);
            }
        });
        for _ in 0..2 {
            s.spawn(|| {
                let mut checked = 0;
                while checked < n {
                    let upto = published.load(Ordering::Acquire);
                    for k in (checked..upto).rev() {
                        assert!(filter.contains(&keys::key(3, k)), "key {k} of {upto}");
                    }
                    checked = upto;
                }
            });
        }
    });
}

#[test]
fn insert_unique_answers_as_bloom_filter_in_one_thread() {
    // Duplicates, new keys and (in an overfilled table) false positives.
    let atomic = AtomicBloomFilter::with_fpr(1000, 0.05).unwrap();
    let mut classic = BloomFilter::with_fpr(1000, 0.05).unwrap();
    let (mut new, mut old) = (0, 0);
    for i in 0..5000u64 {
        let k = keys::key(5, i % 3000);
        let answer = atomic.insert_unique(&k);
        assert_eq!(answer, classic.insert_unique(&k), "insert {i}");
        if answer { new += 1 } else { old += 1 }
    }
    // Both answers were exercised: 2,000 repeats answer "old" at least.
    assert!(new > 500 && old >= 2000, "{new} new, {old} old");
}

#[test]
fn converts_both_ways_and_shares_the_byte_format() {
    let mut classic = BloomFilter::with_fpr(10_000, 0.01).unwrap();
    classic.extend((0..10_000u64).map(|i| keys::key(9, i)));
    let atomic = AtomicBloomFilter::from(classic.clone());
    assert_eq!(atomic.memory_bytes(), classic.memory_bytes());
    assert_eq!(
        (atomic.bits(), atomic.hashes()),
        (classic.bits(), classic.hashes())
    );
    assert_eq!(atomic.to_bytes(), classic.to_bytes());
    assert_eq!(atomic.to_bloom_filter(), classic);
    // Either type loads the other's bytes.
    let loaded = AtomicBloomFilter::from_bytes(&classic.to_bytes()).unwrap();
    assert_eq!(
        BloomFilter::from_bytes(&loaded.to_bytes()).unwrap(),
        classic
    );
    assert!((0..10_000u64).all(|i| loaded.contains(&keys::key(9, i))));
    // Bad bytes are refused as BloomFilter refuses them.
    let bytes = classic.to_bytes();
    let truncated = AtomicBloomFilter::from_bytes(&bytes[..bytes.len() - 1]);
    assert!(
        matches!(truncated, Err(Error::Corrupt { .. })),
        "{truncated:?}"
    );
    let mut flipped = bytes.clone();
    flipped[40] ^= 1;
    assert!(AtomicBloomFilter::from_bytes(&flipped).is_err());
    let other_hasher =
        AtomicBloomFilter::from_bytes_with_hasher(&bytes, std::hash::RandomState::new());
    assert!(
        matches!(other_hasher, Err(Error::HasherMismatch)),
        "{other_hasher:?}"
    );
}

#[test]
fn clear_forgets_every_key() {
    let mut filter = AtomicBloomFilter::with_fpr(1000, 0.01).unwrap();
    (0..1000u64).for_each(|k| filter.insert(&k));
    filter.clear();
    assert_eq!(filter.to_bloom_filter().ones(), 0);
    assert!(!filter.contains(&1u64));
}

#[test]
fn bad_parameters_are_errors_naming_them() {
    let name = |r: Result<AtomicBloomFilter, Error>| match r {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    };
    assert_eq!(name(AtomicBloomFilter::with_fpr(0, 0.01)), "expected_items");
    for fpr in [0.0, 1.0, -0.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(name(AtomicBloomFilter::with_fpr(100, fpr)), "fpr", "{fpr}");
    }
    assert_eq!(name(AtomicBloomFilter::with_bits(0, 7)), "bits");
    assert_eq!(name(AtomicBloomFilter::with_bits(1 << 47, 7)), "bits");
    assert_eq!(name(AtomicBloomFilter::with_bits(64, 0)), "hashes");
    assert_eq!(name(AtomicBloomFilter::with_bits(64, 1025)), "hashes");
}

fn codec() -> Option<Codec<AtomicBloomFilter>> {
    Some(Codec {
        to_bytes: AtomicBloomFilter::to_bytes,
        from_bytes: AtomicBloomFilter::from_bytes,
    })
}

/// Small filters (50 expected keys against up to 256 distinct ones) so that
/// they overfill, as in `oracle.rs`.
fn small() -> AtomicBloomFilter {
    AtomicBloomFilter::with_fpr(50, 0.05).expect("valid parameters")
}

fn never_forgets_u64(ops: Vec<Op>) -> TestResult {
    let h = Harness {
        key: |i| keys::key(7, i),
        codec: codec(),
    };
    match h.run::<u64>(small(), &ops) {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(e),
    }
}

fn never_forgets_str(ops: Vec<Op>) -> TestResult {
    let h = Harness {
        key: |i| keys::url(7, i),
        codec: codec(),
    };
    match h.run::<str>(small(), &ops) {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(e),
    }
}

#[test]
fn never_forgets_keys_under_random_operations() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(never_forgets_u64 as fn(Vec<Op>) -> TestResult);
    QuickCheck::new()
        .tests(300)
        .quickcheck(never_forgets_str as fn(Vec<Op>) -> TestResult);
}
