#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod batch;
mod bits;
mod bytes;
mod core;
#[cfg(test)]
mod core_tests;
mod counter;
mod filter;
mod shape;
mod sorted;
mod table;
mod traits;

pub use filter::QuotientFilter;
pub use filter_core::{
    BatchContains, BatchInsert, BatchRemove, Error, Filter, Insert, KeyHasher, PortableHasher,
    Remove, UniformHasher,
};
