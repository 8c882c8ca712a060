//! The hashing pipeline: key → 64-bit hash → positions and fingerprints.
//!
//! ```text
//! key: &T where T: Hash + ?Sized
//!   -> 64-bit hash              a BuildHasher S (default: DefaultHashBuilder, ahash with fixed seeds)
//!   -> mix64(hash)              a fixed bijective finalizer, stable forever
//!   -> positions, fingerprint   reduce() for "a number below n", fingerprint() for "a non-zero f-bit value"
//! ```
//!
//! Why a second, fixed mixing step after a good hasher: filters also accept
//! pre-hashed keys (`insert_hash`), and users bring whatever they have there,
//! sequential ids included. Multiply-shift range reduction keeps the *high*
//! bits of its input, so a poor hash would put every small id in bucket 0.
//! [`mix64`] is a bijection, so it cannot add collisions, and it costs two
//! multiplies.
//!
//! Why multiply-shift and not `%`: a 64-bit division costs 20–40 cycles, a
//! widening multiply 3, and it works for any table size, so no filter needs to
//! round its tables up to a power of two (which can waste up to half the memory).

use std::hash::{BuildHasher, Hash};

/// The seeds of [`DefaultHashBuilder`]: the first 256 bits of the fractional
/// part of π. They are part of the format: changing them changes every hash.
const DEFAULT_SEEDS: [u64; 4] = [
    0x243F_6A88_85A3_08D3,
    0x1319_8A2E_0370_7344,
    0xA409_3822_299F_31D0,
    0x082E_FA98_EC4E_6C89,
];

/// The default key hasher: ahash with fixed, documented seeds.
///
/// Fixed seeds make a filter deterministic: the same keys give the same table
/// on every run, so tests are reproducible and a filter saved to bytes can be
/// loaded again by the same build. ahash is among the fastest good hashers for
/// both short integer and string keys.
///
/// ahash's output is **not** stable across ahash versions or CPU targets (it
/// uses AES instructions where the target enables them). Serialized filters
/// therefore record a [`HasherProbe`] and refuse to load under a hasher that
/// hashes differently. Users who need bytes portable across machines build
/// their filters with a stable `BuildHasher` of their own (the
/// `*_with_hasher` constructors, and `from_bytes_with_hasher` to load).
/// Passing stable hashes to the `*_hash` methods is not enough on its own:
/// the bytes still record the probe of the hasher the filter was built with.
///
/// Fixed seeds also mean an adversary who knows the seeds can craft colliding
/// keys; use [`DefaultHashBuilder::with_seed`] with a secret seed where that
/// matters.
#[derive(Clone, Debug)]
pub struct DefaultHashBuilder(ahash::RandomState);

impl DefaultHashBuilder {
    /// A builder whose seeds are derived from `seed` (seed 0 is not the
    /// default; the default uses `DEFAULT_SEEDS` directly).
    pub fn with_seed(seed: u64) -> Self {
        let s = |i: u64| mix64(seed ^ DEFAULT_SEEDS[i as usize]);
        DefaultHashBuilder(ahash::RandomState::with_seeds(s(0), s(1), s(2), s(3)))
    }
}

impl Default for DefaultHashBuilder {
    fn default() -> Self {
        let [a, b, c, d] = DEFAULT_SEEDS;
        DefaultHashBuilder(ahash::RandomState::with_seeds(a, b, c, d))
    }
}

impl BuildHasher for DefaultHashBuilder {
    type Hasher = ahash::AHasher;

    #[inline]
    fn build_hasher(&self) -> Self::Hasher {
        self.0.build_hasher()
    }
}

/// Hashes `item` with `hasher`: the raw 64-bit hash that the filters' `*_hash`
/// methods take.
///
/// It does *not* apply [`mix64`]; each filter mixes inside, so that
/// `filter.contains(&x)` equals `filter.contains_hash(hash_key(&hasher, &x))`
/// and a user's own (possibly poor) hash goes through the same mixing.
#[inline]
pub fn hash_key<T: Hash + ?Sized, S: BuildHasher>(hasher: &S, item: &T) -> u64 {
    hasher.hash_one(item)
}

/// A fixed 64-bit bijective finalizer (the SplitMix64 / Stafford "variant 13"
/// mixer). Every output bit depends on every input bit.
///
/// Stable forever: serialized filters depend on it.
#[inline]
pub const fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Maps `hash` to `0..n` by multiply-shift range reduction:
/// `(hash * n) >> 64` in 128-bit arithmetic.
///
/// Uniform when the *high* bits of `hash` are; no division, any `n`
/// (Lemire, "A fast alternative to the modulo reduction"). Returns 0 when
/// `n == 0`. Derive other values (fingerprints, a second position) from the
/// low bits or from a further [`mix64`], not from the same high bits.
#[inline]
pub const fn reduce(hash: u64, n: usize) -> usize {
    ((hash as u128 * n as u128) >> 64) as usize
}

/// A non-zero fingerprint of `bits` bits (1 to 32) from the *low* 32 bits of
/// `hash`, uniform over `1..2^bits`.
///
/// Zero is left out so that filters can use 0 to mean "empty slot". The low
/// half is used so that a position taken from the high half by [`reduce`] is
/// independent of it. `bits` outside `1..=32` is clamped into it (a caller bug,
/// not user input: filters validate their widths at construction).
#[inline]
pub const fn fingerprint(hash: u64, bits: u32) -> u64 {
    let bits = if bits == 0 {
        1
    } else if bits > 32 {
        32
    } else {
        bits
    };
    let max = (1u64 << bits) - 1;
    (((hash & 0xFFFF_FFFF) * max) >> 32) + 1
}

/// The hashes of a few fixed keys under one hasher: a hasher's fingerprint.
///
/// Serialized filters store the probe of the hasher they were built with;
/// loading compares it with the probe of the hasher given to load them and
/// refuses a mismatch with [`Error::HasherMismatch`](crate::Error::HasherMismatch).
/// Two hashers that agree on these keys but not on others are possible in
/// principle and not caught; the keys are chosen to cover integer, byte and
/// string hashing paths so that version and target changes show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HasherProbe(pub [u64; 4]);

impl HasherProbe {
    /// Hashes the probe keys under `hasher`.
    ///
    /// # Panics
    ///
    /// If `hasher` panics on a string or a byte slice, as hashers written
    /// for integer keys alone may (nohash-hasher's does); serializing a
    /// filter needs one that hashes them.
    pub fn of<S: BuildHasher>(hasher: &S) -> Self {
        HasherProbe([
            hasher.hash_one(INTEGER_PROBES[0]),
            hasher.hash_one(INTEGER_PROBES[1]),
            hasher.hash_one("filter-core hasher probe"),
            hasher.hash_one(&[0xA5u8; 37][..]),
        ])
    }

    /// Whether `a` and `b` hash alike, for filters held in memory together
    /// (`union`, `intersect`, `merge`, `==`): compares the hashes of the
    /// integer probe keys only. Both hashers are of one type in one program,
    /// so what can tell them apart is their state (a seed), which integer
    /// keys show as well as strings do; and hashers that take integers only
    /// (identity hashers for `u64` keys, which panic on strings) can be
    /// compared.
    pub fn same<S: BuildHasher>(a: &S, b: &S) -> bool {
        INTEGER_PROBES
            .iter()
            .all(|&key| a.hash_one(key) == b.hash_one(key))
    }
}

/// The integer keys of [`HasherProbe`].
const INTEGER_PROBES: [u64; 2] = [0, 0x0123_4567_89AB_CDEF];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_builder_is_deterministic() {
        let a = DefaultHashBuilder::default();
        let b = DefaultHashBuilder::default();
        for key in ["", "a", "https://example.com/"] {
            assert_eq!(a.hash_one(key), b.hash_one(key));
        }
        assert_eq!(HasherProbe::of(&a), HasherProbe::of(&b));
    }

    #[test]
    fn seeded_builders_differ_from_default_and_each_other() {
        let d = HasherProbe::of(&DefaultHashBuilder::default());
        let s1 = HasherProbe::of(&DefaultHashBuilder::with_seed(1));
        let s2 = HasherProbe::of(&DefaultHashBuilder::with_seed(2));
        assert_ne!(d, s1);
        assert_ne!(s1, s2);
        assert_eq!(s1, HasherProbe::of(&DefaultHashBuilder::with_seed(1)));
    }

    #[test]
    fn same_tells_seeds_apart() {
        let a = DefaultHashBuilder::with_seed(1);
        assert!(HasherProbe::same(&a, &DefaultHashBuilder::with_seed(1)));
        assert!(!HasherProbe::same(&a, &DefaultHashBuilder::with_seed(2)));
        // Hashers for integer keys alone: `benches/tests/contract.rs`.
    }

    #[test]
    fn mix64_known_values() {
        // SplitMix64's output for state increments of the golden gamma: the
        // first output of SplitMix64 seeded with 0 is mix64(0x9E3779B97F4A7C15).
        assert_eq!(mix64(0x9E37_79B9_7F4A_7C15), 0xE220_A839_7B1D_CDAF);
        assert_eq!(mix64(0), 0);
    }

    #[test]
    fn reduce_edges() {
        assert_eq!(reduce(0, 10), 0);
        assert_eq!(reduce(u64::MAX, 10), 9);
        assert_eq!(reduce(u64::MAX, 0), 0);
        assert_eq!(reduce(1 << 63, 10), 5);
        assert_eq!(reduce(u64::MAX, usize::MAX), usize::MAX - 1);
    }

    #[test]
    fn fingerprint_is_never_zero_and_fits() {
        for bits in 1..=32 {
            for h in [0u64, 1, 0xFFFF_FFFF, u64::MAX, 0x8000_0000] {
                let f = fingerprint(h, bits);
                assert!(f >= 1 && f < (1u64 << bits), "bits {bits} h {h:#x} f {f}");
            }
        }
        assert_eq!(fingerprint(0xFFFF_FFFF, 8), 255);
        assert_eq!(fingerprint(0, 8), 1);
    }
}
