//! The standard traits a user expects: thread safety and a short `Debug`.

use bloom::{BlockedBloomFilter, BloomFilter, DefaultHashBuilder};

/// Compile-time: a filter can be sent to and shared between threads (for
/// example behind an `Arc<RwLock<_>>`).
#[test]
fn filters_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + Clone + std::fmt::Debug>() {}
    assert_send_sync::<BloomFilter>();
    assert_send_sync::<BlockedBloomFilter<DefaultHashBuilder>>();
}

#[test]
fn debug_shows_the_shape_not_the_table() {
    let mut classic = BloomFilter::with_fpr(1_000_000, 0.01).unwrap();
    classic.insert("a");
    let text = format!("{classic:?}");
    // A 1.2 MB bit array printed word by word would be megabytes of text.
    assert!(text.len() < 200, "{text}");
    for field in [
        "bits: 9585059",
        "hashes: 7",
        "probe_sequence: Linear",
        "memory_bytes: 1198136",
    ] {
        assert!(text.contains(field), "{field} missing from {text}");
    }
    // No heap address: equal filters print alike.
    assert_eq!(text, format!("{:?}", classic.clone()));
    let small = format!("{:?}", BloomFilter::with_fpr(10, 0.01).unwrap());
    assert!(small.contains("probe_sequence: Cubic"), "{small}");

    let mut blocked = BlockedBloomFilter::with_blocks(40_000).unwrap();
    blocked.insert("a");
    let text = format!("{blocked:?}");
    assert!(text.len() < 200, "{text}");
    for field in [
        "blocks: 40000",
        "bits: 10240000",
        "hashes: 8",
        "memory_bytes: 1280000",
    ] {
        assert!(text.contains(field), "{field} missing from {text}");
    }
}
