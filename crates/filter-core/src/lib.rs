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
//! - the hashing pipeline ([`hash`]): a deterministic default hasher, a fixed
//!   mixer, multiply-shift range reduction, fingerprints, and the hasher probe
//!   that stops a filter from loading under a hasher that would give false
//!   negatives;
//! - [`probes`]: the k positions of a key in a Bloom-family table
//!   ([`LinearProbes`], [`CubicProbes`], [`HashedProbes`], chosen by
//!   [`ProbeSequence`]);
//! - sizing math ([`sizing`]) with checked inputs;
//! - the byte format ([`format`](mod@format)): a writer and a validating reader;
//! - fallible table allocation ([`memory`]);
//! - batched lookups and inserts ([`batch`]): many keys at once, their memory
//!   requested ahead with a prefetch hint ([`prefetch`](mod@prefetch)).
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
//! - **A fixed default hasher.** Random seeds would make every run and every
//!   test different, and saved filters unloadable. The price (predictable
//!   hashes) is documented on [`DefaultHashBuilder`], with the way out.
//! - **Hashes are mixed again, unless the type says they need not be.**
//!   Every filter mixes each 64-bit hash before taking positions from it,
//!   so that structured `*_hash` input keeps its rate; a filter whose type
//!   parameter is [`UniformHashes`] skips that and is faster (see
//!   [`hash_quality`] for the trade-off and the figures). A type, not a
//!   field, so that the default pays nothing for the option.
//! - **No `%` and no power-of-two tables.** [`reduce`] maps a hash to any
//!   range with one multiply, so tables are sized to what the target rate
//!   needs, not to the next power of two.
//! - **Two `unsafe` blocks**, each paid for by a measurement: the prefetch
//!   hint in [`prefetch`](mod@prefetch) (a hint never faults and never
//!   changes a result, and batched lookups measured up to four times faster
//!   with it), and the call into a batch's loop compiled for AVX2, made only
//!   after checking the CPU has it (see [`batch`], "Chunks").
//! - **The reader distrusts its input.** Every length is checked against the
//!   bytes present before allocating; see [`format`](mod@format).
//!
//! # Crate features
//!
//! - `testing` (off by default): seeded key generators, an oracle-driven
//!   quickcheck harness and statistical tolerances, for the filter crates'
//!   own tests. Not covered by semver.

#![deny(missing_docs)]
#![deny(unsafe_code)]

pub mod batch;
mod chunk;
mod error;
pub mod format;
pub mod hash;
pub mod hash_quality;
pub mod memory;
mod occupancy;
pub mod prefetch;
pub mod probes;
pub mod sizing;
#[cfg(feature = "testing")]
pub mod testing;
mod traits;

pub use error::Error;
pub use hash::{DefaultHashBuilder, HasherProbe, fingerprint, hash_key, mix64, reduce};
pub use hash_quality::{AnyHashes, HashQuality, UniformHashes};
pub use probes::{
    BRANCH_FREE_MAX_BYTES, CUBIC_MAX_CELLS_PER_2K, CubicProbes, HASHED_MAX_LOG2_BASE, HashedProbes,
    LinearProbes, ProbeSequence,
};
pub use traits::{Filter, Insert, Remove};

/// The README's example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
