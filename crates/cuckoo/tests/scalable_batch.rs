//! `ScalableCuckooFilter`'s batches: batched inserts and removals leave the
//! filter equal (every stage, byte for byte) to the one that one-by-one
//! inserts and removals leave, across growth, below and above the
//! prefetching threshold; a batch stops where one-by-one inserts would
//! first fail, with their error.

use cuckoo::{
    BatchContains, BatchInsert, BatchRemove, Error, KeyHasher, MAX_COPIES, ScalableCuckooFilter,
};
use filter_core::batch::PREFETCH_MIN_BYTES;
use filter_core::testing::keys;
use quickcheck::quickcheck;

/// `keys` inserted one by one into `filter`; the first error, if any.
fn insert_each(filter: &mut ScalableCuckooFilter, keys: &[u64]) -> Result<(), Error> {
    keys.iter().try_for_each(|k| filter.insert(k))
}

/// `keys` removed one by one from `filter`: how many removals succeeded.
fn remove_each(filter: &mut ScalableCuckooFilter, keys: &[u64]) -> usize {
    keys.iter().filter(|k| filter.remove(*k)).count()
}

/// Members with copies: key `i % distinct`, so every key after the first
/// `distinct` is a second (or third) copy, often inserted after the filter
/// grew, so that two stages hold it.
fn with_copies(seed: u64, n: usize, distinct: usize) -> Vec<u64> {
    let members = keys::members(seed, distinct);
    (0..n).map(|i| members[i % distinct]).collect()
}

#[test]
fn batched_inserts_and_removes_equal_one_by_one_across_growth() {
    let inserted = with_copies(5, 30_000, 20_000);
    let mut one_by_one = ScalableCuckooFilter::with_fpr(100, 0.01).unwrap();
    insert_each(&mut one_by_one, &inserted).unwrap();
    assert!(one_by_one.stages() >= 5, "{one_by_one:?}");

    let mut batched = ScalableCuckooFilter::with_fpr(100, 0.01).unwrap();
    batched.insert_batch(&inserted).unwrap();
    assert_eq!(batched, one_by_one);
    assert_eq!(batched.to_bytes(), one_by_one.to_bytes());

    let hasher = *one_by_one.hasher();
    let mut hashed = ScalableCuckooFilter::with_fpr(100, 0.01).unwrap();
    hashed
        .insert_hash_batch(inserted.iter().map(|k| hasher.hash_key(k)))
        .unwrap();
    assert_eq!(hashed, one_by_one);

    // Every other inserted key, once, keys with two copies in two stages
    // among them: every removal succeeds, one by one and batched alike.
    let removed: Vec<u64> = inserted.iter().step_by(2).copied().collect();
    let expected = remove_each(&mut one_by_one, &removed);
    assert_eq!(expected, removed.len(), "an inserted key was not removed");
    assert_eq!(batched.remove_batch(&removed), expected);
    assert_eq!(batched, one_by_one);
    assert_eq!(
        hashed.remove_hash_batch(removed.iter().map(|k| hasher.hash_key(k))),
        expected
    );
    assert_eq!(hashed, one_by_one);
    // No false negatives: every copy not removed is still found.
    let asked = keys::interleaved(&inserted, &keys::non_members(5, 30_000));
    assert!(
        batched
            .contains_batch(&asked)
            .eq(asked.iter().map(|k| batched.contains(k)))
    );
}

/// A first stage of more than [`PREFETCH_MIN_BYTES`]: the batches request
/// each key's buckets ahead, and still leave the one-by-one filter.
#[test]
fn batches_equal_one_by_one_when_prefetching() {
    let inserted = with_copies(6, 20_000, 15_000);
    let mut one_by_one = ScalableCuckooFilter::with_fpr(6_000_000, 0.01).unwrap();
    assert!(one_by_one.memory_bytes() >= PREFETCH_MIN_BYTES);
    insert_each(&mut one_by_one, &inserted).unwrap();
    let mut batched = ScalableCuckooFilter::with_fpr(6_000_000, 0.01).unwrap();
    batched.insert_batch(&inserted).unwrap();
    assert_eq!(batched, one_by_one);

    let removed: Vec<u64> = inserted.iter().step_by(3).copied().collect();
    let expected = remove_each(&mut one_by_one, &removed);
    assert_eq!(batched.remove_batch(&removed), expected);
    assert_eq!(batched, one_by_one);
}

/// Past the memory limit, and at the copy limit: a batch returns the error
/// the first failing one-by-one insert returns, with the keys before it
/// inserted and the rest not.
#[test]
fn a_batch_stops_at_the_first_error_of_one_by_one_inserts() {
    let inserted = keys::members(7, 200_000);
    let limited = || {
        let mut filter = ScalableCuckooFilter::with_fpr(1_000, 0.01).unwrap();
        filter.set_memory_limit(12_000);
        filter
    };
    let mut one_by_one = limited();
    let error = insert_each(&mut one_by_one, &inserted).unwrap_err();
    assert_eq!(error, Error::Full);
    let mut batched = limited();
    assert_eq!(batched.insert_batch(&inserted), Err(error));
    assert_eq!(batched, one_by_one);
    assert!(
        inserted[..batched.len()]
            .iter()
            .all(|k| batched.contains(k))
    );

    let copies = vec![42u64; MAX_COPIES + 3];
    let mut one_by_one = ScalableCuckooFilter::with_fpr(1_000, 0.01).unwrap();
    let error = insert_each(&mut one_by_one, &copies).unwrap_err();
    assert!(matches!(error, Error::TooManyCopies { .. }), "{error}");
    let mut batched = ScalableCuckooFilter::with_fpr(1_000, 0.01).unwrap();
    assert_eq!(batched.insert_batch(&copies), Err(error));
    assert_eq!(batched.len(), MAX_COPIES);
    assert_eq!(batched, one_by_one);
}

quickcheck! {
    /// Any sequence of batched inserts and removes of 64 keys from a
    /// 2-item first stage (so that stages open, copies pile up to their
    /// limit and removals are refused): the same results and the same
    /// filter as one by one. Removes may name keys with no copy left: the
    /// property is that the two paths agree, whatever they do.
    fn random_batches_equal_one_by_one(batches: Vec<(bool, Vec<u8>)>) -> bool {
        let mut one_by_one = ScalableCuckooFilter::with_fpr(2, 0.01).unwrap();
        let mut batched = ScalableCuckooFilter::with_fpr(2, 0.01).unwrap();
        batches.into_iter().all(|(insert, raw)| {
            let keys: Vec<u64> = raw.iter().map(|&b| u64::from(b % 64)).collect();
            let same_result = if insert {
                insert_each(&mut one_by_one, &keys) == batched.insert_batch(&keys)
            } else {
                remove_each(&mut one_by_one, &keys) == batched.remove_batch(&keys)
            };
            same_result && batched == one_by_one
        })
    }
}
