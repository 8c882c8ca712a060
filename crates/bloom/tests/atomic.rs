//! The atomic filters, `AtomicBloomFilter` and `AtomicBlockedBloomFilter`:
//! inserts from many threads give exactly the filter one thread would
//! build, queries see every insert that happened before them, and each is
//! its plain twin (`BloomFilter`, `BlockedBloomFilter`) in every other
//! respect (oracle, bytes, errors).

// quickcheck hands properties their generated input by value.
#![allow(clippy::needless_pass_by_value)]

use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};

use bloom::{AtomicBlockedBloomFilter, AtomicBloomFilter, BlockedBloomFilter, BloomFilter, Error};
use filter_core::Insert;
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

/// `filter` after `THREADS` threads inserted their [`thread_keys`] into it
/// at once.
fn inserted_by_threads<F: Sync>(filter: F, n: u64, insert: impl Fn(&F, u64) + Sync) -> F {
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (filter, insert) = (&filter, &insert);
            s.spawn(move || thread_keys(t, n).for_each(|k| insert(filter, k)));
        }
    });
    filter
}

/// `filter` after one thread inserted every thread's keys, in turn.
fn inserted_alone<F>(mut filter: F, n: u64, insert: impl Fn(&mut F, u64)) -> F {
    for t in 0..THREADS {
        thread_keys(t, n).for_each(|k| insert(&mut filter, k));
    }
    filter
}

#[test]
fn threads_build_the_filter_one_thread_builds() {
    // Bits are only ever ORed in, so any interleaving of the same inserts
    // leaves the same bits: the result must equal the sequential filter
    // exactly, at every probe sequence (tiny tables probe a hashed one,
    // small ones a cubic one, the rest a linear one).
    for (n, fpr) in [(4, 1e-6), (400, 0.01), (200_000, 0.01), (200_000, 0.001)] {
        let new = || AtomicBloomFilter::with_fpr(n as usize, fpr).unwrap();
        let shared = inserted_by_threads(new(), n, |f, k| f.insert(&k));
        let alone = BloomFilter::with_fpr(n as usize, fpr).unwrap();
        let alone = inserted_alone(alone, n, |f, k| f.insert(&k));
        assert_eq!(shared.to_bytes(), alone.to_bytes(), "n {n}");
        assert_eq!(BloomFilter::from(shared), alone, "n {n}");
    }
    // One block (every key in it), a few, and many.
    for (n, blocks) in [(40, 1), (400, 3), (200_000, 8_000), (200_000, 40_000)] {
        let new = || AtomicBlockedBloomFilter::with_blocks(blocks).unwrap();
        let shared = inserted_by_threads(new(), n, |f, k| f.insert(&k));
        let alone = BlockedBloomFilter::with_blocks(blocks).unwrap();
        let alone = inserted_alone(alone, n, |f, k| f.insert(&k));
        assert_eq!(shared.to_bytes(), alone.to_bytes(), "{blocks} blocks");
        assert_eq!(BlockedBloomFilter::from(shared), alone, "{blocks} blocks");
    }
}

/// One writer inserts keys into `filter` in order and publishes how many
/// are in with a release store; two readers acquire the count and check
/// that every key below it is found, the newest first. This is the promise
/// the types' docs make (an insert that happened before the query is
/// found).
fn check_published_inserts_are_found<F: Sync>(
    filter: &F,
    insert: impl Fn(&F, u64) + Sync,
    contains: impl Fn(&F, u64) -> bool + Sync,
) {
    let n = 100_000u64;
    let published = AtomicU64::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            for k in 0..n {
                insert(filter, keys::key(3, k));
                published.store(k + 1, Ordering::Release);
            }
        });
        for _ in 0..2 {
            s.spawn(|| {
                let mut checked = 0;
                while checked < n {
                    let upto = published.load(Ordering::Acquire);
                    for k in (checked..upto).rev() {
                        assert!(contains(filter, keys::key(3, k)), "key {k} of {upto}");
                    }
                    checked = upto;
                }
            });
        }
    });
}

#[test]
fn a_query_finds_every_insert_published_before_it() {
    let classic = AtomicBloomFilter::with_fpr(100_000, 0.01).unwrap();
    check_published_inserts_are_found(&classic, |f, k| f.insert(&k), |f, k| f.contains(&k));
    let blocked = AtomicBlockedBloomFilter::with_fpr(100_000, 0.01).unwrap();
    check_published_inserts_are_found(&blocked, |f, k| f.insert(&k), |f, k| f.contains(&k));
}

/// Inserts duplicates, new keys and (in an overfilled table) false
/// positives through both `insert_unique`s, which must answer alike.
fn check_insert_unique_agrees(
    mut atomic: impl FnMut(u64) -> bool,
    mut plain: impl FnMut(u64) -> bool,
) {
    let (mut new, mut old) = (0, 0);
    for i in 0..5000u64 {
        let k = keys::key(5, i % 3000);
        let answer = atomic(k);
        assert_eq!(answer, plain(k), "insert {i}");
        if answer { new += 1 } else { old += 1 }
    }
    // Both answers were exercised: 2,000 repeats answer "old" at least.
    assert!(new > 500 && old >= 2000, "{new} new, {old} old");
}

#[test]
fn insert_unique_answers_as_the_plain_filter_in_one_thread() {
    let atomic = AtomicBloomFilter::with_fpr(1000, 0.05).unwrap();
    let mut classic = BloomFilter::with_fpr(1000, 0.05).unwrap();
    check_insert_unique_agrees(|k| atomic.insert_unique(&k), |k| classic.insert_unique(&k));
    assert_eq!(atomic.to_bloom_filter(), classic);
    // Repeats in the blocked one find their bits set and write nothing.
    let atomic = AtomicBlockedBloomFilter::with_fpr(1000, 0.05).unwrap();
    let mut blocked = BlockedBloomFilter::with_fpr(1000, 0.05).unwrap();
    check_insert_unique_agrees(|k| atomic.insert_unique(&k), |k| blocked.insert_unique(&k));
    assert_eq!(atomic.to_blocked_bloom_filter(), blocked);
}

/// `load` (an atomic type's `from_bytes_with_hasher`) refuses `bytes`, a
/// plain filter's, truncated, bit-flipped and under another hasher, as the
/// plain type does.
fn check_bad_bytes_are_refused<F: Debug, G: Debug>(
    bytes: &[u8],
    load: impl Fn(&[u8], std::hash::RandomState) -> Result<F, Error>,
    load_default: impl Fn(&[u8]) -> Result<G, Error>,
) {
    let truncated = load_default(&bytes[..bytes.len() - 1]);
    assert!(
        matches!(truncated, Err(Error::Corrupt { .. })),
        "{truncated:?}"
    );
    let mut flipped = bytes.to_vec();
    flipped[40] ^= 1;
    assert!(load_default(&flipped).is_err());
    let other_hasher = load(bytes, std::hash::RandomState::new());
    assert!(
        matches!(other_hasher, Err(Error::HasherMismatch)),
        "{other_hasher:?}"
    );
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
    check_bad_bytes_are_refused(
        &classic.to_bytes(),
        AtomicBloomFilter::from_bytes_with_hasher,
        AtomicBloomFilter::from_bytes,
    );
}

#[test]
fn converts_both_ways_and_shares_the_byte_format_blocked() {
    let mut blocked = BlockedBloomFilter::with_fpr(10_000, 0.01).unwrap();
    blocked.extend((0..10_000u64).map(|i| keys::key(9, i)));
    let atomic = AtomicBlockedBloomFilter::from(blocked.clone());
    assert_eq!(atomic.memory_bytes(), blocked.memory_bytes());
    assert_eq!(
        (atomic.bits(), atomic.blocks()),
        (blocked.bits(), blocked.blocks())
    );
    assert_eq!(atomic.to_bytes(), blocked.to_bytes());
    assert_eq!(atomic.to_blocked_bloom_filter(), blocked);
    // with_fpr sizes as BlockedBloomFilter's does.
    let sized = AtomicBlockedBloomFilter::with_fpr(10_000, 0.01).unwrap();
    assert_eq!(sized.bits(), blocked.bits());
    // Either type loads the other's bytes.
    let loaded = AtomicBlockedBloomFilter::from_bytes(&blocked.to_bytes()).unwrap();
    assert_eq!(
        BlockedBloomFilter::from_bytes(&loaded.to_bytes()).unwrap(),
        blocked
    );
    assert!((0..10_000u64).all(|i| loaded.contains(&keys::key(9, i))));
    check_bad_bytes_are_refused(
        &blocked.to_bytes(),
        AtomicBlockedBloomFilter::from_bytes_with_hasher,
        AtomicBlockedBloomFilter::from_bytes,
    );
}

#[test]
fn clear_forgets_every_key() {
    let mut classic = AtomicBloomFilter::with_fpr(1000, 0.01).unwrap();
    (0..1000u64).for_each(|k| classic.insert(&k));
    classic.clear();
    assert_eq!(classic.to_bloom_filter().estimated_len(), 0);
    assert!(!classic.contains(&1u64));
    let mut blocked = AtomicBlockedBloomFilter::with_fpr(1000, 0.01).unwrap();
    (0..1000u64).for_each(|k| blocked.insert(&k));
    blocked.clear();
    assert_eq!(blocked.to_blocked_bloom_filter().estimated_len(), 0);
    assert!(!blocked.contains(&1u64));
}

/// The parameter an `InvalidParameter` error names.
fn named<F: Debug>(result: Result<F, Error>) -> &'static str {
    match result {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn bad_parameters_are_errors_naming_them() {
    type Classic = AtomicBloomFilter;
    type Blocked = AtomicBlockedBloomFilter;
    assert_eq!(named(Classic::with_fpr(0, 0.01)), "expected_items");
    assert_eq!(named(Blocked::with_fpr(0, 0.01)), "expected_items");
    for fpr in [0.0, 1.0, -0.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(named(Classic::with_fpr(100, fpr)), "fpr", "{fpr}");
        assert_eq!(named(Blocked::with_fpr(100, fpr)), "fpr", "{fpr}");
    }
    // Below the blocked layout's smallest rate.
    assert_eq!(named(Blocked::with_fpr(100, 1e-10)), "fpr");
    assert_eq!(named(Classic::with_bits(0, 7)), "bits");
    assert_eq!(named(Classic::with_bits(1 << 47, 7)), "bits");
    assert_eq!(named(Classic::with_bits(64, 0)), "hashes");
    assert_eq!(named(Classic::with_bits(64, 1025)), "hashes");
    assert_eq!(named(Blocked::with_blocks(0)), "blocks");
    assert_eq!(named(Blocked::with_blocks(bloom::MAX_BLOCKS + 1)), "blocks");
}

#[test]
#[cfg(target_pointer_width = "64")] // 2^40 blocks do not fit a 32-bit usize
fn a_table_too_large_to_allocate_is_an_error_naming_the_keys() {
    // 2^40 blocks of 32 bytes: 32 TiB, refused by the allocator rather
    // than aborting. From with_fpr the error names the key count.
    let blocks = AtomicBlockedBloomFilter::with_blocks(1 << 40);
    assert_eq!(named(blocks), "blocks");
    let keys = AtomicBlockedBloomFilter::with_fpr(1 << 42, 0.01);
    assert_eq!(named(keys), "expected_items");
}

/// Runs `ops` from quickcheck against `filter`, with u64 and str keys, the
/// bytes round trip included.
fn never_forgets<F>(filter: F, codec: Codec<F>, ops: &[Op], url_keys: bool) -> TestResult
where
    F: Insert<u64> + Insert<str>,
{
    let result = if url_keys {
        Harness {
            key: |i| keys::url(7, i),
            codec: Some(codec),
        }
        .run::<str>(filter, ops)
    } else {
        Harness {
            key: |i| keys::key(7, i),
            codec: Some(codec),
        }
        .run::<u64>(filter, ops)
    };
    match result {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(e),
    }
}

// Small filters (50 expected keys against up to 256 distinct ones) so that
// they overfill, as in `oracle.rs`.

fn classic_never_forgets(ops: Vec<Op>, url_keys: bool) -> TestResult {
    let filter = AtomicBloomFilter::with_fpr(50, 0.05).expect("valid parameters");
    let codec = Codec {
        to_bytes: AtomicBloomFilter::to_bytes,
        from_bytes: AtomicBloomFilter::from_bytes,
    };
    never_forgets(filter, codec, &ops, url_keys)
}

fn blocked_never_forgets(ops: Vec<Op>, url_keys: bool) -> TestResult {
    let filter = AtomicBlockedBloomFilter::with_fpr(50, 0.05).expect("valid parameters");
    let codec = Codec {
        to_bytes: AtomicBlockedBloomFilter::to_bytes,
        from_bytes: AtomicBlockedBloomFilter::from_bytes,
    };
    never_forgets(filter, codec, &ops, url_keys)
}

#[test]
fn never_forgets_keys_under_random_operations() {
    for property in [classic_never_forgets, blocked_never_forgets] {
        QuickCheck::new()
            .tests(600)
            .quickcheck(property as fn(Vec<Op>, bool) -> TestResult);
    }
}
