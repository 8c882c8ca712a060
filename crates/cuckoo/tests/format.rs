//! Format 1.0 fixtures: the bytes this version writes for three fixed
//! filters, pinned, so that a change to the layout, the default hasher, the
//! positions or the eviction order shows as a failing test rather than as
//! filters that no longer load. The layout is in `docs/format-cuckoo.md`.
//!
//! To write the fixtures again after a deliberate format change (which
//! needs a new format version), run
//! `CUCKOO_WRITE_FIXTURES=1 cargo test -p cuckoo --test format`.

use cuckoo::{CuckooFilter, Error, ScalableCuckooFilter};

/// `with_fpr(100, 0.01)` holding "key-0" to "key-99".
const SMALL: &str = "cuckoo-1.0-100.bin";
/// `with_buckets(3, 8)` filled with 0u64, 1u64, ... until its victim slot
/// is occupied.
const FULL: &str = "cuckoo-1.0-full.bin";

/// `ScalableCuckooFilter::with_fpr(10, 0.01)` holding "key-0" to
/// "key-299" (three stages), less "key-0" to "key-29".
const SCALABLE: &str = "scalable-cuckoo-1.0-grown.bin";

fn scalable() -> ScalableCuckooFilter {
    let mut filter = ScalableCuckooFilter::with_fpr(10, 0.01).unwrap();
    for i in 0..300 {
        filter.insert(&format!("key-{i}")).unwrap();
    }
    for i in 0..30 {
        assert!(filter.remove(&format!("key-{i}")));
    }
    filter
}

fn small() -> CuckooFilter {
    let mut filter = CuckooFilter::with_fpr(100, 0.01).unwrap();
    for i in 0..100 {
        filter.insert(&format!("key-{i}")).unwrap();
    }
    filter
}

fn full() -> (CuckooFilter, u64) {
    let mut filter = CuckooFilter::with_buckets(3, 8).unwrap();
    let mut i = 0u64;
    while !filter.is_full() {
        filter.insert(&i).unwrap();
        i += 1;
    }
    (filter, i)
}

/// The fixture `name`, after writing `bytes` to it when asked to.
fn fixture(name: &str, bytes: &[u8]) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("CUCKOO_WRITE_FIXTURES").is_some() {
        std::fs::write(&path, bytes).unwrap();
    }
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn this_version_writes_the_fixtures_byte_for_byte() {
    let bytes = small().to_bytes();
    assert_eq!(bytes, fixture(SMALL, &bytes), "{SMALL}");
    let bytes = full().0.to_bytes();
    assert_eq!(bytes, fixture(FULL, &bytes), "{FULL}");
    let bytes = scalable().to_bytes();
    assert_eq!(bytes, fixture(SCALABLE, &bytes), "{SCALABLE}");
}

#[test]
fn the_scalable_fixture_loads_and_answers() {
    let bytes = fixture(SCALABLE, &scalable().to_bytes());
    let kind = u16::from_le_bytes([bytes[8], bytes[9]]);
    assert_eq!(kind, 11, "kind 11: ScalableCuckooFilter");
    let loaded = ScalableCuckooFilter::from_bytes(&bytes).unwrap();
    assert_eq!((loaded.len(), loaded.stages()), (270, 3));
    assert!((30..300).all(|i| loaded.contains(&format!("key-{i}"))));
    assert_eq!(loaded, scalable());
}

#[test]
fn fixtures_have_a_1_0_header_and_load() {
    let small_bytes = fixture(SMALL, &small().to_bytes());
    assert_eq!(&small_bytes[..4], b"MFLT");
    let field = |at: usize| u16::from_le_bytes([small_bytes[at], small_bytes[at + 1]]);
    assert_eq!((field(4), field(6)), (1, 0), "format 1.0");
    assert_eq!(field(8), 4, "kind 4: CuckooFilter");
    assert_eq!(field(10), 0, "flags are reserved");
    let loaded = CuckooFilter::from_bytes(&small_bytes).unwrap();
    assert_eq!((loaded.len(), loaded.fingerprint_bits()), (100, 10));
    assert!((0..100).all(|i| loaded.contains(&format!("key-{i}"))));

    let (filter, inserted) = full();
    let loaded = CuckooFilter::from_bytes(&fixture(FULL, &filter.to_bytes())).unwrap();
    assert!(loaded.is_full());
    assert_eq!(loaded.len() as u64, inserted);
    assert!((0..inserted).all(|i| loaded.contains(&i)));
    // A reload evicts as the original would.
    let (mut a, mut b) = (filter, loaded);
    assert!(a.remove(&0u64) && b.remove(&0u64));
    for i in 100..110u64 {
        assert_eq!(a.insert(&i), b.insert(&i));
    }
    assert_eq!(a, b);
}

#[test]
fn another_major_version_is_refused() {
    // Bytes of major 2 may lay out their body differently: refused, with
    // the version named.
    let mut bytes = small().to_bytes();
    bytes[4] = 2;
    filter_core::format::reseal(&mut bytes);
    let err = CuckooFilter::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("format version 2.0"), "{err}");
}
