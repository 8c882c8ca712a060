//! The cubic and hashed probe sequences past the branch-free limit: a table
//! larger than 16 MiB with enough probes per item for either sequence (the
//! cubic one below 64·2^k counters, the hashed one below 2^(1 + ⌊3k/4⌋))
//! takes the early-exit path with those probes, a combination no other test
//! reaches.

use counting_bloom::{BatchContains, CountingBloomFilter};
use filter_core::probes::{BRANCH_FREE_MAX_BYTES, ProbeSequence};

/// 40M counters (20 MB) probed `hashes` times per item: counts, removes and
/// lookups, one by one and batched.
fn past_the_branch_free_limit(hashes: u32, sequence: ProbeSequence) {
    let mut filter = CountingBloomFilter::with_counters(40_000_000, hashes).unwrap();
    assert_eq!(ProbeSequence::for_table(40_000_000, hashes), sequence);
    assert!(filter.memory_bytes() > BRANCH_FREE_MAX_BYTES);
    (0..20_000u64).for_each(|i| filter.insert(&i));
    (0..1_000u64).for_each(|i| filter.insert(&i));
    assert!((0..1_000u64).all(|i| filter.count(&i) >= 2));
    assert!((0..20_000u64).all(|i| filter.contains(&i)));
    for i in 10_000..20_000u64 {
        assert!(filter.remove(&i));
    }
    assert!((0..10_000u64).all(|i| filter.contains(&i)));
    // 10,000 items × k counters leave at most 1 % of the counters non-zero
    // (k = 40), so a non-member passes with probability below 0.01^20:
    // none of 100,000 should, and the removed items are gone with them.
    assert_eq!(
        (10_000..110_000u64).filter(|i| filter.contains(i)).count(),
        0
    );
    // Batched lookups prefetch along the same sequence.
    let batched: Vec<bool> = filter.contains_batch(0..20_000u64).collect();
    assert!(batched.iter().enumerate().all(|(i, &b)| b == (i < 10_000)));
}

#[test]
fn a_cubic_filter_past_the_branch_free_limit_counts_and_removes() {
    // k = 20: the cubic line is 64 · 2^20 ≈ 67M counters, the hashed 2^16.
    past_the_branch_free_limit(20, ProbeSequence::Cubic);
}

#[test]
fn a_hashed_filter_past_the_branch_free_limit_counts_and_removes() {
    // k = 40: the hashed line is 2^31 counters.
    past_the_branch_free_limit(40, ProbeSequence::Hashed);
}
