//! Structured pre-hashed keys: ids that users pass to `insert_hash` as they
//! are (shifted, byte-swapped, multiplied by the constant of their own
//! Fibonacci hash). The filter's mixer must turn each shape into buckets and
//! fingerprints that behave like random ones: the rate stays at its target,
//! and `with_fpr(n, p)` accepts all n inserts without `Full`. A mixer whose
//! fingerprint depends on the bucket fails both: keys of one bucket share
//! fingerprints (false positives), and few fingerprints mean few alternate
//! buckets (inserts fill a corner of the table and hit `Full` early).

use cuckoo::CuckooFilter;
use filter_core::testing::stats::fpr_upper_bound;

const PHI: u64 = 0x9E37_79B9_7F4A_7C15;
const FX: u64 = 0x517C_C1B7_2722_0A95;

/// A named way of turning id `i` into the hash passed to `insert_hash`.
type Shape = (&'static str, fn(u64) -> u64);

/// Sequential ids, and the ten shapes of the Bloom filters' structured-id
/// test.
fn shapes() -> [Shape; 11] {
    [
        ("i", |i| i),
        ("i << 8", |i| i << 8),
        ("i << 16", |i| i << 16),
        ("i << 24", |i| i << 24),
        ("i << 40", |i| i << 40),
        ("i << 44", |i| i << 44),
        ("bswap(i)", u64::swap_bytes),
        ("i · φ", |i| i.wrapping_mul(PHI)),
        ("fold(i · φ)", |i| {
            let x = i.wrapping_mul(PHI);
            x ^ (x >> 32)
        }),
        ("i · fx", |i| i.wrapping_mul(FX)),
        ("i · (2^32 + 1)", |i| i.wrapping_mul((1 << 32) + 1)),
    ]
}

/// Inserts ids `0..n` of `shape`, failing the test at the first `Full`,
/// and returns the measured rate over ids `n..n + queries`.
fn fill_and_measure(filter: &mut CuckooFilter, shape: fn(u64) -> u64, n: u64, queries: u64) -> f64 {
    for id in 0..n {
        if let Err(e) = filter.insert_hash(shape(id)) {
            panic!(
                "insert {id} of {n} failed at load {:.4}: {e}",
                filter.len() as f64 / filter.slots() as f64
            );
        }
    }
    assert!((0..n).all(|id| filter.contains_hash(shape(id))));
    let hits = (n..n + queries)
        .filter(|&id| filter.contains_hash(shape(id)))
        .count();
    hits as f64 / queries as f64
}

/// Checks one filter size for every shape: no `Full`, and the rate within
/// the promise and within the model.
///
/// Ids stay below 2^20, so `i << 44` still gives distinct hashes.
fn check(n: u64, fpr: f64, buckets: Option<usize>) {
    let queries = 500_000u64;
    assert!(n + queries <= 1 << 20);
    for (name, shape) in shapes() {
        let mut filter = CuckooFilter::with_fpr(n as usize, fpr).unwrap();
        if let Some(buckets) = buckets {
            assert_eq!((filter.slots() / 4), buckets);
        }
        let measured = fill_and_measure(&mut filter, shape, n, queries);
        // The promise: at most p, plus 4 binomial σ at rate p over the
        // queries (a correct filter exceeds it with probability below 1e-4).
        let bound = fpr_upper_bound(fpr, queries as usize, 1.0, 4.0);
        assert!(measured <= bound, "{name}, p {fpr}: {measured} > {bound}");
        // The model of random keys: up to 8 occupied slots, each a match
        // with probability 1 / (2^f − 1). Random keys measure within 5 % of
        // it (tests/stats.rs); a mixer that correlates the fingerprint with
        // the bucket shows here long before it breaks the promise. 4σ at
        // the model's rate on top.
        let values = ((1u64 << filter.fingerprint_bits()) - 1) as f64;
        let model = 8.0 * filter.len() as f64 / filter.slots() as f64 / values;
        let sigma = (model * (1.0 - model) / queries as f64).sqrt();
        println!("{name:>16}, p {fpr}: measured {measured:.5}, model {model:.5}");
        assert!(
            measured <= 1.05 * model + 4.0 * sigma,
            "{name}, p {fpr}: {measured}, model {model}"
        );
    }
}

#[test]
fn structured_prehashed_ids_meet_target_rate_without_full() {
    // Odd and even fingerprint widths (9, 10, 12 bits), n not a power of two.
    for fpr in [0.03, 0.01, 0.002] {
        check(200_000, fpr, None);
    }
}

#[test]
fn structured_prehashed_ids_fit_a_power_of_two_table() {
    // 247,141 items at 1 % take exactly 2^16 buckets. With a power-of-two
    // bucket count, range reduction keeps only bits the shifted shapes have
    // in common; the mixer must still spread them.
    check(247_141, 0.01, Some(1 << 16));
}
