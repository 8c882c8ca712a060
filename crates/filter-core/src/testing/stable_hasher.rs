//! A hasher whose output never changes, for byte fixtures.
//!
//! Saved filters record a probe of their hasher, and the default hasher
//! (ahash) may hash differently after an upgrade, which would make a
//! committed fixture fail with `HasherMismatch` for reasons unrelated to
//! the format. Fixtures built with [`StableHasher`] keep loading for as long
//! as the format allows.

use std::hash::{BuildHasherDefault, Hasher};

/// 64-bit FNV-1a: simple, fixed by its published constants, and good
/// enough for fixtures (not for filters that face chosen keys).
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xCBF2_9CE4_8422_2325)
    }
}

impl Hasher for Fnv1a {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
}

/// The `BuildHasher` of [`Fnv1a`].
pub type StableHasher = BuildHasherDefault<Fnv1a>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_fnv1a_vectors() {
        // From the FNV reference test suite: "" and "a".
        let hash = |bytes: &[u8]| {
            let mut h = Fnv1a::default();
            h.write(bytes);
            h.finish()
        };
        assert_eq!(hash(b""), 0xCBF2_9CE4_8422_2325);
        assert_eq!(hash(b"a"), 0xAF63_DC4C_8601_EC8C);
        assert_eq!(hash(b"foobar"), 0x8594_4171_F739_67E8);
    }
}
