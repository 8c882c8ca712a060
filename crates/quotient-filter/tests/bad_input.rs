//! Bad input: every sizing edge, every truncation and bit flip of the bytes,
//! lying fields with a recomputed checksum, other kinds and hashers, and
//! merges of filters that do not fit together. All are `Err`, and nothing
//! is changed.

use filter_core::format::reseal;
use filter_core::testing::BAD_RATES;
use quotient_filter::{Error, PortableHasher, QuotientFilter};

#[test]
fn sizing_edges_are_errors_that_name_the_parameter() {
    let name = |e: Error| match e {
        Error::InvalidParameter { name, .. } => name,
        other => panic!("{other}"),
    };
    assert_eq!(
        name(QuotientFilter::with_fpr(0, 0.01).unwrap_err()),
        "expected_items"
    );
    assert_eq!(
        name(QuotientFilter::with_fpr(usize::MAX, 0.01).unwrap_err()),
        "expected_items"
    );
    // 2^62 keys on 64-bit targets, 2^30 on 32-bit ones: too many to
    // address either way.
    assert_eq!(
        name(QuotientFilter::with_fpr(usize::MAX / 4 + 1, 0.01).unwrap_err()),
        "expected_items"
    );
    for p in BAD_RATES {
        assert_eq!(name(QuotientFilter::with_fpr(100, p).unwrap_err()), "fpr");
        assert_eq!(
            name(QuotientFilter::growable_with_fpr(100, p, 2).unwrap_err()),
            "fpr"
        );
    }
    assert_eq!(
        name(QuotientFilter::with_fpr(100, 1e-300).unwrap_err()),
        "fpr"
    );
    assert_eq!(
        name(QuotientFilter::growable_with_fpr(100, 0.01, 17).unwrap_err()),
        "doublings"
    );
    // The smallest and largest rates that fit.
    assert!(QuotientFilter::with_fpr(1, 0.999).is_ok());
    assert!(QuotientFilter::with_fpr(1, 1e-15).is_ok());
    let err = QuotientFilter::with_fpr(0, 0.01).unwrap_err().to_string();
    assert_eq!(err, "expected_items must be at least 1, got 0");
}

#[test]
fn growth_stops_at_two_remainder_bits_without_change() {
    let mut filter = QuotientFilter::with_fpr(10, 0.5).unwrap();
    filter.insert(&7u64).unwrap();
    while filter.can_grow() {
        filter.grow().unwrap();
    }
    assert_eq!(filter.remainder_bits(), 2);
    let before = filter.to_bytes();
    assert!(matches!(filter.grow(), Err(Error::InvalidParameter { .. })));
    assert_eq!(filter.to_bytes(), before);
    assert!(filter.contains(&7u64));
}

fn sample() -> Vec<u8> {
    let mut filter = QuotientFilter::with_fpr(100, 0.01).unwrap();
    for k in 0..60u64 {
        filter.insert(&k).unwrap();
    }
    for _ in 0..40 {
        filter.insert(&5u64).unwrap();
    }
    filter.to_bytes()
}

#[test]
fn every_truncation_and_bit_flip_is_refused() {
    let bytes = sample();
    for cut in 0..bytes.len() {
        assert!(
            QuotientFilter::from_bytes(&bytes[..cut]).is_err(),
            "cut {cut}"
        );
    }
    for bit in 0..bytes.len() * 8 {
        let mut b = bytes.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        assert!(QuotientFilter::from_bytes(&b).is_err(), "bit {bit}");
    }
}

#[test]
fn resealed_bit_flips_are_refused_or_load_as_what_they_say() {
    // The checksum is recomputed, so only the loader's own checks stand
    // between altered bytes and a wrong answer. A flip of a parameter, a
    // metadata bit, a count or a free slot is refused; a flip of a stored
    // remainder can give another valid filter (one key for another), which
    // loads and is exactly what its bytes say.
    let bytes = sample();
    let body = filter_core::format::HEADER_BYTES..bytes.len() - filter_core::format::CHECKSUM_BYTES;
    let mut refused = 0;
    for bit in body.start * 8..body.end * 8 {
        let mut b = bytes.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        reseal(&mut b);
        match QuotientFilter::from_bytes(&b) {
            Err(Error::Corrupt { .. }) => refused += 1,
            Ok(filter) => {
                assert_eq!(filter.to_bytes(), b, "bit {bit}");
                // Parameters (quotients, bits, space, copies) and the array
                // lengths never survive a flip; the growable flag (byte 61)
                // and remainders can.
                assert!(bit / 8 == 61 || bit / 8 >= 78, "bit {bit}");
            }
            Err(e) => panic!("bit {bit}: {e}"),
        }
    }
    assert!(refused > (body.end - body.start) * 8 / 2, "{refused}");
}

#[test]
fn resealed_truncations_and_lying_lengths_are_refused() {
    let bytes = sample();
    for cut in filter_core::format::HEADER_BYTES..bytes.len() - 8 {
        let mut b = bytes[..cut].to_vec();
        b.extend_from_slice(&[0; 8]);
        reseal(&mut b);
        assert!(QuotientFilter::from_bytes(&b).is_err(), "cut {cut}");
    }
    // quotients (offset 44), the space (53), the word array's count (70).
    for (at, value) in [
        (44, 1u64 << 60),
        (44, 0),
        (44, u64::MAX),
        (53, 1 << 20),
        (70, 1 << 60),
        (70, 3),
    ] {
        let mut b = bytes.clone();
        b[at..at + 8].copy_from_slice(&value.to_le_bytes());
        reseal(&mut b);
        assert!(
            matches!(QuotientFilter::from_bytes(&b), Err(Error::Corrupt { .. })),
            "{at} {value}"
        );
    }
}

#[test]
fn other_kinds_and_hashers_are_refused() {
    let bytes = sample();
    let mut other_kind = bytes.clone();
    other_kind[8] = 4;
    reseal(&mut other_kind);
    assert!(matches!(
        QuotientFilter::from_bytes(&other_kind),
        Err(Error::WrongKind { .. })
    ));
    assert_eq!(
        QuotientFilter::from_bytes_with_hasher(&bytes, PortableHasher::with_seed(9)).unwrap_err(),
        Error::HasherMismatch
    );
}

#[test]
fn merges_that_do_not_fit_together_change_nothing() {
    let mut a = QuotientFilter::with_fpr(1000, 0.01).unwrap();
    for k in 0..500u64 {
        a.insert(&k).unwrap();
    }
    let before = a.to_bytes();
    let other_rate = QuotientFilter::with_fpr(1000, 0.001).unwrap();
    assert!(matches!(
        a.merge(&other_rate),
        Err(Error::Incompatible { .. })
    ));
    let other_size = QuotientFilter::with_fpr(1500, 0.01).unwrap();
    assert!(matches!(
        a.merge(&other_size),
        Err(Error::Incompatible { .. })
    ));
    let other_hasher =
        QuotientFilter::with_fpr_and_hasher(1000, 0.01, PortableHasher::with_seed(3)).unwrap();
    assert_eq!(a.merge(&other_hasher).unwrap_err(), Error::HasherMismatch);
    // The same space, but too many keys together for a fixed-size filter.
    let mut b = QuotientFilter::with_fpr(1000, 0.01).unwrap();
    for k in 1000..1600u64 {
        b.insert(&k).unwrap();
    }
    assert_eq!(a.merge(&b).unwrap_err(), Error::Full);
    assert_eq!(a.to_bytes(), before);
    // A grown filter of the same space merges, either way round.
    let mut grown = b.clone();
    grown.grow().unwrap();
    a.merge(&grown).unwrap();
    assert_eq!(a.quotients(), grown.quotients());
    assert!((0..500u64).chain(1000..1600).all(|k| a.contains(&k)));
    assert_eq!(a.len(), 1100);
}
