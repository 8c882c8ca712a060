//! The 32-bit MurmurHash3 (x86 variant) exactly as Spark's sketch library
//! computes it, including the two places where Spark departs from the
//! reference algorithm.
//!
//! - **A `long` is two 32-bit blocks**, low half first, and is finalized
//!   with length 8: the same as hashing its eight little-endian bytes.
//! - **A byte string's tail is not packed into one block.** The reference
//!   algorithm gathers the last one to three bytes into a single little-endian
//!   word and mixes it without the `h1` round. Spark instead mixes every tail
//!   byte on its own, sign-extended from `i8` to `i32`, as a full block (with
//!   the `h1` round). Strings whose UTF-8 length is a multiple of four hash as
//!   the reference does; the others do not, and a reader that used a standard
//!   Murmur3 would look up the wrong bits.
//!
//! Whole blocks are read as little-endian words, as Spark reads them on every
//! platform it runs on.

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;

#[inline(always)]
fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

#[inline(always)]
fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

#[inline(always)]
fn finish(h1: u32, length: u32) -> u32 {
    let mut h = h1 ^ length;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// The bit pattern of a Java `int` as `u32` and back: Spark's hashes are
/// signed 32-bit values, the arithmetic here is unsigned and wrapping.
#[inline(always)]
fn unsigned(x: i32) -> u32 {
    u32::from_ne_bytes(x.to_ne_bytes())
}

#[inline(always)]
fn signed(x: u32) -> i32 {
    i32::from_ne_bytes(x.to_ne_bytes())
}

/// Spark's `Murmur3_x86_32.hashLong(value, seed)`.
#[inline]
pub(crate) fn hash_long(value: i64, seed: i32) -> i32 {
    let bits = u64::from_ne_bytes(value.to_ne_bytes());
    // Truncations intended: the two 32-bit halves of the long.
    let (low, high) = (bits as u32, (bits >> 32) as u32);
    let h1 = mix_h1(unsigned(seed), mix_k1(low));
    let h1 = mix_h1(h1, mix_k1(high));
    signed(finish(h1, 8))
}

/// Spark's `Murmur3_x86_32.hashUnsafeBytes(bytes, .., bytes.length, seed)`.
///
/// The length enters the finalizer as a 32-bit value; Java arrays never
/// exceed `i32::MAX` bytes, and longer inputs wrap as Spark's `int` would.
#[inline]
pub(crate) fn hash_bytes(bytes: &[u8], seed: i32) -> i32 {
    let mut h1 = unsigned(seed);
    let mut blocks = bytes.chunks_exact(4);
    for block in &mut blocks {
        let word = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        h1 = mix_h1(h1, mix_k1(word));
    }
    for &byte in blocks.remainder() {
        // Spark reads a tail byte as a signed Java `byte` and widens it.
        let widened = unsigned(i32::from(i8::from_ne_bytes([byte])));
        h1 = mix_h1(h1, mix_k1(widened));
    }
    // Truncation intended: Spark's length is an `int`.
    signed(finish(h1, bytes.len() as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_hashes_as_its_eight_little_endian_bytes() {
        // Eight bytes are two whole blocks, so no tail rule applies.
        for (value, seed) in [
            (0i64, 0i32),
            (42, 0),
            (-1, 7),
            (i64::MIN, -99),
            (1 << 40, 123),
        ] {
            assert_eq!(
                hash_long(value, seed),
                hash_bytes(&value.to_le_bytes(), seed)
            );
        }
    }

    #[test]
    fn whole_blocks_match_the_reference_murmur3() {
        // Reference MurmurHash3_x86_32 vectors (SMHasher): inputs whose
        // length is a multiple of four, where Spark agrees with it.
        assert_eq!(hash_bytes(b"", 0), 0);
        assert_eq!(hash_bytes(b"", 1), signed(0x514e_28b7));
        assert_eq!(hash_bytes(b"", -1), signed(0x81f1_6f39));
        assert_eq!(hash_bytes(&[0, 0, 0, 0], 0), signed(0x2362_f9de));
        assert_eq!(
            hash_bytes(&[0x21, 0x43, 0x65, 0x87], 0),
            signed(0xf55b_516b)
        );
        assert_eq!(
            hash_bytes(&[0x21, 0x43, 0x65, 0x87], 0x5082_edee),
            signed(0x2362_f9de)
        );
    }

    #[test]
    fn tails_are_mixed_byte_by_byte_as_signed_blocks() {
        // The reference packs a 3-byte tail into one word (0x7e4a8634 for
        // these bytes); Spark mixes each byte as a block of its own.
        let tail = [0x21u8, 0x43, 0x65];
        assert_ne!(hash_bytes(&tail, 0), signed(0x7e4a_8634));
        let by_hand = finish(
            mix_h1(mix_h1(mix_h1(0, mix_k1(0x21)), mix_k1(0x43)), mix_k1(0x65)),
            3,
        );
        assert_eq!(hash_bytes(&tail, 0), signed(by_hand));
        // A byte of 0x80 or more is sign-extended before it is mixed.
        let high = finish(mix_h1(0, mix_k1(0xffff_ff80)), 1);
        assert_eq!(hash_bytes(&[0x80], 0), signed(high));
    }
}
