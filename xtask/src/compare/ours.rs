//! Adapters for the workspace's own filters.
//!
//! Every filter of ours implements the same traits (`Insert`, `Remove`,
//! `BatchContains`), so one generic adapter per shape (dynamic, removing,
//! static) serves them all, and a filter joins the report with a few
//! lines: its constructor and what the report says about it
//! ([`Dynamic`], [`Static`]).

use std::marker::PhantomData;

use filter_core::{
    BatchContains, BatchInsert, Error, Insert, KeyHasher, PortableHasher, Remove, UniformHasher,
};

use super::Result;
use super::measure::{Entry, entry};
use super::peers::initial_items;
use super::subject::{Family, Info, Key, Subject, Target, build_error};
use super::workload::Cheap64;

/// Every one of our rows on `u64` keys with the default hasher, then the
/// rows of the "same hasher" section, in report order.
pub(crate) fn entries() -> Vec<Entry> {
    vec![
        entry::<Grown<bloom::BloomFilter>, u64>(),
        entry::<Grown<bloom::BlockedBloomFilter>, u64>(),
        entry::<ParquetSbbf, u64>(),
        entry::<Grown<bloom::ScalableBloomFilter>, u64>(),
        entry::<Emptied<counting_bloom::CountingBloomFilter>, u64>(),
        entry::<Emptied<counting_bloom::BlockedCountingBloomFilter>, u64>(),
        entry::<Emptied<counting_bloom::DLeftCountingBloomFilter>, u64>(),
        entry::<Emptied<cuckoo::CuckooFilter>, u64>(),
        entry::<Emptied<cuckoo::ScalableCuckooFilter>, u64>(),
        entry::<Emptied<quotient_filter::QuotientFilter>, u64>(),
        entry::<Built<xor_filter::Xor8>, u64>(),
        entry::<Built<xor_filter::Xor16>, u64>(),
        entry::<Built<xor_filter::BinaryFuse8>, u64>(),
        entry::<Built<xor_filter::BinaryFuse16>, u64>(),
        entry::<Built<xor_filter::Ribbon>, u64>(),
    ]
}

/// Our rows on string keys: the filters that have a peer.
pub(crate) fn string_entries() -> Vec<Entry> {
    vec![
        entry::<Grown<bloom::BloomFilter>, String>(),
        entry::<Grown<bloom::BlockedBloomFilter>, String>(),
        entry::<Emptied<cuckoo::CuckooFilter>, String>(),
        entry::<Built<xor_filter::BinaryFuse8>, String>(),
    ]
}

/// Our filters with a peer, given `Cheap64` through `UniformHasher`: the
/// hash as the peers given `Cheap64` take it.
pub(crate) fn cheap_entries() -> Vec<Entry> {
    vec![
        entry::<Grown<bloom::BloomFilter<Cheap>, Cheap>, u64>(),
        entry::<Grown<bloom::BlockedBloomFilter<Cheap>, Cheap>, u64>(),
        entry::<Emptied<cuckoo::CuckooFilter<Cheap>, Cheap>, u64>(),
    ]
}

/// Our rows of the quotient-filter section beside qfilter (with
/// [`super::peers::same_memory_entries`]).
pub(crate) fn quotient_entries() -> Vec<Entry> {
    vec![entry::<Quotient<Loaded>, u64>()]
}

/// `Cheap64`, trusted as uniform.
pub(crate) type Cheap = UniformHasher<Cheap64>;

/// The label a hasher gets in the report.
pub(crate) trait Hasher: KeyHasher + Default {
    const LABEL: &'static str;
}

impl Hasher for PortableHasher {
    const LABEL: &'static str = "default";
}

impl Hasher for Cheap {
    const LABEL: &'static str = "Cheap64";
}

/// A filter of ours built by inserts: its constructor and report labels.
pub(crate) trait Dynamic<H>: Sized + BatchContains {
    const INFO: Info;
    fn with_fpr(n: usize, fpr: f64, hasher: H) -> Result<Self, Error>;
    /// Cache lines a member lookup reads.
    fn lines(&self) -> usize {
        1
    }
}

/// A filter of ours built from all keys at once.
pub(crate) trait Static: Sized + BatchContains {
    const INFO: Info;
    fn build<K: Key>(keys: &[K], target: Target) -> Result<Self>;
}

/// A dynamic filter without removes: built by one-by-one inserts.
pub(crate) struct Grown<F, H = PortableHasher>(F, PhantomData<H>);
/// A dynamic filter with removes.
pub(crate) struct Emptied<F, H = PortableHasher>(F, PhantomData<H>);
/// A static filter.
pub(crate) struct Built<F>(F);
/// A row of our `QuotientFilter` built another way than the main row's,
/// for the section beside qfilter: [`QuotientRow`] says how.
pub(crate) struct Quotient<R>(quotient_filter::QuotientFilter, PhantomData<R>);

/// How a [`Quotient`] row is built, and its label; it is measured as the
/// main row is.
pub(crate) trait QuotientRow {
    const NAME: &'static str;
    fn build(keys: &[u64], target: Target) -> Result<quotient_filter::QuotientFilter>;
}

/// Our `QuotientFilter` loaded by one `insert_batch` of every key, as a
/// user with the keys up front would: its build column is that call (one
/// sort and one pass over the table).
pub(crate) struct Loaded;

fn grow<K: Key, H: Hasher, F: Dynamic<H> + Insert<K>>(keys: &[K], target: Target) -> Result<F> {
    let mut filter = F::with_fpr(keys.len(), target.rate()?, H::default())?;
    for key in keys {
        filter.insert(key)?;
    }
    Ok(filter)
}

impl<K: Key, H: Hasher, F: Dynamic<H> + Insert<K>> Subject<K> for Grown<F, H> {
    const INFO: Info = Info {
        hasher: H::LABEL,
        ..F::INFO
    };
    fn build(keys: &[K], target: Target) -> Result<Self> {
        Ok(Grown(grow::<K, H, F>(keys, target)?, PhantomData))
    }
    #[inline(always)]
    fn contains(&self, key: &K) -> bool {
        self.0.contains(key)
    }
    fn count_batch(&self, keys: &[K]) -> usize {
        self.0.contains_batch(keys).filter(|&hit| hit).count()
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
    fn lines_per_hit(&self) -> usize {
        self.0.lines()
    }
}

impl<K: Key, H: Hasher, F: Dynamic<H> + Remove<K>> Subject<K> for Emptied<F, H> {
    const INFO: Info = Info {
        hasher: H::LABEL,
        remove: true,
        ..F::INFO
    };
    fn build(keys: &[K], target: Target) -> Result<Self> {
        Ok(Emptied(grow::<K, H, F>(keys, target)?, PhantomData))
    }
    #[inline(always)]
    fn contains(&self, key: &K) -> bool {
        self.0.contains(key)
    }
    fn count_batch(&self, keys: &[K]) -> usize {
        self.0.contains_batch(keys).filter(|&hit| hit).count()
    }
    #[inline(always)]
    fn remove(&mut self, key: &K) -> bool {
        self.0.remove(key)
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
    fn lines_per_hit(&self) -> usize {
        self.0.lines()
    }
}

impl QuotientRow for Loaded {
    const NAME: &'static str = "QuotientFilter by insert_batch";
    fn build(keys: &[u64], target: Target) -> Result<quotient_filter::QuotientFilter> {
        let mut filter = quotient_filter::QuotientFilter::with_fpr(keys.len(), target.rate()?)
            .map_err(|e| build_error("QuotientFilter", e))?;
        filter
            .insert_batch(keys)
            .map_err(|e| build_error("QuotientFilter", e))?;
        Ok(filter)
    }
}

impl<R: QuotientRow> Subject<u64> for Quotient<R> {
    const INFO: Info = Info {
        name: R::NAME,
        remove: true,
        ..<quotient_filter::QuotientFilter as Dynamic<PortableHasher>>::INFO
    };
    fn build(keys: &[u64], target: Target) -> Result<Self> {
        R::build(keys, target).map(|filter| Quotient(filter, PhantomData))
    }
    #[inline(always)]
    fn contains(&self, key: &u64) -> bool {
        self.0.contains(key)
    }
    fn count_batch(&self, keys: &[u64]) -> usize {
        self.0.contains_batch(keys).filter(|&hit| hit).count()
    }
    #[inline(always)]
    fn remove(&mut self, key: &u64) -> bool {
        self.0.remove(key)
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
    fn lines_per_hit(&self) -> usize {
        self.0.lines()
    }
}

impl<K: Key, F: Static + filter_core::Filter<K>> Subject<K> for Built<F> {
    const INFO: Info = F::INFO;
    fn build(keys: &[K], target: Target) -> Result<Self> {
        F::build(keys, target).map(Built)
    }
    #[inline(always)]
    fn contains(&self, key: &K) -> bool {
        self.0.contains(key)
    }
    fn count_batch(&self, keys: &[K]) -> usize {
        self.0.contains_batch(keys).filter(|&hit| hit).count()
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
    fn lines_per_hit(&self) -> usize {
        3
    }
}

/// Implements [`Dynamic`] for one of our filter types, generic over its
/// hasher: `dynamic!(Type, "Name", "crate", Family, |filter| lines per hit)`,
/// and for the scalable filters `|n| the items they start at` (a thousandth
/// of the keys, as growable-bloom-filter's row, so that they grow).
macro_rules! dynamic {
    ($type:ty, $name:literal, $krate:literal, $family:ident, |$f:ident| $lines:expr) => {
        dynamic!($type, $name, $krate, $family, |$f| $lines, |n| n);
    };
    ($type:ty, $name:literal, $krate:literal, $family:ident, |$f:ident| $lines:expr, |$n:ident| $initial:expr) => {
        impl<H: Hasher> Dynamic<H> for $type {
            const INFO: Info = Info {
                krate: $krate,
                ..Info::ours($name, Family::$family, true)
            };
            fn with_fpr($n: usize, fpr: f64, hasher: H) -> Result<Self, Error> {
                <$type>::with_fpr_and_hasher($initial, fpr, hasher)
            }
            fn lines(&self) -> usize {
                let $f = self;
                $lines
            }
        }
    };
}

dynamic!(
    bloom::BloomFilter<H>,
    "BloomFilter",
    "bloom",
    Bloom,
    |f| f.hashes() as usize
);
dynamic!(
    bloom::BlockedBloomFilter<H>,
    "BlockedBloomFilter",
    "bloom",
    BlockedBloom,
    |_f| 1
);
dynamic!(
    bloom::ScalableBloomFilter<H>,
    "ScalableBloomFilter",
    "bloom",
    ScalableBloom,
    |_f| 1,
    |n| initial_items(n)
);
dynamic!(
    counting_bloom::CountingBloomFilter<H>,
    "CountingBloomFilter",
    "counting-bloom",
    CountingBloom,
    |f| f.hashes() as usize
);
dynamic!(
    counting_bloom::BlockedCountingBloomFilter<H>,
    "BlockedCountingBloomFilter",
    "counting-bloom",
    BlockedCountingBloom,
    |_f| 2
);
dynamic!(
    counting_bloom::DLeftCountingBloomFilter<H>,
    "DLeftCountingBloomFilter",
    "counting-bloom",
    DLeftCountingBloom,
    |_f| 4
);
dynamic!(
    cuckoo::CuckooFilter<H>,
    "CuckooFilter",
    "cuckoo",
    Cuckoo,
    |_f| 2
);
dynamic!(
    cuckoo::ScalableCuckooFilter<H>,
    "ScalableCuckooFilter",
    "cuckoo",
    ScalableCuckoo,
    |_f| 2,
    |n| initial_items(n)
);
dynamic!(
    quotient_filter::QuotientFilter<H>,
    "QuotientFilter",
    "quotient-filter",
    Quotient,
    |_f| 1
);

/// Implements [`Static`] for one of our static filter types:
/// `fixed!(Type, "Name", Family)` for a rate fixed by the layout.
macro_rules! fixed {
    ($type:ty, $name:literal, $family:ident) => {
        impl Static for $type {
            const INFO: Info = Info {
                krate: "xor-filter",
                sized: false,
                ..Info::ours($name, Family::$family, false)
            };
            fn build<K: Key>(keys: &[K], _: Target) -> Result<Self> {
                <$type>::from_keys(keys).map_err(|e| build_error($name, e))
            }
        }
    };
}

fixed!(xor_filter::Xor8, "Xor8", Xor8);
fixed!(xor_filter::Xor16, "Xor16", Xor16);
fixed!(xor_filter::BinaryFuse8, "BinaryFuse8", BinaryFuse8);
fixed!(xor_filter::BinaryFuse16, "BinaryFuse16", BinaryFuse16);

impl Static for xor_filter::Ribbon {
    const INFO: Info = Info {
        krate: "xor-filter",
        ..Info::ours("Ribbon", Family::Ribbon, false)
    };
    fn build<K: Key>(keys: &[K], target: Target) -> Result<Self> {
        xor_filter::Ribbon::from_keys_with_fpr(keys, target.rate()?)
            .map_err(|e| build_error("Ribbon", e))
    }
}

/// `bloom::parquet::ParquetBloomFilter`, Parquet's split-block filter
/// byte for byte: `with_fpr(n, p)` (a power of two bytes, as Parquet
/// writers size it), then `insert_hash`/`contains_hash` of XXH3-64 of the
/// key, as the sbbf-rs-safe row.
pub(crate) struct ParquetSbbf(bloom::parquet::ParquetBloomFilter);

fn xxh3<K: Key>(key: &K) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&key.to_u64().to_le_bytes())
}

impl<K: Key> Subject<K> for ParquetSbbf {
    const INFO: Info = Info {
        krate: "bloom (parquet)",
        hasher: "XXH3-64",
        ..Info::ours("ParquetBloomFilter", Family::BlockedBloom, true)
    };
    fn build(keys: &[K], target: Target) -> Result<Self> {
        let mut f = bloom::parquet::ParquetBloomFilter::with_fpr(keys.len() as u64, target.rate()?)
            .map_err(|e| build_error("ParquetBloomFilter", e))?;
        for k in keys {
            f.insert_hash(xxh3(k));
        }
        Ok(ParquetSbbf(f))
    }
    #[inline(always)]
    fn contains(&self, key: &K) -> bool {
        self.0.contains_hash(xxh3(key))
    }
    fn count_batch(&self, keys: &[K]) -> usize {
        let hashes: Vec<u64> = keys.iter().map(xxh3).collect();
        self.0
            .contains_hash_batch(&hashes)
            .into_iter()
            .filter(|&hit| hit)
            .count()
    }
    fn memory_bytes(&self) -> usize {
        self.0.bytes()
    }
    fn lines_per_hit(&self) -> usize {
        1
    }
}
