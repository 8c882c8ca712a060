//! The shared foundation of a workspace of probabilistic membership filters.
//!
//! A membership filter answers "is x in the set?" with **no false negatives**
//! and a tunable rate of false positives, in far less memory than the set.
//! Each filter family lives in its own crate (`bloom`, `counting-bloom`,
//! `cuckoo`, `xor-filter`); this crate holds what they share, once:
//!
//! - the traits [`Filter`], [`Insert`] and [`Remove`], re-exported by every
//!   filter crate, so generic code can take "any filter";
//! - the [`Error`] type, whose messages name the parameter, value and allowed
//!   range;
//! - the hashing pipeline ([`hash`]): [`PortableHasher`], the default
//!   hasher, whose hashes are the same on every machine and in every
//!   version; the [`KeyHasher`] trait that any `BuildHasher` implements;
//!   multiply-shift range reduction, fingerprints, and the hasher probe that
//!   stops a filter from loading under a hasher that would give false
//!   negatives;
//! - sizing math ([`sizing`]) with checked inputs;
//! - batched lookups, inserts and removals ([`BatchContains`],
//!   [`BatchInsert`], [`BatchRemove`]), written once for every filter;
//! - with the `serde` feature, what the filter crates need to serialize a
//!   filter as its checked bytes ([`serde_support`]).
//!
//! The filter crates also use its internals, hidden from these docs and not
//! covered by semver: the byte format's writer and validating reader
//! (`format`; the bytes themselves are specified in `docs/format.md`), the
//! Bloom probe sequences (`probes`), prefetching and the batch engine
//! (`batch`), fallible allocation (`memory`).
//!
//! Users rarely name this crate: every filter crate re-exports the traits and
//! the error.
//!
//! # Examples
//!
//! Code generic over any filter:
//!
//! ```
//! use filter_core::{Error, Filter, Insert};
//!
//! fn insert_all<F: Insert<str>>(filter: &mut F, urls: &[&str]) -> Result<(), Error> {
//!     urls.iter().try_for_each(|url| filter.insert(url))
//! }
//!
//! fn seen<F: Filter<str>>(filter: &F, url: &str) -> bool {
//!     filter.contains(url)
//! }
//! # let _ = (insert_all::<Never>, seen::<Never>);
//! # struct Never;
//! # impl Filter<str> for Never { fn contains(&self, _: &str) -> bool { true } fn memory_bytes(&self) -> usize { 0 } }
//! # impl Insert<str> for Never { fn insert(&mut self, _: &str) -> Result<(), Error> { Ok(()) } }
//! ```
//!
//! Sizing a classic Bloom filter: the textbook formula, and the shape
//! `with_fpr` uses, a few bits larger so that its whole number of hashes
//! meets the rate:
//!
//! ```
//! use filter_core::sizing::{bloom_bits, bloom_fpr, bloom_hashes, bloom_shape};
//!
//! let bits = bloom_bits(1_000_000, 0.01)?;
//! assert_eq!(bits, 9_585_059);
//! assert_eq!(bloom_hashes(bits, 1_000_000)?, 7);
//! assert!(bloom_fpr(bits, 1_000_000, 7)? > 0.01);   // 1.0039 %
//! let (bits, hashes) = bloom_shape(1_000_000, 0.01, 64)?;
//! assert_eq!((bits, hashes), (9_592_957, 7));
//! assert!(bloom_fpr(bits, 1_000_000, hashes)? <= 0.01);
//! assert!(bloom_bits(1_000_000, 1.5).is_err());
//! # Ok::<(), filter_core::Error>(())
//! ```
//!
//! # Design decisions
//!
//! - **Traits are small.** Pre-hashed keys, serialization and sizing differ
//!   between families in ways that matter (a static filter has no `insert`),
//!   so they are inherent methods with shared names, not trait methods.
//! - **A portable default hasher.** Filters are saved and loaded on other
//!   machines, so the default hashes integers by value and byte strings
//!   with a specified hash (XXH3), never with anything that changes with the
//!   CPU target or a dependency's version. Test vectors pin it. Random seeds
//!   would make every run different and saved filters unloadable; a secret
//!   seed is one call away ([`PortableHasher::with_seed`]).
//! - **Every position comes from a mixed hash, mixed once.** The `*_hash`
//!   methods mix what they are given, so that sequential or shifted ids keep
//!   their rate; the key path asks the hasher for the mixed hash directly,
//!   and the default hasher's last step is that mix, so a key is mixed once
//!   (see [`hash`]). No second type parameter and no annotation is needed
//!   for full speed.
//! - **No `%` and no power-of-two tables.** [`reduce`] maps a hash to any
//!   range with one multiply, so tables are sized to what the target rate
//!   needs, not to the next power of two.
//! - **Two `unsafe` blocks**, each paid for by a measurement: the prefetch
//!   hint (a hint never faults and never changes a result), and the call
//!   into a batch's loop compiled for AVX2, made only after checking the
//!   CPU has it.
//! - **The reader distrusts its input.** Every length is checked against the
//!   bytes present before allocating.
//!
//! # Crate features
//!
//! - `testing` (off by default): seeded key generators, an oracle-driven
//!   quickcheck harness and statistical tolerances, for the filter crates'
//!   own tests. Not covered by semver.
//! - `serde` (off by default): [`serde_support`], behind the filter crates'
//!   own `serde` features.

#![deny(missing_docs)]
#![deny(unsafe_code)]

#[doc(hidden)]
pub mod batch;
mod chunk;
mod error;
#[doc(hidden)]
pub mod format;
pub mod hash;
#[doc(hidden)]
pub mod memory;
mod occupancy;
#[doc(hidden)]
pub mod prefetch;
#[doc(hidden)]
pub mod probes;
#[cfg(feature = "serde")]
pub mod serde_support;
pub mod sizing;
#[cfg(feature = "testing")]
pub mod testing;
mod traits;

pub use batch::{BatchContains, BatchInsert, BatchRemove};
pub use error::Error;
pub use hash::{
    HasherProbe, KeyHasher, PortableHasher, UniformHasher, fingerprint, mix64, reduce, unmix64,
};
pub use traits::{Filter, Insert, Remove};

/// The README's example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
