//! `union`, `intersect`, `clear`, `insert_unique` and the other whole-filter
//! operations.

use bloom::{BlockedBloomFilter, BloomFilter, Error, PortableHasher};
use filter_core::testing::keys;

#[test]
fn union_and_intersect_keep_what_they_promise() {
    let a_keys = keys::members(1, 3000);
    let b_keys = keys::members(2, 3000);
    let both = &a_keys[..1000];

    let mut ca = BloomFilter::with_fpr(6000, 0.01).unwrap();
    let mut cb = ca.clone();
    let mut ba = BlockedBloomFilter::with_fpr(6000, 0.01).unwrap();
    let mut bb = ba.clone();
    for k in &a_keys {
        ca.insert(k);
        ba.insert(k);
    }
    for k in b_keys.iter().chain(both) {
        cb.insert(k);
        bb.insert(k);
    }

    let (mut cu, mut bu) = (ca.clone(), ba.clone());
    cu.union(&cb).unwrap();
    bu.union(&bb).unwrap();
    assert!(
        a_keys
            .iter()
            .chain(&b_keys)
            .all(|k| cu.contains(k) && bu.contains(k))
    );
    // The union is the filter of the union of the sets, bit for bit.
    let (mut cd, mut bd) = (ca.clone(), ba.clone());
    b_keys.iter().for_each(|k| {
        cd.insert(k);
        bd.insert(k);
    });
    assert_eq!(cu.to_bytes(), cd.to_bytes());
    assert_eq!(bu.to_bytes(), bd.to_bytes());

    ca.intersect(&cb).unwrap();
    ba.intersect(&bb).unwrap();
    assert!(both.iter().all(|k| ca.contains(k) && ba.contains(k)));
    assert!(ca.estimated_fpr() <= cu.estimated_fpr() && ba.estimated_fpr() <= bu.estimated_fpr());
}

#[test]
fn mismatched_filters_are_refused_and_left_unchanged() {
    let mut c = BloomFilter::with_bits(1000, 5).unwrap();
    c.insert(&1u64);
    let before = c.to_bytes();
    let err = c
        .union(&BloomFilter::with_bits(1001, 5).unwrap())
        .unwrap_err();
    assert_eq!(err, Error::incompatible("bits", 1000, 1001));
    let err = c
        .intersect(&BloomFilter::with_bits(1000, 6).unwrap())
        .unwrap_err();
    assert_eq!(err, Error::incompatible("hashes", 5, 6));
    let seeded = BloomFilter::with_bits_and_hasher(1000, 5, PortableHasher::with_seed(1)).unwrap();
    let mut c2 = BloomFilter::with_bits_and_hasher(1000, 5, PortableHasher::default()).unwrap();
    assert_eq!(c2.union(&seeded).unwrap_err(), Error::HasherMismatch);
    let mut s2 = seeded.clone();
    assert_eq!(
        s2.intersect(&BloomFilter::with_bits(1000, 5).unwrap())
            .unwrap_err(),
        Error::HasherMismatch
    );
    assert_eq!(c.to_bytes(), before);

    let mut b = BlockedBloomFilter::with_blocks(4).unwrap();
    b.insert(&1u64);
    let before = b.to_bytes();
    let err = b
        .union(&BlockedBloomFilter::with_blocks(5).unwrap())
        .unwrap_err();
    assert_eq!(err, Error::incompatible("bits", 1024, 1280));
    let seeded =
        BlockedBloomFilter::with_blocks_and_hasher(4, PortableHasher::with_seed(1)).unwrap();
    assert_eq!(b.intersect(&seeded).unwrap_err(), Error::HasherMismatch);
    assert_eq!(b.to_bytes(), before);
}

#[test]
fn insert_unique_reports_new_keys() {
    let mut c = BloomFilter::with_fpr(10_000, 0.001).unwrap();
    let mut b = BlockedBloomFilter::with_fpr(10_000, 0.001).unwrap();
    let members = keys::members(4, 10_000);
    let (mut new_c, mut new_b) = (0, 0);
    for k in &members {
        new_c += usize::from(c.insert_unique(k));
        new_b += usize::from(b.insert_unique(k));
    }
    // A new key is reported "maybe seen" only when it is a false positive
    // of the filter so far (rate below 0.1 %, so expected < 10 of 10^4;
    // 30 is far beyond 5σ of a Poisson(10)).
    assert!(
        new_c > 10_000 - 30 && new_b > 10_000 - 30,
        "{new_c} {new_b}"
    );
    // A second insert of any key is never "new".
    assert!(
        members
            .iter()
            .all(|k| !c.insert_unique(k) && !b.insert_unique(k))
    );
}

#[test]
fn clear_forgets_everything_and_keeps_the_shape() {
    let mut c = BloomFilter::with_fpr(100, 0.01).unwrap();
    let mut b = BlockedBloomFilter::with_fpr(100, 0.01).unwrap();
    for k in keys::members(6, 100) {
        c.insert(&k);
        b.insert(&k);
    }
    let (cbits, bbits) = (c.bits(), b.bits());
    c.clear();
    b.clear();
    assert_eq!((c.estimated_fpr(), b.estimated_fpr()), (0.0, 0.0));
    assert_eq!((c.bits(), b.bits()), (cbits, bbits));
    assert_eq!((c.estimated_fpr(), b.estimated_fpr()), (0.0, 0.0));
    assert!(
        keys::members(6, 100)
            .iter()
            .all(|k| !c.contains(k) && !b.contains(k))
    );
}

#[test]
fn full_filters_estimate_saturates() {
    let mut c = BloomFilter::with_bits(64, 1).unwrap();
    let mut b = BlockedBloomFilter::with_blocks(1).unwrap();
    for k in keys::members(7, 10_000) {
        c.insert(&k);
        b.insert(&k);
    }
    assert_eq!(
        (c.estimated_len(), b.estimated_len()),
        (usize::MAX, usize::MAX)
    );
    assert_eq!((c.estimated_fpr(), b.estimated_fpr()), (1.0, 1.0));
}

#[test]
fn trait_objects_work() {
    use bloom::{Filter, Insert};
    fn fill<F: Insert<str>>(f: &mut F) {
        f.insert("a").unwrap();
    }
    let mut c = BloomFilter::with_fpr(10, 0.01).unwrap();
    let mut b = BlockedBloomFilter::with_fpr(10, 0.01).unwrap();
    fill(&mut c);
    fill(&mut b);
    let filters: [&dyn Filter<str>; 2] = [&c, &b];
    assert!(filters.iter().all(|f| f.contains("a")));
    assert_eq!(Filter::<str>::memory_bytes(&b) as u64, 32 * b.blocks());
    assert_eq!(b.memory_bytes(), b.bits() as usize / 8);
}
