#![doc = include_str!("../README.md")]
//!
//! # How it works
//!
//! Each key maps to three slots of a table of fingerprints, and the table is
//! filled so that the three slots of every key xor to the key's own
//! fingerprint: a lookup reads three slots and compares. Construction
//! *peels* the keys: it repeatedly takes a slot that only one remaining key
//! maps to, sets that key aside and removes it, until every key is set aside
//! (or a seed fails and the next one is tried); assigning the keys in reverse
//! order then gives each its free slot to fix the xor with. An absent key
//! matches when three unrelated slots happen to xor to its fingerprint:
//! probability 2^-8 or 2^-16.
//!
//! # Design decisions
//!
//! - **At most one mix on the key path.** A build tries seeds until
//!   peeling succeeds. The first attempt, seed 0, takes a key's slots and
//!   fingerprint from its mixed hash as it is
//!   ([`KeyHasher::mixed_hash`], which the default [`PortableHasher`]
//!   computes directly: one mix for an integer, XXH3 alone for a string),
//!   so a filter built on its first attempt, as nearly all are, looks keys
//!   up at the cost of the hash alone. A later attempt uses
//!   `mix64(mixed + seed)`: adding a seed alone would only shift every
//!   key's slots together, so a seed that failed would fail again. The
//!   `*_hash` methods mix what they are given first, so
//!   `contains(k) == contains_hash(hasher.hash_key(k))`. (The partitioned
//!   filter picks a key's partition from its hash, so its key path takes
//!   the hash and mixes it.)
//! - **One construction for all types.** The layouts differ only in where a
//!   key's three slots are; the fingerprint width only in the type of the
//!   table. Sorting, peeling, assignment, lookup and encoding are written
//!   once, generic over both (`construct.rs`, `table.rs`), and the
//!   partitioned filter builds each partition with the same code.
//! - **Peeling without adjacency lists.** Each slot keeps a count and the xor
//!   of the hashes that map to it; a slot with count 1 names its key. About
//!   23 bytes per key at peak for binary fuse and 25 for xor (documented in
//!   `construct.rs`).
//! - **Peeling breadth first, with prefetching.** Construction is bound by
//!   cache misses. Peeling in order of discovery lets the slots a few steps
//!   ahead be prefetched, so misses overlap instead of queueing.
//! - **Keys sorted by first slot before peeling.** A one-pass counting sort
//!   on the mixed hash's top bits makes the binary fuse construction sweep its
//!   tables instead of missing the cache on every key.
//! - **Duplicates are removed, not rejected.** They make peeling fail; after
//!   a second failed seed the hashes are sorted and deduplicated, so repeated
//!   keys cost a sort, never a hang or an error. [`len`](BinaryFuse::len)
//!   reports the distinct hashes.
//! - **Bounded retries.** A failed seed is retried with the next one, at most
//!   100 times, then [`Error::ConstructionFailed`]. The first 16 seeds are a
//!   fixed sequence, so a build is reproducible bit for bit (and a partition
//!   built elsewhere is the same bytes). Later seeds are unpredictable, so
//!   keys crafted to defeat the known seeds waste at most 16 attempts
//!   instead of failing the build. Binary fuse attempts alternate between
//!   the formula's segment length and half of it (the same slots): just past
//!   a step of the formula, its dozen long segments peel for few key sets,
//!   the halved ones for almost all.
//! - **Tiny sets work.** The xor layout's `+ 32` and the binary fuse
//!   layout's larger size factor at small n keep small hypergraphs
//!   peelable. A filter of no keys answers `false` for every key: one
//!   predictable branch, where its table of zeros would otherwise report
//!   2^-8 of all keys present.
//! - **Batched lookups** ([`BatchContains`], from `filter-core`, implemented
//!   once for every type here, views included) request each query's three
//!   slots 32 queries ahead in tables of 8 MiB or more, and answer 32 at a
//!   time in a loop compiled for AVX2 on CPUs that have it.
//! - **Views borrow** (see [`BinaryFuseRef`], [`RibbonRef`] and
//!   [`PartitionedBinaryFuseRef`]): opening validates the header and
//!   lengths only, reads are bounds-checked byte reads, and the checksum is
//!   its own call.
//! - **Partitions for scale** (see [`PartitionedBinaryFuse`]): a type and
//!   format kind of their own, so the single-table lookup keeps its three
//!   loads and no partition step.
//! - **One small `unsafe` block, paid for by a measurement:** unchecked
//!   indexing of the owned tables' three lookups (`table.rs`). The indices
//!   are in range by construction: every layout maps any hash below its
//!   slot count, and a table always has exactly that many entries
//!   (`from_bytes` refuses any other count). Views and partitioned filters
//!   index safely, so that no byte string can make them read out of bounds.
//!
//! # Crate features
//!
//! - `serde`: `Serialize` and `Deserialize` for the owned filters, as their
//!   checked bytes.

#![deny(missing_docs)]
#![deny(unsafe_code)]

mod api;
mod batch;
mod binary_fuse;
mod construct;
mod fingerprint;
mod layout;
mod partitioned;
mod ribbon;
#[cfg(feature = "serde")]
mod serde_impls;
mod table;
mod view;
mod xor;

pub use binary_fuse::{BinaryFuse, BinaryFuse8, BinaryFuse16};
pub use filter_core::{BatchContains, Error, Filter, Insert, KeyHasher, PortableHasher, Remove};
pub use fingerprint::Fingerprint;
pub use layout::MAX_KEYS;
pub use partitioned::{
    BinaryFusePartition, MAX_PARTITIONS, PartitionedBinaryFuse, PartitionedBinaryFuse8,
    PartitionedBinaryFuse8Ref, PartitionedBinaryFuse16, PartitionedBinaryFuse16Ref,
    PartitionedBinaryFuseRef, partition_of_hash,
};
pub use ribbon::{MAX_RIBBON_KEYS, Ribbon, RibbonRef};
pub use view::{BinaryFuse8Ref, BinaryFuse16Ref, BinaryFuseRef, Xor8Ref, Xor16Ref, XorRef};
pub use xor::{Xor, Xor8, Xor16};
