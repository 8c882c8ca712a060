//! Both probe sequences under both lookup shapes: a table past the
//! branch-free limit (16 MiB) with enough probes per item for the cubic
//! sequence (tables below 64·2^k counters) takes the early-exit path with
//! cubic probes, a combination no other test reaches.

use counting_bloom::CountingBloomFilter;
use filter_core::{BRANCH_FREE_MAX_BYTES, ProbeSequence};

#[test]
fn a_cubic_filter_past_the_branch_free_limit_counts_and_removes() {
    // 40M counters = 20 MB, k = 20: the line is 64 · 2^20 ≈ 67M counters.
    let mut filter = CountingBloomFilter::with_counters(40_000_000, 20).unwrap();
    assert_eq!(filter.probe_sequence(), ProbeSequence::Cubic);
    assert!(filter.memory_bytes() > BRANCH_FREE_MAX_BYTES);
    (0..20_000u64).for_each(|i| filter.insert(&i));
    (0..1_000u64).for_each(|i| filter.insert(&i));
    assert!((0..1_000u64).all(|i| filter.count(&i) >= 2));
    assert!((0..20_000u64).all(|i| filter.contains(&i)));
    for i in 10_000..20_000u64 {
        assert!(filter.remove(&i));
    }
    assert!((0..10_000u64).all(|i| filter.contains(&i)));
    // 10,000 items × 20 counters leave 0.5 % of the counters non-zero, so a
    // non-member passes with probability 0.005^20: none of 100,000 should,
    // and the removed items are gone with them.
    assert_eq!(
        (10_000..110_000u64).filter(|i| filter.contains(i)).count(),
        0
    );
}
