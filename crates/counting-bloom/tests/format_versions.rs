//! Bytes of every format version keep loading with the positions they were
//! built with.

use counting_bloom::ProbeSequence;
use counting_bloom::{BlockedCountingBloomFilter, CountingBloomFilter};
use filter_core::format::{
    FLAG_CUBIC_PROBES, FLAG_FOLDED_PAIR, FLAG_FOLDED_PROBES, FLAG_HASHED_PROBES, FORMAT_MINOR,
};
use filter_core::testing::header;
use filter_core::testing::stable_hasher::StableHasher;

/// Written by the format 1.0 code (commit 873cdea): `with_fpr(100, 0.001)`
/// (1438 counters, 10 probes) under `StableHasher`, holding "key-0" to
/// "key-99" once each. Format 1.0 knew only the linear probe sequence.
const FORMAT_1_0: &[u8] = include_bytes!("data/counting-bloom-1.0-fnv-100.bin");

/// Written by the format 1.2 code (commit a317cea): `with_fpr(3, 1e-6)`
/// (91 counters, 19 probes) under `StableHasher`, holding "key-0" to
/// "key-2" once each. That code built such tables cubic; this one builds
/// them hashed.
const FORMAT_1_2_CUBIC: &[u8] = include_bytes!("data/counting-bloom-1.2-fnv-3.bin");

/// Written by the format 1.3 code (commit 61ad5bf): `with_fpr(1000, 0.01)`
/// (9595 counters, 7 probes) under `StableHasher`, holding "key-0" to
/// "key-999" once each. That code built such tables linear, without a
/// flag; this one builds them folded.
const FORMAT_1_3_LINEAR: &[u8] = include_bytes!("data/counting-bloom-1.3-fnv-1000.bin");

fn members() -> impl Iterator<Item = String> {
    (0..100).map(|i| format!("key-{i}"))
}

fn load(bytes: &[u8]) -> CountingBloomFilter<StableHasher> {
    CountingBloomFilter::from_bytes_with_hasher(bytes, StableHasher::default()).unwrap()
}

#[test]
fn format_1_0_bytes_load_with_linear_probes() {
    assert_eq!(header::minor(FORMAT_1_0), 0, "the fixture is format 1.0");
    let mut filter = load(FORMAT_1_0);
    assert_eq!((filter.counters(), filter.hashes()), (1438, 10));
    assert_eq!(filter.probe_sequence(), ProbeSequence::Linear);
    assert!(members().all(|k| filter.contains(&k) && filter.count(&k) >= 1));
    // Read with the cubic sequence, which a new filter of this size uses,
    // most members would be missing: the flag is what keeps them.
    // (Format 1.0 has no flags, so the forgery claims 1.1.)
    let misread = header::forged(FORMAT_1_0, 1, FLAG_CUBIC_PROBES);
    let found = members().filter(|k| load(&misread).contains(k)).count();
    assert!(found < 50, "{found}");
    // Removing every member empties the table: the counts sit where the
    // linear sequence put them.
    assert!(members().all(|k| filter.remove(&k)));
    // The body (between the 44-byte header and the 8-byte checksum) is
    // then that of an empty filter of the same shape.
    let empty =
        CountingBloomFilter::with_counters_and_hasher(1438, 10, StableHasher::default()).unwrap();
    let body = |bytes: Vec<u8>| bytes[44..bytes.len() - 8].to_vec();
    assert_eq!(
        body(filter.to_bytes()),
        body(empty.to_bytes()),
        "every counter back to zero"
    );
}

#[test]
fn new_small_filters_are_flagged_cubic_and_do_not_merge_with_linear_ones() {
    let mut new =
        CountingBloomFilter::with_fpr_and_hasher(100, 0.001, StableHasher::default()).unwrap();
    assert_eq!(new.probe_sequence(), ProbeSequence::Cubic);
    members().for_each(|k| new.insert(&k));
    let bytes = new.to_bytes();
    assert_eq!(header::minor(&bytes), FORMAT_MINOR);
    assert_eq!(header::flags(&bytes), FLAG_CUBIC_PROBES);
    let loaded = load(&bytes);
    assert_eq!(loaded.probe_sequence(), ProbeSequence::Cubic);
    assert!(members().all(|k| loaded.contains(&k)));

    // Of the 1.0 filter's shape (it was sized by `with_fpr(100, 0.001)`
    // before sizing counted the spread of a small filter's fill).
    let mut old = load(FORMAT_1_0);
    let mut new = CountingBloomFilter::with_counters_and_hasher(
        old.counters(),
        old.hashes(),
        StableHasher::default(),
    )
    .unwrap();
    assert_eq!(new.probe_sequence(), ProbeSequence::Cubic);
    members().for_each(|k| new.insert(&k));
    let err = old.merge(&new).unwrap_err();
    assert!(err.to_string().contains("probe sequence"), "{err}");
    assert!(members().all(|k| old.count(&k) == load(FORMAT_1_0).count(&k)));
}

#[test]
fn the_smallest_filters_are_flagged_hashed_and_do_not_merge_with_cubic_ones() {
    // One item at 10^−6: 33 counters, 19 probes, below the hashed line.
    let mut new =
        CountingBloomFilter::with_fpr_and_hasher(1, 1e-6, StableHasher::default()).unwrap();
    assert_eq!((new.counters(), new.hashes()), (33, 19));
    assert_eq!(new.probe_sequence(), ProbeSequence::Hashed);
    new.insert("the only item");
    let bytes = new.to_bytes();
    assert_eq!(header::minor(&bytes), FORMAT_MINOR);
    assert_eq!(header::flags(&bytes), FLAG_HASHED_PROBES);
    let loaded = load(&bytes);
    assert_eq!(loaded, new);
    assert_eq!(loaded.count("the only item"), 1);

    // The same bytes flagged cubic: same shape, other counters. A merge
    // would count the item on the wrong ones, so it is refused.
    let cubic_bytes = header::with_flags(&bytes, FLAG_CUBIC_PROBES);
    let mut cubic = load(&cubic_bytes);
    assert_eq!(cubic.probe_sequence(), ProbeSequence::Cubic);
    assert_ne!(cubic, new);
    let err = cubic.merge(&new).unwrap_err();
    assert!(err.to_string().contains("probe sequence"), "{err}");
    assert!(new.remove("the only item"));
    assert_eq!(new.count("the only item"), 0);
}

#[test]
fn large_filters_are_flagged_folded() {
    let filter = CountingBloomFilter::with_fpr(100_000, 0.01).unwrap();
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
    let mut old = load(FORMAT_1_3_LINEAR);
    assert_eq!((old.counters(), old.hashes()), (9595, 7));
    assert_eq!(old.probe_sequence(), ProbeSequence::Linear);
    assert!(keys.iter().all(|k| old.count(k) >= 1));
    // Read with the folded sequence, most members would be missing: the
    // absent flag is what keeps them.
    let misread = header::forged(FORMAT_1_3_LINEAR, 4, FLAG_FOLDED_PROBES);
    let misread = load(&misread);
    assert_eq!(misread.probe_sequence(), ProbeSequence::Folded);
    let found = keys.iter().filter(|k| misread.contains(k)).count();
    assert!(found < 500, "{found}");
    // A new filter of the same shape counts on the folded sequence: a
    // merge would count the old items on the wrong counters, so it is
    // refused.
    let mut new =
        CountingBloomFilter::with_fpr_and_hasher(1000, 0.01, StableHasher::default()).unwrap();
    assert_eq!(new.probe_sequence(), ProbeSequence::Folded);
    keys.iter().for_each(|k| new.insert(k));
    let err = old.merge(&new).unwrap_err();
    assert!(err.to_string().contains("probe sequence"), "{err}");
    // Written again, the old filter stays linear, with no flag (and now
    // claims the current minor), and every item comes out of it.
    let bytes = old.to_bytes();
    assert_eq!(
        (header::minor(&bytes), header::flags(&bytes)),
        (FORMAT_MINOR, 0)
    );
    let mut again = load(&bytes);
    assert_eq!(again.probe_sequence(), ProbeSequence::Linear);
    assert!(keys.iter().all(|k| again.remove(k)));
    assert!(keys.iter().all(|k| old.remove(k)));
    assert_eq!(again, old);
}

#[test]
fn equality_compares_the_probe_sequence() {
    // The 1.0 filter emptied and a new one of its shape: every counter zero
    // in both, but items would count on different counters, so they are
    // not equal (and their bytes differ in the flag).
    let mut old = load(FORMAT_1_0);
    old.clear();
    let new =
        CountingBloomFilter::with_counters_and_hasher(1438, 10, StableHasher::default()).unwrap();
    assert_ne!(old.probe_sequence(), new.probe_sequence());
    assert_ne!(old, new);
    assert_ne!(old.to_bytes(), new.to_bytes());
    assert_eq!(old, load(&old.to_bytes()));
}

#[test]
fn format_1_0_bytes_that_set_the_cubic_flag_are_refused() {
    // Format 1.0 had no flags. Before the audit, the 1.0 fixture with
    // FLAG_CUBIC_PROBES set (and resealed) loaded as a cubic filter and
    // lost most of its members (see the misread above); now the header is
    // refused as corrupt.
    let lie = header::with_flags(FORMAT_1_0, FLAG_CUBIC_PROBES);
    let err =
        CountingBloomFilter::from_bytes_with_hasher(&lie, StableHasher::default()).unwrap_err();
    assert!(err.to_string().contains("format version 1.0"), "{err}");
}

#[test]
fn format_1_2_bytes_of_a_now_hashed_shape_load_cubic() {
    assert_eq!(
        header::minor(FORMAT_1_2_CUBIC),
        2,
        "the fixture is format 1.2"
    );
    let mut old = load(FORMAT_1_2_CUBIC);
    assert_eq!((old.counters(), old.hashes()), (91, 19));
    assert_eq!(old.probe_sequence(), ProbeSequence::Cubic);
    let keys: Vec<String> = (0..3).map(|i| format!("key-{i}")).collect();
    assert!(keys.iter().all(|k| old.count(k) >= 1));
    // A new filter of the same shape probes the hashed sequence: the two
    // do not merge.
    let new = CountingBloomFilter::with_fpr_and_hasher(3, 1e-6, StableHasher::default()).unwrap();
    assert_eq!((new.counters(), new.hashes()), (91, 19));
    assert_eq!(new.probe_sequence(), ProbeSequence::Hashed);
    let err = old.merge(&new).unwrap_err();
    assert!(err.to_string().contains("probe sequence"), "{err}");
    // The old filter removes its members from the counters they were
    // counted on, and is then empty.
    assert!(keys.iter().all(|k| old.remove(k)));
    assert!(keys.iter().all(|k| old.count(k) == 0));
}

/// Written by the format 1.4 code (commit 75209f5):
/// `BlockedCountingBloomFilter::with_fpr(100, 0.01)` (8 blocks, 5 counters
/// per key) under `StableHasher`, holding "key-0" to "key-99" once each.
/// That code took a key's two words from two `mix64`s; this one takes them
/// from two folded products and flags its bytes `FLAG_FOLDED_PAIR`.
const BLOCKED_FORMAT_1_4: &[u8] = include_bytes!("data/blocked-counting-bloom-1.4-fnv-100.bin");

fn load_blocked(bytes: &[u8]) -> BlockedCountingBloomFilter<StableHasher> {
    BlockedCountingBloomFilter::from_bytes_with_hasher(bytes, StableHasher::default()).unwrap()
}

#[test]
fn blocked_format_1_4_bytes_load_with_their_old_words() {
    assert_eq!(
        header::minor(BLOCKED_FORMAT_1_4),
        4,
        "the fixture is format 1.4"
    );
    assert_eq!(header::flags(BLOCKED_FORMAT_1_4), 0);
    let mut old = load_blocked(BLOCKED_FORMAT_1_4);
    assert_eq!((old.blocks(), old.hashes()), (8, 5));
    assert!(members().all(|k| old.contains(&k) && old.count(&k) >= 1));
    // Read with the folded words of a new filter, most members would be
    // missing (each is then as likely found as any non-member, about 1 %):
    // the absent flag is what keeps them.
    let misread = header::forged(BLOCKED_FORMAT_1_4, 5, FLAG_FOLDED_PAIR);
    let found = members()
        .filter(|k| load_blocked(&misread).contains(k))
        .count();
    assert!(found < 50, "{found}");
    // A new filter of the same shape takes its words from the folded
    // products: a merge would count the old items on the wrong counters, so
    // it is refused, and the two are never equal, even empty.
    let mut new =
        BlockedCountingBloomFilter::with_fpr_and_hasher(100, 0.01, StableHasher::default())
            .unwrap();
    assert_eq!((new.blocks(), new.hashes()), (8, 5));
    members().for_each(|k| new.insert(&k));
    assert_eq!(header::flags(&new.to_bytes()), FLAG_FOLDED_PAIR);
    assert!(members().all(|k| load_blocked(&new.to_bytes()).contains(&k)));
    let err = old.merge(&new).unwrap_err();
    assert!(err.to_string().contains("pair mix"), "{err}");
    let (mut old_empty, mut new_empty) = (old.clone(), new.clone());
    old_empty.clear();
    new_empty.clear();
    assert_ne!(old_empty, new_empty);
    // Written again, the old filter keeps its words, with no flag (and now
    // claims the current minor), and every item comes out of it: removing
    // them all leaves every counter at zero.
    let bytes = old.to_bytes();
    assert_eq!(header::minor(&bytes), FORMAT_MINOR);
    assert_eq!(header::flags(&bytes), 0);
    let mut again = load_blocked(&bytes);
    assert_eq!(again, old);
    assert!(members().all(|k| again.remove(&k)));
    assert_eq!(again, old_empty);
}
