//! Filters of `UniformHashes`, which take positions from each hash as it is:
//! no false negatives, the rate and capacity promises for uniform hashes,
//! their own bytes, and what structured hashes do to them.

// quickcheck passes generated values by value.
#![allow(clippy::needless_pass_by_value)]

use cuckoo::{CuckooFilter, DefaultHashBuilder, Error, UniformHashes};
use filter_core::format::FLAG_UNIFORM_HASHES;
use filter_core::testing::oracle::{Codec, Harness, Op};
use filter_core::testing::{header, keys, stats};
use quickcheck::QuickCheck;

type Uniform = CuckooFilter<DefaultHashBuilder, UniformHashes>;

fn uniform(expected_items: usize, fpr: f64) -> Uniform {
    let filter = CuckooFilter::with_fpr(expected_items, fpr).unwrap();
    filter.assume_uniform_hashes().unwrap()
}

fn load(bytes: &[u8]) -> Result<Uniform, Error> {
    CuckooFilter::from_bytes_with_quality(bytes, DefaultHashBuilder::default(), UniformHashes)
}

/// A tiny filter from two arbitrary bytes: 1..=12 buckets, 4..=16 bits, so
/// that inserts fail with `Full` often, from a full table and the copy limit.
fn tiny(buckets: u8, bits: u8) -> Uniform {
    let filter =
        CuckooFilter::with_buckets(usize::from(buckets % 12) + 1, u32::from(bits % 13) + 4);
    filter.unwrap().assume_uniform_hashes().unwrap()
}

fn u64_keys(ops: Vec<Op>, buckets: u8, bits: u8) -> Result<(), String> {
    let harness = Harness::<Uniform, u64> {
        key: |i| i,
        codec: Some(Codec {
            to_bytes: Uniform::to_bytes,
            from_bytes: load,
        }),
    };
    harness.run_with_remove::<u64>(tiny(buckets, bits), &ops)
}

fn str_keys(ops: Vec<Op>, buckets: u8, bits: u8) -> Result<(), String> {
    let harness = Harness::<Uniform, String> {
        key: |i| format!("session-{i}"),
        codec: None,
    };
    harness.run_with_remove::<str>(tiny(buckets, bits), &ops)
}

#[test]
fn no_false_negatives_in_random_sequences() {
    // As tests/oracle.rs, seeded so a failure reproduces.
    for prop in [u64_keys, str_keys] {
        QuickCheck::new()
            .tests(300)
            .rng(quickcheck::Gen::from_size_and_seed(400, 0x5EED))
            .quickcheck(prop as fn(Vec<Op>, u8, u8) -> Result<(), String>);
    }
}

#[test]
fn uniform_hashes_meet_the_rate_and_capacity_promises() {
    // n = 200,003 keys hashed by the default hasher (uniform), seed 42: the
    // `with_fpr` promises hold for a filter of `UniformHashes` as for the
    // default, since a good hasher's output is what the mixer makes of any
    // input. Bound: p plus 4 binomial σ at rate p (σ = √(p(1−p)/q)), which a
    // correct filter exceeds with probability below 1e-4; the expected rate,
    // 8 · load / (2^f − 1), is 0.74 p at 1 % and 0.94 p at 0.2 %.
    let n = 200_003;
    let members = keys::members(42, n);
    let queries = 1_000_000;
    let non_members = keys::non_members(42, queries);
    for p in [0.01, 0.002] {
        let mut filter = uniform(n, p);
        for k in &members {
            filter.insert(k).unwrap();
        }
        assert!(members.iter().all(|k| filter.contains(k)));
        let measured = stats::measured_fpr(&filter, &non_members);
        let bound = stats::fpr_upper_bound(p, queries, 1.0, 4.0);
        assert!(
            measured <= bound,
            "p {p}: measured {measured} > bound {bound}"
        );
        println!(
            "p {p}: measured {measured:.6}, load {:.4}",
            filter.load_factor()
        );
    }
}

#[test]
fn a_million_uniform_hashes_fit_without_full() {
    // The capacity promise at a larger size, through `insert_hash` with
    // seeded uniform hashes (SplitMix64 outputs), with 10 % removed and
    // re-inserted as other keys.
    let n = 1_000_000;
    let mut filter = uniform(n, 0.01);
    for i in 0..n as u64 {
        filter.insert_hash(keys::key(9, i)).unwrap();
    }
    for i in 0..n as u64 / 10 {
        assert!(filter.remove_hash(keys::key(9, i)));
    }
    for i in n as u64..n as u64 + n as u64 / 10 {
        filter.insert_hash(keys::key(9, i)).unwrap();
    }
    assert_eq!(filter.len(), n);
    assert!((n as u64 / 10..n as u64 * 11 / 10).all(|i| filter.contains_hash(keys::key(9, i))));
}

#[test]
fn structured_hashes_fill_a_uniform_filter_early_but_lose_nothing() {
    // What the promise is for. Ids shifted into the high bits have all-zero
    // low bits, so as they are every one gets the same fingerprint, and at
    // most 8 copies of it fit a pair of buckets: the filter reports `Full`
    // long before its capacity. The default filter mixes them first and
    // takes them all. Either way every id whose insert succeeded is found.
    let n = 10_000;
    let ids: Vec<u64> = (0..n as u64).map(|i| i << 32).collect();
    let mut any = CuckooFilter::with_fpr(n, 0.01).unwrap();
    for &id in &ids {
        any.insert_hash(id).unwrap();
    }
    let mut trusting = uniform(n, 0.01);
    let inserted: Vec<u64> = ids
        .iter()
        .copied()
        .take_while(|&id| trusting.insert_hash(id).is_ok())
        .collect();
    assert!(
        inserted.len() < n / 10,
        "{} of {n} inserted",
        inserted.len()
    );
    assert!(inserted.iter().all(|&id| trusting.contains_hash(id)));
    // Inserts after the first `Full` keep failing or succeeding without
    // losing anything either.
    let later: Vec<u64> = ids[inserted.len()..]
        .iter()
        .copied()
        .filter(|&id| trusting.insert_hash(id).is_ok())
        .collect();
    assert!(
        inserted
            .iter()
            .chain(&later)
            .all(|&id| trusting.contains_hash(id))
    );
}

#[test]
fn bytes_record_the_quality_and_load_only_as_it() {
    let mut filter = uniform(1000, 0.01);
    for i in 0..900u64 {
        filter.insert(&i).unwrap();
    }
    let bytes = filter.to_bytes();
    assert_eq!(
        header::flags(&bytes) & FLAG_UNIFORM_HASHES,
        FLAG_UNIFORM_HASHES
    );
    let loaded = load(&bytes).unwrap();
    assert_eq!(loaded, filter);
    assert!((0..900u64).all(|i| loaded.contains(&i)));

    let mismatch = Error::HashQualityMismatch {
        stored: "UniformHashes",
        expected: "AnyHashes",
    };
    assert_eq!(CuckooFilter::from_bytes(&bytes).unwrap_err(), mismatch);
    let err = CuckooFilter::from_bytes_with_hasher(&bytes, DefaultHashBuilder::default());
    assert_eq!(err.unwrap_err(), mismatch);

    // The default's bytes do not set the flag, and do not load as uniform.
    let mut any = CuckooFilter::with_fpr(1000, 0.01).unwrap();
    any.insert(&1u64).unwrap();
    let any_bytes = any.to_bytes();
    assert_eq!(header::flags(&any_bytes) & FLAG_UNIFORM_HASHES, 0);
    assert_eq!(
        load(&any_bytes).unwrap_err(),
        Error::HashQualityMismatch {
            stored: "AnyHashes",
            expected: "UniformHashes"
        }
    );
    // Flipping the flag alone (checksum resealed) makes the bytes load as
    // the other quality: the header is what decides, so it must be right.
    let flipped = header::with_flags(&any_bytes, header::flags(&any_bytes) | FLAG_UNIFORM_HASHES);
    assert!(load(&flipped).is_ok());
}

#[test]
fn only_an_empty_filter_becomes_uniform() {
    let mut filter = CuckooFilter::with_fpr(1000, 0.01).unwrap();
    filter.insert(&7u64).unwrap();
    filter.insert(&8u64).unwrap();
    let err = filter.clone().assume_uniform_hashes().unwrap_err();
    assert_eq!(
        err.to_string(),
        "assume_uniform_hashes must be called on an empty filter, got a filter of 2 items"
    );
    // Emptied by removes, it may: no fingerprint is left where the mixed
    // hashes put it.
    assert!(filter.remove(&7u64) && filter.remove(&8u64));
    let mut emptied = filter.assume_uniform_hashes().unwrap();
    emptied.insert(&7u64).unwrap();
    assert!(emptied.contains(&7u64));
    assert!(format!("{emptied:?}").contains("UniformHashes"));
}

#[test]
fn batches_answer_as_one_by_one() {
    // Batched inserts, lookups and removes take the same positions as the
    // one-by-one methods for a uniform filter (a table large enough that
    // batches prefetch, 8 MiB and up, would take too long to fill here, so
    // this checks the answers; the prefetching paths share `locate`).
    let n = 50_000;
    let members = keys::members(3, n);
    let mut batched = uniform(n, 0.01);
    batched.insert_batch(&members).unwrap();
    let mut one_by_one = uniform(n, 0.01);
    for k in &members {
        one_by_one.insert(k).unwrap();
    }
    assert_eq!(batched, one_by_one);
    let queries = keys::interleaved(&members, &keys::non_members(3, n));
    let answers: Vec<bool> = batched.contains_batch(&queries).collect();
    let expected: Vec<bool> = queries.iter().map(|k| one_by_one.contains(k)).collect();
    assert_eq!(answers, expected);
    assert_eq!(batched.remove_batch(&members), n);
    assert!(batched.is_empty());
}
