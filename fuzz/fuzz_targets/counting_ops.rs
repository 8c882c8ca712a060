//! Random operation sequences on small counting Bloom filters (both types)
//! against a `HashMap` of multiplicities: inserts, `insert_unique`,
//! removes of present items (must return `true`), removes of items the filter
//! reports absent (must return `false` and leave the bytes unchanged),
//! `clear`, round trips, `merge` with itself (multiplicities double) and with
//! a one-item filter. After every step: no false negatives, and `count` is at
//! least the multiplicity while no counter is saturated.
#![no_main]
use counting_bloom::{BlockedCountingBloomFilter, CountingBloomFilter};
use filters_fuzz::{Item, check_remove};
use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;

macro_rules! run {
    ($t:ty, $f:expr, $data:expr) => {{
        let mut f = $f;
        let mut oracle: HashMap<u64, u32> = HashMap::new();
        let key_space = 4 + ($data[0] as u64 >> 3) % 29;
        for op in $data[3..].chunks_exact(2) {
            let (code, a) = (op[0], op[1]);
            let item = Item::new(a, key_space, f.hasher());
            let h = item.hash;
            match code % 9 {
                0 | 1 => {
                    match item.key {
                        Some(k) => f.insert(&k),
                        None => f.insert_hash(h),
                    };
                    {
                        let e = oracle.entry(h).or_default();
                        *e = (*e + 1).min(1 << 20);
                    }
                }
                2 => {
                    let present = f.contains_hash(h);
                    let r = match item.key {
                        Some(k) => f.insert_unique(&k),
                        None => f.insert_unique_hash(h),
                    };
                    assert_eq!(r, !present, "insert_unique return");
                    {
                        let e = oracle.entry(h).or_default();
                        *e = (*e + 1).min(1 << 20);
                    }
                }
                3 | 4 => {
                    let reported = f.contains_hash(h);
                    check_remove(&mut f, &mut oracle, h, reported, |f| match item.key {
                        Some(k) => f.remove(&k),
                        None => f.remove_hash(h),
                    });
                }
                5 => {
                    if a < 8 {
                        f.clear();
                        oracle.clear();
                    }
                }
                6 => {
                    let bytes = f.to_bytes();
                    let g = <$t>::from_bytes(&bytes).expect("round trip failed");
                    assert!(g == f, "round trip not equal");
                    f = g;
                }
                7 => {
                    // merge with itself: every multiplicity doubles
                    let copy = f.clone();
                    f.merge(&copy).expect("self merge failed");
                    for v in oracle.values_mut() {
                        *v = v.saturating_mul(2).min(1 << 20);
                    }
                }
                8 => {
                    let mut other = f.clone();
                    other.clear();
                    other.insert_hash(h);
                    f.merge(&other).expect("merge failed");
                    {
                        let e = oracle.entry(h).or_default();
                        *e = (*e + 1).min(1 << 20);
                    }
                }
                _ => unreachable!(),
            }
            let sat = f.saturated_counters() > 0;
            for (&h, &c) in &oracle {
                assert!(f.contains_hash(h), "false negative for hash {h:#x}");
                if !sat {
                    assert!(f.count_hash(h) >= c, "count below multiplicity");
                }
            }
            let _ = f.estimated_fpr();
            let _ = f.estimated_len();
        }
    }};
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    if data[0] & 1 == 0 {
        let counters = 1 + (data[1] as u64 % 64);
        let hashes = 1 + (data[2] as u32 % 8);
        let Ok(f) = CountingBloomFilter::with_counters(counters, hashes) else {
            return;
        };
        run!(CountingBloomFilter, f, data);
    } else {
        let blocks = 1 + (data[1] as u64 % 3);
        let hashes = 1 + (data[2] as u32 % 16);
        let Ok(f) = BlockedCountingBloomFilter::with_blocks(blocks, hashes) else {
            return;
        };
        run!(BlockedCountingBloomFilter, f, data);
    }
});
