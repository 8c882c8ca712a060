//! Test support for the filter crates (feature `testing`).
//!
//! - [`keys`]: seeded, reproducible keys; members and non-members disjoint by
//!   construction, so a measured false-positive rate needs no exclusion step.
//! - [`oracle`]: a quickcheck harness that drives a filter and a `HashMap` of
//!   multiplicities through the same random operations and checks "no false
//!   negatives" after every step.
//! - [`stats`]: the binomial tolerance for false-positive-rate assertions.
//!
//! Not part of the stable API: it exists for this workspace's tests.

pub mod keys;
pub mod oracle;
pub mod stats;
