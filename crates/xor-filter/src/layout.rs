//! Where a key's three fingerprints live: the two table layouts.
//!
//! - [`XorLayout`]: the 2020 xor filter. `1.23 n + 32` slots in three equal
//!   blocks; a key has one slot in each block, chosen independently.
//! - [`FuseLayout`]: the 2022 binary fuse filter. About `1.125 n` slots (more
//!   for small n) cut into power-of-two segments; a key picks a window of
//!   three consecutive segments and one slot in each. Neighbouring keys share
//!   segments, which is what lets peeling succeed with less slack, and what
//!   makes construction cache-friendly once keys are sorted by segment.
//!
//! Both derive positions from the *mixed* 64-bit hash `k` (see
//! `table.rs`), the first position from its high bits by one multiply-high, so
//! that sorting keys by their top bits sorts them by first position.

use std::fmt::Debug;

use filter_core::format::{ByteReader, ByteWriter};
use filter_core::{Error, reduce};

/// The most distinct keys a filter takes: slot numbers are kept in 32 bits
/// during construction, and the xor layout needs `1.23 n + 32` of them.
pub const MAX_KEYS: usize = 3_000_000_000;

/// A table layout: sizing from the number of keys, the three positions of a
/// key, and its parameters' encoding.
pub(crate) trait Layout: Sized + Clone + Debug + PartialEq {
    /// Whether construction should prefetch the slots of keys a few steps
    /// ahead: worth it when a key's slots are scattered over a large table.
    const PREFETCH: bool;

    /// Sizes the table for `keys` distinct keys.
    fn for_keys(keys: usize) -> Result<Self, Error>;

    /// The layout construction attempt `attempt` uses (0 first): the same
    /// number of slots, arranged as `self` unless the layout has a reason
    /// to vary it between attempts.
    fn for_attempt(&self, attempt: u32) -> Self {
        let _ = attempt;
        self.clone()
    }

    /// The number of fingerprint slots.
    fn slots(&self) -> usize;

    /// The three distinct slots of the key whose mixed hash is `mixed`.
    fn positions(&self, mixed: u64) -> [usize; 3];

    /// Appends the layout's parameters.
    fn write(&self, writer: &mut ByteWriter);

    /// Reads the parameters and checks them against what
    /// [`for_keys`](Self::for_keys) gives for `keys` (exactly for the xor
    /// layout; structure and plausibility for the binary fuse layout).
    fn read(reader: &mut ByteReader<'_>, keys: usize) -> Result<Self, Error>;
}

fn check_keys(keys: usize) -> Result<(), Error> {
    if keys > MAX_KEYS {
        return Err(Error::invalid(
            "number of distinct keys",
            keys,
            format_args!("at most {MAX_KEYS}"),
        ));
    }
    Ok(())
}

/// Three blocks of `block_length` slots; slot `i` of block `b` is
/// `b * block_length + i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct XorLayout {
    block_length: usize,
}

impl Layout for XorLayout {
    const PREFETCH: bool = true;

    fn for_keys(keys: usize) -> Result<Self, Error> {
        check_keys(keys)?;
        // The paper's 1.23 n + 32: 1.23 is just above the 1.222 threshold
        // where random 3-hypergraphs stop being peelable; the 32 carries
        // small sets, whose hypergraphs need proportionally more room.
        // Integer arithmetic (123/100) keeps the size exact and portable.
        let capacity = 32 + (keys as u64 * 123).div_ceil(100);
        Ok(XorLayout {
            block_length: (capacity / 3) as usize,
        })
    }

    #[inline]
    fn slots(&self) -> usize {
        3 * self.block_length
    }

    #[inline]
    fn positions(&self, mixed: u64) -> [usize; 3] {
        let b = self.block_length;
        [
            reduce(mixed, b),
            b + reduce(mixed.rotate_left(21), b),
            2 * b + reduce(mixed.rotate_left(42), b),
        ]
    }

    fn write(&self, writer: &mut ByteWriter) {
        writer.u64(self.block_length as u64);
    }

    fn read(reader: &mut ByteReader<'_>, keys: usize) -> Result<Self, Error> {
        let block_length = reader.u64("block_length")?;
        let expected = Self::for_keys(keys).map_err(Error::corrupt)?;
        if block_length != expected.block_length as u64 {
            return Err(Error::corrupt(format_args!(
                "block_length is {block_length}, but a filter of {keys} keys has {}",
                expected.block_length
            )));
        }
        Ok(expected)
    }
}

/// `segment_count + 2` segments of `segment_length` slots (a power of two).
/// A key's first slot is anywhere in the first `segment_count` segments; its
/// second and third are in the next two segments, at offsets taken from
/// other bits of the hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FuseLayout {
    segment_length: u64,
    segment_count: u64,
    /// `segment_length - 1`.
    segment_mask: u64,
    /// `segment_count * segment_length`: the range of the first slot.
    first_range: u64,
}

/// The largest segment length: beyond it longer segments no longer help
/// peeling and only hurt locality (as in the reference implementation).
const MAX_SEGMENT_LENGTH: u64 = 1 << 18;

impl FuseLayout {
    fn new(segment_length: u64, segment_count: u64) -> Self {
        FuseLayout {
            segment_length,
            segment_count,
            segment_mask: segment_length - 1,
            first_range: segment_count * segment_length,
        }
    }
}

impl Layout for FuseLayout {
    const PREFETCH: bool = true;

    fn for_keys(keys: usize) -> Result<Self, Error> {
        check_keys(keys)?;
        // Graf & Lemire 2022, section 5 and the reference implementation:
        // segment length 2^floor(log_3.33(n) + 2.25), size factor
        // max(1.125, 0.875 + 0.25 ln(10^6) / ln n).
        let n = keys as f64;
        let segment_length = if keys == 0 {
            4
        } else {
            (1u64 << ((n.ln() / 3.33f64.ln() + 2.25).floor() as u32)).min(MAX_SEGMENT_LENGTH)
        };
        let capacity = if keys <= 1 {
            0
        } else {
            (n * 1.125f64.max(0.875 + 0.25 * 1e6f64.ln() / n.ln())).round() as u64
        };
        let segment_count = capacity.div_ceil(segment_length).saturating_sub(2).max(1);
        Ok(FuseLayout::new(segment_length, segment_count))
    }

    /// Odd attempts use half the segment length and `2 · count + 2`
    /// segments: the same slots, so the same size and byte format. Just past
    /// a step of the segment-length formula (n ≈ 3360, 11 190, 37 262, …)
    /// the table is a dozen or so long segments, and at the top of each
    /// slot-count plateau there (n = 3551, 11 521, 12 372, 37 454, …) only
    /// about 5 % of key sets peel with it; the halved layout peels about
    /// 97 % of them, and peeled well at every size measured (the same remedy
    /// as FastFilter/xorfilter#50).
    /// Even attempts keep the formula, so builds that succeed at once are
    /// what they always were.
    fn for_attempt(&self, attempt: u32) -> Self {
        if attempt % 2 == 1 && self.segment_length > 4 {
            FuseLayout::new(self.segment_length / 2, 2 * self.segment_count + 2)
        } else {
            *self
        }
    }

    #[inline]
    fn slots(&self) -> usize {
        ((self.segment_count + 2) * self.segment_length) as usize
    }

    #[inline]
    fn positions(&self, mixed: u64) -> [usize; 3] {
        let h0 = ((u128::from(mixed) * u128::from(self.first_range)) >> 64) as u64;
        let h1 = (h0 + self.segment_length) ^ ((mixed >> 18) & self.segment_mask);
        let h2 = (h0 + 2 * self.segment_length) ^ (mixed & self.segment_mask);
        [h0 as usize, h1 as usize, h2 as usize]
    }

    fn write(&self, writer: &mut ByteWriter) {
        writer.u64(self.segment_length);
        writer.u64(self.segment_count);
    }

    fn read(reader: &mut ByteReader<'_>, keys: usize) -> Result<Self, Error> {
        let segment_length = reader.u64("segment_length")?;
        let segment_count = reader.u64("segment_count")?;
        // The sizing formula uses floating-point logarithms, which another
        // platform's libm may round differently near a power-of-two step; so
        // the stored layout is checked for the structure lookups rely on and
        // for plausibility, not for bit-exact agreement with `for_keys`.
        if !segment_length.is_power_of_two() || !(4..=MAX_SEGMENT_LENGTH).contains(&segment_length)
        {
            return Err(Error::corrupt(format_args!(
                "segment_length must be a power of two from 4 to {MAX_SEGMENT_LENGTH}, got {segment_length}"
            )));
        }
        let slots = segment_count
            .checked_add(2)
            .and_then(|s| s.checked_mul(segment_length))
            // Slots must also fit a usize, or `slots()` would truncate on
            // 32-bit targets and the lookup's range argument would fail.
            .filter(|&s| segment_count >= 1 && s <= 1 << 32 && usize::try_from(s).is_ok())
            .ok_or_else(|| {
                Error::corrupt(format_args!(
                    "segment_count must be from 1 to 2^32 / segment_length - 2, got {segment_count}"
                ))
            })?;
        let expected = Self::for_keys(keys).map_err(Error::corrupt)?.slots() as u64;
        if slots < keys as u64 || slots > 2 * expected + 64 {
            return Err(Error::corrupt(format_args!(
                "segment_length {segment_length} and segment_count {segment_count} give {slots} \
                 slots, implausible for {keys} keys (about {expected} expected)"
            )));
        }
        Ok(FuseLayout::new(segment_length, segment_count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xor_sizes_follow_the_paper() {
        assert_eq!(XorLayout::for_keys(0).unwrap().slots(), 30);
        assert_eq!(XorLayout::for_keys(1_000_000).unwrap().slots(), 1_230_030);
    }

    #[test]
    fn fuse_sizes_follow_the_reference_implementation() {
        let l = FuseLayout::for_keys(1_000_000).unwrap();
        assert_eq!((l.segment_length, l.segment_count), (8192, 136));
        assert_eq!(l.slots(), 1_130_496);
        let l = FuseLayout::for_keys(10_000_000).unwrap();
        assert_eq!(l.segment_length, 32_768);
        for n in 0..100 {
            let l = FuseLayout::for_keys(n).unwrap();
            assert!(
                l.slots() >= 12 && l.slots() as f64 >= n as f64 * 1.125,
                "{n}"
            );
        }
    }

    #[test]
    fn positions_are_distinct_and_in_range() {
        let x = XorLayout::for_keys(1000).unwrap();
        let f = FuseLayout::for_keys(1000).unwrap();
        for i in 0..10_000u64 {
            let k = filter_core::mix64(i);
            for p in [x.positions(k), f.positions(k)] {
                assert!(p[0] != p[1] && p[1] != p[2] && p[0] != p[2]);
            }
            assert!(x.positions(k).iter().all(|&p| p < x.slots()));
            assert!(f.positions(k).iter().all(|&p| p < f.slots()));
        }
        assert_eq!(x.positions(u64::MAX)[2], x.slots() - 1);
        // The lookup indexes without bounds checks: the extremes must stay in
        // range for every size, including layouts of one segment.
        for n in (0..200).chain([1 << 20, 10_000_000, MAX_KEYS]) {
            let x = XorLayout::for_keys(n).unwrap();
            let f = FuseLayout::for_keys(n).unwrap();
            for k in [
                0,
                1,
                u64::MAX,
                u64::MAX >> 1,
                0x8000_0000_0003_FFFF,
                0xFFFF_FFFF_0000_0000,
            ] {
                assert!(x.positions(k).iter().all(|&p| p < x.slots()), "{n} {k:#x}");
                assert!(f.positions(k).iter().all(|&p| p < f.slots()), "{n} {k:#x}");
            }
        }
    }

    #[test]
    fn any_readable_fuse_layout_keeps_positions_in_range() {
        // `read` accepts any power-of-two segment length from 4 to 2^18 and
        // any segment count from 1: the lookup's unchecked indexing relies on
        // every such layout mapping every hash below its slot count.
        for bits in 2..=18 {
            for count in [1u64, 2, 3, 7, 1000] {
                let l = FuseLayout::new(1 << bits, count);
                for k in [
                    0,
                    1,
                    u64::MAX,
                    u64::MAX >> 1,
                    0x0003_FFFF_FFFF_FFFF,
                    1 << 63,
                ] {
                    assert!(
                        l.positions(k).iter().all(|&p| p < l.slots()),
                        "{bits} {count}"
                    );
                }
            }
        }
    }

    #[test]
    fn too_many_keys_is_an_error() {
        let e = XorLayout::for_keys(MAX_KEYS + 1).unwrap_err();
        assert!(e.to_string().contains("at most 3000000000"), "{e}");
        assert!(FuseLayout::for_keys(MAX_KEYS + 1).is_err());
    }
}
