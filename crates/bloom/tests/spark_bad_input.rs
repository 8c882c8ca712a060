//! Bytes that are not one of Spark's filters: `Err`, never a panic, and
//! never an allocation larger than the input.

#![cfg(feature = "spark")]

use bloom::Error;
use bloom::spark::{SparkBloomFilter, SparkVersion};
use quickcheck::quickcheck;

fn sample(version: SparkVersion) -> Vec<u8> {
    let mut f = SparkBloomFilter::with_fpr_version(version, 100, 0.01).unwrap();
    for i in 0..100i64 {
        f.insert(&i);
    }
    f.to_bytes()
}

fn versions() -> [SparkVersion; 2] {
    [SparkVersion::V1, SparkVersion::V2 { seed: 42 }]
}

fn corrupt(bytes: &[u8]) -> String {
    match SparkBloomFilter::from_bytes(bytes) {
        Err(Error::Corrupt { reason }) => reason,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn every_truncation_and_every_extension_is_refused() {
    for version in versions() {
        let bytes = sample(version);
        for cut in 0..bytes.len() {
            corrupt(&bytes[..cut]);
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(corrupt(&longer).contains("needs"), "trailing bytes");
    }
}

/// The header with its fields replaced: (version, k, seed, words).
fn header(version: i32, k: i32, seed: Option<i32>, words: i32, payload_words: usize) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&version.to_be_bytes());
    out.extend_from_slice(&k.to_be_bytes());
    if let Some(seed) = seed {
        out.extend_from_slice(&seed.to_be_bytes());
    }
    out.extend_from_slice(&words.to_be_bytes());
    out.resize(out.len() + payload_words * 8, 0xA5);
    out
}

#[test]
fn unknown_versions_are_refused() {
    for version in [0, 3, -1, i32::MAX, i32::MIN, 0x0100_0000] {
        let reason = corrupt(&header(version, 3, None, 2, 2));
        assert!(reason.contains("version"), "{reason}");
    }
    // A version 2 header read as version 1 (no seed) is four bytes short.
    assert!(SparkBloomFilter::from_bytes(&header(2, 3, None, 2, 2)).is_err());
    assert!(SparkBloomFilter::from_bytes(&header(1, 3, Some(0), 2, 2)).is_err());
}

#[test]
fn lying_word_counts_are_refused_before_allocating() {
    for (seed, version) in [(None, 1), (Some(7), 2)] {
        assert!(SparkBloomFilter::from_bytes(&header(version, 3, seed, 2, 2)).is_ok());
        for words in [0, -1, i32::MIN, 1, 3, i32::MAX] {
            let reason = corrupt(&header(version, 3, seed, words, 2));
            assert!(reason.contains("word"), "{words}: {reason}");
        }
    }
}

#[test]
fn hash_counts_spark_never_writes_are_refused() {
    for k in [0, -1, i32::MIN, 129, i32::MAX] {
        let reason = corrupt(&header(1, k, None, 2, 2));
        assert!(reason.contains("hash functions"), "{k}: {reason}");
    }
    // k up to the bit count is what Spark's create can produce.
    assert_eq!(
        SparkBloomFilter::from_bytes(&header(2, 128, Some(0), 2, 2))
            .unwrap()
            .hashes(),
        128
    );
}

#[test]
fn every_bit_flip_loads_or_is_refused_and_never_panics() {
    for version in versions() {
        let bytes = sample(version);
        for bit in 0..bytes.len() * 8 {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            if let Ok(f) = SparkBloomFilter::from_bytes(&flipped) {
                // Only k, the seed or the bits themselves can change and still
                // describe a filter; it must answer without panicking.
                let _ = f.contains(&1i64) | f.contains("x");
                assert_eq!(f.to_bytes(), flipped);
            }
        }
    }
}

#[test]
fn bad_parameters_name_themselves() {
    let name = |r: Result<SparkBloomFilter, Error>| match r {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    };
    for fpr in [0.0, 1.0, -0.5, 1.5, f64::NAN, f64::INFINITY] {
        assert_eq!(name(SparkBloomFilter::with_fpr(100, fpr)), "fpr");
    }
    assert_eq!(name(SparkBloomFilter::with_fpr(0, 0.01)), "expected_items");
    assert_eq!(name(SparkBloomFilter::with_fpr(1, 0.9)), "expected_items"); // zero bits
    assert_eq!(name(SparkBloomFilter::with_fpr(u64::MAX, 1e-9)), "bits");
    assert_eq!(
        name(SparkBloomFilter::with_bits(SparkVersion::V1, 10, 0)),
        "bits"
    );
    assert_eq!(
        name(SparkBloomFilter::with_bits(SparkVersion::V1, 1, 1 << 40)),
        "bits"
    );
    assert_eq!(
        name(SparkBloomFilter::with_hashes(SparkVersion::V1, 0, 64)),
        "hashes"
    );
    assert_eq!(
        name(SparkBloomFilter::with_hashes(SparkVersion::V1, 65, 64)),
        "hashes"
    );
    assert_eq!(
        name(SparkBloomFilter::with_hashes(SparkVersion::V1, 3, u64::MAX)),
        "bits"
    );
}

quickcheck! {
    fn arbitrary_bytes_never_panic(bytes: Vec<u8>) -> bool {
        let _ = SparkBloomFilter::from_bytes(&bytes);
        true
    }

    fn arbitrary_headers_over_real_words_never_panic(version: i32, k: i32, seed: i32, words: i32) -> bool {
        let version = version.rem_euclid(3);
        let seed = (version == 2).then_some(seed);
        match SparkBloomFilter::from_bytes(&header(version, k, seed, words, 4)) {
            // Only the true shape loads, and answers without panicking.
            Ok(f) => words == 4 && f.bits() == 256 && { let _ = f.contains(&0i64); true },
            Err(_) => true,
        }
    }
}
