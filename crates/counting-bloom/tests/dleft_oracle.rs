//! Oracle tests of `DLeftCountingBloomFilter`: quickcheck drives random
//! inserts (many until `Full`), removes of present and absent keys, byte
//! round trips and merges beside two oracles, and checks after every step:
//!
//! - a `HashMap` of key multiplicities: every key inserted more often than
//!   removed is reported present (no false negative), and its `count` is at
//!   least its multiplicity, or 15 (saturated);
//! - a `HashMap` of true fingerprints to counters (saturating at 15), the
//!   table's exact content: `count` of every key is its fingerprint's
//!   counter, `len` their sum, and an insert is refused only for a
//!   fingerprint not yet stored, leaving the bytes as they were.

use counting_bloom::{DLeftCountingBloomFilter, Error};
use filter_core::{KeyHasher, reduce};
use quickcheck::{Arbitrary, Gen};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug)]
enum Op {
    Insert(u8),
    RemovePresent(u8),
    RemoveAbsent(u8),
    Reload,
}

impl Arbitrary for Op {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = u8::arbitrary(g);
        match u8::arbitrary(g) % 20 {
            0..=10 => Op::Insert(n),
            11..=15 => Op::RemovePresent(n),
            16..=18 => Op::RemoveAbsent(n),
            _ => Op::Reload,
        }
    }
}

/// Never-inserted keys start here.
const ABSENT: u64 = 1 << 40;

/// A key's true fingerprint: its subtable-0 bucket and remainder, as the
/// table docs define them.
fn fingerprint(filter: &DLeftCountingBloomFilter, key: u64) -> (usize, u64) {
    let mixed = filter.hasher().mixed_hash(&key);
    let mask = u64::MAX >> (64 - filter.remainder_bits());
    (reduce(mixed, filter.buckets()), (mixed & mask).max(1))
}

struct Oracle {
    keys: HashMap<u64, u64>,
    cells: HashMap<(usize, u64), u64>,
}

impl Oracle {
    fn new() -> Self {
        Oracle {
            keys: HashMap::new(),
            cells: HashMap::new(),
        }
    }

    fn check(&self, filter: &DLeftCountingBloomFilter, step: usize) -> Result<(), String> {
        for (&key, &copies) in &self.keys {
            let count = u64::from(filter.count(&key));
            if !filter.contains(&key) || count < copies.min(15) {
                return Err(format!(
                    "step {step}: key {key} inserted {copies} times, count {count}"
                ));
            }
        }
        for &key in self.keys.keys() {
            let expected = self
                .cells
                .get(&fingerprint(filter, key))
                .copied()
                .unwrap_or(0);
            if u64::from(filter.count(&key)) != expected {
                return Err(format!(
                    "step {step}: key {key}: counter {expected} expected"
                ));
            }
        }
        let sum: u64 = self.cells.values().sum();
        if filter.len() as u64 != sum || filter.is_empty() != (sum == 0) {
            return Err(format!("step {step}: len {} against {sum}", filter.len()));
        }
        Ok(())
    }
}

fn drive(mut filter: DLeftCountingBloomFilter, ops: &[Op]) -> Result<Oracle, String> {
    let mut oracle = Oracle::new();
    let mut order: Vec<u64> = Vec::new();
    for (step, &op) in ops.iter().enumerate() {
        match op {
            Op::Insert(n) => {
                let key = u64::from(n);
                let fp = fingerprint(&filter, key);
                let before = filter.to_bytes();
                match filter.insert(&key) {
                    Ok(()) => {
                        let copies = oracle.keys.entry(key).or_insert(0);
                        if *copies == 0 {
                            order.push(key);
                        }
                        *copies += 1;
                        let counter = oracle.cells.entry(fp).or_insert(0);
                        *counter = (*counter + 1).min(15);
                    }
                    Err(Error::Full) => {
                        if oracle.cells.contains_key(&fp) {
                            return Err(format!("step {step}: Full for a stored fingerprint"));
                        }
                        if filter.to_bytes() != before {
                            return Err(format!(
                                "step {step}: a refused insert changed the filter"
                            ));
                        }
                    }
                    Err(e) => return Err(format!("step {step}: {e}")),
                }
            }
            Op::RemovePresent(n) => {
                if order.is_empty() {
                    continue;
                }
                let key = order[usize::from(n) % order.len()];
                if !filter.remove(&key) {
                    return Err(format!(
                        "step {step}: remove of present {key} returned false"
                    ));
                }
                let copies = oracle.keys.get_mut(&key).ok_or("oracle lost a key")?;
                *copies -= 1;
                if *copies == 0 {
                    oracle.keys.remove(&key);
                    order.retain(|&k| k != key);
                }
                let fp = fingerprint(&filter, key);
                let counter = oracle.cells.get_mut(&fp).ok_or("oracle lost a cell")?;
                if *counter < 15 {
                    *counter -= 1;
                    if *counter == 0 {
                        oracle.cells.remove(&fp);
                    }
                }
            }
            Op::RemoveAbsent(n) => {
                let key = ABSENT + u64::from(n);
                if filter.contains(&key) {
                    continue; // a false positive: removing it is documented as unsafe
                }
                let before = filter.to_bytes();
                if filter.remove(&key) || filter.to_bytes() != before {
                    return Err(format!(
                        "step {step}: remove of absent {key} changed something"
                    ));
                }
            }
            Op::Reload => {
                let bytes = filter.to_bytes();
                filter = DLeftCountingBloomFilter::from_bytes(&bytes)
                    .map_err(|e| format!("step {step}: reload failed: {e}"))?;
                if filter.to_bytes() != bytes {
                    return Err(format!("step {step}: reload changed the bytes"));
                }
            }
        }
        oracle.check(&filter, step)?;
    }
    Ok(oracle)
}

/// Inserts keys 0..4 many times each, so counters saturate.
fn heavy(ops: &[Op]) -> Vec<Op> {
    ops.iter()
        .cycle()
        .take(ops.len().max(400).min(ops.len() * 50))
        .map(|op| match *op {
            Op::Insert(n) => Op::Insert(n % 4),
            other => other,
        })
        .collect()
}

quickcheck::quickcheck! {
    fn roomy_filter_matches_both_oracles(ops: Vec<Op>) -> Result<(), String> {
        drive(DLeftCountingBloomFilter::with_fpr(300, 0.01).map_err(|e| e.to_string())?, &ops).map(drop)
    }

    /// Sized for 20 keys, given up to 256: many inserts meet `Full`.
    fn crowded_filter_matches_both_oracles(ops: Vec<Op>) -> Result<(), String> {
        drive(DLeftCountingBloomFilter::with_fpr(20, 0.01).map_err(|e| e.to_string())?, &ops).map(drop)
    }

    /// Sized for 2 keys at a coarse rate (few remainder bits): shared
    /// fingerprints and `Full` everywhere.
    fn tiny_filter_matches_both_oracles(ops: Vec<Op>) -> Result<(), String> {
        drive(DLeftCountingBloomFilter::with_fpr(2, 0.5).map_err(|e| e.to_string())?, &ops).map(drop)
    }

    /// Keys inserted far more than 15 times: saturated counters stay.
    fn saturated_counters_match_both_oracles(ops: Vec<Op>) -> Result<(), String> {
        drive(DLeftCountingBloomFilter::with_fpr(100, 0.01).map_err(|e| e.to_string())?, &heavy(&ops)).map(drop)
    }

    /// A merge holds the multiset sum, saturating, or changes nothing.
    fn merge_is_the_multiset_sum(a: Vec<u8>, b: Vec<u8>, size: u8) -> Result<(), String> {
        let n = 5 + usize::from(size % 60);
        let build = |keys: &[u8]| {
            let mut f = DLeftCountingBloomFilter::with_fpr(n, 0.01).unwrap();
            let mut counts: HashMap<(usize, u64), u64> = HashMap::new();
            for &k in keys {
                let k = u64::from(k % 64);
                if f.insert(&k).is_ok() {
                    let c = counts.entry(fingerprint(&f, k)).or_insert(0);
                    *c = (*c + 1).min(15);
                }
            }
            (f, counts)
        };
        let (mut left, mut expected) = build(&a);
        let (right, theirs) = build(&b);
        let before = left.clone();
        match left.merge(&right) {
            Ok(()) => {}
            Err(Error::Full) => return if left == before { Ok(()) } else { Err("Full changed the filter".into()) },
            Err(e) => return Err(e.to_string()),
        }
        for (fp, c) in theirs {
            let e = expected.entry(fp).or_insert(0);
            *e = (*e + c).min(15);
        }
        for k in 0..64u64 {
            let want = expected.get(&fingerprint(&left, k)).copied().unwrap_or(0);
            if u64::from(left.count(&k)) != want {
                return Err(format!("key {k}: count {} against {want}", left.count(&k)));
            }
        }
        let sum: u64 = expected.values().sum();
        if left.len() as u64 != sum { return Err(format!("len {} against {sum}", left.len())); }
        let reloaded = DLeftCountingBloomFilter::from_bytes(&left.to_bytes()).map_err(|e| e.to_string())?;
        if reloaded != left { return Err("merged filter does not round-trip".into()); }
        Ok(())
    }
}

#[test]
fn crowded_sequences_do_meet_full() {
    // The crowded property must exercise refusals, or it proves little.
    let ops: Vec<Op> = (0..=255).map(Op::Insert).collect();
    let mut filter = DLeftCountingBloomFilter::with_fpr(20, 0.01).unwrap();
    let refused = ops
        .iter()
        .filter(|op| matches!(op, Op::Insert(n) if filter.insert(&u64::from(*n)).is_err()))
        .count();
    assert!(refused > 100, "{refused}");
    drive(DLeftCountingBloomFilter::with_fpr(20, 0.01).unwrap(), &ops).unwrap();
}

#[test]
fn merge_refuses_other_shapes_and_hashers() {
    let mut a = DLeftCountingBloomFilter::with_fpr(1000, 0.01).unwrap();
    let b = DLeftCountingBloomFilter::with_fpr(2000, 0.01).unwrap();
    assert!(matches!(
        a.merge(&b),
        Err(Error::Incompatible {
            parameter: "buckets",
            ..
        })
    ));
    let c = DLeftCountingBloomFilter::with_fpr(1000, 0.001).unwrap();
    assert!(matches!(a.merge(&c), Err(Error::Incompatible { .. })));
    let seeded = DLeftCountingBloomFilter::with_fpr_and_hasher(
        1000,
        0.01,
        filter_core::PortableHasher::with_seed(3),
    )
    .unwrap();
    let mut d = DLeftCountingBloomFilter::with_fpr_and_hasher(
        1000,
        0.01,
        filter_core::PortableHasher::with_seed(4),
    )
    .unwrap();
    assert_eq!(d.merge(&seeded), Err(Error::HasherMismatch));
    a.insert(&1u64).unwrap();
    let copy = a.clone();
    a.merge(&copy).unwrap();
    assert_eq!(a.count(&1u64), 2);
}
