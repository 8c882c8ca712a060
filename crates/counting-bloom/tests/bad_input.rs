//! Bad parameters and bad bytes are errors that name what is wrong, never
//! panics.

use counting_bloom::{CountingBloomFilter, Error, MAX_COUNTERS, MAX_HASHES, PortableHasher};
use filter_core::format::{HEADER_BYTES, reseal};
use filter_core::testing::BAD_RATES;

fn invalid_name(result: Result<CountingBloomFilter, Error>) -> &'static str {
    match result {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

fn corrupt_reason(result: Result<CountingBloomFilter, Error>) -> String {
    match result {
        Err(Error::Corrupt { reason }) => reason,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn with_fpr_rejects_bad_parameters() {
    assert_eq!(
        CountingBloomFilter::with_fpr(100, 1.5)
            .unwrap_err()
            .to_string(),
        "fpr must be in the open interval (0, 1), got 1.5"
    );
    for fpr in BAD_RATES {
        assert_eq!(invalid_name(CountingBloomFilter::with_fpr(100, fpr)), "fpr");
    }
    assert_eq!(
        invalid_name(CountingBloomFilter::with_fpr(0, 0.01)),
        "expected_items"
    );
    // Too large for the bit limit.
    assert_eq!(
        invalid_name(CountingBloomFilter::with_fpr(usize::MAX, 0.01)),
        "expected_items"
    );
    // So small a rate that the optimal hash count exceeds the limit.
    let err = CountingBloomFilter::with_fpr(10, 1e-30).unwrap_err();
    assert!(
        matches!(err, Error::InvalidParameter { name: "fpr", .. }),
        "{err}"
    );
    assert!(err.to_string().contains("at most 64"), "{err}");
    // The smallest rate the limit allows still works.
    assert!(CountingBloomFilter::with_fpr(10, 1e-19).unwrap().hashes() <= MAX_HASHES);
}

#[test]
fn with_counters_rejects_bad_parameters() {
    assert_eq!(
        CountingBloomFilter::with_counters(0, 3)
            .unwrap_err()
            .to_string(),
        format!("counters must be in 1..={MAX_COUNTERS}, got 0")
    );
    assert_eq!(
        invalid_name(CountingBloomFilter::with_counters(MAX_COUNTERS + 1, 3)),
        "counters"
    );
    assert_eq!(
        invalid_name(CountingBloomFilter::with_counters(u64::MAX, 3)),
        "counters"
    );
    assert_eq!(
        CountingBloomFilter::with_counters(100, 0)
            .unwrap_err()
            .to_string(),
        "hashes must be in 1..=64, got 0"
    );
    assert_eq!(
        invalid_name(CountingBloomFilter::with_counters(100, MAX_HASHES + 1)),
        "hashes"
    );
}

#[test]
// Its sizes are past a 32-bit `usize`, where the address space refuses them first.
#[cfg(target_pointer_width = "64")]
fn unallocatable_sizes_name_what_the_caller_passed() {
    // In range but far beyond this machine's memory: an error, not an
    // abort, naming the caller's own parameter and value. Regression: the
    // error named `counters` with the word count (2^42 for 2^46 counters),
    // and `with_fpr` named `counters` too, which its caller never passed.
    // Only where the kernel refuses such a request outright: elsewhere it
    // could be granted and then written.
    if !filter_core::testing::huge_allocations_are_refused() {
        return;
    }
    let err = CountingBloomFilter::with_counters(MAX_COUNTERS, 3).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidParameter {
                name: "counters",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().ends_with(&format!("got {MAX_COUNTERS}")),
        "{err}"
    );
    // 5·10^12 items at 1 %: 4.8·10^13 counters, under the 2^46 limit.
    assert_eq!(
        invalid_name(CountingBloomFilter::with_fpr(5_000_000_000_000, 0.01)),
        "expected_items"
    );
}

#[test]
// Its key counts are past a 32-bit `usize`.
#[cfg(target_pointer_width = "64")]
fn a_rate_no_size_can_serve_is_blamed_on_fpr_at_any_n() {
    // The optimal hash count is at least round(log2(1/p)) at every n, so a
    // rate over the hash limit is the rate's fault, whatever n: the error
    // names fpr, not expected_items, so the caller changes the right one.
    let err = CountingBloomFilter::with_fpr(1 << 40, 1e-30).unwrap_err();
    assert!(
        matches!(err, Error::InvalidParameter { name: "fpr", .. }),
        "{err}"
    );
    assert!(err.to_string().contains("at most 64"), "{err}");
    assert_eq!(
        invalid_name(CountingBloomFilter::with_fpr(usize::MAX, 1e-30)),
        "fpr"
    );
}

#[test]
fn extreme_rates_are_errors_or_working_filters() {
    // The smallest normal and subnormal rates want over 1,000 hashes: an
    // error naming fpr at any n, not an overflow or a huge table.
    for fpr in [f64::MIN_POSITIVE, 5e-324] {
        for n in [1, 1_000] {
            assert_eq!(invalid_name(CountingBloomFilter::with_fpr(n, fpr)), "fpr");
        }
    }
    // Rates just below 1 give the smallest filter, which still works.
    for fpr in [1.0 - f64::EPSILON, 1.0 - f64::EPSILON / 2.0] {
        let mut filter = CountingBloomFilter::with_fpr(3, fpr).unwrap();
        assert_eq!(filter.hashes(), 1);
        filter.insert(&1u64);
        assert!(filter.contains(&1u64));
        assert!(filter.remove(&1u64));
    }
}

/// A small filter with some content, and its bytes.
fn sample() -> (CountingBloomFilter, Vec<u8>) {
    let mut filter = CountingBloomFilter::with_counters(37, 3).unwrap();
    for i in 0..5u64 {
        filter.insert(&i);
    }
    for _ in 0..20 {
        filter.insert("heavy");
    }
    let bytes = filter.to_bytes();
    (filter, bytes)
}

// Body offsets, after filter-core's header: counters (u64), hashes (u32),
// the table's element count (u64), then the words.
const COUNTERS_AT: usize = HEADER_BYTES;
const HASHES_AT: usize = HEADER_BYTES + 8;
const TABLE_LEN_AT: usize = HEADER_BYTES + 12;
const WORDS_AT: usize = HEADER_BYTES + 20;

fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn round_trip_preserves_everything() {
    let (filter, bytes) = sample();
    let loaded = CountingBloomFilter::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.to_bytes(), bytes);
    assert_eq!(loaded.counters(), 37);
    assert_eq!(loaded.hashes(), 3);
    assert_eq!(loaded.saturated_counters(), filter.saturated_counters());
    assert!(loaded.saturated_counters() > 0);
    assert_eq!(loaded.count("heavy"), 15);
    assert!((0..5u64).all(|i| loaded.contains(&i)));
    assert_eq!(bytes.len(), WORDS_AT + 3 * 8 + 8);
}

#[test]
fn every_truncation_is_rejected() {
    let (_, bytes) = sample();
    for len in 0..bytes.len() {
        let err = CountingBloomFilter::from_bytes(&bytes[..len]).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "len {len}: {err}");
    }
}

#[test]
fn every_bit_flip_is_rejected() {
    let (_, bytes) = sample();
    for bit in 0..bytes.len() * 8 {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        // A flip in the probe is a hasher mismatch only if it also fixed up
        // the checksum, which a single flip cannot: every flip is Corrupt.
        let err = CountingBloomFilter::from_bytes(&flipped).unwrap_err();
        // The kind field (bytes 8 and 9) is read before the checksum, so a
        // flip there that names another kind is refused as that kind.
        let kind_field = (64..80).contains(&bit);
        assert!(
            matches!(err, Error::Corrupt { .. })
                || (kind_field && matches!(err, Error::WrongKind { .. })),
            "bit {bit}: {err}"
        );
    }
}

#[test]
fn resealed_lies_are_rejected_by_field() {
    let (_, bytes) = sample();
    let lie = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut b = bytes.clone();
        edit(&mut b);
        reseal(&mut b);
        corrupt_reason(CountingBloomFilter::from_bytes(&b))
    };
    let reason = lie(&|b| put_u64(b, COUNTERS_AT, 0));
    assert!(reason.contains("counters must be in 1..="), "{reason}");
    let reason = lie(&|b| put_u64(b, COUNTERS_AT, 1 << 60));
    assert!(reason.contains("counters"), "{reason}");
    // A counter count that disagrees with the table's length.
    let reason = lie(&|b| put_u64(b, COUNTERS_AT, 16));
    assert!(
        reason.contains("table has 3 words, but 16 counters need 1"),
        "{reason}"
    );
    let reason = lie(&|b| put_u64(b, COUNTERS_AT, 64));
    assert!(reason.contains("need 4"), "{reason}");
    let reason = lie(&|b| b[HASHES_AT..HASHES_AT + 4].copy_from_slice(&0u32.to_le_bytes()));
    assert!(
        reason.contains("hashes must be in 1..=64, got 0"),
        "{reason}"
    );
    let reason = lie(&|b| b[HASHES_AT..HASHES_AT + 4].copy_from_slice(&65u32.to_le_bytes()));
    assert!(reason.contains("hashes"), "{reason}");
    let reason = lie(&|b| put_u64(b, TABLE_LEN_AT, 1 << 60));
    assert!(reason.contains("table claims"), "{reason}");
    let reason = lie(&|b| put_u64(b, TABLE_LEN_AT, 2));
    assert!(
        reason.contains("trailing") || reason.contains("table has 2 words"),
        "{reason}"
    );
    // A non-zero counter in the padding past counter 37 of the last word.
    let reason = lie(&|b| b[WORDS_AT + 2 * 8 + 7] |= 0x10);
    assert!(reason.contains("past counter 37"), "{reason}");
    // Trailing garbage before the checksum.
    let reason = lie(&|b| {
        let at = b.len() - 8;
        b.splice(at..at, [0u8; 8]);
    });
    assert!(reason.contains("trailing"), "{reason}");
    // A kind no filter has.
    let reason = lie(&|b| b[8..10].copy_from_slice(&99u16.to_le_bytes()));
    assert!(reason.contains("unknown filter kind 99"), "{reason}");
    // Another filter kind's number: `WrongKind` (tests/format.rs).
}

#[test]
fn other_hasher_is_refused() {
    let (_, bytes) = sample();
    assert_eq!(
        CountingBloomFilter::from_bytes_with_hasher(&bytes, PortableHasher::with_seed(9))
            .unwrap_err(),
        Error::HasherMismatch
    );
    let seeded =
        CountingBloomFilter::with_counters_and_hasher(37, 3, PortableHasher::with_seed(9)).unwrap();
    assert_eq!(
        CountingBloomFilter::from_bytes(&seeded.to_bytes()).unwrap_err(),
        Error::HasherMismatch
    );
    assert!(
        CountingBloomFilter::from_bytes_with_hasher(
            &seeded.to_bytes(),
            PortableHasher::with_seed(9)
        )
        .is_ok()
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    // Seeded garbage of many lengths, raw and resealed.
    let mut state = 0x1234_5678_u64;
    let mut next = || {
        state = filter_core::mix64(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
        state
    };
    let (_, bytes) = sample();
    for len in [0, 1, 8, 51, 52, 60, 64, 100, bytes.len()] {
        for _ in 0..50 {
            let mut b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let _ = CountingBloomFilter::from_bytes(&b);
            if len >= 12 {
                b[..HEADER_BYTES.min(len)].copy_from_slice(&bytes[..HEADER_BYTES.min(len)]);
                reseal(&mut b);
                assert!(CountingBloomFilter::from_bytes(&b).is_err() || len == bytes.len());
            }
        }
    }
}
