//! Every `unsafe` block of the workspace, reached with small tables, so that
//! Miri can check them:
//!
//! ```sh
//! cargo +nightly miri test -p benches --test unsafe_paths
//! RUSTFLAGS="-C target-feature=+avx2,+bmi1,+bmi2,+popcnt,+lzcnt" \
//!     cargo +nightly miri test -p benches --test unsafe_paths
//! ```
//!
//! The first run takes the portable kernels. The second makes
//! `is_x86_feature_detected!` report AVX2, BMI1/2, POPCNT and LZCNT under
//! Miri, so that the AVX2 kernels and the quotient filter's BMI2 copies
//! (select by `pdep`) run on Miri's emulation of the intrinsics.
//!
//! Why a file of its own: the crates' own suites query millions of keys,
//! far too many for Miri (one unit test of the classic filter ran for 15
//! minutes without finishing). These tests use tables from one block to a
//! few thousand slots, and check every answer that must hold, so that they
//! also mean something in a plain `cargo test`, where they take well under a second.
//!
//! What they reach: `bloom`'s unchecked classic reads and writes, under
//! all three probe sequences, plain and atomic (from two threads), and its
//! AVX2 block probes, plain and atomic (from two threads); `counting-bloom`'s
//! unchecked counter reads, its AVX2 gathers and the blocked layout's AVX2
//! kernels; `cuckoo`'s unaligned bucket windows at every fingerprint
//! width, through evictions, the victim slot and removes;
//! `bloom`'s Parquet split-block kernel (AVX2 where detected);
//! `quotient-filter`'s operations compiled for BMI2 and its `pdep` select,
//! through inserts, counts, removes, merges and growth, and the unchecked
//! word reads of its lookup path (with and without counters stored);
//! `xor-filter`'s unchecked slot reads (owned filters, views and
//! partitioned builds) and `Ribbon`'s AVX2 lookup kernels, banding and
//! back substitution (the kernels run on the owned filter's words and, in
//! a `RibbonRef`, on the borrowed bytes, one byte off so that the words
//! are unaligned, up to the last band that the kernel may read in place) (its AVX-512 lookup kernels are inline assembly,
//! which Miri cannot run: a plain `cargo test` runs them where the CPU has
//! AVX-512); the scalable filters'
//! stages, which are the same kernels; `filter-core`'s call into its batch
//! loop compiled for AVX2 (the batches of small tables, answered a chunk at
//! a time where the filter opts in). Not under Miri: batches over tables
//! of 8 MiB or more, the only ones that prefetch (`filter-core`'s other
//! `unsafe` block, a hint that reads no memory), since Miri took over 20
//! minutes to build such tables; a plain `cargo test` runs that test.

use bloom::parquet::ParquetBloomFilter;
use bloom::{
    AtomicBlockedBloomFilter, AtomicBloomFilter, BatchContains, BatchInsert, BlockedBloomFilter,
    BloomFilter, ScalableBloomFilter,
};
use counting_bloom::{BatchRemove, BlockedCountingBloomFilter, CountingBloomFilter};
use cuckoo::{CuckooFilter, Error, ScalableCuckooFilter};
use filter_core::batch::PREFETCH_MIN_BYTES;
use quotient_filter::QuotientFilter;
use xor_filter::{
    BinaryFuse8, BinaryFuse8Ref, BinaryFuse16, BinaryFuse16Ref, PartitionedBinaryFuse8,
    PartitionedBinaryFuse16Ref, Ribbon, RibbonRef, Xor8, Xor8Ref, Xor16, Xor16Ref,
};

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
    for (bits, k) in [
        (1, 1),
        (63, 3),
        (1000, 7),
        (4097, 16),
        (8192, 7),
        (20_000, 1),
    ] {
        let mut f = BloomFilter::with_bits(bits, k).unwrap();
        let members = hashes(bits, 100);
        f.insert_hash_batch(members.iter().copied()).unwrap();
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
        // Repeats find their bits set and change nothing.
        for &h in &members {
            shared.insert_hash(h);
        }
        assert_eq!(BlockedBloomFilter::from(shared), f);
    }
    // The scalable filter's stages are classic filters: grown through a
    // few stages from a tiny first one.
    let mut f = ScalableBloomFilter::with_fpr(4, 0.01).unwrap();
    let members = hashes(5, 200);
    for &h in &members {
        f.insert_hash(h).unwrap();
    }
    assert!(f.stages() > 2);
    assert!(members.iter().all(|&h| f.contains_hash(h)));
    assert!(
        f.contains_hash_batch(members.iter().copied())
            .all(|hit| hit)
    );
}

#[test]
fn parquet_split_block_filters() {
    for bytes in [32, 64, 128, 1024] {
        let mut f = ParquetBloomFilter::with_bytes(bytes).unwrap();
        let members = hashes(bytes as u64, 100);
        for &h in &members {
            f.insert_hash(h);
        }
        assert!(members.iter().all(|&h| f.contains_hash(h)), "{bytes} bytes");
        assert!(f.contains_hash_batch(&members).iter().all(|&hit| hit));
        let others = hashes(bytes as u64 + 1, 50);
        let single: Vec<bool> = others.iter().map(|&h| f.contains_hash(h)).collect();
        assert_eq!(f.contains_hash_batch(&others), single);
    }
}

/// Inserts members twice, removes a quarter of them twice, and checks
/// counts, lookups and bytes on the way: the same sequence for both
/// counting layouts.
macro_rules! exercise_counting {
    ($filter:expr, $label:expr) => {{
        let mut f = $filter;
        let members = hashes($label, 120);
        for &h in &members {
            f.insert_hash(h);
        }
        f.insert_hash_batch(members.iter().copied()).unwrap();
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
    for (counters, k) in [(1, 1), (17, 3), (1000, 7), (4096, 16), (8192, 7), (1000, 3)] {
        let f = exercise_counting!(
            CountingBloomFilter::with_counters(counters, k).unwrap(),
            counters
        );
        assert_eq!(CountingBloomFilter::from_bytes(&f.to_bytes()).unwrap(), f);
    }
    for (blocks, k) in [(2, 1), (3, 6), (40, 16)] {
        let f = exercise_counting!(
            BlockedCountingBloomFilter::with_blocks(blocks, k).unwrap(),
            blocks
        );
        assert_eq!(
            BlockedCountingBloomFilter::from_bytes(&f.to_bytes()).unwrap(),
            f
        );
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
fn scalable_cuckoo_filters_through_stages() {
    let mut f = ScalableCuckooFilter::with_fpr(8, 0.01).unwrap();
    let members = hashes(11, 300);
    for &h in &members {
        f.insert_hash(h).unwrap();
    }
    assert!(f.stages() > 1);
    assert!(members.iter().all(|&h| f.contains_hash(h)));
    assert!(
        f.contains_hash_batch(members.iter().copied())
            .all(|hit| hit)
    );
    for &h in &members[..100] {
        assert!(f.remove_hash(h));
    }
    assert!(members[100..].iter().all(|&h| f.contains_hash(h)));
    assert_eq!(ScalableCuckooFilter::from_bytes(&f.to_bytes()).unwrap(), f);
}

#[test]
fn quotient_filters() {
    // Small tables at several rates (remainder widths), filled close to
    // capacity so that runs and clusters wrap and shift; every operation
    // takes the BMI2 copies where the CPU (or Miri) reports them.
    for (items, fpr) in [(16, 0.1), (100, 0.01), (300, 1e-4)] {
        let mut f = QuotientFilter::with_fpr(items, fpr).unwrap();
        let members = hashes(items as u64, items * 9 / 10);
        for &h in &members {
            f.insert_hash(h).unwrap();
        }
        // No counters yet: lookups take the plain path with unchecked
        // reads, for members and for other keys (any answer is allowed
        // for those; the reads must stay in bounds).
        assert!(members.iter().all(|&h| f.contains_hash(h)), "{items}");
        let others = hashes(items as u64 + 1, items);
        let false_hits = others.iter().filter(|&&h| f.contains_hash(h)).count();
        assert!(false_hits < others.len(), "{items}");
        // Counts above 2 take the counter encoding.
        for _ in 0..5 {
            f.insert_hash(members[0]).unwrap();
        }
        assert!(f.count_hash(members[0]) >= 6);
        assert!(members.iter().all(|&h| f.contains_hash(h)), "{items}");
        assert!(
            f.contains_hash_batch(members.iter().copied())
                .all(|hit| hit)
        );
        let (gone, kept) = members.split_at(members.len() / 3);
        assert_eq!(f.remove_hash_batch(gone.iter().copied()), gone.len());
        assert!(kept.iter().all(|&h| f.contains_hash(h)), "{items}");
        let copy = QuotientFilter::from_bytes(&f.to_bytes()).unwrap();
        assert!(kept.iter().all(|&h| copy.contains_hash(h)));
        // A merge adds the counts of a few keys to a filter of the same
        // shape.
        let mut merged = QuotientFilter::with_fpr(items, fpr).unwrap();
        let few = &kept[..kept.len().div_ceil(10)];
        merged.insert_hash_batch(few.iter().copied()).unwrap();
        merged.merge(&copy).unwrap();
        assert!(few.iter().all(|&h| merged.count_hash(h) >= 2));
        assert!(kept.iter().all(|&h| merged.contains_hash(h)));
        f.grow().unwrap();
        assert!(kept.iter().all(|&h| f.contains_hash(h)), "{items} grown");
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
        let ribbon = Ribbon::from_hashes_with_fpr(&keys, 0.01).unwrap();
        for &h in &keys {
            assert!(xor8.contains_hash(h) && xor16.contains_hash(h), "{n} keys");
            assert!(
                fuse8.contains_hash(h) && fuse16.contains_hash(h),
                "{n} keys"
            );
            assert!(ribbon.contains_hash(h), "{n} keys");
        }
        assert!(
            fuse8
                .contains_hash_batch(keys.iter().copied())
                .all(|hit| hit)
        );
        assert!(
            ribbon
                .contains_hash_batch(keys.iter().copied())
                .all(|hit| hit)
        );
        // `count` takes the batch's answers a chunk at a time (`fold`).
        let found = xor8.contains_hash_batch(keys.iter().copied());
        assert_eq!(found.filter(|&hit| hit).count(), n);
        // The views read the same tables in place.
        let (b8, b16) = (xor8.to_bytes(), xor16.to_bytes());
        let (f8, f16) = (fuse8.to_bytes(), fuse16.to_bytes());
        let views = (
            Xor8Ref::from_bytes(&b8).unwrap(),
            Xor16Ref::from_bytes(&b16).unwrap(),
            BinaryFuse8Ref::from_bytes(&f8).unwrap(),
            BinaryFuse16Ref::from_bytes(&f16).unwrap(),
        );
        for &h in &keys {
            assert!(views.0.contains_hash(h) && views.1.contains_hash(h));
            assert!(views.2.contains_hash(h) && views.3.contains_hash(h));
        }
    }
    // Ribbon rows at rates of one to many bits.
    for fpr in [0.5, 0.01, 1e-6] {
        let keys = hashes(3, 500);
        let ribbon = Ribbon::from_hashes_with_fpr(&keys, fpr).unwrap();
        assert!(keys.iter().all(|&h| ribbon.contains_hash(h)), "{fpr}");
        // The view runs the same kernels on the bytes where a band's reads
        // stay inside them (most of them here), and a safe loop elsewhere;
        // one byte off, its words are unaligned.
        let bytes = ribbon.to_bytes();
        let mut shifted = vec![0u8];
        shifted.extend_from_slice(&bytes);
        for b in [&bytes[..], &shifted[1..]] {
            let view = RibbonRef::from_bytes(b).unwrap();
            assert!(keys.iter().all(|&h| view.contains_hash(h)), "{fpr}");
            let others = hashes(5, 500);
            assert!(
                others
                    .iter()
                    .all(|&h| view.contains_hash(h) == ribbon.contains_hash(h)),
                "{fpr}"
            );
        }
    }
    let keys = hashes(4, 600);
    let partitioned = PartitionedBinaryFuse8::from_hashes(&keys, 3).unwrap();
    assert!(keys.iter().all(|&h| partitioned.contains_hash(h)));
    let bytes = xor_filter::PartitionedBinaryFuse16::from_hashes(&keys, 3)
        .unwrap()
        .to_bytes();
    let view = PartitionedBinaryFuse16Ref::from_bytes(&bytes).unwrap();
    assert!(keys.iter().all(|&h| view.contains_hash(h)));
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
    bloom.insert_hash_batch(members.iter().copied()).unwrap();
    assert!(
        bloom
            .contains_hash_batch(members.iter().copied())
            .all(|hit| hit)
    );
    let mut counting = CountingBloomFilter::with_counters(bits / 4, 7).unwrap();
    counting.insert_hash_batch(members.iter().copied()).unwrap();
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
    let mut quotient = QuotientFilter::with_fpr(2_000_000, 0.01).unwrap();
    quotient.insert_hash_batch(members.iter().copied()).unwrap();
    assert_eq!(quotient.remove_hash_batch(members.iter().copied()), 100);
}
