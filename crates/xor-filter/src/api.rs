//! The public methods and trait impls (`Debug`, `PartialEq`, `Filter`) of
//! [`Xor`](crate::Xor) and [`BinaryFuse`](crate::BinaryFuse), written once:
//! the two types differ only in their layout and format kind, and their
//! documentation.

/// Implements constructors, lookups, accessors, serialization and the
/// `Debug`, `PartialEq`, `Eq` and `Filter` traits for
/// `$name<F, S>`, a struct with fields `table: Table<$layout, F>` and `hasher: S`.
macro_rules! static_filter_api {
    ($name:ident, $layout:ty, $kind:ident) => {
        impl<F: Fingerprint> $name<F, PortableHasher> {
            /// Builds the filter from `keys`, hashed with the default hasher.
            ///
            /// Duplicates are fine: equal keys (and distinct keys whose 64-bit
            /// hashes collide) count once, and [`len`](Self::len) reports the
            /// distinct hashes.
            ///
            /// # Errors
            ///
            /// [`Error::InvalidParameter`] for more than [`MAX_KEYS`](crate::MAX_KEYS)
            /// distinct keys or when the tables cannot be allocated;
            /// [`Error::ConstructionFailed`] if every seed failed (for
            /// distinct hashes practically impossible, even crafted ones).
            pub fn from_keys<T: Hash>(keys: &[T]) -> Result<Self, Error> {
                Self::from_keys_with_hasher(keys, PortableHasher::default())
            }

            /// Builds the filter from pre-hashed keys: each `u64` is a key's
            /// hash, to be queried with [`contains_hash`](Self::contains_hash)
            /// (`contains` hashes its key first, so it would not find them).
            /// The filter mixes the hashes itself, so sequential ids work.
            ///
            /// # Errors
            ///
            /// As [`from_keys`](Self::from_keys).
            pub fn from_hashes(hashes: &[u64]) -> Result<Self, Error> {
                Self::from_hashes_with_hasher(hashes, PortableHasher::default())
            }

            /// Loads a filter written by [`to_bytes`](Self::to_bytes) with the
            /// default hasher. The loaded filter answers exactly as the original.
            ///
            /// # Errors
            ///
            /// [`Error::WrongKind`] for valid bytes of another filter;
            /// [`Error::HasherMismatch`] when the filter was built with a
            /// hasher that hashes differently; [`Error::Corrupt`] for
            /// anything malformed: a checksum mismatch for truncated, altered
            /// or extended bytes (the slice must be exactly what `to_bytes`
            /// returned), and a message naming the field for parameters
            /// inconsistent with the key count.
            pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
                Self::from_bytes_with_hasher(bytes, PortableHasher::default())
            }
        }

        impl<F: Fingerprint, S: KeyHasher> $name<F, S> {
            /// `false` means `item` was certainly not among the keys; `true`
            /// means it probably was.
            #[inline]
            pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
                self.table.contains_mixed(self.hasher.mixed_hash(item))
            }

            /// As [`contains`](Self::contains) for a key's hash (the filter's
            /// hasher is not used).
            #[inline]
            pub fn contains_hash(&self, hash: u64) -> bool {
                self.table.contains_hash(hash)
            }

            /// The number of distinct key hashes the filter was built from.
            pub fn len(&self) -> usize {
                self.table.keys
            }

            /// Whether the filter was built from no keys (it then answers
            /// `false` for every key).
            pub fn is_empty(&self) -> bool {
                self.table.keys == 0
            }

            /// Serializes the filter (layout in `docs/format-xor-filter.md`).
            pub fn to_bytes(&self) -> Vec<u8> {
                self.table
                    .to_bytes(F::$kind, &HasherProbe::of(&self.hasher))
            }

            /// Builds the filter from `keys`, hashed with `hasher`.
            ///
            /// # Errors
            ///
            /// As [`from_keys`]($name::from_keys).
            pub fn from_keys_with_hasher<T: Hash>(keys: &[T], hasher: S) -> Result<Self, Error> {
                let mut hashes: Vec<u64> = Vec::new();
                hashes.try_reserve_exact(keys.len()).map_err(|_| {
                    Error::invalid(
                        "number of keys",
                        keys.len(),
                        "small enough that their 64-bit hashes can be allocated",
                    )
                })?;
                hashes.extend(keys.iter().map(|key| hasher.hash_key(key)));
                Self::from_hashes_with_hasher(&hashes, hasher)
            }

            /// Builds the filter from hashes made by `hasher` (`hasher.hash_key(key)`),
            /// so that [`contains`](Self::contains) can be asked with keys.
            ///
            /// # Errors
            ///
            /// As [`from_keys`]($name::from_keys).
            pub fn from_hashes_with_hasher(hashes: &[u64], hasher: S) -> Result<Self, Error> {
                Ok($name {
                    table: Table::from_hashes(hashes)?,
                    hasher,
                })
            }

            /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be
            /// queried with `hasher`.
            ///
            /// # Errors
            ///
            /// As [`from_bytes`]($name::from_bytes).
            pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
                let table = Table::from_bytes(bytes, F::$kind, &HasherProbe::of(&hasher))?;
                Ok($name { table, hasher })
            }

            /// The bytes of the fingerprint table.
            pub fn memory_bytes(&self) -> usize {
                self.table.memory_bytes()
            }

            /// The fingerprint width in bits (`F::BITS`: 8 or 16); the
            /// false-positive rate is `2^-fingerprint_bits`.
            pub fn fingerprint_bits(&self) -> u32 {
                F::BITS
            }

            /// The number of fingerprint slots in the table (a little more
            /// than [`len`](Self::len): the layout's size factor).
            pub fn slots(&self) -> usize {
                self.table.fingerprints.len()
            }

            /// Table bits per distinct key (the table's bits when there are none).
            pub fn bits_per_key(&self) -> f64 {
                (self.memory_bytes() * 8) as f64 / self.len().max(1) as f64
            }

            /// The hasher keys are hashed with.
            pub fn hasher(&self) -> &S {
                &self.hasher
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
        }

        impl<F: Fingerprint, S> std::fmt::Debug for $name<F, S> {
            /// The shape, not the table: a table can be gigabytes, and a
            /// `{:?}` in a log line should not print it. Named as users
            /// write the type (`Xor8`, `BinaryFuse16`).
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let name = format!("{}{}", stringify!($name), F::BITS);
                f.debug_struct(&name)
                    .field("len", &self.table.keys)
                    .field("fingerprint_bits", &F::BITS)
                    .field("slots", &self.table.fingerprints.len())
                    .field("memory_bytes", &self.table.memory_bytes())
                    .finish_non_exhaustive()
            }
        }

        /// Two filters are equal when they hold the same table (layout,
        /// seed, key count and fingerprints) and their hashers hash alike
        /// (`HasherProbe::same`, which asks integer keys only, so hashers for
        /// integers alone compare too): then their `to_bytes` are equal as
        /// well. Equal filters answer every query alike.
        impl<F: Fingerprint, S: KeyHasher> PartialEq for $name<F, S> {
            fn eq(&self, other: &Self) -> bool {
                self.table == other.table && HasherProbe::same(&self.hasher, &other.hasher)
            }
        }

        impl<F: Fingerprint, S: KeyHasher> Eq for $name<F, S> {}

        impl<T: Hash + ?Sized, F: Fingerprint, S: KeyHasher> Filter<T> for $name<F, S> {
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

pub(crate) use static_filter_api;
