//! The cubic and hashed probe sequences past the branch-free limit: a filter
//! larger than 16 MiB with enough probes per key for either sequence (the
//! cubic one below 64·2^k bits, the hashed one below 2^(1 + ⌊3k/4⌋)) takes
//! the early-exit path with those probes, a combination no other test
//! reaches.

use bloom::{BatchContains, BloomFilter};
use filter_core::probes::{BRANCH_FREE_MAX_BYTES, ProbeSequence};

/// 17 MiB of bits probed `hashes` times per key: every member found, no
/// false positive, and the same through its bytes.
fn past_the_branch_free_limit(hashes: u32, sequence: ProbeSequence) {
    let bits = (BRANCH_FREE_MAX_BYTES as u64 + (1 << 20)) * 8;
    // The table's size and hash count fix its sequence.
    assert_eq!(ProbeSequence::for_table(bits as usize, hashes), sequence);
    let mut filter = BloomFilter::with_bits(bits, hashes).unwrap();
    assert!(filter.memory_bytes() > BRANCH_FREE_MAX_BYTES);
    (0..20_000u64).for_each(|i| filter.insert(&i));
    assert!((0..20_000u64).all(|i| filter.contains(&i)));
    // 20,000 keys × k bits set at most 0.6 % of the table (k = 40), so a
    // non-member passes with probability below 0.006^24: none of 100,000
    // should.
    assert_eq!(
        (20_000..120_000u64).filter(|i| filter.contains(i)).count(),
        0
    );
    // Batched lookups prefetch along the same sequence.
    let batched: Vec<bool> = filter.contains_batch(0..40_000u64).collect();
    assert!(batched.iter().enumerate().all(|(i, &b)| b == (i < 20_000)));
    // The same filter through its bytes answers the same.
    let loaded = BloomFilter::from_bytes(&filter.to_bytes()).unwrap();
    assert!((0..20_000u64).all(|i| loaded.contains(&i)));
}

#[test]
fn a_cubic_filter_past_the_branch_free_limit_finds_its_members() {
    // k = 24: the cubic line is 64 · 2^24 = 2^30 bits, the hashed 2^19.
    past_the_branch_free_limit(24, ProbeSequence::Cubic);
}

#[test]
fn a_hashed_filter_past_the_branch_free_limit_finds_its_members() {
    // k = 40: the hashed line is 2^31 bits.
    past_the_branch_free_limit(40, ProbeSequence::Hashed);
}
