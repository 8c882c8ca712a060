//! False-positive rates and space, measured with seeded keys.
//!
//! Tolerance: a measured rate over q non-member queries is binomial, with
//! standard deviation σ = √(p(1 − p)/q); each assertion allows the target p
//! plus 4σ (a correct filter exceeds that with probability about 3·10^−5,
//! and the seeds are fixed, so a failure means a bug). The filters are sized
//! so that their expected rate, n / (quotients · 2^r), is at most p.

use filter_core::testing::keys::{members, non_members};
use filter_core::testing::stats::{fpr_upper_bound, measured_fpr};
use quotient_filter::QuotientFilter;

const RATES: [f64; 3] = [0.01, 0.001, 0.0001];

fn rate_at(n: usize, p: f64, queries: usize, seed: u64) -> (f64, f64) {
    let (_, rate, bound) = filled(n, p, queries, seed);
    (rate, bound)
}

/// A filter of `n` seeded keys at rate `p`, its measured rate over
/// `queries` non-members, and the bound that rate must meet.
fn filled(n: usize, p: f64, queries: usize, seed: u64) -> (QuotientFilter, f64, f64) {
    let mut filter = QuotientFilter::with_fpr(n, p).unwrap();
    let keys = members(seed, n);
    for k in &keys {
        filter.insert(k).unwrap();
    }
    assert!(keys.iter().all(|k| filter.contains(k)));
    let miss = non_members(seed, queries);
    let rate = measured_fpr(&filter, &miss);
    (filter, rate, fpr_upper_bound(p, queries, 1.0, 4.0))
}

#[test]
fn rate_at_a_thousand_keys() {
    for p in RATES {
        let (rate, bound) = rate_at(1_000, p, 1_000_000, 1);
        assert!(rate <= bound, "p {p}: {rate} > {bound}");
    }
}

#[test]
fn rate_at_a_million_keys() {
    for p in RATES {
        let (rate, bound) = rate_at(1_000_000, p, 1_000_000, 2);
        assert!(rate <= bound, "p {p}: {rate} > {bound}");
    }
}

/// `cargo test --release -p quotient-filter --test rates -- --ignored`
#[test]
#[ignore = "10^7 keys: run with --release -- --ignored"]
fn rate_and_space_at_ten_million_keys() {
    for p in RATES {
        let n = 10_000_000;
        let (filter, rate, bound) = filled(n, p, 2_000_000, 3);
        let bits_per_key = filter.memory_bytes() as f64 * 8.0 / n as f64;
        println!("10M keys, p {p}: measured {rate}, {bits_per_key:.3} bits/key");
        assert!(rate <= bound, "p {p}: {rate} > {bound}");
        assert!(
            bits_per_key <= space_bound(&filter, n),
            "p {p}: {bits_per_key}"
        );
    }
}

#[test]
fn rate_holds_through_three_doublings() {
    for p in [0.01, 0.001] {
        let n = 20_000;
        let mut filter = QuotientFilter::growable_with_fpr(n, p, 3).unwrap();
        let keys = members(4, 8 * n);
        let miss = non_members(4, 1_000_000);
        let bound = fpr_upper_bound(p, miss.len(), 1.0, 4.0);
        let mut inserted = 0;
        for doubling in 0..=3 {
            // Fill to the most this size takes, then measure.
            let target = n << doubling;
            while inserted < target {
                filter.insert(&keys[inserted]).unwrap();
                inserted += 1;
            }
            assert_eq!(
                filter.quotients(),
                QuotientFilter::with_fpr(n, p).unwrap().quotients() << doubling
            );
            let rate = measured_fpr(&filter, &miss);
            assert!(
                rate <= bound,
                "p {p}, {doubling} doublings: {rate} > {bound}"
            );
            assert!(keys[..inserted].iter().all(|k| filter.contains(k)));
        }
        // Explicit doublings of a full filter keep every key.
        let mut grown = filter.clone();
        grown.grow().unwrap();
        assert!(keys[..inserted].iter().all(|k| grown.contains(k)));
        assert!(measured_fpr(&grown, &miss) <= bound);
    }
}

/// (r + 2.125) / load, the bits a key costs in slots and metadata, plus 2 %.
fn space_bound(filter: &QuotientFilter, n: usize) -> f64 {
    let load = n as f64 / filter.quotients() as f64;
    (f64::from(filter.remainder_bits()) + 2.125) / load * 1.02
}

#[test]
fn space_at_996_000_and_a_million_keys() {
    for n in [996_000, 1_000_000] {
        let mut filter = QuotientFilter::with_fpr(n, 0.01).unwrap();
        for k in members(5, n) {
            filter.insert(&k).unwrap();
        }
        let bits_per_key = filter.memory_bytes() as f64 * 8.0 / n as f64;
        assert!(
            bits_per_key <= space_bound(&filter, n),
            "n {n}: {bits_per_key}"
        );
        assert!(bits_per_key < 9.7, "n {n}: {bits_per_key}");
        assert!(filter.load_factor() > 0.94, "{}", filter.load_factor());
    }
}

#[test]
fn space_at_ten_million_keys() {
    // The table's size depends on the shape alone; the ignored test above
    // fills one.
    let n = 10_000_000;
    for p in RATES {
        let filter = QuotientFilter::with_fpr(n, p).unwrap();
        let bits_per_key = filter.memory_bytes() as f64 * 8.0 / n as f64;
        assert!(
            bits_per_key <= space_bound(&filter, n),
            "p {p}: {bits_per_key}"
        );
    }
}

#[test]
fn a_million_copies_of_one_key_cost_at_most_8_slots() {
    for p in RATES {
        let mut filter = QuotientFilter::with_fpr(1_000, p).unwrap();
        for _ in 0..1_000_000 {
            filter.insert("the").unwrap();
        }
        assert_eq!(filter.count("the"), 1_000_000);
        assert!(
            filter.used_slots() <= 8,
            "p {p}: {} slots",
            filter.used_slots()
        );
    }
}
