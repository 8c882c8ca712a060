//! Adapters for the peer crates: the filters a Rust user would otherwise
//! reach for, measured on the same keys in the same run, each called as its
//! own README shows: its default hasher where it has one, `u64` keys as
//! they are where it takes `u64` keys. Where a crate takes a 64-bit hash,
//! or `u64` keys only and the keys are strings, it gets XXH3-64 of the key
//! (see [`Key::to_u64`]). The "same hasher" section gives the crates that
//! accept a hasher [`Cheap64`], and those that take a hash `Cheap64`'s.
//! One row of ours lives here too, [`AtQFilterMemory`]: qfilter sizes it.

use filter_core::sizing::{BlockLayout, blocked_bloom_bits};

use super::Result;
use super::measure::{Entry, entry};
use super::ours::{Quotient, QuotientRow};
use super::subject::{Family, Info, Key, Subject, Target, build_error};
use super::workload::Cheap64;

/// Every peer row on `u64` keys, as each README shows.
pub(crate) fn entries() -> Vec<Entry> {
    vec![
        entry::<FastBloom, u64>(),
        entry::<Sbbf, u64>(),
        entry::<Growable, u64>(),
        entry::<CuckooPeer, u64>(),
        entry::<QFilter, u64>(),
        entry::<Xorf<xorf::Xor8>, u64>(),
        entry::<Xorf<xorf::Xor16>, u64>(),
        entry::<Xorf<xorf::BinaryFuse8>, u64>(),
        entry::<Xorf<xorf::BinaryFuse16>, u64>(),
        entry::<Pleat, u64>(),
    ]
}

/// The peers of [`super::ours::string_entries`], on string keys.
pub(crate) fn string_entries() -> Vec<Entry> {
    vec![
        entry::<FastBloom, String>(),
        entry::<Sbbf, String>(),
        entry::<CuckooPeer, String>(),
        entry::<Xorf<xorf::BinaryFuse8>, String>(),
    ]
}

/// The peers of [`super::ours::cheap_entries`], given [`Cheap64`].
pub(crate) fn cheap_entries() -> Vec<Entry> {
    vec![
        entry::<FastBloom<Cheap64>, u64>(),
        entry::<Sbbf<true>, u64>(),
        entry::<CuckooPeer<Cheap64>, u64>(),
    ]
}

/// Our `QuotientFilter` given the memory qfilter takes for the same keys
/// and target (see [`AtQFilterMemory`]).
pub(crate) fn same_memory_entries() -> Vec<Entry> {
    vec![entry::<Quotient<AtQFilterMemory>, u64>()]
}

/// The label of a peer's hasher: its own, or [`Cheap64`].
pub(crate) trait Label {
    const LABEL: &'static str;
}

impl Label for Cheap64 {
    const LABEL: &'static str = "Cheap64";
}

impl Label for fastbloom::DefaultHasher {
    const LABEL: &'static str = "its own";
}

impl Label for std::collections::hash_map::DefaultHasher {
    const LABEL: &'static str = "its own";
}

/// `fastbloom::BloomFilter`: `with_false_pos(p).expected_items(n)`.
pub(crate) struct FastBloom<H = fastbloom::DefaultHasher>(fastbloom::BloomFilter<H>);

impl<K: Key, H: Label + std::hash::BuildHasher + Default + Clone> Subject<K> for FastBloom<H> {
    const INFO: Info = Info::peer("BloomFilter", "fastbloom 0.17", Family::Bloom, H::LABEL);
    fn build(keys: &[K], target: Target) -> Result<Self> {
        let mut f = fastbloom::BloomFilter::with_false_pos(target.rate()?)
            .hasher(H::default())
            .expected_items(keys.len());
        for k in keys {
            f.insert(k);
        }
        Ok(FastBloom(f))
    }
    #[inline(always)]
    fn contains(&self, key: &K) -> bool {
        self.0.contains(key)
    }
    fn memory_bytes(&self) -> usize {
        size_of_val(self.0.as_slice())
    }
    fn lines_per_hit(&self) -> usize {
        self.0.num_hashes() as usize
    }
}

/// `sbbf_rs_safe::Filter`, Parquet's split-block layout: `new(bits_per_key,
/// n)`, then `insert_hash`/`contains_hash` of XXH3-64 of the key (or of
/// `Cheap64`'s hash when `CHEAP`).
pub(crate) struct Sbbf<const CHEAP: bool = false>(sbbf_rs_safe::Filter);

impl<const CHEAP: bool> Sbbf<CHEAP> {
    #[inline(always)]
    fn hash<K: Key>(key: &K) -> u64 {
        if CHEAP {
            Cheap64::hash(key.to_u64())
        } else {
            xxhash_rust::xxh3::xxh3_64(&key.to_u64().to_le_bytes())
        }
    }
}

impl<K: Key, const CHEAP: bool> Subject<K> for Sbbf<CHEAP> {
    const INFO: Info = Info::peer(
        "SplitBlockBloom",
        "sbbf-rs-safe 0.3",
        Family::BlockedBloom,
        if CHEAP { "Cheap64" } else { "XXH3-64" },
    );
    fn build(keys: &[K], target: Target) -> Result<Self> {
        let bits = blocked_bloom_bits(keys.len(), target.rate()?, 8, 256, BlockLayout::Split)?;
        let bits_per_key = bits.div_ceil(keys.len().max(1) as u64) as usize;
        let mut f = sbbf_rs_safe::Filter::new(bits_per_key, keys.len());
        for k in keys {
            f.insert_hash(Self::hash(k));
        }
        Ok(Sbbf(f))
    }
    #[inline(always)]
    fn contains(&self, key: &K) -> bool {
        self.0.contains_hash(Self::hash(key))
    }
    fn memory_bytes(&self) -> usize {
        self.0.as_bytes().len()
    }
    fn lines_per_hit(&self) -> usize {
        1
    }
}

/// `growable_bloom_filter::GrowableBloom`: `new(p, 1000)`, a scalable
/// Bloom filter grown from 1,000 items to the row's keys, as our
/// `ScalableBloomFilter` row is.
pub(crate) struct Growable(growable_bloom_filter::GrowableBloom);

/// Where every scalable filter starts: it grows from here to the row's keys.
pub(crate) fn initial_items(_n: usize) -> usize {
    1000
}

impl<K: Key> Subject<K> for Growable {
    const INFO: Info = Info::peer(
        "GrowableBloom",
        "growable-bloom-filter 2",
        Family::ScalableBloom,
        "its own",
    );
    fn build(keys: &[K], target: Target) -> Result<Self> {
        let mut f =
            growable_bloom_filter::GrowableBloom::new(target.rate()?, initial_items(keys.len()));
        for k in keys {
            f.insert(k);
        }
        Ok(Growable(f))
    }
    #[inline(always)]
    fn contains(&self, key: &K) -> bool {
        self.0.contains(key)
    }
    fn memory_bytes(&self) -> usize {
        // Serialized, its bits are the bulk; the stage headers are a few
        // bytes each.
        growable_memory(&self.0)
    }
    fn lines_per_hit(&self) -> usize {
        1
    }
}

/// `cuckoofilter::CuckooFilter`: `with_capacity(n)`, `add`, `contains`,
/// `delete`. Its capacity is rounded to a power of two, and it fails
/// inserts well before that is full, so the row doubles the capacity until
/// every key goes in (the retries are reported).
pub(crate) struct CuckooPeer<H = std::collections::hash_map::DefaultHasher> {
    filter: cuckoofilter::CuckooFilter<H>,
}

impl<K: Key, H: Label + std::hash::Hasher + Default> Subject<K> for CuckooPeer<H> {
    const INFO: Info = Info {
        remove: true,
        sized: false,
        ..Info::peer("CuckooFilter", "cuckoofilter 0.5", Family::Cuckoo, H::LABEL)
    };
    fn build(keys: &[K], _: Target) -> Result<Self> {
        let mut capacity = keys.len();
        for _ in 0..8 {
            let mut filter = cuckoofilter::CuckooFilter::<H>::with_capacity(capacity);
            if keys.iter().all(|k| filter.add(k).is_ok()) {
                return Ok(CuckooPeer { filter });
            }
            capacity *= 2;
        }
        Err(build_error("CuckooFilter", "inserts failed at 8 doublings"))
    }
    #[inline(always)]
    fn contains(&self, key: &K) -> bool {
        self.filter.contains(key)
    }
    #[inline(always)]
    fn remove(&mut self, key: &K) -> bool {
        self.filter.delete(key)
    }
    fn memory_bytes(&self) -> usize {
        self.filter.memory_usage() - size_of_val(&self.filter)
    }
    fn lines_per_hit(&self) -> usize {
        2
    }
}

/// `qfilter::Filter`: `new(capacity, p)`, `insert_duplicated` (so that
/// removes are exact, as the quotient filter's), `contains`, `remove`.
pub(crate) struct QFilter(qfilter::Filter);

impl<K: Key> Subject<K> for QFilter {
    const INFO: Info = Info {
        remove: true,
        ..Info::peer("Filter", "qfilter 0.2", Family::Quotient, "its own")
    };
    fn build(keys: &[K], target: Target) -> Result<Self> {
        let mut f = qfilter::Filter::new(keys.len() as u64, target.rate()?)
            .map_err(|e| build_error("qfilter", format!("{e:?}")))?;
        for k in keys {
            f.insert_duplicated(k)
                .map_err(|e| build_error("qfilter", format!("{e:?}")))?;
        }
        Ok(QFilter(f))
    }
    #[inline(always)]
    fn contains(&self, key: &K) -> bool {
        self.0.contains(key)
    }
    #[inline(always)]
    fn remove(&mut self, key: &K) -> bool {
        self.0.remove(key)
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_usage()
    }
    fn lines_per_hit(&self) -> usize {
        1
    }
}

/// Our `QuotientFilter` (default hasher) with the largest table that takes
/// no more memory than qfilter's for the same keys and target.
///
/// qfilter rounds its slots up to a power of two, so for most numbers of
/// keys it has up to twice the slots they need: it runs at a lower load,
/// with shorter runs and clusters, a lower rate and more memory. Ours is
/// sized for the keys at its maximum load. This row sizes ours as if more
/// keys were expected (`with_fpr(m, p)` for the largest `m` whose table
/// fits in qfilter's memory), so that the two compare at the same memory.
pub(crate) struct AtQFilterMemory;

impl AtQFilterMemory {
    /// The largest number of expected items whose table takes at most
    /// `budget` bytes at rate `p`, by bisection (memory grows with it);
    /// `n` itself when even that takes more.
    fn expected_items(n: usize, p: f64, budget: usize) -> Result<usize> {
        let bytes = |m: usize| -> Result<usize> {
            quotient_filter::QuotientFilter::with_fpr(m, p)
                .map(|f| f.memory_bytes())
                .map_err(|e| build_error("QuotientFilter", e))
        };
        let (mut lo, mut hi) = (n, n);
        while bytes(hi)? <= budget {
            lo = hi;
            hi = hi.checked_mul(2).ok_or("expected items overflow")?;
        }
        // bytes(lo) <= budget < bytes(hi), or lo = n over budget.
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if bytes(mid)? <= budget {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }
}

impl QuotientRow for AtQFilterMemory {
    const NAME: &'static str = "QuotientFilter at qfilter's memory";
    fn build(keys: &[u64], target: Target) -> Result<quotient_filter::QuotientFilter> {
        let p = target.rate()?;
        let peer = qfilter::Filter::new(keys.len() as u64, p)
            .map_err(|e| build_error("qfilter", format!("{e:?}")))?;
        let m = Self::expected_items(keys.len(), p, peer.memory_usage())?;
        let mut f = quotient_filter::QuotientFilter::with_fpr(m, p)
            .map_err(|e| build_error("QuotientFilter", e))?;
        for k in keys {
            f.insert(k).map_err(|e| build_error("QuotientFilter", e))?;
        }
        Ok(f)
    }
}

/// The xorf filter types the report measures: built `from`/`try_from` a
/// slice of `u64` keys.
pub(crate) trait XorfType: xorf::Filter<u64> + Sized {
    const NAME: &'static str;
    const FAMILY: Family;
    fn from_keys(keys: &[u64]) -> Result<Self>;
    fn bytes(&self) -> usize;
}

macro_rules! xorf_type {
    ($ty:ty, $name:literal, $family:ident, |$k:ident| $build:expr) => {
        impl XorfType for $ty {
            const NAME: &'static str = $name;
            const FAMILY: Family = Family::$family;
            fn from_keys($k: &[u64]) -> Result<Self> {
                $build
            }
            fn bytes(&self) -> usize {
                size_of_val(&*self.fingerprints)
            }
        }
    };
}

xorf_type!(xorf::Xor8, "Xor8", Xor8, |k| Ok(xorf::Xor8::from(k)));
xorf_type!(xorf::Xor16, "Xor16", Xor16, |k| Ok(xorf::Xor16::from(k)));
xorf_type!(xorf::BinaryFuse8, "BinaryFuse8", BinaryFuse8, |k| {
    xorf::BinaryFuse8::try_from(k).map_err(|e| build_error("BinaryFuse8", e))
});
xorf_type!(xorf::BinaryFuse16, "BinaryFuse16", BinaryFuse16, |k| {
    xorf::BinaryFuse16::try_from(k).map_err(|e| build_error("BinaryFuse16", e))
});

/// A static xorf filter of `u64` keys (string keys as their XXH3-64).
pub(crate) struct Xorf<F>(F);

impl<K: Key, F: XorfType> Subject<K> for Xorf<F> {
    const INFO: Info = Info {
        dynamic: false,
        sized: false,
        ..Info::peer(F::NAME, "xorf 0.13", F::FAMILY, "u64 keys as they are")
    };
    fn build(keys: &[K], _: Target) -> Result<Self> {
        let keys: Vec<u64> = keys.iter().map(Key::to_u64).collect();
        F::from_keys(&keys).map(Xorf)
    }
    #[inline(always)]
    fn contains(&self, key: &K) -> bool {
        self.0.contains(&key.to_u64())
    }
    fn memory_bytes(&self) -> usize {
        self.0.bytes()
    }
    fn lines_per_hit(&self) -> usize {
        3
    }
}

/// `pleat::filter::Ribbon<R>`, `from_keys_pleated(&keys)`, with the
/// result width R whose rate 2^-R is closest to the target from below
/// (R = 7 at 1 %, 10 at 0.1 %).
pub(crate) enum Pleat {
    R7(pleat::filter::Ribbon<7>),
    R10(pleat::filter::Ribbon<10>),
    R14(pleat::filter::Ribbon<14>),
}

impl<K: Key> Subject<K> for Pleat {
    const INFO: Info = Info {
        dynamic: false,
        ..Info::peer(
            "Ribbon",
            "pleat 0.1",
            Family::Ribbon,
            "u64 keys as they are",
        )
    };
    fn build(keys: &[K], target: Target) -> Result<Self> {
        let keys: Vec<u64> = keys.iter().map(Key::to_u64).collect();
        let bits = (1.0 / target.rate()?).log2().ceil();
        Ok(match bits as u32 {
            0..=7 => Pleat::R7(pleat::filter::Ribbon::from_keys_pleated(&keys)),
            8..=10 => Pleat::R10(pleat::filter::Ribbon::from_keys_pleated(&keys)),
            _ => Pleat::R14(pleat::filter::Ribbon::from_keys_pleated(&keys)),
        })
    }
    #[inline(always)]
    fn contains(&self, key: &K) -> bool {
        let key = key.to_u64();
        match self {
            Pleat::R7(f) => f.contains(key),
            Pleat::R10(f) => f.contains(key),
            Pleat::R14(f) => f.contains(key),
        }
    }
    fn memory_bytes(&self) -> usize {
        match self {
            Pleat::R7(f) => f.size_bytes(),
            Pleat::R10(f) => f.size_bytes(),
            Pleat::R14(f) => f.size_bytes(),
        }
    }
    fn lines_per_hit(&self) -> usize {
        1
    }
}

/// growable-bloom-filter reports no size; its bincode form is its stages'
/// bit vectors and a few fields each, within a few bytes of its memory.
fn growable_memory(f: &growable_bloom_filter::GrowableBloom) -> usize {
    bincode::serialized_size(f).map_or(0, |bytes| bytes as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_memory_sizing_takes_the_largest_table_within_qfilters() {
        for (n, p) in [
            (1_000, 0.01),
            (100_000, 0.01),
            (100_000, 0.001),
            (3_000, 0.0001),
        ] {
            let budget = qfilter::Filter::new(n as u64, p).unwrap().memory_usage();
            let m = AtQFilterMemory::expected_items(n, p, budget).unwrap();
            let bytes = |m: usize| {
                quotient_filter::QuotientFilter::with_fpr(m, p)
                    .unwrap()
                    .memory_bytes()
            };
            assert!(m >= n, "{n} {p}: {m}");
            assert!(bytes(m) <= budget, "{n} {p}: {} > {budget}", bytes(m));
            assert!(bytes(m + 1) > budget, "{n} {p}: {m} is not the largest");
        }
    }
}
