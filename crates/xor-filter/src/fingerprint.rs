//! The fingerprint widths: one trait so that the construction, the lookup and
//! the byte encoding are written once for 8 and 16 bits.

use filter_core::Error;
use filter_core::format::{ByteReader, ByteWriter, FilterKind};

/// The internals of a width, out of the public API: a public trait with a
/// private supertrait can be named but not implemented outside the crate,
/// and its methods cannot be called there.
pub(crate) mod sealed {
    use std::fmt::Debug;
    use std::ops::BitXor;

    use filter_core::Error;
    use filter_core::format::{ByteReader, ByteWriter, FilterKind};

    /// What the construction, the lookup and the byte encoding need of a width.
    pub trait Width:
        Copy + Default + Eq + Debug + BitXor<Output = Self> + Send + Sync + 'static
    {
        /// The format kind of an xor filter of this width.
        const XOR_KIND: FilterKind;

        /// The format kind of a binary fuse filter of this width.
        const FUSE_KIND: FilterKind;

        /// The fingerprint of a mixed hash.
        fn from_hash(mixed: u64) -> Self;

        /// Appends `values` as an array of the format.
        fn write_array(writer: &mut ByteWriter, values: &[Self]);

        /// Reads the elements of an array written by
        /// [`write_array`](Self::write_array), borrowed: `slots × BITS / 8` bytes.
        ///
        /// # Errors
        ///
        /// [`Error::Corrupt`] naming `field` when the bytes are missing.
        fn borrow_array<'a>(reader: &mut ByteReader<'a>, field: &str) -> Result<&'a [u8], Error>;

        /// The fingerprint at `index` of a table stored as little-endian bytes
        /// (a borrowed view's table). Reads byte by byte, so the table need not
        /// be aligned, and any host reads the same value.
        fn load_le(bytes: &[u8], index: usize) -> Self;

        /// Copies a table stored as little-endian bytes.
        fn copy_le(bytes: &[u8]) -> Vec<Self>;
    }
}

/// A fingerprint width: `u8` (false-positive rate 2^-8) or `u16` (2^-16).
///
/// Sealed: the filters are defined for exactly these two widths, and the
/// byte format records which one a filter uses.
///
/// A key's fingerprint is the low bits of `k ^ (k >> 32)`, where `k` is the
/// key's seeded, mixed hash, as in the reference implementations. The
/// positions derive from `k` too, so at large sizes some fingerprint bits
/// are functions of the slots: the binary fuse layout reads bits
/// 0..log2(segment length) and, from segment length 2^15 (about 5·10^6
/// keys), bits up to 36 through its second slot; the xor layout's rotated
/// reductions read bits of both halves, and from about 10^7 keys its three
/// slots fix the whole fingerprint. The false-positive rate does not suffer:
/// measured over 2·10^7 non-members it stayed within 1 % of 2^-8 (and within
/// noise of 2^-16) at 10^6, 1.2·10^7 and 3·10^7 keys for all four types.
/// A fingerprint may be zero: unlike a cuckoo table, an xor filter has no
/// notion of an empty slot.
pub trait Fingerprint: sealed::Width {
    /// The width in bits.
    const BITS: u32;
}

impl Fingerprint for u8 {
    const BITS: u32 = 8;
}

impl sealed::Width for u8 {
    const XOR_KIND: FilterKind = FilterKind::Xor8;
    const FUSE_KIND: FilterKind = FilterKind::BinaryFuse8;

    #[inline]
    fn from_hash(mixed: u64) -> Self {
        (mixed ^ (mixed >> 32)) as u8
    }

    fn write_array(writer: &mut ByteWriter, values: &[Self]) {
        writer.u8_array(values);
    }

    fn borrow_array<'a>(reader: &mut ByteReader<'a>, field: &str) -> Result<&'a [u8], Error> {
        reader.borrow_array(1, field)
    }

    #[inline(always)]
    fn load_le(bytes: &[u8], index: usize) -> Self {
        bytes[index]
    }

    fn copy_le(bytes: &[u8]) -> Vec<Self> {
        bytes.to_vec()
    }
}

impl Fingerprint for u16 {
    const BITS: u32 = 16;
}

impl sealed::Width for u16 {
    const XOR_KIND: FilterKind = FilterKind::Xor16;
    const FUSE_KIND: FilterKind = FilterKind::BinaryFuse16;

    #[inline]
    fn from_hash(mixed: u64) -> Self {
        (mixed ^ (mixed >> 32)) as u16
    }

    fn write_array(writer: &mut ByteWriter, values: &[Self]) {
        writer.u16_array(values);
    }

    fn borrow_array<'a>(reader: &mut ByteReader<'a>, field: &str) -> Result<&'a [u8], Error> {
        reader.borrow_array(2, field)
    }

    #[inline(always)]
    fn load_le(bytes: &[u8], index: usize) -> Self {
        let pair = &bytes[2 * index..2 * index + 2];
        u16::from_le_bytes([pair[0], pair[1]])
    }

    fn copy_le(bytes: &[u8]) -> Vec<Self> {
        bytes
            .chunks_exact(2)
            .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
            .collect()
    }
}
