//! Seeded statistical tests: false-positive rate and space.

use cuckoo::CuckooFilter;
use filter_core::testing::{keys, stats};

/// Target rates across the range, and their fingerprint widths.
const TARGETS: [(f64, u32); 4] = [(0.03, 9), (0.01, 10), (0.002, 12), (0.0002, 16)];

#[test]
fn fpr_is_below_target_and_matches_theory() {
    // n = 200,003 (not a power of two), seed 42; members and non-members are
    // disjoint by construction.
    let n = 200_003;
    let members = keys::members(42, n);
    for (p, bits) in TARGETS {
        let mut filter = CuckooFilter::with_fpr(n, p).unwrap();
        assert_eq!(filter.fingerprint_bits(), bits);
        for k in &members {
            filter.insert(k).unwrap();
        }
        assert!(members.iter().all(|k| filter.contains(k)));
        // Enough queries for about 300 expected false positives even at the
        // smallest rate, so 4σ is about a quarter of the mean or less.
        let queries = if p < 0.001 { 3_000_000 } else { 1_000_000 };
        let non_members = keys::non_members(42, queries);
        let measured = stats::measured_fpr(&filter, &non_members);

        // The promise: at most p. The bound adds 4 binomial σ at rate p
        // (σ = √(p(1−p)/q)); a correct filter exceeds it with probability
        // below 1e-4, and the expected rate is well below p anyway.
        let bound = stats::fpr_upper_bound(p, queries, 1.0, 4.0);
        assert!(
            measured <= bound,
            "p {p}: measured {measured} > bound {bound}"
        );

        // Theory: a query compares its fingerprint with the occupied slots of
        // two buckets, 8 · load on average, each a match with probability
        // 1/(2^f − 1). 1 − (1 − q)^k is below k·q by under 3 % here, so the
        // measured rate must lie within [0.9, 1.05] of 8·load/(2^f − 1),
        // widened by 4σ (σ at the theoretical rate).
        let theory =
            8.0 * filter.len() as f64 / filter.slots() as f64 / ((1u64 << bits) - 1) as f64;
        let sigma = (theory * (1.0 - theory) / queries as f64).sqrt();
        assert!(
            measured >= 0.9 * theory - 4.0 * sigma && measured <= 1.05 * theory + 4.0 * sigma,
            "p {p}: measured {measured}, theory {theory}, σ {sigma}"
        );
        println!(
            "p {p}: f {bits}, load {:.4}, {:.3} bits/key, measured FPR {measured:.6} (theory {theory:.6})",
            filter.len() as f64 / filter.slots() as f64,
            filter.memory_bytes() as f64 * 8.0 / n as f64
        );
    }
}

/// The space promise: `filter`, sized for `n` keys with `bits`-bit
/// fingerprints, takes at most f / 0.95 × 1.02 bits per key. Sizing is
/// deterministic, so no tolerance is needed.
fn assert_space_promise(filter: &CuckooFilter, n: usize, bits: u32, what: &str) {
    let bits_per_key = filter.memory_bytes() as f64 * 8.0 / n as f64;
    let limit = f64::from(bits) / 0.95 * 1.02;
    println!("{what}: {bits_per_key:.3} bits/key (limit {limit:.3})");
    assert!(bits_per_key <= limit, "{what}: {bits_per_key} > {limit}");
}

#[test]
fn bits_per_key_within_two_percent_of_f_over_095() {
    // The space promise at sizes that are not powers of two.
    for n in [600_000, 10_000_000] {
        for (p, bits) in TARGETS {
            let filter = CuckooFilter::with_fpr(n, p).unwrap();
            assert_space_promise(&filter, n, bits, &format!("n {n} p {p}"));
        }
    }
}

#[test]
fn bits_per_key_within_two_percent_where_offsets_are_first_kept() {
    // A large table keeps every fingerprint's alternate offset, 4 · 2^f
    // bytes on top of the buckets, from 128 times that space: up to 0.8 %
    // more, the most just past the size where it starts. The space promise
    // must hold there too, at every width whose table can keep them (4 to 6
    // bits keep theirs at any size, and with_fpr widens those). For each
    // width, the smallest n whose table keeps them, found by bisection:
    // keeping them is monotone in the bucket count, and so in n.
    let keeps = |n: usize, bits: u32| {
        let filter = CuckooFilter::with_fpr(n, 8.0 / f64::from(1u32 << bits)).unwrap();
        assert_eq!(filter.fingerprint_bits(), bits, "n {n}");
        let buckets = ((filter.slots() / 4) * 4 * bits as usize).div_ceil(8) + 7;
        (filter.memory_bytes() > buckets, filter)
    };
    for bits in 8..=16 {
        let (mut without, mut with) = (1000, 1 << 25);
        assert!(
            !keeps(without, bits).0 && keeps(with, bits).0,
            "{bits} bits"
        );
        while with - without > 1 {
            let mid = without + (with - without) / 2;
            if keeps(mid, bits).0 {
                with = mid;
            } else {
                without = mid;
            }
        }
        let (_, filter) = keeps(with, bits);
        assert_space_promise(&filter, with, bits, &format!("{bits} bits from n {with}"));
    }
}

#[test]
fn ten_million_inserts_fit_without_full() {
    // with_fpr's capacity promise at the large size, with 10 % removed and
    // re-inserted as other keys (deletes must not erode capacity).
    let n = 10_000_000;
    let mut filter = CuckooFilter::with_fpr(n, 0.01).unwrap();
    for i in 0..n as u64 {
        filter.insert_hash(keys::key(7, i)).unwrap();
    }
    for i in 0..n as u64 / 10 {
        assert!(filter.remove_hash(keys::key(7, i)));
    }
    for i in n as u64..n as u64 + n as u64 / 10 {
        filter.insert_hash(keys::key(7, i)).unwrap();
    }
    assert_eq!(filter.len(), n);
    assert!(
        (n as u64 / 10..n as u64 + n as u64 / 10).all(|i| filter.contains_hash(keys::key(7, i)))
    );
    println!(
        "10M at 1 %: load {:.4}",
        filter.len() as f64 / filter.slots() as f64
    );
}
