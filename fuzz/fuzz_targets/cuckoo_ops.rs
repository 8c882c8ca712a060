//! Random operation sequences on small cuckoo filters (1 to 8 buckets,
//! every width from 4 to 16 bits, few distinct keys so that duplicates and
//! `Full` are common) against a `HashMap` of multiplicities. A failed insert
//! must leave the filter equal to what it was (eviction state included); a
//! remove of an item the filter reports absent returns `false` and changes
//! nothing; `len` matches the model; and every item whose insert succeeded
//! is found after every step, round trips through bytes included.
#![no_main]
use cuckoo::{CuckooFilter, Error};
use filters_fuzz::{Item, check_remove};
use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let buckets = 1 + (data[0] as usize % 8);
    let bits = 4 + (data[1] as u32 % 13);
    let Ok(mut f) = CuckooFilter::with_buckets(buckets, bits) else {
        panic!("ctor failed")
    };
    let mut oracle: HashMap<u64, u32> = HashMap::new();
    let key_space = 4 + (data[0] as u64 >> 3) % 29;
    for op in data[2..].chunks_exact(2) {
        let (code, a) = (op[0], op[1]);
        let item = Item::new(a, key_space, f.hasher());
        let h = item.hash;
        match code % 8 {
            0 | 1 | 6 => {
                let before = f.clone();
                let r = match item.key {
                    Some(k) => f.insert(&k),
                    None => f.insert_hash(h),
                };
                match r {
                    Ok(()) => {
                        *oracle.entry(h).or_default() += 1;
                    }
                    Err(Error::Full | Error::TooManyCopies { .. }) => {
                        assert!(f == before, "failed insert changed the filter");
                    }
                    Err(e) => panic!("unexpected insert error {e:?}"),
                }
            }
            2 => {
                let before = f.clone();
                let present = f.contains_hash(h);
                let r = match item.key {
                    Some(k) => f.insert_unique(&k),
                    None => f.insert_unique_hash(h),
                };
                match r {
                    Ok(true) => {
                        *oracle.entry(h).or_default() += 1;
                    }
                    Ok(false) => {
                        assert!(present, "insert_unique false for absent");
                        assert!(f == before);
                    }
                    Err(Error::Full | Error::TooManyCopies { .. }) => {
                        assert!(f == before, "failed insert_unique changed the filter");
                    }
                    Err(e) => panic!("unexpected insert_unique error {e:?}"),
                }
            }
            3 | 7 => {
                let reported = f.contains_hash(h);
                check_remove(&mut f, &mut oracle, h, reported, |f| match item.key {
                    Some(k) => f.remove(&k),
                    None => f.remove_hash(h),
                });
            }
            4 => {
                if a < 8 {
                    f.clear();
                    oracle.clear();
                }
            }
            5 => {
                let bytes = f.to_bytes();
                let g = CuckooFilter::from_bytes(&bytes).expect("round trip failed");
                assert!(g == f, "round trip not equal");
                f = g;
            }
            _ => unreachable!(),
        }
        let total: u32 = oracle.values().sum();
        assert_eq!(f.len(), total as usize, "len mismatch");
        for (&h, _) in &oracle {
            assert!(f.contains_hash(h), "false negative for hash {h:#x}");
        }
        let _ = f.estimated_fpr();
        let _ = f.is_full();
    }
});
