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
//!
//! # The alternate bucket
//!
//! In a [`CuckooFilter`](crate::CuckooFilter)'s table a fingerprint `v` in
//! bucket `i` has its other bucket at `(c − i) mod m` with
//! `c = reduce(mix64(v), m') | 1` ([`Flat`]): one rule for every width and
//! every table size. (The stages of a scalable filter use a rule that
//! nests across stages, `nested.rs`; the table is generic over the rule,
//! [`Pairing`].) Why `mix64` of the fingerprint and not the
//! cheaper `v · φ` (one multiply by the golden ratio): `v · φ` for
//! consecutive fingerprints is an arithmetic progression, so its offsets
//! are nearly evenly spaced, and the moves an item can make (from `i` to
//! `c − i`, and on by differences of two offsets) come in far fewer
//! distinct steps than random offsets give. With few fingerprint values
//! that leaves items too few paths: 4- to 6-bit tables sized by
//! `with_capacity` met `Full` before taking their item count, and 4-bit
//! ones well below the load they are sized for. With `mix64` every width
//! from 4 to 16 bits fills to about 97 % before the first `Full`
//! (`tests/fill.rs`), in small tables and large.
//!
//! Beside the buckets, a large table keeps each fingerprint's `c`, which a
//! lookup would otherwise compute with `mix64` on its way to the second
//! bucket: 4 KiB at `f = 10`, 256 KiB at `f = 16`, at most 1/128 of the
//! buckets' space; every table of 4- to 6-bit fingerprints keeps them too,
//! 256 bytes at most. They are derived from the shape and never
//! serialized.

/// Slots per bucket (the `b` of the literature).
pub(crate) const SLOTS: usize = 4;
/// The narrowest supported fingerprint.
pub(crate) const MIN_FINGERPRINT_BITS: u32 = 4;
/// The widest supported fingerprint: four slots must fit one `u64`.
pub(crate) const MAX_FINGERPRINT_BITS: u32 = 16;
/// Bytes after the last bucket, so that every bucket can be read as 8 bytes.
pub(crate) const PADDING_BYTES: usize = 7;

/// A table of 7- to 16-bit offsets is kept only when the buckets take at
/// least this many times its size, so that it adds at most 0.8 % to the
/// filter and the space promise keeps its room for the sizing margin.
/// Tables of 4 to 6 bits keep theirs at any size (256 bytes at most).
///
/// Every width keeps them from that size on: even 2^13 to 2^16 offsets
/// (32 to 256 KiB), too many to stay in the L1 cache beside the buckets a
/// lookup streams through, are faster to read than to compute.
const OFFSET_TABLE_MIN_SHARE: usize = 128;

/// The widest fingerprint whose tables keep their offsets at any size.
const ALWAYS_KEPT_MAX_BITS: u32 = 6;

/// The scramble of a fingerprint that its alternate offset is reduced
/// from: [`filter_core::mix64`] (see the module docs for why).
#[inline]
fn scramble(fingerprint: u64) -> u64 {
    #[cfg(test)]
    if GOLDEN_FOR_MEASUREMENT.load(std::sync::atomic::Ordering::Relaxed) {
        return fingerprint.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    filter_core::mix64(fingerprint)
}

/// Test-only: the golden-ratio rule `fp · φ` instead of `mix64(fp)`, for
/// the measurement that compares them (`fill::first_full_by_rule`).
#[cfg(test)]
pub(crate) static GOLDEN_FOR_MEASUREMENT: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// A number that orders flag words by their lowest flag, lowest first, and
/// puts a word with no flag (0) after all others, also after a flag in bit
/// 63 (16-bit lanes): `x & −x` is the lowest flag alone, and less 1 it is
/// `2^k − 1` for a flag in bit k, or `u64::MAX` for none.
#[inline]
fn lowest_flag_order(flags: u64) -> u64 {
    (flags & flags.wrapping_neg()).wrapping_sub(1)
}

/// How a table finds a fingerprint's other bucket: [`Flat`] for a
/// [`CuckooFilter`](crate::CuckooFilter), [`Nested`](crate::nested::Nested)
/// for the stages of a [`ScalableCuckooFilter`](crate::ScalableCuckooFilter).
/// A type parameter of the table, not a field it branches on, so that each
/// kind of table compiles to its own rule and a lookup decides nothing at
/// run time.
pub(crate) trait Pairing: Clone + std::fmt::Debug + PartialEq + Eq {
    /// The other bucket of a fingerprint in bucket `bucket < buckets`,
    /// itself `< buckets` (lookups rely on this to read without bounds
    /// checks), where `buckets` is the table's bucket count, the one the
    /// rule was made for; an involution: `alt(m, alt(m, i, v), v) = i`.
    ///
    /// The count comes from the table, not from a copy in the rule: the
    /// table's is in a register already where this is called, and a second
    /// one to load made the compiler turn the conditional add below into a
    /// branch on a coin toss.
    fn alt(&self, buckets: usize, bucket: usize, fingerprint: u64) -> usize;

    /// The bytes of the alternate offsets it keeps (0 if none).
    fn kept_bytes(&self) -> usize;
}

/// The rule of a [`CuckooFilter`](crate::CuckooFilter)'s table:
/// `(c − i) mod m` with `c = reduce(mix64(fp), m') | 1` (see its
/// [`alt`](Flat::alt)), for any bucket count `m`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Flat {
    /// The largest even number ≤ the bucket count.
    even_buckets: usize,
    /// 1 when `buckets ≥ 2`, else 0: forces the alternate offset odd.
    odd_bit: usize,
    /// The alternate offset (`c`) of every fingerprint value `0..2^f`, or
    /// empty: kept only for tables where it pays (see [`keeps_offsets`]).
    /// A function of the shape alone, so never serialized.
    alt_offsets: Box<[u32]>,
}

impl Flat {
    /// The rule for `buckets` buckets of `fingerprint_bits`-bit
    /// fingerprints, in a table of `table_bytes` bytes.
    pub(crate) fn new(buckets: usize, fingerprint_bits: u32, table_bytes: usize) -> Flat {
        let mut flat = Flat {
            even_buckets: buckets & !1,
            odd_bit: usize::from(buckets >= 2),
            alt_offsets: Box::default(),
        };
        flat.alt_offsets = offset_table(table_bytes, buckets, fingerprint_bits, |fingerprint| {
            flat.alt_offset(fingerprint)
        });
        flat
    }

    /// [`alt`](Flat::alt)'s `c` for `fingerprint`, computed:
    /// `reduce(mix64(fp), m') | 1`.
    #[inline]
    pub(crate) fn alt_offset(&self, fingerprint: u64) -> usize {
        filter_core::reduce(scramble(fingerprint), self.even_buckets) | self.odd_bit
    }
}

impl Pairing for Flat {
    /// `(c − bucket) mod m`, with an odd offset
    /// `c = reduce(mix64(fp), m') | 1 < m` (`m'` the largest even number
    /// ≤ `m`; `c = 0` when `m = 1`).
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
    ///
    /// Large tables, and tables of narrow fingerprints, look `c` up
    /// instead ([`keeps_offsets`]): computing it puts `mix64` on the path
    /// to the second bucket's address, and a lookup that waits on memory is
    /// limited by how long that path is and how many instructions it
    /// holds. A fingerprint outside the table (none is, but nothing here
    /// relies on it) computes `c`, so both ways give the same bucket.
    #[inline]
    fn alt(&self, buckets: usize, bucket: usize, fingerprint: u64) -> usize {
        let c = match self.alt_offsets.get(fingerprint as usize) {
            Some(&c) => c as usize,
            None => self.alt_offset(fingerprint),
        };
        let diff = c.wrapping_sub(bucket);
        // `c < bucket` makes `diff` wrap; adding `m` brings it back into range.
        diff.wrapping_add(buckets & (usize::from(c < bucket)).wrapping_neg())
    }

    fn kept_bytes(&self) -> usize {
        size_of_val(&*self.alt_offsets)
    }
}

/// `buckets` buckets of four `fingerprint_bits`-bit slots, whose
/// fingerprints find their other bucket by the rule `P`.
///
/// Invariants: `MIN_FINGERPRINT_BITS ≤ fingerprint_bits ≤ MAX_FINGERPRINT_BITS`;
/// `buckets ≥ 1`; `bytes.len() == bytes_for(buckets, fingerprint_bits)`; every
/// bit past the last bucket is 0; `pairing` is made for `buckets` buckets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Table<P = Flat> {
    bytes: Vec<u8>,
    buckets: usize,
    fingerprint_bits: u32,
    /// `4 · fingerprint_bits`.
    bucket_bits: u32,
    /// `fingerprint_bits − 1`: a lane's flag bit (its top bit) less its
    /// first bit.
    lane_top: u32,
    /// What a lookup multiplies a bucket index by: `f / 2`, the bucket's
    /// first byte, for even `f` (2 to 8); `4f`, its first bit, for odd `f`
    /// (20 to 60). One field for both, and the lookup tells the cases apart
    /// by its size, so that it keeps one register for them, not two or three.
    stride: usize,
    /// The low `bucket_bits` bits set.
    bucket_mask: u64,
    /// The low `fingerprint_bits` bits set.
    fingerprint_mask: u64,
    /// The lowest bit of every lane set: `x * lanes_low` broadcasts `x`.
    lanes_low: u64,
    /// The highest bit of every lane set.
    lanes_high: u64,
    /// The alternate-bucket rule, with its kept offsets.
    pub(crate) pairing: P,
}

/// Whether a table of `buckets` buckets of `fingerprint_bits`-bit
/// fingerprints, `table_bytes` bytes, keeps the alternate offsets of its
/// fingerprints: every offset (`< buckets`) fits a `u32`, and the buckets
/// take [`OFFSET_TABLE_MIN_SHARE`] times the offsets' space, or the
/// fingerprints have at most [`ALWAYS_KEPT_MAX_BITS`] bits (at most 64
/// offsets).
pub(crate) fn keeps_offsets(table_bytes: usize, buckets: usize, fingerprint_bits: u32) -> bool {
    offsets_pay(table_bytes, buckets, fingerprint_bits)
        || fingerprint_bits <= ALWAYS_KEPT_MAX_BITS && u32::try_from(buckets).is_ok()
}

/// The offsets `offset(v)` of every `fingerprint_bits`-bit fingerprint
/// `v`, each below `buckets`, when [`keeps_offsets`] says the table keeps
/// them; empty otherwise.
pub(crate) fn offset_table(
    table_bytes: usize,
    buckets: usize,
    fingerprint_bits: u32,
    offset: impl Fn(u64) -> usize,
) -> Box<[u32]> {
    if !keeps_offsets(table_bytes, buckets, fingerprint_bits) {
        return Box::default();
    }
    (0..1u64 << fingerprint_bits)
        // Below `buckets`, which fits a `u32` (`keeps_offsets`).
        .map(|fingerprint| offset(fingerprint) as u32)
        .collect()
}

/// Whether a table of `table_bytes` bytes keeps the offsets of its
/// fingerprints by size alone: the buckets [`OFFSET_TABLE_MIN_SHARE`] times
/// the offsets' space, and every offset (`< buckets`) fitting a `u32`.
fn offsets_pay(table_bytes: usize, buckets: usize, fingerprint_bits: u32) -> bool {
    table_bytes / OFFSET_TABLE_MIN_SHARE >= (1usize << fingerprint_bits) * size_of::<u32>()
        && u32::try_from(buckets).is_ok()
}

/// The bytes a table of `buckets` buckets of `fingerprint_bits`-bit
/// fingerprints takes, its kept offsets included (its
/// [`memory_bytes`](Table::memory_bytes)), or `None` on overflow.
pub(crate) fn memory_bytes_for(buckets: usize, fingerprint_bits: u32) -> Option<usize> {
    let bytes = bytes_for(buckets, fingerprint_bits)?;
    let offsets = if keeps_offsets(bytes, buckets, fingerprint_bits) {
        (1usize << fingerprint_bits) * size_of::<u32>()
    } else {
        0
    };
    bytes.checked_add(offsets)
}

/// The number of bytes that hold `buckets` buckets of `fingerprint_bits`
/// slots, padding included, or `None` on overflow.
pub(crate) fn bytes_for(buckets: usize, fingerprint_bits: u32) -> Option<usize> {
    let bits = buckets.checked_mul(SLOTS * fingerprint_bits as usize)?;
    bits.div_ceil(8).checked_add(PADDING_BYTES)
}

#[cfg(test)]
impl Table {
    /// A [`Flat`] table over `bytes`, which must hold `bytes_for(buckets,
    /// fingerprint_bits)` bytes. The caller checks the ranges.
    ///
    /// # Panics
    ///
    /// As [`with_pairing`](Table::with_pairing).
    pub(crate) fn from_bytes(bytes: Vec<u8>, buckets: usize, fingerprint_bits: u32) -> Table {
        let pairing = Flat::new(buckets, fingerprint_bits, bytes.len());
        Table::with_pairing(bytes, buckets, fingerprint_bits, pairing)
    }
}

impl<P: Pairing> Table<P> {
    /// A table over `bytes`, which must hold `bytes_for(buckets,
    /// fingerprint_bits)` bytes, with the rule `pairing` (made for
    /// `buckets`). The caller checks the ranges.
    ///
    /// # Panics
    ///
    /// If the width, the bucket count or the length is out of line: a bug in
    /// this crate, never a user input (every caller checks first). Asserted
    /// in release builds too, because every unchecked access in this file
    /// rests on these three facts, and a table is built once.
    pub(crate) fn with_pairing(
        bytes: Vec<u8>,
        buckets: usize,
        fingerprint_bits: u32,
        pairing: P,
    ) -> Table<P> {
        assert!((MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS).contains(&fingerprint_bits));
        assert!(buckets >= 1);
        assert_eq!(Some(bytes.len()), bytes_for(buckets, fingerprint_bits));
        let f = fingerprint_bits;
        let bucket_bits = SLOTS as u32 * f;
        let bucket_mask = u64::MAX >> (64 - bucket_bits);
        let lanes_low = (0..SLOTS as u32).fold(0u64, |acc, k| acc | 1 << (k * f));
        Table {
            buckets,
            fingerprint_bits: f,
            bucket_bits,
            lane_top: f - 1,
            stride: if f % 2 == 0 {
                f as usize / 2
            } else {
                bucket_bits as usize
            },
            bucket_mask,
            fingerprint_mask: (1u64 << f) - 1,
            lanes_low,
            lanes_high: lanes_low << (f - 1),
            pairing,
            bytes,
        }
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes the table holds: its buckets and padding, and its
    /// alternate offsets if it keeps them.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.bytes.len() + self.pairing.kept_bytes()
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
        // As in `either_has`: even widths start on a byte, and the stride
        // tells the cases apart (a branch the same for every call).
        let stride = self.stride;
        if stride < 16 {
            (bucket * stride, 0)
        } else {
            let bit = bucket * stride;
            (bit >> 3, (bit & 7) as u32)
        }
    }

    /// Hints that bucket `bucket`'s window will be read soon (a batched
    /// lookup, `batch.rs`): the lines of its first and last bytes, both
    /// needed when the unaligned 8-byte load straddles two lines.
    #[inline(always)]
    pub(crate) fn prefetch_bucket(&self, bucket: usize) {
        let (byte, _) = self.byte_and_shift(bucket);
        filter_core::prefetch::prefetch(&self.bytes, byte);
        filter_core::prefetch::prefetch(&self.bytes, byte + 7);
    }

    /// The 8 bytes starting at `byte`, little-endian.
    #[inline]
    fn window(&self, byte: usize) -> u64 {
        let mut window = [0u8; 8];
        window.copy_from_slice(&self.bytes[byte..byte + 8]);
        u64::from_le_bytes(window)
    }

    /// The 8 bytes starting at `byte`, little-endian, without a bounds check.
    ///
    /// # Safety
    ///
    /// `byte + 8 ≤ self.bytes.len()`. The first byte of any bucket `< buckets`
    /// qualifies: it is `⌊4f·i / 8⌋ ≤ ⌈4f·m / 8⌉ − 1`, and the padding adds 7.
    #[inline]
    #[allow(unsafe_code)]
    unsafe fn window_unchecked(&self, byte: usize) -> u64 {
        debug_assert!(byte + 8 <= self.bytes.len());
        // SAFETY: the caller guarantees that the 8 bytes lie inside `bytes`;
        // `read_unaligned` has no alignment requirement.
        u64::from_le(unsafe { self.bytes.as_ptr().add(byte).cast::<u64>().read_unaligned() })
    }

    /// Stores `value` little-endian in the 8 bytes starting at `byte`,
    /// without a bounds check.
    ///
    /// # Safety
    ///
    /// As [`window_unchecked`](Self::window_unchecked).
    #[inline]
    #[allow(unsafe_code)]
    unsafe fn store_window_unchecked(&mut self, byte: usize, value: u64) {
        debug_assert!(byte + 8 <= self.bytes.len());
        // SAFETY: the caller guarantees that the 8 bytes lie inside `bytes`;
        // `write_unaligned` has no alignment requirement.
        unsafe {
            self.bytes
                .as_mut_ptr()
                .add(byte)
                .cast::<u64>()
                .write_unaligned(value.to_le());
        }
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
    pub(crate) fn write(&mut self, bucket: usize, value: u64) {
        let (byte, shift) = self.byte_and_shift(bucket);
        let mask = self.bucket_mask << shift;
        let window = (self.window(byte) & !mask) | ((value & self.bucket_mask) << shift);
        self.bytes[byte..byte + 8].copy_from_slice(&window.to_le_bytes());
    }

    /// The other bucket of a fingerprint in `bucket < m`, by the table's
    /// rule ([`Pairing::alt`]).
    #[inline]
    pub(crate) fn alt(&self, bucket: usize, fingerprint: u64) -> usize {
        self.pairing.alt(self.buckets, bucket, fingerprint)
    }

    /// Whether any lane of `bucket_value` equals `fingerprint` (the test
    /// that [`either_has`](Self::either_has) applies to two buckets at once).
    ///
    /// `x = bucket ^ broadcast(fp)` has a zero lane exactly where a slot
    /// matched; `(x − low) & !x & high` is non-zero iff some lane of `x` is
    /// zero (a borrow can flag lanes above a zero lane, never create a flag
    /// when no lane is zero). Bits above `4f` are zero in both operands.
    #[cfg(test)]
    pub(crate) fn bucket_has(&self, bucket_value: u64, fingerprint: u64) -> bool {
        let x = bucket_value ^ fingerprint.wrapping_mul(self.lanes_low);
        (x.wrapping_sub(self.lanes_low) & !x & self.lanes_high) != 0
    }

    /// Whether bucket `first` or bucket `second` holds `fingerprint`: the
    /// whole table part of a lookup, written for the fewest instructions,
    /// because a lookup that misses the cache is limited by how many lookups
    /// the CPU can keep in flight, and that is set by their length.
    ///
    /// Both windows are loaded before anything is compared, and nothing
    /// branches on their contents. The windows are not masked to the
    /// bucket: the zero-lane test only looks at lanes below bit `4f`, and
    /// borrows only travel upwards. For even `f` a bucket is `f / 2` whole
    /// bytes and starts on a byte boundary, so the offset is a
    /// multiplication and there is no shift. For odd `f` a bucket starts at
    /// bit 0 or 4 of its first byte, and each window is shifted down by
    /// that much. (A branch on `f`, the same for every lookup of a table,
    /// so always predicted.)
    ///
    /// # Safety
    ///
    /// `first < buckets` and `second < buckets`.
    #[inline]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn either_has(&self, first: usize, second: usize, fingerprint: u64) -> bool {
        debug_assert!(first < self.buckets && second < self.buckets);
        let broadcast = fingerprint.wrapping_mul(self.lanes_low);
        let stride = self.stride;
        // Even widths have strides of 2 to 8 (bytes), odd ones of 20 to 60
        // (bits): testing the stride needs no register for the width.
        if stride < 16 {
            // SAFETY: both buckets are `< buckets` (the caller's promise), so
            // their first bytes leave 8 bytes in the table (`window_unchecked`).
            unsafe { self.windows_have(first * stride, 0, second * stride, 0, broadcast) }
        } else {
            let (bit1, bit2) = (first * stride, second * stride);
            // SAFETY: as above; `bit >> 3` is the bucket's first byte.
            unsafe {
                self.windows_have(
                    bit1 >> 3,
                    (bit1 & 7) as u32,
                    bit2 >> 3,
                    (bit2 & 7) as u32,
                    broadcast,
                )
            }
        }
    }

    /// Whether the bucket at bit `shift1` of the window at `byte1`, or the
    /// one at bit `shift2` of the window at `byte2`, has a lane equal to
    /// `broadcast`'s.
    ///
    /// On x86-64 both windows are loaded straight into one SSE2 register
    /// (part of the x86-64 baseline, no detection needed) and compared
    /// there: a lookup that waits on memory then holds fewer instructions
    /// in the integer scheduler, and the core keeps more lookups in flight.
    /// Each window is
    /// shifted down to its bucket in its own register before the two are
    /// joined (`psrlq`, one count per register); shifting the three
    /// constants up instead took six shifts, three joins and, for the
    /// shift counts in `cl`, enough register moves to double the odd-width
    /// lookup.
    ///
    /// # Safety
    ///
    /// `byte1 + 8` and `byte2 + 8` are at most `bytes.len()`.
    #[inline]
    #[allow(unsafe_code, unused_unsafe)]
    unsafe fn windows_have(
        &self,
        byte1: usize,
        shift1: u32,
        byte2: usize,
        shift2: u32,
        broadcast: u64,
    ) -> bool {
        debug_assert!(byte1 + 8 <= self.bytes.len() && byte2 + 8 <= self.bytes.len());
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{
                __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cvtsi64_si128,
                _mm_loadl_epi64, _mm_movemask_epi8, _mm_set1_epi64x, _mm_setzero_si128,
                _mm_srl_epi64, _mm_sub_epi64, _mm_unpacklo_epi64, _mm_xor_si128,
            };
            // SAFETY: the caller guarantees that both 8-byte windows lie
            // inside `bytes`; `_mm_loadl_epi64` reads 8 bytes with no
            // alignment requirement; SSE2 is part of every x86-64 target.
            unsafe {
                let base = self.bytes.as_ptr();
                // A shift of 0 (even widths) is a constant, and folds away.
                let window = |byte: usize, shift: u32| {
                    let w = _mm_loadl_epi64(base.add(byte).cast::<__m128i>());
                    _mm_srl_epi64(w, _mm_cvtsi64_si128(i64::from(shift)))
                };
                let windows = _mm_unpacklo_epi64(window(byte1, shift1), window(byte2, shift2));
                // The same bits as an `i64`, which is what the intrinsic takes.
                let both = |x: u64| _mm_set1_epi64x(i64::from_ne_bytes(x.to_ne_bytes()));
                let x = _mm_xor_si128(windows, both(broadcast));
                let borrows = _mm_sub_epi64(x, both(self.lanes_low));
                let flags = _mm_and_si128(_mm_andnot_si128(x, borrows), both(self.lanes_high));
                _mm_movemask_epi8(_mm_cmpeq_epi8(flags, _mm_setzero_si128())) != 0xFFFF
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            // SAFETY: the caller's promise, passed on.
            unsafe { self.windows_have_portable(byte1, shift1, byte2, shift2, broadcast) }
        }
    }

    /// [`windows_have`](Self::windows_have) in general registers: the
    /// kernel of every target but x86-64, compiled there too for tests, so
    /// that the two are compared on every width and size.
    ///
    /// # Safety
    ///
    /// As [`windows_have`](Self::windows_have).
    #[cfg(any(test, not(target_arch = "x86_64")))]
    #[inline]
    #[allow(unsafe_code)]
    unsafe fn windows_have_portable(
        &self,
        byte1: usize,
        shift1: u32,
        byte2: usize,
        shift2: u32,
        broadcast: u64,
    ) -> bool {
        // SAFETY: the caller guarantees that both windows lie inside `bytes`.
        let (value1, value2) = unsafe {
            (
                self.window_unchecked(byte1) >> shift1,
                self.window_unchecked(byte2) >> shift2,
            )
        };
        let (x1, x2) = (value1 ^ broadcast, value2 ^ broadcast);
        let zero1 = x1.wrapping_sub(self.lanes_low) & !x1;
        let zero2 = x2.wrapping_sub(self.lanes_low) & !x2;
        (zero1 | zero2) & self.lanes_high != 0
    }

    /// The high bit of every lane of `x` that is exactly zero, with no false
    /// flags (unlike the borrow-based test of `bucket_has`, used in tests):
    /// adding all-ones to a lane's low `f − 1` bits carries into its high bit
    /// iff they are non-zero, and cannot carry further.
    #[inline]
    fn zero_lanes(&self, x: u64) -> u64 {
        let low_bits = self.bucket_mask & !self.lanes_high;
        let nonzero = ((x & low_bits) + low_bits) | x;
        !nonzero & self.lanes_high
    }

    /// The high bit of the lowest lane of `x` that is zero, and perhaps of
    /// lanes above it, or 0 if no lane is zero: the borrow test of
    /// `bucket_has`, which flags falsely only above a lane that is truly
    /// zero. Three operations where [`zero_lanes`](Self::zero_lanes) takes
    /// six, for the paths that want only the lowest such lane.
    #[inline]
    fn lowest_zero_lane(&self, x: u64) -> u64 {
        x.wrapping_sub(self.lanes_low) & !x & self.lanes_high
    }

    /// Of buckets whose bits are `values`, the emptiest one with an empty
    /// slot (by its lowest empty slot, the first on a tie; see
    /// `find_in_windows`), and where that slot starts; `None` if all are
    /// full. No branch per bucket: the keys are compared as numbers.
    #[inline]
    pub(crate) fn emptiest(&self, values: &[u64]) -> Option<(usize, u32)> {
        let (mut best, mut best_key) = (0, u64::MAX);
        for (i, &value) in values.iter().enumerate() {
            let key = lowest_flag_order(self.lowest_zero_lane(value));
            if key < best_key {
                (best, best_key) = (i, key);
            }
        }
        // The key is `2^k − 1` for the flag in bit k, the top bit of its lane.
        (best_key != u64::MAX).then(|| (best, best_key.trailing_ones() - self.lane_top))
    }

    /// The bit position where the first lane matching `fingerprint` (0 for an
    /// empty slot) starts, if any.
    #[inline]
    pub(crate) fn find_lane(&self, bucket_value: u64, fingerprint: u64) -> Option<u32> {
        let flags = self.zero_lanes(bucket_value ^ fingerprint.wrapping_mul(self.lanes_low));
        // A lane's flag is its top bit; the lane starts f − 1 bits lower.
        (flags != 0).then(|| flags.trailing_zeros() - self.lane_top)
    }

    /// How many slots of `bucket` hold `fingerprint`.
    pub(crate) fn count(&self, bucket: usize, fingerprint: u64) -> u32 {
        let x = self.read(bucket) ^ fingerprint.wrapping_mul(self.lanes_low);
        self.zero_lanes(x).count_ones()
    }

    /// Puts `fingerprint` in an empty slot of `bucket`; `false` if it is full.
    ///
    /// This is most of an insert, so it is kept short: one compare guards
    /// the unchecked load and store, the window is neither masked nor
    /// re-read, and since an empty lane is all zeros, OR-ing the fingerprint
    /// into the window as read is the whole write (the neighbours' bits
    /// that share the window go back unchanged).
    ///
    /// # Panics
    ///
    /// If `bucket ≥ buckets`: a bug in this crate, never a user input.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn try_put(&mut self, bucket: usize, fingerprint: u64) -> bool {
        assert!(bucket < self.buckets, "bucket {bucket} of {}", self.buckets);
        let stride = self.stride;
        // Two copies, as in `either_has`: even widths need no shift.
        // SAFETY: `bucket < buckets` (asserted), so its window is inside the
        // table (see `window_unchecked`); `bit >> 3` is its first byte.
        unsafe {
            if stride < 16 {
                self.put_in_window(bucket * stride, 0, fingerprint)
            } else {
                let bit = bucket * stride;
                self.put_in_window(bit >> 3, (bit & 7) as u32, fingerprint)
            }
        }
    }

    /// [`try_put`](Self::try_put) for the bucket at bit `shift` of the
    /// window at `byte`.
    ///
    /// # Safety
    ///
    /// As [`window_unchecked`](Self::window_unchecked).
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn put_in_window(&mut self, byte: usize, shift: u32, fingerprint: u64) -> bool {
        // SAFETY: the caller's promise.
        let window = unsafe { self.window_unchecked(byte) };
        // Bits above the bucket do not reach the lanes' flags, and only the
        // lowest flag is used.
        let flags = self.lowest_zero_lane(window >> shift);
        if flags == 0 {
            return false;
        }
        // A lane's flag is its top bit; the lane starts f − 1 bits lower.
        let start = shift + flags.trailing_zeros() - self.lane_top;
        // SAFETY: as above.
        unsafe { self.store_window_unchecked(byte, window | fingerprint << start) };
        true
    }

    /// Puts `fingerprint` in an empty slot of whichever of `first` and
    /// `second` looks emptier, the one whose lowest empty slot comes first
    /// (`first` on a tie; see [`find_in_either`](Self::find_in_either));
    /// `false` if both are full.
    ///
    /// For a table near capacity, where the first bucket is often full:
    /// both windows are loaded before either is examined, so the second
    /// bucket's cache miss overlaps the first's instead of following it, and
    /// the bucket is chosen with a mask, not a branch on a coin toss (as in
    /// [`remove_from_either`](Self::remove_from_either)).
    ///
    /// # Panics
    ///
    /// If a bucket is `≥ buckets`: a bug in this crate, never a user input.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn try_put_either(&mut self, first: usize, second: usize, fingerprint: u64) -> bool {
        match self.find_in_either::<true>(first, second, 0) {
            Some((byte, window, start)) => {
                // Only the chosen window is stored, as read but for the
                // filled lane.
                // SAFETY: `find_in_either` returns the first byte of a
                // bucket `< buckets`.
                unsafe { self.store_window_unchecked(byte, window | fingerprint << start) };
                true
            }
            None => false,
        }
    }

    /// The first byte, window and lane start of a lane equal to `lane` in
    /// bucket `first`, or else in `second`; with `EMPTIER` (for `lane` 0, an
    /// empty slot), in whichever of the two looks emptier: the one whose
    /// lowest empty slot comes first, `first` on a tie. Inserts fill the
    /// lowest slot, so that is the emptier bucket until removes leave holes
    /// (a bucket `[a, 0, b, c]` then ranks before `[d, e, 0, 0]`): a cheap
    /// stand-in for counting empty slots, which only steers placement.
    ///
    /// Both windows are loaded before either is examined, and the bucket is
    /// chosen with a mask, not a branch: whether it is the first or the
    /// second is a coin toss, which a branch would often mispredict (the
    /// compiler turned the plain `if` into one). Two copies, as in
    /// `either_has`: even widths need no shift.
    ///
    /// # Panics
    ///
    /// If a bucket is `≥ buckets`: a bug in this crate, never a user input.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn find_in_either<const EMPTIER: bool>(
        &self,
        first: usize,
        second: usize,
        lane: u64,
    ) -> Option<(usize, u64, u32)> {
        // One compare each guards the unchecked accesses below.
        assert!(first < self.buckets && second < self.buckets);
        let broadcast = lane.wrapping_mul(self.lanes_low);
        let stride = self.stride;
        // SAFETY: both buckets are `< buckets` (asserted), so their windows
        // are inside the table (see `window_unchecked`); `bit >> 3` is a
        // bucket's first byte.
        unsafe {
            if stride < 16 {
                self.find_in_windows::<EMPTIER>(first * stride, 0, second * stride, 0, broadcast)
            } else {
                let (bit1, bit2) = (first * stride, second * stride);
                self.find_in_windows::<EMPTIER>(
                    bit1 >> 3,
                    (bit1 & 7) as u32,
                    bit2 >> 3,
                    (bit2 & 7) as u32,
                    broadcast,
                )
            }
        }
    }

    /// [`find_in_either`](Self::find_in_either) for the buckets at bit
    /// `shift1` of the window at `byte1` and at bit `shift2` of the one at
    /// `byte2`.
    ///
    /// # Safety
    ///
    /// `byte1 + 8` and `byte2 + 8` are at most `bytes.len()`.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn find_in_windows<const EMPTIER: bool>(
        &self,
        byte1: usize,
        shift1: u32,
        byte2: usize,
        shift2: u32,
        broadcast: u64,
    ) -> Option<(usize, u64, u32)> {
        // SAFETY: the caller's promise.
        let (window1, window2) =
            unsafe { (self.window_unchecked(byte1), self.window_unchecked(byte2)) };
        // Bits above a bucket do not reach its lanes' flags, and only the
        // lowest flag of each is used.
        let flags1 = self.lowest_zero_lane((window1 >> shift1) ^ broadcast);
        let flags2 = self.lowest_zero_lane((window2 >> shift2) ^ broadcast);
        if flags1 | flags2 == 0 {
            return None;
        }
        // An empty slot goes to the emptier bucket (the first on a tie):
        // filling the two evenly leaves fewer items whose buckets are both
        // full, and each of those costs a search for room. How full a bucket is
        // shows in its lowest empty slot, since inserts fill the lowest one
        // and moves keep slots in place: a bucket of k items holds them in
        // slots 0..k unless a remove left a hole (which only makes the
        // choice less even); `lowest_flag_order` ranks them by it. A
        // popcount instead is some thirty instructions without POPCNT (not
        // in baseline x86-64), which made inserts markedly slower.
        // (`EMPTIER` is a constant, so only one choice is compiled.)
        let in_first = if EMPTIER {
            u64::from(lowest_flag_order(flags1) <= lowest_flag_order(flags2)).wrapping_neg()
        } else {
            u64::from(flags1 != 0).wrapping_neg()
        };
        let choose = |a: u64, b: u64| b ^ ((a ^ b) & in_first);
        let shift = choose(u64::from(shift1), u64::from(shift2)) as u32;
        // A lane's flag is its top bit; the lane starts f − 1 bits lower.
        let start = shift + choose(flags1, flags2).trailing_zeros() - self.lane_top;
        Some((
            choose(byte1 as u64, byte2 as u64) as usize,
            choose(window1, window2),
            start,
        ))
    }

    /// Makes room for `fingerprint` in `bucket` by moving one of its
    /// residents to that resident's other bucket, if one of those has a free
    /// slot; `false`, with nothing changed, if none has.
    ///
    /// The residents' other buckets are all read before any is examined, so
    /// their cache misses overlap: one step looks as far as four steps of a
    /// random walk, for about the time of one.
    pub(crate) fn put_by_moving_one(&mut self, bucket: usize, fingerprint: u64) -> bool {
        let value = self.read(bucket);
        let f = self.fingerprint_bits;
        let residents: [u64; SLOTS] =
            std::array::from_fn(|s| (value >> (s as u32 * f)) & self.fingerprint_mask);
        let others: [usize; SLOTS] = std::array::from_fn(|s| self.alt(bucket, residents[s]));
        let values: [u64; SLOTS] = std::array::from_fn(|s| self.read(others[s]));
        for (slot, ((&resident, &other), &other_value)) in
            residents.iter().zip(&others).zip(&values).enumerate()
        {
            // A resident whose other bucket is `bucket` itself sees the
            // bucket's own (full) value; an empty slot (resident 0) would
            // just be filled below.
            if let Some(start) = self.find_lane(other_value, 0) {
                self.write(other, other_value | resident << start);
                self.swap(bucket, slot as u32, fingerprint);
                return true;
            }
        }
        false
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
    /// second buckets would mispredict half the time. Kept short like
    /// [`try_put`](Self::try_put): unchecked windows behind one compare
    /// each, no masking, no re-read before the store.
    ///
    /// # Panics
    ///
    /// If a bucket is `≥ buckets`: a bug in this crate, never a user input.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn remove_from_either(
        &mut self,
        first: usize,
        second: usize,
        fingerprint: u64,
    ) -> bool {
        match self.find_in_either::<false>(first, second, fingerprint) {
            Some((byte, window, start)) => {
                // Only the chosen window is stored, as read but for the
                // cleared lane.
                // SAFETY: `find_in_either` returns the first byte of a
                // bucket `< buckets`.
                unsafe {
                    self.store_window_unchecked(byte, window & !(self.fingerprint_mask << start));
                }
                true
            }
            None => false,
        }
    }

    /// The fingerprint in slot `slot` (0..4) of a bucket whose bits are
    /// `bucket_value` (0 if empty).
    #[inline]
    pub(crate) fn lane(&self, bucket_value: u64, slot: u32) -> u64 {
        (bucket_value >> (slot * self.fingerprint_bits)) & self.fingerprint_mask
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

    /// Empties every slot; the shape stays.
    pub(crate) fn clear(&mut self) {
        self.bytes.fill(0);
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
    fn kept_alternate_offsets_are_the_formats() {
        // Each kept offset must be the format's `reduce(mix64(fp), m') | 1`,
        // with SplitMix64's finalizer written out here, not taken from the
        // code that fills the table.
        let splitmix = |x: u64| {
            let z = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let shapes = [
            (3, 4),
            (1000, 6),
            (100_000, 8),
            (100_001, 8),
            (131_073, 10),
            (645_277, 13),
            (4_194_304, 16),
        ];
        for (buckets, bits) in shapes {
            let t = table(buckets, bits);
            assert_eq!(
                t.pairing.alt_offsets.len(),
                1 << bits,
                "m {buckets} f {bits}"
            );
            for fp in 0..1u64 << bits {
                let even = buckets & !1;
                let format = ((u128::from(splitmix(fp)) * even as u128) >> 64) as usize | 1;
                assert_eq!(
                    t.pairing.alt_offsets[fp as usize] as usize, format,
                    "m {buckets} fp {fp}"
                );
                // Computed, as tables without kept offsets do: the same.
                assert_eq!(t.pairing.alt_offset(fp), format, "m {buckets} fp {fp}");
            }
        }
    }

    #[test]
    fn alternate_offsets_are_kept_only_where_they_pay() {
        // Up to 6 bits at any size (256 bytes at most).
        assert_eq!(table(3, 4).pairing.alt_offsets.len(), 16);
        assert_eq!(table(1000, 6).pairing.alt_offsets.len(), 64);
        assert!(table(1000, 7).pairing.alt_offsets.is_empty());
        // At f = 10 the 4 KiB of offsets need 512 KiB of table (5 bytes a
        // bucket, and 7 of padding): 104,857 buckets.
        assert!(table(104_856, 10).pairing.alt_offsets.is_empty());
        assert_eq!(table(104_857, 10).pairing.alt_offsets.len(), 1024);
        // Wider ones from the same share: 32 KiB at 13 bits (6.5 bytes a
        // bucket) need 4 MiB of table, 256 KiB at 16 bits (8 bytes) 32 MiB.
        assert!(table(645_276, 13).pairing.alt_offsets.is_empty());
        assert_eq!(table(645_277, 13).pairing.alt_offsets.len(), 1 << 13);
        assert!(table(4_194_303, 16).pairing.alt_offsets.is_empty());
        assert_eq!(table(4_194_304, 16).pairing.alt_offsets.len(), 1 << 16);
        // The offsets count in the memory, and only they come on top.
        let t = table(104_857, 10);
        assert_eq!(t.memory_bytes(), t.bytes().len() + 4096);
        let t = table(104_856, 10);
        assert_eq!(t.memory_bytes(), t.bytes().len());
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
    #[allow(unsafe_code)]
    fn either_has_matches_two_single_bucket_tests() {
        // Random full tables of every width, so that each window also holds
        // a neighbour's bits, and pairs that include the last bucket.
        let mut next = crate::test_rng::seeded(0x1234_5678_9ABC_DEF0);
        for bits in MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS {
            for buckets in [1, 2, 37, 64] {
                let mut t = table(buckets, bits);
                let top = (1u64 << bits) - 1;
                for b in 0..buckets {
                    for _ in 0..SLOTS {
                        // Small values, so that lookups often match.
                        assert!(t.try_put(b, next() % top.min(12) + 1));
                    }
                }
                for _ in 0..2_000 {
                    let first = (next() % buckets as u64) as usize;
                    let second = if next() & 1 == 0 {
                        buckets - 1
                    } else {
                        (next() % buckets as u64) as usize
                    };
                    let fp = next() % top.min(14) + 1;
                    let want = t.bucket_has(t.read(first), fp) || t.bucket_has(t.read(second), fp);
                    // SAFETY: both buckets are < buckets.
                    let got = unsafe { t.either_has(first, second, fp) };
                    assert_eq!(
                        got, want,
                        "bits {bits} m {buckets} {first} {second} fp {fp}"
                    );
                }
            }
        }
    }

    #[test]
    #[allow(unsafe_code)]
    fn sse2_and_portable_kernels_answer_alike() {
        // Every width, the smallest tables and ones whose last bucket ends
        // inside the padding, random contents with small repeating values,
        // every pair of buckets of the small tables.
        let mut next = crate::test_rng::seeded(0xC0FF_EE00_D15E_A5E5);
        for bits in MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS {
            for buckets in [1, 2, 3, 5, 37] {
                let mut t = table(buckets, bits);
                for b in 0..buckets {
                    for _ in 0..SLOTS {
                        if next() % 5 != 0 {
                            assert!(t.try_put(b, next() % 9 + 1));
                        }
                    }
                }
                for first in 0..buckets {
                    for second in 0..buckets {
                        for fp in 1..=10 {
                            let want =
                                t.bucket_has(t.read(first), fp) || t.bucket_has(t.read(second), fp);
                            let (byte1, shift1) = t.byte_and_shift(first);
                            let (byte2, shift2) = t.byte_and_shift(second);
                            let broadcast = fp.wrapping_mul(t.lanes_low);
                            // SAFETY: both buckets are < buckets.
                            let (simd, portable) = unsafe {
                                (
                                    t.windows_have(byte1, shift1, byte2, shift2, broadcast),
                                    t.windows_have_portable(
                                        byte1, shift1, byte2, shift2, broadcast,
                                    ),
                                )
                            };
                            let at = format!("bits {bits} m {buckets} {first} {second} fp {fp}");
                            assert_eq!(simd, want, "{at}");
                            assert_eq!(portable, want, "{at}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn remove_from_either_matches_removing_from_first_then_second() {
        // Random tables of every width, neighbours sharing the windows,
        // pairs that include the last bucket and equal buckets.
        let mut next = crate::test_rng::seeded(0x0FED_CBA9_8765_4321);
        for bits in MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS {
            for buckets in [1, 2, 37, 64] {
                let mut t = table(buckets, bits);
                for b in 0..buckets {
                    for _ in 0..SLOTS {
                        // Some slots stay empty; small values repeat.
                        if next() % 4 != 0 {
                            assert!(t.try_put(b, next() % 6 + 1));
                        }
                    }
                }
                for _ in 0..2_000 {
                    let first = (next() % buckets as u64) as usize;
                    let second = match next() % 3 {
                        0 => buckets - 1,
                        1 => first,
                        _ => (next() % buckets as u64) as usize,
                    };
                    let fp = next() % 7 + 1;
                    let mut want = t.clone();
                    let removed = want.try_remove(first, fp) || want.try_remove(second, fp);
                    assert_eq!(t.remove_from_either(first, second, fp), removed);
                    assert_eq!(t, want, "bits {bits} m {buckets} {first} {second} fp {fp}");
                    // Refill now and then, so that the table does not run dry.
                    if removed && next() % 2 == 0 {
                        let fp = next() % 6 + 1;
                        assert!(t.try_put(first, fp) || t.try_put(second, fp));
                    }
                }
                assert!(t.padding_is_clear());
            }
        }
    }

    #[test]
    fn try_put_either_fills_the_lowest_empty_slot_of_the_emptier_bucket() {
        // Random tables of every width with holes, neighbours sharing the
        // windows, pairs that include the last bucket and equal buckets;
        // 16-bit lanes put a flag in bit 63.
        let mut next = crate::test_rng::seeded(0x5EED_F0B0_C7E7_5EED);
        for bits in MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS {
            let top = (1u64 << bits) - 1;
            for buckets in [1, 2, 37, 64] {
                let mut t = table(buckets, bits);
                for _ in 0..3_000 {
                    let first = (next() % buckets as u64) as usize;
                    let second = match next() % 3 {
                        0 => buckets - 1,
                        1 => first,
                        _ => (next() % buckets as u64) as usize,
                    };
                    let fp = next() % top + 1;
                    let free = |t: &Table, b: usize| (0..SLOTS as u32).find(|&k| t.slot(b, k) == 0);
                    let want = match (free(&t, first), free(&t, second)) {
                        (Some(a), Some(b)) if b < a => Some((second, b)),
                        (Some(a), _) => Some((first, a)),
                        (None, Some(b)) => Some((second, b)),
                        (None, None) => None,
                    };
                    let mut expected = t.clone();
                    if let Some((bucket, slot)) = want {
                        expected.swap(bucket, slot, fp);
                    }
                    assert_eq!(t.try_put_either(first, second, fp), want.is_some());
                    assert_eq!(
                        t, expected,
                        "bits {bits} m {buckets} {first} {second} fp {fp}"
                    );
                    // Empty a random slot now and then: holes, and room.
                    if next() % 3 == 0 {
                        let b = (next() % buckets as u64) as usize;
                        t.swap(b, (next() % SLOTS as u64) as u32, 0);
                    }
                }
                assert!(t.padding_is_clear());
            }
        }
    }

    #[test]
    fn emptiest_picks_the_lowest_empty_slot_first_bucket_on_a_tie() {
        let mut next = crate::test_rng::seeded(0x0DDB_A11C_0FFE_E000);
        for bits in MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS {
            let t = table(1, bits);
            let top = (1u64 << bits) - 1;
            for _ in 0..2_000 {
                // Mostly full buckets, so that "none" and ties both occur.
                let values: Vec<u64> = (0..8)
                    .map(|_| {
                        (0..SLOTS as u32).fold(0, |acc, k| {
                            let lane = if next() % 4 == 0 { 0 } else { next() % top + 1 };
                            acc | lane << (k * bits)
                        })
                    })
                    .collect();
                let lowest_empty = |v: u64| {
                    (0..SLOTS as u32)
                        .find(|&k| t.lane(v, k) == 0)
                        .map(|k| k * bits)
                };
                let mut want: Option<(usize, u32)> = None;
                for (i, &v) in values.iter().enumerate() {
                    if let Some(start) = lowest_empty(v) {
                        if want.is_none_or(|(_, best)| start < best) {
                            want = Some((i, start));
                        }
                    }
                }
                assert_eq!(t.emptiest(&values), want, "bits {bits} {values:x?}");
            }
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
