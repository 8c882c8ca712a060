//! [`BinaryFusePartition`]: one partition built alone, and the assembly of
//! partitions into a whole [`PartitionedBinaryFuse`], shared by the
//! in-process build and [`assemble`](PartitionedBinaryFuse::assemble).

use filter_core::{Error, HasherProbe, KeyHasher, PortableHasher};

use super::{Part, PartitionedBinaryFuse, bytes, partition_of_hash};
use crate::construct;
use crate::fingerprint::Fingerprint;
use crate::layout::FuseLayout;
use crate::table::Table;

/// One partition of a [`PartitionedBinaryFuse`], built alone (perhaps by
/// another process or machine) and later given to
/// [`assemble`](PartitionedBinaryFuse::assemble).
///
/// Its bytes ([`to_bytes`](Self::to_bytes)) record its index, the partition
/// count and its hasher, so pieces of different builds are not mixed up.
///
/// # Examples
///
/// ```
/// use xor_filter::{BinaryFusePartition, PartitionedBinaryFuse8};
///
/// let hashes: Vec<u64> = (0..10_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
/// // Each machine sees every hash and keeps its own partition's.
/// let pieces: Vec<Vec<u8>> = (0..4)
///     .map(|i| {
///         let part = PartitionedBinaryFuse8::build_partition(i, 4, hashes.iter().copied())?;
///         Ok(part.to_bytes())
///     })
///     .collect::<Result<_, xor_filter::Error>>()?;
/// let parts = pieces.iter().map(|b| BinaryFusePartition::from_bytes(b));
/// let filter = PartitionedBinaryFuse8::assemble(parts.collect::<Result<Vec<_>, _>>()?)?;
/// assert!(hashes.iter().all(|&h| filter.contains_hash(h)));
/// assert_eq!(filter.to_bytes(), PartitionedBinaryFuse8::from_hashes(&hashes, 4)?.to_bytes());
/// # Ok::<(), xor_filter::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BinaryFusePartition<F: Fingerprint, S = PortableHasher> {
    pub(super) index: usize,
    pub(super) partitions: usize,
    pub(super) table: Table<FuseLayout, F>,
    pub(super) hasher: S,
}

impl<F: Fingerprint, S: KeyHasher> BinaryFusePartition<F, S> {
    /// Which partition this is.
    pub fn index(&self) -> usize {
        self.index
    }

    /// How many partitions the whole filter has.
    pub fn partitions(&self) -> usize {
        self.partitions
    }

    /// The number of distinct key hashes in this partition.
    pub fn len(&self) -> usize {
        self.table.keys
    }

    /// Whether no key fell in this partition.
    pub fn is_empty(&self) -> bool {
        self.table.keys == 0
    }

    /// Serializes the partition (a [`PartitionedBinaryFuse`] byte string
    /// holding one partition's record; `docs/format-xor-filter.md`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let part = Part {
            seed: self.table.seed,
            keys: self.table.keys,
            layout: self.table.layout,
            start: 0,
            end: self.table.fingerprints.len(),
        };
        bytes::write::<F>(
            &HasherProbe::of(&self.hasher),
            self.partitions,
            &[(self.index, part)],
            &self.table.fingerprints,
        )
    }

    /// Loads a partition written by [`to_bytes`](Self::to_bytes), hashed with
    /// `hasher`.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for malformed bytes or bytes of a whole filter;
    /// [`Error::HasherMismatch`] for a hasher that hashes differently.
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        let body = bytes::read::<F>(bytes, &HasherProbe::of(&hasher), true)?;
        let [(index, part)] = body.records[..] else {
            return Err(Error::corrupt(format_args!(
                "a partition's bytes hold one partition record, these hold {}",
                body.records.len()
            )));
        };
        Ok(BinaryFusePartition {
            index,
            partitions: body.partitions,
            table: Table {
                layout: part.layout,
                seed: part.seed,
                keys: part.keys,
                fingerprints: F::copy_le(body.fingerprints),
            },
            hasher,
        })
    }
}

impl<F: Fingerprint> BinaryFusePartition<F, PortableHasher> {
    /// [`from_bytes_with_hasher`](Self::from_bytes_with_hasher) with the
    /// default hasher.
    ///
    /// # Errors
    ///
    /// As [`from_bytes_with_hasher`](Self::from_bytes_with_hasher).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

pub(super) fn duplicate(index: usize) -> Error {
    Error::Incompatible {
        parameter: "partition index",
        left: format!("{index} once"),
        right: format!("{index} twice"),
    }
}

/// The table of partition `index`: its hashes selected from all of them.
pub(super) fn build_one<F: Fingerprint>(
    index: usize,
    partitions: usize,
    hashes: impl IntoIterator<Item = u64>,
) -> Result<Table<FuseLayout, F>, Error> {
    let mine: Vec<u64> = hashes
        .into_iter()
        .filter(|&h| partition_of_hash(h, partitions) == index)
        .collect();
    construct::build(&mine)
}

/// A whole filter being put together from its partitions, in index order.
pub(super) struct Assembly<F> {
    pub(super) partitions: usize,
    pub(super) probe: HasherProbe,
    pub(super) parts: Vec<Part>,
    pub(super) keys: usize,
    pub(super) fingerprints: Vec<F>,
}

impl<F: Fingerprint> Assembly<F> {
    pub(super) fn new(partitions: usize, probe: HasherProbe) -> Self {
        Assembly {
            partitions,
            probe,
            parts: Vec::new(),
            keys: 0,
            fingerprints: Vec::new(),
        }
    }

    pub(super) fn push(
        &mut self,
        index: usize,
        partitions: usize,
        table: &Table<FuseLayout, F>,
    ) -> Result<(), Error> {
        debug_assert_eq!((index, partitions), (self.parts.len(), self.partitions));
        let start = self.fingerprints.len();
        self.fingerprints
            .try_reserve(table.fingerprints.len())
            .map_err(|_| Error::invalid("slots", start, "small enough to allocate"))?;
        self.fingerprints.extend_from_slice(&table.fingerprints);
        self.keys += table.keys;
        self.parts.push(Part {
            seed: table.seed,
            keys: table.keys,
            layout: table.layout,
            start,
            end: self.fingerprints.len(),
        });
        Ok(())
    }

    pub(super) fn finish<S>(self, hasher: S) -> Result<PartitionedBinaryFuse<F, S>, Error> {
        debug_assert_eq!(self.parts.len(), self.partitions);
        Ok(PartitionedBinaryFuse {
            parts: self.parts,
            keys: self.keys,
            fingerprints: self.fingerprints,
            hasher,
        })
    }
}
