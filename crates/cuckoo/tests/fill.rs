//! Filling to `Full`: no item is lost on the way, at `Full`, after further
//! failed inserts, or after removes put the victim back; and the load reached
//! before the first `Full`.

use cuckoo::{CuckooFilter, Error, MAX_COPIES};
use filter_core::testing::keys;

/// Inserts `keys` until the first `Full`; returns how many went in.
fn fill(filter: &mut CuckooFilter, keys: &[u64]) -> usize {
    for (i, k) in keys.iter().enumerate() {
        match filter.insert(k) {
            Ok(()) => {}
            Err(Error::Full) => return i,
            Err(e) => panic!("insert failed with {e}"),
        }
    }
    keys.len()
}

fn assert_all_found(filter: &CuckooFilter, keys: &[u64], what: &str) {
    let missing = keys.iter().filter(|k| !filter.contains(*k)).count();
    assert_eq!(missing, 0, "{what}: {missing} false negatives");
}

#[test]
fn fill_to_full_from_many_seeds_loses_nothing() {
    // Odd and even bucket counts, narrow and wide fingerprints.
    let shapes = [
        (101, 4),
        (256, 6),
        (500, 8),
        (999, 10),
        (1500, 12),
        (777, 16),
    ];
    for seed in 0..40u64 {
        let (buckets, bits) = shapes[seed as usize % shapes.len()];
        let mut filter = CuckooFilter::with_buckets(buckets, bits).unwrap();
        let keys = keys::members(seed, buckets * 5);
        let stored = fill(&mut filter, &keys);
        assert!(filter.is_full(), "seed {seed}: Full without a victim");
        assert_eq!(filter.len(), stored);
        let (ins, out) = keys.split_at(stored);
        assert_all_found(&filter, ins, "at Full");

        // Further inserts fail and change nothing.
        let before = filter.to_bytes();
        for k in out.iter().take(200) {
            assert_eq!(filter.insert(k), Err(Error::Full));
        }
        assert_eq!(
            filter.to_bytes(),
            before,
            "seed {seed}: a failed insert changed the filter"
        );
        assert_all_found(&filter, ins, "after failed inserts");

        // Removes free room: once a freed slot is reachable from the
        // victim's buckets by a chain of moves, the victim goes back and
        // inserts work again. (A freed slot in a part of the table the victim
        // cannot reach does not help; that is rare.)
        let mut removed = 0;
        while filter.is_full() {
            assert!(
                filter.remove(&ins[removed]),
                "seed {seed}: remove of a present key failed"
            );
            removed += 1;
            assert_all_found(&filter, &ins[removed..], "after a remove while full");
        }
        assert_eq!(filter.len(), stored - removed);
        assert!(
            removed <= 20,
            "seed {seed}: {removed} removes before the victim went back"
        );
        assert!(filter.insert(&out[0]).is_ok());
        assert!(filter.remove(&out[0]));

        // Remove half; everything left is still there; refill.
        for k in &ins[removed..stored / 2] {
            assert!(
                filter.remove(k),
                "seed {seed}: remove of a present key failed"
            );
        }
        assert_all_found(&filter, &ins[stored / 2..], "after removing half");
        let again = fill(&mut filter, out);
        assert_all_found(&filter, &ins[stored / 2..], "after refilling");
        assert_all_found(&filter, &out[..again], "after refilling");
    }
}

#[test]
fn load_factor_before_first_full() {
    // Large tables: the paper's random walk alone reaches ≈ 95 % with b = 4;
    // the breadth-first fallback after a failed walk adds about two points
    // (≈ 97 %), at every width: the alternate-offset rule is the same for
    // all. Runs of 40,004 slots; the lowest load seen is asserted above
    // 96 %, all are printed.
    for bits in [4, 6, 8, 12, 16] {
        let mut loads: Vec<f64> = (0..3u64)
            .map(|seed| {
                let mut filter = CuckooFilter::with_buckets(10_001, bits).unwrap();
                let stored = fill(&mut filter, &keys::members(seed, 50_000));
                stored as f64 / filter.slots() as f64
            })
            .collect();
        loads.sort_by(f64::total_cmp);
        println!("{bits}-bit fingerprints: load before first Full {loads:.4?}");
        assert!(loads[0] > 0.96, "{bits} bits: {loads:?}");
    }
}

#[test]
fn with_fpr_accepts_n_inserts_for_many_n_and_seeds() {
    // The promise of `with_fpr`: n distinct inserts never see `Full`.
    for (seed, n) in (0..300u64).zip((1..150).chain([1000, 9_999, 20_000]).cycle()) {
        for fpr in [0.4, 0.03, 0.0002] {
            let mut filter = CuckooFilter::with_fpr(n, fpr).unwrap();
            let keys = keys::members(seed, n);
            assert_eq!(fill(&mut filter, &keys), n, "n {n} fpr {fpr} seed {seed}");
            assert_all_found(&filter, &keys, "with_fpr");
        }
    }
}

/// Sizes at which evenly spaced alternate offsets (the fingerprint times the
/// golden ratio) make narrow fingerprints meet `Full` before their item
/// count; `mix64` offsets take every item.
#[test]
fn narrow_fingerprints_take_their_items_where_evenly_spaced_offsets_did_not() {
    for (items, bits, seeds) in [(5_000_000, 6, 0..1u64), (479_000, 4, 0..4)] {
        for seed in seeds {
            let mut filter = CuckooFilter::with_capacity(items, bits).unwrap();
            let keys = keys::members(seed, items);
            let stored = fill(&mut filter, &keys);
            assert_eq!(stored, items, "{bits} bits, {items} items, seed {seed}");
        }
    }
}

/// The same failure in a large table of wider fingerprints, where evenly
/// spaced offsets meet `Full` a little before the item count.
#[test]
fn wider_fingerprints_in_large_tables_take_their_items() {
    let items = 30_000_001u64;
    let mut filter = CuckooFilter::with_capacity(items as usize, 7).unwrap();
    for i in 0..items {
        let stored = filter.insert_hash(filter_core::mix64(i));
        assert!(stored.is_ok(), "item {i} of {items}: {stored:?}");
    }
}

#[test]
fn a_ninth_copy_is_too_many_copies_in_a_nearly_empty_filter() {
    for bits in [4, 9, 16] {
        let mut filter = CuckooFilter::with_buckets(50, bits).unwrap();
        filter.insert("other").unwrap();
        for _ in 0..MAX_COPIES {
            filter.insert("dup").unwrap();
        }
        let before = filter.to_bytes();
        let err = filter.insert("dup").unwrap_err();
        assert_eq!(err, Error::TooManyCopies { limit: MAX_COPIES });
        // The message names the limit and the way around it.
        let message = err.to_string();
        assert!(message.contains("at most 8 copies"), "{message}");
        assert!(message.contains("insert_unique"), "{message}");
        // insert_unique never meets the limit.
        assert_eq!(filter.insert_unique("dup"), Ok(false));
        assert_eq!(
            filter.to_bytes(),
            before,
            "the ninth copy changed the filter"
        );
        assert!(
            !filter.is_full(),
            "the copy limit must not occupy the victim slot"
        );
        assert!(filter.insert("third").is_ok());
        for _ in 0..MAX_COPIES {
            assert!(filter.contains("dup"));
            assert!(filter.remove("dup"));
        }
        assert!(!filter.remove("dup"));
        assert!(filter.contains("other") && filter.contains("third"));
        assert_eq!(filter.len(), 2);
    }
}

#[test]
fn insert_unique_adds_once() {
    let mut filter = CuckooFilter::with_fpr(100, 0.01).unwrap();
    assert_eq!(filter.insert_unique("a"), Ok(true));
    assert_eq!(filter.insert_unique("a"), Ok(false));
    assert_eq!(filter.len(), 1);
    assert!(filter.remove("a"));
    assert!(!filter.contains("a"));
}

#[test]
fn prehashed_variants_agree_with_keyed_ones() {
    use cuckoo::KeyHasher;
    let mut a = CuckooFilter::with_fpr(1000, 0.01).unwrap();
    let mut b = CuckooFilter::with_fpr(1000, 0.01).unwrap();
    let hasher = *a.hasher();
    for i in 0..900u64 {
        a.insert(&i).unwrap();
        b.insert_hash(hasher.hash_key(&i)).unwrap();
    }
    assert_eq!(a.to_bytes(), b.to_bytes());
    assert!(b.contains(&5u64) && a.contains_hash(hasher.hash_key(&5u64)));
    assert!(b.remove_hash(hasher.hash_key(&5u64)) && a.remove(&5u64));
    assert_eq!(b.insert_unique_hash(hasher.hash_key(&6u64)), Ok(false));
    assert_eq!(a.to_bytes(), b.to_bytes());
}

#[test]
fn contains_equals_contains_hash_of_hash_key() {
    use cuckoo::{KeyHasher, PortableHasher};
    use std::collections::hash_map::DefaultHasher;
    use std::hash::BuildHasherDefault;
    // The default hasher, a seeded one and a std BuildHasher: the key path
    // and the pre-hashed path meet at the same positions, for members and
    // non-members alike, and across both kinds of key.
    fn check<S: KeyHasher + Clone>(hasher: &S) {
        let mut filter = CuckooFilter::with_fpr_and_hasher(4_000, 0.05, hasher.clone()).unwrap();
        for i in 0..2_000u64 {
            filter.insert(&i).unwrap();
            filter.insert(&format!("key-{i}")).unwrap();
        }
        for i in 0..20_000u64 {
            assert_eq!(
                filter.contains(&i),
                filter.contains_hash(hasher.hash_key(&i))
            );
            let s = format!("key-{i}");
            assert_eq!(
                filter.contains(&s),
                filter.contains_hash(hasher.hash_key(&s))
            );
        }
    }
    check(&PortableHasher::default());
    check(&PortableHasher::with_seed(99));
    check(&BuildHasherDefault::<DefaultHasher>::default());
}

#[test]
fn sequential_prehashed_ids_spread_over_the_table() {
    // A poor user hash (0, 1, 2, ...) is mixed before use, so it fills the
    // table as well as a good one.
    let mut filter = CuckooFilter::with_fpr(100_000, 0.01).unwrap();
    for id in 0..100_000u64 {
        filter.insert_hash(id).unwrap();
    }
    assert!((0..100_000).all(|id| filter.contains_hash(id)));
    let fp = (1u64 << 40..(1 << 40) + 100_000)
        .filter(|&h| filter.contains_hash(h))
        .count();
    assert!(fp < 1000, "{fp} false positives of 100,000");
}

#[test]
fn nine_distinct_items_with_one_fingerprint_and_bucket_pair_are_full() {
    // With 2 buckets every item has the pair {0, 1}, so the keys a 4-bit
    // filter holding only `a` reports present are exactly those with `a`'s
    // fingerprint: eight fit, the ninth distinct one is refused like a ninth
    // copy, with the victim slot empty.
    let mut probe = CuckooFilter::with_buckets(2, 4).unwrap();
    probe.insert(&0u64).unwrap();
    let twins: Vec<u64> = (0u64..).filter(|k| probe.contains(k)).take(9).collect();
    let mut filter = CuckooFilter::with_buckets(2, 4).unwrap();
    for k in &twins[..8] {
        filter.insert(k).unwrap();
    }
    assert_eq!(
        filter.insert(&twins[8]),
        Err(Error::TooManyCopies { limit: MAX_COPIES })
    );
    assert!(!filter.is_full());
    assert!(filter.remove(&twins[0]));
    filter.insert(&twins[8]).unwrap();

    // So at large n, narrow fingerprints would meet such a class, and
    // `with_fpr` widens 4 bits to 5 where that is likely.
    assert_eq!(
        CuckooFilter::with_fpr(400_000, 0.6)
            .unwrap()
            .fingerprint_bits(),
        4
    );
    assert_eq!(
        CuckooFilter::with_fpr(1_000_000, 0.6)
            .unwrap()
            .fingerprint_bits(),
        5
    );
    assert_eq!(
        CuckooFilter::with_fpr(1_000_000, 0.01)
            .unwrap()
            .fingerprint_bits(),
        10
    );
}
