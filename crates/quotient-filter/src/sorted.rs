//! A batch's fingerprints in increasing order, for a bulk insert.
//!
//! Fingerprints are ⌊m · S / 2^64⌋ of uniform mixed hashes m, and grow
//! with m, so the top bits of m put them in buckets of a few dozen each,
//! in order: one pass counts the buckets, one writes each fingerprint into
//! its bucket, and each bucket is sorted where it lies, in cache. A
//! comparison sort of the whole batch took longer.

use crate::core::Core;

/// Fingerprints a bucket, on average.
const PER_BUCKET: usize = 64;

/// The fingerprints of `mixed` in `core`'s space, sorted.
pub(crate) fn sorted_fingerprints(core: &Core, mixed: &[u64]) -> Vec<u64> {
    let bits = (mixed.len() / PER_BUCKET).max(1).ilog2();
    // Bucket of m: its top `bits` bits (bucket 0 for every m when bits is 0).
    let bucket = |m: u64| (m >> 1 >> (63 - bits)) as usize;
    // ends[b]: the start of bucket b, then, once it is written, its end.
    let mut ends = vec![0usize; 1 << bits];
    for &m in mixed {
        ends[bucket(m)] += 1;
    }
    let mut start = 0;
    for e in &mut ends {
        (start, *e) = (start + *e, start);
    }
    let mut out = vec![0u64; mixed.len()];
    for &m in mixed {
        let b = bucket(m);
        out[ends[b]] = core.fingerprint(m);
        ends[b] += 1;
    }
    let mut start = 0;
    for &end in &ends {
        out[start..end].sort_unstable();
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Shape;
    use filter_core::mix64;

    #[test]
    fn sorts_as_a_comparison_sort_does() {
        let core = Core::new(
            Shape {
                quotients: 1000,
                remainder_bits: 7,
            },
            "test",
        )
        .unwrap();
        // Sizes around the bucket counts' powers of two, repeats included.
        for n in [0, 1, 63, 64, 127, 128, 1000, 4097, 20_000] {
            let mixed: Vec<u64> = (0..n as u64).map(|i| mix64(i % 5000)).collect();
            let mut expected: Vec<u64> = mixed.iter().map(|&m| core.fingerprint(m)).collect();
            expected.sort_unstable();
            assert_eq!(sorted_fingerprints(&core, &mixed), expected, "{n}");
        }
        // Extreme hashes land in the first and last buckets.
        let mixed = vec![u64::MAX, 0, u64::MAX, 1 << 63, 0];
        let mut expected: Vec<u64> = mixed.iter().map(|&m| core.fingerprint(m)).collect();
        expected.sort_unstable();
        assert_eq!(sorted_fingerprints(&core, &mixed), expected);
    }
}
