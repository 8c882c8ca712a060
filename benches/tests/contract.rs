//! The public surface of `shared/DESIGN.md`, written as the design writes it:
//! no type annotations, every filter, every promised name. If a rename or a
//! signature change breaks code written against the contract, this file stops
//! compiling.
//!
//! `BlockedCountingBloomFilter`, the atomic Bloom filters, the xor filters'
//! borrowed views and the partitioned binary fuse filters are held to the
//! surface of their closest named type, so users can swap one for the other
//! without touching their code.
//!
//! It lives in `benches` because that is the one member (with `xtask`) that
//! sees every filter crate.

use bloom::{BlockedBloomFilter, BloomFilter, ScalableBloomFilter};
use counting_bloom::{BlockedCountingBloomFilter, CountingBloomFilter, DLeftCountingBloomFilter};
use cuckoo::{
    BatchContains, BatchInsert, BatchRemove, CuckooFilter, Error, Filter, Insert, Remove,
    ScalableCuckooFilter,
};
use filter_core::testing::BAD_RATES;
use quotient_filter::QuotientFilter;
use xor_filter::{BinaryFuse8, BinaryFuse16, Ribbon, Xor8, Xor16};

/// Generic code over any dynamic filter with `str` keys.
fn insert_and_find<F: Insert<str>>(filter: &mut F) -> Result<(), Error> {
    filter.insert("https://example.com/")?;
    assert!(filter.contains("https://example.com/"));
    assert!(filter.memory_bytes() > 0);
    Ok(())
}

/// Generic code over any filter, static ones included.
fn holds_all<F: Filter<u64>>(filter: &F, keys: &[u64]) -> bool {
    keys.iter().all(|k| filter.contains(k))
}

/// Generic code over any filter with removal.
fn insert_and_remove<F: Remove<u64>>(filter: &mut F) -> Result<(), Error> {
    filter.insert(&7)?;
    assert!(filter.remove(&7));
    Ok(())
}

const URL: &str = "https://example.com/";

#[test]
fn dynamic_filters_meet_the_contract() -> Result<(), Error> {
    let mut classic = BloomFilter::with_fpr(1000, 0.01)?;
    let mut blocked = BlockedBloomFilter::with_fpr(1000, 0.01)?;
    let mut scalable_bloom = ScalableBloomFilter::with_fpr(100, 0.01)?;
    let mut counting = CountingBloomFilter::with_fpr(1000, 0.01)?;
    let mut blocked_counting = BlockedCountingBloomFilter::with_fpr(1000, 0.01)?;
    let mut dleft = DLeftCountingBloomFilter::with_fpr(1000, 0.01)?;
    let mut cuckoo = CuckooFilter::with_fpr(1000, 0.01)?;
    let mut scalable_cuckoo = ScalableCuckooFilter::with_fpr(100, 0.01)?;
    let mut quotient = QuotientFilter::with_fpr(1000, 0.01)?;
    insert_and_find(&mut classic)?;
    insert_and_find(&mut blocked)?;
    insert_and_find(&mut scalable_bloom)?;
    insert_and_find(&mut counting)?;
    insert_and_find(&mut blocked_counting)?;
    insert_and_find(&mut dleft)?;
    insert_and_find(&mut cuckoo)?;
    insert_and_find(&mut scalable_cuckoo)?;
    insert_and_find(&mut quotient)?;
    insert_and_remove(&mut counting)?;
    insert_and_remove(&mut blocked_counting)?;
    insert_and_remove(&mut dleft)?;
    insert_and_remove(&mut cuckoo)?;
    insert_and_remove(&mut scalable_cuckoo)?;
    insert_and_remove(&mut quotient)?;

    let classic_copy = BloomFilter::from_bytes(&classic.to_bytes())?;
    let blocked_copy = BlockedBloomFilter::from_bytes(&blocked.to_bytes())?;
    let scalable_bloom_copy = ScalableBloomFilter::from_bytes(&scalable_bloom.to_bytes())?;
    let counting_copy = CountingBloomFilter::from_bytes(&counting.to_bytes())?;
    let blocked_counting_copy =
        BlockedCountingBloomFilter::from_bytes(&blocked_counting.to_bytes())?;
    let dleft_copy = DLeftCountingBloomFilter::from_bytes(&dleft.to_bytes())?;
    let cuckoo_copy = CuckooFilter::from_bytes(&cuckoo.to_bytes())?;
    let scalable_cuckoo_copy = ScalableCuckooFilter::from_bytes(&scalable_cuckoo.to_bytes())?;
    let quotient_copy = QuotientFilter::from_bytes(&quotient.to_bytes())?;
    assert!(classic_copy.contains(URL) && blocked_copy.contains(URL));
    assert!(scalable_bloom_copy.contains(URL) && counting_copy.contains(URL));
    assert!(blocked_counting_copy.contains(URL) && dleft_copy.contains(URL));
    assert!(cuckoo_copy.contains(URL) && scalable_cuckoo_copy.contains(URL));
    assert!(quotient_copy.contains(URL));
    // A filter read back from its bytes equals the original (where the
    // type has `==`) and writes the same bytes.
    assert_eq!(classic, classic_copy);
    assert_eq!(blocked, blocked_copy);
    assert_eq!(counting, counting_copy);
    assert_eq!(blocked_counting, blocked_counting_copy);
    assert_eq!(dleft, dleft_copy);
    assert_eq!(cuckoo, cuckoo_copy);
    assert_eq!(scalable_cuckoo, scalable_cuckoo_copy);
    assert!(scalable_bloom.to_bytes() == scalable_bloom_copy.to_bytes());
    assert!(quotient.to_bytes() == quotient_copy.to_bytes());

    // The scalable filters count their items.
    assert_eq!(scalable_bloom.len(), 1);
    assert_eq!(scalable_cuckoo.len(), 1);
    assert!(scalable_cuckoo.remove(URL));
    assert_eq!(scalable_cuckoo.len(), 0);

    classic.union(&classic_copy)?;
    blocked.union(&blocked_copy)?;
    let smaller = BloomFilter::with_fpr(10, 0.01)?;
    assert!(matches!(
        classic.union(&smaller),
        Err(Error::Incompatible { .. })
    ));
    let smaller = BlockedBloomFilter::with_fpr(10, 0.01)?;
    assert!(matches!(
        blocked.union(&smaller),
        Err(Error::Incompatible { .. })
    ));
    Ok(())
}

/// `count` and `merge` on the three counting Bloom filters: a multiset sum,
/// with counts never below the truth.
#[test]
fn counting_filters_count_and_merge() -> Result<(), Error> {
    macro_rules! check {
        ($ty:ident) => {{
            let mut a = $ty::with_fpr(1000, 0.01)?;
            let mut b = $ty::with_fpr(1000, 0.01)?;
            Insert::insert(&mut a, URL)?;
            Insert::insert(&mut a, URL)?;
            Insert::insert(&mut b, URL)?;
            Insert::insert(&mut b, "https://example.org/")?;
            assert!(a.count(URL) >= 2);
            a.merge(&b)?;
            let count: u32 = a.count(URL);
            assert!(count >= 3, "{}: {count}", stringify!($ty));
            assert!(a.count("https://example.org/") >= 1);
            let other = $ty::with_fpr(10, 0.01)?;
            assert!(a.merge(&other).is_err(), "{}", stringify!($ty));
        }};
    }
    check!(CountingBloomFilter);
    check!(BlockedCountingBloomFilter);
    check!(DLeftCountingBloomFilter);
    Ok(())
}

/// The quotient filter counts, merges and grows, keeping every key.
#[test]
fn quotient_filter_counts_merges_and_grows() -> Result<(), Error> {
    let mut a = QuotientFilter::with_fpr(1000, 0.01)?;
    let mut b = QuotientFilter::with_fpr(1000, 0.01)?;
    for i in 0..400u64 {
        a.insert(&i)?;
        b.insert(&(i + 200))?;
    }
    a.insert(&7u64)?;
    let count: u64 = a.count(&7u64);
    assert!(count >= 2);
    a.merge(&b)?;
    assert!(a.count(&300u64) >= 2);
    assert!(a.count(&7u64) >= 2);
    assert!(holds_all(&a, &(0..600).collect::<Vec<u64>>()));
    let memory = a.memory_bytes();
    a.grow()?;
    assert!(a.memory_bytes() > memory);
    assert!(holds_all(&a, &(0..600).collect::<Vec<u64>>()));
    assert!(a.count(&7u64) >= 2);
    Ok(())
}

/// "Re-exported by every filter crate": each crate's own paths name
/// filter-core's traits and error, so a user who depends on one crate can
/// write generic code against it alone.
#[test]
fn every_filter_crate_re_exports_the_traits_and_error() -> Result<(), Error> {
    macro_rules! through {
        ($krate:ident) => {{
            fn round_trip<F: $krate::Remove<u64>>(filter: &mut F) -> Result<bool, $krate::Error> {
                filter.insert(&11)?;
                Ok(<F as $krate::Filter<u64>>::contains(filter, &11) && filter.remove(&11))
            }
            fn insert_only<F: $krate::Insert<u64>>(filter: &mut F) -> Result<(), $krate::Error> {
                filter.insert(&12)
            }
            fn batches<F: $krate::BatchContains>(filter: &F) -> usize {
                filter
                    .contains_batch([12u64, 13])
                    .filter(|&hit| hit)
                    .count()
            }
            let mut cuckoo = CuckooFilter::with_fpr(100, 0.01)?;
            assert!(round_trip(&mut cuckoo)?);
            insert_only(&mut cuckoo)?;
            assert!(cuckoo.contains(&12u64));
            assert!(batches(&cuckoo) >= 1);
            let _hasher = $krate::PortableHasher::default();
            fn key_hasher<H: $krate::KeyHasher>(_: &H) {}
            key_hasher(&_hasher);
        }};
    }
    through!(bloom);
    through!(counting_bloom);
    through!(cuckoo);
    through!(quotient_filter);
    through!(xor_filter);
    // Each crate also names the batch traits its types implement.
    macro_rules! names {
        ($krate:ident::$trait:ident, $filter:expr) => {{
            fn takes<F: $krate::$trait>(_: &F) {}
            takes(&$filter);
        }};
    }
    names!(bloom::BatchInsert, BloomFilter::with_fpr(10, 0.01)?);
    names!(
        counting_bloom::BatchRemove,
        CountingBloomFilter::with_fpr(10, 0.01)?
    );
    names!(cuckoo::BatchRemove, CuckooFilter::with_fpr(10, 0.01)?);
    names!(
        quotient_filter::BatchRemove,
        QuotientFilter::with_fpr(10, 0.01)?
    );
    Ok(())
}

/// Batches go through filter-core's traits: by key and by raw hash, owned
/// items as well as borrowed ones, with the answers of one-by-one calls.
#[test]
fn batches_through_the_traits() -> Result<(), Error> {
    let words: Vec<String> = ["alpha", "beta"].map(String::from).to_vec();
    macro_rules! inserts {
        ($filter:expr) => {{
            let mut filter = $filter;
            filter.insert_batch(0..100u64)?;
            filter.insert_batch(words.clone())?;
            filter.insert_batch(&words)?;
            filter.insert_hash_batch([1u64, 2, 3])?;
            assert!((0..100u64).all(|i| filter.contains(&i)));
            assert!(filter.contains("alpha") && filter.contains("beta"));
            assert!(filter.contains_batch(0..100u64).all(|found| found));
            assert!(filter.contains_batch(words.clone()).all(|found| found));
            assert!(filter.contains_hash_batch([1u64, 2, 3]).all(|found| found));
            let single: Vec<bool> = (0..50u64).map(|i| filter.contains_hash(i << 20)).collect();
            let batched: Vec<bool> = filter
                .contains_hash_batch((0..50u64).map(|i| i << 20))
                .collect();
            assert_eq!(single, batched);
            filter
        }};
    }
    inserts!(BloomFilter::with_fpr(1000, 0.01)?);
    inserts!(BlockedBloomFilter::with_fpr(1000, 0.01)?);
    let mut counting = inserts!(CountingBloomFilter::with_fpr(1000, 0.01)?);
    let mut blocked_counting = inserts!(BlockedCountingBloomFilter::with_fpr(1000, 0.01)?);
    let mut dleft = inserts!(DLeftCountingBloomFilter::with_fpr(1000, 0.01)?);
    let mut cuckoo = inserts!(CuckooFilter::with_fpr(1000, 0.01)?);
    let mut quotient = inserts!(QuotientFilter::with_fpr(1000, 0.01)?);
    // One copy of each item removed, in bulk and owned.
    assert_eq!(counting.remove_batch(0..100u64), 100);
    assert_eq!(blocked_counting.remove_batch(words.clone()), 2);
    assert_eq!(dleft.remove_batch(0..100u64), 100);
    assert_eq!(cuckoo.remove_batch(0..100u64), 100);
    assert_eq!(quotient.remove_hash_batch([1u64, 2, 3]), 3);
    assert!(cuckoo.contains("alpha"));

    // Lookups only, for the filters that take no batched inserts.
    let mut scalable_bloom = ScalableBloomFilter::with_fpr(10, 0.01)?;
    let mut scalable_cuckoo = ScalableCuckooFilter::with_fpr(10, 0.01)?;
    for i in 0..100u64 {
        scalable_bloom.insert(&i)?;
        scalable_cuckoo.insert(&i)?;
    }
    assert!(scalable_bloom.contains_batch(0..100u64).all(|found| found));
    assert!(scalable_cuckoo.contains_batch(0..100u64).all(|found| found));
    let keys: Vec<u64> = (0..100).collect();
    assert!(
        Xor8::from_keys(&keys)?
            .contains_batch(0..100u64)
            .all(|found| found)
    );
    assert!(
        Xor16::from_keys(&keys)?
            .contains_batch(&keys)
            .all(|found| found)
    );
    assert!(
        BinaryFuse8::from_keys(&keys)?
            .contains_batch(&keys)
            .all(|found| found)
    );
    assert!(
        BinaryFuse16::from_keys(&keys)?
            .contains_batch(keys.clone())
            .all(|found| found)
    );
    assert!(
        Ribbon::from_keys_with_fpr(&keys, 0.01)?
            .contains_batch(&keys)
            .all(|found| found)
    );
    Ok(())
}

#[test]
fn static_filters_meet_the_contract() -> Result<(), Error> {
    let numbers: Vec<u64> = (0..1000).collect();
    let words = ["alpha", "beta", "gamma"];
    let strings: Vec<String> = words.iter().map(|&w| String::from(w)).collect();

    let xor8 = Xor8::from_keys(&numbers)?;
    let xor16 = Xor16::from_keys(&words)?;
    let fuse8 = BinaryFuse8::from_keys(&strings)?;
    let fuse16 = BinaryFuse16::from_keys(&numbers)?;
    let ribbon = Ribbon::from_keys_with_fpr(&numbers, 0.001)?;
    assert!(holds_all(&xor8, &numbers) && holds_all(&fuse16, &numbers));
    assert!(holds_all(&ribbon, &numbers));
    assert!(xor16.contains("beta") && fuse8.contains("gamma"));

    assert!(Xor8::from_bytes(&xor8.to_bytes())?.contains(&999u64));
    assert!(Xor16::from_bytes(&xor16.to_bytes())?.contains("alpha"));
    assert!(BinaryFuse8::from_bytes(&fuse8.to_bytes())?.contains("alpha"));
    assert!(BinaryFuse16::from_bytes(&fuse16.to_bytes())?.contains(&0u64));
    assert_eq!(Ribbon::from_bytes(&ribbon.to_bytes())?, ribbon);
    assert!(xor8.memory_bytes() > 0 && ribbon.memory_bytes() > 0);

    // Borrowed views answer as the filters they were written by.
    let (xor8_bytes, fuse16_bytes) = (xor8.to_bytes(), fuse16.to_bytes());
    let xor16_bytes = xor16.to_bytes();
    let fuse8_bytes = fuse8.to_bytes();
    let xor8_view = xor_filter::Xor8Ref::from_bytes(&xor8_bytes)?;
    let xor16_view = xor_filter::Xor16Ref::from_bytes(&xor16_bytes)?;
    let fuse8_view = xor_filter::BinaryFuse8Ref::from_bytes(&fuse8_bytes)?;
    let fuse16_view = xor_filter::BinaryFuse16Ref::from_bytes(&fuse16_bytes)?;
    assert!(holds_all(&xor8_view, &numbers) && holds_all(&fuse16_view, &numbers));
    assert!(xor16_view.contains("gamma") && fuse8_view.contains("beta"));

    // Partitioned builds: the same promises, one partition at a time.
    let partitioned = xor_filter::PartitionedBinaryFuse8::from_keys(&numbers, 4)?;
    assert!(holds_all(&partitioned, &numbers));
    let bytes = partitioned.to_bytes();
    assert!(holds_all(
        &xor_filter::PartitionedBinaryFuse8::from_bytes(&bytes)?,
        &numbers
    ));
    assert!(holds_all(
        &xor_filter::PartitionedBinaryFuse8Ref::from_bytes(&bytes)?,
        &numbers
    ));

    // A static filter of zero keys answers `false` for every key.
    let none: [u64; 0] = [];
    let empty = [
        Xor8::from_keys(&none)?.contains(&1u64),
        Xor16::from_keys(&none)?.contains(&1u64),
        BinaryFuse8::from_keys(&none)?.contains(&1u64),
        BinaryFuse16::from_keys(&none)?.contains(&1u64),
        Ribbon::from_keys_with_fpr(&none, 0.01)?.contains(&1u64),
    ];
    assert_eq!(empty, [false; 5]);
    Ok(())
}

#[test]
fn every_sized_constructor_rejects_bad_rates_and_sizes() {
    let keys = [1u64, 2, 3];
    for fpr in BAD_RATES {
        assert!(BloomFilter::with_fpr(10, fpr).is_err(), "{fpr}");
        assert!(BlockedBloomFilter::with_fpr(10, fpr).is_err(), "{fpr}");
        assert!(ScalableBloomFilter::with_fpr(10, fpr).is_err(), "{fpr}");
        assert!(CountingBloomFilter::with_fpr(10, fpr).is_err(), "{fpr}");
        assert!(
            BlockedCountingBloomFilter::with_fpr(10, fpr).is_err(),
            "{fpr}"
        );
        assert!(
            DLeftCountingBloomFilter::with_fpr(10, fpr).is_err(),
            "{fpr}"
        );
        assert!(CuckooFilter::with_fpr(10, fpr).is_err(), "{fpr}");
        assert!(ScalableCuckooFilter::with_fpr(10, fpr).is_err(), "{fpr}");
        assert!(QuotientFilter::with_fpr(10, fpr).is_err(), "{fpr}");
        assert!(Ribbon::from_keys_with_fpr(&keys, fpr).is_err(), "{fpr}");
    }
    for items in [usize::MAX, usize::MAX / 2, 1 << 50] {
        assert!(BloomFilter::with_fpr(items, 0.01).is_err(), "{items}");
        assert!(
            BlockedBloomFilter::with_fpr(items, 0.01).is_err(),
            "{items}"
        );
        assert!(
            ScalableBloomFilter::with_fpr(items, 0.01).is_err(),
            "{items}"
        );
        assert!(
            CountingBloomFilter::with_fpr(items, 0.01).is_err(),
            "{items}"
        );
        assert!(
            BlockedCountingBloomFilter::with_fpr(items, 0.01).is_err(),
            "{items}"
        );
        assert!(
            DLeftCountingBloomFilter::with_fpr(items, 0.01).is_err(),
            "{items}"
        );
        assert!(CuckooFilter::with_fpr(items, 0.01).is_err(), "{items}");
        assert!(
            ScalableCuckooFilter::with_fpr(items, 0.01).is_err(),
            "{items}"
        );
        assert!(QuotientFilter::with_fpr(items, 0.01).is_err(), "{items}");
    }
    let err = BloomFilter::with_fpr(10, 1.5).map(|_| ()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "fpr must be in the open interval (0, 1), got 1.5"
    );
}

/// The error for the ninth copy of one key in a cuckoo filter names the
/// limit, not a full filter.
#[test]
fn too_many_copies_is_its_own_error() -> Result<(), Error> {
    let mut filter = CuckooFilter::with_fpr(1000, 0.01)?;
    let mut result = Ok(());
    for _ in 0..=cuckoo::MAX_COPIES {
        result = filter.insert(URL);
        if result.is_err() {
            break;
        }
    }
    assert!(
        matches!(result, Err(Error::TooManyCopies { limit }) if limit == cuckoo::MAX_COPIES),
        "{result:?}"
    );
    Ok(())
}

/// The bytes of one filter of every kind, with the kind's name as
/// `Error::WrongKind` gives it.
fn bytes_of_every_kind() -> Result<Vec<(&'static str, Vec<u8>)>, Error> {
    let keys: Vec<u64> = (0..100).collect();
    Ok(vec![
        ("BloomFilter", BloomFilter::with_fpr(100, 0.01)?.to_bytes()),
        (
            "BlockedBloomFilter",
            BlockedBloomFilter::with_fpr(100, 0.01)?.to_bytes(),
        ),
        (
            "ScalableBloomFilter",
            ScalableBloomFilter::with_fpr(100, 0.01)?.to_bytes(),
        ),
        (
            "CountingBloomFilter",
            CountingBloomFilter::with_fpr(100, 0.01)?.to_bytes(),
        ),
        (
            "BlockedCountingBloomFilter",
            BlockedCountingBloomFilter::with_fpr(100, 0.01)?.to_bytes(),
        ),
        (
            "DLeftCountingBloomFilter",
            DLeftCountingBloomFilter::with_fpr(100, 0.01)?.to_bytes(),
        ),
        (
            "CuckooFilter",
            CuckooFilter::with_fpr(100, 0.01)?.to_bytes(),
        ),
        (
            "ScalableCuckooFilter",
            ScalableCuckooFilter::with_fpr(100, 0.01)?.to_bytes(),
        ),
        (
            "QuotientFilter",
            QuotientFilter::with_fpr(100, 0.01)?.to_bytes(),
        ),
        ("Xor8", Xor8::from_keys(&keys)?.to_bytes()),
        ("Xor16", Xor16::from_keys(&keys)?.to_bytes()),
        ("BinaryFuse8", BinaryFuse8::from_keys(&keys)?.to_bytes()),
        ("BinaryFuse16", BinaryFuse16::from_keys(&keys)?.to_bytes()),
        (
            "Ribbon",
            Ribbon::from_keys_with_fpr(&keys, 0.01)?.to_bytes(),
        ),
    ])
}

/// Loads `bytes` as the type whose kind is named `kind` (`Ok` or the error).
type Loader = fn(&[u8]) -> Result<(), Error>;

fn loaders() -> Vec<(&'static str, Loader)> {
    vec![
        ("BloomFilter", |b| BloomFilter::from_bytes(b).map(drop)),
        ("BloomFilter", |b| {
            bloom::AtomicBloomFilter::from_bytes(b).map(drop)
        }),
        ("BlockedBloomFilter", |b| {
            BlockedBloomFilter::from_bytes(b).map(drop)
        }),
        ("BlockedBloomFilter", |b| {
            bloom::AtomicBlockedBloomFilter::from_bytes(b).map(drop)
        }),
        ("ScalableBloomFilter", |b| {
            ScalableBloomFilter::from_bytes(b).map(drop)
        }),
        ("CountingBloomFilter", |b| {
            CountingBloomFilter::from_bytes(b).map(drop)
        }),
        ("BlockedCountingBloomFilter", |b| {
            BlockedCountingBloomFilter::from_bytes(b).map(drop)
        }),
        ("DLeftCountingBloomFilter", |b| {
            DLeftCountingBloomFilter::from_bytes(b).map(drop)
        }),
        ("CuckooFilter", |b| CuckooFilter::from_bytes(b).map(drop)),
        ("ScalableCuckooFilter", |b| {
            ScalableCuckooFilter::from_bytes(b).map(drop)
        }),
        ("QuotientFilter", |b| {
            QuotientFilter::from_bytes(b).map(drop)
        }),
        ("Xor8", |b| Xor8::from_bytes(b).map(drop)),
        ("Xor8", |b| xor_filter::Xor8Ref::from_bytes(b).map(drop)),
        ("Xor16", |b| Xor16::from_bytes(b).map(drop)),
        ("Xor16", |b| xor_filter::Xor16Ref::from_bytes(b).map(drop)),
        ("BinaryFuse8", |b| BinaryFuse8::from_bytes(b).map(drop)),
        ("BinaryFuse8", |b| {
            xor_filter::BinaryFuse8Ref::from_bytes(b).map(drop)
        }),
        ("BinaryFuse16", |b| BinaryFuse16::from_bytes(b).map(drop)),
        ("BinaryFuse16", |b| {
            xor_filter::BinaryFuse16Ref::from_bytes(b).map(drop)
        }),
        ("Ribbon", |b| Ribbon::from_bytes(b).map(drop)),
    ]
}

/// Valid bytes of another filter kind are `WrongKind` naming both kinds,
/// for every pair of kinds (views and atomic twins included); a kind's own
/// bytes load.
#[test]
fn every_filter_refuses_another_kinds_bytes() -> Result<(), Error> {
    let kinds = bytes_of_every_kind()?;
    for (expected, load) in loaders() {
        for (found, bytes) in &kinds {
            match load(bytes) {
                Ok(()) => assert_eq!(expected, *found, "{expected} loaded {found}'s bytes"),
                Err(Error::WrongKind {
                    expected: e,
                    found: f,
                }) => {
                    assert_ne!(expected, *found, "{expected} refused its own bytes");
                    assert_eq!((e, f), (expected, *found));
                }
                Err(other) => panic!("{expected} given {found}'s bytes: {other:?}"),
            }
        }
    }
    Ok(())
}

/// `serde` (feature of every filter crate) writes the checked bytes and
/// reads them through `from_bytes`: one type per crate, through JSON.
#[test]
fn serde_round_trips_one_type_per_crate() -> Result<(), Box<dyn std::error::Error>> {
    let keys: Vec<u64> = (0..100).collect();
    let mut bloom = BloomFilter::with_fpr(100, 0.01)?;
    bloom.insert(URL);
    let json = serde_json::to_string(&bloom)?;
    let back: BloomFilter = serde_json::from_str(&json)?;
    assert_eq!(back, bloom);

    let mut counting = DLeftCountingBloomFilter::with_fpr(100, 0.01)?;
    Insert::insert(&mut counting, URL)?;
    let back: DLeftCountingBloomFilter = serde_json::from_str(&serde_json::to_string(&counting)?)?;
    assert_eq!(back, counting);

    let mut cuckoo = ScalableCuckooFilter::with_fpr(100, 0.01)?;
    cuckoo.insert(URL)?;
    let back: ScalableCuckooFilter = serde_json::from_str(&serde_json::to_string(&cuckoo)?)?;
    assert_eq!(back, cuckoo);

    let mut quotient = QuotientFilter::with_fpr(100, 0.01)?;
    quotient.insert(URL)?;
    let back: QuotientFilter = serde_json::from_str(&serde_json::to_string(&quotient)?)?;
    assert!(back.contains(URL) && back.to_bytes() == quotient.to_bytes());

    let fuse = BinaryFuse8::from_keys(&keys)?;
    let back: BinaryFuse8 = serde_json::from_str(&serde_json::to_string(&fuse)?)?;
    assert!(holds_all(&back, &keys));

    // A serde load is validated exactly as `from_bytes`: another kind's
    // bytes are refused.
    let wrong = serde_json::to_string(&bloom)?;
    assert!(serde_json::from_str::<CuckooFilter>(&wrong).is_err());
    Ok(())
}

/// Compile-time: every filter is `Send + Sync` (shared behind an `Arc`,
/// moved into a thread), `Clone` and `Debug`, as a user expects of a
/// collection; the ones with `==` are equal exactly when their bytes are.
#[test]
fn every_filter_is_send_sync_clone_and_debug() {
    fn expected<T: Send + Sync + Clone + std::fmt::Debug>() {}
    fn eq<T: Eq>() {}
    expected::<BloomFilter>();
    expected::<BlockedBloomFilter>();
    expected::<ScalableBloomFilter>();
    expected::<CountingBloomFilter>();
    expected::<BlockedCountingBloomFilter>();
    expected::<DLeftCountingBloomFilter>();
    expected::<CuckooFilter>();
    expected::<ScalableCuckooFilter>();
    expected::<QuotientFilter>();
    expected::<Xor8>();
    expected::<Xor16>();
    expected::<BinaryFuse8>();
    expected::<BinaryFuse16>();
    expected::<Ribbon>();
    eq::<BloomFilter>();
    eq::<BlockedBloomFilter>();
    eq::<CountingBloomFilter>();
    eq::<BlockedCountingBloomFilter>();
    eq::<DLeftCountingBloomFilter>();
    eq::<CuckooFilter>();
    eq::<ScalableCuckooFilter>();
    eq::<Xor8>();
    eq::<BinaryFuse16>();
    eq::<Ribbon>();
}

/// `{:?}` of a filter shows its shape, not its table: a megabyte filter in
/// a log line must not print megabytes, and equal filters print alike.
#[test]
fn debug_of_a_large_filter_is_short() -> Result<(), Error> {
    let keys: Vec<u64> = (0..1_000_000).collect();
    let texts = [
        format!("{:?}", BloomFilter::with_fpr(1_000_000, 0.01)?),
        format!("{:?}", BlockedBloomFilter::with_fpr(1_000_000, 0.01)?),
        format!("{:?}", ScalableBloomFilter::with_fpr(1_000_000, 0.01)?),
        format!("{:?}", CountingBloomFilter::with_fpr(1_000_000, 0.01)?),
        format!(
            "{:?}",
            BlockedCountingBloomFilter::with_fpr(1_000_000, 0.01)?
        ),
        format!("{:?}", DLeftCountingBloomFilter::with_fpr(1_000_000, 0.01)?),
        format!("{:?}", CuckooFilter::with_fpr(1_000_000, 0.01)?),
        format!("{:?}", ScalableCuckooFilter::with_fpr(1_000_000, 0.01)?),
        format!("{:?}", BinaryFuse8::from_keys(&keys)?),
        format!("{:?}", Xor16::from_keys(&keys)?),
        format!("{:?}", Ribbon::from_keys_with_fpr(&keys, 0.01)?),
    ];
    for text in texts {
        assert!(text.len() < 400, "{} bytes: {}", text.len(), &text[..400]);
    }
    // Equal filters print alike (no heap address, no kernel choice).
    let classic = BloomFilter::with_fpr(1_000, 0.01)?;
    assert_eq!(format!("{classic:?}"), format!("{:?}", classic.clone()));
    Ok(())
}

/// Every dynamic filter with batched inserts leaves the table exactly as
/// one-by-one inserts of the same keys do (`to_bytes` equal), by key and by
/// raw hash. Each is checked at a small capacity (nothing prefetched) and
/// at one whose table passes 8 MiB (the 32-key prefetch ring), with many
/// more keys than the ring holds.
#[test]
fn every_dynamic_filter_inserts_batches() -> Result<(), Error> {
    let urls: Vec<String> = (0..1000)
        .map(|i| format!("https://example.com/{i}"))
        .collect();
    let hashes: Vec<u64> = (0..1000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    macro_rules! check {
        ($ty:ident) => {{
            for capacity in [2_000, 10_000_000] {
                let new = || $ty::with_fpr(capacity, 0.01);
                let (mut single, mut batched) = (new()?, new()?);
                for url in &urls {
                    Insert::insert(&mut single, url.as_str())?;
                }
                batched.insert_batch(urls.iter().map(String::as_str))?;
                assert!(
                    single.to_bytes() == batched.to_bytes(),
                    "{} at capacity {capacity}: insert_batch differs from insert",
                    stringify!($ty)
                );
                let (mut single, mut batched) = (new()?, new()?);
                for &hash in &hashes {
                    let _ = single.insert_hash(hash);
                }
                batched.insert_hash_batch(hashes.iter().copied())?;
                assert!(
                    single.to_bytes() == batched.to_bytes(),
                    "{} at capacity {capacity}: insert_hash_batch differs from insert_hash",
                    stringify!($ty)
                );
            }
        }};
    }
    check!(BloomFilter);
    check!(BlockedBloomFilter);
    check!(CountingBloomFilter);
    check!(BlockedCountingBloomFilter);
    check!(DLeftCountingBloomFilter);
    check!(CuckooFilter);
    check!(QuotientFilter);
    Ok(())
}

/// Every filter with batched removes leaves the table exactly as one-by-one
/// removes of the same keys do (`to_bytes` equal) and reports the same
/// number of successes. The keys removed are every member, some members a
/// second time and 200 never-inserted keys, so failures and
/// false-positive removals are covered, at a small capacity and at one
/// whose table passes 8 MiB.
#[test]
fn every_removing_filter_removes_batches() -> Result<(), Error> {
    let urls: Vec<String> = (0..1000)
        .map(|i| format!("https://example.com/{i}"))
        .collect();
    let removed_urls: Vec<String> = urls
        .iter()
        .cloned()
        .chain(urls.iter().step_by(7).cloned())
        .chain((0..200).map(|i| format!("https://absent.example.org/{i}")))
        .collect();
    let hash = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let hashes: Vec<u64> = (0..1000u64).map(hash).collect();
    let removed_hashes: Vec<u64> = hashes
        .iter()
        .copied()
        .chain(hashes.iter().step_by(7).copied())
        .chain((1_000_000..1_000_200u64).map(hash))
        .collect();
    macro_rules! check {
        ($ty:ident) => {{
            for capacity in [2_000, 10_000_000] {
                let new = || -> Result<$ty, Error> {
                    let mut f = $ty::with_fpr(capacity, 0.01)?;
                    f.insert_batch(urls.iter().map(String::as_str))?;
                    f.insert_hash_batch(hashes.iter().copied())?;
                    Ok(f)
                };
                let (mut single, mut batched) = (new()?, new()?);
                let one_by_one = removed_urls
                    .iter()
                    .filter(|url| single.remove(url.as_str()))
                    .count();
                let in_batch = batched.remove_batch(removed_urls.iter().map(String::as_str));
                assert_eq!(one_by_one, in_batch, "{} at {capacity}", stringify!($ty));
                assert!(one_by_one >= urls.len(), "every member is removable");
                assert!(
                    single.to_bytes() == batched.to_bytes(),
                    "{} at capacity {capacity}: remove_batch differs from remove",
                    stringify!($ty)
                );
                // Fresh filters: the duplicate and absent removals above may
                // have hit false positives, whose removal can take counters
                // from members (the documented hazard).
                let (mut single, mut batched) = (new()?, new()?);
                let one_by_one = removed_hashes
                    .iter()
                    .filter(|&&hash| single.remove_hash(hash))
                    .count();
                let in_batch = batched.remove_hash_batch(removed_hashes.iter().copied());
                assert_eq!(one_by_one, in_batch, "{} at {capacity}", stringify!($ty));
                assert!(one_by_one >= hashes.len(), "every member is removable");
                assert!(
                    single.to_bytes() == batched.to_bytes(),
                    "{} at capacity {capacity}: remove_hash_batch differs from remove_hash",
                    stringify!($ty)
                );
            }
        }};
    }
    check!(CountingBloomFilter);
    check!(BlockedCountingBloomFilter);
    check!(DLeftCountingBloomFilter);
    check!(CuckooFilter);
    check!(QuotientFilter);
    Ok(())
}

/// The default hasher's invariant, through every type: a key and its
/// pre-hash (`hasher().hash_key`) are the same query.
#[test]
fn keys_and_their_pre_hashes_answer_alike() -> Result<(), Error> {
    use filter_core::KeyHasher;
    let keys: Vec<u64> = (0..200).collect();
    let probes: Vec<u64> = (0..400).collect();
    macro_rules! check {
        ($filter:expr) => {{
            let filter = $filter;
            for k in &probes {
                let h = filter.hasher().hash_key(k);
                assert_eq!(
                    filter.contains(k),
                    filter.contains_hash(h),
                    "{}",
                    stringify!($filter)
                );
            }
        }};
    }
    macro_rules! dynamic {
        ($ty:ident) => {{
            let mut f = $ty::with_fpr(200, 0.01)?;
            for k in &keys {
                let _ = f.insert(k);
            }
            check!(f);
        }};
    }
    dynamic!(BloomFilter);
    dynamic!(BlockedBloomFilter);
    dynamic!(ScalableBloomFilter);
    dynamic!(CountingBloomFilter);
    dynamic!(BlockedCountingBloomFilter);
    dynamic!(DLeftCountingBloomFilter);
    dynamic!(CuckooFilter);
    dynamic!(ScalableCuckooFilter);
    dynamic!(QuotientFilter);
    check!(Xor8::from_keys(&keys)?);
    check!(Xor16::from_keys(&keys)?);
    check!(BinaryFuse8::from_keys(&keys)?);
    check!(BinaryFuse16::from_keys(&keys)?);
    check!(Ribbon::from_keys_with_fpr(&keys, 0.01)?);
    Ok(())
}

/// As [`debug_of_a_large_filter_is_short`], for the quotient filter.
#[test]
fn debug_of_a_large_quotient_filter_is_short() -> Result<(), Error> {
    let text = format!("{:?}", QuotientFilter::with_fpr(1_000_000, 0.01)?);
    assert!(text.len() < 400, "{} bytes", text.len());
    Ok(())
}
