//! Random operation sequences on small classic and blocked Bloom filters
//! against a `HashSet` of the inserted hashes: insert (keyed and pre-hashed),
//! `insert_unique` (must answer `true` exactly when `contains` said no),
//! `clear`, a round trip through bytes, `union`/`intersect` with itself and
//! `union` with a one-key filter. After every step each inserted hash must
//! still be found.
//!
//! Beside each filter runs its atomic twin (`AtomicBloomFilter`,
//! `AtomicBlockedBloomFilter`), given the same inserts, clears and round
//! trips (a union with a one-key filter is an insert of that key for the
//! twin). After every step it must hold exactly the filter's bytes, and its
//! `insert_unique` must answer as the filter's did.
#![no_main]
use bloom::{AtomicBlockedBloomFilter, AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
use filters_fuzz::Item;
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;

macro_rules! run {
    ($t:ty, $twin:ty, $f:expr, $data:expr) => {{
        let mut f = $f;
        let mut twin = <$twin>::from(f.clone());
        let mut oracle: HashSet<u64> = HashSet::new();
        for op in $data[3..].chunks_exact(2) {
            let (code, a) = (op[0], op[1]);
            let item = Item::new(a, 24, f.hasher());
            let h = item.hash;
            match code % 7 {
                0 | 1 => {
                    match item.key {
                        Some(k) => {
                            f.insert(&k);
                            twin.insert(&k);
                        }
                        None => {
                            f.insert_hash(h);
                            twin.insert_hash(h);
                        }
                    };
                    oracle.insert(h);
                }
                2 => {
                    let present = f.contains_hash(h);
                    let (r, twin_r) = match item.key {
                        Some(k) => (f.insert_unique(&k), twin.insert_unique(&k)),
                        None => {
                            let twin_present = twin.contains_hash(h);
                            f.insert_hash(h);
                            twin.insert_hash(h);
                            (!present, !twin_present)
                        }
                    };
                    assert_eq!(r, !present, "insert_unique return");
                    assert_eq!(twin_r, r, "atomic twin's insert_unique return");
                    oracle.insert(h);
                }
                3 => {
                    if a < 8 {
                        f.clear();
                        twin.clear();
                        oracle.clear();
                    }
                }
                4 => {
                    let g = <$t>::from_bytes(&f.to_bytes()).expect("round trip failed");
                    assert!(g == f);
                    f = g;
                    twin = <$twin>::from_bytes(&twin.to_bytes()).expect("twin round trip failed");
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
                    twin.insert_hash(h);
                    oracle.insert(h);
                }
                _ => unreachable!(),
            }
            for &h in &oracle {
                assert!(f.contains_hash(h), "false negative {h:#x}");
                assert!(twin.contains_hash(h), "atomic twin's false negative {h:#x}");
            }
            assert!(twin.to_bytes() == f.to_bytes(), "atomic twin's bits differ");
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
            run!(BloomFilter, AtomicBloomFilter, f, data);
        }
        1 => {
            let Ok(f) = BloomFilter::with_fpr(
                1 + data[1] as usize % 8,
                [0.5, 0.1, 0.01, 1e-6, 1e-9][data[2] as usize % 5],
            ) else {
                return;
            };
            run!(BloomFilter, AtomicBloomFilter, f, data);
        }
        2 => {
            let Ok(f) = BlockedBloomFilter::with_blocks(1 + data[1] as u64 % 3) else {
                return;
            };
            run!(BlockedBloomFilter, AtomicBlockedBloomFilter, f, data);
        }
        _ => {
            let Ok(f) = BlockedBloomFilter::with_fpr(
                1 + data[1] as usize % 64,
                [0.5, 0.1, 0.01, 1e-6][data[2] as usize % 4],
            ) else {
                return;
            };
            run!(BlockedBloomFilter, AtomicBlockedBloomFilter, f, data);
        }
    }
});
