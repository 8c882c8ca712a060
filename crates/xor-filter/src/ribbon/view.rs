//! [`RibbonRef`]: a [`Ribbon`] queried in place over its bytes (see
//! [`crate::view`] for the design shared by every view: header and lengths
//! checked on opening, the checksum on request, safe byte-wise reads).
//!
//! The owned filter looks keys up in a copy of the words laid out for its
//! column kernels (with a shadow of three blocks and zero words after the
//! last block, see `solution.rs`); the bytes have neither, so a view reads
//! each band's words where they are stored and evaluates every column in a
//! safe loop, one bounds-checked little-endian word at a time. The answers
//! are the same for every key; a lookup costs a few times the owned one's,
//! so a filter queried at length is better loaded
//! ([`Ribbon::from_bytes`], or [`RibbonRef::to_owned_filter`]).

use std::fmt;
use std::hash::Hash;

use filter_core::format::{ByteReader, FilterKind};
use filter_core::{Error, Filter, HasherProbe, KeyHasher, PortableHasher, mix64};

use super::Ribbon;
use super::solution::SolutionRef;
use crate::view::checksum_holds;

/// A borrowed view of a [`Ribbon`] filter's bytes, queried in place without
/// copying its table.
///
/// Opening reads the header only (header, shape and table length, checked as
/// [`Ribbon::from_bytes`] checks them; the checksum is
/// [`verify_checksum`](Self::verify_checksum)), so a filter of gigabytes in
/// a memory-mapped file opens in microseconds; lookups answer exactly as the
/// owned filter's, and stay in bounds for any bytes. Words are read as
/// little-endian bytes, so the table may start at any address and every
/// host borrows.
///
/// # Examples
///
/// ```
/// use xor_filter::{Ribbon, RibbonRef};
///
/// let keys: Vec<u64> = (0..10_000).collect();
/// let bytes = Ribbon::from_keys_with_fpr(&keys, 0.01)?.to_bytes();
/// let view = RibbonRef::from_bytes(&bytes)?;
/// view.verify_checksum()?;
/// assert!(keys.iter().all(|k| view.contains(k)));
/// # Ok::<(), xor_filter::Error>(())
/// ```
#[derive(Clone)]
pub struct RibbonRef<'a, S = PortableHasher> {
    solution: SolutionRef<'a>,
    bytes: &'a [u8],
    hasher: S,
}

impl<'a> RibbonRef<'a, PortableHasher> {
    /// Opens a view over bytes that [`Ribbon::to_bytes`] wrote, with the
    /// default hasher, without copying the table. Reads the header and the
    /// lengths only; call [`verify_checksum`](Self::verify_checksum) to
    /// check the rest.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for bytes that are not a ribbon filter or whose
    /// header, shape or table length is malformed (a truncated or extended
    /// string included); [`Error::HasherMismatch`] when the filter was
    /// built with a hasher that hashes differently.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher(bytes, PortableHasher::default())
    }
}

impl<'a, S: KeyHasher> RibbonRef<'a, S> {
    /// As [`from_bytes`](RibbonRef::from_bytes), to be queried with `hasher`.
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](RibbonRef::from_bytes).
    pub fn from_bytes_with_hasher(bytes: &'a [u8], hasher: S) -> Result<Self, Error> {
        let reader =
            ByteReader::open_unverified(bytes, FilterKind::Ribbon, &HasherProbe::of(&hasher))?;
        Ok(RibbonRef {
            solution: SolutionRef::read(reader)?,
            bytes,
            hasher,
        })
    }

    /// Checks the checksum over all the bytes: reads every byte once.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when the bytes were altered after they were
    /// written.
    pub fn verify_checksum(&self) -> Result<(), Error> {
        checksum_holds(self.bytes)
    }

    /// `false` means `item` was certainly not among the keys; `true` means
    /// it probably was. The same answer as the owned filter's.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.solution.contains_mixed(self.hasher.mixed_hash(item))
    }

    /// As [`contains`](Self::contains) for a key's hash, as
    /// `hasher.hash_key(key)` gives it (the filter's hasher is not used).
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.solution.contains_mixed(mix64(hash))
    }

    /// The lookup of a mixed hash, for batches.
    #[inline(always)]
    pub(crate) fn contains_mixed(&self, mixed: u64) -> bool {
        self.solution.contains_mixed(mixed)
    }

    /// Hints that the lookup of mixed hash `mixed` will read its words soon.
    #[inline(always)]
    pub(crate) fn prefetch_mixed(&self, mixed: u64) {
        self.solution.prefetch_mixed(mixed);
    }

    /// The number of distinct key hashes the filter was built from.
    pub fn len(&self) -> usize {
        self.solution.keys
    }

    /// Whether the filter was built from no keys (it then answers `false`
    /// for every key).
    pub fn is_empty(&self) -> bool {
        self.solution.keys == 0
    }

    /// The bytes of the solution table (borrowed, not owned).
    pub fn memory_bytes(&self) -> usize {
        self.solution.words.len()
    }

    /// Table bits per distinct key (the table's bits when there are none).
    pub fn bits_per_key(&self) -> f64 {
        (self.memory_bytes() * 8) as f64 / self.len().max(1) as f64
    }

    /// The false-positive rate the shape gives a key not in the set, as
    /// [`Ribbon::fpr`] (0 for a filter of no keys).
    pub fn fpr(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.solution.shape.fpr()
        }
    }

    /// The number of slots (unknowns of the system), as [`Ribbon::slots`].
    pub fn slots(&self) -> usize {
        self.solution.shape.slots()
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// The whole byte string the view was opened over.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Copies the table into an owned filter, which answers alike.
    pub fn to_owned_filter(&self) -> Ribbon<S>
    where
        S: Clone,
    {
        Ribbon {
            solution: self.solution.copy_solution(),
            hasher: self.hasher.clone(),
        }
    }
}

impl<S> fmt::Debug for RibbonRef<'_, S> {
    /// The shape, not the table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = &self.solution.shape;
        f.debug_struct("RibbonRef")
            .field("len", &self.solution.keys)
            .field("slots", &shape.slots())
            .field("columns", &shape.columns)
            .field("upper_start", &shape.upper_start)
            .field("memory_bytes", &self.solution.words.len())
            .finish_non_exhaustive()
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for RibbonRef<'_, S> {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        RibbonRef::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        RibbonRef::memory_bytes(self)
    }
}
