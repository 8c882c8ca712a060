//! `from_bytes` of every filter type on arbitrary bytes. The first byte
//! picks the type; unless its top bit is set the rest is passed through
//! `filter_core::format::reseal` first, so that mutations get past the
//! checksum and reach the structural checks. `from_bytes` must return `Ok`
//! or `Err`, never panic or allocate from an unchecked length; a value it
//! accepts must answer every call, reload from its own `to_bytes`, keep
//! every key inserted into it afterwards, and (for the filters that delete)
//! change nothing when asked to remove a key it reports absent. The atomic
//! Bloom filters must also accept exactly the bytes their plain twins
//! accept, and answer as they do; the xor filters' borrowed views (and the
//! partitioned filters' views), picked by bits 4 to 6 of the first byte,
//! must accept what their owned filters accept and answer alike.
#![no_main]
use filter_core::KeyHasher;
use filters_fuzz::check_remove_absent;
use libfuzzer_sys::fuzz_target;

const PROBES: [u64; 8] = [
    0,
    1,
    u64::MAX,
    1 << 40,
    2 << 40,
    0x8000_0000_0000_0000,
    12345,
    0xdead_beef,
];

macro_rules! bloomlike {
    ($t:ty, $b:expr) => {{
        if let Ok(mut f) = <$t>::from_bytes($b) {
            for &h in &PROBES {
                let _ = f.contains_hash(h);
            }
            let _ = f.contains(&7u64);
            let _ = f.estimated_fpr();
            let _ = f.estimated_len();
            let _ = f.memory_bytes();
            let _ = format!("{:?}", f);
            let bytes = f.to_bytes();
            let g = <$t>::from_bytes(&bytes).expect("to_bytes of accepted value must reload");
            assert!(g == f, "reload not equal");
            let copy = f.clone();
            let _ = f.union(&copy);
            let _ = f.intersect(&copy);
            for &h in &PROBES {
                f.insert_hash(h);
                let _ = f.insert_unique(&h);
            }
            for &h in &PROBES {
                assert!(f.contains_hash(h), "false negative after insert_hash {h}");
            }
            f.insert(&3u32);
            assert!(f.contains(&3u32));
            let _ = f.estimated_fpr();
            let _ = f.estimated_len();
            let bytes = f.to_bytes();
            let g = <$t>::from_bytes(&bytes).expect("to_bytes after inserts must reload");
            for &h in &PROBES {
                assert!(g.contains_hash(h));
            }
            let mut c = copy.clone();
            c.clear();
            let _ = f.union(&c);
            let _ = f.intersect(&c);
            let _ = c.to_bytes();
        }
    }};
}

/// The atomic Bloom filters read the bytes of their plain twins: they must
/// accept exactly what the twin accepts, as the same filter, and then keep
/// what is inserted through `&self`.
macro_rules! atomiclike {
    ($t:ty, $plain:ty, $b:expr) => {{
        let atomic = <$t>::from_bytes($b);
        let plain = <$plain>::from_bytes($b);
        assert_eq!(
            atomic.is_ok(),
            plain.is_ok(),
            "the twins disagree on the bytes"
        );
        if let (Ok(mut f), Ok(plain)) = (atomic, plain) {
            for &h in &PROBES {
                assert_eq!(f.contains_hash(h), plain.contains_hash(h));
            }
            let _ = f.memory_bytes();
            let _ = format!("{:?}", f);
            assert!(f.to_bytes() == plain.to_bytes(), "the twins' bytes differ");
            for &h in &PROBES {
                f.insert_hash(h);
                let _ = f.insert_unique(&h);
            }
            f.insert(&3u32);
            for &h in &PROBES {
                assert!(f.contains_hash(h), "false negative after insert_hash {h}");
            }
            assert!(f.contains(&3u32));
            let g = <$t>::from_bytes(&f.to_bytes()).expect("to_bytes after inserts must reload");
            for &h in &PROBES {
                assert!(g.contains_hash(h));
            }
            f.clear();
            let _ = f.to_bytes();
        }
    }};
}

macro_rules! countinglike {
    ($t:ty, $b:expr) => {{
        if let Ok(mut f) = <$t>::from_bytes($b) {
            for &h in &PROBES {
                let _ = f.contains_hash(h);
                let _ = f.count_hash(h);
            }
            let _ = f.estimated_fpr();
            let _ = f.estimated_len();
            let _ = f.saturated_counters();
            let _ = f.expected_fpr(10);
            let _ = f.memory_bytes();
            let _ = format!("{:?}", f);
            let bytes = f.to_bytes();
            let g = <$t>::from_bytes(&bytes).expect("to_bytes of accepted value must reload");
            assert!(g == f, "reload not equal");
            let copy = f.clone();
            let _ = f.merge(&copy);
            for &h in &PROBES {
                if f.contains_hash(h) {
                    let _ = f.remove_hash(h);
                } else {
                    check_remove_absent(&mut f, |f| f.remove_hash(h));
                }
            }
            for &h in &PROBES {
                f.insert_hash(h);
                let _ = f.insert_unique_hash(h);
            }
            for &h in &PROBES {
                assert!(f.contains_hash(h), "false negative after insert_hash {h}");
            }
            let _ = f.estimated_fpr();
            let _ = f.estimated_len();
            let bytes = f.to_bytes();
            let g = <$t>::from_bytes(&bytes).expect("to_bytes after inserts must reload");
            for &h in &PROBES {
                assert!(g.contains_hash(h));
            }
            let mut c = copy.clone();
            c.clear();
            let _ = f.merge(&c);
        }
    }};
}

macro_rules! xorlike {
    ($t:ty, $b:expr) => {{
        if let Ok(f) = <$t>::from_bytes($b) {
            for &h in &PROBES {
                let _ = f.contains_hash(h);
            }
            let _ = f.contains(&1u8);
            let _ = f.len();
            let _ = f.is_empty();
            let _ = f.memory_bytes();
            let _ = f.slots();
            let _ = f.bits_per_key();
            let _ = f.fingerprint_bits();
            let _ = format!("{:?}", f);
            let bytes = f.to_bytes();
            let g = <$t>::from_bytes(&bytes).expect("to_bytes of accepted value must reload");
            assert!(g == f);
        }
    }};
}

/// The dynamic types added with format 1.0: an accepted value answers,
/// reloads from its own bytes, keeps what is inserted afterwards, and (where
/// it removes) changes nothing on the remove of a key it reports absent.
macro_rules! growing {
    ($t:ty, $b:expr, removes: $removes:tt) => {{
        if let Ok(mut f) = <$t>::from_bytes($b) {
            for &h in &PROBES {
                let _ = f.contains_hash(h);
            }
            let _ = f.len();
            let _ = f.memory_bytes();
            let _ = format!("{:?}", f);
            let g = <$t>::from_bytes(&f.to_bytes()).expect("to_bytes of accepted value must reload");
            assert!(g.to_bytes() == f.to_bytes(), "reload writes other bytes");
            let mut ok = Vec::new();
            for &h in &PROBES {
                if f.insert_hash(h).is_ok() {
                    ok.push(h);
                }
            }
            for &h in &ok {
                assert!(f.contains_hash(h), "false negative after insert_hash {h}");
            }
            let g = <$t>::from_bytes(&f.to_bytes()).expect("to_bytes after inserts must reload");
            for &h in &ok {
                assert!(g.contains_hash(h));
            }
            growing!(@remove $removes, f, ok);
        }
    }};
    (@remove true, $f:ident, $ok:ident) => {{
        for &h in &PROBES {
            if !$f.contains_hash(h) {
                let before = $f.to_bytes();
                assert!(!$f.remove_hash(h), "remove of an absent hash returned true");
                assert!($f.to_bytes() == before, "remove of an absent hash changed the filter");
            }
        }
        for &h in &$ok {
            assert!($f.remove_hash(h), "remove of inserted failed");
        }
    }};
    (@remove false, $f:ident, $ok:ident) => {{}};
}

fn quotient(b: &[u8]) {
    if let Ok(mut f) = quotient_filter::QuotientFilter::from_bytes(b) {
        for &h in &PROBES {
            let _ = f.count_hash(h);
        }
        let _ = (
            f.load_factor(),
            f.used_slots(),
            f.quotients(),
            f.remainder_bits(),
        );
        let copy = f.clone();
        let _ = f.merge(&copy);
        if f.can_grow() {
            let before: Vec<u64> = PROBES.iter().map(|&h| f.count_hash(h)).collect();
            if f.grow().is_ok() {
                for (&h, &c) in PROBES.iter().zip(&before) {
                    assert!(f.count_hash(h) >= c, "grow lost a count");
                }
            }
        }
        let bytes = f.to_bytes();
        growing!(quotient_filter::QuotientFilter, &bytes, removes: true);
    }
}

/// A view must accept exactly the bytes its owned filter accepts (past
/// `verify_checksum`) and answer as it does.
macro_rules! view {
    ($view:ty, $owned:ty, $b:expr) => {{
        let owned = <$owned>::from_bytes($b);
        if let Ok(v) = <$view>::from_bytes($b) {
            if v.verify_checksum().is_ok() {
                let owned = owned.expect("a checked view's bytes must load as the filter");
                for &h in &PROBES {
                    assert_eq!(v.contains_hash(h), owned.contains_hash(h));
                }
                let _ = (v.len(), v.memory_bytes(), v.bits_per_key());
            } else {
                for &h in &PROBES {
                    let _ = v.contains_hash(h);
                }
            }
        } else {
            assert!(owned.is_err(), "the view refuses bytes its filter loads");
        }
    }};
}

fn ribbon(b: &[u8]) {
    if let Ok(f) = xor_filter::Ribbon::from_bytes(b) {
        for &h in &PROBES {
            let _ = f.contains_hash(h);
        }
        let _ = (f.len(), f.is_empty(), f.memory_bytes(), f.slots());
        let _ = (f.bits_per_key(), f.fpr(), format!("{f:?}"));
        let g = xor_filter::Ribbon::from_bytes(&f.to_bytes())
            .expect("to_bytes of accepted value must reload");
        assert!(g == f);
    }
}

fn cuckoo(b: &[u8]) {
    if let Ok(mut f) = cuckoo::CuckooFilter::from_bytes(b) {
        for &h in &PROBES {
            let _ = f.contains_hash(h);
        }
        let _ = f.len();
        let _ = f.is_empty();
        let _ = f.is_full();
        let _ = f.estimated_fpr();
        let _ = f.slots();
        let _ = f.memory_bytes();
        let _ = format!("{:?}", f);
        let bytes = f.to_bytes();
        let g = cuckoo::CuckooFilter::from_bytes(&bytes)
            .expect("to_bytes of accepted value must reload");
        assert!(g == f);
        for &h in &PROBES {
            if f.contains_hash(h) {
                let _ = f.remove_hash(h);
            } else {
                check_remove_absent(&mut f, |f| f.remove_hash(h));
            }
        }
        let mut ok = Vec::new();
        for &h in &PROBES {
            if f.insert_hash(h).is_ok() {
                ok.push(h);
            }
            let _ = f.insert_unique_hash(h);
        }
        for &h in &ok {
            assert!(f.contains_hash(h), "false negative after insert_hash {h}");
        }
        let _ = f.len();
        let _ = f.estimated_fpr();
        let bytes = f.to_bytes();
        let g =
            cuckoo::CuckooFilter::from_bytes(&bytes).expect("to_bytes after inserts must reload");
        for &h in &ok {
            assert!(g.contains_hash(h));
        }
        for &h in &ok {
            assert!(f.remove_hash(h), "remove of inserted failed");
        }
        let _ = f.len();
        let _ = f.hasher().hash_key(&1u8);
        f.clear();
        let _ = f.to_bytes();
    }
}

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    let sel = data[0];
    let mut bytes = data[1..].to_vec();
    if sel & 0x80 == 0 {
        filter_core::format::reseal(&mut bytes);
    }
    let b = &bytes[..];
    match sel & 0x0f {
        0 => bloomlike!(bloom::BloomFilter, b),
        1 => bloomlike!(bloom::BlockedBloomFilter, b),
        2 => countinglike!(counting_bloom::CountingBloomFilter, b),
        3 => countinglike!(counting_bloom::BlockedCountingBloomFilter, b),
        4 => cuckoo(b),
        5 => xorlike!(xor_filter::Xor8, b),
        6 => xorlike!(xor_filter::Xor16, b),
        7 => xorlike!(xor_filter::BinaryFuse8, b),
        8 => xorlike!(xor_filter::BinaryFuse16, b),
        9 => atomiclike!(bloom::AtomicBloomFilter, bloom::BloomFilter, b),
        10 => atomiclike!(
            bloom::AtomicBlockedBloomFilter,
            bloom::BlockedBloomFilter,
            b
        ),
        11 => growing!(bloom::ScalableBloomFilter, b, removes: false),
        12 => growing!(cuckoo::ScalableCuckooFilter, b, removes: true),
        13 => growing!(counting_bloom::DLeftCountingBloomFilter, b, removes: true),
        14 => quotient(b),
        15 => ribbon(b),
        _ => {}
    }
    // The views and partitioned filters read the same bytes under the
    // selector's high nibble.
    match sel >> 4 & 7 {
        1 => view!(xor_filter::Xor8Ref, xor_filter::Xor8, b),
        2 => view!(xor_filter::Xor16Ref, xor_filter::Xor16, b),
        3 => view!(xor_filter::BinaryFuse8Ref, xor_filter::BinaryFuse8, b),
        4 => view!(xor_filter::BinaryFuse16Ref, xor_filter::BinaryFuse16, b),
        5 => view!(
            xor_filter::PartitionedBinaryFuse8Ref,
            xor_filter::PartitionedBinaryFuse8,
            b
        ),
        6 => view!(
            xor_filter::PartitionedBinaryFuse16Ref,
            xor_filter::PartitionedBinaryFuse16,
            b
        ),
        7 => view!(xor_filter::RibbonRef, xor_filter::Ribbon, b),
        _ => {}
    }
});
