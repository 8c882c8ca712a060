//! What a filter may assume about the 64-bit hashes it is given, and so
//! whether it mixes them again before taking positions from them.
//!
//! Every filter turns a key's 64-bit hash into positions and a fingerprint
//! (see [`hash`](mod@crate::hash)). By default it first puts the hash
//! through a mixer of its own, because the `*_hash` methods take whatever
//! the caller has: sequential ids, ids shifted into the high bits, a
//! single multiply. Without the mixer such hashes pile into a few buckets
//! or share their fingerprints, and the false-positive rate or the load a
//! cuckoo filter reaches falls apart (each filter's tests hold a list of
//! such shapes to the target rate).
//!
//! That mixer is pure cost where the hashes are uniform already, as the
//! output of a good hasher is (ahash, the default; xxHash; SipHash), and
//! it is a large part of a lookup that hits the cache: two to four
//! instructions on the path to the first load, in a lookup of a dozen to
//! fifty. The filter types therefore take a second type parameter, `Q`:
//!
//! - [`AnyHashes`], the default: the filter mixes every hash. Any `u64` is
//!   safe to pass to the `*_hash` methods.
//! - [`UniformHashes`]: the caller promises that every hash the filter sees
//!   is uniformly distributed, and the filter uses it as it is. In the
//!   committed `cargo xtask compare` report (10^6 keys, 1 %, a 2-core AMD
//!   EPYC, a shuffled mix of members and non-members), lookups took: cuckoo
//!   3.72 → 2.65 ns, blocked Bloom 2.03 → 1.55, classic Bloom 6.39 → 5.50,
//!   blocked counting 5.25 → 4.51, classic counting 8.45 → 7.78.
//!
//! The promise holds for keys hashed by the filter's own hasher when that
//! hasher is a good one (the default is), and for `*_hash` values that come
//! from such a hasher. It does not hold for ids, counters, addresses or
//! anything else with structure: given those, a filter that trusts its
//! hashes may exceed its false-positive target many times over, and a
//! cuckoo filter may report [`Error::Full`] far below its capacity. It
//! never gives a false negative either way.
//!
//! The choice is part of a filter's type and of its bytes (header flag
//! [`FLAG_UNIFORM_HASHES`]), because
//! the same hash gives other positions under the two: bytes written by one
//! load only as the same, and anything else is refused with
//! [`Error::HashQualityMismatch`].
//!
//! Why a type parameter and not a field: a field would be tested on every
//! lookup, and that branch measured 0.1–0.15 ns of the 1 ns the mixer
//! costs a cuckoo lookup (2.71–2.79 against 2.60–2.65 ns). As a type the
//! choice is made when the lookup is compiled, and the default type pays
//! nothing for the option.

use std::fmt;

use crate::Error;
use crate::format::FLAG_UNIFORM_HASHES;

mod sealed {
    /// Only this crate's two markers implement [`HashQuality`](super::HashQuality):
    /// filters rely on `UNIFORM` being one of two known answers.
    pub trait Sealed {}
}

/// What a filter may assume about its hashes: the type parameter `Q` of
/// every filter type. Implemented by [`AnyHashes`] and [`UniformHashes`]
/// only; see the [module docs](self).
pub trait HashQuality:
    sealed::Sealed + Copy + Default + fmt::Debug + Send + Sync + 'static
{
    /// `true`: the filter takes positions from each hash as it is;
    /// `false`: it mixes each hash first.
    const UNIFORM: bool;

    /// The marker's name, for error messages and `Debug` output.
    const NAME: &'static str;

    /// The header flags that record this choice in a filter's bytes.
    fn flags() -> u16 {
        if Self::UNIFORM {
            FLAG_UNIFORM_HASHES
        } else {
            0
        }
    }

    /// Checks that bytes whose header flags are `flags` were written by a
    /// filter of this hash quality.
    ///
    /// # Errors
    ///
    /// [`Error::HashQualityMismatch`] when they were written by one of the
    /// other.
    fn check_flags(flags: u16) -> Result<(), Error> {
        let stored_uniform = flags & FLAG_UNIFORM_HASHES != 0;
        if stored_uniform == Self::UNIFORM {
            return Ok(());
        }
        let (stored, expected) = if stored_uniform {
            (UniformHashes::NAME, AnyHashes::NAME)
        } else {
            (AnyHashes::NAME, UniformHashes::NAME)
        };
        Err(Error::HashQualityMismatch { stored, expected })
    }
}

/// The default [`HashQuality`]: the filter mixes every hash before it takes
/// positions from it, so any `u64` (sequential ids included) is safe to pass
/// to the `*_hash` methods.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AnyHashes;

/// A [`HashQuality`] for hashes that are uniform already: the filter takes
/// positions from each hash as it is, which makes lookups faster (see the
/// [module docs](self) for the figures), and relies on the caller's promise
/// that every hash it sees, through the filter's hasher or a `*_hash`
/// method, comes from a good hash function. Structured values (ids,
/// counters) break that promise: the rate may then exceed its target many
/// times over. It never causes a false negative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UniformHashes;

impl sealed::Sealed for AnyHashes {}
impl sealed::Sealed for UniformHashes {}

impl HashQuality for AnyHashes {
    const UNIFORM: bool = false;
    const NAME: &'static str = "AnyHashes";
}

impl HashQuality for UniformHashes {
    const UNIFORM: bool = true;
    const NAME: &'static str = "UniformHashes";
}

/// The error for turning a filter that holds items into one of another
/// [`HashQuality`]: its items sit where the old choice put them, and the new
/// one would look elsewhere. `method` names the method in the message.
pub fn not_empty(method: &'static str, items: impl fmt::Display) -> Error {
    Error::invalid(
        method,
        format_args!("a filter of {items} items"),
        "called on an empty filter",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_quality_accepts_its_own_flags_and_refuses_the_others() {
        assert_eq!(AnyHashes::flags(), 0);
        assert_eq!(UniformHashes::flags(), FLAG_UNIFORM_HASHES);
        assert_eq!(AnyHashes::check_flags(AnyHashes::flags()), Ok(()));
        assert_eq!(UniformHashes::check_flags(UniformHashes::flags()), Ok(()));
        // Other flags beside it do not matter here: each filter checks those.
        assert_eq!(AnyHashes::check_flags(1 | 8), Ok(()));
        assert_eq!(
            AnyHashes::check_flags(FLAG_UNIFORM_HASHES | 8),
            Err(Error::HashQualityMismatch {
                stored: "UniformHashes",
                expected: "AnyHashes"
            })
        );
        let err = UniformHashes::check_flags(0).unwrap_err();
        assert_eq!(
            err,
            Error::HashQualityMismatch {
                stored: "AnyHashes",
                expected: "UniformHashes"
            }
        );
        let message = err.to_string();
        assert!(
            message.contains("AnyHashes") && message.contains("UniformHashes"),
            "{message}"
        );
    }

    #[test]
    fn not_empty_names_the_method_and_the_items() {
        let message = not_empty("assume_uniform_hashes", 3).to_string();
        assert_eq!(
            message,
            "assume_uniform_hashes must be called on an empty filter, got a filter of 3 items"
        );
    }
}
