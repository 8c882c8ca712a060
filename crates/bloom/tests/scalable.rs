//! `ScalableBloomFilter`: no false negatives across growth, the rate at
//! most the target at every size, the memory cap, bad input and bytes.
//!
//! Rate tolerance, for every assertion below: q non-member queries give a
//! binomial proportion with σ = √(p(1 − p)/q); a correct filter's rate is at
//! most p (the stages' rates sum to less than p), so the bound is p + 4σ: a
//! correct filter fails with probability about 3·10^−5 per assertion, and
//! with fixed seeds the outcome is deterministic anyway.
//!
//! The 10^7-key run is `#[ignore]`d to keep the suite fast; run it with
//! `cargo test --release -p bloom --test scalable -- --ignored`.

// quickcheck hands properties their generated input by value.
#![allow(clippy::needless_pass_by_value)]

use bloom::{
    BatchContains, BatchInsert, BloomFilter, Error, KeyHasher, PortableHasher, ScalableBloomFilter,
};
use filter_core::testing::keys;
use filter_core::testing::oracle::{Codec, Harness, Op};
use quickcheck::{QuickCheck, TestResult};

fn bound(p: f64, q: usize) -> f64 {
    p + 4.0 * (p * (1.0 - p) / q as f64).sqrt()
}

/// Grows a filter from 1,000 keys, checking at each of `checkpoints` that
/// every key is present and the measured rate is within the bound; returns
/// (keys, measured rate, bits per key) at each checkpoint.
fn grow_and_measure(fpr: f64, checkpoints: &[u64], queries: usize) -> Vec<(u64, f64, f64)> {
    let mut f = ScalableBloomFilter::with_fpr(1_000, fpr).unwrap();
    let mut inserted = 0u64;
    let mut out = Vec::new();
    for &target in checkpoints {
        while inserted < target {
            f.insert(&keys::key(41, inserted)).unwrap();
            inserted += 1;
        }
        assert!(
            (0..inserted).all(|i| f.contains(&keys::key(41, i))),
            "false negative at {inserted} keys"
        );
        let misses = (0..queries as u64)
            .filter(|&i| f.contains(&keys::key(42, i)))
            .count();
        let rate = misses as f64 / queries as f64;
        let limit = bound(fpr, queries);
        assert!(
            rate <= limit,
            "p {fpr} at {inserted} keys: {rate} > {limit}"
        );
        out.push((
            inserted,
            rate,
            f.memory_bytes() as f64 * 8.0 / inserted as f64,
        ));
    }
    out
}

#[test]
fn rate_is_at_most_the_target_from_1e4_to_1e6_keys() {
    // q = 10^6 queries: σ is 1 % of p at p = 1 %, 3 % at 0.1 %.
    for fpr in [0.01, 0.001] {
        let figures = grow_and_measure(fpr, &[10_000, 100_000, 1_000_000], 1_000_000);
        println!("p {fpr}: (keys, rate, bits/key) {figures:?}");
        // The memory the README quotes (deterministic: the stages' sizes).
        let bits_per_key = figures[2].2;
        let quoted = if fpr == 0.01 { 16.5 } else { 21.4 };
        assert!(
            (bits_per_key - quoted).abs() < 0.05,
            "p {fpr}: {bits_per_key}"
        );
    }
}

#[test]
#[ignore = "10^7 keys: about a minute; run with --release -- --ignored"]
fn rate_is_at_most_the_target_at_1e7_keys() {
    for fpr in [0.01, 0.001] {
        let figures = grow_and_measure(fpr, &[10_000_000], 2_000_000);
        let fixed = BloomFilter::with_fpr(10_000_000, fpr).unwrap();
        println!(
            "p {fpr}: grown from 10^3 {figures:?}, sized for 10^7: {:.2} bits/key",
            fixed.memory_bytes() as f64 * 8.0 / 1e7
        );
    }
}

#[test]
fn sequential_prehashed_ids_keep_the_rate() {
    let mut f = ScalableBloomFilter::with_fpr(1_000, 0.01).unwrap();
    for id in 0..100_000u64 {
        f.insert_hash(id << 20).unwrap();
    }
    assert!((0..100_000u64).all(|id| f.contains_hash(id << 20)));
    let q = 200_000;
    let fp = (100_000..100_000 + q as u64)
        .filter(|&id| f.contains_hash(id << 20))
        .count();
    assert!(fp as f64 / q as f64 <= bound(0.01, q), "{fp}");
}

#[test]
fn contains_is_contains_hash_of_the_hashers_hash() {
    let mut f = ScalableBloomFilter::with_fpr(100, 0.01).unwrap();
    let h = PortableHasher::default();
    for url in keys::member_urls(5, 2_000) {
        f.insert(url.as_str()).unwrap();
    }
    assert!(f.stages() > 3);
    for url in keys::member_urls(5, 2_000)
        .iter()
        .chain(&keys::non_member_urls(5, 5_000))
    {
        assert_eq!(
            f.contains(url.as_str()),
            f.contains_hash(h.hash_key(url.as_str()))
        );
    }
    let batched: Vec<bool> = f.contains_batch(keys::member_urls(5, 100)).collect();
    assert!(batched.iter().all(|&b| b));
}

#[test]
fn duplicates_are_not_counted_and_len_counts_added_keys() {
    let mut f = ScalableBloomFilter::with_fpr(10, 0.01).unwrap();
    assert!(f.is_empty());
    assert!(f.insert("a").unwrap());
    assert!(!f.insert("a").unwrap());
    assert_eq!(f.len(), 1);
    for i in 0..1000u64 {
        f.insert(&i).unwrap();
    }
    assert!(f.len() <= 1001 && f.len() > 990, "{}", f.len());
    // 10, 20, 40, ... : 1,001 keys need 7 stages.
    assert_eq!(f.stages(), 7);
}

#[test]
fn the_memory_cap_is_an_error_not_an_abort() {
    let mut f = ScalableBloomFilter::with_fpr(1_000, 0.01)
        .unwrap()
        .with_max_bytes(10_000);
    let mut result = Ok(true);
    let mut i = 0u64;
    while result.is_ok() && i < 1_000_000 {
        result = f.insert(&i);
        i += 1;
    }
    assert_eq!(result, Err(Error::Full));
    assert!(f.memory_bytes() <= 10_000);
    // Every key added before the refusal is still there, and the refused
    // one was not added.
    assert!((0..i - 1).all(|k| f.contains(&k)));
    assert_eq!(f.insert(&(i - 1)), Err(Error::Full));
    // Through the Insert trait too.
    assert_eq!(
        filter_core::Insert::insert(&mut f, &u64::MAX),
        Err(Error::Full)
    );
}

#[test]
fn bad_parameters_name_themselves() {
    let name = |r: Result<ScalableBloomFilter, Error>| match r.unwrap_err() {
        Error::InvalidParameter { name, .. } => name,
        e => panic!("{e}"),
    };
    assert_eq!(
        name(ScalableBloomFilter::with_fpr(0, 0.01)),
        "initial_items"
    );
    assert_eq!(name(ScalableBloomFilter::with_fpr(10, 0.0)), "fpr");
    assert_eq!(name(ScalableBloomFilter::with_fpr(10, f64::NAN)), "fpr");
    assert_eq!(
        name(ScalableBloomFilter::with_growth(10, 0.01, 1, 0.85)),
        "growth_factor"
    );
    assert_eq!(
        name(ScalableBloomFilter::with_growth(10, 0.01, 17, 0.85)),
        "growth_factor"
    );
    assert_eq!(
        name(ScalableBloomFilter::with_growth(10, 0.01, 2, 1.0)),
        "tightening_ratio"
    );
    assert_eq!(
        name(ScalableBloomFilter::with_growth(10, 0.01, 2, 0.0)),
        "tightening_ratio"
    );
    assert!(ScalableBloomFilter::with_growth(10, 0.01, 4, 0.5).is_ok());
}

fn grown() -> ScalableBloomFilter {
    let mut f = ScalableBloomFilter::with_growth(50, 0.01, 3, 0.8).unwrap();
    for i in 0..2_000u64 {
        f.insert(&keys::key(3, i)).unwrap();
    }
    f
}

#[test]
fn bytes_round_trip_and_refuse_what_is_not_theirs() {
    let f = grown();
    let bytes = f.to_bytes();
    let back = ScalableBloomFilter::from_bytes(&bytes).unwrap();
    assert_eq!(back.to_bytes(), bytes);
    assert_eq!((back.len(), back.stages()), (f.len(), f.stages()));
    assert!((0..2_000u64).all(|i| back.contains(&keys::key(3, i))));
    // It keeps growing after a reload, as the original does.
    let mut a = back;
    let mut b = f.clone();
    for i in 2_000..5_000u64 {
        assert_eq!(a.insert(&keys::key(3, i)), b.insert(&keys::key(3, i)));
    }
    assert_eq!(a.to_bytes(), b.to_bytes());

    // Every truncation and every flipped bit is refused.
    for cut in 0..bytes.len() {
        assert!(
            ScalableBloomFilter::from_bytes(&bytes[..cut]).is_err(),
            "cut {cut}"
        );
    }
    for bit in (0..bytes.len() * 8).step_by(7) {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert!(
            ScalableBloomFilter::from_bytes(&flipped).is_err(),
            "bit {bit}"
        );
    }
    // Another kind, another hasher.
    let classic = BloomFilter::with_fpr(10, 0.01).unwrap().to_bytes();
    assert_eq!(
        ScalableBloomFilter::from_bytes(&classic).unwrap_err(),
        Error::WrongKind {
            expected: "ScalableBloomFilter",
            found: "BloomFilter"
        }
    );
    assert!(matches!(
        BloomFilter::from_bytes(&bytes),
        Err(Error::WrongKind { .. })
    ));
    assert_eq!(
        ScalableBloomFilter::from_bytes_with_hasher(&bytes, PortableHasher::with_seed(1))
            .unwrap_err(),
        Error::HasherMismatch
    );
}

#[test]
fn resealed_lies_are_refused() {
    use filter_core::format::{HEADER_BYTES, reseal};
    let bytes = grown().to_bytes();
    // Body: initial_items u64 @0, fpr @8, growth u32 @16, tightening @20,
    // max_bytes @28, newest keys @36, stages @44, then the stage arrays.
    let lie = |at: usize, value: &[u8]| {
        let mut b = bytes.clone();
        b[HEADER_BYTES + at..HEADER_BYTES + at + value.len()].copy_from_slice(value);
        reseal(&mut b);
        ScalableBloomFilter::from_bytes(&b)
    };
    assert!(lie(0, &0u64.to_le_bytes()).is_err());
    assert!(lie(0, &u64::MAX.to_le_bytes()).is_err());
    assert!(lie(8, &2.0f64.to_le_bytes()).is_err());
    assert!(lie(16, &1u32.to_le_bytes()).is_err());
    assert!(lie(20, &1.5f64.to_le_bytes()).is_err());
    assert!(lie(36, &u64::MAX.to_le_bytes()).is_err());
    assert!(lie(44, &0u64.to_le_bytes()).is_err());
    assert!(lie(44, &(1u64 << 60).to_le_bytes()).is_err());
    assert!(lie(52, &(1u64 << 60).to_le_bytes()).is_err());
}

#[test]
fn equality_is_equality_of_bytes() {
    let f = grown();
    let mut g = ScalableBloomFilter::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(f, g);
    assert!(g.insert(&u64::MAX).unwrap());
    assert_ne!(f, g);
    // The same keys under another hasher, cap or tightening ratio: not
    // equal.
    let mut seeded =
        ScalableBloomFilter::with_growth_and_hasher(50, 0.01, 3, 0.8, PortableHasher::with_seed(1))
            .unwrap();
    for i in 0..2_000u64 {
        seeded.insert(&keys::key(3, i)).unwrap();
    }
    assert_ne!(seeded, f);
    assert_ne!(f.clone().with_max_bytes(1 << 30), f);
    let mut other_growth = ScalableBloomFilter::with_growth(50, 0.01, 3, 0.85).unwrap();
    for i in 0..2_000u64 {
        other_growth.insert(&keys::key(3, i)).unwrap();
    }
    assert_ne!(other_growth, f);
}

/// Keys for the batch tests: duplicates included, so that a batch's
/// duplicate check (a key reported present is not added) sees keys added
/// earlier in the same batch.
fn batch_keys(n: u64) -> Vec<u64> {
    (0..n).map(|i| keys::key(21, i % (n * 3 / 4))).collect()
}

#[test]
fn batched_inserts_equal_one_by_one_across_growth() {
    let keys = batch_keys(20_000);
    let mut one_by_one = ScalableBloomFilter::with_fpr(100, 0.01).unwrap();
    for k in &keys {
        one_by_one.insert(k).unwrap();
    }
    assert!(one_by_one.stages() > 5);
    let mut batched = ScalableBloomFilter::with_fpr(100, 0.01).unwrap();
    batched.insert_batch(&keys).unwrap();
    assert_eq!(batched, one_by_one);
    assert_eq!(batched.to_bytes(), one_by_one.to_bytes());

    let h = PortableHasher::default();
    let mut hashed = ScalableBloomFilter::with_fpr(100, 0.01).unwrap();
    hashed
        .insert_hash_batch(keys.iter().map(|k| h.hash_key(k)))
        .unwrap();
    assert_eq!(hashed, one_by_one);
}

/// A first stage of more than 8 MiB, so the batch requests each key's
/// memory ahead of its insert: the result is still the one-by-one filter.
#[test]
fn batched_inserts_equal_one_by_one_when_prefetching() {
    let keys = batch_keys(20_000);
    let mut one_by_one = ScalableBloomFilter::with_fpr(6_000_000, 0.01).unwrap();
    assert!(one_by_one.memory_bytes() >= 8 << 20);
    for k in &keys {
        one_by_one.insert(k).unwrap();
    }
    let mut batched = ScalableBloomFilter::with_fpr(6_000_000, 0.01).unwrap();
    batched.insert_batch(&keys).unwrap();
    assert_eq!(batched, one_by_one);
}

/// Past the memory cap a batch stops where one-by-one inserts are first
/// refused: the keys before are added, the refused one and those after are
/// not, and the error is returned.
#[test]
fn a_batch_stops_at_the_memory_cap_with_its_error() {
    let keys: Vec<u64> = (0..100_000).map(|i| keys::key(22, i)).collect();
    let capped = || {
        ScalableBloomFilter::with_fpr(1_000, 0.01)
            .unwrap()
            .with_max_bytes(20_000)
    };
    let mut one_by_one = capped();
    let refused = keys
        .iter()
        .position(|k| one_by_one.insert(k).is_err())
        .expect("the cap is reached");
    let mut batched = capped();
    assert_eq!(batched.insert_batch(&keys), Err(Error::Full));
    assert_eq!(batched, one_by_one);
    assert!(keys[..refused].iter().all(|k| batched.contains(k)));
    assert!(batched.memory_bytes() <= 20_000);
}

fn codec() -> Option<Codec<ScalableBloomFilter>> {
    Some(Codec {
        to_bytes: ScalableBloomFilter::to_bytes,
        from_bytes: ScalableBloomFilter::from_bytes,
    })
}

/// Starts at 4 keys, so that up to 256 distinct keys take several stages.
fn scalable_u64(ops: Vec<Op>) -> TestResult {
    let h = Harness {
        key: |i| keys::key(11, i),
        codec: codec(),
    };
    let f = ScalableBloomFilter::with_fpr(4, 0.05).unwrap();
    match h.run::<u64>(f, &ops) {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(e),
    }
}

fn scalable_str(ops: Vec<Op>) -> TestResult {
    let h = Harness {
        key: |i| keys::url(11, i),
        codec: codec(),
    };
    let f = ScalableBloomFilter::with_growth(3, 0.01, 3, 0.5).unwrap();
    match h.run::<str>(f, &ops) {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(e),
    }
}

#[test]
fn never_forgets_keys_across_growth() {
    QuickCheck::new()
        .tests(200)
        .quickcheck(scalable_u64 as fn(Vec<Op>) -> TestResult);
    QuickCheck::new()
        .tests(200)
        .quickcheck(scalable_str as fn(Vec<Op>) -> TestResult);
}
