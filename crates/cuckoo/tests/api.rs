//! The standard traits and conveniences a user expects: thread safety,
//! a short `Debug`, equality of whole state, and `clear`.

use cuckoo::{CuckooFilter, PortableHasher};
use filter_core::testing::keys;

/// Compile-time: a filter can be sent to and shared between threads (for
/// example behind an `Arc<RwLock<_>>`).
#[test]
fn filters_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + Clone + std::fmt::Debug + Eq>() {}
    assert_send_sync::<CuckooFilter>();
    assert_send_sync::<CuckooFilter<PortableHasher>>();
}

#[test]
fn debug_shows_the_shape_not_the_table() {
    let mut filter = CuckooFilter::with_fpr(1_000_000, 0.01).unwrap();
    filter.insert("a").unwrap();
    let text = format!("{filter:?}");
    // A megabyte table printed byte by byte would be megabytes of text.
    assert!(text.len() < 200, "{text}");
    for field in [
        "len: 1",
        "buckets: ",
        "fingerprint_bits: 10",
        "is_full: false",
        "memory_bytes: ",
    ] {
        assert!(text.contains(field), "{field} missing from {text}");
    }
}

#[test]
fn equal_exactly_when_the_bytes_are_equal() {
    let mut a = CuckooFilter::with_fpr(10_000, 0.01).unwrap();
    for i in 0..9_000 {
        a.insert(&keys::key(5, i)).unwrap();
    }
    let b = CuckooFilter::from_bytes(&a.to_bytes()).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.clone(), a);

    // One item more, or one removed, and they differ.
    let mut c = b.clone();
    c.insert(&keys::key(5, 9_000)).unwrap();
    assert_ne!(a, c);
    assert!(c.remove(&keys::key(5, 9_000)));
    assert_eq!(a.to_bytes() == c.to_bytes(), a == c);

    // The same table under a hasher that hashes differently: not equal,
    // as `from_bytes` would refuse one's bytes under the other's hasher.
    let mut d =
        CuckooFilter::with_fpr_and_hasher(10_000, 0.01, PortableHasher::with_seed(7)).unwrap();
    let mut e = CuckooFilter::with_fpr(10_000, 0.01).unwrap();
    d.insert_hash(42).unwrap();
    e.insert_hash(42).unwrap();
    assert_ne!(d, e);
}

#[test]
fn clear_gives_back_a_new_filter() {
    let fresh = CuckooFilter::with_fpr(2_000, 0.01).unwrap();
    let mut filter = fresh.clone();
    // Fill past capacity so that the victim slot and the eviction generator
    // are in use too.
    let mut i = 0;
    while filter.insert(&keys::key(9, i)).is_ok() {
        i += 1;
    }
    assert!(filter.is_full());
    filter.clear();
    assert!(filter.is_empty() && !filter.is_full());
    assert_eq!(filter, fresh);
    // The same inserts then give the same table as in a new filter.
    let mut again = fresh.clone();
    for i in 0..1_900 {
        filter.insert(&keys::key(9, i)).unwrap();
        again.insert(&keys::key(9, i)).unwrap();
    }
    assert_eq!(filter, again);
    assert!((0..1_900).all(|i| filter.contains(&keys::key(9, i))));
}
