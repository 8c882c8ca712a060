//! Both probe sequences under both lookup shapes: a filter past the
//! branch-free limit (16 MiB) with enough probes per key for the cubic
//! sequence (tables below 64·2^k bits) takes the early-exit path with cubic
//! probes, a combination no other test reaches.

use bloom::BloomFilter;
use filter_core::{BRANCH_FREE_MAX_BYTES, ProbeSequence};

#[test]
fn a_cubic_filter_past_the_branch_free_limit_finds_its_members() {
    // 17 MiB of bits, k = 24: 64 · 2^24 = 2^30 bits is the line, so cubic.
    let bits = (BRANCH_FREE_MAX_BYTES as u64 + (1 << 20)) * 8;
    let mut filter = BloomFilter::with_bits(bits, 24).unwrap();
    assert_eq!(filter.probe_sequence(), ProbeSequence::Cubic);
    assert!(filter.memory_bytes() > BRANCH_FREE_MAX_BYTES);
    (0..20_000u64).for_each(|i| filter.insert(&i));
    assert!((0..20_000u64).all(|i| filter.contains(&i)));
    // 20,000 keys × 24 bits set about 0.34 % of the table, so a non-member
    // passes with probability 0.0034^24: none of 100,000 should.
    assert_eq!(
        (20_000..120_000u64).filter(|i| filter.contains(i)).count(),
        0
    );
    // The same filter through its bytes answers the same.
    let loaded = BloomFilter::from_bytes(&filter.to_bytes()).unwrap();
    assert_eq!(loaded.probe_sequence(), ProbeSequence::Cubic);
    assert!((0..20_000u64).all(|i| loaded.contains(&i)));
}
