//! Adapters for the workspace's own filters.
//!
//! Each gets [`Cheap64`] as its `BuildHasher` (the `*_and_hasher`
//! constructors, or the `*_hash` methods with `Cheap64::hash(key)` for the
//! static filters' `from_hashes`), like the peers that accept one.

use filter_core::sizing::{BlockLayout, blocked_bloom_fpr, bloom_fpr};

use filter_core::{AnyHashes, UniformHashes};

use super::Result;
use super::measure::{Entry, entry};
use super::quality::Quality;
use super::subject::{Family, Subject, Target, build_error, shared_build};
use super::workload::Cheap64;

/// Every one of our filters, in report order.
pub(crate) fn entries() -> Vec<Entry> {
    vec![
        entry::<Bloom>(),
        entry::<Bloom<UniformHashes>>(),
        entry::<Blocked>(),
        entry::<Blocked<UniformHashes>>(),
        entry::<Counting>(),
        entry::<Counting<UniformHashes>>(),
        entry::<BlockedCounting>(),
        entry::<BlockedCounting<UniformHashes>>(),
        entry::<Cuckoo>(),
        entry::<Cuckoo<UniformHashes>>(),
        entry::<Xor8>(),
        entry::<Xor16>(),
        entry::<BinaryFuse8>(),
        entry::<BinaryFuse16>(),
    ]
}

const HASHER: &str = "Cheap64 (as its BuildHasher)";

fn rate(target: Target) -> Result<f64> {
    match target {
        Target::Rate(p) => Ok(p),
        Target::Fixed => Err("a sized filter needs a target rate".into()),
    }
}

/// `bloom::BloomFilter`.
pub(crate) struct Bloom<Q: Quality = AnyHashes>(bloom::BloomFilter<Cheap64, Q>);

impl<Q: Quality> Subject for Bloom<Q> {
    const NAME: &'static str = Q::BLOOM;
    const UNIFORM_HASHES: bool = Q::UNIFORM;
    const CRATE: &'static str = "bloom";
    const FAMILY: Family = Family::Bloom;
    const PEER: bool = false;
    const HASHER: &'static str = HASHER;
    const DYNAMIC: bool = true;
    const REMOVE: bool = false;
    const SIZED: bool = true;

    fn build(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = Q::bloom(bloom::BloomFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?)?;
        for k in keys {
            f.insert(k);
        }
        Ok(Bloom(f))
    }
    const BATCH_INSERT: bool = true;
    fn build_batch(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = Q::bloom(bloom::BloomFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?)?;
        f.insert_batch(keys);
        Ok(Bloom(f))
    }
    const SHARED_INSERT: bool = true;
    fn build_shared(keys: &[u64], target: Target) -> Result<Self> {
        let f = Q::atomic_bloom(bloom::AtomicBloomFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?)?;
        let f = shared_build(f, keys, |f, k| f.insert(&k));
        Ok(Bloom(f.into()))
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    const BATCH: bool = true;
    fn count_batch(&self, keys: &[u64]) -> usize {
        self.0.contains_batch(keys).filter(|&found| found).count()
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
    fn lines_per_hit(&self) -> usize {
        self.0.hashes() as usize
    }
    fn params(&self) -> String {
        format!("k={}, {} bits", self.0.hashes(), self.0.bits())
    }
    fn expected_fpr(&self, n: usize) -> f64 {
        bloom_fpr(self.0.bits(), n, self.0.hashes()).unwrap_or(f64::NAN)
    }
}

/// `bloom::BlockedBloomFilter`: 256-bit blocks, one bit in each of eight
/// 32-bit lanes.
pub(crate) struct Blocked<Q: Quality = AnyHashes>(bloom::BlockedBloomFilter<Cheap64, Q>);

/// The block of `bloom::BlockedBloomFilter`: 256 bits.
const BLOCK_BITS: u32 = bloom::BLOCK_BITS;

impl<Q: Quality> Subject for Blocked<Q> {
    const NAME: &'static str = Q::BLOCKED;
    const UNIFORM_HASHES: bool = Q::UNIFORM;
    const CRATE: &'static str = "bloom";
    const FAMILY: Family = Family::BlockedBloom;
    const PEER: bool = false;
    const HASHER: &'static str = HASHER;
    const DYNAMIC: bool = true;
    const REMOVE: bool = false;
    const SIZED: bool = true;

    fn build(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = Q::blocked(bloom::BlockedBloomFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?)?;
        for k in keys {
            f.insert(k);
        }
        Ok(Blocked(f))
    }
    const BATCH_INSERT: bool = true;
    fn build_batch(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = Q::blocked(bloom::BlockedBloomFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?)?;
        f.insert_batch(keys);
        Ok(Blocked(f))
    }
    const SHARED_INSERT: bool = true;
    fn build_shared(keys: &[u64], target: Target) -> Result<Self> {
        let f = Q::atomic_blocked(bloom::AtomicBlockedBloomFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?)?;
        let f = shared_build(f, keys, |f, k| f.insert(&k));
        Ok(Blocked(f.into()))
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    const BATCH: bool = true;
    fn count_batch(&self, keys: &[u64]) -> usize {
        self.0.contains_batch(keys).filter(|&found| found).count()
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
    fn lines_per_hit(&self) -> usize {
        1
    }
    fn params(&self) -> String {
        format!(
            "k={}, {BLOCK_BITS}-bit blocks, {} bits",
            self.0.hashes(),
            self.0.bits()
        )
    }
    fn expected_fpr(&self, n: usize) -> f64 {
        blocked_bloom_fpr(
            self.0.bits(),
            n,
            self.0.hashes(),
            BLOCK_BITS,
            BlockLayout::Split,
        )
        .unwrap_or(f64::NAN)
    }
}

/// `counting_bloom::CountingBloomFilter`.
pub(crate) struct Counting<Q: Quality = AnyHashes>(counting_bloom::CountingBloomFilter<Cheap64, Q>);

impl<Q: Quality> Subject for Counting<Q> {
    const NAME: &'static str = Q::COUNTING;
    const UNIFORM_HASHES: bool = Q::UNIFORM;
    const CRATE: &'static str = "counting-bloom";
    const FAMILY: Family = Family::CountingBloom;
    const PEER: bool = false;
    const HASHER: &'static str = HASHER;
    const DYNAMIC: bool = true;
    const REMOVE: bool = true;
    const SIZED: bool = true;

    fn build(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = Q::counting(counting_bloom::CountingBloomFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?)?;
        for k in keys {
            f.insert(k);
        }
        Ok(Counting(f))
    }
    const BATCH_INSERT: bool = true;
    fn build_batch(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = Q::counting(counting_bloom::CountingBloomFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?)?;
        f.insert_batch(keys);
        Ok(Counting(f))
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    const BATCH: bool = true;
    fn count_batch(&self, keys: &[u64]) -> usize {
        self.0.contains_batch(keys).filter(|&found| found).count()
    }
    #[inline(always)]
    fn remove(&mut self, key: u64) -> bool {
        self.0.remove(&key)
    }
    const BATCH_REMOVE: bool = true;
    fn remove_batch(&mut self, keys: &[u64]) -> usize {
        self.0.remove_batch(keys)
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
    fn lines_per_hit(&self) -> usize {
        self.0.hashes() as usize
    }
    fn params(&self) -> String {
        format!(
            "k={}, {} 4-bit counters",
            self.0.hashes(),
            self.0.counters()
        )
    }
    fn expected_fpr(&self, n: usize) -> f64 {
        bloom_fpr(self.0.counters(), n, self.0.hashes()).unwrap_or(f64::NAN)
    }
}

/// `counting_bloom::BlockedCountingBloomFilter`: each key's counters in two
/// 64-byte blocks.
pub(crate) struct BlockedCounting<Q: Quality = AnyHashes>(
    counting_bloom::BlockedCountingBloomFilter<Cheap64, Q>,
);

impl<Q: Quality> Subject for BlockedCounting<Q> {
    const NAME: &'static str = Q::BLOCKED_COUNTING;
    const UNIFORM_HASHES: bool = Q::UNIFORM;
    const CRATE: &'static str = "counting-bloom";
    const FAMILY: Family = Family::CountingBloom;
    const PEER: bool = false;
    const HASHER: &'static str = HASHER;
    const DYNAMIC: bool = true;
    const REMOVE: bool = true;
    const SIZED: bool = true;

    fn build(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = Q::blocked_counting(
            counting_bloom::BlockedCountingBloomFilter::with_fpr_and_hasher(
                keys.len(),
                rate(target)?,
                Cheap64::default(),
            )?,
        )?;
        for k in keys {
            f.insert(k);
        }
        Ok(BlockedCounting(f))
    }
    const BATCH_INSERT: bool = true;
    fn build_batch(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = Q::blocked_counting(
            counting_bloom::BlockedCountingBloomFilter::with_fpr_and_hasher(
                keys.len(),
                rate(target)?,
                Cheap64::default(),
            )?,
        )?;
        f.insert_batch(keys);
        Ok(BlockedCounting(f))
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    const BATCH: bool = true;
    fn count_batch(&self, keys: &[u64]) -> usize {
        self.0.contains_batch(keys).filter(|&found| found).count()
    }
    #[inline(always)]
    fn remove(&mut self, key: u64) -> bool {
        self.0.remove(&key)
    }
    const BATCH_REMOVE: bool = true;
    fn remove_batch(&mut self, keys: &[u64]) -> usize {
        self.0.remove_batch(keys)
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
    fn lines_per_hit(&self) -> usize {
        2
    }
    fn params(&self) -> String {
        format!(
            "k={}, {} blocks of 128 4-bit counters",
            self.0.hashes(),
            self.0.blocks()
        )
    }
    fn expected_fpr(&self, n: usize) -> f64 {
        self.0.expected_fpr(n)
    }
}

/// `cuckoo::CuckooFilter`, of either hash quality.
pub(crate) struct Cuckoo<Q: Quality = AnyHashes>(cuckoo::CuckooFilter<Cheap64, Q>);

impl<Q: Quality> Subject for Cuckoo<Q> {
    const NAME: &'static str = Q::CUCKOO;
    const UNIFORM_HASHES: bool = Q::UNIFORM;
    const CRATE: &'static str = "cuckoo";
    const FAMILY: Family = Family::Cuckoo;
    const PEER: bool = false;
    const HASHER: &'static str = HASHER;
    const DYNAMIC: bool = true;
    const REMOVE: bool = true;
    const SIZED: bool = true;

    fn build(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = Q::cuckoo(cuckoo::CuckooFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?)?;
        for k in keys {
            f.insert(k).map_err(|e| build_error(Self::NAME, e))?;
        }
        Ok(Cuckoo(f))
    }
    const BATCH_INSERT: bool = true;
    fn build_batch(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = Q::cuckoo(cuckoo::CuckooFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?)?;
        f.insert_batch(keys)
            .map_err(|e| build_error(Self::NAME, e))?;
        Ok(Cuckoo(f))
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    const BATCH: bool = true;
    fn count_batch(&self, keys: &[u64]) -> usize {
        self.0.contains_batch(keys).filter(|&found| found).count()
    }
    #[inline(always)]
    fn remove(&mut self, key: u64) -> bool {
        self.0.remove(&key)
    }
    const BATCH_REMOVE: bool = true;
    fn remove_batch(&mut self, keys: &[u64]) -> usize {
        self.0.remove_batch(keys)
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
    fn lines_per_hit(&self) -> usize {
        2
    }
    fn params(&self) -> String {
        format!(
            "{}-bit fingerprints, 4 slots × {} buckets",
            self.0.fingerprint_bits(),
            self.0.buckets()
        )
    }
    fn expected_fpr(&self, n: usize) -> f64 {
        // Up to 8 occupied slots compared, each matching with 1/(2^f − 1).
        let load = n as f64 / (4 * self.0.buckets()) as f64;
        let values = (self.0.fingerprint_bits() as f64).exp2() - 1.0;
        1.0 - (1.0 - 1.0 / values).powf(8.0 * load)
    }
}

/// The four static filters of `xor-filter` share one adapter shape: built
/// with `from_keys_with_hasher`, queried with `contains`.
macro_rules! xor_subject {
    ($adapter:ident, $ty:ident, $family:ident, $bits:literal) => {
        #[doc = concat!("`xor_filter::", stringify!($ty), "`.")]
        pub(crate) struct $adapter(xor_filter::$ty<Cheap64>);

        impl Subject for $adapter {
            const NAME: &'static str = stringify!($ty);
            const CRATE: &'static str = "xor-filter";
            const FAMILY: Family = Family::$family;
            const PEER: bool = false;
            const HASHER: &'static str = HASHER;
            const DYNAMIC: bool = false;
            const REMOVE: bool = false;
            const SIZED: bool = false;

            fn build(keys: &[u64], _: Target) -> Result<Self> {
                xor_filter::$ty::from_keys_with_hasher(keys, Cheap64::default())
                    .map($adapter)
                    .map_err(|e| build_error(Self::NAME, e))
            }
            #[inline(always)]
            fn contains(&self, key: u64) -> bool {
                self.0.contains(&key)
            }
            const BATCH: bool = true;
            fn count_batch(&self, keys: &[u64]) -> usize {
                self.0.contains_batch(keys).filter(|&found| found).count()
            }
            fn memory_bytes(&self) -> usize {
                self.0.memory_bytes()
            }
            fn lines_per_hit(&self) -> usize {
                3
            }
            fn params(&self) -> String {
                format!(
                    "{}-bit fingerprints, {} slots",
                    $bits,
                    self.0.memory_bytes() * 8 / $bits
                )
            }
            fn expected_fpr(&self, _: usize) -> f64 {
                (-f64::from($bits)).exp2()
            }
        }
    };
}

xor_subject!(Xor8, Xor8, Xor8, 8);
xor_subject!(Xor16, Xor16, Xor16, 16);
xor_subject!(BinaryFuse8, BinaryFuse8, BinaryFuse8, 8);
xor_subject!(BinaryFuse16, BinaryFuse16, BinaryFuse16, 16);
