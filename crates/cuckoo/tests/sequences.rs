//! Random operation sequences over pre-hashed keys with structure (0,
//! sequential, `i << 40`, single bits, strides of 2^17, `u64::MAX − i`), on
//! tables of 1 to 13 buckets of every width, beside an exact multiset:
//! checks beyond the shared oracle harness that a failed insert leaves the
//! bytes unchanged, that `len()` follows the multiset, that `insert_unique`
//! adds only what is absent, and at the end that every copy is removable.

use std::collections::HashMap;

use cuckoo::{CuckooFilter, Error};

/// SplitMix64 from `seed`: the same sequences on every run.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        filter_core::mix64(s)
    }
}

/// `steps` random operations on keys from `pool`; panics on any broken
/// promise.
fn drive(mut f: CuckooFilter, pool: &[u64], steps: usize, seed: u64) {
    let mut next = rng(seed);
    let mut counts: HashMap<u64, usize> = HashMap::new();
    let mut total = 0usize;
    let (m, bits) = (f.slots() / 4, f.fingerprint_bits());
    let at = |step: usize| format!("m {m} f {bits} seed {seed} step {step}");
    for step in 0..steps {
        let k = pool[(next() % pool.len() as u64) as usize];
        match next() % 10 {
            0..=4 => {
                let before = f.to_bytes();
                match f.insert_hash(k) {
                    Ok(()) => {
                        *counts.entry(k).or_default() += 1;
                        total += 1;
                    }
                    Err(Error::Full | Error::TooManyCopies { .. }) => {
                        assert_eq!(
                            f.to_bytes(),
                            before,
                            "{}: a failed insert changed",
                            at(step)
                        );
                    }
                    Err(e) => panic!("{}: {e}", at(step)),
                }
            }
            5..=7 => {
                if let Some(c) = counts.get_mut(&k) {
                    assert!(f.remove_hash(k), "{}: remove of a present key", at(step));
                    *c -= 1;
                    total -= 1;
                    if *c == 0 {
                        counts.remove(&k);
                    }
                } else if !f.contains_hash(k) {
                    let before = f.to_bytes();
                    assert!(!f.remove_hash(k), "{}: remove of an absent key", at(step));
                    assert_eq!(
                        f.to_bytes(),
                        before,
                        "{}: an absent remove changed",
                        at(step)
                    );
                }
            }
            8 => {
                let bytes = f.to_bytes();
                f = CuckooFilter::from_bytes(&bytes).unwrap();
                assert_eq!(f.to_bytes(), bytes);
            }
            _ => {
                let present = f.contains_hash(k);
                match f.insert_unique_hash(k) {
                    Ok(added) => {
                        assert_eq!(added, !present, "{}", at(step));
                        if added {
                            *counts.entry(k).or_default() += 1;
                            total += 1;
                        }
                    }
                    Err(Error::Full | Error::TooManyCopies { .. }) => {}
                    Err(e) => panic!("{}: {e}", at(step)),
                }
            }
        }
        assert_eq!(f.len(), total, "{}: len", at(step));
        for &key in counts.keys() {
            assert!(
                f.contains_hash(key),
                "{}: false negative {key:#x}",
                at(step)
            );
        }
    }
    // Every copy is removable (a lost duplicate would show here), and then
    // the filter is empty.
    for (&key, &c) in &counts {
        for j in 0..c {
            assert!(f.remove_hash(key), "drain {key:#x}: copy {j} of {c}");
        }
    }
    assert_eq!(f.len(), 0);
    assert!(!f.is_full());
}

fn pools() -> [Vec<u64>; 7] {
    let n = 64u64;
    [
        (0..n).collect(),
        (0..n).map(|i| i << 40).collect(),
        (0..n).map(|i| 1 << i).collect(),
        (0..n).map(|i| i << 17).collect(),
        (0..n)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect(),
        (0..n).map(|i| u64::MAX - i).collect(),
        vec![0, 1, u64::MAX, 1 << 63],
    ]
}

#[test]
fn structured_prehashed_sequences_on_tiny_tables_of_every_width() {
    let mut seed = 0;
    for buckets in [1, 2, 3, 4, 5, 7, 8, 13] {
        for bits in 4..=16 {
            for pool in pools() {
                seed += 1;
                drive(
                    CuckooFilter::with_buckets(buckets, bits).unwrap(),
                    &pool,
                    400,
                    seed,
                );
            }
        }
    }
}

#[test]
fn shifted_ids_churn_through_full_in_small_tables() {
    // Five keys per bucket: the tables reach the victim slot and come back
    // many times.
    let mut seed = 1000;
    for buckets in [31, 64, 100] {
        for bits in [4, 5, 7, 8, 12, 15, 16] {
            let pool: Vec<u64> = (0..(buckets as u64 * 5)).map(|i| i << 40).collect();
            seed += 1;
            drive(
                CuckooFilter::with_buckets(buckets, bits).unwrap(),
                &pool,
                3000,
                seed,
            );
        }
    }
}
