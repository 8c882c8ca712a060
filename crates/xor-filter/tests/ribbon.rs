//! `Ribbon`: no false negatives (oracle, duplicates, 0 and 1 key), the
//! measured rate at most the target, the space promise, bytes, batches and
//! bad input.

use filter_core::format::{FilterKind, HEADER_BYTES, reseal};
use filter_core::testing::keys;
use filter_core::testing::stats::{fpr_upper_bound, measured_fpr};
use quickcheck::{QuickCheck, TestResult};
use std::collections::HashSet;
use xor_filter::{BatchContains, Error, Filter, KeyHasher, PortableHasher, Ribbon};

/// Body offsets (see docs/format-ribbon.md).
const BLOCKS: usize = HEADER_BYTES + 16;
const COLUMNS: usize = HEADER_BYTES + 24;
const UPPER_START: usize = HEADER_BYTES + 28;
const WORDS: usize = HEADER_BYTES + 36;

#[test]
fn oracle_random_key_sets_with_duplicates() {
    #[allow(clippy::needless_pass_by_value)] // quickcheck passes owned values
    fn prop(keys: Vec<u64>, rate: u8) -> TestResult {
        // Rates from 1/2 down to 2^-32, including whole and fractional bits.
        let fpr = 0.5f64.powf(1.0 + f64::from(rate % 32) * 0.97);
        let filter = Ribbon::from_hashes_with_fpr(&keys, fpr).unwrap();
        let distinct: HashSet<u64> = keys.iter().copied().collect();
        if filter.len() != distinct.len() {
            return TestResult::error(format!("len {} != {}", filter.len(), distinct.len()));
        }
        if let Some(k) = keys.iter().find(|&&k| !filter.contains_hash(k)) {
            return TestResult::error(format!("false negative {k} at fpr {fpr}"));
        }
        let loaded = Ribbon::from_bytes(&filter.to_bytes()).unwrap();
        if loaded != filter || !keys.iter().all(|&k| loaded.contains_hash(k)) {
            return TestResult::error("the loaded filter differs");
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(Vec<u64>, u8) -> TestResult);
}

#[test]
fn zero_keys_answer_false_for_every_key() {
    for fpr in [0.5, 0.01, 1e-9] {
        let empty: [u64; 0] = [];
        let filter = Ribbon::from_keys_with_fpr(&empty, fpr).unwrap();
        assert!(filter.is_empty());
        assert_eq!(filter.fpr(), 0.0);
        assert!(
            keys::non_members(3, 100_000)
                .iter()
                .all(|k| !filter.contains(k))
        );
        let loaded = Ribbon::from_bytes(&filter.to_bytes()).unwrap();
        assert!((0..10_000u64).all(|k| !loaded.contains(&k)));
    }
}

#[test]
fn one_key_and_small_sets_across_many_seeds() {
    for seed in 0..40u64 {
        for n in [
            1usize, 2, 3, 5, 8, 13, 21, 34, 55, 89, 127, 128, 129, 144, 233, 377, 1000,
        ] {
            let ks = keys::members(500 + seed, n);
            let filter = Ribbon::from_hashes_with_fpr(&ks, 0.01).unwrap();
            assert!(
                ks.iter().all(|&k| filter.contains_hash(k)),
                "seed {seed} n {n}"
            );
            assert_eq!(filter.len(), n);
        }
    }
}

#[test]
fn strings_duplicates_and_every_n_up_to_300() {
    for n in 0..=300usize {
        let urls = keys::member_urls(n as u64, n);
        let mut input = urls.clone();
        input.extend(urls.iter().step_by(3).cloned());
        input.rotate_left(n / 2);
        let filter = Ribbon::from_keys_with_fpr(&input, 0.001).unwrap();
        assert_eq!(filter.len(), n);
        assert!(urls.iter().all(|u| filter.contains(u)), "n {n}");
        assert!(urls.iter().all(|u| filter.contains(u.as_str())), "n {n}");
    }
}

#[test]
fn hashes_and_keys_meet_and_a_std_hasher_works() {
    let ids: Vec<u64> = (0..20_000).collect();
    let hashes: Vec<u64> = ids
        .iter()
        .map(|k| PortableHasher::default().hash_key(k))
        .collect();
    let by_hash = Ribbon::from_hashes_with_fpr(&hashes, 0.01).unwrap();
    let by_key = Ribbon::from_keys_with_fpr(&ids, 0.01).unwrap();
    assert_eq!(by_hash, by_key);
    // Sequential ids as pre-hashes keep the rate: 2·10^5 queries, bound
    // 1 % + 4σ (σ = 0.022 %).
    let sequential = Ribbon::from_hashes_with_fpr(&ids, 0.01).unwrap();
    assert!(ids.iter().all(|&k| sequential.contains_hash(k)));
    let fp = (1_000_000..1_200_000u64)
        .filter(|&k| sequential.contains_hash(k))
        .count();
    assert!(fp as f64 / 200_000.0 <= 0.01 + 4.0 * 0.000_222, "{fp}");
    let std = Ribbon::from_keys_with_hasher(
        &ids,
        0.01,
        std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default(),
    )
    .unwrap();
    assert!(ids.iter().all(|k| std.contains(k)));
}

#[test]
fn contains_is_contains_hash_of_the_hashers_hash() {
    let ks = keys::members(8, 5_000);
    let filter = Ribbon::from_keys_with_fpr(&ks, 0.02).unwrap();
    for q in ks.iter().chain(&keys::non_members(8, 20_000)) {
        assert_eq!(
            filter.contains(q),
            filter.contains_hash(filter.hasher().hash_key(q))
        );
    }
}

/// Measured rate at most the target for 1 %, 0.5 %, 0.1 % and 0.01 %:
/// 2·10^5 keys, 2·10^6 non-member queries (seed 21), bound = target + 4σ
/// (σ = √(p(1 − p)/q); a correct filter exceeds it with probability
/// ~3·10^-5). The shape's own rate is at most the target too.
#[test]
fn measured_rate_is_at_most_the_target() {
    let members = keys::members(21, 200_000);
    let queries = keys::non_members(21, 2_000_000);
    for fpr in [0.01, 0.005, 0.001, 0.0001] {
        let filter = Ribbon::from_keys_with_fpr(&members, fpr).unwrap();
        assert!(filter.fpr() <= fpr, "{} > {fpr}", filter.fpr());
        let measured = measured_fpr(&filter, &queries);
        let bound = fpr_upper_bound(fpr, queries.len(), 1.0, 4.0);
        assert!(
            measured <= bound,
            "fpr {fpr}: measured {measured} > {bound}"
        );
        // And not far below: the split into columns is not wasting bits.
        assert!(
            measured >= fpr * 0.85 - 4.0 * (fpr / queries.len() as f64).sqrt(),
            "{fpr}: {measured}"
        );
    }
}

/// Whole-bit rates, low rates and the extremes: the measured rate stays at
/// most the shape's rate + 4σ (2·10^5 keys, 10^6 queries, seed 5).
#[test]
fn rates_from_one_half_down() {
    let members = keys::members(5, 200_000);
    let queries = keys::non_members(5, 1_000_000);
    for fpr in [0.5, 0.3, 0.125, 0.07, 1.0 / 1024.0, 1e-5] {
        let filter = Ribbon::from_keys_with_fpr(&members, fpr).unwrap();
        assert!(members.iter().all(|k| filter.contains(k)));
        let measured = measured_fpr(&filter, &queries);
        let bound = fpr_upper_bound(fpr, queries.len(), 1.0, 4.0);
        assert!(
            measured <= bound,
            "fpr {fpr}: measured {measured} > {bound}"
        );
    }
    // 2^-32: not one of 10^6 non-members should match (expected 0.0002).
    let filter = Ribbon::from_keys_with_fpr(&members, 0.5f64.powi(32)).unwrap();
    assert!(members.iter().all(|k| filter.contains(k)));
    assert_eq!(queries.iter().filter(|q| filter.contains(*q)).count(), 0);
}

/// The space promise at 10^6 keys: at most 1.08 × log2(1/p) bits per key.
#[test]
fn bits_per_key_within_8_percent_of_the_bound_at_a_million_keys() {
    let members = keys::members(33, 1_000_000);
    for fpr in [0.01, 0.001] {
        let filter = Ribbon::from_keys_with_fpr(&members, fpr).unwrap();
        let bound = (1.0 / fpr).log2();
        assert!(
            filter.bits_per_key() <= 1.08 * bound,
            "fpr {fpr}: {} bits/key, bound {bound}",
            filter.bits_per_key()
        );
        assert!(members.iter().all(|k| filter.contains(k)));
    }
}

#[test]
fn batches_answer_as_one_by_one() {
    let ks = keys::members(2, 30_000);
    let filter = Ribbon::from_keys_with_fpr(&ks, 0.003).unwrap();
    let queries = keys::interleaved(&ks, &keys::non_members(2, 30_000));
    let one: Vec<bool> = queries.iter().map(|q| filter.contains(q)).collect();
    let batch: Vec<bool> = filter.contains_batch(&queries).collect();
    assert_eq!(one, batch);
    let hashes: Vec<u64> = queries
        .iter()
        .map(|q| filter.hasher().hash_key(q))
        .collect();
    let batch: Vec<bool> = filter.contains_hash_batch(hashes).collect();
    assert_eq!(one, batch);
}

#[test]
fn the_filter_trait_answers_as_contains() {
    fn through<F: Filter<u64>>(f: &F, k: &u64) -> bool {
        f.contains(k)
    }
    let ks = keys::members(4, 1000);
    let filter = Ribbon::from_keys_with_fpr(&ks, 0.01).unwrap();
    assert!(ks.iter().all(|k| through(&filter, k)));
    assert_eq!(Filter::<u64>::memory_bytes(&filter), filter.memory_bytes());
}

#[test]
fn bad_rates_are_refused_naming_the_range() {
    let ks = keys::members(1, 10);
    for fpr in [0.0, -0.1, 0.6, 1.0, f64::NAN, 1e-10] {
        match Ribbon::from_keys_with_fpr(&ks, fpr) {
            Err(e @ Error::InvalidParameter { .. }) => {
                assert!(e.to_string().contains("fpr"), "{e}");
            }
            other => panic!("fpr {fpr}: {other:?}"),
        }
    }
}

#[test]
fn bytes_round_trip_and_bad_bytes_are_refused() {
    let ks = keys::members(9, 3_000);
    let filter = Ribbon::from_keys_with_fpr(&ks, 0.007).unwrap();
    let bytes = filter.to_bytes();
    let loaded = Ribbon::from_bytes(&bytes).unwrap();
    assert_eq!(loaded, filter);
    assert_eq!(loaded.to_bytes(), bytes);

    // Truncated, extended, flipped.
    for cut in [0, 10, HEADER_BYTES, bytes.len() / 2, bytes.len() - 1] {
        assert!(Ribbon::from_bytes(&bytes[..cut]).is_err(), "cut {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Ribbon::from_bytes(&longer).is_err());
    for at in [0, 9, HEADER_BYTES + 3, bytes.len() / 2, bytes.len() - 1] {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x10;
        assert!(Ribbon::from_bytes(&flipped).is_err(), "flip at {at}");
    }

    // Another kind, another hasher.
    let mut other = bytes.clone();
    other[8..10].copy_from_slice(&(FilterKind::BinaryFuse8 as u16).to_le_bytes());
    reseal(&mut other);
    assert!(matches!(
        Ribbon::from_bytes(&other),
        Err(Error::WrongKind {
            expected: "Ribbon",
            found: "BinaryFuse8"
        })
    ));
    assert!(matches!(
        Ribbon::from_bytes_with_hasher(&bytes, PortableHasher::with_seed(1)),
        Err(Error::HasherMismatch)
    ));

    // Self-consistent lies with a recomputed checksum.
    let lie = |at: usize, value: &[u8]| {
        let mut b = bytes.clone();
        b[at..at + value.len()].copy_from_slice(value);
        reseal(&mut b);
        Ribbon::from_bytes(&b)
    };
    for blocks in [0u64, 1, 1 << 60, u64::MAX] {
        assert!(
            lie(BLOCKS, &blocks.to_le_bytes()).is_err(),
            "blocks {blocks}"
        );
    }
    for columns in [0u32, 3, 33, u32::MAX] {
        assert!(
            lie(COLUMNS, &columns.to_le_bytes()).is_err(),
            "columns {columns}"
        );
    }
    for upper in [0u64, 1 << 40, u64::MAX] {
        assert!(
            lie(UPPER_START, &upper.to_le_bytes()).is_err(),
            "upper_start {upper}"
        );
    }
    for words in [0u64, 2, 1 << 60] {
        assert!(lie(WORDS, &words.to_le_bytes()).is_err(), "words {words}");
    }
    assert!(
        lie(HEADER_BYTES + 8, &u64::MAX.to_le_bytes()).is_err(),
        "keys"
    );
}

/// Any byte string, resealed: never a panic, and any filter that loads
/// answers every query without panicking.
#[test]
fn crafted_bytes_never_panic() {
    let ks = keys::members(12, 500);
    let bytes = Ribbon::from_keys_with_fpr(&ks, 0.05).unwrap().to_bytes();
    let mut state = 0x1234_5678u64;
    for _ in 0..3_000 {
        let mut b = bytes.clone();
        for _ in 0..3 {
            state = filter_core::mix64(state.wrapping_add(1));
            let at = HEADER_BYTES + (state as usize % (b.len() - HEADER_BYTES));
            b[at] = (state >> 40) as u8;
        }
        reseal(&mut b);
        if let Ok(f) = Ribbon::from_bytes(&b) {
            for q in 0..200u64 {
                let _ = f.contains(&q);
            }
        }
    }
}
