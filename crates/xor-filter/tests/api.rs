//! The standard traits and accessors a user expects: thread safety, a short
//! `Debug`, equality of whole state, and the shape the filter chose.

use filter_core::testing::keys;
use xor_filter::{BinaryFuse8, BinaryFuse16, PortableHasher, Xor8, Xor16};

/// Compile-time: a filter can be shared between threads (built once, then
/// queried from many, behind an `Arc`).
#[test]
fn filters_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + Clone + std::fmt::Debug + Eq>() {}
    assert_send_sync::<Xor8>();
    assert_send_sync::<Xor16>();
    assert_send_sync::<BinaryFuse8>();
    assert_send_sync::<BinaryFuse16<PortableHasher>>();
}

#[test]
fn debug_shows_the_shape_not_the_table() {
    let members = keys::members(3, 100_000);
    let text = format!("{:?}", BinaryFuse8::from_keys(&members).unwrap());
    // 112 KiB of fingerprints printed one by one would be ~500 KB of text.
    assert!(text.len() < 200, "{text}");
    assert!(text.starts_with("BinaryFuse8 {"), "{text}");
    for field in [
        "len: 100000",
        "fingerprint_bits: 8",
        "slots: ",
        "memory_bytes: ",
    ] {
        assert!(text.contains(field), "{field} missing from {text}");
    }
    let text = format!("{:?}", Xor16::from_keys(&members).unwrap());
    assert!(text.starts_with("Xor16 {") && text.contains("fingerprint_bits: 16"));
}

#[test]
fn accessors_report_the_shape() {
    let members = keys::members(4, 10_000);
    let fuse = BinaryFuse16::from_keys(&members).unwrap();
    assert_eq!(fuse.fingerprint_bits(), 16);
    assert_eq!(fuse.memory_bytes(), 2 * fuse.slots());
    assert!(fuse.slots() > fuse.len());
    let xor = Xor8::from_keys(&members).unwrap();
    assert_eq!(xor.fingerprint_bits(), 8);
    // The xor layout: 1.23 n + 32 slots, rounded to three equal blocks.
    assert!(xor.slots().abs_diff(12_332) <= 3, "{}", xor.slots());
    assert_eq!(xor.memory_bytes(), xor.slots());
}

#[test]
fn equal_exactly_when_the_bytes_are_equal() {
    let members = keys::members(5, 10_000);
    let a = BinaryFuse8::from_keys(&members).unwrap();
    let b = BinaryFuse8::from_bytes(&a.to_bytes()).unwrap();
    assert_eq!(a, b);
    // Construction is reproducible: the same keys give an equal filter.
    assert_eq!(a, BinaryFuse8::from_keys(&members).unwrap());
    // One key fewer: a different table.
    let c = BinaryFuse8::from_keys(&members[1..]).unwrap();
    assert_ne!(a, c);
    assert_ne!(a.to_bytes(), c.to_bytes());
    // The same hashes under a hasher that hashes differently: the tables
    // are equal, the filters not (from_bytes would refuse one for the other).
    let hashes: Vec<u64> = (0..1_000).collect();
    let d = Xor8::from_hashes(&hashes).unwrap();
    let e = Xor8::from_hashes_with_hasher(&hashes, PortableHasher::with_seed(7)).unwrap();
    assert_ne!(d, e);
    assert_eq!(d, Xor8::from_hashes(&hashes).unwrap());
}
