//! Adapters for the workspace's own filters.
//!
//! Each gets [`Cheap64`] as its `BuildHasher` (the `*_and_hasher`
//! constructors, or the `*_hash` methods with `Cheap64::hash(key)` for the
//! static filters' `from_hashes`), like the peers that accept one.

use filter_core::sizing::bloom_fpr;

use super::Result;
use super::measure::{Entry, entry};
use super::subject::{Family, Subject, Target, build_error};
use super::workload::Cheap64;

/// Every one of our filters, in report order.
pub(crate) fn entries() -> Vec<Entry> {
    vec![entry::<Counting>(), entry::<Cuckoo>()]
}

const HASHER: &str = "Cheap64 (as its BuildHasher)";

fn rate(target: Target) -> Result<f64> {
    match target {
        Target::Rate(p) => Ok(p),
        Target::Fixed => Err("a sized filter needs a target rate".into()),
    }
}

/// `counting_bloom::CountingBloomFilter`.
pub(crate) struct Counting(counting_bloom::CountingBloomFilter<Cheap64>);

impl Subject for Counting {
    const NAME: &'static str = "CountingBloomFilter";
    const CRATE: &'static str = "counting-bloom";
    const FAMILY: Family = Family::CountingBloom;
    const PEER: bool = false;
    const HASHER: &'static str = HASHER;
    const DYNAMIC: bool = true;
    const REMOVE: bool = true;
    const SIZED: bool = true;

    fn build(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = counting_bloom::CountingBloomFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?;
        for k in keys {
            f.insert(k).map_err(|e| build_error(Self::NAME, e))?;
        }
        Ok(Counting(f))
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    #[inline(always)]
    fn remove(&mut self, key: u64) -> bool {
        self.0.remove(&key)
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
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

/// `cuckoo::CuckooFilter`.
pub(crate) struct Cuckoo(cuckoo::CuckooFilter<Cheap64>);

impl Subject for Cuckoo {
    const NAME: &'static str = "CuckooFilter";
    const CRATE: &'static str = "cuckoo";
    const FAMILY: Family = Family::Cuckoo;
    const PEER: bool = false;
    const HASHER: &'static str = HASHER;
    const DYNAMIC: bool = true;
    const REMOVE: bool = true;
    const SIZED: bool = true;

    fn build(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = cuckoo::CuckooFilter::with_fpr_and_hasher(
            keys.len(),
            rate(target)?,
            Cheap64::default(),
        )?;
        for k in keys {
            f.insert(k).map_err(|e| build_error(Self::NAME, e))?;
        }
        Ok(Cuckoo(f))
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    #[inline(always)]
    fn remove(&mut self, key: u64) -> bool {
        self.0.remove(&key)
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
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
