//! Test support for the filter crates (feature `testing`).
//!
//! - [`header`]: the minor version and flags of serialized bytes, read and
//!   forged, for the tests of format versions.
//! - [`keys`]: seeded, reproducible keys; members and non-members disjoint by
//!   construction, so a measured false-positive rate needs no exclusion step.
//! - [`oracle`]: a quickcheck harness that drives a filter and a `HashMap` of
//!   multiplicities through the same random operations and checks "no false
//!   negatives" after every step.
//! - [`stats`]: the binomial tolerance for false-positive-rate assertions.
//! - [`stable_hasher`]: a hasher that never changes, for committed byte
//!   fixtures.
//!
//! Not part of the stable API: it exists for this workspace's tests.

pub mod header;
pub mod keys;
pub mod oracle;
pub mod stable_hasher;
pub mod stats;

/// False-positive rates every sized constructor must refuse with
/// `Error::InvalidParameter` naming `fpr`: the two ends of the open interval
/// (0, 1), a value beyond each end, NaN and both infinities. One list, so
/// that every filter is held to the same set.
pub const BAD_RATES: [f64; 7] = [
    0.0,
    1.0,
    -0.01,
    1.5,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

/// Whether this machine's kernel refuses an allocation far beyond its memory
/// outright (Linux overcommit modes 0 and 2), so that a test may ask for a
/// table of terabytes and expect an `Err`. Where it overcommits (mode 1, or
/// a system this cannot tell), such a request could be granted and then
/// zero-filled until the out-of-memory killer ends the test run, so tests
/// skip those requests.
pub fn huge_allocations_are_refused() -> bool {
    std::fs::read_to_string("/proc/sys/vm/overcommit_memory")
        .is_ok_and(|mode| matches!(mode.trim(), "0" | "2"))
}
