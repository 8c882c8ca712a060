//! Partitioned builds: no false negatives, separately built partitions
//! assemble to the in-process bytes, views answer as the owned filter, and
//! bad input is an error.

use filter_core::format::{HEADER_BYTES, reseal};
use filter_core::testing::keys;
use xor_filter::{
    BinaryFuse8, BinaryFusePartition, Error, MAX_PARTITIONS, PartitionedBinaryFuse8,
    PartitionedBinaryFuse8Ref, PartitionedBinaryFuse16, PartitionedBinaryFuse16Ref,
    partition_of_hash,
};

#[test]
fn no_false_negatives_at_any_size_and_partition_count() {
    let members = keys::members(41, 20_000);
    for n in [0usize, 1, 2, 3, 100, 20_000] {
        for p in [1usize, 2, 3, 7, 64] {
            let ks = &members[..n];
            let f = PartitionedBinaryFuse8::from_keys(ks, p).unwrap();
            assert_eq!((f.len(), f.partitions()), (n, p));
            assert!(ks.iter().all(|k| f.contains(k)), "{n} {p}");
            let g = PartitionedBinaryFuse16::from_keys(ks, p).unwrap();
            assert!(ks.iter().all(|k| g.contains(k)), "{n} {p}");
        }
    }
}

#[test]
fn duplicates_count_once() {
    let mut ks = keys::members(42, 5000);
    ks.extend_from_within(..2500);
    let f = PartitionedBinaryFuse8::from_keys(&ks, 5).unwrap();
    assert_eq!(f.len(), 5000);
    assert!(ks.iter().all(|k| f.contains(k)));
}

#[test]
fn space_and_rate_match_a_single_table() {
    // 200 000 keys in 4 partitions of ~50 000: each partition's size factor
    // at 50 000 keys is the formula's (1.154), so compare with single
    // tables of 50 000 keys rather than one of 200 000.
    let ks = keys::members(43, 200_000);
    let f = PartitionedBinaryFuse8::from_keys(&ks, 4).unwrap();
    let single = BinaryFuse8::from_keys(&ks[..50_000]).unwrap();
    assert!(
        f.bits_per_key() <= single.bits_per_key() * 1.01,
        "{} vs {}",
        f.bits_per_key(),
        single.bits_per_key()
    );
    // 2^-8 over 10^6 non-members: 3906 ± 62 (binomial σ); 10 % + 4σ allows 4545.
    let fp = keys::non_members(43, 1_000_000)
        .iter()
        .filter(|k| f.contains(k))
        .count();
    assert!(fp <= 4545, "{fp}");
}

#[test]
fn separately_built_partitions_assemble_to_the_same_bytes() {
    let hashes: Vec<u64> = keys::members(44, 30_000);
    for p in [1usize, 2, 5] {
        let whole = PartitionedBinaryFuse8::from_hashes(&hashes, p).unwrap();
        let bytes = whole.to_bytes();
        // Built one by one, shipped as bytes, given back in reverse order.
        let shipped: Vec<Vec<u8>> = (0..p)
            .map(|i| {
                PartitionedBinaryFuse8::build_partition(i, p, hashes.iter().copied())
                    .unwrap()
                    .to_bytes()
            })
            .collect();
        let parts = shipped
            .iter()
            .rev()
            .map(|b| BinaryFusePartition::from_bytes(b).unwrap());
        let assembled = PartitionedBinaryFuse8::assemble(parts).unwrap();
        assert_eq!(assembled.to_bytes(), bytes);
        assert_eq!(assembled, whole);
        // Input order does not change a partition's table either.
        let mut reversed = hashes.clone();
        reversed.reverse();
        assert_eq!(
            PartitionedBinaryFuse8::from_hashes(&reversed, p)
                .unwrap()
                .to_bytes(),
            bytes
        );
    }
}

#[test]
fn assembling_wrong_pieces_is_an_error() {
    let hashes = keys::members(45, 1000);
    let part =
        |i, p| PartitionedBinaryFuse8::build_partition(i, p, hashes.iter().copied()).unwrap();
    let missing = PartitionedBinaryFuse8::assemble([part(0, 3), part(2, 3)]).unwrap_err();
    assert!(matches!(missing, Error::Incompatible { .. }), "{missing}");
    let twice = PartitionedBinaryFuse8::assemble([part(0, 2), part(0, 2), part(1, 2)]);
    assert!(matches!(twice, Err(Error::Incompatible { .. })));
    let mixed = PartitionedBinaryFuse8::assemble([part(0, 2), part(1, 3)]);
    assert!(matches!(mixed, Err(Error::Incompatible { .. })));
    let none = PartitionedBinaryFuse8::assemble(Vec::<BinaryFusePartition<u8>>::new());
    assert!(matches!(none, Err(Error::InvalidParameter { .. })));
    for (i, p) in [(0usize, 0usize), (3, 3), (0, MAX_PARTITIONS + 1)] {
        let e = PartitionedBinaryFuse8::build_partition(i, p, [1, 2, 3]).unwrap_err();
        assert!(matches!(e, Error::InvalidParameter { .. }), "{e}");
    }
    assert!(PartitionedBinaryFuse8::from_hashes(&hashes, 0).is_err());
    // A partition's bytes are not a whole filter's (for more than one
    // partition), nor the other width's.
    let piece = part(1, 2).to_bytes();
    assert!(PartitionedBinaryFuse8::from_bytes(&piece).is_err());
    assert!(PartitionedBinaryFuse8Ref::from_bytes(&piece).is_err());
    let whole = PartitionedBinaryFuse8::from_hashes(&hashes, 2)
        .unwrap()
        .to_bytes();
    assert!(BinaryFusePartition::<u8>::from_bytes(&whole).is_err());
    let e = PartitionedBinaryFuse16::from_bytes(&whole).unwrap_err();
    assert!(e.to_string().contains("fingerprint_bits"), "{e}");
}

#[test]
fn partitions_come_from_the_hash_alone() {
    let hashes = keys::members(46, 40_000);
    let f = PartitionedBinaryFuse8::from_hashes(&hashes, 4).unwrap();
    for p in 0..4 {
        let mine = hashes
            .iter()
            .filter(|&&h| partition_of_hash(h, 4) == p)
            .count();
        // 10 000 ± 87 (binomial σ); 5σ either side.
        assert!((9_565..=10_435).contains(&mine), "{p}: {mine}");
    }
    assert_eq!(f.len(), 40_000);
    assert_eq!(partition_of_hash(123, 1), 0);
    assert_eq!(partition_of_hash(123, 0), 0);
}

#[test]
fn views_answer_as_the_owned_filter() {
    let members = keys::members(47, 20_000);
    let queries = keys::non_members(47, 100_000);
    for (n, p) in [(0usize, 1usize), (1, 3), (20_000, 6)] {
        let f8 = PartitionedBinaryFuse8::from_keys(&members[..n], p).unwrap();
        let f16 = PartitionedBinaryFuse16::from_keys(&members[..n], p).unwrap();
        let (b8, b16) = (f8.to_bytes(), f16.to_bytes());
        let mut shifted = vec![0u8];
        shifted.extend_from_slice(&b16);
        let v8 = PartitionedBinaryFuse8Ref::from_bytes(&b8).unwrap();
        let v16 = PartitionedBinaryFuse16Ref::from_bytes(&shifted[1..]).unwrap();
        v8.verify_checksum().unwrap();
        v16.verify_checksum().unwrap();
        assert_eq!(PartitionedBinaryFuse8::from_bytes(&b8).unwrap(), f8);
        assert_eq!(v8.to_owned_filter(), f8);
        assert_eq!(v16.to_owned_filter(), f16);
        assert_eq!((v8.len(), v8.partitions()), (n, p));
        assert!(
            members[..n]
                .iter()
                .all(|k| v8.contains(k) && v16.contains(k))
        );
        assert!(
            queries
                .iter()
                .all(|q| v8.contains(q) == f8.contains(q) && v16.contains(q) == f16.contains(q))
        );
    }
}

#[test]
fn crafted_bytes_never_panic_a_partitioned_view() {
    // Each u64 field of the body (the first 60 words: header fields and
    // partition records) set to stress values, resealed: opening either
    // fails or gives a view whose lookups stay in bounds (safe indexing
    // would panic otherwise).
    let hashes = keys::members(48, 3000);
    let valid = PartitionedBinaryFuse8::from_hashes(&hashes, 5)
        .unwrap()
        .to_bytes();
    let probes: Vec<u64> = (0..500u64)
        .map(filter_core::mix64)
        .chain([0, u64::MAX])
        .collect();
    let mut opened = 0;
    for word in 0..60 {
        let at = HEADER_BYTES + 8 * word;
        for value in [
            0u64,
            1,
            2,
            4,
            5,
            7,
            8,
            16,
            1 << 16,
            1 << 32,
            1 << 63,
            u64::MAX,
            600,
            3000,
        ] {
            let mut b = valid.clone();
            b[at..at + 8].copy_from_slice(&value.to_le_bytes());
            reseal(&mut b);
            if let Ok(v) = PartitionedBinaryFuse8Ref::from_bytes(&b) {
                opened += 1;
                for &h in &probes {
                    std::hint::black_box(v.contains_hash(h));
                }
                assert!(PartitionedBinaryFuse8::from_bytes(&b).is_ok());
            } else {
                assert!(PartitionedBinaryFuse8::from_bytes(&b).is_err());
            }
        }
    }
    assert!(opened > 20, "{opened}");
}
