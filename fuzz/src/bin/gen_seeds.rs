//! Writes the seed corpus of the `from_bytes` target: the bytes of real
//! filters of every type (tiny, saturated, full to `Err(Full)` with the
//! victim slot taken, every cuckoo width), each after the type-selector
//! byte; the Bloom filters' bytes also under the atomic twins' selectors.
//! Run from `fuzz/` with `cargo run --release --bin gen_seeds`.

use std::fs;
fn w(dir: &str, sel: u8, name: &str, bytes: Vec<u8>) {
    // The atomic Bloom filters (selectors 9 and 10) read their plain twins'
    // bytes (selectors 0 and 1), so each such seed serves both.
    let twin = match sel {
        0 => Some(9),
        1 => Some(10),
        _ => None,
    };
    if let Some(twin) = twin {
        let mut v = vec![twin];
        v.extend(&bytes);
        fs::write(format!("{dir}/atomic_{name}"), v).unwrap();
    }
    let mut v = vec![sel];
    v.extend(bytes);
    fs::write(format!("{dir}/{name}"), v).unwrap();
}
fn main() {
    let dir = "corpus/from_bytes";
    fs::create_dir_all(dir).unwrap();
    let ns = [0usize, 1, 2, 3, 10, 100];
    for &(n, p) in &[
        (1usize, 0.01f64),
        (2, 0.01),
        (3, 0.01),
        (5, 0.01),
        (1, 1e-6),
        (3, 1e-6),
        (100, 0.01),
        (6, 0.5),
        (2300, 1e-6),
    ] {
        if let Ok(mut f) = bloom::BloomFilter::with_fpr(n, p) {
            for i in 0..n {
                f.insert(&i);
            }
            w(dir, 0, &format!("bloom_{n}_{p}"), f.to_bytes());
        }
        if let Ok(mut f) = bloom::BlockedBloomFilter::with_fpr(n, p) {
            for i in 0..n {
                f.insert(&i);
            }
            w(dir, 1, &format!("bbloom_{n}_{p}"), f.to_bytes());
        }
        if let Ok(mut f) = counting_bloom::CountingBloomFilter::with_fpr(n, p) {
            for i in 0..n {
                f.insert(&i);
            }
            w(dir, 2, &format!("cbloom_{n}_{p}"), f.to_bytes());
        }
        if let Ok(mut f) = counting_bloom::BlockedCountingBloomFilter::with_fpr(n, p) {
            for i in 0..n {
                f.insert(&i);
            }
            w(dir, 3, &format!("bcbloom_{n}_{p}"), f.to_bytes());
        }
    }
    for &(bits, h) in &[(1u64, 1u32), (64, 3), (100, 7), (1000, 2)] {
        if let Ok(mut f) = bloom::BloomFilter::with_bits(bits, h) {
            f.insert(&1u8);
            w(dir, 0, &format!("bloombits_{bits}_{h}"), f.to_bytes());
        }
        if let Ok(mut f) =
            bloom::BlockedBloomFilter::with_blocks((bits / 512).max(1) + u64::from(h % 2))
        {
            f.insert(&1u8);
            w(dir, 1, &format!("bbloombits_{bits}_{h}"), f.to_bytes());
        }
        if let Ok(mut f) = counting_bloom::CountingBloomFilter::with_counters(bits, h) {
            f.insert(&1u8);
            w(dir, 2, &format!("ccount_{bits}_{h}"), f.to_bytes());
        }
        if let Ok(mut f) = counting_bloom::BlockedCountingBloomFilter::with_blocks(bits.min(4), h) {
            f.insert(&1u8);
            w(dir, 3, &format!("bcblocks_{bits}_{h}"), f.to_bytes());
        }
    }
    // saturated counters
    if let Ok(mut f) = counting_bloom::CountingBloomFilter::with_counters(16, 2) {
        for _ in 0..300 {
            f.insert(&1u8);
        }
        w(dir, 2, "csat", f.to_bytes());
    }
    if let Ok(mut f) = counting_bloom::BlockedCountingBloomFilter::with_blocks(1, 2) {
        for _ in 0..300 {
            f.insert(&1u8);
        }
        w(dir, 3, "bcsat", f.to_bytes());
    }
    if let Ok(mut f) = bloom::BlockedBloomFilter::with_blocks(1) {
        f.insert(&1u8);
        w(dir, 1, "bblocks1", f.to_bytes());
    }
    for bits in [4u32, 5, 7, 8, 9, 12, 15, 16] {
        for buckets in [1usize, 2, 3, 4] {
            if let Ok(mut f) = cuckoo::CuckooFilter::with_buckets(buckets, bits) {
                let _ = f.insert(&1u8);
                w(dir, 4, &format!("cuckoo_{buckets}_{bits}"), f.to_bytes());
                let mut i = 0u32;
                while f.insert(&i).is_ok() {
                    i += 1;
                    if i > 10000 {
                        break;
                    }
                }
                w(
                    dir,
                    4,
                    &format!("cuckoofull_{buckets}_{bits}"),
                    f.to_bytes(),
                );
            }
        }
    }
    if let Ok(f) = cuckoo::CuckooFilter::with_fpr(3, 0.01) {
        w(dir, 4, "cuckoo_fpr", f.to_bytes());
    }
    for n in ns {
        let keys: Vec<u64> = (0..n as u64).collect();
        if let Ok(f) = xor_filter::Xor8::from_keys(&keys) {
            w(dir, 5, &format!("xor8_{n}"), f.to_bytes());
        }
        if let Ok(f) = xor_filter::Xor16::from_keys(&keys) {
            w(dir, 6, &format!("xor16_{n}"), f.to_bytes());
        }
        if let Ok(f) = xor_filter::BinaryFuse8::from_keys(&keys) {
            w(dir, 7, &format!("bf8_{n}"), f.to_bytes());
        }
        if let Ok(f) = xor_filter::BinaryFuse16::from_keys(&keys) {
            w(dir, 8, &format!("bf16_{n}"), f.to_bytes());
        }
    }
    // The 1.0 kinds: scalable filters grown past their first stage, a
    // d-left filter with counts, a grown quotient filter, Ribbon at three
    // rates; the xor filters' bytes again under their views' selectors.
    for n in [0usize, 1, 10, 200] {
        if let Ok(mut f) = bloom::ScalableBloomFilter::with_fpr(4, 0.01) {
            (0..n).for_each(|i| drop(f.insert(&i)));
            w(dir, 11, &format!("sbloom_{n}"), f.to_bytes());
        }
        if let Ok(mut f) = cuckoo::ScalableCuckooFilter::with_fpr(4, 0.01) {
            (0..n).for_each(|i| drop(f.insert(&i)));
            w(dir, 12, &format!("scuckoo_{n}"), f.to_bytes());
        }
        if let Ok(mut f) = counting_bloom::DLeftCountingBloomFilter::with_fpr(n.max(1), 0.01) {
            (0..n).for_each(|i| drop(f.insert(&(i % 7))));
            w(dir, 13, &format!("dleft_{n}"), f.to_bytes());
        }
        if let Ok(mut f) = quotient_filter::QuotientFilter::with_fpr(n.max(4), 0.01) {
            (0..n).for_each(|i| drop(f.insert(&(i % 5))));
            w(dir, 14, &format!("qf_{n}"), f.to_bytes());
            if f.grow().is_ok() {
                w(dir, 14, &format!("qfgrown_{n}"), f.to_bytes());
            }
        }
        let keys: Vec<u64> = (0..n as u64).collect();
        for fpr in [0.5, 0.01, 1e-6] {
            if let Ok(f) = xor_filter::Ribbon::from_keys_with_fpr(&keys, fpr) {
                w(dir, 15, &format!("ribbon_{n}_{fpr}"), f.to_bytes());
            }
        }
        if let Ok(f) = xor_filter::Xor8::from_keys(&keys) {
            w(dir, 0x15, &format!("xor8view_{n}"), f.to_bytes());
        }
        if let Ok(f) = xor_filter::BinaryFuse16::from_keys(&keys) {
            w(dir, 0x48, &format!("bf16view_{n}"), f.to_bytes());
        }
        if let Ok(f) = xor_filter::PartitionedBinaryFuse8::from_keys(&keys, 3) {
            w(dir, 0x5f, &format!("pbf8_{n}"), f.to_bytes());
        }
        if let Ok(f) = xor_filter::PartitionedBinaryFuse16::from_keys(&keys, 2) {
            w(dir, 0x6f, &format!("pbf16_{n}"), f.to_bytes());
        }
    }
}
