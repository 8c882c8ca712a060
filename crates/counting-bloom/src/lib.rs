#![doc = include_str!("../README.md")]
//!
//! ## Design
//!
//! Each module's docs say why it is as it is: `counters` (4-bit saturating
//! counters, packed 16 to a word), `filter` (the classic layout),
//! `counter_block` (the blocked layout), `blocked_sizing` (its exact rate
//! model), `filter_simd` and `blocked_simd` (the AVX2 kernels and why they
//! pay), `batch` (batched operations). Both filters' AVX2 code is chosen
//! at run time (`is_x86_feature_detected!`), so one build runs everywhere;
//! the portable code computes the same answers and the same bytes.
//!
//! ## Unsafe code
//!
//! Only where a benchmark showed it pays, each block stating why it is
//! sound: the blocked filter's AVX2 kernels (`blocked_simd.rs`), the
//! classic filter's AVX2 lookup (`filter_simd.rs`: its gathers read only
//! words of the table, since every probe is below the counter count), and
//! that filter's portable counter read (`filter.rs`), whose bounds check can
//! never fail for the same reason.

#![deny(missing_docs)]
#![deny(unsafe_code)]

mod batch;
mod blocked;
mod blocked_encoding;
mod blocked_estimates;
mod blocked_simd;
mod blocked_sizing;
mod counter_block;
mod counters;
mod dleft;
mod encoding;
mod filter;
mod filter_simd;
mod kernel;
#[cfg(feature = "serde")]
mod serde_impls;
mod std_traits;

pub use blocked::BlockedCountingBloomFilter;
pub use blocked_sizing::{MAX_BLOCKED_HASHES, MAX_BLOCKS};
pub use dleft::DLeftCountingBloomFilter;
pub use filter::{CountingBloomFilter, MAX_COUNTERS, MAX_HASHES};
pub use filter_core::{
    BatchContains, BatchInsert, BatchRemove, Error, Filter, Insert, KeyHasher, PortableHasher,
    Remove, UniformHasher,
};
