#![doc = include_str!("../README.md")]
//!
//! # Design decisions
//!
//! - **One hash per key, mixed once.** The hasher runs once per key and
//!   gives the mixed hash ([`KeyHasher::mixed_hash`]); the default,
//!   [`PortableHasher`], computes it directly, so nothing is mixed twice.
//!   The classic filter derives its k positions from it by double hashing
//!   ([`filter_core::probes`]), the blocked filter its block from the high
//!   bits and its eight lane bits from the low 32. The `*_hash` methods mix
//!   what they are given with [`filter_core::mix64`] and then take the same
//!   path, so `contains(&k) == contains_hash(hasher.hash_key(&k))` and
//!   sequential or shifted ids keep the rate.
//! - **No `%`, no power-of-two tables.** Positions and blocks are chosen by
//!   multiply-shift ([`filter_core::reduce`]), so a filter has exactly the
//!   bits its target needs.
//! - **Classic lookups do not branch on the bits they read, unless the
//!   table outgrows the cache** (`classic.rs` says why).
//! - **Batched lookups and inserts** ([`BatchContains`], [`BatchInsert`])
//!   request each key's cache lines 32 keys ahead, for tables outside the
//!   cache; on CPUs with AVX2 a batch answers 32 queries at a time in a loop
//!   compiled for it.
//! - **The blocked filter is Parquet's split block**: one 256-bit block
//!   per key, 32-byte aligned so it never straddles a cache line, one bit
//!   in each of its eight 32-bit lanes (`block.rs` says why not a whole
//!   cache line). AVX2 where the CPU has it, chosen at run time; the
//!   portable probe sets the same bits, so bytes are portable.
//! - **Blocking is paid for in bits, honestly.** [`BlockedBloomFilter::with_fpr`]
//!   sizes with the Poisson model of block loads
//!   ([`filter_core::sizing::blocked_bloom_bits`]) so that the *measured*
//!   rate meets the target.
//! - **The hasher is part of the filter's identity.** `union`, `intersect`
//!   and `from_bytes` compare the hashers' [`filter_core::HasherProbe`] and
//!   refuse a mismatch with [`Error::HasherMismatch`].
//!
//! # Crate features
//!
//! - `serde` (off by default): `Serialize` and `Deserialize` for every
//!   filter, as its checked bytes ([`filter_core::serde_support`]): a
//!   filter loaded by serde is validated as `from_bytes` validates it.
//! - `spark` (off): `spark`, Spark's `BloomFilter` format, versions 1 and
//!   2. No dependencies.
//! - `parquet` (off): `parquet`, Parquet's split-block Bloom filter. Adds
//!   `xxhash-rust` (XXH64, the hash the Parquet specification names).
//!
//! The crate depends on `filter-core` and `fixedbitset` only (and
//! `xxhash-rust` with `parquet`). Its `unsafe` code is the AVX2 block
//! probes (plain and atomic) and the Parquet filter's AVX2 probe, behind a
//! runtime CPU check, and the classic filters' unchecked word reads and
//! writes; each states why it is sound.

#![deny(missing_docs)]
#![deny(unsafe_code)]

mod atomic;
mod atomic_blocked;
mod batch;
mod block;
mod blocked;
mod classic;
mod encoding;
mod scalable;
#[cfg(feature = "serde")]
mod serde_impls;
mod simd;
mod std_traits;

#[cfg(feature = "parquet")]
pub mod parquet;
#[cfg(feature = "spark")]
pub mod spark;

pub use atomic::AtomicBloomFilter;
pub use atomic_blocked::AtomicBlockedBloomFilter;
pub use block::{BLOCK_BITS, BLOCK_HASHES};
pub use blocked::{BlockedBloomFilter, MAX_BLOCKS, MIN_FPR};
pub use classic::{BloomFilter, MAX_HASHES};
pub use filter_core::{
    BatchContains, BatchInsert, Error, Filter, Insert, KeyHasher, PortableHasher, Remove,
    UniformHasher,
};
pub use scalable::{DEFAULT_GROWTH_FACTOR, DEFAULT_TIGHTENING_RATIO, ScalableBloomFilter};

/// The interop guide's examples, compiled and run as doctests so they
/// cannot rot.
#[cfg(all(doctest, feature = "spark", feature = "parquet"))]
#[doc = include_str!("../INTEROP.md")]
pub struct InteropDoctests;
