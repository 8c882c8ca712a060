//! Static membership filters built once from the whole key set: xor filters
//! and binary fuse filters, with 8- or 16-bit fingerprints.
//!
//! | type | bits/key at 10^6 | false-positive rate |
//! |---|---|---|
//! | [`BinaryFuse8`] | 9.04 | 2^-8 ≈ 0.39 % |
//! | [`BinaryFuse16`] | 18.1 | 2^-16 ≈ 0.0015 % |
//! | [`Xor8`] | 9.84 | 2^-8 |
//! | [`Xor16`] | 19.7 | 2^-16 |
//!
//! A Bloom filter needs 11.5 bits per key for 2^-8; the lower bound for any
//! filter is 8. When the key set is known up front (an SSTable, a release's
//! blocklist, a build's file set), these are the smallest and fastest filters
//! in the workspace. They cannot take inserts: rebuild instead.
//!
//! Which one: [`BinaryFuse8`] for a 0.39 % false-positive rate, or
//! [`BinaryFuse16`] where a false positive is expensive (0.0015 %, twice the
//! space). The xor filters ([`Xor8`], [`Xor16`]) are 9 % larger and no
//! faster to build or query.
//!
//! # Examples
//!
//! ```
//! use xor_filter::BinaryFuse8;
//!
//! let urls = ["https://a.example/", "https://b.example/", "https://c.example/"];
//! let filter = BinaryFuse8::from_keys(&urls)?;
//! assert!(filter.contains("https://a.example/"));
//!
//! let bytes = filter.to_bytes();
//! let loaded = BinaryFuse8::from_bytes(&bytes)?;
//! assert!(loaded.contains(&String::from("https://b.example/")));
//! # Ok::<(), xor_filter::Error>(())
//! ```
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
//! - **One construction for all four types.** The layouts differ only in
//!   where a key's three slots are; the fingerprint width only in the type of
//!   the table. Sorting, peeling, assignment, lookup and encoding are written
//!   once, generic over both (`construct.rs`, `table.rs`).
//! - **Peeling without adjacency lists.** Each slot keeps a count and the xor
//!   of the hashes that map to it; a slot with count 1 names its key. About
//!   23 bytes per key at peak for binary fuse and 25 for xor (documented in
//!   `construct.rs`).
//! - **Peeling breadth first, with prefetching.** Construction is bound by
//!   cache misses. Peeling in order of discovery lets the slots a few steps
//!   ahead be prefetched (with `filter_core::prefetch`), so
//!   misses overlap instead of queueing. Against `xorf` 0.13 (a port of the
//!   reference code) on the same keys and hasher, builds take 0.16–0.33× its
//!   time for xor and 0.33–0.66× for binary fuse, and lookups 0.82–0.88× its
//!   time at 10^5 and 10^6 keys (see the README).
//! - **Keys sorted by first slot before peeling.** A one-pass counting sort
//!   on the mixed hash's top bits makes the binary fuse construction sweep its
//!   tables instead of missing the cache on every key.
//! - **Duplicates are removed, not rejected.** They make peeling fail; after
//!   a second failed seed the hashes are sorted and deduplicated, so repeated
//!   keys cost a sort, never a hang or an error. [`len`](Xor::len) reports the
//!   distinct hashes.
//! - **Bounded retries.** A failed seed is retried with the next one, at most
//!   100 times, then [`Error::ConstructionFailed`]. The first 16 seeds are a
//!   fixed sequence, so a build is reproducible bit for bit (an honest key
//!   set needs more with probability below 10^-8). Later seeds are
//!   unpredictable, so keys crafted to defeat the known seeds waste at most
//!   16 attempts instead of failing the build. Binary fuse attempts alternate
//!   between the formula's segment length and half of it (the same slots):
//!   just past a step of the formula, its dozen long segments peel for as
//!   few as 5 % of key sets, the halved ones for ~97 %.
//! - **Tiny sets work.** The xor layout's `+ 32` and the binary fuse
//!   layout's larger size factor at small n (the formula gives 5.9 slots
//!   per key at two keys; whole segments make it 12 slots for one key and
//!   8 per key at three) keep small hypergraphs peelable; n = 0 builds an
//!   empty table that answers with the usual false-positive rate.
//! - **Batched lookups.** `contains_batch` answers many queries in order,
//!   requesting each query's three slots 32 queries ahead
//!   ([`filter_core::batch`]), so that a table outside the cache serves
//!   many misses at once. At 10M keys, per query, in one full `cargo xtask
//!   compare` on a shared 2-core AMD EPYC (32 MiB L3): 8.9 ns against
//!   27.7 ns one by one for [`BinaryFuse16`] (23 MB), 9.2 against 29.3 for
//!   [`Xor16`] (25 MB), and for the 8-bit filters (11–12 MB, which fit that
//!   cache when other tenants leave it room, as they did in that run) 4.9
//!   against 4.8 for [`BinaryFuse8`], no gain, and 4.9 against 6.1 for
//!   [`Xor8`] (16–41 ns one by one in runs where they did not). Tables
//!   under 8 MiB are not prefetched: in cache, locating every key twice
//!   costs more than the prefetch saves (prefetched, 1M keys: 0.6–1.0 ns
//!   slower). On CPUs with AVX2, a batch of any size answers 32 queries at
//!   a time in a loop compiled for it
//!   ([chunks](filter_core::batch#chunks)), which took a fifth to a third
//!   off each lookup at 1M keys.
//! - **One small `unsafe` block, paid for by a measurement:** unchecked
//!   indexing of the three lookups (`table.rs`), which made lookups ~10 %
//!   faster at 10^6 keys. (The prefetch hint, once this crate's second, is
//!   now `filter_core::prefetch`, shared with every filter's batched
//!   lookups.) The lookup's indices are in range by construction: every layout maps any
//!   hash below its slot count, and a table always has exactly that many
//!   entries (`from_bytes` refuses any other count). Construction keeps its
//!   bounds checks.
//!
//! # Crate features
//!
//! None. Everything is in the default build; the crate depends only on
//! `filter-core`.

#![deny(missing_docs)]
#![deny(unsafe_code)]

mod api;
mod batch;
mod binary_fuse;
mod construct;
mod fingerprint;
mod layout;
mod ribbon;
mod table;
mod xor;

pub use binary_fuse::{BinaryFuse, BinaryFuse8, BinaryFuse16};
pub use filter_core::{BatchContains, KeyHasher, PortableHasher};
pub use filter_core::{DefaultHashBuilder, Error, Filter, Insert, Remove};
pub use fingerprint::Fingerprint;
pub use layout::MAX_KEYS;
pub use ribbon::{MAX_RIBBON_KEYS, Ribbon};
pub use xor::{Xor, Xor8, Xor16};

/// The README's example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
