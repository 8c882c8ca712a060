//! `AtomicBlockedBloomFilter`: inserts from many threads give exactly the
//! filter one thread would build, queries see every insert that happened
//! before them, and the type is a `BlockedBloomFilter` in every other
//! respect (oracle, bytes, errors).

// quickcheck hands properties their generated input by value.
#![allow(clippy::needless_pass_by_value)]

use std::sync::atomic::{AtomicU64, Ordering};

use bloom::{AtomicBlockedBloomFilter, BlockedBloomFilter, Error};
use filter_core::testing::keys;
use filter_core::testing::oracle::{Codec, Harness, Op};
use quickcheck::{QuickCheck, TestResult};

const THREADS: u64 = 4;

/// The keys of thread `t` of `THREADS`: a quarter of `0..n` each, and a
/// common tail that every thread inserts, so that threads also race to set
/// the same bits (in a one-block table, every key's).
fn thread_keys(t: u64, n: u64) -> impl Iterator<Item = u64> {
    let quarter = n / THREADS;
    (t * quarter..(t + 1) * quarter).chain(n..n + 1000)
}

#[test]
fn threads_build_the_filter_one_thread_builds() {
    // Bits are only ever ORed in, so any interleaving of the same inserts
    // leaves the same bits: the result must equal the sequential filter
    // exactly. One block (every key in it), a few, and many.
    for (n, blocks) in [(40, 1), (400, 3), (200_000, 8_000), (200_000, 40_000)] {
        let shared = AtomicBlockedBloomFilter::with_blocks(blocks).unwrap();
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let shared = &shared;
                s.spawn(move || thread_keys(t, n).for_each(|k| shared.insert(&k)));
            }
        });
        let mut alone = BlockedBloomFilter::with_blocks(blocks).unwrap();
        for t in 0..THREADS {
            thread_keys(t, n).for_each(|k| alone.insert(&k));
        }
        assert_eq!(shared.to_bytes(), alone.to_bytes(), "{blocks} blocks");
        assert_eq!(BlockedBloomFilter::from(shared), alone, "{blocks} blocks");
    }
}

#[test]
fn a_query_finds_every_insert_published_before_it() {
    // One writer inserts keys in order and publishes how many are in with a
    // release store; readers acquire the count and check that every key
    // below it is found, the newest first. This is the promise the type's
    // docs make (an insert that happened before the query is found).
    let n = 100_000u64;
    let filter = AtomicBlockedBloomFilter::with_fpr(n as usize, 0.01).unwrap();
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
fn insert_unique_answers_as_blocked_bloom_filter_in_one_thread() {
    // Duplicates (whose insert writes nothing), new keys and, in an
    // overfilled table, false positives.
    let atomic = AtomicBlockedBloomFilter::with_fpr(1000, 0.05).unwrap();
    let mut plain = BlockedBloomFilter::with_fpr(1000, 0.05).unwrap();
    let (mut new, mut old) = (0, 0);
    for i in 0..5000u64 {
        let k = keys::key(5, i % 3000);
        let answer = atomic.insert_unique(&k);
        assert_eq!(answer, plain.insert_unique(&k), "insert {i}");
        if answer { new += 1 } else { old += 1 }
    }
    // Both answers were exercised: 2,000 repeats answer "old" at least.
    assert!(new > 500 && old >= 2000, "{new} new, {old} old");
    assert_eq!(atomic.to_blocked_bloom_filter(), plain);
}

#[test]
fn converts_both_ways_and_shares_the_byte_format() {
    let mut plain = BlockedBloomFilter::with_fpr(10_000, 0.01).unwrap();
    plain.extend((0..10_000u64).map(|i| keys::key(9, i)));
    let atomic = AtomicBlockedBloomFilter::from(plain.clone());
    assert_eq!(atomic.memory_bytes(), plain.memory_bytes());
    assert_eq!(
        (atomic.bits(), atomic.hashes(), atomic.blocks()),
        (plain.bits(), plain.hashes(), plain.blocks())
    );
    assert_eq!(atomic.to_bytes(), plain.to_bytes());
    assert_eq!(atomic.to_blocked_bloom_filter(), plain);
    // with_fpr sizes as BlockedBloomFilter's does.
    let sized = AtomicBlockedBloomFilter::with_fpr(10_000, 0.01).unwrap();
    assert_eq!(sized.bits(), plain.bits());
    // Either type loads the other's bytes.
    let loaded = AtomicBlockedBloomFilter::from_bytes(&plain.to_bytes()).unwrap();
    assert_eq!(
        BlockedBloomFilter::from_bytes(&loaded.to_bytes()).unwrap(),
        plain
    );
    assert!((0..10_000u64).all(|i| loaded.contains(&keys::key(9, i))));
    // Bad bytes are refused as BlockedBloomFilter refuses them.
    let bytes = plain.to_bytes();
    let truncated = AtomicBlockedBloomFilter::from_bytes(&bytes[..bytes.len() - 1]);
    assert!(
        matches!(truncated, Err(Error::Corrupt { .. })),
        "{truncated:?}"
    );
    let mut flipped = bytes.clone();
    flipped[40] ^= 1;
    assert!(AtomicBlockedBloomFilter::from_bytes(&flipped).is_err());
    let other_hasher =
        AtomicBlockedBloomFilter::from_bytes_with_hasher(&bytes, std::hash::RandomState::new());
    assert!(
        matches!(other_hasher, Err(Error::HasherMismatch)),
        "{other_hasher:?}"
    );
}

#[test]
fn clear_forgets_every_key() {
    let mut filter = AtomicBlockedBloomFilter::with_fpr(1000, 0.01).unwrap();
    (0..1000u64).for_each(|k| filter.insert(&k));
    assert!(filter.to_blocked_bloom_filter().ones() > 0);
    filter.clear();
    assert_eq!(filter.to_blocked_bloom_filter().ones(), 0);
    assert!(!filter.contains(&1u64));
}

#[test]
fn bad_parameters_are_errors_naming_them() {
    let name = |r: Result<AtomicBlockedBloomFilter, Error>| match r {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    };
    assert_eq!(
        name(AtomicBlockedBloomFilter::with_fpr(0, 0.01)),
        "expected_items"
    );
    for fpr in [0.0, 1.0, -0.5, 1e-10, f64::NAN, f64::INFINITY] {
        assert_eq!(
            name(AtomicBlockedBloomFilter::with_fpr(100, fpr)),
            "fpr",
            "{fpr}"
        );
    }
    assert_eq!(name(AtomicBlockedBloomFilter::with_blocks(0)), "blocks");
    assert_eq!(
        name(AtomicBlockedBloomFilter::with_blocks(bloom::MAX_BLOCKS + 1)),
        "blocks"
    );
}

#[test]
#[cfg(target_pointer_width = "64")] // 2^40 blocks do not fit a 32-bit usize
fn a_table_too_large_to_allocate_is_an_error_naming_the_keys() {
    // 2^40 blocks of 32 bytes: 32 TiB, refused by the allocator rather
    // than aborting. From with_fpr the error names the key count.
    let err = AtomicBlockedBloomFilter::with_blocks(1 << 40).unwrap_err();
    assert!(
        matches!(err, Error::InvalidParameter { name: "blocks", .. }),
        "{err}"
    );
    let err = AtomicBlockedBloomFilter::with_fpr(1 << 42, 0.01).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidParameter {
                name: "expected_items",
                ..
            }
        ),
        "{err}"
    );
}

fn codec() -> Option<Codec<AtomicBlockedBloomFilter>> {
    Some(Codec {
        to_bytes: AtomicBlockedBloomFilter::to_bytes,
        from_bytes: AtomicBlockedBloomFilter::from_bytes,
    })
}

/// Small filters (50 expected keys against up to 256 distinct ones) so that
/// they overfill, as in `oracle.rs`.
fn small() -> AtomicBlockedBloomFilter {
    AtomicBlockedBloomFilter::with_fpr(50, 0.05).expect("valid parameters")
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
