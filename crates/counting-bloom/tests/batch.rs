//! Batched lookups answer exactly as one-by-one lookups, in order, and
//! batched inserts and removals leave exactly the filter one-by-one inserts
//! and removals leave, for tables below and above the prefetching threshold.

use counting_bloom::{
    BatchContains, BatchInsert, BatchRemove, BlockedCountingBloomFilter, CountingBloomFilter,
};
use filter_core::batch::PREFETCH_MIN_BYTES;
use filter_core::testing::keys;
use quickcheck::quickcheck;

#[test]
fn batches_agree_with_single_lookups_in_small_and_large_tables() {
    // A table for 2,000,000 keys at 1 % takes 9.6 MB (prefetched: at least
    // PREFETCH_MIN_BYTES), one for 1,000 keys 4.8 KB (not). The large one
    // holds 20,000 keys: the answers, not the fill, are under test.
    for (capacity, n) in [(1_000usize, 1_000usize), (2_000_000, 20_000)] {
        let members = keys::members(3, n);
        let non_members = keys::non_members(3, n);
        let asked = keys::interleaved(&members, &non_members);

        let mut counting = CountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked = BlockedCountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        for key in &members {
            counting.insert(key);
            blocked.insert(key);
        }
        assert_eq!(
            counting.memory_bytes() >= PREFETCH_MIN_BYTES,
            capacity > 1_000,
            "the sizes straddle the threshold"
        );
        let one_by_one: Vec<bool> = asked.iter().map(|k| counting.contains(k)).collect();
        let batched: Vec<bool> = counting.contains_batch(&asked).collect();
        assert_eq!(batched, one_by_one, "CountingBloomFilter, {n} keys");
        assert!(
            batched.iter().step_by(2).all(|&found| found),
            "no false negatives"
        );

        let one_by_one: Vec<bool> = asked.iter().map(|k| blocked.contains(k)).collect();
        let batched: Vec<bool> = blocked.contains_batch(&asked).collect();
        assert_eq!(batched, one_by_one, "BlockedCountingBloomFilter, {n} keys");
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
        let by_hash: Vec<bool> = hashes.iter().map(|&h| counting.contains_hash(h)).collect();
        assert_eq!(
            counting.contains_hash_batch(hashes).collect::<Vec<_>>(),
            by_hash
        );
    }
}

quickcheck! {
    /// Any sequence of queries, after removes too, and of any length
    /// (shorter and longer than the lookahead), in a table that is
    /// prefetched (sized for 2,000,000 keys at 1 %: 9.6 MB) or not (200 keys: 240 bytes).
    fn batches_agree_after_inserts_and_removes(large: bool, inserted: Vec<u16>, removed: Vec<u16>, asked: Vec<u16>) -> bool {
        let capacity = if large { 2_000_000 } else { 200 };
        let mut counting = CountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked = BlockedCountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        for key in &inserted {
            counting.insert(key);
            blocked.insert(key);
        }
        for key in removed.iter().filter(|k| inserted.contains(k)) {
            counting.remove(key);
            blocked.remove(key);
        }
        let counting_ok = counting.contains_batch(&asked).eq(asked.iter().map(|k| counting.contains(k)));
        let blocked_ok = blocked.contains_batch(&asked).eq(asked.iter().map(|k| blocked.contains(k)));
        counting_ok && blocked_ok
    }
}

#[test]
fn batched_inserts_build_the_same_filters_in_small_and_large_tables() {
    // As above: 4.8 KB (not prefetched) and 9.6 MB (prefetched), the large
    // one holding 20,000 keys. Ten keys go in 20 times each, so their
    // counters saturate, and saturation must come out the same too.
    for (capacity, n) in [(1_000usize, 1_000usize), (2_000_000, 20_000)] {
        let mut inserted = keys::members(4, n);
        for _ in 0..19 {
            inserted.extend_from_within(..10);
        }
        let strings: Vec<String> = inserted.iter().map(|k| format!("key-{k}")).collect();
        let hashes: Vec<u64> = inserted
            .iter()
            .map(|&k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();

        let mut counting = CountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked = BlockedCountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        for ((key, string), &hash) in inserted.iter().zip(&strings).zip(&hashes) {
            counting.insert(key);
            counting.insert(string.as_str());
            counting.insert_hash(hash);
            blocked.insert(key);
            blocked.insert(string.as_str());
            blocked.insert_hash(hash);
        }
        assert!(
            blocked.saturated_counters() > 0,
            "the repeated keys saturate"
        );

        let mut counting_batched = CountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        counting_batched.insert_batch(&inserted).unwrap();
        counting_batched.extend(strings.iter().map(String::as_str));
        counting_batched
            .insert_hash_batch(hashes.iter().copied())
            .unwrap();
        // Same counters, though the three kinds of keys went in in another
        // order: saturating increments commute.
        assert!(
            counting_batched == counting,
            "CountingBloomFilter, {n} keys"
        );
        assert_eq!(
            counting_batched.saturated_counters(),
            counting.saturated_counters()
        );

        let mut blocked_batched = BlockedCountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        blocked_batched.insert_batch(&inserted).unwrap();
        blocked_batched.extend(strings.iter().map(String::as_str));
        blocked_batched.insert_hash_batch(hashes).unwrap();
        assert!(
            blocked_batched == blocked,
            "BlockedCountingBloomFilter, {n} keys"
        );
        assert_eq!(
            blocked_batched.saturated_counters(),
            blocked.saturated_counters()
        );
        assert!(
            inserted.iter().all(|k| blocked_batched.contains(k)),
            "no false negatives"
        );
    }
}

quickcheck! {
    /// Any keys, repeats included, batched or one by one, give the same
    /// counters, in a table that is prefetched or not.
    fn batched_inserts_agree(large: bool, inserted: Vec<u8>) -> bool {
        let capacity = if large { 2_000_000 } else { 200 };
        let mut counting = CountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked = BlockedCountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        for key in &inserted {
            counting.insert(key);
            blocked.insert(key);
        }
        let mut counting_batched = CountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked_batched = BlockedCountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        counting_batched.insert_batch(&inserted).unwrap();
        blocked_batched.insert_batch(&inserted).unwrap();
        counting_batched == counting && blocked_batched == blocked
    }
}

#[test]
fn batched_removes_leave_the_filters_of_one_by_one_removes() {
    // A table for 2,000 keys (9.6 KB, not prefetched) holding 1,000 keys
    // and as many pre-hashed ones, and one for 2,000,000 (9.6 MB,
    // prefetched) holding 20,000 of each. Ten keys go in
    // 20 times each, so their counters saturate. Half the keys leave, the
    // saturated ones among them, and so do certainly absent keys, whose
    // removals must fail and change nothing. (Absent keys that are false
    // positives are left out: their removal would decrement members'
    // counters, as the crate docs warn.)
    for (capacity, n) in [(2_000usize, 1_000usize), (2_000_000, 20_000)] {
        let members = keys::members(5, n);
        let mut inserted = members.clone();
        for _ in 0..19 {
            inserted.extend_from_within(..10);
        }
        let hashes: Vec<u64> = members
            .iter()
            .map(|&k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();

        let mut counting = CountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked = BlockedCountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        counting.insert_batch(&inserted).unwrap();
        blocked.insert_batch(&inserted).unwrap();
        counting.insert_hash_batch(hashes.iter().copied()).unwrap();
        blocked.insert_hash_batch(hashes.iter().copied()).unwrap();

        let mut leaving: Vec<u64> = members.iter().step_by(2).copied().collect();
        let absent: Vec<u64> = keys::non_members(5, n)
            .into_iter()
            .filter(|k| !counting.contains(k) && !blocked.contains(k))
            .collect();
        assert!(absent.len() > n * 9 / 10, "most non-members test absent");
        leaving.extend(&absent);
        let leaving_hashes: Vec<u64> = hashes.iter().step_by(2).copied().collect();
        let (mut counting_batched, mut blocked_batched) = (counting.clone(), blocked.clone());

        let removed = leaving.iter().filter(|k| counting.remove(*k)).count()
            + leaving_hashes
                .iter()
                .filter(|&&h| counting.remove_hash(h))
                .count();
        assert_eq!(
            removed,
            2 * n.div_ceil(2),
            "the members left, the absent did not"
        );
        let removed_batched = counting_batched.remove_batch(&leaving)
            + counting_batched.remove_hash_batch(leaving_hashes.iter().copied());
        assert_eq!(removed_batched, removed, "CountingBloomFilter, {n} keys");
        assert!(
            counting_batched == counting,
            "CountingBloomFilter, {n} keys"
        );

        let removed = leaving.iter().filter(|k| blocked.remove(*k)).count()
            + leaving_hashes
                .iter()
                .filter(|&&h| blocked.remove_hash(h))
                .count();
        assert_eq!(
            removed,
            2 * n.div_ceil(2),
            "the members left, the absent did not"
        );
        let removed_batched = blocked_batched.remove_batch(&leaving)
            + blocked_batched.remove_hash_batch(leaving_hashes.iter().copied());
        assert_eq!(
            removed_batched, removed,
            "BlockedCountingBloomFilter, {n} keys"
        );
        assert!(
            blocked_batched == blocked,
            "BlockedCountingBloomFilter, {n} keys"
        );

        let stayed = members.iter().skip(1).step_by(2);
        assert!(
            stayed
                .clone()
                .all(|k| blocked_batched.contains(k) && counting_batched.contains(k)),
            "no false negatives among the members that stayed"
        );
    }
}

quickcheck! {
    /// Any removals, of inserted keys or not, repeats included, batched or
    /// one by one, give the same counters and the same count of successes,
    /// in a table that is prefetched or not.
    fn batched_removes_agree(large: bool, inserted: Vec<u8>, removed: Vec<u8>) -> bool {
        let capacity = if large { 2_000_000 } else { 200 };
        let mut counting = CountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        let mut blocked = BlockedCountingBloomFilter::with_fpr(capacity, 0.01).unwrap();
        counting.insert_batch(&inserted).unwrap();
        blocked.insert_batch(&inserted).unwrap();
        let (mut counting_batched, mut blocked_batched) = (counting.clone(), blocked.clone());
        let counting_removed = removed.iter().filter(|k| counting.remove(*k)).count();
        let blocked_removed = removed.iter().filter(|k| blocked.remove(*k)).count();
        counting_batched.remove_batch(&removed) == counting_removed
            && blocked_batched.remove_batch(&removed) == blocked_removed
            && counting_batched == counting
            && blocked_batched == blocked
    }
}
