//! Bad parameters and bad bytes are errors that name what was wrong, never
//! panics, and never a filter that answers with false negatives.

use cuckoo::{CuckooFilter, Error, PortableHasher};
use filter_core::format::reseal;
use filter_core::testing::{BAD_RATES, keys};

fn invalid_name(e: Error) -> &'static str {
    match e {
        Error::InvalidParameter { name, .. } => name,
        other => panic!("expected InvalidParameter, got {other}"),
    }
}

#[test]
fn bad_parameters_are_rejected_with_their_names() {
    assert_eq!(
        invalid_name(CuckooFilter::with_fpr(0, 0.01).unwrap_err()),
        "expected_items"
    );
    // Beyond the shared list: rates so small that f would exceed 16 bits.
    for p in BAD_RATES.into_iter().chain([1e-5, 0.0001]) {
        assert_eq!(
            invalid_name(CuckooFilter::with_fpr(100, p).unwrap_err()),
            "fpr",
            "{p}"
        );
    }
    let e = CuckooFilter::with_fpr(100, 1.5).unwrap_err();
    assert_eq!(
        e.to_string(),
        "fpr must be in the open interval (0, 1), got 1.5"
    );
    let e = CuckooFilter::with_fpr(100, 1e-5).unwrap_err();
    assert!(e.to_string().contains("16-bit fingerprint limit"), "{e}");
    // The smallest rate 16-bit fingerprints reach is accepted.
    assert_eq!(
        CuckooFilter::with_fpr(100, 8.0 / 65536.0)
            .unwrap()
            .fingerprint_bits(),
        16
    );
    // Rates above 1/2 would need fewer than 4 bits; 4 is the floor.
    assert_eq!(
        CuckooFilter::with_fpr(100, 0.9).unwrap().fingerprint_bits(),
        4
    );

    for bits in [0, 3, 17, 64] {
        let e = CuckooFilter::with_capacity(100, bits).unwrap_err();
        assert!(e.to_string().contains("in 4..=16"), "{e}");
        assert_eq!(invalid_name(e), "fingerprint_bits");
        assert_eq!(
            invalid_name(CuckooFilter::with_buckets(10, bits).unwrap_err()),
            "fingerprint_bits"
        );
    }
    assert_eq!(
        invalid_name(CuckooFilter::with_capacity(0, 8).unwrap_err()),
        "expected_items"
    );
    assert_eq!(
        invalid_name(CuckooFilter::with_buckets(0, 8).unwrap_err()),
        "buckets"
    );
    // Past the 2^46-bit limit on 64-bit targets; on 32-bit ones only
    // usize::MAX is past what the address space holds (usize::MAX / 64
    // buckets of 16-bit fingerprints take 512 MiB).
    let huge: &[usize] = if cfg!(target_pointer_width = "64") {
        &[usize::MAX, usize::MAX / 64, usize::MAX >> 14]
    } else {
        &[usize::MAX]
    };
    for &huge in huge {
        assert_eq!(
            invalid_name(CuckooFilter::with_buckets(huge, 16).unwrap_err()),
            "buckets"
        );
        assert_eq!(
            invalid_name(CuckooFilter::with_fpr(huge, 0.01).unwrap_err()),
            "expected_items"
        );
        assert_eq!(
            invalid_name(CuckooFilter::with_capacity(huge, 8).unwrap_err()),
            "expected_items"
        );
    }
}

#[test]
fn too_many_items_name_the_largest_count_that_fits() {
    // The largest count follows the fingerprint width (a 4-bit table of
    // 3.6e12 items is 2^44 bits and fits), and a refusal names that count,
    // not a bit limit the caller never chose. (No test allocates near it.)
    for bits in 4..=16u32 {
        let e = CuckooFilter::with_capacity(usize::MAX, bits).unwrap_err();
        let text = e.to_string();
        let Error::InvalidParameter { name, allowed, .. } = e else {
            panic!("{text}")
        };
        assert_eq!(name, "expected_items");
        let max: f64 = allowed
            .split_whitespace()
            .nth(4)
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("no number in {text}"));
        // The sizing of `buckets_for`: n / (4 · load) + √n buckets of 4f bits.
        let load = match bits {
            4 => 0.80,
            5 => 0.90,
            6 => 0.93,
            _ => 0.95,
        };
        let table_bits = |n: f64| (n / (4.0 * load) + n.sqrt()) * 4.0 * f64::from(bits);
        // 2^46 bits, or what a 32-bit `usize` counts.
        let limit = (1u64 << 46).min(usize::MAX as u64) as f64;
        assert!(table_bits(max) <= limit, "{text}");
        assert!(table_bits(max * 1.000_001) > limit, "{text}");
    }
    if cfg!(target_pointer_width = "64") {
        let e = CuckooFilter::with_capacity(usize::MAX, 4).unwrap_err();
        assert!(e.to_string().contains("about 14073736830739"), "{e}");
    }
}

#[test]
fn odd_and_tiny_bucket_counts_work() {
    for buckets in [1, 2, 3, 7, 1001] {
        for bits in 4..=16 {
            let mut filter = CuckooFilter::with_buckets(buckets, bits).unwrap();
            let keys = keys::members(buckets as u64, 3);
            for k in &keys {
                filter.insert(k).unwrap();
            }
            assert!(keys.iter().all(|k| filter.contains(k)));
            let copy = CuckooFilter::from_bytes(&filter.to_bytes()).unwrap();
            assert!(keys.iter().all(|k| copy.contains(k)));
        }
    }
}

/// A small filter with a victim, so that every field is exercised.
fn full_filter() -> CuckooFilter {
    let mut filter = CuckooFilter::with_buckets(5, 10).unwrap();
    let mut i = 0;
    while !filter.is_full() {
        filter.insert(&keys::key(3, i)).unwrap();
        i += 1;
    }
    filter
}

// Body offsets (docs/format-cuckoo.md): after the 44-byte header come
// fingerprint_bits (u8) at 44, buckets (u64) at 45, items (u64) at 53,
// victim_bucket (u64) at 61, victim_fingerprint (u16) at 69,
// eviction_state (u64) at 71, the table's byte count (u64) at 79, the table at 87.
const BITS: usize = 44;
const BUCKETS: usize = 45;
const ITEMS: usize = 53;
const VICTIM_BUCKET: usize = 61;
const VICTIM_FP: usize = 69;
const TABLE_LEN: usize = 79;
const TABLE: usize = 87;

fn corrupt_reason(bytes: &[u8]) -> String {
    match CuckooFilter::from_bytes(bytes) {
        Err(Error::Corrupt { reason }) => reason,
        Err(e) => panic!("expected Corrupt, got {e}"),
        Ok(_) => panic!("corrupt bytes were accepted"),
    }
}

fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn round_trip_keeps_victim_and_eviction_state() {
    let mut a = full_filter();
    let bytes = a.to_bytes();
    let mut b = CuckooFilter::from_bytes(&bytes).unwrap();
    assert!(b.is_full());
    assert_eq!(b.len(), a.len());
    assert_eq!(b.to_bytes(), bytes);
    // The same operations give the same filter: the eviction generator's
    // state travelled with the bytes.
    assert!(a.remove(&keys::key(3, 0)) && b.remove(&keys::key(3, 0)));
    for i in 1000..1010 {
        assert_eq!(a.insert(&keys::key(3, i)), b.insert(&keys::key(3, i)));
    }
    assert_eq!(a.to_bytes(), b.to_bytes());
}

#[test]
fn truncations_bit_flips_and_trailing_bytes_are_rejected() {
    let bytes = full_filter().to_bytes();
    for len in 0..bytes.len() {
        assert!(
            CuckooFilter::from_bytes(&bytes[..len]).is_err(),
            "truncated to {len}"
        );
    }
    for bit in 0..bytes.len() * 8 {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert!(
            CuckooFilter::from_bytes(&flipped).is_err(),
            "bit {bit} flipped"
        );
    }
    let mut long = bytes.clone();
    long.insert(long.len() - 8, 0);
    reseal(&mut long);
    assert!(corrupt_reason(&long).contains("trailing"));
}

#[test]
fn resealed_lies_are_caught_by_structure() {
    let good = full_filter().to_bytes();
    let lie = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = good.clone();
        edit(&mut bytes);
        reseal(&mut bytes);
        corrupt_reason(&bytes)
    };
    assert!(lie(&|b| b[BITS] = 3).contains("fingerprint_bits"));
    assert!(lie(&|b| b[BITS] = 17).contains("fingerprint_bits"));
    assert!(lie(&|b| b[BITS] = 14).contains("table has"));
    assert!(lie(&|b| put_u64(b, BUCKETS, 0)).contains("buckets"));
    assert!(lie(&|b| put_u64(b, BUCKETS, 1 << 60)).contains("buckets"));
    assert!(lie(&|b| put_u64(b, BUCKETS, 9)).contains("table has"));
    assert!(lie(&|b| put_u64(b, ITEMS, 3)).contains("items"));
    assert!(lie(&|b| put_u64(b, VICTIM_BUCKET, 5)).contains("victim_bucket"));
    assert!(lie(&|b| b[VICTIM_FP + 1] = 0x80).contains("victim_fingerprint"));
    // An empty victim slot with a bucket set is not canonical.
    assert!(lie(&|b| b[VICTIM_FP..VICTIM_FP + 2].copy_from_slice(&[0, 0])).contains("victim"));
    assert!(lie(&|b| put_u64(b, TABLE_LEN, 1 << 60)).contains("table"));
    assert!(lie(&|b| put_u64(b, TABLE_LEN, 3)).contains("table"));
    // Bits past the last bucket (5 buckets × 40 bits = 200 bits = 25 bytes,
    // then 7 padding bytes).
    assert!(lie(&|b| b[TABLE + 26] |= 1).contains("past its last bucket"));
    // A cleared slot makes the item count disagree with the table, except
    // in the victim's two buckets, where a free slot contradicts the victim
    // first. Which buckets those are depends on the hasher, so on the
    // target: every bucket (40 bits, 5 bytes) is tried.
    let mut item_lies = 0;
    for bucket in 0..5 {
        let at = TABLE + 5 * bucket;
        let reason = lie(&|b| b[at..at + 2].copy_from_slice(&[0, 0]));
        if reason.contains("items is") {
            item_lies += 1;
        } else {
            let victims = reason.contains(&format!("buckets {bucket} and"))
                || reason.contains(&format!("and {bucket} have"));
            assert!(reason.contains("victim slot") && victims, "{reason}");
        }
    }
    assert!(item_lies >= 3, "{item_lies}");
}

#[test]
fn a_victim_beside_a_free_slot_of_its_buckets_is_refused() {
    // Such bytes (checksum valid, items consistent) would load as a filter
    // that refuses every insert with `Full` although the victim's own bucket
    // has room: a state no sequence of operations produces.
    let good = full_filter().to_bytes();
    let mut bytes = good.clone();
    let victim = u64::from_le_bytes(bytes[VICTIM_BUCKET..VICTIM_BUCKET + 8].try_into().unwrap());
    // 10-bit fingerprints: bucket i is bits [40i, 40i + 40); clear its slot 0.
    let first_bit = 40 * victim as usize;
    for bit in first_bit..first_bit + 10 {
        bytes[TABLE + bit / 8] &= !(1 << (bit % 8));
    }
    let items = u64::from_le_bytes(bytes[ITEMS..ITEMS + 8].try_into().unwrap());
    put_u64(&mut bytes, ITEMS, items - 1);
    reseal(&mut bytes);
    assert!(corrupt_reason(&bytes).contains("free slots"));

    // The same forgery in an empty table.
    let empty = CuckooFilter::with_buckets(5, 10).unwrap().to_bytes();
    let mut bytes = empty.clone();
    put_u64(&mut bytes, ITEMS, 1);
    put_u64(&mut bytes, VICTIM_BUCKET, 2);
    bytes[VICTIM_FP..VICTIM_FP + 2].copy_from_slice(&5u16.to_le_bytes());
    reseal(&mut bytes);
    assert!(corrupt_reason(&bytes).contains("free slots"));
}

#[test]
fn other_kinds_and_hashers_are_refused() {
    let bytes = full_filter().to_bytes();
    let other = CuckooFilter::from_bytes_with_hasher(&bytes, PortableHasher::with_seed(9));
    assert_eq!(other.unwrap_err(), Error::HasherMismatch);
    // Valid bytes of another kind (here a header that says BloomFilter)
    // name both kinds.
    let mut kind = bytes.clone();
    kind[8] = 1; // FilterKind::Bloom
    reseal(&mut kind);
    let err = CuckooFilter::from_bytes(&kind).unwrap_err();
    assert_eq!(
        err,
        Error::WrongKind {
            expected: "CuckooFilter",
            found: "BloomFilter"
        }
    );
    assert!(err.to_string().contains("BloomFilter"), "{err}");
    // And the scalable filter's bytes are not a CuckooFilter's either.
    let mut scalable = bytes.clone();
    scalable[8] = 11; // FilterKind::ScalableCuckoo
    reseal(&mut scalable);
    assert!(matches!(
        CuckooFilter::from_bytes(&scalable),
        Err(Error::WrongKind {
            found: "ScalableCuckooFilter",
            ..
        })
    ));
    let junk = [b'x'; 80];
    assert!(corrupt_reason(&junk).contains("magic"));
}

#[test]
fn every_resealed_bit_flip_is_refused_or_loads_a_working_filter() {
    // Past the checksum, a flip in a slot, the victim or the eviction state
    // can be a consistent lie (another fingerprint, the victim's other
    // bucket, another generator state) and may load; a flip in the width,
    // the bucket count, the item count, the table's length or its padding
    // must be refused. What loads must never panic later. Full tables of every
    // width and the smallest sizes, so that the victim, the padding after a
    // bucket that ends mid-byte, and m = 1 are all covered.
    for bits in 4..=16u32 {
        for buckets in [1, 2, 3] {
            let mut filter = CuckooFilter::with_buckets(buckets, bits).unwrap();
            let mut i = 0u64;
            while !filter.is_full() {
                let _ = filter.insert(&i);
                i += 1;
            }
            let good = filter.to_bytes();
            // The body lies between the 44-byte header and the checksum.
            for bit in 44 * 8..(good.len() - 8) * 8 {
                let mut bytes = good.clone();
                bytes[bit / 8] ^= 1 << (bit % 8);
                reseal(&mut bytes);
                let Ok(mut loaded) = CuckooFilter::from_bytes(&bytes) else {
                    continue;
                };
                let at = format!("f {bits} m {buckets} bit {bit}");
                let byte = bit / 8;
                let slot_bit = byte >= TABLE && bit - TABLE * 8 < 4 * bits as usize * buckets;
                let lie = (VICTIM_BUCKET..TABLE_LEN).contains(&byte) || slot_bit;
                assert!(lie, "{at}: a flip outside the slots and the victim loaded");
                assert_eq!(loaded.to_bytes(), bytes, "{at}");
                for k in 0..20u64 {
                    let _ = loaded.contains(&k);
                    if loaded.remove(&k) {
                        let _ = loaded.insert(&(k + 100));
                    }
                }
                assert!(CuckooFilter::from_bytes(&loaded.to_bytes()).is_ok(), "{at}");
            }
        }
    }
}
