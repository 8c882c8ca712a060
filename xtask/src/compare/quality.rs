//! Our filters under both hash qualities (`filter_core::hash_quality`).
//!
//! The default type mixes each hash before taking positions from it, so that
//! structured `*_hash` input keeps its rate; the peers take the hash as it
//! is. A row of [`UniformHashes`] measures ours the peers' way, on the same
//! `Cheap64` hashes: the like-for-like comparison, and what the mixer costs.
//! Such rows appear in the tables, beside the default's; the advice and the
//! charts keep to the defaults, which are what to pick unless every hash is
//! known to be uniform.

use bloom::{AtomicBlockedBloomFilter, AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
use counting_bloom::{BlockedCountingBloomFilter, CountingBloomFilter};
use cuckoo::CuckooFilter;
use filter_core::{AnyHashes, HashQuality, UniformHashes};

use super::Result;
use super::workload::Cheap64;

/// A hash quality an adapter can be built with: its rows' names, and how a
/// new (empty) filter of the default quality becomes one of it.
pub(crate) trait Quality: HashQuality {
    /// The `BloomFilter` row's name.
    const BLOOM: &'static str;
    /// The `BlockedBloomFilter` row's name.
    const BLOCKED: &'static str;
    /// The `CountingBloomFilter` row's name.
    const COUNTING: &'static str;
    /// The `BlockedCountingBloomFilter` row's name.
    const BLOCKED_COUNTING: &'static str;
    /// The `CuckooFilter` row's name.
    const CUCKOO: &'static str;

    /// `filter`, empty, as a filter of this quality.
    fn bloom(filter: BloomFilter<Cheap64>) -> Result<BloomFilter<Cheap64, Self>>;
    /// `filter`, empty, as a filter of this quality.
    fn blocked(filter: BlockedBloomFilter<Cheap64>) -> Result<BlockedBloomFilter<Cheap64, Self>>;
    /// `filter`, empty, as a filter of this quality.
    fn atomic_bloom(filter: AtomicBloomFilter<Cheap64>)
    -> Result<AtomicBloomFilter<Cheap64, Self>>;
    /// `filter`, empty, as a filter of this quality.
    fn atomic_blocked(
        filter: AtomicBlockedBloomFilter<Cheap64>,
    ) -> Result<AtomicBlockedBloomFilter<Cheap64, Self>>;
    /// `filter`, empty, as a filter of this quality.
    fn counting(filter: CountingBloomFilter<Cheap64>)
    -> Result<CountingBloomFilter<Cheap64, Self>>;
    /// `filter`, empty, as a filter of this quality.
    fn blocked_counting(
        filter: BlockedCountingBloomFilter<Cheap64>,
    ) -> Result<BlockedCountingBloomFilter<Cheap64, Self>>;
    /// `filter`, empty, as a filter of this quality.
    fn cuckoo(filter: CuckooFilter<Cheap64>) -> Result<CuckooFilter<Cheap64, Self>>;
}

impl Quality for AnyHashes {
    const BLOOM: &'static str = "BloomFilter";
    const BLOCKED: &'static str = "BlockedBloomFilter";
    const COUNTING: &'static str = "CountingBloomFilter";
    const BLOCKED_COUNTING: &'static str = "BlockedCountingBloomFilter";
    const CUCKOO: &'static str = "CuckooFilter";

    fn counting(
        filter: CountingBloomFilter<Cheap64>,
    ) -> Result<CountingBloomFilter<Cheap64, Self>> {
        Ok(filter)
    }
    fn blocked_counting(
        filter: BlockedCountingBloomFilter<Cheap64>,
    ) -> Result<BlockedCountingBloomFilter<Cheap64, Self>> {
        Ok(filter)
    }

    fn bloom(filter: BloomFilter<Cheap64>) -> Result<BloomFilter<Cheap64, Self>> {
        Ok(filter)
    }
    fn blocked(filter: BlockedBloomFilter<Cheap64>) -> Result<BlockedBloomFilter<Cheap64, Self>> {
        Ok(filter)
    }
    fn atomic_bloom(
        filter: AtomicBloomFilter<Cheap64>,
    ) -> Result<AtomicBloomFilter<Cheap64, Self>> {
        Ok(filter)
    }
    fn atomic_blocked(
        filter: AtomicBlockedBloomFilter<Cheap64>,
    ) -> Result<AtomicBlockedBloomFilter<Cheap64, Self>> {
        Ok(filter)
    }

    fn cuckoo(filter: CuckooFilter<Cheap64>) -> Result<CuckooFilter<Cheap64, Self>> {
        Ok(filter)
    }
}

impl Quality for UniformHashes {
    const BLOOM: &'static str = "BloomFilter (UniformHashes)";
    const BLOCKED: &'static str = "BlockedBloomFilter (UniformHashes)";
    const COUNTING: &'static str = "CountingBloomFilter (UniformHashes)";
    const BLOCKED_COUNTING: &'static str = "BlockedCountingBloomFilter (UniformHashes)";
    const CUCKOO: &'static str = "CuckooFilter (UniformHashes)";

    fn counting(
        filter: CountingBloomFilter<Cheap64>,
    ) -> Result<CountingBloomFilter<Cheap64, Self>> {
        Ok(filter.assume_uniform_hashes()?)
    }
    fn blocked_counting(
        filter: BlockedCountingBloomFilter<Cheap64>,
    ) -> Result<BlockedCountingBloomFilter<Cheap64, Self>> {
        Ok(filter.assume_uniform_hashes()?)
    }

    fn bloom(filter: BloomFilter<Cheap64>) -> Result<BloomFilter<Cheap64, Self>> {
        Ok(filter.assume_uniform_hashes()?)
    }
    fn blocked(filter: BlockedBloomFilter<Cheap64>) -> Result<BlockedBloomFilter<Cheap64, Self>> {
        Ok(filter.assume_uniform_hashes()?)
    }
    fn atomic_bloom(
        filter: AtomicBloomFilter<Cheap64>,
    ) -> Result<AtomicBloomFilter<Cheap64, Self>> {
        Ok(filter.assume_uniform_hashes()?)
    }
    fn atomic_blocked(
        filter: AtomicBlockedBloomFilter<Cheap64>,
    ) -> Result<AtomicBlockedBloomFilter<Cheap64, Self>> {
        Ok(filter.assume_uniform_hashes()?)
    }

    fn cuckoo(filter: CuckooFilter<Cheap64>) -> Result<CuckooFilter<Cheap64, Self>> {
        Ok(filter.assume_uniform_hashes()?)
    }
}
