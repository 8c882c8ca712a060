//! Batched lookups answer exactly as one-by-one lookups, in order, and
//! batched inserts leave exactly the filter one-by-one inserts leave, for
//! tables below and above the prefetching threshold.

use bloom::{BatchContains, BatchInsert, BlockedBloomFilter, BloomFilter};
use filter_core::batch::PREFETCH_MIN_BYTES;
use filter_core::testing::keys;
use quickcheck::quickcheck;

#[test]
fn batches_agree_with_single_lookups_in_small_and_large_tables() {
    // A table for 7,500,000 keys at 1 % takes 9 MB (prefetched: at least
    // PREFETCH_MIN_BYTES), one for 1,000 keys 1.2 KB (not). The large one
    // holds 20,000 keys: the answers, not the fill, are under test.
    for (capacity, n) in [(1_000usize, 1_000usize), (7_500_000, 20_000)] {
        let members = keys::members(3, n);
        let non_members = keys::non_members(3, n);
        let asked = keys::interleaved(&members, &non_members);

        let mut classic = BloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked = BlockedBloomFilter::with_fpr(capacity, 0.01).unwrap();
        for key in &members {
            classic.insert(key);
            blocked.insert(key);
        }
        assert_eq!(
            classic.memory_bytes() >= PREFETCH_MIN_BYTES,
            capacity > 1_000,
            "the sizes straddle the threshold"
        );
        let one_by_one: Vec<bool> = asked.iter().map(|k| classic.contains(k)).collect();
        let batched: Vec<bool> = classic.contains_batch(&asked).collect();
        assert_eq!(batched, one_by_one, "BloomFilter, {n} keys");
        assert!(
            batched.iter().step_by(2).all(|&found| found),
            "no false negatives"
        );

        let one_by_one: Vec<bool> = asked.iter().map(|k| blocked.contains(k)).collect();
        let batched: Vec<bool> = blocked.contains_batch(&asked).collect();
        assert_eq!(batched, one_by_one, "BlockedBloomFilter, {n} keys");
        assert!(
            batched.iter().step_by(2).all(|&found| found),
            "no false negatives"
        );

        let hashes: Vec<u64> = asked
            .iter()
            .map(|&k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let by_hash: Vec<bool> = hashes.iter().map(|&h| blocked.contains_hash(h)).collect();
        assert_eq!(
            blocked
                .contains_hash_batch(hashes.iter().copied())
                .collect::<Vec<_>>(),
            by_hash
        );
        let by_hash: Vec<bool> = hashes.iter().map(|&h| classic.contains_hash(h)).collect();
        assert_eq!(
            classic.contains_hash_batch(hashes).collect::<Vec<_>>(),
            by_hash
        );
    }
}

quickcheck! {
    /// Any sequence of queries, of any length (shorter and longer than the
    /// lookahead), in a table that is prefetched (sized for 7,500,000 keys at 1 %: 9 MB) or not (200 keys: 240 bytes).
    fn batches_agree(large: bool, inserted: Vec<u16>, asked: Vec<u16>) -> bool {
        let capacity = if large { 7_500_000 } else { 200 };
        let mut classic = BloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked = BlockedBloomFilter::with_fpr(capacity, 0.01).unwrap();
        for key in &inserted {
            classic.insert(key);
            blocked.insert(key);
        }
        let classic_ok = classic.contains_batch(&asked).eq(asked.iter().map(|k| classic.contains(k)));
        let blocked_ok = blocked.contains_batch(&asked).eq(asked.iter().map(|k| blocked.contains(k)));
        classic_ok && blocked_ok
    }
}

#[test]
fn batched_inserts_build_the_same_filters_in_small_and_large_tables() {
    // As above: 1.2 KB (not prefetched) and 9 MB (prefetched), the large
    // one holding 20,000 keys, some repeated.
    for (capacity, n) in [(1_000usize, 1_000usize), (7_500_000, 20_000)] {
        let mut inserted = keys::members(4, n);
        inserted.extend_from_within(..n / 10);
        let strings: Vec<String> = inserted.iter().map(|k| format!("key-{k}")).collect();
        let hashes: Vec<u64> = inserted
            .iter()
            .map(|&k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();

        let mut classic = BloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked = BlockedBloomFilter::with_fpr(capacity, 0.01).unwrap();
        for ((key, string), &hash) in inserted.iter().zip(&strings).zip(&hashes) {
            classic.insert(key);
            classic.insert(string.as_str());
            classic.insert_hash(hash);
            blocked.insert(key);
            blocked.insert(string.as_str());
            blocked.insert_hash(hash);
        }

        let mut classic_batched = BloomFilter::with_fpr(capacity, 0.01).unwrap();
        classic_batched.insert_batch(&inserted).unwrap();
        classic_batched.extend(strings.iter().map(String::as_str));
        classic_batched
            .insert_hash_batch(hashes.iter().copied())
            .unwrap();
        // Same bits, whatever order the three kinds of keys went in.
        assert!(classic_batched == classic, "BloomFilter, {n} keys");

        let mut blocked_batched = BlockedBloomFilter::with_fpr(capacity, 0.01).unwrap();
        blocked_batched.insert_batch(&inserted).unwrap();
        blocked_batched.extend(strings.iter().map(String::as_str));
        blocked_batched.insert_hash_batch(hashes).unwrap();
        assert!(blocked_batched == blocked, "BlockedBloomFilter, {n} keys");
        assert!(
            inserted.iter().all(|k| blocked_batched.contains(k)),
            "no false negatives"
        );
    }
}

quickcheck! {
    /// Any keys, batched or one by one, set the same bits, in a table that
    /// is prefetched or not.
    fn batched_inserts_agree(large: bool, inserted: Vec<u16>) -> bool {
        let capacity = if large { 7_500_000 } else { 200 };
        let mut classic = BloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked = BlockedBloomFilter::with_fpr(capacity, 0.01).unwrap();
        for key in &inserted {
            classic.insert(key);
            blocked.insert(key);
        }
        let mut classic_batched = BloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked_batched = BlockedBloomFilter::with_fpr(capacity, 0.01).unwrap();
        classic_batched.insert_batch(&inserted).unwrap();
        blocked_batched.insert_batch(&inserted).unwrap();
        classic_batched == classic && blocked_batched == blocked
    }
}
