//! The `serde` feature of `DLeftCountingBloomFilter`: it serializes as its
//! checked bytes, in a text format (JSON) and a binary one (postcard), and
//! a serde load is validated exactly as `from_bytes`.
#![cfg(feature = "serde")]

use counting_bloom::{BlockedCountingBloomFilter, DLeftCountingBloomFilter, PortableHasher};

/// 500 keys once, one key 20 times (its counter saturates at 15).
fn sample() -> DLeftCountingBloomFilter {
    let mut filter = DLeftCountingBloomFilter::with_fpr(500, 0.01).unwrap();
    for i in 0..500u64 {
        filter.insert(&i).unwrap();
    }
    for _ in 0..20 {
        filter.insert("heavy").unwrap();
    }
    filter
}

#[test]
fn json_round_trips() {
    let filter = sample();
    let json = serde_json::to_string(&filter).unwrap();
    let loaded: DLeftCountingBloomFilter = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded, filter);
    assert_eq!(loaded.count("heavy"), 15);
    assert_eq!(loaded.len(), filter.len());
    assert!((0..500u64).all(|i| loaded.contains(&i)));
}

#[test]
fn postcard_round_trips_as_the_bytes_of_to_bytes() {
    let filter = sample();
    let encoded = postcard::to_stdvec(&filter).unwrap();
    // A byte string: a length prefix, then exactly `to_bytes`.
    assert!(encoded.ends_with(&filter.to_bytes()));
    assert!(encoded.len() <= filter.to_bytes().len() + 10);
    let mut loaded: DLeftCountingBloomFilter = postcard::from_bytes(&encoded).unwrap();
    assert_eq!(loaded, filter);
    // The loaded filter goes on counting and removing.
    assert!(loaded.remove(&7u64));
    assert!(!loaded.contains(&7u64));
    assert!(loaded.contains(&8u64));
}

#[test]
fn serde_loads_are_checked_as_from_bytes() {
    // A flipped bit: the checksum refuses it, with from_bytes's message.
    let mut bytes = sample().to_bytes();
    bytes[60] ^= 1;
    let json = serde_json::to_string(&serde_json::Value::from(bytes)).unwrap();
    let err = serde_json::from_str::<DLeftCountingBloomFilter>(&json).unwrap_err();
    assert!(err.to_string().contains("checksum mismatch"), "{err}");
    // Another kind's bytes: refused, naming the kind found.
    let mut other = BlockedCountingBloomFilter::with_fpr(100, 0.01).unwrap();
    other.insert(&1u64);
    let encoded = postcard::to_stdvec(&other).unwrap();
    let err = postcard::from_bytes::<DLeftCountingBloomFilter>(&encoded).unwrap_err();
    assert!(matches!(err, postcard::Error::SerdeDeCustom), "{err}");
    let json = serde_json::to_string(&other).unwrap();
    let err = serde_json::from_str::<DLeftCountingBloomFilter>(&json).unwrap_err();
    assert!(
        err.to_string()
            .contains("the bytes hold a BlockedCountingBloomFilter"),
        "{err}"
    );
    // Another seed: a hasher mismatch, since serde loads under the default
    // hasher.
    let seeded =
        DLeftCountingBloomFilter::with_fpr_and_hasher(100, 0.01, PortableHasher::with_seed(5))
            .unwrap();
    let json = serde_json::to_string(&seeded).unwrap();
    let err = serde_json::from_str::<DLeftCountingBloomFilter>(&json).unwrap_err();
    assert!(err.to_string().contains("hasher mismatch"), "{err}");
    // Truncated input.
    let encoded = postcard::to_stdvec(&sample()).unwrap();
    assert!(
        postcard::from_bytes::<DLeftCountingBloomFilter>(&encoded[..encoded.len() - 3]).is_err()
    );
}
