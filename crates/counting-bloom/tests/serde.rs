//! The `serde` feature: both filters serialize as their checked bytes, in a
//! text format (JSON) and a binary one (postcard), and a serde load is
//! validated exactly as `from_bytes`.
#![cfg(feature = "serde")]

use counting_bloom::{BlockedCountingBloomFilter, CountingBloomFilter, PortableHasher};

fn classic() -> CountingBloomFilter {
    let mut filter = CountingBloomFilter::with_fpr(500, 0.01).unwrap();
    (0..500u64).for_each(|i| filter.insert(&i));
    (0..20).for_each(|_| filter.insert("heavy"));
    filter
}

fn blocked() -> BlockedCountingBloomFilter {
    let mut filter = BlockedCountingBloomFilter::with_fpr(500, 0.01).unwrap();
    (0..500u64).for_each(|i| filter.insert(&i));
    (0..20).for_each(|_| filter.insert("heavy"));
    filter
}

#[test]
fn json_round_trips() {
    let filter = classic();
    let json = serde_json::to_string(&filter).unwrap();
    let loaded: CountingBloomFilter = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded, filter);
    assert_eq!(loaded.count("heavy"), 15);

    let filter = blocked();
    let json = serde_json::to_string(&filter).unwrap();
    let loaded: BlockedCountingBloomFilter = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded, filter);
    assert!((0..500u64).all(|i| loaded.contains(&i)));
}

#[test]
fn postcard_round_trips_as_the_bytes_of_to_bytes() {
    let filter = classic();
    let encoded = postcard::to_stdvec(&filter).unwrap();
    // A byte string: a length prefix, then exactly `to_bytes`.
    assert!(encoded.ends_with(&filter.to_bytes()));
    assert!(encoded.len() <= filter.to_bytes().len() + 10);
    let loaded: CountingBloomFilter = postcard::from_bytes(&encoded).unwrap();
    assert_eq!(loaded, filter);

    let filter = blocked();
    let encoded = postcard::to_stdvec(&filter).unwrap();
    assert!(encoded.ends_with(&filter.to_bytes()));
    let loaded: BlockedCountingBloomFilter = postcard::from_bytes(&encoded).unwrap();
    assert_eq!(loaded, filter);
}

#[test]
fn serde_loads_are_checked_as_from_bytes() {
    // A flipped bit: the checksum refuses it, with from_bytes's message.
    let mut bytes = classic().to_bytes();
    bytes[60] ^= 1;
    let json = serde_json::to_string(&serde_json::Value::from(bytes.clone())).unwrap();
    let err = serde_json::from_str::<CountingBloomFilter>(&json).unwrap_err();
    assert!(err.to_string().contains("checksum mismatch"), "{err}");
    // Another kind's bytes: the kinds named.
    let encoded = postcard::to_stdvec(&blocked()).unwrap();
    let err = postcard::from_bytes::<CountingBloomFilter>(&encoded).unwrap_err();
    assert!(matches!(err, postcard::Error::SerdeDeCustom), "{err}");
    let json = serde_json::to_string(&blocked()).unwrap();
    let err = serde_json::from_str::<CountingBloomFilter>(&json).unwrap_err();
    assert!(
        err.to_string()
            .contains("the bytes hold a BlockedCountingBloomFilter"),
        "{err}"
    );
    // Another seed: a hasher mismatch, since serde loads under the
    // default hasher of the filter's type.
    let seeded =
        BlockedCountingBloomFilter::with_fpr_and_hasher(100, 0.01, PortableHasher::with_seed(5))
            .unwrap();
    let json = serde_json::to_string(&seeded).unwrap();
    let err = serde_json::from_str::<BlockedCountingBloomFilter>(&json).unwrap_err();
    assert!(err.to_string().contains("hasher mismatch"), "{err}");
    // Truncated input.
    let encoded = postcard::to_stdvec(&classic()).unwrap();
    assert!(postcard::from_bytes::<CountingBloomFilter>(&encoded[..encoded.len() - 3]).is_err());
}
