//! The packed bucket table and the word-level tricks that search it.
//!
//! A bucket is four `f`-bit slots, `4f ≤ 64` bits, and buckets lie back to
//! back in a bit array of `u64` words: bucket `i` occupies bits
//! `[4f·i, 4f·(i + 1))`. So an `f`-bit fingerprint costs exactly `f` bits,
//! whatever `f` is; nothing is rounded up to a byte or a power of two. One
//! padding word at the end lets every bucket be read as the two words that
//! hold it, with no branch for the last bucket.
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

/// An odd multiplier (the 64-bit golden ratio) that spreads a fingerprint's
/// few bits over the high bits that [`filter_core::reduce`] keeps.
const ALT_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// `buckets` buckets of four `fingerprint_bits`-bit slots.
///
/// Invariants: `MIN_FINGERPRINT_BITS ≤ fingerprint_bits ≤ MAX_FINGERPRINT_BITS`;
/// `buckets ≥ 1`; `words.len() == words_for(buckets, fingerprint_bits)`; every
/// bit past the last bucket is 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Table {
    words: Vec<u64>,
    buckets: usize,
    /// `buckets / 2` when `buckets` is even, else 0 (see [`alt`](Self::alt)).
    half: usize,
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

/// The number of `u64` words that hold `buckets` buckets of `fingerprint_bits`
/// slots, padding word included, or `None` on overflow.
pub(crate) fn words_for(buckets: usize, fingerprint_bits: u32) -> Option<usize> {
    let bits = buckets.checked_mul(SLOTS * fingerprint_bits as usize)?;
    bits.div_ceil(64).checked_add(1)
}

impl Table {
    /// A table of empty buckets over `words`, which must hold
    /// `words_for(buckets, fingerprint_bits)` words. The caller checks the
    /// ranges.
    pub(crate) fn from_words(words: Vec<u64>, buckets: usize, fingerprint_bits: u32) -> Table {
        debug_assert!((MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS).contains(&fingerprint_bits));
        debug_assert_eq!(Some(words.len()), words_for(buckets, fingerprint_bits));
        let f = fingerprint_bits;
        let bucket_bits = SLOTS as u32 * f;
        let bucket_mask = u64::MAX >> (64 - bucket_bits);
        let lanes_low = (0..SLOTS as u32).fold(0u64, |acc, k| acc | 1 << (k * f));
        Table {
            words,
            buckets,
            half: if buckets % 2 == 0 { buckets / 2 } else { 0 },
            fingerprint_bits: f,
            bucket_bits,
            bucket_mask,
            fingerprint_mask: (1u64 << f) - 1,
            lanes_low,
            lanes_high: lanes_low << (f - 1),
        }
    }

    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    pub(crate) fn buckets(&self) -> usize {
        self.buckets
    }

    pub(crate) fn fingerprint_bits(&self) -> u32 {
        self.fingerprint_bits
    }

    /// The word holding the bucket's first bit, and that bit's offset in it.
    #[inline]
    fn word_and_shift(&self, bucket: usize) -> (usize, u32) {
        let bit = bucket * self.bucket_bits as usize;
        (bit >> 6, (bit & 63) as u32)
    }

    /// The bucket's `4f` bits, in the low bits of the result.
    #[inline]
    pub(crate) fn read(&self, bucket: usize) -> u64 {
        let (word, shift) = self.word_and_shift(bucket);
        let pair = &self.words[word..word + 2];
        let both = u128::from(pair[1]) << 64 | u128::from(pair[0]);
        (both >> shift) as u64 & self.bucket_mask
    }

    /// Overwrites the bucket's `4f` bits with the low bits of `value`.
    #[inline]
    fn write(&mut self, bucket: usize, value: u64) {
        let (word, shift) = self.word_and_shift(bucket);
        let pair = &mut self.words[word..word + 2];
        let both = u128::from(pair[1]) << 64 | u128::from(pair[0]);
        let mask = u128::from(self.bucket_mask) << shift;
        let both = (both & !mask) | (u128::from(value & self.bucket_mask) << shift);
        pair[0] = both as u64;
        pair[1] = (both >> 64) as u64;
    }

    /// The other bucket of a fingerprint in `bucket`: `σ(i) = (c − i) mod m`
    /// with `c = reduce(fingerprint · φ, m)`, except that a fixed point of σ
    /// is sent to its partner `(i + m/2) mod m` when `m` is even.
    ///
    /// σ is an involution for every `m`, because `c` depends on the
    /// fingerprint alone: `(c − (c − i)) mod m = i`. Since `0 ≤ c, i < m`, the
    /// modulus is one conditional add of `m`, never a division. (`i XOR
    /// h(fp)`, the paper's rule, is an involution only when `m` is a power of
    /// two.)
    ///
    /// σ's fixed points solve `2i ≡ c (mod m)`. For even `m` there are none
    /// or exactly two, `i₀` and `i₀ + m/2`; swapping them keeps the map an
    /// involution and leaves no item with a single bucket (a single bucket
    /// holds only 4 copies, and in tiny 4-bit tables it made inserts fail
    /// early). For odd `m` there is exactly one fixed point per fingerprint,
    /// which keeps one bucket: the sizing constructors therefore use even
    /// bucket counts, and [`with_buckets`](crate::CuckooFilter::with_buckets)
    /// documents the odd case.
    #[inline]
    pub(crate) fn alt(&self, bucket: usize, fingerprint: u64) -> usize {
        let m = self.buckets;
        let c = filter_core::reduce(fingerprint.wrapping_mul(ALT_MULTIPLIER), m);
        let diff = c.wrapping_sub(bucket);
        // `c < bucket` makes `diff` wrap; adding `m` brings it back into range.
        let sigma = diff.wrapping_add(m & (usize::from(c < bucket)).wrapping_neg());
        if sigma == bucket {
            // `half` is 0 for odd m: the fixed point stays.
            let partner = bucket + self.half;
            if partner >= m { partner - m } else { partner }
        } else {
            sigma
        }
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

    /// Empties one slot of `bucket` holding `fingerprint`; `false` if none does.
    #[inline]
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
        let (word, shift) = (used >> 6, used & 63);
        self.words[word] >> shift == 0 && self.words[word + 1..].iter().all(|&w| w == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(buckets: usize, bits: u32) -> Table {
        let words = vec![0; words_for(buckets, bits).unwrap()];
        Table::from_words(words, buckets, bits)
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
            assert!(t.words().iter().all(|&w| w == 0));
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
