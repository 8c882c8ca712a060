//! Static filters built from fuzzed keys (duplicates included) and from
//! structured pre-computed hashes: construction returns `Ok` or `Err`, never
//! panics, and every key of an `Ok` filter is found, also after a round trip
//! through bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

macro_rules! check {
    ($t:ty, $keys:expr, $hashes:expr) => {{
        if let Ok(f) = <$t>::from_keys($keys) {
            for k in $keys.iter() {
                assert!(f.contains(k), "false negative key {k}");
            }
            let g = <$t>::from_bytes(&f.to_bytes()).expect("round trip");
            for k in $keys.iter() {
                assert!(g.contains(k));
            }
            let _ = f.bits_per_key();
            let _ = f.len();
        }
        match <$t>::from_hashes($hashes) {
            Ok(f) => {
                for &h in $hashes.iter() {
                    assert!(f.contains_hash(h), "false negative hash {h:#x}");
                }
                let g = <$t>::from_bytes(&f.to_bytes()).expect("round trip");
                for &h in $hashes.iter() {
                    assert!(g.contains_hash(h));
                }
            }
            Err(_) => {}
        }
    }};
}

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    let sel = data[0];
    let body = &data[1..];
    let keys: Vec<u16> = body
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    // structured hashes: mostly small, with some extreme values and shared low/high bits
    let hashes: Vec<u64> = body
        .chunks_exact(2)
        .map(|c| {
            let v = u16::from_le_bytes([c[0], c[1]]) as u64;
            match c[0] >> 6 {
                0 => v,
                1 => v << 48,
                2 => u64::MAX - v,
                _ => v << 40 | v,
            }
        })
        .collect();
    match sel % 4 {
        0 => check!(xor_filter::Xor8, &keys, &hashes),
        1 => check!(xor_filter::Xor16, &keys, &hashes),
        2 => check!(xor_filter::BinaryFuse8, &keys, &hashes),
        _ => check!(xor_filter::BinaryFuse16, &keys, &hashes),
    }
});
