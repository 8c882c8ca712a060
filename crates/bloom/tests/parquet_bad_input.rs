//! Bytes that are not a Parquet SBBF: `Err`, never a panic, and never an
//! allocation larger than the input.

#![cfg(feature = "parquet")]

use bloom::Error;
use bloom::parquet::{MAX_BYTES, MIN_BYTES, ParquetBloomFilter};
use quickcheck::quickcheck;

fn sample() -> Vec<u8> {
    let mut f = ParquetBloomFilter::with_bytes(256).unwrap();
    for i in 0..50i64 {
        f.insert(&i);
    }
    f.to_bytes()
}

fn corrupt(bytes: &[u8]) -> String {
    match ParquetBloomFilter::from_bytes(bytes) {
        Err(Error::Corrupt { reason }) => reason,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

/// The header every writer emits, with `num_bytes` as a zigzag varint.
fn header(num_bytes: i32) -> Vec<u8> {
    let mut out = vec![0x15];
    let mut v = ((num_bytes << 1) ^ (num_bytes >> 31)) as u32;
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    for _ in 0..3 {
        out.extend_from_slice(&[0x1c, 0x1c, 0, 0]);
    }
    out.push(0);
    out
}

#[test]
fn every_truncation_is_refused_and_trailing_bytes_too() {
    let bytes = sample();
    for cut in 0..bytes.len() {
        corrupt(&bytes[..cut]);
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(corrupt(&longer).contains("follow"));
    // `from_prefix` is for exactly that case.
    assert_eq!(
        ParquetBloomFilter::from_prefix(&longer).unwrap().1,
        bytes.len()
    );
}

#[test]
fn lying_lengths_are_refused_before_allocating() {
    for num_bytes in [0, -32, i32::MIN, 31, 33, 48, 288, 1 << 30, i32::MAX] {
        let mut bytes = header(num_bytes);
        bytes.resize(bytes.len() + 256, 0);
        let reason = corrupt(&bytes);
        assert!(
            reason.contains("numBytes") || reason.contains("bitset") || reason.contains("bytes"),
            "{num_bytes}: {reason}"
        );
    }
    let mut ok = header(256);
    ok.resize(ok.len() + 256, 0);
    assert!(ParquetBloomFilter::from_bytes(&ok).is_ok());
}

#[test]
fn other_algorithms_hashes_and_compressions_are_refused() {
    let ok = sample();
    // Bytes 3, 7 and 11 (after a two-byte numBytes) hold each union's member.
    let header_len = 16;
    assert_eq!(ok[..header_len], header(256)[..]);
    for (at, name) in [(3, "algorithm"), (7, "hash"), (11, "compression")] {
        let mut other = ok.clone();
        other[at] = 0x2c; // member 2
        assert!(corrupt(&other).contains(name), "{name}");
    }
}

#[test]
fn every_bit_flip_in_the_header_loads_or_is_refused_and_never_panics() {
    let bytes = sample();
    for bit in 0..16 * 8 {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        if let Ok(f) = ParquetBloomFilter::from_bytes(&flipped) {
            let _ = f.contains(&1i64);
        }
    }
}

#[test]
fn bare_bitsets_must_be_whole_blocks() {
    for len in [0, 1, 31, 33, 48, 100] {
        let reason = match ParquetBloomFilter::from_bitset(&vec![0; len]) {
            Err(Error::Corrupt { reason }) => reason,
            other => panic!("{len}: expected Corrupt, got {other:?}"),
        };
        assert!(reason.contains("multiple of 32"), "{reason}");
    }
    // Any whole number of blocks is a filter the specification allows.
    assert_eq!(
        ParquetBloomFilter::from_bitset(&[0; 96]).unwrap().blocks(),
        3
    );
}

#[test]
fn bad_parameters_name_themselves() {
    let name = |r: Result<ParquetBloomFilter, Error>| match r {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    };
    for fpr in [0.0, 1.0, -0.5, 1.5, f64::NAN, f64::INFINITY] {
        assert_eq!(name(ParquetBloomFilter::with_fpr(100, fpr)), "fpr");
    }
    assert_eq!(
        name(ParquetBloomFilter::with_fpr(u64::MAX, 0.01)),
        "expected_items"
    );
    assert_eq!(
        name(ParquetBloomFilter::with_fpr(200_000_000, 0.01)),
        "expected_items"
    );
    for bytes in [0, 16, 31, 48, 1000, MAX_BYTES * 2, usize::MAX] {
        assert_eq!(
            name(ParquetBloomFilter::with_bytes(bytes)),
            "bytes",
            "{bytes}"
        );
    }
    assert_eq!(
        ParquetBloomFilter::with_bytes(MIN_BYTES).unwrap().blocks(),
        1
    );
    assert_eq!(
        ParquetBloomFilter::with_fpr(0, 0.01).unwrap().bytes(),
        MIN_BYTES
    );
}

quickcheck! {
    fn arbitrary_bytes_never_panic(bytes: Vec<u8>) -> bool {
        let _ = ParquetBloomFilter::from_bytes(&bytes);
        let _ = ParquetBloomFilter::from_prefix(&bytes);
        let _ = ParquetBloomFilter::from_bitset(&bytes);
        true
    }

    fn arbitrary_bytes_after_a_header_start_never_panic(tail: Vec<u8>) -> bool {
        let mut bytes = vec![0x15, 0x80, 0x04];
        bytes.extend_from_slice(&tail);
        let _ = ParquetBloomFilter::from_bytes(&bytes);
        true
    }
}
