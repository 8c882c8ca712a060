//! Counting quotient filter (work in progress).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod bits;
mod core;
mod counter;
mod table;
#[cfg(test)]
mod core_tests;
