#![doc = include_str!("../README.md")]
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
