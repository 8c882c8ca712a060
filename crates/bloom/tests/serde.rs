//! The `serde` feature: a filter serializes as its checked bytes and
//! deserializes through `from_bytes`, in a text format (JSON) and a binary
//! one (postcard), so a serde load is validated exactly as a byte load.

#![cfg(feature = "serde")]

use bloom::{
    AtomicBlockedBloomFilter, AtomicBloomFilter, BlockedBloomFilter, BloomFilter,
    ScalableBloomFilter,
};
use filter_core::testing::keys;

fn classic() -> BloomFilter {
    let mut f = BloomFilter::with_fpr(500, 0.01).unwrap();
    keys::members(3, 500).iter().for_each(|k| f.insert(k));
    f
}

fn blocked() -> BlockedBloomFilter {
    let mut f = BlockedBloomFilter::with_fpr(500, 0.01).unwrap();
    keys::members(3, 500).iter().for_each(|k| f.insert(k));
    f
}

#[test]
fn json_and_postcard_round_trip_every_type() {
    let (c, b) = (classic(), blocked());
    let members = keys::members(3, 500);

    let json = serde_json::to_string(&c).unwrap();
    let back: BloomFilter = serde_json::from_str(&json).unwrap();
    assert_eq!(back, c);
    let bin = postcard::to_allocvec(&c).unwrap();
    let back: BloomFilter = postcard::from_bytes(&bin).unwrap();
    assert_eq!(back, c);

    let json = serde_json::to_string(&b).unwrap();
    let back: BlockedBloomFilter = serde_json::from_str(&json).unwrap();
    assert_eq!(back, b);
    let bin = postcard::to_allocvec(&b).unwrap();
    let back: BlockedBloomFilter = postcard::from_bytes(&bin).unwrap();
    assert_eq!(back, b);

    // The atomic twins write the same bytes and read each other's.
    let atomic = AtomicBloomFilter::from(c.clone());
    let bin = postcard::to_allocvec(&atomic).unwrap();
    assert_eq!(bin, postcard::to_allocvec(&c).unwrap());
    let back: AtomicBloomFilter = postcard::from_bytes(&bin).unwrap();
    assert!(members.iter().all(|k| back.contains(k)));
    let atomic = AtomicBlockedBloomFilter::from(b.clone());
    let json = serde_json::to_string(&atomic).unwrap();
    let back: AtomicBlockedBloomFilter = serde_json::from_str(&json).unwrap();
    assert!(members.iter().all(|k| back.contains(k)));
}

#[test]
fn a_grown_scalable_filter_round_trips() {
    let mut f = ScalableBloomFilter::with_fpr(50, 0.01).unwrap();
    let members = keys::members(4, 1_000);
    for k in &members {
        f.insert(k).unwrap();
    }
    let bin = postcard::to_allocvec(&f).unwrap();
    let back: ScalableBloomFilter = postcard::from_bytes(&bin).unwrap();
    assert_eq!(back.to_bytes(), f.to_bytes());
    let json = serde_json::to_string(&f).unwrap();
    let back: ScalableBloomFilter = serde_json::from_str(&json).unwrap();
    assert!(members.iter().all(|k| back.contains(k)));
    assert!(serde_json::from_str::<BloomFilter>(&json).is_err());
}

#[test]
fn serde_loads_are_validated_as_from_bytes() {
    // Another kind's bytes: the error is from_bytes's, carried as a custom
    // serde error.
    let bin = postcard::to_allocvec(&blocked()).unwrap();
    assert!(postcard::from_bytes::<BloomFilter>(&bin).is_err());
    let json = serde_json::to_string(&blocked()).unwrap();
    let err = serde_json::from_str::<BloomFilter>(&json).unwrap_err();
    assert!(err.to_string().contains("wrong filter kind"), "{err}");

    // A flipped bit is refused through the checksum.
    let mut bytes = classic().to_bytes();
    bytes[60] ^= 1;
    let json = serde_json::to_string(&bytes).unwrap();
    let err = serde_json::from_str::<BloomFilter>(&json).unwrap_err();
    assert!(err.to_string().contains("checksum"), "{err}");

    // Not bytes at all.
    assert!(serde_json::from_str::<BlockedBloomFilter>("\"a filter\"").is_err());
    assert!(serde_json::from_str::<BlockedBloomFilter>("[]").is_err());
}

#[test]
fn a_filter_built_with_another_seed_does_not_load_under_the_default() {
    let mut seeded =
        BloomFilter::with_fpr_and_hasher(100, 0.01, bloom::PortableHasher::with_seed(5)).unwrap();
    seeded.insert("k");
    let json = serde_json::to_string(&seeded).unwrap();
    let err = serde_json::from_str::<BloomFilter>(&json).unwrap_err();
    assert!(err.to_string().contains("hasher mismatch"), "{err}");
}
