//! The public surface of `shared/DESIGN.md`, written as the design writes it:
//! no type annotations, every filter, every promised name. If a rename or a
//! signature change breaks code written against the contract, this file stops
//! compiling.
//!
//! `BlockedCountingBloomFilter` came after the design and is not named in it;
//! it is held to the same surface as `CountingBloomFilter`, so users can swap
//! one for the other without touching their code.
//!
//! It lives in `benches` because that is the one member (with `xtask`) that
//! sees every filter crate.

use bloom::{BlockedBloomFilter, BloomFilter};
use counting_bloom::{BlockedCountingBloomFilter, CountingBloomFilter};
use cuckoo::{CuckooFilter, Error, Filter, Insert, Remove};
use filter_core::testing::BAD_RATES;
use xor_filter::{BinaryFuse8, BinaryFuse16, Xor8, Xor16};

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

#[test]
fn dynamic_filters_meet_the_contract() -> Result<(), Error> {
    let mut classic = BloomFilter::with_fpr(1000, 0.01)?;
    let mut blocked = BlockedBloomFilter::with_fpr(1000, 0.01)?;
    let mut counting = CountingBloomFilter::with_fpr(1000, 0.01)?;
    let mut blocked_counting = BlockedCountingBloomFilter::with_fpr(1000, 0.01)?;
    let mut cuckoo = CuckooFilter::with_fpr(1000, 0.01)?;
    insert_and_find(&mut classic)?;
    insert_and_find(&mut blocked)?;
    insert_and_find(&mut counting)?;
    insert_and_find(&mut blocked_counting)?;
    insert_and_find(&mut cuckoo)?;
    insert_and_remove(&mut counting)?;
    insert_and_remove(&mut blocked_counting)?;
    insert_and_remove(&mut cuckoo)?;
    assert!(counting.count("https://example.com/") >= 1);
    assert!(blocked_counting.count("https://example.com/") >= 1);

    let classic_copy = BloomFilter::from_bytes(&classic.to_bytes())?;
    let blocked_copy = BlockedBloomFilter::from_bytes(&blocked.to_bytes())?;
    let counting_copy = CountingBloomFilter::from_bytes(&counting.to_bytes())?;
    let blocked_counting_copy =
        BlockedCountingBloomFilter::from_bytes(&blocked_counting.to_bytes())?;
    let cuckoo_copy = CuckooFilter::from_bytes(&cuckoo.to_bytes())?;
    assert!(classic_copy.contains("https://example.com/"));
    assert!(blocked_copy.contains("https://example.com/"));
    assert!(counting_copy.contains("https://example.com/"));
    assert!(blocked_counting_copy.contains("https://example.com/"));
    assert!(cuckoo_copy.contains("https://example.com/"));
    // A filter read back from its bytes equals the original.
    assert_eq!(classic, classic_copy);
    assert_eq!(blocked, blocked_copy);
    assert_eq!(counting, counting_copy);
    assert_eq!(blocked_counting, blocked_counting_copy);
    assert_eq!(cuckoo, cuckoo_copy);

    classic.union(&classic_copy)?;
    blocked.union(&blocked_copy)?;
    let smaller = BloomFilter::with_fpr(10, 0.01)?;
    assert!(matches!(
        classic.union(&smaller),
        Err(Error::Incompatible { .. })
    ));
    Ok(())
}

/// "Re-exported by every filter crate": each crate's own paths name
/// filter-core's traits and error, so a user who depends on one crate can
/// write generic code against it alone. Regression: `bloom` lacked `Remove`
/// and `xor_filter` lacked `Insert` and `Remove`.
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
            let mut cuckoo = CuckooFilter::with_fpr(100, 0.01)?;
            assert!(round_trip(&mut cuckoo)?);
            insert_only(&mut cuckoo)?;
            assert!(cuckoo.contains(&12u64));
        }};
    }
    through!(bloom);
    through!(counting_bloom);
    through!(cuckoo);
    through!(xor_filter);
    Ok(())
}

/// Batch methods and `Extend` take owned items as well as borrowed ones (a
/// range, a `Vec<String>`), hashing each as the one-item methods hash a
/// reference to it. Regression: they took only references, so
/// `filter.extend(0..n)` and `insert_batch(vec_of_strings)` did not compile.
#[test]
fn batches_and_extend_take_owned_items() -> Result<(), Error> {
    let words: Vec<String> = ["alpha", "beta"].map(String::from).to_vec();
    macro_rules! check {
        ($filter:expr $(, $q:tt)?) => {{
            let mut filter = $filter;
            filter.insert_batch(0..100u64)$($q)?;
            filter.insert_batch(words.clone())$($q)?;
            filter.insert_batch(&words)$($q)?;
            assert!((0..100u64).all(|i| filter.contains(&i)));
            assert!(filter.contains("alpha") && filter.contains("beta"));
            assert!(filter.contains_batch(0..100u64).all(|found| found));
            assert!(filter.contains_batch(words.clone()).all(|found| found));
            filter
        }};
    }
    let mut classic = check!(BloomFilter::with_fpr(1000, 0.01)?);
    let mut blocked = check!(BlockedBloomFilter::with_fpr(1000, 0.01)?);
    let mut counting = check!(CountingBloomFilter::with_fpr(1000, 0.01)?);
    let mut blocked_counting = check!(BlockedCountingBloomFilter::with_fpr(1000, 0.01)?);
    let mut cuckoo = check!(CuckooFilter::with_fpr(1000, 0.01)?, ?);
    classic.extend(100..200u64);
    blocked.extend(100..200u64);
    counting.extend(100..200u64);
    blocked_counting.extend(words.clone());
    assert!(classic.contains(&150u64) && blocked.contains(&150u64) && counting.contains(&150u64));
    // One copy of each item removed, in bulk and owned.
    assert_eq!(counting.remove_batch(0..100u64), 100);
    assert_eq!(blocked_counting.remove_batch(words.clone()), 2);
    assert_eq!(cuckoo.remove_batch(0..100u64), 100);
    assert!(cuckoo.contains("alpha"));

    let keys: Vec<u64> = (0..100).collect();
    assert!(
        Xor8::from_keys(&keys)?
            .contains_batch(0..100u64)
            .all(|found| found)
    );
    assert!(
        BinaryFuse16::from_keys(&keys)?
            .contains_batch(keys.clone())
            .all(|found| found)
    );
    Ok(())
}

/// A shape read from a filter rebuilds it: accessors return the types the
/// constructors take. Regression: `blocks()` returned `usize` where the
/// counting filter's `with_blocks` takes `u64` (and bloom's took `usize`,
/// unlike its `u64` `MAX_BLOCKS`).
#[test]
fn shapes_read_back_rebuild_the_filter() -> Result<(), Error> {
    let classic = BloomFilter::with_fpr(1000, 0.01)?;
    let blocked = BlockedBloomFilter::with_fpr(1000, 0.01)?;
    let counting = CountingBloomFilter::with_fpr(1000, 0.01)?;
    let blocked_counting = BlockedCountingBloomFilter::with_fpr(1000, 0.01)?;
    assert_eq!(
        BloomFilter::with_bits(classic.bits(), classic.hashes())?,
        classic
    );
    assert_eq!(BlockedBloomFilter::with_blocks(blocked.blocks())?, blocked);
    assert_eq!(
        BlockedBloomFilter::with_bits(blocked.bits(), blocked.hashes())?,
        blocked
    );
    assert_eq!(
        CountingBloomFilter::with_counters(counting.counters(), counting.hashes())?,
        counting
    );
    assert_eq!(
        BlockedCountingBloomFilter::with_blocks(
            blocked_counting.blocks(),
            blocked_counting.hashes()
        )?,
        blocked_counting
    );
    // The limits are of the same type.
    assert!(BlockedBloomFilter::with_blocks(bloom::MAX_BLOCKS + 1).is_err());
    assert!(BlockedCountingBloomFilter::with_blocks(counting_bloom::MAX_BLOCKS + 1, 6).is_err());
    Ok(())
}

/// The four Bloom types share one surface beyond the traits, so users can
/// swap one for another: `Extend`, `insert_unique`, the fill estimates.
#[test]
fn bloom_types_share_extend_insert_unique_and_estimates() -> Result<(), Error> {
    macro_rules! check {
        ($filter:expr) => {{
            let mut filter = $filter;
            filter.extend(["alpha", "beta"]);
            filter.extend(&[1u64, 2]);
            assert!(filter.insert_unique("gamma"));
            assert!(!filter.insert_unique("gamma"));
            assert!(filter.insert_unique_hash(7));
            let len: usize = filter.estimated_len();
            let fpr: f64 = filter.estimated_fpr();
            assert!((5..=7).contains(&len) && fpr < 1e-9, "{len} {fpr}");
            assert_eq!(filter, filter.clone());
        }};
    }
    check!(BloomFilter::with_fpr(1000, 0.01)?);
    check!(BlockedBloomFilter::with_fpr(1000, 0.01)?);
    check!(CountingBloomFilter::with_fpr(1000, 0.01)?);
    check!(BlockedCountingBloomFilter::with_fpr(1000, 0.01)?);
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
    assert!(holds_all(&xor8, &numbers) && holds_all(&fuse16, &numbers));
    assert!(xor16.contains("beta") && fuse8.contains("gamma"));

    assert!(Xor8::from_bytes(&xor8.to_bytes())?.contains(&999u64));
    assert!(Xor16::from_bytes(&xor16.to_bytes())?.contains("alpha"));
    assert!(BinaryFuse8::from_bytes(&fuse8.to_bytes())?.contains("alpha"));
    assert!(BinaryFuse16::from_bytes(&fuse16.to_bytes())?.contains(&0u64));
    assert!(xor8.memory_bytes() > 0);
    Ok(())
}

#[test]
fn every_sized_constructor_rejects_bad_rates_and_sizes() {
    for fpr in BAD_RATES {
        assert!(BloomFilter::with_fpr(10, fpr).is_err(), "{fpr}");
        assert!(BlockedBloomFilter::with_fpr(10, fpr).is_err(), "{fpr}");
        assert!(CountingBloomFilter::with_fpr(10, fpr).is_err(), "{fpr}");
        assert!(
            BlockedCountingBloomFilter::with_fpr(10, fpr).is_err(),
            "{fpr}"
        );
        assert!(CuckooFilter::with_fpr(10, fpr).is_err(), "{fpr}");
    }
    for items in [usize::MAX, usize::MAX / 2, 1 << 50] {
        assert!(BloomFilter::with_fpr(items, 0.01).is_err(), "{items}");
        assert!(
            BlockedBloomFilter::with_fpr(items, 0.01).is_err(),
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
        assert!(CuckooFilter::with_fpr(items, 0.01).is_err(), "{items}");
    }
    let err = BloomFilter::with_fpr(10, 1.5).map(|_| ()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "fpr must be in the open interval (0, 1), got 1.5"
    );
}

#[test]
fn every_filter_refuses_another_kinds_bytes() -> Result<(), Error> {
    let bloom_bytes = BloomFilter::with_fpr(100, 0.01)?.to_bytes();
    assert!(matches!(
        BlockedBloomFilter::from_bytes(&bloom_bytes),
        Err(Error::Corrupt { .. })
    ));
    assert!(matches!(
        CountingBloomFilter::from_bytes(&bloom_bytes),
        Err(Error::Corrupt { .. })
    ));
    assert!(matches!(
        BlockedCountingBloomFilter::from_bytes(&bloom_bytes),
        Err(Error::Corrupt { .. })
    ));
    // The two counting layouts have distinct kinds: neither misreads the other.
    let counting_bytes = CountingBloomFilter::with_fpr(100, 0.01)?.to_bytes();
    assert!(matches!(
        BlockedCountingBloomFilter::from_bytes(&counting_bytes),
        Err(Error::Corrupt { .. })
    ));
    let blocked_counting_bytes = BlockedCountingBloomFilter::with_fpr(100, 0.01)?.to_bytes();
    assert!(matches!(
        CountingBloomFilter::from_bytes(&blocked_counting_bytes),
        Err(Error::Corrupt { .. })
    ));
    assert!(matches!(
        CuckooFilter::from_bytes(&bloom_bytes),
        Err(Error::Corrupt { .. })
    ));
    assert!(matches!(
        Xor8::from_bytes(&bloom_bytes),
        Err(Error::Corrupt { .. })
    ));
    assert!(matches!(
        BinaryFuse16::from_bytes(&bloom_bytes),
        Err(Error::Corrupt { .. })
    ));
    Ok(())
}

/// Compile-time: every filter is `Send + Sync` (shared behind an `Arc`,
/// moved into a thread), `Clone`, `Debug` and `Eq` (equal exactly when
/// their bytes are), as a user expects of a collection.
#[test]
fn every_filter_is_send_sync_clone_debug_and_eq() {
    fn expected<T: Send + Sync + Clone + std::fmt::Debug + Eq>() {}
    expected::<BloomFilter>();
    expected::<BlockedBloomFilter>();
    expected::<CountingBloomFilter>();
    expected::<BlockedCountingBloomFilter>();
    expected::<CuckooFilter>();
    expected::<Xor8>();
    expected::<Xor16>();
    expected::<BinaryFuse8>();
    expected::<BinaryFuse16>();
}

/// `{:?}` of a filter shows its shape, not its table: a megabyte filter in
/// a log line must not print megabytes, and equal filters print alike.
#[test]
fn debug_of_a_large_filter_is_short() -> Result<(), Error> {
    let keys: Vec<u64> = (0..1_000_000).collect();
    let texts = [
        format!("{:?}", BloomFilter::with_fpr(1_000_000, 0.01)?),
        format!("{:?}", BlockedBloomFilter::with_fpr(1_000_000, 0.01)?),
        format!("{:?}", CountingBloomFilter::with_fpr(1_000_000, 0.01)?),
        format!(
            "{:?}",
            BlockedCountingBloomFilter::with_fpr(1_000_000, 0.01)?
        ),
        format!("{:?}", CuckooFilter::with_fpr(1_000_000, 0.01)?),
        format!("{:?}", BinaryFuse8::from_keys(&keys)?),
        format!("{:?}", Xor16::from_keys(&keys)?),
    ];
    for text in texts {
        assert!(text.len() < 300, "{} bytes: {}", text.len(), &text[..300]);
    }
    // Equal filters print alike (no heap address, no kernel choice).
    let classic = BloomFilter::with_fpr(1_000, 0.01)?;
    assert_eq!(format!("{classic:?}"), format!("{:?}", classic.clone()));
    Ok(())
}

/// Every filter has the same batched lookups, by key and by raw hash, with
/// the same answers as one-by-one lookups. (Not in the design, which came
/// first; held to one shape so users can swap filters.)
#[test]
fn every_filter_looks_up_batches() -> Result<(), Error> {
    let urls = ["https://example.com/", "https://example.org/"];
    let members = &urls[..1];
    macro_rules! check {
        ($filter:expr) => {{
            let filter = $filter;
            let batched: Vec<bool> = filter.contains_batch(urls).collect();
            let single: Vec<bool> = urls.iter().map(|url| filter.contains(url)).collect();
            assert_eq!(batched, single);
            assert!(batched[0]);
            let hashes = [1u64, 2, 3];
            let batched: Vec<bool> = filter.contains_hash_batch(hashes).collect();
            let single: Vec<bool> = hashes.iter().map(|&h| filter.contains_hash(h)).collect();
            assert_eq!(batched, single);
        }};
    }
    macro_rules! dynamic {
        ($ty:ident) => {{
            let mut filter = $ty::with_fpr(1000, 0.01)?;
            filter.extend(members);
            check!(filter);
        }};
    }
    dynamic!(BloomFilter);
    dynamic!(BlockedBloomFilter);
    dynamic!(CountingBloomFilter);
    dynamic!(BlockedCountingBloomFilter);
    let mut cuckoo = CuckooFilter::with_fpr(1000, 0.01)?;
    cuckoo.insert(members[0])?;
    check!(cuckoo);
    check!(Xor8::from_keys(members)?);
    check!(Xor16::from_keys(members)?);
    check!(BinaryFuse8::from_keys(members)?);
    check!(BinaryFuse16::from_keys(members)?);
    Ok(())
}

/// Every dynamic filter has batched inserts, by key and by raw hash, that
/// leave the table exactly as one-by-one inserts of the same keys do
/// (`to_bytes` equal). Each is checked at a small capacity (nothing
/// prefetched) and at one whose table passes 8 MiB (the 32-key prefetch
/// ring), with many more keys than the ring holds.
#[test]
fn every_dynamic_filter_inserts_batches() -> Result<(), Error> {
    let urls: Vec<String> = (0..1000)
        .map(|i| format!("https://example.com/{i}"))
        .collect();
    let hashes: Vec<u64> = (0..1000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    // `$q` is `?` for the filters whose inserts can fail (cuckoo).
    macro_rules! check {
        ($ty:ident $(, $q:tt)?) => {{
            for capacity in [2_000, 10_000_000] {
                let new = || $ty::with_fpr(capacity, 0.01);
                let (mut single, mut batched) = (new()?, new()?);
                for url in &urls {
                    single.insert(url.as_str())$($q)?;
                }
                batched.insert_batch(urls.iter().map(String::as_str))$($q)?;
                assert!(
                    single.to_bytes() == batched.to_bytes(),
                    "{} at capacity {capacity}: insert_batch differs from insert",
                    stringify!($ty)
                );
                let (mut single, mut batched) = (new()?, new()?);
                for &hash in &hashes {
                    single.insert_hash(hash)$($q)?;
                }
                batched.insert_hash_batch(hashes.iter().copied())$($q)?;
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
    check!(CuckooFilter, ?);
    Ok(())
}

/// Every filter with remove has batched removes, by key and by raw hash,
/// that leave the table exactly as one-by-one removes of the same keys do
/// (`to_bytes` equal) and report the same number of successes. The keys
/// removed are every member, some members a second time (a duplicate
/// removal that must fail or hit a false positive, in the same order both
/// ways) and 200 never-inserted keys, so failures and false-positive
/// removals are covered. Each is checked at a small capacity (nothing
/// prefetched) and at one whose table passes 8 MiB (the 32-key prefetch
/// ring), with many more keys than the ring holds.
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
    // `$q` is `?` for the filters whose inserts can fail (cuckoo).
    macro_rules! check {
        ($ty:ident $(, $q:tt)?) => {{
            for capacity in [2_000, 10_000_000] {
                let new = || -> Result<$ty, Error> {
                    let mut f = $ty::with_fpr(capacity, 0.01)?;
                    for url in &urls {
                        f.insert(url.as_str())$($q)?;
                    }
                    for &hash in &hashes {
                        f.insert_hash(hash)$($q)?;
                    }
                    Ok(f)
                };
                let (mut single, mut batched) = (new()?, new()?);
                let one_by_one = removed_urls
                    .iter()
                    .filter(|url| single.remove(url.as_str()))
                    .count();
                let in_batch = batched.remove_batch(removed_urls.iter().map(String::as_str));
                assert_eq!(
                    one_by_one,
                    in_batch,
                    "{} at capacity {capacity}: remove_batch succeeded {in_batch} times, remove {one_by_one}",
                    stringify!($ty)
                );
                assert!(one_by_one >= urls.len(), "every member is removable");
                assert!(
                    single.to_bytes() == batched.to_bytes(),
                    "{} at capacity {capacity}: remove_batch differs from remove",
                    stringify!($ty)
                );
                // Fresh filters: the duplicate and absent removals above may
                // have hit false positives, whose removal can take counters
                // from members (the documented hazard), and then not every
                // member below would be removable.
                let (mut single, mut batched) = (new()?, new()?);
                let one_by_one = removed_hashes
                    .iter()
                    .filter(|&&hash| single.remove_hash(hash))
                    .count();
                let in_batch = batched.remove_hash_batch(removed_hashes.iter().copied());
                assert_eq!(
                    one_by_one,
                    in_batch,
                    "{} at capacity {capacity}: remove_hash_batch succeeded {in_batch} times, remove_hash {one_by_one}",
                    stringify!($ty)
                );
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
    check!(CuckooFilter, ?);
    Ok(())
}

/// A hasher for integer keys alone, as nohash-hasher is: the identity on a
/// `u64`, and a panic on anything else.
#[derive(Clone, Copy, Default)]
struct IntegersOnly(u64);

impl std::hash::Hasher for IntegersOnly {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        panic!("IntegersOnly hashes u64 keys only");
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

type ByIdentity = std::hash::BuildHasherDefault<IntegersOnly>;

/// Combining and comparing filters asks their hashers for integer hashes
/// only, so a hasher that takes nothing else works there (serializing needs
/// one that hashes strings too: the stored probe covers them).
#[test]
fn filters_with_integer_only_hashers_combine_and_compare() -> Result<(), Error> {
    let keys: Vec<u64> = (0..1000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let by_identity = ByIdentity::default;

    let mut a = BloomFilter::with_fpr_and_hasher(1000, 0.01, by_identity())?;
    keys.iter().for_each(|k| a.insert(k));
    let b = a.clone();
    assert!(a == b);
    a.union(&b)?;
    a.intersect(&b)?;
    let mut a = BlockedBloomFilter::with_fpr_and_hasher(1000, 0.01, by_identity())?;
    keys.iter().for_each(|k| a.insert(k));
    let b = a.clone();
    assert!(a == b);
    a.union(&b)?;

    let mut a = CountingBloomFilter::with_fpr_and_hasher(1000, 0.01, by_identity())?;
    keys.iter().for_each(|k| a.insert(k));
    let b = a.clone();
    assert!(a == b);
    a.merge(&b)?;
    let mut a = BlockedCountingBloomFilter::with_fpr_and_hasher(1000, 0.01, by_identity())?;
    keys.iter().for_each(|k| a.insert(k));
    let b = a.clone();
    assert!(a == b);
    a.merge(&b)?;

    let mut a = CuckooFilter::with_fpr_and_hasher(1000, 0.01, by_identity())?;
    keys.iter().try_for_each(|k| a.insert(k))?;
    assert!(a == a.clone());
    let a = BinaryFuse8::from_keys_with_hasher(&keys, by_identity())?;
    assert!(a == a.clone());
    assert!(keys.iter().all(|k| a.contains(k)));
    Ok(())
}
