//! The one error type every filter returns.

use std::fmt;

/// Everything that can go wrong when building, filling or loading a filter.
///
/// Each variant carries enough to act on: an invalid parameter names itself,
/// its value and the allowed range; corrupt bytes say what was wrong with them.
/// The enum is `#[non_exhaustive]` so that new failure modes can be added in a
/// minor release; match with a wildcard arm.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A constructor or sizing function was given a value outside its domain.
    ///
    /// Displayed as "`{name}` must be {allowed}, got {value}", for example
    /// "fpr must be in the open interval (0, 1), got 1.5".
    #[error("{name} must be {allowed}, got {value}")]
    InvalidParameter {
        /// The parameter's name as the caller wrote it (`expected_items`, `fpr`, ...).
        name: &'static str,
        /// The rejected value, formatted.
        value: String,
        /// The allowed range, as a phrase that completes "must be ...".
        allowed: String,
    },

    /// The filter has no room for another item.
    ///
    /// Only filters with a hard capacity (the cuckoo filter, a counting filter's
    /// saturated counters never cause it) return this. Every item inserted before
    /// is still reported present.
    #[error(
        "the filter is full: the item was not inserted, and every earlier item is still present"
    )]
    Full,

    /// A static filter could not be built from the given keys.
    ///
    /// Static filters retry with fresh seeds; this is returned only after
    /// `attempts` tries all failed.
    #[error("construction failed after {attempts} attempts: {reason}")]
    ConstructionFailed {
        /// How many seeds were tried.
        attempts: u32,
        /// Why the last attempt failed.
        reason: String,
    },

    /// `from_bytes` was given bytes that are not a valid serialized filter.
    #[error("corrupt filter bytes: {reason}")]
    Corrupt {
        /// What was wrong: which field, what was found, what was expected.
        reason: String,
    },

    /// The bytes were written by a filter whose hasher hashes differently from
    /// the one given to load them (another ahash version or CPU target, another
    /// seed, another `BuildHasher`).
    ///
    /// Loading anyway would answer `false` for items that were inserted, so it is
    /// refused. Use the same hasher, or rebuild the filter from its keys.
    #[error(
        "hasher mismatch: the filter was built with a hasher that hashes differently from this one; \
         loading it would give false negatives"
    )]
    HasherMismatch,

    /// Two filters cannot be combined (`union`, `intersect`, `merge`) because
    /// their shapes differ.
    #[error("filters are incompatible: {parameter} differs ({left} vs {right})")]
    Incompatible {
        /// Which parameter differs (`bits`, `hashes`, ...).
        parameter: &'static str,
        /// Its value in `self`.
        left: String,
        /// Its value in the other filter.
        right: String,
    },
}

impl Error {
    /// Builds [`Error::InvalidParameter`].
    ///
    /// `allowed` completes the sentence "`name` must be ...".
    pub fn invalid(
        name: &'static str,
        value: impl fmt::Display,
        allowed: impl fmt::Display,
    ) -> Self {
        Error::InvalidParameter {
            name,
            value: value.to_string(),
            allowed: allowed.to_string(),
        }
    }

    /// Builds [`Error::Corrupt`].
    pub fn corrupt(reason: impl fmt::Display) -> Self {
        Error::Corrupt {
            reason: reason.to_string(),
        }
    }

    /// Builds [`Error::Incompatible`].
    pub fn incompatible(
        parameter: &'static str,
        left: impl fmt::Display,
        right: impl fmt::Display,
    ) -> Self {
        Error::Incompatible {
            parameter,
            left: left.to_string(),
            right: right.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_parameter_message_names_parameter_value_and_range() {
        let e = Error::invalid("fpr", 1.5, "in the open interval (0, 1)");
        assert_eq!(
            e.to_string(),
            "fpr must be in the open interval (0, 1), got 1.5"
        );
    }

    #[test]
    fn incompatible_message_names_both_sides() {
        let e = Error::incompatible("bits", 64, 128);
        assert_eq!(
            e.to_string(),
            "filters are incompatible: bits differs (64 vs 128)"
        );
    }
}
