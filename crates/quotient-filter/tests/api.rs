//! The public surface: hashes and keys agree, batches agree with one-by-one
//! calls, colliding keys are separate copies, merge sums, serde round trips.

use filter_core::testing::keys::{members, non_members};
use quotient_filter::{
    BatchContains, BatchInsert, BatchRemove, Filter, KeyHasher, QuotientFilter, Remove,
};

#[test]
fn keys_and_their_hashes_agree() {
    let mut filter = QuotientFilter::with_fpr(10_000, 0.01).unwrap();
    let keys = members(7, 5_000);
    for k in &keys[..2_500] {
        filter.insert(k).unwrap();
    }
    for k in &keys[2_500..] {
        filter.insert_hash(filter.hasher().hash_key(k)).unwrap();
    }
    for k in keys.iter().chain(&non_members(7, 5_000)) {
        let h = filter.hasher().hash_key(k);
        assert_eq!(filter.contains(k), filter.contains_hash(h));
        assert_eq!(filter.count(k), filter.count_hash(h));
    }
    let h = filter.hasher().hash_key(&keys[0]);
    assert!(filter.remove_hash(h));
    assert!(!filter.contains(&keys[0]) || filter.count(&keys[0]) == 0 || filter.count_hash(h) > 0);
}

#[test]
fn batches_answer_as_one_by_one() {
    let keys = members(8, 20_000);
    let miss = non_members(8, 20_000);
    let mut a = QuotientFilter::with_fpr(20_000, 0.001).unwrap();
    let mut b = a.clone();
    for k in &keys {
        a.insert(k).unwrap();
    }
    b.insert_batch(keys.iter()).unwrap();
    assert_eq!(a.to_bytes(), b.to_bytes());
    let one: Vec<bool> = keys.iter().chain(&miss).map(|k| a.contains(k)).collect();
    let batch: Vec<bool> = a.contains_batch(keys.iter().chain(&miss)).collect();
    assert_eq!(one, batch);
    let hashes: Vec<u64> = miss.iter().map(|k| a.hasher().hash_key(k)).collect();
    let by_hash: Vec<bool> = a.contains_hash_batch(hashes.iter().copied()).collect();
    assert_eq!(&one[keys.len()..], &by_hash[..]);
    assert_eq!(b.remove_batch(keys[..100].iter()), 100);
    for k in &keys[..100] {
        assert!(Remove::remove(&mut a, k));
    }
    assert_eq!(a.to_bytes(), b.to_bytes());
    assert!(Filter::<u64>::memory_bytes(&a) > 0);
}

#[test]
fn keys_whose_fingerprints_collide_are_two_copies() {
    // A tiny space, so that colliding keys are easy to find.
    let mut filter = QuotientFilter::with_fpr(4, 0.5).unwrap();
    filter.insert(&0u64).unwrap();
    let twin = (1u64..).find(|k| filter.contains(k)).unwrap();
    filter.insert(&twin).unwrap();
    assert_eq!(filter.count(&0u64), 2);
    assert!(filter.remove(&0u64));
    assert!(filter.contains(&twin));
    assert!(filter.contains(&0u64));
    assert!(filter.remove(&twin));
    assert!(!filter.contains(&twin));
    assert!(filter.is_empty());
}

#[test]
fn merge_is_the_multiset_sum() {
    let mut a = QuotientFilter::with_fpr(1_000, 0.001).unwrap();
    let mut b = QuotientFilter::with_fpr(1_000, 0.001).unwrap();
    for i in 0..300u64 {
        a.insert(&i).unwrap();
        b.insert(&(i + 150)).unwrap();
    }
    b.grow().unwrap();
    for _ in 0..5 {
        b.insert("five").unwrap();
    }
    a.merge(&b).unwrap();
    assert_eq!(a.len(), 605);
    assert_eq!(a.count("five"), 5);
    assert_eq!(a.count(&0u64), 1);
    assert_eq!(a.count(&200u64), 2);
    assert_eq!(a.count(&400u64), 1);
    assert_eq!(a.quotients(), b.quotients());
}

#[test]
fn growable_filters_double_instead_of_failing() {
    let mut filter = QuotientFilter::growable_with_fpr(100, 0.01, 2).unwrap();
    assert!(filter.is_growable());
    let q = filter.quotients();
    for k in 0..1_000u64 {
        filter.insert(&k).unwrap();
    }
    assert!(filter.quotients() >= 8 * q);
    assert!((0..1_000u64).all(|k| filter.contains(&k)));
    let reloaded = QuotientFilter::from_bytes(&filter.to_bytes()).unwrap();
    assert!(reloaded.is_growable());
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trips_through_the_bytes() {
    let mut filter = QuotientFilter::with_fpr(100, 0.01).unwrap();
    filter.insert("a").unwrap();
    let json = serde_json::to_string(&filter).unwrap();
    let back: QuotientFilter = serde_json::from_str(&json).unwrap();
    assert_eq!(back.to_bytes(), filter.to_bytes());
    assert!(serde_json::from_str::<QuotientFilter>("[1, 2, 3]").is_err());
}
