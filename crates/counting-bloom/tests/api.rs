//! The standard traits a user expects: thread safety, a short `Debug` and
//! equality of whole state.

use counting_bloom::{BlockedCountingBloomFilter, CountingBloomFilter, PortableHasher};
use filter_core::testing::keys;

/// Compile-time: a filter can be sent to and shared between threads (for
/// example behind an `Arc<RwLock<_>>`).
#[test]
fn filters_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + Clone + std::fmt::Debug + Eq>() {}
    assert_send_sync::<CountingBloomFilter>();
    assert_send_sync::<BlockedCountingBloomFilter<PortableHasher>>();
}

#[test]
fn debug_shows_the_shape_not_the_table() {
    let mut classic = CountingBloomFilter::with_fpr(1_000_000, 0.01).unwrap();
    classic.insert("a");
    let text = format!("{classic:?}");
    // A 4.8 MB table printed word by word would be megabytes of text.
    assert!(text.len() < 200, "{text}");
    for field in [
        "counters: 9592957",
        "hashes: 7",
        "saturated_counters: 0",
        "memory_bytes: 4796480",
    ] {
        assert!(text.contains(field), "{field} missing from {text}");
    }
    assert_eq!(text, format!("{:?}", classic.clone()));

    let mut blocked = BlockedCountingBloomFilter::with_blocks(40_000, 6).unwrap();
    blocked.insert("a");
    let text = format!("{blocked:?}");
    assert!(text.len() < 200, "{text}");
    for field in [
        "blocks: 40000",
        "hashes: 6",
        "saturated_counters: 0",
        "memory_bytes: 2560000",
    ] {
        assert!(text.contains(field), "{field} missing from {text}");
    }
    assert_eq!(text, format!("{:?}", blocked.clone()));
}

/// The checks of `equal_exactly_when_the_bytes_are_equal`, for either type:
/// `new` makes an empty filter under a hasher, `load` reads bytes back.
macro_rules! check_equality {
    ($new:expr, $load:expr) => {{
        let mut a = $new(PortableHasher::default());
        let mut b = $new(PortableHasher::default());
        assert_eq!(a, b);
        for i in 0..900 {
            a.insert(&keys::key(5, i));
            b.insert(&keys::key(5, i));
        }
        assert_eq!(a, b);
        assert_eq!(a.clone(), a);

        // Read back from its bytes: equal, and the bytes agree.
        let loaded = $load(&a.to_bytes()).unwrap();
        assert_eq!(a, loaded);
        assert_eq!(a.to_bytes(), loaded.to_bytes());

        // One copy more, even of a present item, and they differ; removed
        // again, they are equal.
        let mut c = b.clone();
        c.insert(&keys::key(5, 0));
        assert_ne!(a, c);
        assert_ne!(a.to_bytes(), c.to_bytes());
        assert!(c.remove(&keys::key(5, 0)));
        assert_eq!(a, c);

        // The same counters under a hasher that hashes differently: not
        // equal, as `from_bytes` would refuse one's bytes under the other's.
        let mut d = $new(PortableHasher::with_seed(7));
        let mut e = $new(PortableHasher::default());
        d.insert_hash(42);
        e.insert_hash(42);
        assert_ne!(d, e);
        assert_ne!(d.to_bytes(), e.to_bytes());
    }};
}

#[test]
fn equal_exactly_when_the_bytes_are_equal() {
    check_equality!(
        |h| CountingBloomFilter::with_fpr_and_hasher(1_000, 0.01, h).unwrap(),
        CountingBloomFilter::from_bytes
    );
    check_equality!(
        |h| BlockedCountingBloomFilter::with_fpr_and_hasher(1_000, 0.01, h).unwrap(),
        BlockedCountingBloomFilter::from_bytes
    );
    // Different shapes are never equal, even empty.
    let classic = CountingBloomFilter::with_counters(1_024, 7).unwrap();
    assert_ne!(
        classic,
        CountingBloomFilter::with_counters(1_024, 6).unwrap()
    );
    assert_ne!(
        classic,
        CountingBloomFilter::with_counters(1_040, 7).unwrap()
    );
    let blocked = BlockedCountingBloomFilter::with_blocks(4, 6).unwrap();
    assert_ne!(
        blocked,
        BlockedCountingBloomFilter::with_blocks(4, 5).unwrap()
    );
    assert_ne!(
        blocked,
        BlockedCountingBloomFilter::with_blocks(5, 6).unwrap()
    );
}

#[test]
fn extend_inserts_every_item() {
    let ids: Vec<u64> = (0..500).collect();
    let urls: Vec<String> = keys::member_urls(6, 500);

    let mut one_by_one = CountingBloomFilter::with_fpr(2_000, 0.01).unwrap();
    let mut extended = one_by_one.clone();
    let mut blocked_one_by_one = BlockedCountingBloomFilter::with_fpr(2_000, 0.01).unwrap();
    let mut blocked_extended = blocked_one_by_one.clone();
    for (id, url) in ids.iter().zip(&urls) {
        one_by_one.insert(id);
        one_by_one.insert(url);
        blocked_one_by_one.insert(id);
        blocked_one_by_one.insert(url);
    }
    // `&Vec<u64>`, an iterator of `&String`, and an array of `&str` (one
    // copy each: the count says so).
    extended.extend(&ids);
    extended.extend(urls.iter());
    extended.extend(["literal", "literal"]);
    blocked_extended.extend(&ids);
    blocked_extended.extend(urls.iter());
    blocked_extended.extend(["literal", "literal"]);
    assert!(extended.count("literal") >= 2 && blocked_extended.count("literal") >= 2);
    assert!(extended.remove("literal") && extended.remove("literal"));
    assert!(blocked_extended.remove("literal") && blocked_extended.remove("literal"));
    // Increments commute (no counter nears saturation here), so the tables
    // are those of the one-by-one inserts.
    assert_eq!(extended, one_by_one);
    assert_eq!(blocked_extended, blocked_one_by_one);
}

/// `insert_unique` answers what `contains` said before, negated, and counts
/// the copy exactly as `insert` does (the twin filter stays equal). Tiny
/// tables make most answers `false` and make positions repeat within an
/// item (the cubic sequence of the classic layout, coinciding blocks of the
/// blocked one); large ones make most answers `true`.
#[test]
fn insert_unique_is_insert_that_says_whether_the_item_was_absent() {
    macro_rules! check {
        ($filter:expr) => {{
            let mut unique = $filter;
            let mut plain = unique.clone();
            let (mut new, mut old) = (0, 0);
            for i in 0..3_000u64 {
                // Every key twice, the second copy later.
                let key = keys::key(8, i % 2_000);
                let before = unique.contains(&key);
                let answer = unique.insert_unique(&key);
                assert_eq!(answer, !before, "key {i}");
                plain.insert(&key);
                if answer {
                    new += 1
                } else {
                    old += 1
                }
                if i % 7 == 0 {
                    // Removes interleaved: the answer follows them.
                    assert!(unique.remove(&key) && plain.remove(&key));
                    assert_eq!(unique.insert_unique_hash(99), plain.insert_unique_hash(99));
                }
            }
            assert_eq!(unique, plain);
            (new, old)
        }};
    }
    let (new, _) = check!(CountingBloomFilter::with_fpr(10_000, 0.001).unwrap());
    assert!(new > 1_900, "{new}");
    let (new, _) = check!(BlockedCountingBloomFilter::with_fpr(10_000, 0.001).unwrap());
    assert!(new > 1_900, "{new}");
    let (_, old) = check!(CountingBloomFilter::with_counters(16, 4).unwrap());
    assert!(old > 2_000, "{old}");
    let (_, old) = check!(BlockedCountingBloomFilter::with_blocks(2, 16).unwrap());
    assert!(old > 2_000, "{old}");
}

/// The invariant of the hashing pipeline, for both types and three kinds of
/// hasher: a key's answers are those of its `hash_key` given to the `*_hash`
/// methods, and inserting either way sets the same counters.
macro_rules! check_key_and_hash_paths {
    ($new:expr) => {{
        let mut by_key = $new;
        let mut by_hash = by_key.clone();
        let hasher = by_key.hasher().clone();
        for i in 0..2_000u64 {
            if i % 3 == 0 {
                by_key.insert(&i);
                by_hash.insert_hash(hasher.hash_key(&i));
            }
            let url = keys::url(9, i);
            if i % 5 == 0 {
                by_key.insert(url.as_str());
                by_hash.insert_hash(hasher.hash_key(url.as_str()));
            }
        }
        assert!(by_key == by_hash);
        for i in 0..4_000u64 {
            let url = keys::url(9, i);
            let h = hasher.hash_key(url.as_str());
            assert_eq!(by_key.contains(url.as_str()), by_key.contains_hash(h));
            assert_eq!(by_key.count(url.as_str()), by_key.count_hash(h));
            assert_eq!(
                by_key.contains(&i),
                by_key.contains_hash(hasher.hash_key(&i))
            );
        }
        for i in (0..2_000u64).step_by(3) {
            assert!(by_key.remove(&i));
            assert!(by_hash.remove_hash(hasher.hash_key(&i)));
        }
        assert!(by_key == by_hash);
    }};
}

#[test]
fn contains_of_a_key_is_contains_hash_of_its_hash_key() {
    use std::collections::hash_map::RandomState;
    use std::hash::BuildHasherDefault;

    use counting_bloom::{KeyHasher, UniformHasher};

    type Sip = BuildHasherDefault<std::collections::hash_map::DefaultHasher>;
    check_key_and_hash_paths!(CountingBloomFilter::with_fpr(1_000, 0.01).unwrap());
    check_key_and_hash_paths!(
        CountingBloomFilter::with_fpr_and_hasher(1_000, 0.01, RandomState::new()).unwrap()
    );
    check_key_and_hash_paths!(
        CountingBloomFilter::with_fpr_and_hasher(1_000, 0.01, UniformHasher(Sip::default()))
            .unwrap()
    );
    check_key_and_hash_paths!(BlockedCountingBloomFilter::with_fpr(1_000, 0.01).unwrap());
    check_key_and_hash_paths!(
        BlockedCountingBloomFilter::with_fpr_and_hasher(1_000, 0.01, RandomState::new()).unwrap()
    );
    check_key_and_hash_paths!(
        BlockedCountingBloomFilter::with_fpr_and_hasher(1_000, 0.01, UniformHasher(Sip::default()))
            .unwrap()
    );
}
