//! Adapters for the peer crates: the filters a Rust user would otherwise
//! reach for, measured on the same keys in the same run.
//!
//! Those that accept a hasher (fastbloom, cuckoofilter) get [`Cheap64`];
//! those that take a 64-bit hash or key directly (sbbf-rs-safe, xorf) get
//! `Cheap64::hash(key)`. Every row, ours included, thus pays for the same
//! hash function, and the differences are the filters'.

use filter_core::sizing::{BlockLayout, blocked_bloom_bits, blocked_bloom_fpr};
use xorf::Filter as _;

use super::Result;
use super::measure::{Entry, entry};
use super::subject::{Family, Subject, Target, build_error, shared_build};
use super::workload::Cheap64;

/// Every peer row, in report order.
pub(crate) fn entries() -> Vec<Entry> {
    vec![
        entry::<FastBloom>(),
        entry::<Sbbf>(),
        entry::<CuckooPeer>(),
        entry::<XorfXor8>(),
        entry::<XorfXor16>(),
        entry::<XorfBinaryFuse8>(),
        entry::<XorfBinaryFuse16>(),
    ]
}

const CHEAP64: &str = "Cheap64 (as its BuildHasher)";
const CHEAP64_HASHED: &str = "Cheap64 (key hashed, hash passed in)";

fn rate(target: Target) -> Result<f64> {
    match target {
        Target::Rate(p) => Ok(p),
        Target::Fixed => Err("a sized filter needs a target rate".into()),
    }
}

fn hashes(keys: &[u64]) -> Vec<u64> {
    keys.iter().map(|&k| Cheap64::hash(k)).collect()
}

/// `fastbloom::BloomFilter`: a classic Bloom filter whose k bits are derived
/// from one 64-bit hash.
pub(crate) struct FastBloom(fastbloom::BloomFilter<Cheap64>);

impl Subject for FastBloom {
    const FAMILY: Family = Family::Bloom;
    const NAME: &'static str = "BloomFilter";
    const CRATE: &'static str = "fastbloom 0.17";
    const PEER: bool = true;
    const HASHER: &'static str = CHEAP64;
    const DYNAMIC: bool = true;
    const REMOVE: bool = false;
    const SIZED: bool = true;

    fn build(keys: &[u64], target: Target) -> Result<Self> {
        let mut f = fastbloom::BloomFilter::with_false_pos(rate(target)?)
            .hasher(Cheap64::default())
            .expected_items(keys.len());
        for k in keys {
            f.insert(k);
        }
        Ok(FastBloom(f))
    }
    const SHARED_INSERT: bool = true;
    /// Through fastbloom's own `AtomicBloomFilter`, rebuilt into a
    /// `BloomFilter` from its bits (fastbloom has no conversion).
    fn build_shared(keys: &[u64], target: Target) -> Result<Self> {
        let f = fastbloom::AtomicBloomFilter::with_false_pos(rate(target)?)
            .hasher(Cheap64::default())
            .expected_items(keys.len());
        let f = shared_build(f, keys, |f, k| {
            f.insert(&k);
        });
        let bits = fastbloom::BloomFilter::from_vec(f.iter().collect())
            .hasher(Cheap64::default())
            .hashes(f.num_hashes());
        Ok(FastBloom(bits))
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    fn memory_bytes(&self) -> usize {
        size_of_val(self.0.as_slice())
    }
    fn lines_per_hit(&self) -> usize {
        self.0.num_hashes() as usize
    }
    fn params(&self) -> String {
        format!("k={}, {} bits", self.0.num_hashes(), self.0.num_bits())
    }
    fn expected_fpr(&self, n: usize) -> f64 {
        self.0.expected_false_pos(n)
    }
}

/// `sbbf-rs-safe`: Parquet's split-block Bloom filter (256-bit blocks, one
/// bit in each of eight 32-bit lanes), SIMD-accelerated.
pub(crate) struct Sbbf(sbbf_rs_safe::Filter);

/// Parquet's split block: 256 bits, 8 lanes.
const SBBF_BLOCK_BITS: u32 = 256;
const SBBF_HASHES: u32 = 8;

impl Subject for Sbbf {
    const FAMILY: Family = Family::BlockedBloom;
    const NAME: &'static str = "SplitBlockBloom";
    const CRATE: &'static str = "sbbf-rs-safe 0.3";
    const PEER: bool = true;
    const HASHER: &'static str = CHEAP64_HASHED;
    const DYNAMIC: bool = true;
    const REMOVE: bool = false;
    const SIZED: bool = true;

    fn build(keys: &[u64], target: Target) -> Result<Self> {
        // sbbf-rs-safe is sized in whole bits per key; take the smallest
        // that meets the target by the split-block model.
        let bits = blocked_bloom_bits(
            keys.len(),
            rate(target)?,
            SBBF_HASHES,
            SBBF_BLOCK_BITS,
            BlockLayout::Split,
        )?;
        let bits_per_key = bits.div_ceil(keys.len() as u64) as usize;
        let mut f = sbbf_rs_safe::Filter::new(bits_per_key, keys.len());
        for &k in keys {
            f.insert_hash(Cheap64::hash(k));
        }
        Ok(Sbbf(f))
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0.contains_hash(Cheap64::hash(key))
    }
    fn memory_bytes(&self) -> usize {
        self.0.as_bytes().len()
    }
    fn lines_per_hit(&self) -> usize {
        1
    }
    fn params(&self) -> String {
        format!(
            "k={SBBF_HASHES}, {}-bit blocks, {} bits",
            SBBF_BLOCK_BITS,
            self.memory_bytes() * 8
        )
    }
    fn expected_fpr(&self, n: usize) -> f64 {
        blocked_bloom_fpr(
            self.memory_bytes() as u64 * 8,
            n,
            SBBF_HASHES,
            SBBF_BLOCK_BITS,
            BlockLayout::Split,
        )
        .unwrap_or(f64::NAN)
    }
}

/// `cuckoofilter`: 8-bit fingerprints in 4-slot buckets, a power-of-two
/// bucket count; evictions draw from `rand::thread_rng`, so its table (and
/// the last digits of its FPR) differ from run to run.
pub(crate) struct CuckooPeer {
    filter: cuckoofilter::CuckooFilter<Cheap64>,
    buckets: usize,
    retries: u32,
}

impl Subject for CuckooPeer {
    const FAMILY: Family = Family::Cuckoo;
    const NAME: &'static str = "CuckooFilter";
    const CRATE: &'static str = "cuckoofilter 0.5";
    const PEER: bool = true;
    const HASHER: &'static str = CHEAP64;
    const DYNAMIC: bool = true;
    const REMOVE: bool = true;
    const SIZED: bool = false;
    const DETERMINISTIC: bool = false;

    fn build(keys: &[u64], _: Target) -> Result<Self> {
        // `with_capacity(n)` rounds the slots up to a power of two; near the
        // top of that range an insert can fail, and a failed insert drops a
        // random earlier key. A user's only recourse is a larger filter, so
        // a failure doubles the capacity and counts as a retry.
        let mut capacity = keys.len();
        for retries in 0..8 {
            let mut filter = cuckoofilter::CuckooFilter::<Cheap64>::with_capacity(capacity);
            if keys.iter().all(|k| filter.add(k).is_ok()) {
                let buckets = capacity.next_power_of_two() / 4;
                return Ok(CuckooPeer {
                    filter,
                    buckets,
                    retries,
                });
            }
            capacity *= 2;
        }
        Err(build_error(Self::NAME, "inserts failed at 8 doublings"))
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.filter.contains(&key)
    }
    #[inline(always)]
    fn remove(&mut self, key: u64) -> bool {
        self.filter.delete(&key)
    }
    fn memory_bytes(&self) -> usize {
        self.filter.memory_usage() - size_of_val(&self.filter)
    }
    fn lines_per_hit(&self) -> usize {
        2
    }
    fn params(&self) -> String {
        format!("8-bit fingerprints, 4 slots × {} buckets", self.buckets)
    }
    fn expected_fpr(&self, n: usize) -> f64 {
        // A lookup compares with the occupied slots of two buckets (8·load on
        // average); each matches with probability 1/255 (255 usable values).
        let load = n as f64 / (4 * self.buckets) as f64;
        1.0 - (1.0 - 1.0 / 255.0f64).powf(8.0 * load)
    }
    fn retries(&self) -> Option<u32> {
        Some(self.retries)
    }
}

/// xorf's four static filters share one adapter shape: built from the
/// hashed keys, queried with the hashed key.
macro_rules! xorf_subject {
    ($adapter:ident, $ty:ty, $name:literal, $family:ident, $bits:literal, $build:expr) => {
        #[doc = concat!("`xorf::", $name, "`.")]
        pub(crate) struct $adapter($ty);

        impl Subject for $adapter {
            const NAME: &'static str = $name;
            const CRATE: &'static str = "xorf 0.13";
            const FAMILY: Family = Family::$family;
            const PEER: bool = true;
            const HASHER: &'static str = CHEAP64_HASHED;
            const DYNAMIC: bool = false;
            const REMOVE: bool = false;
            const SIZED: bool = false;

            fn build(keys: &[u64], _: Target) -> Result<Self> {
                let build: fn(&[u64]) -> Result<$ty> = $build;
                build(&hashes(keys)).map($adapter)
            }
            #[inline(always)]
            fn contains(&self, key: u64) -> bool {
                self.0.contains(&Cheap64::hash(key))
            }
            fn memory_bytes(&self) -> usize {
                size_of_val(&*self.0.fingerprints)
            }
            fn lines_per_hit(&self) -> usize {
                3
            }
            fn params(&self) -> String {
                format!(
                    "{}-bit fingerprints, {} slots",
                    $bits,
                    self.0.fingerprints.len()
                )
            }
            fn expected_fpr(&self, _: usize) -> f64 {
                (-f64::from($bits)).exp2()
            }
        }
    };
}

xorf_subject!(XorfXor8, xorf::Xor8, "Xor8", Xor8, 8, |h| Ok(
    xorf::Xor8::from(h)
));
xorf_subject!(XorfXor16, xorf::Xor16, "Xor16", Xor16, 16, |h| Ok(
    xorf::Xor16::from(h)
));
xorf_subject!(
    XorfBinaryFuse8,
    xorf::BinaryFuse8,
    "BinaryFuse8",
    BinaryFuse8,
    8,
    |h| { xorf::BinaryFuse8::try_from(h).map_err(|e| build_error("BinaryFuse8", e)) }
);
xorf_subject!(
    XorfBinaryFuse16,
    xorf::BinaryFuse16,
    "BinaryFuse16",
    BinaryFuse16,
    16,
    |h| xorf::BinaryFuse16::try_from(h).map_err(|e| build_error("BinaryFuse16", e))
);
