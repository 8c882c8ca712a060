//! The `serde` feature: a filter serializes as its checked bytes, in JSON
//! and in a binary format (postcard), and a serde load is validated exactly
//! as `from_bytes`.
#![cfg(feature = "serde")]

use std::collections::hash_map::DefaultHasher;
use std::hash::BuildHasherDefault;

use cuckoo::CuckooFilter;

fn filter() -> CuckooFilter {
    let mut filter = CuckooFilter::with_fpr(1_000, 0.01).unwrap();
    for i in 0..1_000u64 {
        filter.insert(&i).unwrap();
    }
    filter
}

#[test]
fn json_round_trip() {
    let filter = filter();
    let json = serde_json::to_string(&filter).unwrap();
    let loaded: CuckooFilter = serde_json::from_str(&json).unwrap();
    assert_eq!(loaded, filter);
    assert!((0..1_000u64).all(|i| loaded.contains(&i)));
    // The serialized value is the bytes of `to_bytes`.
    let bytes: Vec<u8> = serde_json::from_str(&json).unwrap();
    assert_eq!(bytes, filter.to_bytes());
}

#[test]
fn postcard_round_trip() {
    let filter = filter();
    let encoded = postcard::to_stdvec(&filter).unwrap();
    let loaded: CuckooFilter = postcard::from_bytes(&encoded).unwrap();
    assert_eq!(loaded, filter);
    assert_eq!(loaded.to_bytes(), filter.to_bytes());
}

#[test]
fn serde_loads_are_checked_as_from_bytes() {
    let filter = filter();
    // A flipped bit in the filter's bytes: the checksum refuses it.
    let mut bytes = filter.to_bytes();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    let json = serde_json::to_string(&bytes).unwrap();
    let err = serde_json::from_str::<CuckooFilter>(&json).unwrap_err();
    assert!(err.to_string().contains("checksum"), "{err}");
    let encoded = postcard::to_stdvec(&serde_bytes_of(&bytes)).unwrap();
    assert!(postcard::from_bytes::<CuckooFilter>(&encoded).is_err());
    // Bytes written under another hasher are refused for this one.
    let json = serde_json::to_string(&filter).unwrap();
    let err =
        serde_json::from_str::<CuckooFilter<BuildHasherDefault<DefaultHasher>>>(&json).unwrap_err();
    assert!(err.to_string().contains("hasher mismatch"), "{err}");
    // Not bytes at all.
    assert!(serde_json::from_str::<CuckooFilter>("\"cuckoo\"").is_err());
}

/// `bytes` as postcard writes a byte string: a filter's serialization.
fn serde_bytes_of(bytes: &[u8]) -> ByteString<'_> {
    ByteString(bytes)
}

struct ByteString<'a>(&'a [u8]);

impl serde::Serialize for ByteString<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}
