//! The one error type every filter returns.

use std::fmt;

/// Everything that can go wrong when building, filling or loading a filter.
///
/// Each variant carries enough to act on: an invalid parameter names itself,
/// its value and the allowed range; corrupt bytes say what was wrong with them.
/// The enum is `#[non_exhaustive]` so that new failure modes can be added in a
/// minor release; match with a wildcard arm.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
    /// the one given to load them (another seed, another `BuildHasher`), or two filters to combine (`union`,
    /// `intersect`, `merge`) have hashers that hash differently.
    ///
    /// Loading or combining anyway would answer `false` for items that were
    /// inserted, so it is refused. Use the same hasher, or rebuild the filter
    /// from its keys.
    #[error(
        "hasher mismatch: the filter was built with a hasher that hashes differently from this one; \
         loading it under this one, or combining it with a filter built under this one, \
         would give false negatives"
    )]
    HasherMismatch,

    /// The bytes are a valid filter of another kind than the type asked to
    /// load them: a `BloomFilter`'s bytes given to `CuckooFilter::from_bytes`,
    /// say. Load them as the type that wrote them (`found`).
    #[error("wrong filter kind: the bytes hold a {found}, not a {expected}")]
    WrongKind {
        /// The kind of the type that was asked to load the bytes.
        expected: &'static str,
        /// The kind the bytes hold.
        found: &'static str,
    },

    /// An insert would store more copies of one item than the filter can
    /// hold: a cuckoo filter keeps an item's copies in its two buckets, so
    /// at most `limit` of them. Nothing was inserted, and every earlier item
    /// is still present. Inserting an item only when it is absent
    /// (`insert_unique`) never meets this limit.
    #[error(
        "too many copies of one item: this filter holds at most {limit} copies of an item; \
         nothing was inserted (use insert_unique to insert an item only when it is absent)"
    )]
    TooManyCopies {
        /// The most copies of one item the filter holds.
        limit: usize,
    },

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

/// `value` as given, unless it is a number whose decimal expansion is too
/// long to read: `f64`'s `Display` writes every digit, so a rate of 1e-300
/// would fill an error message with three hundred zeros. Such values are
/// written in scientific notation instead (still exact: the shortest form
/// that reads back as the same `f64`). No integer up to `u64::MAX` (20
/// digits) is that long, so integers are never rewritten.
fn readable(value: String) -> String {
    const LONGEST_PLAIN: usize = 24;
    // Below 10^-6 the zeros after the point are what the reader would have
    // to count: 1e-19 reads better than 0.0000000000000000001.
    let many_zeros = value.trim_start_matches('-').starts_with("0.000000");
    match value.parse::<f64>() {
        Ok(x) if value.len() > LONGEST_PLAIN || many_zeros => format!("{x:e}"),
        _ => value,
    }
}

/// `text` with every space-separated word rewritten by [`readable`], so
/// that a rate quoted inside an explanation ("fits ... at fpr 1e-300") is
/// as short as one given as the value.
fn readable_words(text: &str) -> String {
    text.split(' ')
        .map(|word| readable(word.to_string()))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Error {
    /// Builds [`Error::InvalidParameter`].
    ///
    /// `allowed` completes the sentence "`name` must be ...". Numbers too
    /// long to read, in either argument, are written in scientific notation.
    pub fn invalid(
        name: &'static str,
        value: impl fmt::Display,
        allowed: impl fmt::Display,
    ) -> Self {
        Error::InvalidParameter {
            name,
            value: readable(value.to_string()),
            allowed: readable_words(&allowed.to_string()),
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
    fn extreme_numbers_are_written_readably_and_exactly() {
        // f64's Display would write 1e-300 as "0." and 299 zeros before the 1.
        let tiny = Error::invalid("fpr", 1e-300, "in (0, 1)").to_string();
        assert!(tiny.contains("got 1e-300"), "{tiny}");
        // Also where a rate is quoted in the explanation.
        let quoted = Error::invalid(
            "expected_items",
            5,
            format_args!("small enough to fit at fpr {} in memory", 1e-300),
        )
        .to_string();
        assert_eq!(
            quoted,
            "expected_items must be small enough to fit at fpr 1e-300 in memory, got 5"
        );
        let subnormal = Error::invalid("fpr", 5e-324, "in (0, 1)").to_string();
        assert!(subnormal.contains("got 5e-324"), "{subnormal}");
        // Shorter, but still more zeros than a reader should count.
        let small = Error::invalid("fpr", 1e-19, "in (0, 1)").to_string();
        assert!(small.contains("got 1e-19"), "{small}");
        // Scientific notation reads back as the same f64.
        let x = 1.234_567_890_123_456_7e-200_f64;
        let Error::InvalidParameter { value, .. } = Error::invalid("fpr", x, "") else {
            unreachable!()
        };
        assert_eq!(value.parse::<f64>(), Ok(x));
        // Ordinary rates and every u64 are left as written.
        assert!(
            Error::invalid("fpr", 1.5, "")
                .to_string()
                .contains("got 1.5")
        );
        assert!(
            Error::invalid("fpr", 0.000_01, "")
                .to_string()
                .contains("got 0.00001")
        );
        let max = Error::invalid("bits", u64::MAX, "").to_string();
        assert!(max.contains("got 18446744073709551615"), "{max}");
    }

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
