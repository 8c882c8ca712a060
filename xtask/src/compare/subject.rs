//! The one small trait a filter implements to appear in the report.
//!
//! A row is a filter type, a key type and a target rate. The harness is
//! generic over [`Subject`], so each filter's timing loop is monomorphized
//! and inlined: no virtual call sits between the clock and the filter.
//! Adapters are short because our filters share their traits
//! (`filter_core::{Filter, Insert, Remove, BatchContains}`): see `ours`.

use std::hash::Hash;

use super::Result;

/// The rate a row is built for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Target {
    /// A filter sized for this false-positive rate (`with_fpr` and friends).
    Rate(f64),
    /// A filter whose rate follows from its layout (Xor8: 2^-8).
    Fixed,
}

impl Target {
    /// The rate asked for.
    pub(crate) fn rate(self) -> Result<f64> {
        match self {
            Target::Rate(p) => Ok(p),
            Target::Fixed => Err("a sized filter needs a target rate".into()),
        }
    }
}

/// The kind of filter a row is: orders the tables, pairs each of our
/// filters with its peers, colours the charts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Family {
    Bloom,
    BlockedBloom,
    ScalableBloom,
    CountingBloom,
    BlockedCountingBloom,
    DLeftCountingBloom,
    Cuckoo,
    ScalableCuckoo,
    Quotient,
    Xor8,
    Xor16,
    BinaryFuse8,
    BinaryFuse16,
    Ribbon,
}

/// What the report says about a filter type, apart from its measurements.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Info {
    /// The type's name, e.g. `BloomFilter`.
    pub(crate) name: &'static str,
    /// The crate it comes from, with the version for peers.
    pub(crate) krate: &'static str,
    pub(crate) family: Family,
    /// A peer crate, measured for comparison.
    pub(crate) peer: bool,
    /// How keys reach it: the default hasher, a peer's own, `Cheap64`.
    pub(crate) hasher: &'static str,
    /// Built by inserting keys one by one (dynamic), or from all keys at once.
    pub(crate) dynamic: bool,
    /// Sized by a target rate (one row per requested rate) or fixed.
    pub(crate) sized: bool,
    /// Supports `remove`.
    pub(crate) remove: bool,
    /// Has a batched lookup (`contains_batch`): timed as a column of its own.
    pub(crate) batch: bool,
    /// Space and rate depend only on the keys (no thread-local RNG).
    pub(crate) deterministic: bool,
}

impl Info {
    /// A row of ours with the default hasher: no removes, no batch yet.
    pub(crate) const fn ours(name: &'static str, family: Family, dynamic: bool) -> Info {
        Info {
            name,
            krate: "",
            family,
            peer: false,
            hasher: "default",
            dynamic,
            sized: true,
            remove: false,
            batch: true,
            deterministic: true,
        }
    }

    /// A peer row with its own hasher. Not held to determinism: some seed
    /// their hashers or their evictions at random.
    pub(crate) const fn peer(
        name: &'static str,
        krate: &'static str,
        family: Family,
        hasher: &'static str,
    ) -> Info {
        Info {
            name,
            krate,
            family,
            peer: true,
            hasher,
            dynamic: true,
            sized: true,
            remove: false,
            batch: false,
            deterministic: false,
        }
    }
}

/// A key type the report measures: `u64` ids and 16–64-byte strings.
pub(crate) trait Key: Hash + Clone + Send + Sync + 'static {
    /// The name the report gives the key type.
    const NAME: &'static str;
    /// A 64-bit hash for peers that take hashes or `u64` keys only: the
    /// key itself for `u64`, XXH3-64 of the bytes for strings, as a user of
    /// such a crate would write it.
    fn to_u64(&self) -> u64;
}

impl Key for u64 {
    const NAME: &'static str = "u64";
    #[inline(always)]
    fn to_u64(&self) -> u64 {
        *self
    }
}

impl Key for String {
    const NAME: &'static str = "string";
    #[inline(always)]
    fn to_u64(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(self.as_bytes())
    }
}

/// A filter under measurement, driven with keys of type `K`.
pub(crate) trait Subject<K: Key>: Sized {
    const INFO: Info;

    /// Builds the filter holding all `keys` (distinct).
    fn build(keys: &[K], target: Target) -> Result<Self>;
    /// Membership query.
    fn contains(&self, key: &K) -> bool;
    /// How many of `keys` the batched lookup reports present; only called
    /// when [`Info::batch`].
    fn count_batch(&self, keys: &[K]) -> usize {
        keys.iter().filter(|k| self.contains(k)).count()
    }
    /// Removes one copy of `key`; only called when [`Info::remove`].
    fn remove(&mut self, _key: &K) -> bool {
        false
    }
    /// Bytes of the filter's tables.
    fn memory_bytes(&self) -> usize;
    /// Cache lines at independent positions a member lookup reads (what its
    /// memory floor is measured with).
    fn lines_per_hit(&self) -> usize;
}

/// Fails the build with a message naming the filter.
pub(crate) fn build_error(name: &str, error: impl std::fmt::Display) -> super::Error {
    format!("{name}: construction failed: {error}").into()
}
