//! Our filters under both hash qualities (`filter_core::hash_quality`).
//!
//! The default type mixes each hash before taking positions from it, so that
//! structured `*_hash` input keeps its rate; the peers take the hash as it
//! is. A row of [`UniformHashes`] measures ours the peers' way, on the same
//! `Cheap64` hashes: the like-for-like comparison, and what the mixer costs.
//! Such rows appear in the tables, beside the default's; the advice and the
//! charts keep to the defaults, which are what to pick unless every hash is
//! known to be uniform.

use cuckoo::CuckooFilter;
use filter_core::{AnyHashes, HashQuality, UniformHashes};

use super::Result;
use super::workload::Cheap64;

/// A hash quality an adapter can be built with: its rows' names, and how a
/// new (empty) filter of the default quality becomes one of it.
pub(crate) trait Quality: HashQuality {
    /// The `CuckooFilter` row's name.
    const CUCKOO: &'static str;

    /// `filter`, empty, as a filter of this quality.
    fn cuckoo(filter: CuckooFilter<Cheap64>) -> Result<CuckooFilter<Cheap64, Self>>;
}

impl Quality for AnyHashes {
    const CUCKOO: &'static str = "CuckooFilter";

    fn cuckoo(filter: CuckooFilter<Cheap64>) -> Result<CuckooFilter<Cheap64, Self>> {
        Ok(filter)
    }
}

impl Quality for UniformHashes {
    const CUCKOO: &'static str = "CuckooFilter (UniformHashes)";

    fn cuckoo(filter: CuckooFilter<Cheap64>) -> Result<CuckooFilter<Cheap64, Self>> {
        Ok(filter.assume_uniform_hashes()?)
    }
}
