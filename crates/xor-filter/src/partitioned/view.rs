//! [`PartitionedBinaryFuseRef`]: a partitioned filter queried in place over
//! its bytes (see [`crate::view`] for the design: header and lengths checked
//! on opening, the checksum on request, safe byte-wise reads). Opening also
//! reads the partition records, 40 bytes each.

use std::hash::Hash;
use std::marker::PhantomData;

use filter_core::prefetch::prefetch;
use filter_core::{Error, Filter, HasherProbe, KeyHasher, PortableHasher};

use super::{Part, PartitionedBinaryFuse, bytes, partition_of_hash};
use crate::fingerprint::Fingerprint;
use crate::layout::Layout;
use crate::table::mixed;
use crate::view::checksum_holds;

/// A borrowed view of a [`PartitionedBinaryFuse`]'s bytes: use the aliases
/// [`PartitionedBinaryFuse8Ref`] and [`PartitionedBinaryFuse16Ref`].
///
/// Opening reads the header and the partition records, never the table, so
/// a filter of gigabytes in a memory-mapped file opens in microseconds.
///
/// # Examples
///
/// ```
/// use xor_filter::{PartitionedBinaryFuse8, PartitionedBinaryFuse8Ref};
///
/// let keys: Vec<u64> = (0..10_000).collect();
/// let bytes = PartitionedBinaryFuse8::from_keys(&keys, 4)?.to_bytes();
/// let view = PartitionedBinaryFuse8Ref::from_bytes(&bytes)?;
/// view.verify_checksum()?;
/// assert!(keys.iter().all(|k| view.contains(k)));
/// # Ok::<(), xor_filter::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct PartitionedBinaryFuseRef<'a, F: Fingerprint, S = PortableHasher> {
    parts: Vec<Part>,
    keys: usize,
    fingerprints: &'a [u8],
    bytes: &'a [u8],
    hasher: S,
    width: PhantomData<F>,
}

/// A view of a [`PartitionedBinaryFuse8`](crate::PartitionedBinaryFuse8)'s
/// bytes. See [`PartitionedBinaryFuseRef`].
pub type PartitionedBinaryFuse8Ref<'a, S = PortableHasher> = PartitionedBinaryFuseRef<'a, u8, S>;

/// A view of a [`PartitionedBinaryFuse16`](crate::PartitionedBinaryFuse16)'s
/// bytes. See [`PartitionedBinaryFuseRef`].
pub type PartitionedBinaryFuse16Ref<'a, S = PortableHasher> = PartitionedBinaryFuseRef<'a, u16, S>;

impl<'a, F: Fingerprint> PartitionedBinaryFuseRef<'a, F, PortableHasher> {
    /// Opens a view over bytes that [`PartitionedBinaryFuse::to_bytes`]
    /// wrote, with the default hasher, without reading the table.
    ///
    /// # Errors
    ///
    /// As [`PartitionedBinaryFuse::from_bytes`], except that the checksum
    /// is not checked (see [`verify_checksum`](Self::verify_checksum)).
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<'a, F: Fingerprint, S: KeyHasher> PartitionedBinaryFuseRef<'a, F, S> {
    /// As [`from_bytes`](PartitionedBinaryFuseRef::from_bytes), to be
    /// queried with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](PartitionedBinaryFuseRef::from_bytes).
    pub fn from_bytes_with_hasher(bytes: &'a [u8], hasher: S) -> Result<Self, Error> {
        let body = bytes::read::<F>(bytes, &HasherProbe::of(&hasher), false)?;
        Ok(PartitionedBinaryFuseRef {
            parts: body.whole_filter_parts()?,
            keys: body.keys,
            fingerprints: body.fingerprints,
            bytes,
            hasher,
            width: PhantomData,
        })
    }

    /// Checks the checksum over all the bytes: reads every byte once.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when the bytes were altered after they were written.
    pub fn verify_checksum(&self) -> Result<(), Error> {
        checksum_holds(self.bytes)
    }

    /// `false` means `item` was certainly not among the keys; `true` means
    /// it probably was. The same answer as the owned filter's.
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
        let w = size_of::<F>();
        let t = &self.fingerprints[part.start * w..part.end * w];
        F::from_hash(k) ^ F::load_le(t, a) ^ F::load_le(t, b) ^ F::load_le(t, c) == F::default()
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
            prefetch(self.fingerprints, (part.start + position) * size_of::<F>());
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

    /// The bytes of the fingerprint tables (borrowed).
    pub fn memory_bytes(&self) -> usize {
        self.fingerprints.len()
    }

    /// Table bits per distinct key.
    pub fn bits_per_key(&self) -> f64 {
        (self.memory_bytes() * 8) as f64 / self.len().max(1) as f64
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// The whole byte string the view was opened over.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Copies the tables into an owned filter, which answers alike.
    pub fn to_owned_filter(&self) -> PartitionedBinaryFuse<F, S>
    where
        S: Clone,
    {
        PartitionedBinaryFuse {
            parts: self.parts.clone(),
            keys: self.keys,
            fingerprints: F::copy_le(self.fingerprints),
            hasher: self.hasher.clone(),
        }
    }
}

impl<T: Hash + ?Sized, F: Fingerprint, S: KeyHasher> Filter<T>
    for PartitionedBinaryFuseRef<'_, F, S>
{
    #[inline]
    fn contains(&self, item: &T) -> bool {
        PartitionedBinaryFuseRef::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        PartitionedBinaryFuseRef::memory_bytes(self)
    }
}
