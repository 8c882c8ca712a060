//! Bytes of every format version keep loading with the positions they were
//! built with.

use bloom::BloomFilter;
use bloom::ProbeSequence;
use filter_core::format::{
    FLAG_CUBIC_PROBES, FLAG_FOLDED_PROBES, FLAG_HASHED_PROBES, FORMAT_MINOR,
};
use filter_core::testing::header;
use filter_core::testing::stable_hasher::StableHasher;

/// Written by the format 1.0 code (commit 873cdea): `with_fpr(100, 0.001)`
/// (1438 bits, 10 probes) under `StableHasher`, holding "key-0" to "key-99".
/// Format 1.0 knew only the linear probe sequence.
const FORMAT_1_0: &[u8] = include_bytes!("data/bloom-1.0-fnv-100.bin");

/// Written by the format 1.2 code (commit a317cea): `with_fpr(3, 1e-6)`
/// (91 bits, 19 probes) under `StableHasher`, holding "key-0" to "key-2".
/// That code built such tables cubic; this one builds them hashed.
const FORMAT_1_2_CUBIC: &[u8] = include_bytes!("data/bloom-1.2-fnv-3.bin");

/// Written by the format 1.3 code (commit 61ad5bf): `with_fpr(1000, 0.01)`
/// (9595 bits, 7 probes) under `StableHasher`, holding "key-0" to
/// "key-999". That code built such tables linear, without a flag; this one
/// builds them folded.
const FORMAT_1_3_LINEAR: &[u8] = include_bytes!("data/bloom-1.3-fnv-1000.bin");

fn members() -> impl Iterator<Item = String> {
    (0..100).map(|i| format!("key-{i}"))
}

#[test]
fn format_1_0_bytes_load_with_linear_probes() {
    assert_eq!(header::minor(FORMAT_1_0), 0, "the fixture is format 1.0");
    let filter = BloomFilter::from_bytes_with_hasher(FORMAT_1_0, StableHasher::default()).unwrap();
    assert_eq!((filter.bits(), filter.hashes()), (1438, 10));
    assert_eq!(filter.probe_sequence(), ProbeSequence::Linear);
    assert!(members().all(|k| filter.contains(&k)));
    // Read with the cubic sequence, which a new filter of this size uses,
    // most members would be missing: the flag is what keeps them.
    // (Format 1.0 has no flags, so the forgery claims 1.1.)
    let misread = header::forged(FORMAT_1_0, 1, FLAG_CUBIC_PROBES);
    let misread = BloomFilter::from_bytes_with_hasher(&misread, StableHasher::default()).unwrap();
    let found = members().filter(|k| misread.contains(k)).count();
    assert!(found < 50, "{found}");
    // Written again, the filter keeps its sequence.
    let again =
        BloomFilter::from_bytes_with_hasher(&filter.to_bytes(), StableHasher::default()).unwrap();
    assert_eq!(again.probe_sequence(), ProbeSequence::Linear);
    assert!(members().all(|k| again.contains(&k)));
}

#[test]
fn new_small_filters_are_flagged_cubic_and_do_not_combine_with_linear_ones() {
    let mut new = BloomFilter::with_fpr_and_hasher(100, 0.001, StableHasher::default()).unwrap();
    assert_eq!(new.probe_sequence(), ProbeSequence::Cubic);
    members().for_each(|k| new.insert(&k));
    let bytes = new.to_bytes();
    // Written by the current minor version (4), flag set: a 1.0 reader
    // refuses these bytes.
    assert_eq!(header::minor(&bytes), FORMAT_MINOR);
    assert_eq!(header::flags(&bytes), FLAG_CUBIC_PROBES);
    let loaded = BloomFilter::from_bytes_with_hasher(&bytes, StableHasher::default()).unwrap();
    assert_eq!(loaded.probe_sequence(), ProbeSequence::Cubic);
    assert!(members().all(|k| loaded.contains(&k)));

    // Same size, same hasher, different positions: combining them would
    // lose members, so both operations refuse. (The 1.0 filter was sized
    // by `with_fpr(100, 0.001)` before sizing counted the spread of a small
    // filter's fill, so the new filter takes its shape explicitly.)
    let mut old = BloomFilter::from_bytes_with_hasher(FORMAT_1_0, StableHasher::default()).unwrap();
    let mut new =
        BloomFilter::with_bits_and_hasher(old.bits(), old.hashes(), StableHasher::default())
            .unwrap();
    assert_eq!(new.probe_sequence(), ProbeSequence::Cubic);
    members().for_each(|k| new.insert(&k));
    let err = old.union(&new).unwrap_err();
    assert!(err.to_string().contains("probe sequence"), "{err}");
    let err = old.intersect(&new).unwrap_err();
    assert!(err.to_string().contains("probe sequence"), "{err}");
    assert!(members().all(|k| old.contains(&k)));
}

#[test]
fn the_smallest_filters_are_flagged_hashed_and_do_not_combine_with_cubic_ones() {
    // One key at 10^−6: 33 bits, 19 probes, below the hashed line (2^15
    // cells at k = 19).
    let mut new = BloomFilter::with_fpr_and_hasher(1, 1e-6, StableHasher::default()).unwrap();
    assert_eq!((new.bits(), new.hashes()), (33, 19));
    assert_eq!(new.probe_sequence(), ProbeSequence::Hashed);
    new.insert("the only key");
    let bytes = new.to_bytes();
    // A 1.2 reader refuses bytes with this flag, and this reader refuses it
    // in bytes that claim 1.2 (filter-core's format tests).
    assert_eq!(header::minor(&bytes), FORMAT_MINOR);
    assert_eq!(header::flags(&bytes), FLAG_HASHED_PROBES);
    let loaded = BloomFilter::from_bytes_with_hasher(&bytes, StableHasher::default()).unwrap();
    assert_eq!(loaded, new);
    assert!(loaded.contains("the only key"));

    // The same bytes flagged cubic: same shape, other positions. Combining
    // them would lose the key, so both operations refuse.
    let cubic_bytes = header::with_flags(&bytes, FLAG_CUBIC_PROBES);
    let mut cubic =
        BloomFilter::from_bytes_with_hasher(&cubic_bytes, StableHasher::default()).unwrap();
    assert_eq!(cubic.probe_sequence(), ProbeSequence::Cubic);
    assert_ne!(cubic, new);
    let err = cubic.union(&new).unwrap_err();
    assert!(err.to_string().contains("probe sequence"), "{err}");
    let err = new.intersect(&cubic).unwrap_err();
    assert!(err.to_string().contains("probe sequence"), "{err}");
    assert!(new.contains("the only key"));
}

#[test]
fn large_filters_are_flagged_folded() {
    let filter = BloomFilter::with_fpr(100_000, 0.01).unwrap();
    assert_eq!(filter.probe_sequence(), ProbeSequence::Folded);
    let bytes = filter.to_bytes();
    assert_eq!(header::minor(&bytes), FORMAT_MINOR);
    assert_eq!(header::flags(&bytes), FLAG_FOLDED_PROBES);
}

#[test]
fn format_1_3_bytes_of_a_now_folded_shape_load_linear() {
    assert_eq!(
        header::minor(FORMAT_1_3_LINEAR),
        3,
        "the fixture is format 1.3"
    );
    assert_eq!(header::flags(FORMAT_1_3_LINEAR), 0, "and sets no flag");
    let keys: Vec<String> = (0..1000).map(|i| format!("key-{i}")).collect();
    let load =
        |bytes: &[u8]| BloomFilter::from_bytes_with_hasher(bytes, StableHasher::default()).unwrap();
    let old = load(FORMAT_1_3_LINEAR);
    assert_eq!((old.bits(), old.hashes()), (9595, 7));
    assert_eq!(old.probe_sequence(), ProbeSequence::Linear);
    assert!(keys.iter().all(|k| old.contains(k)));
    // Read with the folded sequence, most members would be missing: the
    // absent flag is what keeps them.
    let misread = header::forged(FORMAT_1_3_LINEAR, 4, FLAG_FOLDED_PROBES);
    let misread = load(&misread);
    assert_eq!(misread.probe_sequence(), ProbeSequence::Folded);
    let found = keys.iter().filter(|k| misread.contains(k)).count();
    assert!(found < 500, "{found}");
    // A new filter of the same shape probes the folded sequence: the two
    // do not combine, and the old one keeps its members.
    let mut new = BloomFilter::with_fpr_and_hasher(1000, 0.01, StableHasher::default()).unwrap();
    assert_eq!(new.probe_sequence(), ProbeSequence::Folded);
    keys.iter().for_each(|k| new.insert(k));
    let mut combined = old.clone();
    assert!(combined.union(&new).is_err());
    assert!(combined.intersect(&new).is_err());
    assert_eq!(combined, old);
    // Written again, the old filter stays linear, with no flag (and now
    // claims the current minor).
    let bytes = old.to_bytes();
    assert_eq!(
        (header::minor(&bytes), header::flags(&bytes)),
        (FORMAT_MINOR, 0)
    );
    let again = load(&bytes);
    assert_eq!(again.probe_sequence(), ProbeSequence::Linear);
    assert!(keys.iter().all(|k| again.contains(k)));
}

#[test]
fn equality_compares_the_probe_sequence() {
    // The 1.0 filter emptied and a new one of its shape: every bit zero in
    // both, but keys would set different bits, so they are not equal (and
    // their bytes differ in the flag).
    let mut old = BloomFilter::from_bytes_with_hasher(FORMAT_1_0, StableHasher::default()).unwrap();
    old.clear();
    let new = BloomFilter::with_bits_and_hasher(1438, 10, StableHasher::default()).unwrap();
    assert_ne!(old.probe_sequence(), new.probe_sequence());
    assert_ne!(old, new);
    assert_ne!(old.to_bytes(), new.to_bytes());
    // Each is equal to itself read back.
    let again =
        BloomFilter::from_bytes_with_hasher(&old.to_bytes(), StableHasher::default()).unwrap();
    assert_eq!(old, again);
}

#[test]
fn format_1_0_bytes_that_set_the_cubic_flag_are_refused() {
    // Format 1.0 had no flags. Before the audit, the 1.0 fixture with
    // FLAG_CUBIC_PROBES set (and resealed) loaded as a cubic filter and
    // lost most of its members (see the misread above); now the header is
    // refused as corrupt.
    let lie = header::with_flags(FORMAT_1_0, FLAG_CUBIC_PROBES);
    let err = BloomFilter::from_bytes_with_hasher(&lie, StableHasher::default()).unwrap_err();
    assert!(err.to_string().contains("format version 1.0"), "{err}");
}

#[test]
fn format_1_2_bytes_of_a_now_hashed_shape_load_cubic() {
    assert_eq!(
        header::minor(FORMAT_1_2_CUBIC),
        2,
        "the fixture is format 1.2"
    );
    let old =
        BloomFilter::from_bytes_with_hasher(FORMAT_1_2_CUBIC, StableHasher::default()).unwrap();
    assert_eq!((old.bits(), old.hashes()), (91, 19));
    assert_eq!(old.probe_sequence(), ProbeSequence::Cubic);
    let keys: Vec<String> = (0..3).map(|i| format!("key-{i}")).collect();
    assert!(keys.iter().all(|k| old.contains(k)));
    // A new filter of the same shape probes the hashed sequence: the two
    // do not combine, and the old one keeps its members.
    let mut new = BloomFilter::with_fpr_and_hasher(3, 1e-6, StableHasher::default()).unwrap();
    assert_eq!((new.bits(), new.hashes()), (91, 19));
    assert_eq!(new.probe_sequence(), ProbeSequence::Hashed);
    keys.iter().for_each(|k| new.insert(k));
    let mut combined = old.clone();
    assert!(combined.union(&new).is_err());
    assert_eq!(combined, old);
    // Written again, the old filter stays cubic (and now claims 1.3).
    let again =
        BloomFilter::from_bytes_with_hasher(&old.to_bytes(), StableHasher::default()).unwrap();
    assert_eq!(again.probe_sequence(), ProbeSequence::Cubic);
    assert!(keys.iter().all(|k| again.contains(k)));
}
