//! `insert_batch` and `remove_batch` apply a large batch by one rebuild of
//! the table. These tests hold them to their contract: the filter, and the
//! result, are exactly those of inserting or removing the items one by
//! one, also when a batch meets `Full` part way, when a growable filter
//! doubles, when the filter already holds keys and counts, and when
//! removes ask for keys it does not hold.

use filter_core::mix64;
use quickcheck::{Arbitrary, Gen};
use quotient_filter::{BatchInsert, BatchRemove, Error, QuotientFilter};

/// A filter, a prefill and a batch large enough for the rebuild.
#[derive(Clone, Debug)]
struct Case {
    /// `expected_items` of the filter: small ones meet `Full`.
    capacity: usize,
    /// Planned doublings of a growable filter; `None` for a fixed one.
    doublings: Option<u32>,
    /// Keys inserted one by one first (a key may repeat: counts).
    prefill: Vec<u64>,
    /// The batch: at least the 256 items below which batches go one by
    /// one, drawn from few distinct keys so that some repeat many times.
    batch: Vec<u64>,
}

impl Arbitrary for Case {
    fn arbitrary(g: &mut Gen) -> Self {
        let capacity = 50 + usize::from(u16::arbitrary(g) % 4000);
        let doublings = bool::arbitrary(g).then(|| u32::from(u8::arbitrary(g) % 4));
        let distinct = 1 + u64::from(u16::arbitrary(g) % 5000);
        let seed = u64::arbitrary(g);
        let key = move |i: u64| mix64(seed ^ i) % distinct;
        let prefill = (0..u64::from(u8::arbitrary(g)) * 4).map(key).collect();
        let len = 256 + u64::from(u16::arbitrary(g) % 6000);
        let batch = (1000..1000 + len).map(key).collect();
        Case {
            capacity,
            doublings,
            prefill,
            batch,
        }
    }
}

impl Case {
    fn filter(&self) -> QuotientFilter {
        let mut filter = match self.doublings {
            Some(d) => QuotientFilter::growable_with_fpr(self.capacity, 0.01, d),
            None => QuotientFilter::with_fpr(self.capacity, 0.01),
        }
        .expect("valid sizes");
        for k in &self.prefill {
            // A prefill past a fixed filter's room stops at `Full`, as the
            // batch will for both filters alike.
            if filter.insert(k).is_err() {
                break;
            }
        }
        filter
    }
}

/// Inserts `items` one by one, stopping at the first error, as
/// `insert_batch` documents.
fn one_by_one(filter: &mut QuotientFilter, items: &[u64]) -> Result<(), Error> {
    items.iter().try_for_each(|k| filter.insert(k))
}

/// The filter `insert_batch` left and its result agree with those of
/// one-by-one inserts, byte for byte.
fn agree(
    batched: &QuotientFilter,
    got: &Result<(), Error>,
    single: &QuotientFilter,
    expected: &Result<(), Error>,
) -> Result<(), String> {
    if got != expected {
        return Err(format!(
            "insert_batch returned {got:?}, one by one {expected:?}"
        ));
    }
    if batched.to_bytes() != single.to_bytes() {
        return Err(format!(
            "the filters differ: {} and {} items, {} and {} quotients",
            batched.len(),
            single.len(),
            batched.quotients(),
            single.quotients()
        ));
    }
    Ok(())
}

quickcheck::quickcheck! {
    fn insert_batch_ends_as_one_by_one(case: Case) -> Result<(), String> {
        let mut single = case.filter();
        let mut batched = single.clone();
        let expected = one_by_one(&mut single, &case.batch);
        let got = batched.insert_batch(case.batch.iter());
        agree(&batched, &got, &single, &expected)
    }

    fn insert_hash_batch_ends_as_insert_hash(case: Case) -> Result<(), String> {
        let mut single = case.filter();
        let mut batched = single.clone();
        let expected = case.batch.iter().try_for_each(|&h| single.insert_hash(h));
        let got = batched.insert_hash_batch(case.batch.iter().copied());
        agree(&batched, &got, &single, &expected)
    }
}

/// Removes `items` one by one; how many removals succeeded.
fn remove_one_by_one(filter: &mut QuotientFilter, items: &[u64]) -> usize {
    items.iter().filter(|k| filter.remove(*k)).count()
}

quickcheck::quickcheck! {
    fn remove_batch_ends_as_one_by_one(case: Case) -> Result<(), String> {
        // The batch goes in first (up to `Full`), so that removes find
        // keys with one copy and with many; the prefill's keys, asked
        // again, and the batch's, asked once more than they went in, make
        // removes of keys with no copy left.
        let mut single = case.filter();
        let _ = one_by_one(&mut single, &case.batch);
        let mut batched = single.clone();
        let removes: Vec<u64> = case.batch.iter().chain(&case.prefill).chain(&case.prefill).copied().collect();
        let expected = remove_one_by_one(&mut single, &removes);
        let got = batched.remove_batch(removes.iter());
        if got != expected {
            return Err(format!("remove_batch removed {got}, one by one {expected}"));
        }
        agree(&batched, &Ok(()), &single, &Ok(()))
    }

    fn remove_hash_batch_ends_as_remove_hash(case: Case) -> Result<(), String> {
        let mut single = case.filter();
        let _ = case.batch.iter().try_for_each(|&h| single.insert_hash(h));
        let mut batched = single.clone();
        let expected = case.batch.iter().filter(|&&h| single.remove_hash(h)).count();
        let got = batched.remove_hash_batch(case.batch.iter().copied());
        if got != expected {
            return Err(format!("remove_hash_batch removed {got}, one by one {expected}"));
        }
        agree(&batched, &Ok(()), &single, &Ok(()))
    }
}

/// The cases the quickcheck draws, at fixed points: a batch that fills a
/// fixed filter part way and then meets `Full`, and one that makes a
/// growable filter double three times (taken in chunks of its quotients,
/// which grow as it doubles).
#[test]
fn full_and_doubling_batches_end_as_one_by_one() {
    let keys: Vec<u64> = (0..5_000).collect();
    let mut fixed = QuotientFilter::with_fpr(3_000, 0.01).unwrap();
    let mut fixed_single = fixed.clone();
    let expected = one_by_one(&mut fixed_single, &keys);
    assert_eq!(expected, Err(Error::Full));
    let got = fixed.insert_batch(keys.iter());
    agree(&fixed, &got, &fixed_single, &expected).unwrap();
    assert!(fixed.len() > 2_900, "{}", fixed.len());

    let mut growable = QuotientFilter::growable_with_fpr(1_200, 0.01, 3).unwrap();
    let mut growable_single = growable.clone();
    let quotients = growable.quotients();
    let expected = one_by_one(&mut growable_single, &keys);
    let got = growable.insert_batch(keys.iter());
    agree(&growable, &got, &growable_single, &expected).unwrap();
    assert_eq!(growable.quotients(), 8 * quotients);
    assert!(keys.iter().all(|k| growable.contains(k)));
}

/// A key counted u64::MAX times takes no more copies: in a growable
/// filter too, whose insert may double the table first, a failed insert
/// or batch leaves the filter as it was.
#[test]
fn a_count_at_its_largest_refuses_more_and_changes_nothing() {
    let mut filter = QuotientFilter::growable_with_fpr(100, 0.01, 2).unwrap();
    filter.insert(&7u64).unwrap();
    // c -> 2c + 1, from 1 to 2^64 - 1 in 63 steps.
    for _ in 0..63 {
        let copy = filter.clone();
        filter.merge(&copy).unwrap();
        filter.insert(&7u64).unwrap();
    }
    assert_eq!(filter.count(&7u64), u64::MAX);
    let before = filter.to_bytes();
    assert_eq!(filter.insert(&7u64), Err(Error::Full));
    assert!(
        filter.to_bytes() == before,
        "a failed insert changed the filter"
    );
    let batch = vec![7u64; 300];
    assert_eq!(filter.insert_batch(batch.iter()), Err(Error::Full));
    assert!(
        filter.to_bytes() == before,
        "a failed batch changed the filter"
    );
}
