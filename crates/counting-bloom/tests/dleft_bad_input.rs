//! Bad parameters and bad bytes for `DLeftCountingBloomFilter`: errors that
//! name what is wrong, never panics.

use counting_bloom::{DLeftCountingBloomFilter, Error};
use filter_core::PortableHasher;
use filter_core::format::{HEADER_BYTES, reseal};
use filter_core::testing::BAD_RATES;

type Filter = DLeftCountingBloomFilter;

fn invalid_name(result: Result<Filter, Error>) -> &'static str {
    match result {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

fn corrupt_reason(result: Result<Filter, Error>) -> String {
    match result {
        Err(Error::Corrupt { reason }) => reason,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn with_fpr_rejects_bad_parameters() {
    assert_eq!(
        Filter::with_fpr(100, 1.5).unwrap_err().to_string(),
        "fpr must be in the open interval (0, 1), got 1.5"
    );
    for fpr in BAD_RATES {
        assert_eq!(invalid_name(Filter::with_fpr(100, fpr)), "fpr");
    }
    assert_eq!(
        Filter::with_fpr(0, 0.01).unwrap_err().to_string(),
        "expected_items must be at least 1, got 0"
    );
    // More buckets than the limit: the item count's fault at a fine rate...
    assert_eq!(
        invalid_name(Filter::with_fpr(usize::MAX, 0.01)),
        "expected_items"
    );
    // ... the rate's fault where one key would not fit.
    for fpr in [1e-300, f64::MIN_POSITIVE, 5e-324] {
        for n in [1, 1_000, usize::MAX] {
            let err = Filter::with_fpr(n, fpr).unwrap_err();
            assert!(
                matches!(err, Error::InvalidParameter { name: "fpr", .. }),
                "{n} {fpr}: {err}"
            );
        }
    }
    // Rates just below 1 give the smallest filter, which works.
    for fpr in [1.0 - f64::EPSILON, 0.5] {
        let mut filter = Filter::with_fpr(3, fpr).unwrap();
        filter.insert(&1u64).unwrap();
        assert!(filter.contains(&1u64));
        assert!(filter.remove(&1u64));
        assert!(filter.is_empty());
    }
}

#[test]
#[cfg(target_pointer_width = "64")]
fn unallocatable_sizes_name_expected_items() {
    if !filter_core::testing::huge_allocations_are_refused() {
        return;
    }
    // 2^50 keys at 1 %: within the bucket limit, far beyond memory.
    let err = Filter::with_fpr(1 << 50, 0.01).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidParameter {
                name: "expected_items",
                ..
            }
        ),
        "{err}"
    );
}

/// A small filter with some content (a saturated counter included), and
/// its bytes.
fn sample() -> (Filter, Vec<u8>) {
    let mut filter = Filter::with_fpr(10, 0.01).unwrap();
    for i in 0..5u64 {
        filter.insert(&i).unwrap();
    }
    for _ in 0..20 {
        filter.insert("heavy").unwrap();
    }
    let bytes = filter.to_bytes();
    (filter, bytes)
}

// Body offsets after filter-core's header: subtables, cell_bits,
// counter_bits, bucket_words (u8 each), buckets (u64), the table's word
// count (u64), then the words.
const SUBTABLES_AT: usize = HEADER_BYTES;
const CELL_BITS_AT: usize = HEADER_BYTES + 1;
const COUNTER_BITS_AT: usize = HEADER_BYTES + 2;
const BUCKET_WORDS_AT: usize = HEADER_BYTES + 3;
const BUCKETS_AT: usize = HEADER_BYTES + 4;
const TABLE_LEN_AT: usize = HEADER_BYTES + 12;
const WORDS_AT: usize = HEADER_BYTES + 20;

fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

fn get_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

#[test]
fn round_trip_preserves_everything() {
    let (filter, bytes) = sample();
    let loaded = Filter::from_bytes(&bytes).unwrap();
    assert_eq!(loaded, filter);
    assert_eq!(loaded.to_bytes(), bytes);
    assert_eq!(loaded.count("heavy"), 15);
    assert_eq!(loaded.len(), 20);
    assert!((0..5u64).all(|i| loaded.contains(&i)));
    let words = get_u64(&bytes, TABLE_LEN_AT) as usize;
    assert_eq!(
        words,
        4 * filter.buckets() * (filter.bucket_cells() as usize / 4)
    );
    assert_eq!(bytes.len(), WORDS_AT + words * 8 + 8);
    // An empty filter too.
    let empty = Filter::with_fpr(1_000, 0.001).unwrap();
    assert_eq!(Filter::from_bytes(&empty.to_bytes()).unwrap(), empty);
}

#[test]
fn every_truncation_is_rejected() {
    let (_, bytes) = sample();
    for len in 0..bytes.len() {
        let err = Filter::from_bytes(&bytes[..len]).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "len {len}: {err}");
    }
}

#[test]
fn every_bit_flip_is_rejected() {
    let (_, bytes) = sample();
    for bit in 0..bytes.len() * 8 {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        let err = Filter::from_bytes(&flipped).unwrap_err();
        // A flip in the kind field (bytes 8 and 9) that names another
        // kind is reported as that kind.
        let other_kind = (64..80).contains(&bit) && matches!(err, Error::WrongKind { .. });
        assert!(
            matches!(err, Error::Corrupt { .. }) || other_kind,
            "bit {bit}: {err}"
        );
    }
}

#[test]
fn resealed_lies_are_rejected_by_field() {
    let (filter, bytes) = sample();
    let lie = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut b = bytes.clone();
        edit(&mut b);
        reseal(&mut b);
        corrupt_reason(Filter::from_bytes(&b))
    };
    let reason = lie(&|b| b[SUBTABLES_AT] = 3);
    assert!(reason.contains("subtables must be 4, got 3"), "{reason}");
    let reason = lie(&|b| b[CELL_BITS_AT] = 17);
    assert!(reason.contains("cell_bits must be one of"), "{reason}");
    let reason = lie(&|b| b[COUNTER_BITS_AT] = 8);
    assert!(reason.contains("counter_bits must be 4, got 8"), "{reason}");
    let reason = lie(&|b| b[BUCKET_WORDS_AT] = 4);
    assert!(
        reason.contains("bucket_words must be one of [1, 2], got 4"),
        "{reason}"
    );
    let reason = lie(&|b| put_u64(b, BUCKETS_AT, 0));
    assert!(reason.contains("buckets must be in 1..="), "{reason}");
    let reason = lie(&|b| put_u64(b, BUCKETS_AT, 1 << 60));
    assert!(reason.contains("buckets"), "{reason}");
    // A bucket count that disagrees with the table's length.
    let buckets = filter.buckets() as u64;
    let reason = lie(&|b| put_u64(b, BUCKETS_AT, buckets + 1));
    assert!(reason.contains("table has"), "{reason}");
    // Another cell width, same word count: cells that break the invariants
    // or a layout that reads otherwise.
    let reason = lie(&|b| put_u64(b, TABLE_LEN_AT, 1 << 60));
    assert!(reason.contains("table claims"), "{reason}");
    let reason = lie(&|b| put_u64(b, TABLE_LEN_AT, 2));
    assert!(
        reason.contains("trailing") || reason.contains("table has 2 words"),
        "{reason}"
    );
    // A cell with a remainder and no counter, and one with a counter and
    // no remainder.
    let first_cell = (0..get_u64(&bytes, TABLE_LEN_AT) as usize)
        .map(|i| WORDS_AT + i * 8)
        .find(|&at| get_u64(&bytes, at) & 0xFFFF != 0)
        .unwrap();
    let reason = lie(&|b| {
        let word = get_u64(b, first_cell) & !0xF;
        put_u64(b, first_cell, word);
    });
    assert!(reason.contains("with counter 0"), "{reason}");
    let empty_cell = (0..get_u64(&bytes, TABLE_LEN_AT) as usize)
        .map(|i| WORDS_AT + i * 8)
        .find(|&at| get_u64(&bytes, at) >> 48 == 0)
        .unwrap();
    let reason = lie(&|b| {
        let word = get_u64(b, empty_cell) | 3 << 48;
        put_u64(b, empty_cell, word);
    });
    assert!(reason.contains("remainder 0 with counter 3"), "{reason}");
    // A fingerprint stored twice: the same cell in another free lane of
    // its bucket.
    let reason = lie(&|b| {
        let word = get_u64(b, first_cell);
        let cell = word & 0xFFFF;
        let free = (0..4).find(|j| (word >> (16 * j)) & 0xFFFF == 0).unwrap();
        put_u64(b, first_cell, word | cell << (16 * free));
    });
    assert!(reason.contains("stored 2 times"), "{reason}");
    // Trailing garbage before the checksum.
    let reason = lie(&|b| {
        let at = b.len() - 8;
        b.splice(at..at, [0u8; 8]);
    });
    assert!(reason.contains("trailing"), "{reason}");
}

#[test]
fn bits_above_the_cells_are_rejected() {
    // 21-bit cells (p = 0.1 %) leave bit 63 of every word unused.
    let filter = Filter::with_fpr(100, 0.001).unwrap();
    assert_eq!(filter.remainder_bits(), 17);
    let mut bytes = filter.to_bytes();
    bytes[WORDS_AT + 7] |= 0x80;
    reseal(&mut bytes);
    let reason = corrupt_reason(Filter::from_bytes(&bytes));
    assert!(reason.contains("bits set above its 3 cells"), "{reason}");
}

#[test]
fn other_hasher_is_refused() {
    let (_, bytes) = sample();
    assert_eq!(
        Filter::from_bytes_with_hasher(&bytes, PortableHasher::with_seed(9)).unwrap_err(),
        Error::HasherMismatch
    );
    let seeded =
        DLeftCountingBloomFilter::with_fpr_and_hasher(10, 0.01, PortableHasher::with_seed(9))
            .unwrap();
    assert_eq!(
        Filter::from_bytes(&seeded.to_bytes()).unwrap_err(),
        Error::HasherMismatch
    );
    assert!(
        DLeftCountingBloomFilter::from_bytes_with_hasher(
            &seeded.to_bytes(),
            PortableHasher::with_seed(9)
        )
        .is_ok()
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut state = 0x1234_5678_u64;
    let mut next = || {
        state = filter_core::mix64(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
        state
    };
    let (_, bytes) = sample();
    for len in [0, 1, 8, 51, 52, 60, 64, 100, bytes.len()] {
        for _ in 0..50 {
            let mut b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let _ = Filter::from_bytes(&b);
            if len >= 12 {
                b[..HEADER_BYTES.min(len)].copy_from_slice(&bytes[..HEADER_BYTES.min(len)]);
                reseal(&mut b);
                assert!(Filter::from_bytes(&b).is_err() || len == bytes.len());
            }
        }
    }
}

#[test]
fn bytes_of_another_kind_are_refused_naming_both() {
    let (_, mut bytes) = sample();
    bytes[8..10].copy_from_slice(&3u16.to_le_bytes());
    reseal(&mut bytes);
    assert_eq!(
        Filter::from_bytes(&bytes).unwrap_err(),
        Error::WrongKind {
            expected: "DLeftCountingBloomFilter",
            found: "CountingBloomFilter"
        }
    );
}
