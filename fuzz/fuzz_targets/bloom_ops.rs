//! Random operation sequences on small classic and blocked Bloom filters
//! against a `HashSet` of the inserted hashes: insert (keyed and pre-hashed),
//! `insert_unique` (must answer `true` exactly when `contains` said no),
//! `clear`, a round trip through bytes, `union`/`intersect` with itself and
//! `union` with a one-key filter. After every step each inserted hash must
//! still be found.
#![no_main]
use bloom::{BlockedBloomFilter, BloomFilter};
use filters_fuzz::Item;
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;

macro_rules! run {
    ($t:ty, $f:expr, $data:expr) => {{
        let mut f = $f;
        let mut oracle: HashSet<u64> = HashSet::new();
        for op in $data[3..].chunks_exact(2) {
            let (code, a) = (op[0], op[1]);
            let item = Item::new(a, 24, f.hasher());
            let h = item.hash;
            match code % 7 {
                0 | 1 => {
                    match item.key {
                        Some(k) => f.insert(&k),
                        None => f.insert_hash(h),
                    };
                    oracle.insert(h);
                }
                2 => {
                    let present = f.contains_hash(h);
                    let r = match item.key {
                        Some(k) => f.insert_unique(&k),
                        None => f.insert_unique_hash(h),
                    };
                    assert_eq!(r, !present, "insert_unique return");
                    oracle.insert(h);
                }
                3 => {
                    if a < 8 {
                        f.clear();
                        oracle.clear();
                    }
                }
                4 => {
                    let g = <$t>::from_bytes(&f.to_bytes()).expect("round trip failed");
                    assert!(g == f);
                    f = g;
                }
                5 => {
                    let c = f.clone();
                    f.union(&c).unwrap();
                    f.intersect(&c).unwrap();
                    assert!(f == c);
                }
                6 => {
                    let mut o = f.clone();
                    o.clear();
                    o.insert_hash(h);
                    f.union(&o).unwrap();
                    oracle.insert(h);
                }
                _ => unreachable!(),
            }
            for &h in &oracle {
                assert!(f.contains_hash(h), "false negative {h:#x}");
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
    match data[0] % 4 {
        0 => {
            let Ok(f) = BloomFilter::with_bits(1 + data[1] as u64 % 200, 1 + data[2] as u32 % 20)
            else {
                return;
            };
            run!(BloomFilter, f, data);
        }
        1 => {
            let Ok(f) = BloomFilter::with_fpr(
                1 + data[1] as usize % 8,
                [0.5, 0.1, 0.01, 1e-6, 1e-9][data[2] as usize % 5],
            ) else {
                return;
            };
            run!(BloomFilter, f, data);
        }
        2 => {
            let Ok(f) = BlockedBloomFilter::with_blocks(1 + data[1] as u64 % 3) else {
                return;
            };
            run!(BlockedBloomFilter, f, data);
        }
        _ => {
            let Ok(f) =
                BlockedBloomFilter::with_bits(1 + data[1] as u64 * 4, 1 + data[2] as u32 % 20)
            else {
                return;
            };
            run!(BlockedBloomFilter, f, data);
        }
    }
});
