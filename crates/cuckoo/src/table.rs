//! The packed bucket table and the word-level tricks that search it.
//!
//! A bucket is four `f`-bit slots, `4f ≤ 64` bits, and buckets lie back to
//! back in a bit array: bucket `i` occupies bits `[4f·i, 4f·(i + 1))`, where
//! bit `k` is bit `k mod 8` of byte `⌊k / 8⌋`. So an `f`-bit fingerprint costs
//! exactly `f` bits, whatever `f` is; nothing is rounded up to a byte or a
//! power of two.
//!
//! Why bytes and not `u64` words: a bucket starts at a multiple of 4 bits
//! (`4f·i`), so its offset within its first byte is 0 or 4, and `4f + 4 ≤ 64`
//! for every `f ≤ 15` (for `f = 16` the offset is always 0). A bucket is
//! therefore always inside the 8 bytes starting at its first byte: one
//! unaligned little-endian load and a shift, where a word array needs two
//! loads and a double-width shift. Seven padding bytes at the end keep that
//! load in bounds for the last bucket.
//!
//! Inside a bucket (a `u64` whose low `4f` bits are the bucket) slot `k` is
//! the lane of bits `[k·f, (k + 1)·f)`. The value 0 means "empty"; stored
//! fingerprints are never 0. All four lanes are compared at once with the
//! classic SWAR "has zero lane" test (Mycroft; Anderson's *Bit Twiddling
//! Hacks*): XOR the bucket with the fingerprint broadcast to every lane, and a
//! lane that matched is now zero.

/// Slots per bucket (the `b` of the literature).
pub(crate) const SLOTS: usize = 4;
/// The narrowest supported fingerprint.
pub(crate) const MIN_FINGERPRINT_BITS: u32 = 4;
/// The widest supported fingerprint: four slots must fit one `u64`.
pub(crate) const MAX_FINGERPRINT_BITS: u32 = 16;
/// Bytes after the last bucket, so that every bucket can be read as 8 bytes.
pub(crate) const PADDING_BYTES: usize = 7;

/// An odd multiplier (the 64-bit golden ratio) that spreads a fingerprint's
/// few bits over the high bits that [`filter_core::reduce`] keeps.
const ALT_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// `buckets` buckets of four `fingerprint_bits`-bit slots.
///
/// Invariants: `MIN_FINGERPRINT_BITS ≤ fingerprint_bits ≤ MAX_FINGERPRINT_BITS`;
/// `buckets ≥ 1`; `bytes.len() == bytes_for(buckets, fingerprint_bits)`; every
/// bit past the last bucket is 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Table {
    bytes: Vec<u8>,
    buckets: usize,
    /// The largest even number ≤ `buckets` (see [`alt`](Self::alt)).
    even_buckets: usize,
    /// 1 when `buckets ≥ 2`, else 0: forces the alternate offset odd.
    odd_bit: usize,
    fingerprint_bits: u32,
    /// `4 · fingerprint_bits`.
    bucket_bits: u32,
    /// The low `bucket_bits` bits set.
    bucket_mask: u64,
    /// The low `fingerprint_bits` bits set.
    fingerprint_mask: u64,
    /// The lowest bit of every lane set: `x * lanes_low` broadcasts `x`.
    lanes_low: u64,
    /// The highest bit of every lane set.
    lanes_high: u64,
}

/// The number of bytes that hold `buckets` buckets of `fingerprint_bits`
/// slots, padding included, or `None` on overflow.
pub(crate) fn bytes_for(buckets: usize, fingerprint_bits: u32) -> Option<usize> {
    let bits = buckets.checked_mul(SLOTS * fingerprint_bits as usize)?;
    bits.div_ceil(8).checked_add(PADDING_BYTES)
}

impl Table {
    /// A table over `bytes`, which must hold `bytes_for(buckets,
    /// fingerprint_bits)` bytes. The caller checks the ranges.
    pub(crate) fn from_bytes(bytes: Vec<u8>, buckets: usize, fingerprint_bits: u32) -> Table {
        debug_assert!((MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS).contains(&fingerprint_bits));
        debug_assert_eq!(Some(bytes.len()), bytes_for(buckets, fingerprint_bits));
        let f = fingerprint_bits;
        let bucket_bits = SLOTS as u32 * f;
        let bucket_mask = u64::MAX >> (64 - bucket_bits);
        let lanes_low = (0..SLOTS as u32).fold(0u64, |acc, k| acc | 1 << (k * f));
        Table {
            bytes,
            buckets,
            even_buckets: buckets & !1,
            odd_bit: usize::from(buckets >= 2),
            fingerprint_bits: f,
            bucket_bits,
            bucket_mask,
            fingerprint_mask: (1u64 << f) - 1,
            lanes_low,
            lanes_high: lanes_low << (f - 1),
        }
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub(crate) fn buckets(&self) -> usize {
        self.buckets
    }

    pub(crate) fn fingerprint_bits(&self) -> u32 {
        self.fingerprint_bits
    }

    /// [`filter_core::fingerprint`]`(hash, f)`, with `2^f − 1` precomputed:
    /// the same value, uniform over `1..2^f`, from the low 32 bits of `hash`.
    #[inline]
    pub(crate) fn fingerprint(&self, hash: u64) -> u64 {
        (((hash & 0xFFFF_FFFF) * self.fingerprint_mask) >> 32) + 1
    }

    /// The bucket's first byte, and the offset (0 or 4) of its first bit in it.
    #[inline]
    fn byte_and_shift(&self, bucket: usize) -> (usize, u32) {
        let bit = bucket * self.bucket_bits as usize;
        (bit >> 3, (bit & 7) as u32)
    }

    /// The 8 bytes starting at `byte`, little-endian.
    #[inline]
    fn window(&self, byte: usize) -> u64 {
        let mut window = [0u8; 8];
        window.copy_from_slice(&self.bytes[byte..byte + 8]);
        u64::from_le_bytes(window)
    }

    /// The bucket's `4f` bits, in the low bits of the result.
    #[inline]
    pub(crate) fn read(&self, bucket: usize) -> u64 {
        let (byte, shift) = self.byte_and_shift(bucket);
        (self.window(byte) >> shift) & self.bucket_mask
    }

    /// Overwrites the bucket's `4f` bits with the low bits of `value`,
    /// keeping the neighbours' bits that share its 8-byte window.
    #[inline]
    fn write(&mut self, bucket: usize, value: u64) {
        let (byte, shift) = self.byte_and_shift(bucket);
        let mask = self.bucket_mask << shift;
        let window = (self.window(byte) & !mask) | ((value & self.bucket_mask) << shift);
        self.bytes[byte..byte + 8].copy_from_slice(&window.to_le_bytes());
    }

    /// The other bucket of a fingerprint in `bucket`: `(c − bucket) mod m`,
    /// with an odd offset `c = reduce(fingerprint · φ, m') | 1 < m` (`m'` the
    /// largest even number ≤ `m`; `c = 0` when `m = 1`).
    ///
    /// An involution for every `m`, because `c` depends on the fingerprint
    /// alone: `(c − (c − i)) mod m = i`. Since `0 ≤ c, i < m`, the modulus is
    /// one conditional add of `m`, never a division. (`i XOR h(fp)`, the
    /// paper's rule, is an involution only when `m` is a power of two.)
    ///
    /// Why `c` is odd: a bucket is its own alternate when `2i ≡ c (mod m)`,
    /// and then its items have one bucket instead of two (four copies at
    /// most, and in tiny 4-bit tables inserts failed early). For even `m`
    /// and odd `c` that congruence has no solution, so the sizing
    /// constructors use even bucket counts and no item ever has a single
    /// bucket. For odd `m` (only through
    /// [`with_buckets`](crate::CuckooFilter::with_buckets)) each fingerprint
    /// has exactly one such bucket, about 1 item in `m`.
    #[inline]
    pub(crate) fn alt(&self, bucket: usize, fingerprint: u64) -> usize {
        let c = filter_core::reduce(fingerprint.wrapping_mul(ALT_MULTIPLIER), self.even_buckets)
            | self.odd_bit;
        let diff = c.wrapping_sub(bucket);
        // `c < bucket` makes `diff` wrap; adding `m` brings it back into range.
        diff.wrapping_add(self.buckets & (usize::from(c < bucket)).wrapping_neg())
    }

    /// Whether any lane of `bucket_value` equals `fingerprint`.
    ///
    /// `x = bucket ^ broadcast(fp)` has a zero lane exactly where a slot
    /// matched; `(x − low) & !x & high` is non-zero iff some lane of `x` is
    /// zero (a borrow can flag lanes above a zero lane, never create a flag
    /// when no lane is zero). Bits above `4f` are zero in both operands.
    #[inline]
    pub(crate) fn bucket_has(&self, bucket_value: u64, fingerprint: u64) -> bool {
        let x = bucket_value ^ fingerprint.wrapping_mul(self.lanes_low);
        (x.wrapping_sub(self.lanes_low) & !x & self.lanes_high) != 0
    }

    /// The high bit of every lane of `x` that is exactly zero, with no false
    /// flags (unlike the borrow-based test in [`bucket_has`](Self::bucket_has)):
    /// adding all-ones to a lane's low `f − 1` bits carries into its high bit
    /// iff they are non-zero, and cannot carry further.
    #[inline]
    fn zero_lanes(&self, x: u64) -> u64 {
        let low_bits = self.bucket_mask & !self.lanes_high;
        let nonzero = ((x & low_bits) + low_bits) | x;
        !nonzero & self.lanes_high
    }

    /// The bit position where the first lane matching `fingerprint` (0 for an
    /// empty slot) starts, if any.
    #[inline]
    fn find_lane(&self, bucket_value: u64, fingerprint: u64) -> Option<u32> {
        let flags = self.zero_lanes(bucket_value ^ fingerprint.wrapping_mul(self.lanes_low));
        // A lane's flag is its top bit; the lane starts f − 1 bits lower.
        (flags != 0).then(|| flags.trailing_zeros() + 1 - self.fingerprint_bits)
    }

    /// How many slots of `bucket` hold `fingerprint`.
    pub(crate) fn count(&self, bucket: usize, fingerprint: u64) -> u32 {
        let x = self.read(bucket) ^ fingerprint.wrapping_mul(self.lanes_low);
        self.zero_lanes(x).count_ones()
    }

    /// Puts `fingerprint` in an empty slot of `bucket`; `false` if it is full.
    #[inline]
    pub(crate) fn try_put(&mut self, bucket: usize, fingerprint: u64) -> bool {
        let value = self.read(bucket);
        match self.find_lane(value, 0) {
            Some(start) => {
                self.write(bucket, value | fingerprint << start);
                true
            }
            None => false,
        }
    }

    /// Empties one slot of `bucket` holding `fingerprint`; `false` if none
    /// does. (Removal proper uses [`remove_from_either`](Self::remove_from_either).)
    #[cfg(test)]
    pub(crate) fn try_remove(&mut self, bucket: usize, fingerprint: u64) -> bool {
        let value = self.read(bucket);
        match self.find_lane(value, fingerprint) {
            Some(start) => {
                self.write(bucket, value & !(self.fingerprint_mask << start));
                true
            }
            None => false,
        }
    }

    /// Empties one slot holding `fingerprint` in `first`, or else in
    /// `second`; `false` if neither holds it.
    ///
    /// Both buckets are read and searched before choosing, so the choice is
    /// a conditional move, not a branch that a mix of items in first and
    /// second buckets would mispredict half the time.
    #[inline]
    pub(crate) fn remove_from_either(
        &mut self,
        first: usize,
        second: usize,
        fingerprint: u64,
    ) -> bool {
        let broadcast = fingerprint.wrapping_mul(self.lanes_low);
        let (value1, value2) = (self.read(first), self.read(second));
        let flags1 = self.zero_lanes(value1 ^ broadcast);
        let flags2 = self.zero_lanes(value2 ^ broadcast);
        if flags1 | flags2 == 0 {
            return false;
        }
        let (bucket, value, flags) = if flags1 != 0 {
            (first, value1, flags1)
        } else {
            (second, value2, flags2)
        };
        // A lane's flag is its top bit; the lane starts f − 1 bits lower.
        let start = flags.trailing_zeros() + 1 - self.fingerprint_bits;
        self.write(bucket, value & !(self.fingerprint_mask << start));
        true
    }

    /// The fingerprint in slot `slot` (0..4) of `bucket` (0 if empty).
    #[inline]
    pub(crate) fn slot(&self, bucket: usize, slot: u32) -> u64 {
        (self.read(bucket) >> (slot * self.fingerprint_bits)) & self.fingerprint_mask
    }

    /// Replaces slot `slot` (0..4) of `bucket` with `fingerprint` and returns
    /// the fingerprint that was there.
    #[inline]
    pub(crate) fn swap(&mut self, bucket: usize, slot: u32, fingerprint: u64) -> u64 {
        let value = self.read(bucket);
        let start = slot * self.fingerprint_bits;
        let old = (value >> start) & self.fingerprint_mask;
        let lane = self.fingerprint_mask << start;
        self.write(bucket, (value & !lane) | fingerprint << start);
        old
    }

    /// The number of occupied slots, by a scan of the whole table.
    pub(crate) fn occupied_slots(&self) -> usize {
        (0..self.buckets)
            .map(|b| SLOTS - self.zero_lanes(self.read(b)).count_ones() as usize)
            .sum()
    }

    /// Whether every bit past the last bucket is 0.
    pub(crate) fn padding_is_clear(&self) -> bool {
        let used = self.buckets * self.bucket_bits as usize;
        let (byte, shift) = (used >> 3, used & 7);
        let partial = self.bytes.get(byte).map_or(0, |&b| b >> shift);
        partial == 0 && self.bytes[byte..].iter().skip(1).all(|&b| b == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(buckets: usize, bits: u32) -> Table {
        let bytes = vec![0; bytes_for(buckets, bits).unwrap()];
        Table::from_bytes(bytes, buckets, bits)
    }

    #[test]
    fn alt_is_an_involution_for_every_bucket_count() {
        for buckets in [1, 2, 3, 4, 5, 6, 7, 64, 100, 1000, 4097, 157_895, 157_896] {
            let t = table(buckets, 8);
            for fp in 1..256u64 {
                for i in (0..buckets)
                    .step_by(if buckets <= 5000 { 1 } else { buckets / 997 })
                    .chain([0, buckets - 1])
                {
                    let j = t.alt(i, fp);
                    assert!(j < buckets, "m {buckets} fp {fp} i {i} -> {j}");
                    assert_eq!(t.alt(j, fp), i, "m {buckets} fp {fp} i {i}");
                    if buckets % 2 == 0 {
                        assert_ne!(
                            i, j,
                            "even m {buckets} has a fixed point at {i} for fp {fp}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn fingerprint_equals_filter_core_fingerprint() {
        for bits in MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS {
            let t = table(3, bits);
            for i in 0..10_000u64 {
                let h = filter_core::mix64(i);
                assert_eq!(t.fingerprint(h), filter_core::fingerprint(h, bits));
            }
        }
    }

    #[test]
    fn slots_round_trip_for_every_width() {
        for bits in MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS {
            let mut t = table(37, bits);
            let top = (1u64 << bits) - 1;
            for b in 0..37 {
                for k in 0..SLOTS as u64 {
                    let fp = (b as u64 * 4 + k) % top + 1;
                    assert!(t.try_put(b, fp));
                }
                assert!(!t.try_put(b, 1), "bucket {b} should be full");
            }
            assert_eq!(t.occupied_slots(), 37 * SLOTS);
            assert!(t.padding_is_clear());
            for b in 0..37 {
                for k in 0..SLOTS as u64 {
                    let fp = (b as u64 * 4 + k) % top + 1;
                    assert!(t.bucket_has(t.read(b), fp), "bits {bits} bucket {b}");
                    assert!(t.try_remove(b, fp));
                }
                assert_eq!(t.read(b), 0);
            }
            assert!(t.bytes().iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn swar_matches_a_lane_loop() {
        // Every 4-lane bucket over a small alphabet, including the top value
        // of the lane (all ones) and the half value (only the high bit).
        for bits in [4, 5, 9, 16] {
            let t = table(1, bits);
            let top = (1u64 << bits) - 1;
            let alphabet = [0, 1, 2, top / 2, top / 2 + 1, top];
            for code in 0..alphabet.len().pow(4) {
                let lanes: Vec<u64> = (0..4)
                    .map(|k| alphabet[code / alphabet.len().pow(k) % alphabet.len()])
                    .collect();
                let value = lanes
                    .iter()
                    .enumerate()
                    .fold(0, |acc, (k, &l)| acc | l << (k as u32 * bits));
                for &fp in &alphabet[1..] {
                    let want = lanes.contains(&fp);
                    assert_eq!(t.bucket_has(value, fp), want, "{lanes:?} {fp}");
                    let first = lanes.iter().position(|&l| l == fp);
                    assert_eq!(
                        t.find_lane(value, fp),
                        first.map(|k| k as u32 * bits),
                        "{lanes:?} {fp}"
                    );
                }
                let zeros = lanes.iter().filter(|&&l| l == 0).count() as u32;
                assert_eq!(t.zero_lanes(value).count_ones(), zeros);
            }
        }
    }
}
