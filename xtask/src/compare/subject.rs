//! The one small trait a filter implements to appear in the report.
//!
//! Adding a filter is one adapter: a type implementing [`Subject`] and one
//! line in the registry (`ours::entries` or `peers::entries`). The harness is
//! generic over the trait, so each filter's timing loop is monomorphized and
//! inlined: no virtual call sits between the clock and the filter.

use super::Result;

/// The rate a row is built for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Target {
    /// A filter sized for this false-positive rate (`with_fpr` and friends).
    Rate(f64),
    /// A filter whose rate follows from its layout (Xor8: 2^-8).
    Fixed,
}

/// The kind of filter a row is, for ordering the report and pairing each of
/// our filters with its closest peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Family {
    Bloom,
    BlockedBloom,
    CountingBloom,
    Cuckoo,
    Xor8,
    Xor16,
    BinaryFuse8,
    BinaryFuse16,
}

/// A filter under measurement, driven with `u64` keys.
///
/// Every method takes the raw key; the adapter hashes it with
/// [`Cheap64`](super::workload::Cheap64) (or hands it to a filter that
/// accepts that hasher), so every row pays the same hashing cost.
pub(crate) trait Subject: Sized {
    /// The type's name, e.g. `BloomFilter`.
    const NAME: &'static str;
    /// The crate it comes from, with the version for peers.
    const CRATE: &'static str;
    /// Which kind of filter it is.
    const FAMILY: Family;
    /// A peer crate, measured for comparison.
    const PEER: bool;
    /// How keys are hashed, as the report states it.
    const HASHER: &'static str;
    /// Built by inserting keys one by one (dynamic) rather than from the
    /// whole key set at once (static).
    const DYNAMIC: bool;
    /// Supports `remove`.
    const REMOVE: bool;
    /// Sized by a target rate (one row per requested rate) or fixed.
    const SIZED: bool;
    /// One of ours built with `UniformHashes`: it takes each hash as it is,
    /// as the peers do, where the default mixes it first (see
    /// `quality.rs`). Shown in the tables, left out of the advice and the
    /// charts.
    const UNIFORM_HASHES: bool = false;
    /// The built table depends only on the keys (no thread-local RNG), so
    /// its space and FPR are reproducible from the seed.
    const DETERMINISTIC: bool = true;

    /// Builds the filter holding all `keys` (distinct).
    fn build(keys: &[u64], target: Target) -> Result<Self>;
    /// Has a batched insert (`insert_batch`, our dynamic filters only):
    /// [`Self::build_batch`] is timed as a build of its own.
    const BATCH_INSERT: bool = false;
    /// Builds the filter holding all `keys` through its batched insert;
    /// only called when [`Self::BATCH_INSERT`].
    fn build_batch(_keys: &[u64], _target: Target) -> Result<Self> {
        Err(format!("{}: no batched insert", Self::NAME).into())
    }
    /// Has an atomic twin that threads insert into at once, through
    /// `&self` (`bloom`'s `AtomicBloomFilter` and `AtomicBlockedBloomFilter`):
    /// [`Self::build_shared`] is timed as a build of its own.
    const SHARED_INSERT: bool = false;
    /// Builds the filter holding all `keys` by [`SHARED_THREADS`] threads
    /// inserting a contiguous share each into its atomic twin at once (see
    /// [`shared_build`]), then converted back; only called when
    /// [`Self::SHARED_INSERT`].
    fn build_shared(_keys: &[u64], _target: Target) -> Result<Self> {
        Err(format!("{}: no atomic twin", Self::NAME).into())
    }
    /// Membership query.
    fn contains(&self, key: u64) -> bool;
    /// Has a batched lookup (`contains_batch`, ours only): timed on the
    /// mixed queries as a column of its own.
    const BATCH: bool = false;
    /// How many of `keys` the batched lookup reports present; only called
    /// when [`Self::BATCH`].
    fn count_batch(&self, keys: &[u64]) -> usize {
        keys.iter().filter(|&&k| self.contains(k)).count()
    }
    /// Removes one copy of `key`; only called when [`Self::REMOVE`].
    fn remove(&mut self, _key: u64) -> bool {
        false
    }
    /// Has a batched remove (`remove_batch`, our removing filters only):
    /// [`Self::remove_batch`] is timed as a column of its own.
    const BATCH_REMOVE: bool = false;
    /// Removes one copy of each of `keys`, in order, through the filter's
    /// batched remove; returns how many removals succeeded. Only called
    /// when [`Self::BATCH_REMOVE`].
    fn remove_batch(&mut self, keys: &[u64]) -> usize {
        keys.iter().map(|&k| usize::from(self.remove(k))).sum()
    }
    /// Bytes of the filter's tables.
    fn memory_bytes(&self) -> usize;
    /// How many cache lines at independent positions a lookup of a member
    /// reads (k for a classic Bloom filter, one block, two buckets, three
    /// fingerprints): what its memory floor is measured with
    /// ([`MemoryFloor`](super::floor::MemoryFloor)).
    fn lines_per_hit(&self) -> usize;
    /// The parameters the filter chose (hash count, fingerprint bits, ...).
    fn params(&self) -> String;
    /// The false-positive rate theory predicts for this table holding `n` keys.
    fn expected_fpr(&self, n: usize) -> f64;
    /// Construction attempts beyond the first (static filters), when known.
    fn retries(&self) -> Option<u32> {
        None
    }
}

/// Threads that insert into one filter at once in the shared build: as many
/// as the 2-core machines this report is usually made on have cores.
pub(crate) const SHARED_THREADS: usize = 2;

/// `filter` holding all `keys`, inserted by [`SHARED_THREADS`] scoped
/// threads at once through `insert` (which takes `&F`), each thread a
/// contiguous share of the keys.
pub(crate) fn shared_build<F: Sync>(filter: F, keys: &[u64], insert: impl Fn(&F, u64) + Sync) -> F {
    std::thread::scope(|s| {
        for share in keys.chunks(keys.len().div_ceil(SHARED_THREADS).max(1)) {
            let (filter, insert) = (&filter, &insert);
            s.spawn(move || share.iter().for_each(|&k| insert(filter, k)));
        }
    });
    filter
}

/// Fails the build with a message naming the filter.
pub(crate) fn build_error(name: &str, error: impl std::fmt::Display) -> super::Error {
    format!("{name}: construction failed: {error}").into()
}
