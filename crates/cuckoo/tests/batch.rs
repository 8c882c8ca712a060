//! Batched lookups answer exactly as one-by-one lookups, in order, for tables
//! below and above the prefetching threshold, and in a full table whose
//! victim slot is occupied. Batched inserts and removals leave the table byte
//! for byte as one-by-one inserts and removals do; inserts stop where they
//! would stop.

use cuckoo::{BatchContains, BatchInsert, BatchRemove, CuckooFilter, Error};
use filter_core::batch::PREFETCH_MIN_BYTES;
use filter_core::testing::keys;
use quickcheck::quickcheck;

/// Whether `filter` answers `asked` alike batched and one by one, by key and
/// by hash.
fn agrees(filter: &CuckooFilter, asked: &[u64]) -> bool {
    let by_key = filter
        .contains_batch(asked)
        .eq(asked.iter().map(|k| filter.contains(k)));
    let hashes = asked.iter().map(|&k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let by_hash = filter
        .contains_hash_batch(hashes.clone())
        .eq(hashes.map(|h| filter.contains_hash(h)));
    by_key && by_hash
}

#[test]
fn batches_agree_with_single_lookups_in_small_and_large_tables() {
    // A table for 7,000,000 keys at 1 % takes 9.2 MB (prefetched: at least
    // PREFETCH_MIN_BYTES), one for 1,000 keys 1.4 KB (not). The large one
    // holds 20,000 keys: the answers, not the fill, are under test.
    for (capacity, n) in [(1_000usize, 1_000usize), (7_000_000, 20_000)] {
        let members = keys::members(3, n);
        let non_members = keys::non_members(3, n);
        let asked = keys::interleaved(&members, &non_members);

        let mut filter = CuckooFilter::with_fpr(capacity, 0.01).unwrap();
        for key in &members {
            filter.insert(key).unwrap();
        }
        assert_eq!(
            filter.memory_bytes() >= PREFETCH_MIN_BYTES,
            capacity > 1_000,
            "the sizes straddle the threshold"
        );
        let one_by_one: Vec<bool> = asked.iter().map(|k| filter.contains(k)).collect();
        let batched: Vec<bool> = filter.contains_batch(&asked).collect();
        assert_eq!(batched, one_by_one, "{n} keys");
        assert!(
            batched.iter().step_by(2).all(|&found| found),
            "no false negatives"
        );
        assert!(agrees(&filter, &asked));

        // Keys of other types go through the same hasher.
        let strings: Vec<String> = asked.iter().take(100).map(ToString::to_string).collect();
        let one_by_one: Vec<bool> = strings.iter().map(|k| filter.contains(k)).collect();
        assert_eq!(
            filter.contains_batch(&strings).collect::<Vec<_>>(),
            one_by_one
        );
        let strs: Vec<&str> = strings.iter().map(String::as_str).collect();
        assert_eq!(filter.contains_batch(strs).collect::<Vec<_>>(), one_by_one);

        // Removing half the members changes the answers alike.
        for key in members.iter().step_by(2) {
            assert!(filter.remove(key));
        }
        assert!(agrees(&filter, &asked));
    }
}

#[test]
fn a_full_table_answers_alike_batched_victim_included() {
    // 16 buckets of 8-bit fingerprints (64 slots, 135 bytes): looked up one
    // by one. 2^20 buckets of 16-bit fingerprints: 8 MiB + 7 bytes,
    // prefetched.
    for (buckets, bits) in [(16usize, 8u32), (1 << 20, 16)] {
        let mut filter = CuckooFilter::with_buckets(buckets, bits).unwrap();
        assert_eq!(
            filter.memory_bytes() >= PREFETCH_MIN_BYTES,
            buckets > 16,
            "the sizes straddle the threshold"
        );
        let mut inserted = Vec::new();
        let mut index = 0;
        while !filter.is_full() {
            let key = keys::key(7, index);
            filter.insert(&key).unwrap();
            inserted.push(key);
            index += 1;
        }
        // The victim slot holds an inserted item's fingerprint: every
        // lookup now goes through the victim test.
        let failed: Vec<u64> = (index..index + 1_000).map(|i| keys::key(7, i)).collect();
        for key in &failed {
            assert_eq!(filter.insert(key), Err(Error::Full));
        }
        let mut asked = inserted.clone();
        asked.extend(&failed);
        let batched: Vec<bool> = filter.contains_batch(&asked).collect();
        assert!(
            batched[..inserted.len()].iter().all(|&found| found),
            "no false negatives, the victim's item included"
        );
        assert!(filter.is_full());
        assert!(agrees(&filter, &asked), "{buckets} buckets, full");

        // Removes free slots and may move the victim back, batched or not.
        let mut batched = filter.clone();
        let leaving: Vec<u64> = inserted.iter().step_by(3).copied().collect();
        for key in &leaving {
            assert!(filter.remove(key));
        }
        assert_eq!(batched.remove_batch(&leaving), leaving.len());
        assert!(!batched.is_full() && !filter.is_full());
        assert!(batched.to_bytes() == filter.to_bytes(), "{buckets} buckets");
        assert!(agrees(&filter, &asked), "{buckets} buckets, after removes");
    }
}

/// Inserts `items` one by one, stopping at the first error, as
/// `insert_batch` promises to.
fn insert_each<T: std::hash::Hash + ?Sized>(
    filter: &mut CuckooFilter,
    items: &[&T],
) -> Result<(), Error> {
    items.iter().try_for_each(|item| filter.insert(*item))
}

#[test]
fn batched_inserts_leave_the_table_of_one_by_one_inserts() {
    // As above: 1,000 keys' table (1.4 KB, filled one by one inside
    // `insert_batch`) and 7,000,000 keys' (9.2 MB, through the ring) holding
    // 20,000 keys; both hold keys past the lookahead, so the ring fills and
    // drains.
    for (capacity, n) in [(1_000usize, 1_000usize), (7_000_000, 20_000)] {
        let members = keys::members(11, n);
        let fresh = || CuckooFilter::with_fpr(capacity, 0.01).unwrap();
        assert_eq!(
            fresh().memory_bytes() >= PREFETCH_MIN_BYTES,
            capacity > 1_000,
            "the sizes straddle the threshold"
        );

        let mut single = fresh();
        for key in &members {
            single.insert(key).unwrap();
        }
        let expected = single.to_bytes();

        let mut batched = fresh();
        batched.insert_batch(&members).unwrap();
        assert_eq!(batched.len(), n);
        assert!(batched.to_bytes() == expected, "u64 keys, {n}");

        // Pre-hashed: the hashes `insert` would have computed.
        let hasher = cuckoo::PortableHasher::default();
        let hashes = members
            .iter()
            .map(|k| cuckoo::KeyHasher::hash_key(&hasher, k));
        let mut batched = fresh();
        batched.insert_hash_batch(hashes).unwrap();
        assert!(batched.to_bytes() == expected, "hashes, {n}");

        // `str` and `String` keys, in small batches of uneven sizes
        // (shorter and longer than the lookahead), with a duplicate.
        let strings: Vec<String> = members.iter().map(ToString::to_string).collect();
        let mut single = fresh();
        for key in &strings {
            single.insert(key.as_str()).unwrap();
        }
        single.insert(strings[0].as_str()).unwrap();
        let mut batched = fresh();
        for chunk in strings.chunks(97) {
            batched
                .insert_batch(chunk.iter().map(String::as_str))
                .unwrap();
        }
        batched.insert_batch([strings[0].as_str()]).unwrap();
        assert_eq!(batched.len(), n + 1, "the duplicate counts");
        assert!(batched.to_bytes() == single.to_bytes(), "str keys, {n}");
        let mut batched = fresh();
        batched.insert_batch(&strings).unwrap();
        batched.insert_batch(&strings[..1]).unwrap();
        assert!(batched.to_bytes() == single.to_bytes(), "String keys, {n}");
        assert!(
            strings.iter().all(|k| batched.contains(k)),
            "no false negatives"
        );
    }
}

#[test]
fn batched_removes_leave_the_table_of_one_by_one_removes() {
    // A table for 3,000 keys (about 4 KB, not prefetched) holding 1,000 keys,
    // later 2,000, and one for 7,000,000 (9.2 MB, prefetched) holding
    // 20,000. Half of them leave, one copy of a duplicate, and certainly
    // absent keys, whose removals must fail and change nothing.
    for (capacity, n) in [(3_000usize, 1_000usize), (7_000_000, 20_000)] {
        let members = keys::members(17, n);
        let mut filter = CuckooFilter::with_fpr(capacity, 0.01).unwrap();
        assert_eq!(
            filter.memory_bytes() >= PREFETCH_MIN_BYTES,
            capacity > 3_000,
            "the sizes straddle the threshold"
        );
        filter.insert_batch(&members).unwrap();
        filter.insert(&members[0]).unwrap();
        let absent: Vec<u64> = keys::non_members(17, n)
            .into_iter()
            .filter(|k| !filter.contains(k))
            .collect();
        let mut leaving: Vec<u64> = members.iter().step_by(2).copied().collect();
        leaving.extend(&absent);
        let mut batched = filter.clone();

        let removed = leaving.iter().filter(|k| filter.remove(*k)).count();
        assert_eq!(
            removed,
            n.div_ceil(2),
            "the members left, the absent did not"
        );
        assert_eq!(batched.remove_batch(&leaving), removed, "{n} keys");
        assert!(batched.to_bytes() == filter.to_bytes(), "u64 keys, {n}");
        assert!(batched.contains(&members[0]), "one copy of two left");

        // Pre-hashed, and `str` keys.
        let hasher = cuckoo::PortableHasher::default();
        let hashes: Vec<u64> = members
            .iter()
            .skip(1)
            .step_by(4)
            .map(|k| cuckoo::KeyHasher::hash_key(&hasher, k))
            .collect();
        let removed = hashes.iter().filter(|&&h| filter.remove_hash(h)).count();
        assert_eq!(removed, hashes.len());
        assert_eq!(batched.remove_hash_batch(hashes.iter().copied()), removed);
        assert!(batched.to_bytes() == filter.to_bytes(), "hashes, {n}");
        let strings: Vec<String> = members.iter().map(ToString::to_string).collect();
        filter
            .insert_batch(strings.iter().map(String::as_str))
            .unwrap();
        batched
            .insert_batch(strings.iter().map(String::as_str))
            .unwrap();
        let removed = strings.iter().filter(|k| filter.remove(k.as_str())).count();
        assert_eq!(
            batched.remove_batch(strings.iter().map(String::as_str)),
            removed
        );
        assert!(batched.to_bytes() == filter.to_bytes(), "str keys, {n}");

        let stayed = members.iter().skip(3).step_by(4);
        assert!(
            stayed.clone().all(|k| batched.contains(k)),
            "no false negatives among the members that stayed"
        );
    }
}

#[test]
fn an_overfilled_batch_stops_at_the_first_full_as_one_by_one_inserts_do() {
    // 16 buckets of 8-bit fingerprints (64 slots, looked up one by one) and
    // 2^20 buckets of 16-bit fingerprints (8 MiB + 7 bytes, prefetched;
    // 4M slots, so 4.3M keys overfill it). The large table is the slow part
    // of this test: about 4M inserts, twice.
    for (buckets, bits, n) in [(16usize, 8u32, 200usize), (1 << 20, 16, 4_300_000)] {
        let fresh = || CuckooFilter::with_buckets(buckets, bits).unwrap();
        assert_eq!(
            fresh().memory_bytes() >= PREFETCH_MIN_BYTES,
            buckets > 16,
            "the sizes straddle the threshold"
        );
        let members = keys::members(13, n);

        let mut single = fresh();
        let mut succeeded = 0;
        let mut first_error = None;
        for key in &members {
            match single.insert(key) {
                Ok(()) => succeeded += 1,
                Err(error) => {
                    first_error = Some(error);
                    break;
                }
            }
        }
        assert_eq!(first_error, Some(Error::Full), "{buckets} buckets overfill");

        let mut batched = fresh();
        assert_eq!(batched.insert_batch(&members), Err(Error::Full));
        assert_eq!(batched.len(), single.len());
        assert_eq!(batched.len(), succeeded, "len tells how many went in");
        assert!(batched.to_bytes() == single.to_bytes(), "{buckets} buckets");
        assert!(
            members[..succeeded].iter().all(|k| batched.contains(k)),
            "no false negatives among the inserted, {buckets} buckets"
        );
        // A full table refuses a further batch at once, unchanged.
        let before = batched.to_bytes();
        assert_eq!(batched.insert_batch(&members[..1]), Err(Error::Full));
        assert!(batched.to_bytes() == before);
    }
}

quickcheck! {
    /// Any sequence of queries, of any length (shorter and longer than the
    /// lookahead), after inserts (some failing: 64 distinct keys, so an
    /// item's ninth copy, or any insert into the 16-slot table once it is
    /// full, is refused) and removes of inserted items, in a table that is
    /// prefetched (sized for 7,000,000 keys at 1 %: 9.2 MB) or not (4
    /// buckets of 4-bit fingerprints: 15 bytes).
    fn batches_agree_after_inserts_removes_and_failed_inserts(
        large: bool,
        inserted: Vec<u16>,
        removed: Vec<u16>,
        asked: Vec<u16>
    ) -> bool {
        let mut filter = if large {
            CuckooFilter::with_fpr(7_000_000, 0.01).unwrap()
        } else {
            CuckooFilter::with_buckets(4, 4).unwrap()
        };
        let mut present = Vec::new();
        for key in inserted.iter().map(|k| u64::from(k % 64)) {
            if filter.insert(&key).is_ok() {
                present.push(key);
            }
        }
        for key in removed.iter().map(|k| u64::from(k % 64)) {
            if let Some(at) = present.iter().position(|&p| p == key) {
                present.swap_remove(at);
                filter.remove(&key);
            }
        }
        let mut asked: Vec<u64> = asked.iter().map(|&k| u64::from(k % 128)).collect();
        asked.extend(&present);
        let found = filter.contains_batch(&asked[asked.len() - present.len()..]).all(|f| f);
        found && agrees(&filter, &asked)
    }

    /// Any sequence of batched inserts (of any length, shorter and longer
    /// than the lookahead, some failing: 48 distinct keys, so a ninth copy,
    /// or any insert into the 16-slot table once it is full, is refused),
    /// batched removes, single inserts and removes leaves the table as the
    /// one-by-one sequence does, in a table that is prefetched (7,000,000 keys at 1 %,
    /// 9.2 MB) or not (4 buckets of 4-bit fingerprints).
    fn batched_inserts_agree_with_single_inserts(
        large: bool,
        ops: Vec<(u8, Vec<u8>)>
    ) -> bool {
        let fresh = || if large {
            CuckooFilter::with_fpr(7_000_000, 0.01).unwrap()
        } else {
            CuckooFilter::with_buckets(4, 4).unwrap()
        };
        let (mut batched, mut single) = (fresh(), fresh());
        for (op, keys) in ops {
            let keys: Vec<u64> = keys.iter().map(|&k| u64::from(k % 48)).collect();
            match op % 5 {
                // A batch, by key or by hash.
                0 | 1 => {
                    let got = if op % 5 == 0 {
                        batched.insert_batch(&keys)
                    } else {
                        let hasher = cuckoo::PortableHasher::default();
                        batched.insert_hash_batch(
                            keys.iter().map(|k| cuckoo::KeyHasher::hash_key(&hasher, k)),
                        )
                    };
                    let expected = insert_each(&mut single, &keys.iter().collect::<Vec<_>>());
                    if got != expected {
                        return false;
                    }
                }
                // Single inserts into both.
                2 => {
                    for key in &keys {
                        if batched.insert(key) != single.insert(key) {
                            return false;
                        }
                    }
                }
                // A batch of removes (of present and absent keys alike).
                3 => {
                    let removed = keys.iter().filter(|k| single.remove(*k)).count();
                    if batched.remove_batch(&keys) != removed {
                        return false;
                    }
                }
                // Removes from both.
                _ => {
                    for key in &keys {
                        if batched.remove(key) != single.remove(key) {
                            return false;
                        }
                    }
                }
            }
            // Comparing bytes after every step would copy the 9.2 MB
            // table each time: compare the length and every key's answer
            // here, the bytes once at the end.
            if batched.len() != single.len()
                || (0..48u64).any(|k| batched.contains(&k) != single.contains(&k))
            {
                return false;
            }
        }
        batched.to_bytes() == single.to_bytes()
    }
}
