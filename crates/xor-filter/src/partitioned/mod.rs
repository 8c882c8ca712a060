//! [`PartitionedBinaryFuse`]: a binary fuse filter built in partitions, one
//! at a time or on separate machines, so that a key set larger than one
//! machine's memory can be filtered.
//!
//! A build of one binary fuse table peaks near 23 bytes per key (see
//! `construct.rs`), 31 with the key hashes: 10^9 keys would need 31 GB.
//! Split by hash into `P` partitions, each built alone as an ordinary binary
//! fuse table, the peak is the finished table (1.1 bytes per key) plus the
//! builds running at once (23 bytes per key of one partition each), plus the
//! hashes where the caller holds them all.
//!
//! Design decisions:
//!
//! - **Its own type and format kind, not a [`BinaryFuse`](crate::BinaryFuse) whose table is the
//!   concatenation.** Each partition has its own seed and layout; the lookup
//!   first picks the partition (one more multiply-mix, and one read of a
//!   small array of partition records, in cache), then reads its three
//!   slots. Folding that step into every [`BinaryFuse`](crate::BinaryFuse) would slow the common,
//!   single-table lookup for the sake of builds that need it; a separate
//!   type keeps the common one as it is. Partitions add at most one segment
//!   of rounding each: for partitions of 10^6 keys or more, under 0.3 % of
//!   the table.
//! - **A key's partition comes from its hash alone**
//!   ([`partition_of_hash`]: a multiply-high of the hash mixed with a
//!   constant that no construction seed uses), so each machine can select
//!   its partition's keys from the whole key stream without coordination.
//! - **Separate builds assemble to identical bytes.** A binary fuse table is
//!   a function of the *set* of hashes it is built from (peeling does not
//!   depend on their order, and the seeds are a fixed sequence), so a
//!   partition built by another process from the same keys is the same
//!   table, and [`assemble`](PartitionedBinaryFuse::assemble) concatenates
//!   partitions in index order into the bytes the in-process build writes.
//!   A [`BinaryFusePartition`] records its index and the partition count,
//!   so assembling the wrong pieces is an error, not a filter with false
//!   negatives.
//! - **Two partitions at once where there are two cores.** The in-process
//!   build works in rounds of `std::thread::available_parallelism()`
//!   partitions: the threads first gather the round's hashes in one pass
//!   over all of them, each scanning its share (so the hashes are read once
//!   per round, not once per partition), then build one partition each (a
//!   partition's peeling is a chain of cache misses that a second thread
//!   could not share), and the finished partitions are appended in index
//!   order.

mod bytes;
mod partition;
mod view;

use std::hash::Hash;
use std::ops::Range;

use filter_core::{Error, Filter, HasherProbe, KeyHasher, PortableHasher, mix64, reduce};

use filter_core::prefetch::prefetch;

use crate::construct;

use crate::fingerprint::Fingerprint;
use crate::layout::{FuseLayout, Layout};
use crate::table::{Table, mixed};

pub use partition::BinaryFusePartition;
use partition::{Assembly, build_one, duplicate};
pub use view::{PartitionedBinaryFuse8Ref, PartitionedBinaryFuse16Ref, PartitionedBinaryFuseRef};

/// The most partitions a filter may have.
pub const MAX_PARTITIONS: usize = 1 << 16;

/// Added to a hash before the mix that picks its partition: an odd constant
/// (the fractional bits of π) that is not among the construction seeds, so
/// that the partition and the positions within it come from unrelated mixes.
const PARTITION_SEED: u64 = 0x243F_6A88_85A3_08D3;

/// The partition, below `partitions`, of the key whose hash is `hash` (as
/// `contains_hash` takes it): what a machine building one partition keeps.
/// `partitions` of 0 or 1 gives partition 0.
///
/// ```
/// use xor_filter::partition_of_hash;
///
/// let hashes: Vec<u64> = (0..1000).collect();
/// let in_3 = hashes.iter().filter(|&&h| partition_of_hash(h, 4) == 3).count();
/// assert!((200..300).contains(&in_3));
/// ```
#[inline]
pub fn partition_of_hash(hash: u64, partitions: usize) -> usize {
    reduce(mix64(hash.wrapping_add(PARTITION_SEED)), partitions)
}

/// The hashes of the partitions in `round`, one vector each, gathered in
/// one pass over `hashes` cut into `threads` pieces scanned at once: each
/// round reads the hashes once, not once per partition. (The order within a
/// vector does not matter: a table depends only on the set of its hashes.)
fn gather_round(
    hashes: &[u64],
    partitions: usize,
    round: Range<usize>,
    threads: usize,
) -> Vec<Vec<u64>> {
    let piece = hashes.len().div_ceil(threads).max(1);
    let pieces: Vec<Vec<Vec<u64>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = hashes
            .chunks(piece)
            .map(|chunk| {
                let round = round.clone();
                scope.spawn(move || {
                    let mut mine = vec![Vec::new(); round.len()];
                    for &h in chunk {
                        let p = partition_of_hash(h, partitions);
                        if round.contains(&p) {
                            mine[p - round.start].push(h);
                        }
                    }
                    mine
                })
            })
            .collect();
        handles.into_iter().map(join).collect()
    });
    let mut merged: Vec<Vec<u64>> = vec![Vec::new(); round.len()];
    for piece in pieces {
        for (whole, part) in merged.iter_mut().zip(piece) {
            if whole.is_empty() {
                *whole = part;
            } else {
                whole.extend_from_slice(&part);
            }
        }
    }
    merged
}

/// A scoped thread's result, its panic passed on.
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

fn check_partitions(partitions: usize) -> Result<(), Error> {
    if (1..=MAX_PARTITIONS).contains(&partitions) {
        Ok(())
    } else {
        Err(Error::invalid(
            "partitions",
            partitions,
            format_args!("from 1 to {MAX_PARTITIONS}"),
        ))
    }
}

/// Where one partition's table lives in the whole and how its keys find
/// their slots there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    pub(crate) seed: u64,
    pub(crate) keys: usize,
    pub(crate) layout: FuseLayout,
    /// The partition's first slot in the whole table.
    pub(crate) start: usize,
    /// One past its last slot: `start + layout.slots()`.
    pub(crate) end: usize,
}

/// A binary fuse filter built in partitions: use the aliases
/// [`PartitionedBinaryFuse8`] and [`PartitionedBinaryFuse16`].
///
/// Each key's hash picks one of `partitions` ordinary binary fuse tables
/// ([`partition_of_hash`]), and the key is a member when that table's three
/// slots xor to its fingerprint: the same false-positive rate as
/// [`BinaryFuse`](crate::BinaryFuse) (2^-8 or 2^-16) and the same bits per
/// key within a fraction of a percent, built in a fraction of the memory
/// (see the [crate docs](crate#design-decisions)), as long as each partition holds 10^6 keys
/// or more (smaller ones pay a small set's larger size factor, as a
/// [`BinaryFuse`](crate::BinaryFuse) of that size does). Build in-process with
/// [`from_hashes`](Self::from_hashes), or one partition at a time anywhere
/// with [`build_partition`](Self::build_partition) and
/// [`assemble`](Self::assemble): the bytes are the same.
///
/// # Invariants
///
/// For every distinct key hash the filter was built from, its partition's
/// three slots xor to its fingerprint: no false negatives.
///
/// # Examples
///
/// ```
/// use xor_filter::PartitionedBinaryFuse8;
///
/// let keys: Vec<u64> = (0..2_000_000).collect();
/// let filter = PartitionedBinaryFuse8::from_keys(&keys, 2)?;
/// assert!(keys.iter().all(|k| filter.contains(k)));
/// assert!(filter.bits_per_key() <= 9.1, "{}", filter.bits_per_key());
///
/// // 2^-8 = 0.39 %: 10^6 non-members give 3906 ± 62 (binomial σ);
/// // 0.39 % × 1.1 + 4σ allows 4545.
/// let fp = (2_000_000..3_000_000u64).filter(|k| filter.contains(k)).count();
/// assert!(fp <= 4545, "{fp}");
/// # Ok::<(), xor_filter::Error>(())
/// ```
#[derive(Clone)]
pub struct PartitionedBinaryFuse<F: Fingerprint, S = PortableHasher> {
    parts: Vec<Part>,
    keys: usize,
    fingerprints: Vec<F>,
    hasher: S,
}

/// A partitioned binary fuse filter with 8-bit fingerprints (2^-8, about
/// 9.0 bits per key). See [`PartitionedBinaryFuse`].
pub type PartitionedBinaryFuse8<S = PortableHasher> = PartitionedBinaryFuse<u8, S>;

/// A partitioned binary fuse filter with 16-bit fingerprints (2^-16, about
/// 18.1 bits per key). See [`PartitionedBinaryFuse`].
pub type PartitionedBinaryFuse16<S = PortableHasher> = PartitionedBinaryFuse<u16, S>;

impl<F: Fingerprint> PartitionedBinaryFuse<F, PortableHasher> {
    /// Builds the filter from `keys` in `partitions` partitions, hashed with
    /// the default hasher. Duplicates are fine.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `partitions` outside 1 to
    /// [`MAX_PARTITIONS`] or a partition of more than
    /// [`MAX_KEYS`](crate::MAX_KEYS) keys; [`Error::ConstructionFailed`] as
    /// for [`BinaryFuse::from_keys`](crate::BinaryFuse::from_keys).
    pub fn from_keys<T: Hash>(keys: &[T], partitions: usize) -> Result<Self, Error> {
        Self::from_keys_with_hasher(keys, partitions, PortableHasher::default())
    }

    /// Builds the filter from pre-hashed keys (see
    /// [`BinaryFuse::from_hashes`](crate::BinaryFuse::from_hashes)).
    ///
    /// # Errors
    ///
    /// As [`from_keys`](Self::from_keys).
    pub fn from_hashes(hashes: &[u64], partitions: usize) -> Result<Self, Error> {
        Self::from_hashes_with_hasher(hashes, partitions, PortableHasher::default())
    }

    /// Builds partition `index` of `partitions` from the hashes of the
    /// whole key set: those whose [`partition_of_hash`] is `index` are kept,
    /// the rest skipped, so each builder can read the same key stream.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `partitions` outside 1 to
    /// [`MAX_PARTITIONS`] or `index` not below it; otherwise as
    /// [`from_keys`](Self::from_keys).
    pub fn build_partition(
        index: usize,
        partitions: usize,
        hashes: impl IntoIterator<Item = u64>,
    ) -> Result<BinaryFusePartition<F>, Error> {
        Self::build_partition_with_hasher(index, partitions, hashes, PortableHasher::default())
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes) with the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for malformed bytes (checksum, header, partition
    /// records, table length) or the bytes of a single partition;
    /// [`Error::HasherMismatch`] for a filter built with a hasher that
    /// hashes differently.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<F: Fingerprint, S: KeyHasher> PartitionedBinaryFuse<F, S> {
    /// Builds the filter from `keys`, hashed with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`from_keys`](PartitionedBinaryFuse::from_keys).
    pub fn from_keys_with_hasher<T: Hash>(
        keys: &[T],
        partitions: usize,
        hasher: S,
    ) -> Result<Self, Error> {
        let mut hashes: Vec<u64> = Vec::new();
        hashes.try_reserve_exact(keys.len()).map_err(|_| {
            Error::invalid(
                "number of keys",
                keys.len(),
                "small enough that their 64-bit hashes can be allocated",
            )
        })?;
        hashes.extend(keys.iter().map(|key| hasher.hash_key(key)));
        Self::from_hashes_with_hasher(&hashes, partitions, hasher)
    }

    /// Builds the filter from hashes made by `hasher`, up to
    /// `available_parallelism()` partitions at a time.
    ///
    /// Peak memory beyond `hashes`: the table (about 1.13 × the fingerprint
    /// width per key) plus, per partition being built, about 31 bytes per
    /// key of that partition (its hashes and the peeling tables).
    ///
    /// # Errors
    ///
    /// As [`from_keys`](PartitionedBinaryFuse::from_keys).
    pub fn from_hashes_with_hasher(
        hashes: &[u64],
        partitions: usize,
        hasher: S,
    ) -> Result<Self, Error> {
        check_partitions(partitions)?;
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .min(partitions);
        let mut whole = Assembly::new(partitions, HasherProbe::of(&hasher));
        let mut next = 0;
        while next < partitions {
            let round = next..(next + threads).min(partitions);
            let buckets = gather_round(hashes, partitions, round.clone(), threads);
            let built: Vec<Result<Table<FuseLayout, F>, Error>> = std::thread::scope(|scope| {
                let handles: Vec<_> = buckets
                    .into_iter()
                    .map(|bucket| scope.spawn(move || construct::build(&bucket)))
                    .collect();
                handles.into_iter().map(join).collect()
            });
            for (index, table) in round.zip(built) {
                whole.push(index, partitions, &table?)?;
            }
            next += threads;
        }
        whole.finish(hasher)
    }

    /// Builds partition `index` of `partitions` (as
    /// [`build_partition`](PartitionedBinaryFuse::build_partition)) from
    /// hashes made by `hasher`.
    ///
    /// # Errors
    ///
    /// As [`build_partition`](PartitionedBinaryFuse::build_partition).
    pub fn build_partition_with_hasher(
        index: usize,
        partitions: usize,
        hashes: impl IntoIterator<Item = u64>,
        hasher: S,
    ) -> Result<BinaryFusePartition<F, S>, Error> {
        check_partitions(partitions)?;
        if index >= partitions {
            return Err(Error::invalid(
                "index",
                index,
                format_args!("below partitions ({partitions})"),
            ));
        }
        Ok(BinaryFusePartition {
            index,
            partitions,
            table: build_one(index, partitions, hashes)?,
            hasher,
        })
    }

    /// Joins separately built partitions, given in any order, into the
    /// filter: the same bytes as [`from_hashes`](Self::from_hashes) builds
    /// from the same hashes in-process. Partitions are consumed one at a
    /// time, so an iterator that loads each from disk keeps one in memory.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the partitions disagree on their count,
    /// one is missing or given twice; [`Error::HasherMismatch`] when their
    /// hashers hash differently; [`Error::InvalidParameter`] for no partitions.
    pub fn assemble(
        parts: impl IntoIterator<Item = BinaryFusePartition<F, S>>,
    ) -> Result<Self, Error> {
        let mut parts = parts.into_iter().peekable();
        let first = parts
            .peek()
            .ok_or_else(|| Error::invalid("parts", 0, "at least one partition"))?;
        let partitions = first.partitions;
        let mut whole = Assembly::new(partitions, HasherProbe::of(&first.hasher));
        // Pieces may come in any order; those ahead of their turn wait.
        let mut waiting: Vec<Option<BinaryFusePartition<F, S>>> = Vec::new();
        let mut hasher = None;
        for part in parts {
            if HasherProbe::of(&part.hasher) != whole.probe {
                return Err(Error::HasherMismatch);
            }
            if part.partitions != partitions {
                return Err(Error::Incompatible {
                    parameter: "partitions",
                    left: partitions.to_string(),
                    right: part.partitions.to_string(),
                });
            }
            let index = part.index;
            if index < whole.parts.len() || waiting.get(index).is_some_and(Option::is_some) {
                return Err(duplicate(index));
            }
            if waiting.len() <= index {
                waiting.resize_with(index + 1, || None);
            }
            waiting[index] = Some(part);
            while let Some(ready) = waiting.get_mut(whole.parts.len()).and_then(Option::take) {
                whole.push(ready.index, partitions, &ready.table)?;
                hasher = Some(ready.hasher);
            }
        }
        match hasher {
            Some(hasher) if whole.parts.len() == partitions => whole.finish(hasher),
            _ => Err(Error::Incompatible {
                parameter: "partitions present",
                left: partitions.to_string(),
                right: format!(
                    "{} (partition {} missing)",
                    whole.parts.len(),
                    whole.parts.len()
                ),
            }),
        }
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be
    /// queried with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](PartitionedBinaryFuse::from_bytes).
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        let body = bytes::read::<F>(bytes, &HasherProbe::of(&hasher), true)?;
        let parts = body.whole_filter_parts()?;
        Ok(PartitionedBinaryFuse {
            parts,
            keys: body.keys,
            fingerprints: F::copy_le(body.fingerprints),
            hasher,
        })
    }

    /// `false` means `item` was certainly not among the keys; `true` means
    /// it probably was.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_hash(self.hasher.hash_key(item))
    }

    /// As [`contains`](Self::contains) for a key's hash.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        let part = &self.parts[partition_of_hash(hash, self.parts.len())];
        if part.keys == 0 {
            return false;
        }
        let k = mixed(hash, part.seed);
        let [a, b, c] = part.layout.positions(k);
        let t = &self.fingerprints[part.start..part.end];
        F::from_hash(k) ^ t[a] ^ t[b] ^ t[c] == F::default()
    }

    /// The value a batched lookup carries for `item`: its hash, which picks
    /// the partition.
    #[inline(always)]
    pub(crate) fn batch_key<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hasher.hash_key(item)
    }

    /// The value a batched lookup carries for the hash `hash`.
    #[inline(always)]
    pub(crate) fn batch_key_of_hash(&self, hash: u64) -> u64 {
        hash
    }

    /// The lookup of a batch's value.
    #[inline(always)]
    pub(crate) fn batch_lookup(&self, hash: u64) -> bool {
        self.contains_hash(hash)
    }

    /// Hints that the lookup of `hash` will read its three slots soon.
    #[inline(always)]
    pub(crate) fn prefetch_slots(&self, hash: u64) {
        let part = &self.parts[partition_of_hash(hash, self.parts.len())];
        for position in part.layout.positions(mixed(hash, part.seed)) {
            prefetch(&self.fingerprints, part.start + position);
        }
    }

    /// The number of distinct key hashes the filter was built from.
    pub fn len(&self) -> usize {
        self.keys
    }

    /// Whether the filter was built from no keys.
    pub fn is_empty(&self) -> bool {
        self.keys == 0
    }

    /// The number of partitions.
    pub fn partitions(&self) -> usize {
        self.parts.len()
    }

    /// The bytes of the fingerprint tables.
    pub fn memory_bytes(&self) -> usize {
        self.fingerprints.len() * size_of::<F>()
    }

    /// The fingerprint width in bits (8 or 16).
    pub fn fingerprint_bits(&self) -> u32 {
        F::BITS
    }

    /// Table bits per distinct key.
    pub fn bits_per_key(&self) -> f64 {
        (self.memory_bytes() * 8) as f64 / self.len().max(1) as f64
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Serializes the filter (layout in `docs/format-xor-filter.md`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let records: Vec<(usize, Part)> = self.parts.iter().copied().enumerate().collect();
        bytes::write::<F>(
            &HasherProbe::of(&self.hasher),
            self.parts.len(),
            &records,
            &self.fingerprints,
        )
    }
}

impl<F: Fingerprint, S> std::fmt::Debug for PartitionedBinaryFuse<F, S> {
    /// The shape, not the table.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(&format!("PartitionedBinaryFuse{}", F::BITS))
            .field("len", &self.keys)
            .field("partitions", &self.parts.len())
            .field("memory_bytes", &(self.fingerprints.len() * size_of::<F>()))
            .finish_non_exhaustive()
    }
}

/// Equal when the tables and partition records are equal and the hashers
/// hash alike: then `to_bytes` is equal too.
impl<F: Fingerprint, S: KeyHasher> PartialEq for PartitionedBinaryFuse<F, S> {
    fn eq(&self, other: &Self) -> bool {
        self.parts == other.parts
            && self.keys == other.keys
            && self.fingerprints == other.fingerprints
            && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<F: Fingerprint, S: KeyHasher> Eq for PartitionedBinaryFuse<F, S> {}

impl<T: Hash + ?Sized, F: Fingerprint, S: KeyHasher> Filter<T> for PartitionedBinaryFuse<F, S> {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        PartitionedBinaryFuse::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        PartitionedBinaryFuse::memory_bytes(self)
    }
}
