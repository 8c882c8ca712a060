//! How a raw key hash becomes a first bucket and a fingerprint.
//!
//! The hash is mixed with the two rounds of SplitMix64's finalizer
//! ([`filter_core::mix64`]) without its last xor-shift, and the two values
//! are taken at different points of it:
//!
//! ```text
//! y = (h ⊕ (h >> 30)) · 0xBF58476D1CE4E5B9
//! y = y ⊕ (y >> 27)                 fingerprint = fingerprint(y, f)   (low 32 bits of y)
//! x = y · 0x94D049BB133111EB        bucket      = reduce(x, m)        (high bits of x)
//! ```
//!
//! Why mix at all: users pass hashes with structure through `insert_hash`
//! (sequential ids, ids shifted into the high bits, their own Fibonacci
//! hash). The first xor-shift brings high input bits down to where the
//! first multiply spreads them; the xor-shift after it breaks the lattice a
//! single multiply leaves. With `x = h · K` alone, the bucket and the
//! fingerprint of ids `i << 24` are two linear functions of `i`, and inserts
//! hit `Full` at 92 % load; without the first xor-shift, byte-swapped ids
//! give a rate of 7 % at a 1 % target (`tests/structured.rs`, which holds
//! every shape to 1.05× the random-key model's rate plus 4σ as it is).
//!
//! Why the fingerprint comes from `y` and not from `x`: the fingerprint is
//! on the path to the second bucket (whose offset is a function of the
//! fingerprint alone), and a lookup waits for that bucket's load. Taking it
//! before the second multiply takes that multiply off the path; taking it
//! from `x` made lookups at 1M keys about 2 % slower. The low 32 bits of `y`
//! fold bits 0..58 of the first product, which carry every input bit.
//!
//! Why the two are independent: for a uniform `y`, the high half of `y` is
//! uniform whatever its low 32 bits are, and so are the high bits of
//! `y · K` for an odd `K`; the bucket therefore says nothing about the
//! fingerprint. `mix64`'s last xor-shift, which makes the low bits of `x`
//! depend on its high bits, is not needed because no low bit of `x` is read.
//!
//! What it costs: ten instructions of a lookup of about fifty; leaving the
//! mixing out entirely would make lookups about 25 % faster, and break every
//! structured shape.

/// The first multiplier of SplitMix64's finalizer.
const MIX_1: u64 = 0xBF58_476D_1CE4_E5B9;
/// The second multiplier of SplitMix64's finalizer.
const MIX_2: u64 = 0x94D0_49BB_1331_11EB;

/// The two words a key hash is cut into (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Position {
    /// The first bucket is `reduce(bucket_word, m)`.
    pub(crate) bucket_word: u64,
    /// The fingerprint is `fingerprint(fingerprint_word, f)`.
    pub(crate) fingerprint_word: u64,
}

impl Position {
    /// The position words of the raw key hash `hash`.
    #[inline]
    pub(crate) fn of(hash: u64) -> Position {
        let y = (hash ^ (hash >> 30)).wrapping_mul(MIX_1);
        let y = y ^ (y >> 27);
        Position {
            bucket_word: y.wrapping_mul(MIX_2),
            fingerprint_word: y,
        }
    }
}

impl Position {
    /// The position words of a hash used as it is, for filters of
    /// [`UniformHashes`](filter_core::UniformHashes): the bucket is taken from
    /// the high bits of `hash` (which [`reduce`](filter_core::reduce) reads)
    /// and the fingerprint from its low 32 bits, which are independent of
    /// each other when `hash` is uniform. Nothing else makes them so: that
    /// is the promise `UniformHashes` asks of the caller.
    #[inline]
    pub(crate) fn as_is(hash: u64) -> Position {
        Position {
            bucket_word: hash,
            fingerprint_word: hash,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_word_is_mix64_without_its_last_xor_shift() {
        for i in 0..10_000u64 {
            let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i;
            let x = Position::of(h).bucket_word;
            assert_eq!(x ^ (x >> 31), filter_core::mix64(h));
        }
    }
}
