//! The standard traits a user expects: thread safety and a short `Debug`.

use counting_bloom::{BlockedCountingBloomFilter, CountingBloomFilter, DefaultHashBuilder};

/// Compile-time: a filter can be sent to and shared between threads (for
/// example behind an `Arc<RwLock<_>>`).
#[test]
fn filters_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + Clone + std::fmt::Debug>() {}
    assert_send_sync::<CountingBloomFilter>();
    assert_send_sync::<BlockedCountingBloomFilter<DefaultHashBuilder>>();
}

#[test]
fn debug_shows_the_shape_not_the_table() {
    let mut classic = CountingBloomFilter::with_fpr(1_000_000, 0.01).unwrap();
    classic.insert("a");
    let text = format!("{classic:?}");
    // A 4.8 MB table printed word by word would be megabytes of text.
    assert!(text.len() < 200, "{text}");
    for field in [
        "counters: 9585059",
        "hashes: 7",
        "probe_sequence: Linear",
        "saturated_counters: 0",
        "memory_bytes: 4792536",
    ] {
        assert!(text.contains(field), "{field} missing from {text}");
    }
    assert_eq!(text, format!("{:?}", classic.clone()));

    // The blocked layout has no probe sequence to show.
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
