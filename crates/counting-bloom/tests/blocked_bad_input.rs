//! Bad parameters and bad bytes given to `BlockedCountingBloomFilter` are
//! errors that name what is wrong, never panics.

use counting_bloom::{
    BlockedCountingBloomFilter, Error, MAX_BLOCKED_HASHES, MAX_BLOCKS, PortableHasher,
};
use filter_core::format::{HEADER_BYTES, reseal};
use filter_core::testing::BAD_RATES;

type Blocked = BlockedCountingBloomFilter;

fn invalid_name(result: Result<Blocked, Error>) -> &'static str {
    match result {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

fn corrupt_reason(result: Result<Blocked, Error>) -> String {
    match result {
        Err(Error::Corrupt { reason }) => reason,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn with_fpr_rejects_bad_parameters() {
    assert_eq!(
        Blocked::with_fpr(100, 1.5).unwrap_err().to_string(),
        "fpr must be in the open interval (0, 1), got 1.5"
    );
    for fpr in BAD_RATES {
        assert_eq!(invalid_name(Blocked::with_fpr(100, fpr)), "fpr");
    }
    assert_eq!(invalid_name(Blocked::with_fpr(0, 0.01)), "expected_items");
    assert_eq!(
        invalid_name(Blocked::with_fpr(usize::MAX, 0.01)),
        "expected_items"
    );
    // A rate whose classic k exceeds the 16 counters the layout holds.
    let err = Blocked::with_fpr(10, 1e-6).unwrap_err();
    assert!(
        matches!(err, Error::InvalidParameter { name: "fpr", .. }),
        "{err}"
    );
    assert!(err.to_string().contains("at most 16"), "{err}");
    assert!(Blocked::with_fpr(10, 2e-5).unwrap().hashes() <= MAX_BLOCKED_HASHES);
    // Tiny and loose filters still get two blocks.
    assert_eq!(Blocked::with_fpr(1, 0.5).unwrap().blocks(), 2);
}

#[test]
fn with_blocks_rejects_bad_parameters() {
    assert_eq!(
        Blocked::with_blocks(1, 3).unwrap_err().to_string(),
        format!("blocks must be in 2..={MAX_BLOCKS}, got 1")
    );
    assert_eq!(invalid_name(Blocked::with_blocks(0, 3)), "blocks");
    assert_eq!(
        invalid_name(Blocked::with_blocks(MAX_BLOCKS + 1, 3)),
        "blocks"
    );
    assert_eq!(invalid_name(Blocked::with_blocks(u64::MAX, 3)), "blocks");
    assert_eq!(
        Blocked::with_blocks(100, 0).unwrap_err().to_string(),
        "hashes must be in 1..=16, got 0"
    );
    assert_eq!(invalid_name(Blocked::with_blocks(100, 17)), "hashes");
}

#[test]
// Its sizes are past a 32-bit `usize`, where the address space refuses them first.
#[cfg(target_pointer_width = "64")]
fn unallocatable_sizes_name_what_the_caller_passed() {
    // In range but far beyond this machine's memory (2^39 blocks = 32 TiB):
    // an error, not an abort, naming the caller's own parameter. Only where
    // the kernel refuses such a request outright: elsewhere it could be
    // granted and then written.
    if !filter_core::testing::huge_allocations_are_refused() {
        return;
    }
    assert_eq!(invalid_name(Blocked::with_blocks(MAX_BLOCKS, 3)), "blocks");
    // Regression: `with_fpr` named `blocks`, which its caller never passed.
    assert_eq!(
        invalid_name(Blocked::with_fpr(500_000_000_000, 0.01)),
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
    let err = Blocked::with_fpr(1 << 45, 1e-6).unwrap_err();
    assert!(
        matches!(err, Error::InvalidParameter { name: "fpr", .. }),
        "{err}"
    );
    assert!(err.to_string().contains("at most 16"), "{err}");
    assert_eq!(invalid_name(Blocked::with_fpr(usize::MAX, 1e-6)), "fpr");
}

#[test]
fn extreme_rates_are_errors_or_working_filters() {
    // The smallest normal and subnormal rates want over 1,000 hashes: an
    // error naming fpr at any n, not an overflow or a huge table.
    for fpr in [f64::MIN_POSITIVE, 5e-324] {
        for n in [1, 1_000] {
            assert_eq!(invalid_name(Blocked::with_fpr(n, fpr)), "fpr");
        }
    }
    // Rates just below 1 give the smallest filter, which still works.
    for fpr in [1.0 - f64::EPSILON, 1.0 - f64::EPSILON / 2.0] {
        let mut filter = Blocked::with_fpr(3, fpr).unwrap();
        assert_eq!(filter.hashes(), 1);
        filter.insert(&1u64);
        assert!(filter.contains(&1u64));
        assert!(filter.remove(&1u64));
    }
}

/// A small filter with some content, and its bytes.
fn sample() -> (Blocked, Vec<u8>) {
    let mut filter = Blocked::with_blocks(3, 5).unwrap();
    for i in 0..5u64 {
        filter.insert(&i);
    }
    for _ in 0..20 {
        filter.insert("heavy");
    }
    let bytes = filter.to_bytes();
    (filter, bytes)
}

// Body offsets, after filter-core's header: blocks (u64), hashes (u32), the
// table's element count (u64), then the words.
const BLOCKS_AT: usize = HEADER_BYTES;
const HASHES_AT: usize = HEADER_BYTES + 8;
const TABLE_LEN_AT: usize = HEADER_BYTES + 12;
const WORDS_AT: usize = HEADER_BYTES + 20;

fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn round_trip_preserves_everything() {
    let (filter, bytes) = sample();
    let loaded = Blocked::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.to_bytes(), bytes);
    assert_eq!(loaded.blocks(), 3);
    assert_eq!(loaded.hashes(), 5);
    assert_eq!(loaded.saturated_counters(), filter.saturated_counters());
    assert!(loaded.saturated_counters() > 0);
    assert_eq!(loaded.count("heavy"), 15);
    assert!((0..5u64).all(|i| loaded.contains(&i)));
    assert_eq!(bytes.len(), WORDS_AT + 3 * 64 + 8);
}

#[test]
fn every_truncation_is_rejected() {
    let (_, bytes) = sample();
    for len in 0..bytes.len() {
        let err = Blocked::from_bytes(&bytes[..len]).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "len {len}: {err}");
    }
}

#[test]
fn every_bit_flip_is_rejected() {
    let (_, bytes) = sample();
    for bit in 0..bytes.len() * 8 {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        let err = Blocked::from_bytes(&flipped).unwrap_err();
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
        corrupt_reason(Blocked::from_bytes(&b))
    };
    let reason = lie(&|b| put_u64(b, BLOCKS_AT, 1));
    assert!(reason.contains("blocks must be in 2..="), "{reason}");
    let reason = lie(&|b| put_u64(b, BLOCKS_AT, 1 << 60));
    assert!(reason.contains("blocks"), "{reason}");
    // A block count that disagrees with the table's length, either way.
    let reason = lie(&|b| put_u64(b, BLOCKS_AT, 2));
    assert!(
        reason.contains("table has 24 words, but 2 blocks need 16"),
        "{reason}"
    );
    let reason = lie(&|b| put_u64(b, BLOCKS_AT, 4));
    assert!(reason.contains("4 blocks need 32"), "{reason}");
    let reason = lie(&|b| b[HASHES_AT..HASHES_AT + 4].copy_from_slice(&0u32.to_le_bytes()));
    assert!(
        reason.contains("hashes must be in 1..=16, got 0"),
        "{reason}"
    );
    let reason = lie(&|b| b[HASHES_AT..HASHES_AT + 4].copy_from_slice(&17u32.to_le_bytes()));
    assert!(reason.contains("hashes"), "{reason}");
    // A table length claiming far more words than the bytes hold.
    let reason = lie(&|b| put_u64(b, TABLE_LEN_AT, 1 << 60));
    assert!(reason.contains("table claims"), "{reason}");
    let reason = lie(&|b| put_u64(b, TABLE_LEN_AT, 16));
    assert!(
        reason.contains("trailing") || reason.contains("table has 16 words"),
        "{reason}"
    );
    // Trailing garbage before the checksum.
    let reason = lie(&|b| {
        let at = b.len() - 8;
        b.splice(at..at, [0u8; 8]);
    });
    assert!(reason.contains("trailing"), "{reason}");
    // A kind no filter has; other kinds' numbers are `WrongKind`
    // (tests/format.rs).
    let reason = lie(&|b| b[8..10].copy_from_slice(&99u16.to_le_bytes()));
    assert!(reason.contains("unknown filter kind 99"), "{reason}");
}

#[test]
fn other_hasher_is_refused() {
    let (_, bytes) = sample();
    assert_eq!(
        Blocked::from_bytes_with_hasher(&bytes, PortableHasher::with_seed(9)).unwrap_err(),
        Error::HasherMismatch
    );
    let seeded = Blocked::with_blocks_and_hasher(3, 5, PortableHasher::with_seed(9)).unwrap();
    assert_eq!(
        Blocked::from_bytes(&seeded.to_bytes()).unwrap_err(),
        Error::HasherMismatch
    );
    assert!(
        Blocked::from_bytes_with_hasher(&seeded.to_bytes(), PortableHasher::with_seed(9)).is_ok()
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    // Seeded garbage of many lengths, raw and with a valid header, resealed.
    let mut state = 0x1234_5678_u64;
    let mut next = || {
        state = filter_core::mix64(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
        state
    };
    let (_, bytes) = sample();
    for len in [0, 1, 8, 51, 52, 60, 64, 100, bytes.len()] {
        for _ in 0..50 {
            let mut b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let _ = Blocked::from_bytes(&b);
            if len >= 12 {
                b[..HEADER_BYTES.min(len)].copy_from_slice(&bytes[..HEADER_BYTES.min(len)]);
                reseal(&mut b);
                assert!(Blocked::from_bytes(&b).is_err() || len == bytes.len());
            }
        }
    }
}
