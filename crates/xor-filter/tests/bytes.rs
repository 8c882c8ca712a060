//! `to_bytes` / `from_bytes`: a loaded filter answers identically, and every
//! malformed byte string is an `Err` naming what is wrong, never a panic.

use filter_core::format::{FilterKind, HEADER_BYTES, reseal};
use filter_core::testing::keys;
use xor_filter::{BinaryFuse8, BinaryFuse16, Error, Xor8, Xor16};

/// Body offsets (see docs/format-xor-filter.md).
const SEED: usize = HEADER_BYTES;
const KEYS: usize = HEADER_BYTES + 8;
const PARAM: usize = HEADER_BYTES + 16;

fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

fn corrupt_reason(e: Error) -> String {
    match e {
        Error::Corrupt { reason } => reason,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn loaded_filters_answer_identically() {
    let members = keys::members(11, 20_000);
    let queries = keys::non_members(11, 200_000);
    for n in [0usize, 1, 2, 3, 50, 20_000] {
        let ks = &members[..n];
        macro_rules! check {
            ($ty:ty) => {{
                let f = <$ty>::from_keys(ks).unwrap();
                let bytes = f.to_bytes();
                let g = <$ty>::from_bytes(&bytes).unwrap();
                assert_eq!(g.to_bytes(), bytes);
                assert_eq!((g.len(), g.memory_bytes()), (f.len(), f.memory_bytes()));
                assert!(ks.iter().all(|k| g.contains(k)));
                assert!(queries.iter().all(|q| f.contains(q) == g.contains(q)));
            }};
        }
        check!(Xor8);
        check!(Xor16);
        check!(BinaryFuse8);
        check!(BinaryFuse16);
    }
}

#[test]
fn wrong_kind_is_refused() {
    let ks = keys::members(1, 100);
    let x8 = Xor8::from_keys(&ks).unwrap().to_bytes();
    let wrong = |e: Error| match e {
        Error::WrongKind { expected, found } => (expected, found),
        other => panic!("expected WrongKind, got {other:?}"),
    };
    assert_eq!(
        wrong(BinaryFuse8::from_bytes(&x8).unwrap_err()),
        ("BinaryFuse8", "Xor8")
    );
    assert_eq!(
        wrong(Xor16::from_bytes(&x8).unwrap_err()),
        ("Xor16", "Xor8")
    );
    let b16 = BinaryFuse16::from_keys(&ks).unwrap().to_bytes();
    assert_eq!(
        wrong(BinaryFuse8::from_bytes(&b16).unwrap_err()),
        ("BinaryFuse8", "BinaryFuse16")
    );
    assert_eq!(
        wrong(xor_filter::BinaryFuse16Ref::from_bytes(&x8).unwrap_err()),
        ("BinaryFuse16", "Xor8")
    );
    assert_eq!(
        wrong(xor_filter::PartitionedBinaryFuse8::from_bytes(&b16).unwrap_err()),
        ("PartitionedBinaryFuse", "BinaryFuse16")
    );
    assert!(Xor16::from_bytes(&b16).is_err());
    assert_eq!(FilterKind::from_u16(8), Some(FilterKind::BinaryFuse16));
}

#[test]
fn every_truncation_and_every_bit_flip_is_refused() {
    let ks = keys::members(2, 40);
    for bytes in [
        Xor8::from_keys(&ks).unwrap().to_bytes(),
        BinaryFuse16::from_keys(&ks).unwrap().to_bytes(),
    ] {
        for len in 0..bytes.len() {
            assert!(
                Xor8::from_bytes(&bytes[..len]).is_err(),
                "truncated to {len}"
            );
            assert!(
                BinaryFuse16::from_bytes(&bytes[..len]).is_err(),
                "truncated to {len}"
            );
        }
        for i in 0..bytes.len() {
            for bit in [0, 3, 7] {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert!(Xor8::from_bytes(&b).is_err(), "flip byte {i} bit {bit}");
                assert!(
                    BinaryFuse16::from_bytes(&b).is_err(),
                    "flip byte {i} bit {bit}"
                );
            }
        }
    }
}

#[test]
fn trailing_garbage_is_refused_even_resealed() {
    let bytes = BinaryFuse8::from_keys(&keys::members(3, 100))
        .unwrap()
        .to_bytes();
    let mut b = bytes.clone();
    b.insert(b.len() - 8, 0);
    reseal(&mut b);
    let e = corrupt_reason(BinaryFuse8::from_bytes(&b).unwrap_err());
    assert!(e.contains("left over") || e.contains("trailing"), "{e}");
}

#[test]
fn resealed_lies_about_parameters_are_refused() {
    let ks = keys::members(4, 1000);
    let xor = Xor8::from_keys(&ks).unwrap().to_bytes();
    let fuse = BinaryFuse8::from_keys(&ks).unwrap().to_bytes();

    // A key count that does not match the table. (A count close enough to
    // give the same layout, 1001 for 1000, cannot be told apart; it changes
    // only what `len` reports.)
    for (bytes, is_xor) in [(&xor, true), (&fuse, false)] {
        for lie in [0u64, 2000, 1 << 40, u64::MAX] {
            let mut b = bytes.clone();
            put_u64(&mut b, KEYS, lie);
            reseal(&mut b);
            let e = if is_xor {
                Xor8::from_bytes(&b).unwrap_err()
            } else {
                BinaryFuse8::from_bytes(&b).unwrap_err()
            };
            let e = corrupt_reason(e);
            assert!(
                e.contains("keys") || e.contains("block_length") || e.contains("segment"),
                "{e}"
            );
        }
    }

    // Layout parameters inconsistent with the key count.
    for lie in [0u64, 1, 1 << 62] {
        let mut b = xor.clone();
        put_u64(&mut b, PARAM, lie);
        reseal(&mut b);
        let e = corrupt_reason(Xor8::from_bytes(&b).unwrap_err());
        assert!(e.contains("block_length"), "{e}");

        let mut b = fuse.clone();
        put_u64(&mut b, PARAM, lie);
        reseal(&mut b);
        let e = corrupt_reason(BinaryFuse8::from_bytes(&b).unwrap_err());
        assert!(e.contains("segment_length"), "{e}");

        let mut b = fuse.clone();
        put_u64(&mut b, PARAM + 8, lie);
        reseal(&mut b);
        let e = corrupt_reason(BinaryFuse8::from_bytes(&b).unwrap_err());
        assert!(e.contains("segment_count"), "{e}");
    }

    // A fingerprint count claiming 2^60 entries: refused before allocating.
    let mut b = xor.clone();
    put_u64(&mut b, PARAM + 8, 1 << 60);
    reseal(&mut b);
    let e = corrupt_reason(Xor8::from_bytes(&b).unwrap_err());
    assert!(e.contains("fingerprints"), "{e}");

    // A fingerprint count one short, with the bytes to match.
    let mut b = fuse.clone();
    let count_at = PARAM + 16;
    let count = u64::from_le_bytes(b[count_at..count_at + 8].try_into().unwrap());
    put_u64(&mut b, count_at, count - 1);
    b.remove(b.len() - 9);
    reseal(&mut b);
    let e = corrupt_reason(BinaryFuse8::from_bytes(&b).unwrap_err());
    assert!(e.contains("fingerprints has"), "{e}");

    // The seed is free-form: another seed loads, and simply answers differently.
    let mut b = fuse.clone();
    put_u64(&mut b, SEED, 42);
    reseal(&mut b);
    assert!(BinaryFuse8::from_bytes(&b).is_ok());
}

#[test]
fn garbage_is_refused() {
    for len in [0usize, 1, 51, 52, 53, 200] {
        let junk: Vec<u8> = (0..len).map(|i| (i * 37 % 251) as u8).collect();
        assert!(Xor16::from_bytes(&junk).is_err());
        let mut junk2 = junk.clone();
        reseal(&mut junk2);
        assert!(BinaryFuse16::from_bytes(&junk2).is_err());
    }
}

/// A binary fuse byte string with the given key count, layout and
/// `fingerprints` entries, resealed: structure past the checksum.
fn fuse_bytes(keys: u64, segment_length: u64, segment_count: u64, fingerprints: usize) -> Vec<u8> {
    let mut b = BinaryFuse8::from_hashes(&[]).unwrap().to_bytes()[..PARAM].to_vec();
    put_u64(&mut b, KEYS, keys);
    b.extend_from_slice(&segment_length.to_le_bytes());
    b.extend_from_slice(&segment_count.to_le_bytes());
    b.extend_from_slice(&(fingerprints as u64).to_le_bytes());
    b.extend((0..fingerprints).map(|i| (i * 131 % 251) as u8));
    b.extend_from_slice(&[0; 8]);
    reseal(&mut b);
    b
}

#[test]
fn resealed_fuse_layouts_are_refused_or_behave() {
    // Segment lengths that are not powers of two or out of 4..=2^18, counts
    // of 0, counts whose slot total overflows u64 or passes 2^32, and a
    // layout too small for its key count. (Where the slot total is huge the
    // fingerprints are short, so the layout check must come first.)
    for (keys, length, count, field) in [
        (0u64, 0u64, 1u64, "segment_length"),
        (0, 2, 1, "segment_length"),
        (0, 6, 1, "segment_length"),
        (0, 1 << 19, 1, "segment_length"),
        (0, 1 << 63, 1, "segment_length"),
        (0, 4, 0, "segment_count"),
        (0, 4, u64::MAX, "segment_count"),
        (0, 4, u64::MAX / 4, "segment_count"),
        (0, 1 << 18, (1 << 14) - 1, "segment_count"),
        (100, 4, 20, "implausible"),
        (0, 64, 1, "implausible"),
    ] {
        let slots = count.wrapping_add(2).wrapping_mul(length);
        let fingerprints = if slots < 1 << 20 { slots as usize } else { 12 };
        let e = BinaryFuse8::from_bytes(&fuse_bytes(keys, length, count, fingerprints));
        let e = corrupt_reason(e.unwrap_err());
        assert!(e.contains(field), "{keys} {length} {count}: {e}");
    }
    // Layouts that differ from what the formula gives but are structurally
    // sound load (see docs/format-xor-filter.md), and must then behave: no
    // out-of-range lookup (debug builds assert it) for any hash.
    for (keys, length, count) in [
        (0u64, 4u64, 20u64),
        (0, 8, 9),
        (12, 4, 1),
        (40, 16, 2),
        (1000, 4, 600),
    ] {
        let slots = ((count + 2) * length) as usize;
        let f = BinaryFuse8::from_bytes(&fuse_bytes(keys, length, count, slots)).unwrap();
        assert_eq!((f.len(), f.memory_bytes()), (keys as usize, slots));
        for i in 0..20_000u64 {
            f.contains_hash(filter_core::mix64(i));
        }
        for h in [0, 1, u64::MAX, 1 << 63] {
            f.contains_hash(h);
        }
    }
}

#[test]
fn a_filter_built_with_halved_segments_loads() {
    // At n = 11 521 the formula's layout (segments of 1024) rarely peels, so
    // the build uses the alternative: segments of 512, twice as many plus
    // two, the same slots. Its bytes must load and answer identically.
    let ks = keys::members(31, 11_521);
    let queries = keys::non_members(31, 50_000);
    let f = BinaryFuse16::from_keys(&ks).unwrap();
    let bytes = f.to_bytes();
    let length = u64::from_le_bytes(bytes[PARAM..PARAM + 8].try_into().unwrap());
    let count = u64::from_le_bytes(bytes[PARAM + 8..PARAM + 16].try_into().unwrap());
    assert_eq!((length, count), (512, 26));
    let g = BinaryFuse16::from_bytes(&bytes).unwrap();
    assert_eq!(g.memory_bytes(), 14 * 1024 * 2);
    assert!(ks.iter().all(|k| g.contains(k)));
    assert!(queries.iter().all(|q| f.contains(q) == g.contains(q)));
}
