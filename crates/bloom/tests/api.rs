//! The standard traits a user expects: thread safety, a short `Debug` and
//! equality of whole state.

use bloom::{
    AtomicBlockedBloomFilter, AtomicBloomFilter, BlockedBloomFilter, BloomFilter, PortableHasher,
};
use filter_core::testing::keys;

/// Compile-time: a filter can be sent to and shared between threads (for
/// example behind an `Arc<RwLock<_>>`).
#[test]
fn filters_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + Clone + std::fmt::Debug + Eq>() {}
    assert_send_sync::<BloomFilter>();
    assert_send_sync::<BlockedBloomFilter<PortableHasher>>();
    // Shared by reference for inserts: no `Clone` (a copy taken while
    // threads insert is `to_bloom_filter`'s snapshot) and no `Eq`.
    fn assert_shared<T: Send + Sync + std::fmt::Debug>() {}
    assert_shared::<AtomicBloomFilter>();
    assert_shared::<AtomicBlockedBloomFilter>();
}

#[test]
fn debug_shows_the_shape_not_the_table() {
    let mut classic = BloomFilter::with_fpr(1_000_000, 0.01).unwrap();
    classic.insert("a");
    let text = format!("{classic:?}");
    // A 1.2 MB bit array printed word by word would be megabytes of text.
    assert!(text.len() < 200, "{text}");
    for field in ["bits: 9592957", "hashes: 7", "memory_bytes: 1199120"] {
        assert!(text.contains(field), "{field} missing from {text}");
    }
    // No heap address: equal filters print alike.
    assert_eq!(text, format!("{:?}", classic.clone()));

    let mut blocked = BlockedBloomFilter::with_blocks(40_000).unwrap();
    blocked.insert("a");
    let text = format!("{blocked:?}");
    let blocked_text = text.clone();
    assert!(text.len() < 200, "{text}");
    for field in [
        "blocks: 40000",
        "bits: 10240000",
        "hashes: 8",
        "memory_bytes: 1280000",
    ] {
        assert!(text.contains(field), "{field} missing from {text}");
    }

    // The atomic filter prints the same shape under its own name.
    let classic_text = format!("{classic:?}");
    let atomic = AtomicBloomFilter::from(classic);
    assert_eq!(
        format!("{atomic:?}"),
        classic_text.replacen("BloomFilter", "AtomicBloomFilter", 1)
    );
    let atomic = AtomicBlockedBloomFilter::from(blocked);
    assert_eq!(
        format!("{atomic:?}"),
        blocked_text.replacen("BlockedBloomFilter", "AtomicBlockedBloomFilter", 1)
    );
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

        // One item more (new, so it sets a bit) and they differ.
        let mut c = b.clone();
        assert!(c.insert_unique(&keys::key(5, 900)));
        assert_ne!(a, c);
        assert_ne!(a.to_bytes(), c.to_bytes());

        // The same bits under a hasher that hashes differently: not equal,
        // as `from_bytes` would refuse one's bytes under the other's hasher.
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
        |h| BloomFilter::with_fpr_and_hasher(1_000, 0.01, h).unwrap(),
        BloomFilter::from_bytes
    );
    check_equality!(
        |h| BlockedBloomFilter::with_fpr_and_hasher(1_000, 0.01, h).unwrap(),
        BlockedBloomFilter::from_bytes
    );
    // Different shapes are never equal, even empty.
    let classic = BloomFilter::with_bits(1_024, 7).unwrap();
    assert_ne!(classic, BloomFilter::with_bits(1_024, 6).unwrap());
    assert_ne!(classic, BloomFilter::with_bits(1_088, 7).unwrap());
    let blocked = BlockedBloomFilter::with_blocks(4).unwrap();
    assert_ne!(blocked, BlockedBloomFilter::with_blocks(5).unwrap());
}

#[test]
fn extend_inserts_every_item() {
    let ids: Vec<u64> = (0..500).collect();
    let urls: Vec<String> = keys::member_urls(6, 500);

    let mut one_by_one = BloomFilter::with_fpr(2_000, 0.01).unwrap();
    let mut extended = one_by_one.clone();
    let mut blocked_one_by_one = BlockedBloomFilter::with_fpr(2_000, 0.01).unwrap();
    let mut blocked_extended = blocked_one_by_one.clone();
    for (id, url) in ids.iter().zip(&urls) {
        one_by_one.insert(id);
        one_by_one.insert(url);
        one_by_one.insert("literal");
        blocked_one_by_one.insert(id);
        blocked_one_by_one.insert(url);
        blocked_one_by_one.insert("literal");
    }
    // `&Vec<u64>`, an iterator of `&String`, and an array of `&str`.
    extended.extend(&ids);
    extended.extend(urls.iter());
    extended.extend(["literal"]);
    blocked_extended.extend(&ids);
    blocked_extended.extend(urls.iter());
    blocked_extended.extend(["literal"]);
    // Bits are set, never cleared, so the order does not matter.
    assert_eq!(extended, one_by_one);
    assert_eq!(blocked_extended, blocked_one_by_one);
    assert!(
        ids.iter()
            .all(|id| extended.contains(id) && blocked_extended.contains(id))
    );
}
