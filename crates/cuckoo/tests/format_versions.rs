//! Bytes of every format version keep loading with the buckets they were
//! built with.

use cuckoo::CuckooFilter;
use filter_core::format::{FLAG_MIXED_OFFSETS, FORMAT_MINOR};
use filter_core::testing::header;
use filter_core::testing::stable_hasher::StableHasher;

/// Written by the format 1.1 code (commit b4ad125): `with_fpr(100, 0.01)`
/// (38 buckets, 10-bit fingerprints) under `StableHasher`, holding "key-0"
/// to "key-99". Format 1.1 derived alternate offsets from the fingerprint
/// times the golden ratio.
const FORMAT_1_1: &[u8] = include_bytes!("data/cuckoo-1.1-fnv-100.bin");

fn members() -> impl Iterator<Item = String> {
    (0..100).map(|i| format!("key-{i}"))
}

#[test]
fn format_1_1_bytes_load_with_their_offsets() {
    assert_eq!(header::minor(FORMAT_1_1), 1, "the fixture is format 1.1");
    let filter = CuckooFilter::from_bytes_with_hasher(FORMAT_1_1, StableHasher::default()).unwrap();
    assert_eq!((filter.slots(), filter.fingerprint_bits()), (152, 10));
    assert!(members().all(|k| filter.contains(&k)));
    // Written again, the filter keeps its offsets (and so its flag).
    let bytes = filter.to_bytes();
    assert_eq!(header::flags(&bytes), 0);
    let again = CuckooFilter::from_bytes_with_hasher(&bytes, StableHasher::default()).unwrap();
    assert!(members().all(|k| again.contains(&k)));
    // Read with mixed offsets, the members that sit in their second bucket
    // would be missing: the flag is what keeps them.
    // (The flag is new in 1.2, so the forgery claims 1.2.)
    let misread = header::forged(FORMAT_1_1, 2, FLAG_MIXED_OFFSETS);
    let misread = CuckooFilter::from_bytes_with_hasher(&misread, StableHasher::default());
    let found = misread.map_or(0, |f| members().filter(|k| f.contains(k)).count());
    assert!(found < 100, "{found}");
}

#[test]
fn new_narrow_filters_are_flagged_and_older_versions_may_not_claim_the_flag() {
    // Small tables of wider fingerprints compute golden-ratio offsets,
    // unflagged; large ones keep mixed ones, flagged.
    let large =
        CuckooFilter::with_capacity_and_hasher(100_000, 7, StableHasher::default()).unwrap();
    let bytes = large.to_bytes();
    assert_eq!(header::flags(&bytes), FLAG_MIXED_OFFSETS);
    let wide = CuckooFilter::with_fpr_and_hasher(100, 0.01, StableHasher::default()).unwrap();
    let bytes = wide.to_bytes();
    assert_eq!(header::minor(&bytes), FORMAT_MINOR);
    assert_eq!(header::flags(&bytes), 0);
    // 6-bit fingerprints (a 12.5 % target) take mixed ones.
    let mut new = CuckooFilter::with_fpr_and_hasher(100, 0.125, StableHasher::default()).unwrap();
    assert_eq!(new.fingerprint_bits(), 6);
    members().for_each(|k| new.insert(&k).unwrap());
    let bytes = new.to_bytes();
    assert_eq!(header::minor(&bytes), FORMAT_MINOR);
    assert_eq!(header::flags(&bytes), FLAG_MIXED_OFFSETS);
    let loaded = CuckooFilter::from_bytes_with_hasher(&bytes, StableHasher::default()).unwrap();
    assert!(members().all(|k| loaded.contains(&k)));
    // The same bytes claiming 1.1, which had no such flag, are refused.
    let forged = header::forged(&bytes, 1, FLAG_MIXED_OFFSETS);
    let err = CuckooFilter::from_bytes_with_hasher(&forged, StableHasher::default()).unwrap_err();
    assert!(err.to_string().contains("predates it"), "{err}");
}
