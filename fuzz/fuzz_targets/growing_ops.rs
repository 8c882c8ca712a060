//! Random operation sequences on the filters that grow or count beyond a
//! set, against oracles: `ScalableBloomFilter` (a `HashSet`; stages grow
//! from a tiny first one), `ScalableCuckooFilter` and
//! `DLeftCountingBloomFilter` (a `HashMap` of multiplicities; removes of
//! present items must succeed, removes of items reported absent must return
//! `false` and change nothing), and `QuotientFilter` (a `HashMap`; `count`
//! never below the multiplicity, through `merge` with itself and with a
//! one-item filter and through `grow`). Every step ends with no false
//! negatives and a round trip through bytes that keeps every item.
#![no_main]
use filters_fuzz::{Item, check_remove};
use libfuzzer_sys::fuzz_target;
use std::collections::{HashMap, HashSet};

/// A one-byte-chosen rate.
fn rate(byte: u8) -> f64 {
    [0.5, 0.1, 0.01, 1e-4][usize::from(byte % 4)]
}

fn scalable_bloom(data: &[u8]) {
    let Ok(mut f) =
        bloom::ScalableBloomFilter::with_fpr(1 + usize::from(data[1] % 8), rate(data[2]))
    else {
        return;
    };
    let mut oracle = HashSet::new();
    for op in data[3..].chunks_exact(2) {
        let item = Item::new(op[1], 64, f.hasher());
        match op[0] % 3 {
            0 | 1 => {
                let present = f.contains_hash(item.hash);
                let added = match item.key {
                    Some(k) => f.insert(&k),
                    None => f.insert_hash(item.hash),
                }
                .expect("no memory limit was set");
                assert_eq!(added, !present, "insert's answer");
                oracle.insert(item.hash);
            }
            _ => {
                let g = bloom::ScalableBloomFilter::from_bytes(&f.to_bytes()).expect("round trip");
                assert!(g.to_bytes() == f.to_bytes());
                f = g;
            }
        }
        for &h in &oracle {
            assert!(f.contains_hash(h), "false negative {h:#x}");
        }
    }
}

fn scalable_cuckoo(data: &[u8]) {
    let Ok(mut f) =
        cuckoo::ScalableCuckooFilter::with_fpr(1 + usize::from(data[1] % 8), rate(data[2]))
    else {
        return;
    };
    let mut oracle: HashMap<u64, u32> = HashMap::new();
    for op in data[3..].chunks_exact(2) {
        let item = Item::new(op[1], 16, f.hasher());
        let h = item.hash;
        match op[0] % 4 {
            0 | 1 => {
                let before = f.clone();
                match match item.key {
                    Some(k) => f.insert(&k),
                    None => f.insert_hash(h),
                } {
                    Ok(()) => *oracle.entry(h).or_default() += 1,
                    Err(cuckoo::Error::TooManyCopies { .. } | cuckoo::Error::Full) => {
                        assert!(f == before, "a failed insert changed the filter");
                    }
                    Err(e) => panic!("unexpected insert error {e:?}"),
                }
            }
            2 => {
                let reported = f.contains_hash(h);
                check_remove(&mut f, &mut oracle, h, reported, |f| match item.key {
                    Some(k) => f.remove(&k),
                    None => f.remove_hash(h),
                });
            }
            _ => {
                let g =
                    cuckoo::ScalableCuckooFilter::from_bytes(&f.to_bytes()).expect("round trip");
                assert!(g == f);
                f = g;
            }
        }
        assert_eq!(f.len(), oracle.values().sum::<u32>() as usize, "len");
        for &h in oracle.keys() {
            assert!(f.contains_hash(h), "false negative {h:#x}");
        }
    }
}

fn dleft(data: &[u8]) {
    let Ok(mut f) = counting_bloom::DLeftCountingBloomFilter::with_fpr(
        1 + usize::from(data[1] % 64),
        rate(data[2]),
    ) else {
        return;
    };
    let mut oracle: HashMap<u64, u32> = HashMap::new();
    for op in data[3..].chunks_exact(2) {
        let item = Item::new(op[1], 16, f.hasher());
        let h = item.hash;
        match op[0] % 5 {
            0 | 1 => {
                let before = f.clone();
                match match item.key {
                    Some(k) => f.insert(&k),
                    None => f.insert_hash(h),
                } {
                    Ok(()) => *oracle.entry(h).or_default() += 1,
                    Err(_) => assert!(f == before, "a failed insert changed the filter"),
                }
            }
            2 => {
                let reported = f.contains_hash(h);
                check_remove(&mut f, &mut oracle, h, reported, |f| match item.key {
                    Some(k) => f.remove(&k),
                    None => f.remove_hash(h),
                });
            }
            3 => {
                let mut other = f.clone();
                other.clear();
                if other.insert_hash(h).is_ok() && f.merge(&other).is_ok() {
                    *oracle.entry(h).or_default() += 1;
                }
            }
            _ => {
                let g = counting_bloom::DLeftCountingBloomFilter::from_bytes(&f.to_bytes())
                    .expect("round trip");
                assert!(g == f);
                f = g;
            }
        }
        for (&h, &c) in &oracle {
            assert!(f.contains_hash(h), "false negative {h:#x}");
            if c < f.max_count() {
                assert!(f.count_hash(h) >= c, "count below multiplicity");
            }
        }
    }
}

fn quotient(data: &[u8]) {
    let Ok(mut f) =
        quotient_filter::QuotientFilter::with_fpr(1 + usize::from(data[1] % 64), rate(data[2]))
    else {
        return;
    };
    let mut oracle: HashMap<u64, u64> = HashMap::new();
    for op in data[3..].chunks_exact(2) {
        let item = Item::new(op[1], 24, f.hasher());
        let h = item.hash;
        match op[0] % 7 {
            0 | 1 => {
                let before = f.to_bytes();
                match match item.key {
                    Some(k) => f.insert(&k),
                    None => f.insert_hash(h),
                } {
                    Ok(()) => *oracle.entry(h).or_default() += 1,
                    Err(_) => assert!(f.to_bytes() == before, "a failed insert changed the filter"),
                }
            }
            2 => {
                let reported = f.contains_hash(h);
                let count = oracle.get(&h).copied().unwrap_or(0);
                if count > 0 {
                    assert!(
                        f.remove_hash(h),
                        "remove of an inserted item returned false"
                    );
                    if count == 1 {
                        oracle.remove(&h);
                    } else {
                        oracle.insert(h, count - 1);
                    }
                } else if !reported {
                    let before = f.to_bytes();
                    assert!(!f.remove_hash(h));
                    assert!(
                        f.to_bytes() == before,
                        "remove of an absent item changed the filter"
                    );
                }
            }
            3 => {
                let copy = f.clone();
                if f.merge(&copy).is_ok() {
                    oracle.values_mut().for_each(|c| *c *= 2);
                }
            }
            4 => {
                let mut other = f.clone();
                for (&k, _) in oracle.clone().iter() {
                    while other.remove_hash(k) {}
                }
                if other.is_empty() && other.insert_hash(h).is_ok() && f.merge(&other).is_ok() {
                    *oracle.entry(h).or_default() += 1;
                }
            }
            5 => {
                let _ = f.grow();
            }
            _ => {
                let g =
                    quotient_filter::QuotientFilter::from_bytes(&f.to_bytes()).expect("round trip");
                assert!(g.to_bytes() == f.to_bytes());
                f = g;
            }
        }
        for (&h, &c) in &oracle {
            assert!(f.contains_hash(h), "false negative {h:#x}");
            assert!(f.count_hash(h) >= c, "count below multiplicity");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    match data[0] % 4 {
        0 => scalable_bloom(data),
        1 => scalable_cuckoo(data),
        2 => dleft(data),
        _ => quotient(data),
    }
});
