//! Borrowed views: a static filter queried in place, over the bytes
//! [`to_bytes`](crate::BinaryFuse::to_bytes) wrote (a memory-mapped file, a
//! page of a larger file, a buffer received from the network), without
//! copying its table. This module has the xor and binary fuse views; the
//! partitioned filter's ([`PartitionedBinaryFuseRef`](crate::PartitionedBinaryFuseRef))
//! and the ribbon filter's ([`RibbonRef`](crate::RibbonRef)) follow the
//! same design in their own modules.
//!
//! Design decisions:
//!
//! - **Opening reads the header and the lengths, nothing else.** The header,
//!   the layout and the table's length are validated exactly as `from_bytes`
//!   validates them, so every lookup's three positions are inside the table;
//!   the checksum, which would read every byte (a second per gigabyte, and
//!   every page of a mapped file faulted in), is a separate call,
//!   [`verify_checksum`](BinaryFuseRef::verify_checksum). Opening a view
//!   costs the same for a kilobyte and for a gigabyte.
//! - **Safe indexing, any bytes.** A view holds `&[u8]` and reads each
//!   fingerprint with bounds-checked indexing, so even bytes altered after
//!   their header was checked (the checksum not verified) give wrong answers
//!   at worst, never an out-of-bounds read or a panic: the structural checks
//!   make the positions fit the table, and the checks the compiler inserts
//!   are never taken.
//! - **Byte by byte, so any alignment and any host.** Sixteen-bit
//!   fingerprints are read as `u16::from_le_bytes` of two bytes: a mapped
//!   file's table can start at an odd address, and a big-endian host reads
//!   the same values (it borrows as well, paying a byte swap per
//!   fingerprint). No host copies, and none refuses.
//! - **One parser.** The owned filters' `from_bytes` parses through the same
//!   [`TableRef::read`] and then copies the table, so a view and a loaded
//!   filter accept exactly the same bytes (bar the checksum).

use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;

use filter_core::format::{ByteReader, verify_checksum};
use filter_core::prefetch::prefetch;
use filter_core::{Error, Filter, HasherProbe, KeyHasher, PortableHasher, mix64};

use crate::fingerprint::Fingerprint;
use crate::layout::{FuseLayout, Layout, XorLayout};
use crate::table::{Table, seeded};
use crate::{BinaryFuse, Xor};

/// [`verify_checksum`] as a `Result`, for the views' methods.
pub(crate) fn checksum_holds(bytes: &[u8]) -> Result<(), Error> {
    if verify_checksum(bytes) {
        Ok(())
    } else {
        Err(Error::corrupt(
            "checksum mismatch: the bytes were altered after they were written",
        ))
    }
}

/// A table whose fingerprints are borrowed little-endian bytes:
/// `fingerprints.len() == layout.slots() * size_of::<F>()`, so every
/// position the layout gives is in bounds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TableRef<'a, L, F> {
    pub(crate) layout: L,
    pub(crate) seed: u64,
    pub(crate) keys: usize,
    pub(crate) fingerprints: &'a [u8],
    width: PhantomData<F>,
}

impl<'a, L: Layout, F: Fingerprint> TableRef<'a, L, F> {
    /// Reads the body (layout in `docs/format-xor-filter.md`) after the
    /// header `reader` has validated, borrowing the table.
    pub(crate) fn read(mut r: ByteReader<'a>) -> Result<Self, Error> {
        let seed = r.u64("seed")?;
        let keys = r.u64("keys")?;
        let keys = usize::try_from(keys)
            .ok()
            .filter(|&k| k <= crate::MAX_KEYS)
            .ok_or_else(|| {
                Error::corrupt(format_args!(
                    "keys is {keys}, at most {} allowed",
                    crate::MAX_KEYS
                ))
            })?;
        let layout = L::read(&mut r, keys)?;
        // The reader checks the claimed count against the bytes present.
        let fingerprints = F::borrow_array(&mut r, "fingerprints")?;
        let count = fingerprints.len() / size_of::<F>();
        if count != layout.slots() {
            return Err(Error::corrupt(format_args!(
                "fingerprints has {count} entries, but the layout has {} slots",
                layout.slots()
            )));
        }
        r.finish()?;
        Ok(TableRef {
            layout,
            seed,
            keys,
            fingerprints,
            width: PhantomData,
        })
    }

    /// The number of fingerprints.
    #[cfg(test)]
    fn slots(&self) -> usize {
        self.fingerprints.len() / size_of::<F>()
    }

    /// As `Table::contains_hash`: no keys, no matches.
    #[inline]
    pub(crate) fn contains_hash(&self, hash: u64) -> bool {
        self.contains_mixed(mix64(hash))
    }

    /// As `Table::contains_mixed`.
    #[inline]
    pub(crate) fn contains_mixed(&self, m: u64) -> bool {
        if self.keys == 0 {
            return false;
        }
        let k = seeded(m, self.seed);
        let [a, b, c] = self.layout.positions(k);
        let t = self.fingerprints;
        F::from_hash(k) ^ F::load_le(t, a) ^ F::load_le(t, b) ^ F::load_le(t, c) == F::default()
    }

    #[inline(always)]
    pub(crate) fn prefetch_mixed(&self, m: u64) {
        for position in self.layout.positions(seeded(m, self.seed)) {
            prefetch(self.fingerprints, position * size_of::<F>());
        }
    }

    fn copy_table(&self) -> Table<L, F> {
        Table {
            layout: self.layout.clone(),
            seed: self.seed,
            keys: self.keys,
            fingerprints: F::copy_le(self.fingerprints),
        }
    }
}

/// Implements the methods and traits of a view type `$name<'a, F, S>` (fields
/// `table: TableRef<'a, $layout, F>`, `bytes` and `hasher`) over bytes of
/// `$owned`.
macro_rules! view_api {
    ($name:ident, $owned:ident, $layout:ty, $kind:ident) => {
        impl<'a, F: Fingerprint> $name<'a, F, PortableHasher> {
            #[doc = concat!("Opens a view over bytes that [`", stringify!($owned), "::to_bytes`] wrote,")]
            /// with the default hasher, without copying the table. Reads
            /// the header and the lengths only; call
            /// [`verify_checksum`](Self::verify_checksum) to check the rest.
            ///
            /// # Errors
            ///
            /// [`Error::Corrupt`] for bytes that are not a filter of this
            /// type or whose header, layout or table length is malformed (a
            /// truncated or extended string included);
            /// [`Error::HasherMismatch`] when the filter was built with a
            /// hasher that hashes differently.
            pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
                Self::from_bytes_with_hasher(bytes, PortableHasher::default())
            }
        }

        impl<'a, F: Fingerprint, S: KeyHasher> $name<'a, F, S> {
            /// As [`from_bytes`]($name::from_bytes), to be queried with `hasher`.
            ///
            /// # Errors
            ///
            /// As [`from_bytes`]($name::from_bytes).
            pub fn from_bytes_with_hasher(bytes: &'a [u8], hasher: S) -> Result<Self, Error> {
                let reader = ByteReader::open_unverified(bytes, F::$kind, &HasherProbe::of(&hasher))?;
                Ok($name {
                    table: TableRef::read(reader)?,
                    bytes,
                    hasher,
                })
            }

            /// Checks the checksum over all the bytes: reads every byte once.
            ///
            /// # Errors
            ///
            /// [`Error::Corrupt`] when the bytes were altered after they
            /// were written.
            pub fn verify_checksum(&self) -> Result<(), Error> {
                checksum_holds(self.bytes)
            }

            /// `false` means `item` was certainly not among the keys; `true`
            /// means it probably was. The same answer as the owned filter's.
            #[inline]
            pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
                self.table.contains_mixed(self.hasher.mixed_hash(item))
            }

            /// As [`contains`](Self::contains) for a key's hash.
            #[inline]
            pub fn contains_hash(&self, hash: u64) -> bool {
                self.table.contains_hash(hash)
            }

            /// Hints that the lookup of the key whose mixed hash is `m` will
            /// read its three slots soon.
            #[inline(always)]
            pub(crate) fn prefetch_slots(&self, m: u64) {
                self.table.prefetch_mixed(m);
            }

            /// The value a batched lookup carries for `item`: its mixed hash.
            #[inline(always)]
            pub(crate) fn batch_key<T: Hash + ?Sized>(&self, item: &T) -> u64 {
                self.hasher.mixed_hash(item)
            }

            /// The value a batched lookup carries for the hash `hash`.
            #[inline(always)]
            pub(crate) fn batch_key_of_hash(&self, hash: u64) -> u64 {
                filter_core::mix64(hash)
            }

            /// The lookup of a batch's value.
            #[inline(always)]
            pub(crate) fn batch_lookup(&self, m: u64) -> bool {
                self.table.contains_mixed(m)
            }

            /// The number of distinct key hashes the filter was built from.
            pub fn len(&self) -> usize {
                self.table.keys
            }

            /// Whether the filter was built from no keys.
            pub fn is_empty(&self) -> bool {
                self.table.keys == 0
            }

            /// The bytes of the fingerprint table (borrowed, not owned).
            pub fn memory_bytes(&self) -> usize {
                self.table.fingerprints.len()
            }

            /// The fingerprint width in bits (8 or 16).
            pub fn fingerprint_bits(&self) -> u32 {
                F::BITS
            }

            /// The number of fingerprint slots in the table.
            pub fn slots(&self) -> usize {
                self.table.layout.slots()
            }

            /// Table bits per distinct key (the table's bits when there are none).
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

            /// Copies the table into an owned filter, which answers alike.
            pub fn to_owned_filter(&self) -> $owned<F, S>
            where
                S: Clone,
            {
                $owned {
                    table: self.table.copy_table(),
                    hasher: self.hasher.clone(),
                }
            }
        }

        impl<F: Fingerprint, S> fmt::Debug for $name<'_, F, S> {
            /// The shape, not the table.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let name = format!("{}{}Ref", stringify!($owned), F::BITS);
                f.debug_struct(&name)
                    .field("len", &self.table.keys)
                    .field("fingerprint_bits", &F::BITS)
                    .field("memory_bytes", &self.table.fingerprints.len())
                    .finish_non_exhaustive()
            }
        }

        impl<T: Hash + ?Sized, F: Fingerprint, S: KeyHasher> Filter<T> for $name<'_, F, S> {
            #[inline]
            fn contains(&self, item: &T) -> bool {
                $name::contains(self, item)
            }

            fn memory_bytes(&self) -> usize {
                $name::memory_bytes(self)
            }
        }
    };
}

/// A borrowed view of an [`Xor`] filter's bytes, queried in place: use the
/// aliases [`Xor8Ref`] and [`Xor16Ref`].
///
/// Opening reads the header only (header, layout and table length, checked as
/// `from_bytes` checks them; the checksum is [`verify_checksum`](Self::verify_checksum)); lookups answer exactly as the owned filter's.
///
/// # Examples
///
/// ```
/// use xor_filter::{Xor8, Xor8Ref};
///
/// let keys: Vec<u64> = (0..10_000).collect();
/// let bytes = Xor8::from_keys(&keys)?.to_bytes();
/// let view = Xor8Ref::from_bytes(&bytes)?;
/// view.verify_checksum()?;
/// assert!(keys.iter().all(|k| view.contains(k)));
/// # Ok::<(), xor_filter::Error>(())
/// ```
#[derive(Clone)]
pub struct XorRef<'a, F: Fingerprint, S = PortableHasher> {
    table: TableRef<'a, XorLayout, F>,
    bytes: &'a [u8],
    hasher: S,
}

/// A view of an [`Xor8`](crate::Xor8)'s bytes. See [`XorRef`].
pub type Xor8Ref<'a, S = PortableHasher> = XorRef<'a, u8, S>;

/// A view of an [`Xor16`](crate::Xor16)'s bytes. See [`XorRef`].
pub type Xor16Ref<'a, S = PortableHasher> = XorRef<'a, u16, S>;

/// A borrowed view of a [`BinaryFuse`] filter's bytes, queried in place: use
/// the aliases [`BinaryFuse8Ref`] and [`BinaryFuse16Ref`].
///
/// Opening reads the header only (header, layout and table length, checked as
/// `from_bytes` checks them; the checksum is [`verify_checksum`](Self::verify_checksum)), so a filter of gigabytes in a memory-mapped file opens in
/// microseconds; lookups answer exactly as the owned filter's.
///
/// # Examples
///
/// ```
/// use xor_filter::{BinaryFuse16, BinaryFuse16Ref};
///
/// let keys: Vec<u64> = (0..10_000).collect();
/// let bytes = BinaryFuse16::from_keys(&keys)?.to_bytes();
/// // A table may start at any address: here one byte past the buffer's start.
/// let mut file = vec![0u8];
/// file.extend_from_slice(&bytes);
/// let view = BinaryFuse16Ref::from_bytes(&file[1..])?;
/// view.verify_checksum()?;
/// assert!(keys.iter().all(|k| view.contains(k)));
/// # Ok::<(), xor_filter::Error>(())
/// ```
#[derive(Clone)]
pub struct BinaryFuseRef<'a, F: Fingerprint, S = PortableHasher> {
    table: TableRef<'a, FuseLayout, F>,
    bytes: &'a [u8],
    hasher: S,
}

/// A view of a [`BinaryFuse8`](crate::BinaryFuse8)'s bytes. See [`BinaryFuseRef`].
pub type BinaryFuse8Ref<'a, S = PortableHasher> = BinaryFuseRef<'a, u8, S>;

/// A view of a [`BinaryFuse16`](crate::BinaryFuse16)'s bytes. See [`BinaryFuseRef`].
pub type BinaryFuse16Ref<'a, S = PortableHasher> = BinaryFuseRef<'a, u16, S>;

view_api!(XorRef, Xor, XorLayout, XOR_KIND);
view_api!(BinaryFuseRef, BinaryFuse, FuseLayout, FUSE_KIND);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::sealed::Width;

    #[test]
    fn a_view_reads_the_owned_table_at_any_alignment() {
        let hashes: Vec<u64> = (0..5000u64).map(mix64).collect();
        let owned = Table::<FuseLayout, u16>::from_hashes(&hashes).unwrap();
        let bytes = owned.to_bytes(u16::FUSE_KIND, &HasherProbe::of(&PortableHasher::default()));
        for shift in 0..3 {
            let mut shifted = vec![0xA5; shift];
            shifted.extend_from_slice(&bytes);
            let reader = ByteReader::open(
                &shifted[shift..],
                u16::FUSE_KIND,
                &HasherProbe::of(&PortableHasher::default()),
            )
            .unwrap();
            let view = TableRef::<FuseLayout, u16>::read(reader).unwrap();
            assert_eq!(view.slots(), owned.fingerprints.len());
            for i in 0..owned.fingerprints.len() {
                assert_eq!(u16::load_le(view.fingerprints, i), owned.fingerprints[i]);
            }
            for h in 0..20_000u64 {
                assert_eq!(view.contains_hash(h), owned.contains_hash(h));
            }
        }
    }
}
