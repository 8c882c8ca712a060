//! Oracle tests: random operation sequences against a `HashMap` of
//! multiplicities. No false negative ever, `count` never below the truth,
//! and `len` exact, through inserts, removes, `Full`, `grow`, `merge` and
//! byte round trips.

use std::collections::HashMap;

use filter_core::testing::oracle::{Codec, Harness, Op};
use quickcheck::{Arbitrary, Gen};
use quotient_filter::{Error, QuotientFilter};

quickcheck::quickcheck! {
    fn shared_harness_finds_no_false_negative(ops: Vec<Op>) -> Result<(), String> {
        let harness = Harness {
            key: |i| i,
            codec: Some(Codec { to_bytes: QuotientFilter::to_bytes, from_bytes: QuotientFilter::from_bytes }),
        };
        harness.run_with_remove::<u64>(QuotientFilter::with_fpr(100, 0.01).unwrap(), &ops)
    }
}

/// One step of the richer oracle.
#[derive(Clone, Debug)]
enum Step {
    Insert(u16),
    /// Insert the key this many times.
    InsertMany(u16, u16),
    Remove(u16),
    Grow,
    /// Merge a filter of the same space holding these keys.
    Merge(Vec<u16>),
    Reload,
}

impl Arbitrary for Step {
    fn arbitrary(g: &mut Gen) -> Self {
        let key = u16::arbitrary(g) % 200;
        match u8::arbitrary(g) % 20 {
            0..=8 => Step::Insert(key),
            9 => Step::InsertMany(key, u16::arbitrary(g) % 2000),
            10..=14 => Step::Remove(key),
            15 => Step::Grow,
            16 | 17 => Step::Merge(
                Vec::<u16>::arbitrary(g)
                    .into_iter()
                    .map(|k| k % 200)
                    .collect(),
            ),
            _ => Step::Reload,
        }
    }
}

fn check(filter: &QuotientFilter, oracle: &HashMap<u16, u64>, step: usize) -> Result<(), String> {
    for (&k, &n) in oracle {
        if filter.count(&k) < n || !filter.contains(&k) {
            return Err(format!(
                "step {step}: key {k} count {} below {n}",
                filter.count(&k)
            ));
        }
    }
    let total: u64 = oracle.values().sum();
    if filter.len() as u64 != total {
        return Err(format!("step {step}: len {} want {total}", filter.len()));
    }
    Ok(())
}

fn run(steps: &[Step], growable: bool) -> Result<(), String> {
    // Small, so that `Full` is met; the growable twin doubles instead.
    let new = || {
        if growable {
            QuotientFilter::growable_with_fpr(40, 0.01, 3)
        } else {
            QuotientFilter::with_fpr(40, 0.01)
        }
    };
    let mut filter = new().map_err(|e| e.to_string())?;
    let mut oracle: HashMap<u16, u64> = HashMap::new();
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Insert(k) => match filter.insert(k) {
                Ok(()) => *oracle.entry(*k).or_default() += 1,
                Err(Error::Full) if !growable => {}
                Err(e) => return Err(format!("step {i}: {e}")),
            },
            Step::InsertMany(k, times) => {
                for _ in 0..*times {
                    match filter.insert(k) {
                        Ok(()) => *oracle.entry(*k).or_default() += 1,
                        Err(Error::Full) if !growable => break,
                        Err(e) => return Err(format!("step {i}: {e}")),
                    }
                }
            }
            Step::Remove(k) => {
                let had = oracle.get(k).copied().unwrap_or(0);
                if had == 0 && filter.contains(k) {
                    // A false positive: removing it would take a copy of the
                    // key it collides with, as documented.
                    continue;
                }
                let removed = filter.remove(k);
                if had > 0 && !removed {
                    return Err(format!("step {i}: remove of present {k} returned false"));
                }
                if removed {
                    if had == 0 {
                        return Err(format!("step {i}: remove of absent {k} returned true"));
                    }
                    if had == 1 {
                        oracle.remove(k);
                    } else {
                        oracle.insert(*k, had - 1);
                    }
                }
            }
            Step::Grow => {
                let before = filter.clone();
                if filter.grow().is_err() {
                    if filter.to_bytes() != before.to_bytes() {
                        return Err(format!("step {i}: failed grow changed the filter"));
                    }
                } else if filter.quotients() != 2 * before.quotients() {
                    return Err(format!("step {i}: grow did not double"));
                }
            }
            Step::Merge(keys) => {
                // Same expected_items and fpr: same fingerprint space.
                let mut other = new().map_err(|e| e.to_string())?;
                let mut added: HashMap<u16, u64> = HashMap::new();
                for k in keys {
                    if other.insert(k).is_ok() {
                        *added.entry(*k).or_default() += 1;
                    }
                }
                let before = filter.to_bytes();
                match filter.merge(&other) {
                    Ok(()) => added
                        .into_iter()
                        .for_each(|(k, n)| *oracle.entry(k).or_default() += n),
                    Err(Error::Full) if !growable => {
                        if filter.to_bytes() != before {
                            return Err(format!("step {i}: failed merge changed the filter"));
                        }
                    }
                    Err(e) => return Err(format!("step {i}: merge: {e}")),
                }
            }
            Step::Reload => {
                let bytes = filter.to_bytes();
                filter =
                    QuotientFilter::from_bytes(&bytes).map_err(|e| format!("step {i}: {e}"))?;
                if filter.to_bytes() != bytes {
                    return Err(format!("step {i}: reload changed the bytes"));
                }
            }
        }
        check(&filter, &oracle, i)?;
    }
    Ok(())
}

quickcheck::quickcheck! {
    fn multiplicities_fixed_size(steps: Vec<Step>) -> Result<(), String> {
        run(&steps, false)
    }

    fn multiplicities_growable(steps: Vec<Step>) -> Result<(), String> {
        run(&steps, true)
    }
}

#[test]
fn counts_up_to_100_000_for_one_key() {
    let mut filter = QuotientFilter::with_fpr(1000, 0.01).unwrap();
    let others: Vec<u64> = (1..=500).collect();
    for k in &others {
        filter.insert(k).unwrap();
    }
    for i in 1..=100_000u64 {
        filter.insert(&0u64).unwrap();
        if i % 9_973 == 0 || i <= 300 {
            assert_eq!(filter.count(&0u64), i);
        }
    }
    assert!(filter.used_slots() <= 500 + 8);
    for k in &others {
        assert!(filter.count(k) >= 1, "{k}");
    }
    let bytes = filter.to_bytes();
    let filter2 = QuotientFilter::from_bytes(&bytes).unwrap();
    assert_eq!(filter2.count(&0u64), 100_000);
    for i in (0..100_000u64).rev() {
        assert!(filter.remove(&0u64));
        if i % 9_973 == 0 || i <= 300 {
            assert_eq!(filter.count(&0u64), i);
        }
    }
    assert!(!filter.remove(&0u64));
    assert_eq!(filter.len(), 500);
    assert_eq!(filter.used_slots(), 500);
}

#[test]
fn full_loses_nothing_and_changes_nothing() {
    let mut filter = QuotientFilter::with_fpr(1000, 0.01).unwrap();
    let mut inserted = Vec::new();
    for k in 0u64.. {
        let before = filter.to_bytes();
        match filter.insert(&k) {
            Ok(()) => inserted.push(k),
            Err(Error::Full) => {
                assert_eq!(filter.to_bytes(), before);
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(inserted.len() >= 1000);
    assert!(filter.load_factor() <= 0.95);
    assert!(inserted.iter().all(|k| filter.contains(k)));
    // Counting up an existing key may need a slot too.
    let before = filter.to_bytes();
    if filter.insert(&inserted[0]).is_err() {
        assert_eq!(filter.to_bytes(), before);
    }
    filter.grow().unwrap();
    assert!(inserted.iter().all(|k| filter.contains(k)));
    filter.insert(&u64::MAX).unwrap();
}
