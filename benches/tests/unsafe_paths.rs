//! Every `unsafe` block of the workspace, reached with small tables, so that
//! Miri can check them:
//!
//! ```sh
//! cargo +nightly miri test -p benches --test unsafe_paths
//! RUSTFLAGS="-C target-feature=+avx2,+bmi1,+bmi2,+popcnt" \
//!     cargo +nightly miri test -p benches --test unsafe_paths
//! ```
//!
//! The first run takes the portable kernels. The second makes
//! `is_x86_feature_detected!` report AVX2 under Miri, so that the AVX2
//! kernels run on Miri's emulation of the intrinsics.
//!
//! Why a file of its own: the crates' own suites query millions of keys,
//! far too many for Miri (one unit test of the classic filter ran for 15
//! minutes without finishing). These tests use tables from one block up to just past
//! the size at which the cuckoo filter starts keeping a table of alternate
//! offsets, and check every answer that must hold, so that they also mean
//! something in a plain `cargo test`, where they take well under a second.
//!
//! What they reach: `bloom`'s unchecked classic reads and writes, under
//! all three probe sequences, plain and atomic (from two threads), and its
//! AVX2 block probes, plain and atomic (from two threads); `counting-bloom`'s
//! unchecked counter reads, its AVX2 gathers and the blocked layout's AVX2
//! kernels, for both ways of making a key's two words; `cuckoo`'s
//! unaligned bucket windows at every fingerprint width, with and without
//! the offset table, through evictions, the victim slot and removes;
//! `xor-filter`'s unchecked slot reads; the same kernels again for filters
//! of `UniformHashes`; `filter-core`'s call into its batch
//! loop compiled for AVX2 (the batches of small tables, answered a chunk at
//! a time where the filter opts in). Not under Miri: batches over tables
//! of 8 MiB or more, the only ones that prefetch (`filter-core`'s other
//! `unsafe` block, a hint that reads no memory), since Miri took over 20
//! minutes to build such tables; a plain `cargo test` runs that test.

use std::collections::HashSet;

use bloom::{AtomicBlockedBloomFilter, AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
use counting_bloom::{BlockedCountingBloomFilter, CountingBloomFilter};
use cuckoo::{CuckooFilter, Error};
use filter_core::batch::PREFETCH_MIN_BYTES;
use filter_core::format::FLAG_FOLDED_PAIR;
use filter_core::testing::header;
use xor_filter::{BinaryFuse8, BinaryFuse16, Xor8, Xor16};

/// `n` distinct, well-spread 64-bit hashes (`mix64` is a bijection).
fn hashes(seed: u64, n: usize) -> Vec<u64> {
    (0..n as u64)
        .map(|i| filter_core::mix64(seed.wrapping_mul(1 << 32).wrapping_add(i)))
        .collect()
}

/// Inserts `hashes` into `filter` from two threads at once, half each.
fn insert_from_two_threads<F: Sync>(filter: &F, hashes: &[u64], insert: impl Fn(&F, u64) + Sync) {
    let (first, second) = hashes.split_at(hashes.len() / 2);
    std::thread::scope(|s| {
        for part in [first, second] {
            let insert = &insert;
            s.spawn(move || part.iter().for_each(|&h| insert(filter, h)));
        }
    });
}

#[test]
fn bloom_filters() {
    // Tables under 2^(1 + ⌊3k/4⌋) bits probe hashed, others under 64 · 2^k
    // cubically, larger ones linearly: all three sequences are here.
    let mut sequences = HashSet::new();
    for (bits, k) in [
        (1, 1),
        (63, 3),
        (1000, 7),
        (4097, 16),
        (8192, 7),
        (20_000, 1),
    ] {
        let mut f = BloomFilter::with_bits(bits, k).unwrap();
        sequences.insert(f.probe_sequence());
        let members = hashes(bits, 100);
        f.insert_hash_batch(members.iter().copied());
        assert!(members.iter().all(|&h| f.contains_hash(h)), "{bits} bits");
        let others = hashes(bits + 1, 50);
        let batched: Vec<bool> = f.contains_hash_batch(others.iter().copied()).collect();
        let single: Vec<bool> = others.iter().map(|&h| f.contains_hash(h)).collect();
        assert_eq!(batched, single);
        assert_eq!(BloomFilter::from_bytes(&f.to_bytes()).unwrap(), f);
        // The atomic filter's unchecked word access, inserting from two
        // threads: the same bits as the plain filter.
        let shared = AtomicBloomFilter::with_bits(bits, k).unwrap();
        insert_from_two_threads(&shared, &members, AtomicBloomFilter::insert_hash);
        assert!(
            members.iter().all(|&h| shared.contains_hash(h)),
            "{bits} bits"
        );
        assert_eq!(BloomFilter::from(shared), f);
    }
    assert_eq!(sequences.len(), 3, "{sequences:?}");
    for blocks in [1, 2, 3, 37] {
        let mut f = BlockedBloomFilter::with_blocks(blocks).unwrap();
        let members = hashes(blocks, 150);
        for &h in &members {
            f.insert_hash(h);
        }
        assert!(
            members.iter().all(|&h| f.contains_hash(h)),
            "{blocks} blocks"
        );
        assert!(
            f.contains_hash_batch(members.iter().copied())
                .all(|hit| hit)
        );
        assert_eq!(BlockedBloomFilter::from_bytes(&f.to_bytes()).unwrap(), f);
        // The atomic blocked filter's unchecked block access and its AVX2
        // kernels, inserting from two threads: the same bits again.
        let shared = AtomicBlockedBloomFilter::with_blocks(blocks).unwrap();
        insert_from_two_threads(&shared, &members, AtomicBlockedBloomFilter::insert_hash);
        assert!(
            members.iter().all(|&h| shared.contains_hash(h)),
            "{blocks} blocks"
        );
        // Repeats find their bits set and write nothing.
        assert!(members.iter().all(|&h| !shared.insert_unique_hash(h)));
        assert_eq!(BlockedBloomFilter::from(shared), f);
    }
}

/// Inserts members twice, removes half of them once and a quarter twice,
/// and checks counts, lookups and bytes on the way: the same sequence for
/// both counting layouts.
macro_rules! exercise_counting {
    ($filter:expr, $label:expr) => {{
        let mut f = $filter;
        let members = hashes($label, 120);
        for &h in &members {
            f.insert_hash(h);
        }
        f.insert_hash_batch(members.iter().copied());
        for &h in &members {
            assert!(f.count_hash(h) >= 2, "{}", $label);
        }
        let (gone, half) = members.split_at(30);
        for &h in gone {
            assert!(f.remove_hash(h));
        }
        assert_eq!(f.remove_hash_batch(gone.iter().copied()), gone.len());
        // Members never removed are still there, however the counters of
        // the removed ones overlapped with theirs.
        assert!(half.iter().all(|&h| f.contains_hash(h)), "{}", $label);
        assert!(f.contains_hash_batch(half.iter().copied()).all(|hit| hit));
        let saturating = hashes($label + 1, 1)[0];
        for _ in 0..20 {
            f.insert_hash(saturating);
        }
        assert_eq!(f.count_hash(saturating), 15);
        let mut twice = f.clone();
        twice.merge(&f).unwrap();
        assert!(half.iter().all(|&h| twice.count_hash(h) >= 2));
        f
    }};
}

#[test]
fn counting_filters() {
    // As for the classic Bloom filter, all three probe sequences; the AVX2
    // kernel gathers the counters of linear ones.
    let mut sequences = HashSet::new();
    for (counters, k) in [(1, 1), (17, 3), (1000, 7), (4096, 16), (8192, 7), (1000, 3)] {
        let f = exercise_counting!(
            CountingBloomFilter::with_counters(counters, k).unwrap(),
            counters
        );
        sequences.insert(f.probe_sequence());
        assert_eq!(CountingBloomFilter::from_bytes(&f.to_bytes()).unwrap(), f);
    }
    assert_eq!(sequences.len(), 3, "{sequences:?}");
    // The blocked layout's kernels are compiled once per way of making a
    // key's two words: the folded pair of new filters, and the `mix64` pair
    // of bytes older than format 1.5, reached here by clearing the new
    // filter's flag.
    for (blocks, k) in [(2, 1), (3, 6), (40, 16)] {
        let new = BlockedCountingBloomFilter::with_blocks(blocks, k).unwrap();
        let bytes = new.to_bytes();
        assert_eq!(header::flags(&bytes), FLAG_FOLDED_PAIR);
        let old = BlockedCountingBloomFilter::from_bytes(&header::forged(&bytes, 4, 0)).unwrap();
        assert_ne!(old, new);
        for f in [new, old] {
            let f = exercise_counting!(f, blocks);
            assert_eq!(
                BlockedCountingBloomFilter::from_bytes(&f.to_bytes()).unwrap(),
                f
            );
        }
    }
}

/// The same kernels compiled for filters of `UniformHashes`, which take
/// their positions from the hash as it is: each is its own instantiation,
/// so each is reached here too, with the default's small tables.
#[test]
fn filters_of_uniform_hashes() {
    for (bits, k) in [(63, 3), (4097, 16), (20_000, 7)] {
        let mut f = BloomFilter::with_bits(bits, k)
            .unwrap()
            .assume_uniform_hashes()
            .unwrap();
        let members = hashes(bits, 100);
        f.insert_hash_batch(members.iter().copied());
        assert!(members.iter().all(|&h| f.contains_hash(h)), "{bits} bits");
        let shared = AtomicBloomFilter::with_bits(bits, k)
            .unwrap()
            .assume_uniform_hashes()
            .unwrap();
        insert_from_two_threads(&shared, &members, AtomicBloomFilter::insert_hash);
        assert_eq!(BloomFilter::from(shared), f);
    }
    for blocks in [1, 37] {
        let mut f = BlockedBloomFilter::with_blocks(blocks)
            .unwrap()
            .assume_uniform_hashes()
            .unwrap();
        let members = hashes(blocks, 150);
        for &h in &members {
            f.insert_hash(h);
        }
        assert!(
            f.contains_hash_batch(members.iter().copied())
                .all(|hit| hit)
        );
        let shared = AtomicBlockedBloomFilter::with_blocks(blocks)
            .unwrap()
            .assume_uniform_hashes()
            .unwrap();
        insert_from_two_threads(&shared, &members, AtomicBlockedBloomFilter::insert_hash);
        assert_eq!(BlockedBloomFilter::from(shared), f);
    }
    for (counters, k) in [(17, 3), (8192, 7)] {
        let f = CountingBloomFilter::with_counters(counters, k)
            .unwrap()
            .assume_uniform_hashes()
            .unwrap();
        exercise_counting!(f, counters);
    }
    for (blocks, k) in [(3, 6), (40, 16)] {
        let f = BlockedCountingBloomFilter::with_blocks(blocks, k)
            .unwrap()
            .assume_uniform_hashes()
            .unwrap();
        exercise_counting!(f, blocks);
    }
    for bits in [9, 10, 13] {
        let mut f = CuckooFilter::with_buckets(64, bits)
            .unwrap()
            .assume_uniform_hashes()
            .unwrap();
        let members = hashes(u64::from(bits), 200);
        for &h in &members {
            f.insert_hash(h).unwrap();
        }
        assert!(members.iter().all(|&h| f.contains_hash(h)), "{bits} bits");
        assert!(members.iter().all(|&h| f.remove_hash(h)), "{bits} bits");
        assert!(f.is_empty());
    }
}

#[test]
fn cuckoo_filters_at_every_width_fill_to_full() {
    for bits in 4..=16 {
        // Small enough to fill, so that inserts walk eviction chains and
        // the last one lands in the victim slot.
        let mut f = CuckooFilter::with_capacity(60, bits).unwrap();
        let candidates = hashes(u64::from(bits), 400);
        let mut members = Vec::new();
        for &h in &candidates {
            match f.insert_hash(h) {
                Ok(()) => members.push(h),
                Err(Error::Full) => break,
                Err(e) => panic!("{bits} bits: {e}"),
            }
        }
        assert!(members.len() < candidates.len(), "{bits} bits: never full");
        assert!(members.iter().all(|&h| f.contains_hash(h)), "{bits} bits");
        // Failed inserts lose nothing.
        for &h in candidates.iter().rev().take(5) {
            assert!(f.insert_hash(h).is_err());
        }
        assert!(members.iter().all(|&h| f.contains_hash(h)), "{bits} bits");
        let copy = CuckooFilter::from_bytes(&f.to_bytes()).unwrap();
        assert!(members.iter().all(|&h| copy.contains_hash(h)));
        let (gone, kept) = members.split_at(members.len() / 2);
        assert_eq!(f.remove_hash_batch(gone.iter().copied()), gone.len());
        assert!(kept.iter().all(|&h| f.contains_hash(h)), "{bits} bits");
        assert!(f.contains_hash_batch(kept.iter().copied()).all(|hit| hit));
    }
}

#[test]
fn cuckoo_filters_with_a_table_of_alternate_offsets() {
    // Tables of 4- to 6-bit fingerprints keep their 2^f four-byte offsets
    // however small; wider ones once the buckets take 128 times their
    // space: at f = 7, from 64 KiB of buckets (18,723 buckets).
    for (items, bits) in [(300, 5), (72_000, 7)] {
        let mut f = CuckooFilter::with_capacity(items, bits).unwrap();
        let buckets_and_padding = (f.slots() * bits as usize).div_ceil(8) + 7;
        assert!(
            f.memory_bytes() > buckets_and_padding,
            "{bits} bits: no offsets"
        );
        let members = hashes(100 + u64::from(bits), 300);
        f.insert_hash_batch(members.iter().copied()).unwrap();
        assert!(members.iter().all(|&h| f.contains_hash(h)), "{bits} bits");
        for &h in &members[..100] {
            assert!(f.remove_hash(h));
        }
        assert!(members[100..].iter().all(|&h| f.contains_hash(h)));
    }
}

#[test]
fn static_filters() {
    for n in [1, 2, 3, 100, 1000] {
        let keys = hashes(n as u64, n);
        let xor8 = Xor8::from_hashes(&keys).unwrap();
        let xor16 = Xor16::from_hashes(&keys).unwrap();
        let fuse8 = BinaryFuse8::from_hashes(&keys).unwrap();
        let fuse16 = BinaryFuse16::from_hashes(&keys).unwrap();
        for &h in &keys {
            assert!(xor8.contains_hash(h) && xor16.contains_hash(h), "{n} keys");
            assert!(
                fuse8.contains_hash(h) && fuse16.contains_hash(h),
                "{n} keys"
            );
        }
        assert!(
            fuse8
                .contains_hash_batch(keys.iter().copied())
                .all(|hit| hit)
        );
        // `count` takes the batch's answers a chunk at a time (`fold`).
        let found = xor8.contains_hash_batch(keys.iter().copied());
        assert_eq!(found.filter(|&hit| hit).count(), n);
    }
}

#[test]
#[cfg_attr(miri, ignore = "building 8 MiB tables took Miri over 20 minutes")]
fn batches_prefetch_from_tables_of_8_mib() {
    // Just past the threshold, so that batched operations take their
    // prefetching path; few keys, since every byte of the table is memory
    // Miri tracks.
    let bits = PREFETCH_MIN_BYTES as u64 * 8 + 64;
    let members = hashes(7, 100);
    let mut bloom = BloomFilter::with_bits(bits, 7).unwrap();
    bloom.insert_hash_batch(members.iter().copied());
    assert!(
        bloom
            .contains_hash_batch(members.iter().copied())
            .all(|hit| hit)
    );
    let mut counting = CountingBloomFilter::with_counters(bits / 4, 7).unwrap();
    counting.insert_hash_batch(members.iter().copied());
    assert!(
        counting
            .contains_hash_batch(members.iter().copied())
            .all(|hit| hit)
    );
    assert_eq!(counting.remove_hash_batch(members.iter().copied()), 100);
    let mut cuckoo = CuckooFilter::with_capacity(5_000_000, 16).unwrap();
    cuckoo.insert_hash_batch(members.iter().copied()).unwrap();
    assert!(
        cuckoo
            .contains_hash_batch(members.iter().copied())
            .all(|hit| hit)
    );
}
