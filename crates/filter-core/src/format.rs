//! The byte format shared by every filter: a writer and a validating reader.
//!
//! ```text
//! offset  size  field
//! 0       4     magic, the ASCII bytes "MFLT"
//! 4       2     format major version (u16), currently 1
//! 6       2     format minor version (u16), currently 6
//! 8       2     filter kind (u16, see FilterKind)
//! 10      2     flags (u16): bit 0 is FLAG_CUBIC_PROBES (1.1), bit 1
//!                    FLAG_MIXED_OFFSETS (1.2), bit 2 FLAG_HASHED_PROBES
//!                    (1.3), bit 3 FLAG_FOLDED_PROBES (1.4), bit 4
//!                    FLAG_FOLDED_PAIR (1.5), bit 5 FLAG_UNIFORM_HASHES
//!                    (1.6); others are 0
//! 12      32    hasher probe: 4 × u64, the hashes of fixed keys under the filter's hasher
//! 44      ...   body: the filter's parameters, then its tables (layout per filter kind)
//! end-8   8     checksum: XXH64 (seed 0) of every byte before it
//! ```
//!
//! All integers are little-endian. Arrays in the body are a u64 element count
//! followed by the elements. `docs/format.md` at the repository root writes the
//! whole format down, body layouts included, for readers in other languages.
//!
//! Why the reader checks so much: `from_bytes` takes bytes from disk or the
//! network. The checksum catches accidents (a flipped bit, a truncated file);
//! the reader's bounds checks catch the rest, including a well-formed checksum
//! over lying contents. Every array length is compared with the bytes actually
//! present *before* anything is allocated, so a header claiming 2^60 words is
//! an error, not an out-of-memory abort.

use crate::{Error, HasherProbe};

/// The first four bytes of every serialized filter.
pub const MAGIC: [u8; 4] = *b"MFLT";
/// The format's major version. Readers refuse other majors.
pub const FORMAT_MAJOR: u16 = 1;
/// The format's minor version. Bytes of any earlier minor of the same major
/// load in this one.
///
/// - 1.0: the first version.
/// - 1.1: adds [`FLAG_CUBIC_PROBES`]. A 1.0 reader refuses bytes that set it
///   (it refuses every flag it does not know), and loads every other 1.1
///   byte string as before.
/// - 1.2: adds [`FLAG_MIXED_OFFSETS`], likewise.
/// - 1.3: adds [`FLAG_HASHED_PROBES`], likewise.
/// - 1.4: adds [`FLAG_FOLDED_PROBES`], likewise.
/// - 1.5: adds [`FLAG_FOLDED_PAIR`], likewise.
/// - 1.6: adds [`FLAG_UNIFORM_HASHES`], likewise.
pub const FORMAT_MINOR: u16 = 6;
/// Header flag, bit 0 (format 1.1): the filter's positions follow
/// [`ProbeSequence::Cubic`](crate::ProbeSequence::Cubic) rather than the
/// linear sequence of format 1.0. Only [`FilterKind::Bloom`] and
/// [`FilterKind::CountingBloom`] may set it.
///
/// Why a flag and not a rule on the table size: bytes written by 1.0 use
/// the linear sequence at every size, and must keep loading with the cells
/// they were built with; a flag also makes a 1.0 reader refuse the new
/// bytes instead of reading them with the wrong positions (a false
/// negative for most members).
pub const FLAG_CUBIC_PROBES: u16 = 1;
/// Header flag, bit 1 (format 1.2): the cuckoo filter's alternate buckets
/// take their offset from [`mix64`](crate::mix64) of the fingerprint rather
/// than from the fingerprint times the golden ratio, as in 1.0 and 1.1.
/// Only [`FilterKind::Cuckoo`] may set it; writers set it for fingerprints
/// of 4 to 6 bits.
///
/// Why: the golden-ratio offsets of consecutive fingerprints are nearly
/// evenly spaced, so with few fingerprint values (4 to 6 bits) the buckets
/// an item can move between form far fewer distinct paths than random
/// offsets give, and at some table sizes inserts met `Full` well before
/// the load they were sized for. Wider fingerprints showed no such failure
/// and keep the cheaper rule. As for [`FLAG_CUBIC_PROBES`], a flag keeps
/// older bytes loading with the buckets they were built with.
pub const FLAG_MIXED_OFFSETS: u16 = 2;
/// Header flag, bit 2 (format 1.3): the filter's positions follow
/// [`ProbeSequence::Hashed`](crate::ProbeSequence::Hashed). Only
/// [`FilterKind::Bloom`] and [`FilterKind::CountingBloom`] may set it, and
/// never together with [`FLAG_CUBIC_PROBES`].
///
/// Why: in tables of a few dozen to a few thousand cells probed many times
/// per key (a handful of keys at rates below about 10^−5), the cubic
/// sequence still lands a query's probes on a few cells often enough to
/// put a floor under the
/// false-positive rate, above the target for a handful of keys (2.2× at
/// 10^−6 with one key, 26× at 10^−8). As for [`FLAG_CUBIC_PROBES`], a flag
/// keeps older bytes loading with the cells they were built with, and makes
/// older readers refuse these bytes.
pub const FLAG_HASHED_PROBES: u16 = 4;
/// Header flag, bit 3 (format 1.4): the filter's positions follow
/// [`ProbeSequence::Folded`](crate::ProbeSequence::Folded), the linear
/// sequence started from a folded product of the hash instead of its
/// [`mix64`](crate::mix64). Only [`FilterKind::Bloom`] and
/// [`FilterKind::CountingBloom`] may set it, and never together with
/// another probe flag.
///
/// Why: the mix sits between the hash and the first load of every lookup,
/// and the folded product gets there in about half the time with the same
/// false-positive rates (see [`crate::probes`]); classic Bloom lookups of
/// 1M keys took 10.2 ns instead of 12.5. As for [`FLAG_CUBIC_PROBES`], a
/// flag keeps older bytes loading with the cells they were built with, and
/// makes older readers refuse these bytes.
pub const FLAG_FOLDED_PROBES: u16 = 8;
/// Header flag, bit 4 (format 1.5): the blocked counting filter takes a
/// key's two words (its two blocks, and the counters in each) from two
/// [`folded_product`](crate::probes::folded_product)s of the hash, of
/// `hash` and of `hash` xor the golden ratio, instead of two
/// [`mix64`](crate::mix64)s, of `hash` and of `hash` plus the golden
/// ratio. Only [`FilterKind::BlockedCountingBloom`] may set it.
///
/// Why: as for [`FLAG_FOLDED_PROBES`], the two words are on the path to
/// both loads of every operation, and two independent products get there
/// sooner than two chains of two multiplies. The old pair also had a flaw
/// for keys hashed by a multiply with the golden ratio: `hash` plus the
/// golden ratio is then the next key's hash, so one key's second word is
/// the next key's first, and the rate measured 1.3× the target at 0.1 %
/// (`counting-bloom`'s docs give the figures). As for
/// [`FLAG_CUBIC_PROBES`], a flag keeps older bytes loading with the
/// counters they were built with, and makes older readers refuse these
/// bytes.
pub const FLAG_FOLDED_PAIR: u16 = 16;
/// Header flag, bit 5 (format 1.6): the filter takes its positions from each
/// hash as it is, without mixing it first: a filter whose hash quality is
/// [`UniformHashes`](crate::UniformHashes) (see
/// [`hash_quality`](crate::hash_quality)). The filters that offer that
/// choice set it; bytes without it are of [`AnyHashes`](crate::AnyHashes).
///
/// Why a flag: the same key has other positions under the two, so bytes must
/// load only as the type that wrote them
/// ([`HashQuality::check_flags`](crate::HashQuality::check_flags)), and
/// older readers, which would mix, must refuse them.
pub const FLAG_UNIFORM_HASHES: u16 = 32;
/// Bytes before the body: magic, versions, kind, flags, probe.
pub const HEADER_BYTES: usize = 44;
/// Bytes after the body: the checksum.
pub const CHECKSUM_BYTES: usize = 8;

/// Which filter a byte string holds. The numbers are part of the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u16)]
pub enum FilterKind {
    /// `bloom::BloomFilter`.
    Bloom = 1,
    /// `bloom::BlockedBloomFilter`.
    BlockedBloom = 2,
    /// `counting_bloom::CountingBloomFilter`.
    CountingBloom = 3,
    /// `cuckoo::CuckooFilter`.
    Cuckoo = 4,
    /// `xor_filter::Xor8`.
    Xor8 = 5,
    /// `xor_filter::Xor16`.
    Xor16 = 6,
    /// `xor_filter::BinaryFuse8`.
    BinaryFuse8 = 7,
    /// `xor_filter::BinaryFuse16`.
    BinaryFuse16 = 8,
    /// `counting_bloom::BlockedCountingBloomFilter`.
    BlockedCountingBloom = 9,
    /// `xor_filter::PartitionedBinaryFuse8` and `PartitionedBinaryFuse16`
    /// (the width is a field of the body), whole or one partition.
    PartitionedBinaryFuse = 15,
}

impl FilterKind {
    const ALL: [FilterKind; 10] = [
        FilterKind::Bloom,
        FilterKind::BlockedBloom,
        FilterKind::CountingBloom,
        FilterKind::Cuckoo,
        FilterKind::Xor8,
        FilterKind::Xor16,
        FilterKind::BinaryFuse8,
        FilterKind::BinaryFuse16,
        FilterKind::BlockedCountingBloom,
        FilterKind::PartitionedBinaryFuse,
    ];

    /// The kind with this format number, if any.
    pub fn from_u16(value: u16) -> Option<FilterKind> {
        FilterKind::ALL.into_iter().find(|k| *k as u16 == value)
    }
}

/// XXH64 with seed 0: the format's checksum.
///
/// A standard, widely implemented hash, so readers in other languages can use
/// a library. Not cryptographic: it detects accidents, not tampering.
pub fn checksum(bytes: &[u8]) -> u64 {
    xxh64::hash(bytes, 0)
}

/// Writes a filter's bytes: header first, then the body fields in the order
/// the filter calls the methods, then the checksum on [`finish`](Self::finish).
#[derive(Debug)]
pub struct ByteWriter {
    buf: Vec<u8>,
}

impl ByteWriter {
    /// Starts a byte string for a filter of `kind` built with a hasher whose
    /// probe is `probe`. `body_bytes` is a capacity hint.
    pub fn new(kind: FilterKind, probe: &HasherProbe, body_bytes: usize) -> Self {
        Self::with_flags(kind, probe, body_bytes, 0)
    }

    /// As [`new`](Self::new), with header `flags` set (for example
    /// [`FLAG_CUBIC_PROBES`]). The reader must be opened with
    /// [`ByteReader::open_with_flags`] allowing them.
    pub fn with_flags(
        kind: FilterKind,
        probe: &HasherProbe,
        body_bytes: usize,
        flags: u16,
    ) -> Self {
        let mut buf = Vec::with_capacity(HEADER_BYTES + body_bytes + CHECKSUM_BYTES);
        buf.extend_from_slice(&MAGIC);
        buf.extend_from_slice(&FORMAT_MAJOR.to_le_bytes());
        buf.extend_from_slice(&FORMAT_MINOR.to_le_bytes());
        buf.extend_from_slice(&(kind as u16).to_le_bytes());
        buf.extend_from_slice(&flags.to_le_bytes());
        for word in probe.0 {
            buf.extend_from_slice(&word.to_le_bytes());
        }
        debug_assert_eq!(buf.len(), HEADER_BYTES);
        ByteWriter { buf }
    }

    /// Appends one byte.
    pub fn u8(&mut self, value: u8) {
        self.buf.push(value);
    }

    /// Appends a little-endian u16.
    pub fn u16(&mut self, value: u16) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    /// Appends a little-endian u32.
    pub fn u32(&mut self, value: u32) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    /// Appends a little-endian u64.
    pub fn u64(&mut self, value: u64) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    /// Appends an f64 as its IEEE-754 bits, little-endian.
    pub fn f64(&mut self, value: f64) {
        self.u64(value.to_bits());
    }

    /// Appends a u64 element count, then the bytes.
    pub fn u8_array(&mut self, values: &[u8]) {
        self.u64(values.len() as u64);
        self.buf.extend_from_slice(values);
    }

    /// Appends a u64 element count, then each element little-endian.
    pub fn u16_array(&mut self, values: &[u16]) {
        self.u64(values.len() as u64);
        values
            .iter()
            .for_each(|v| self.buf.extend_from_slice(&v.to_le_bytes()));
    }

    /// Appends a u64 element count, then each element little-endian.
    pub fn u32_array(&mut self, values: &[u32]) {
        self.u64(values.len() as u64);
        values
            .iter()
            .for_each(|v| self.buf.extend_from_slice(&v.to_le_bytes()));
    }

    /// Appends a u64 element count, then each element little-endian.
    pub fn u64_array(&mut self, values: &[u64]) {
        self.u64(values.len() as u64);
        values
            .iter()
            .for_each(|v| self.buf.extend_from_slice(&v.to_le_bytes()));
    }

    /// Appends the checksum and returns the finished bytes.
    pub fn finish(mut self) -> Vec<u8> {
        let sum = checksum(&self.buf);
        self.buf.extend_from_slice(&sum.to_le_bytes());
        self.buf
    }
}

/// Reads a filter's bytes, validating as it goes.
///
/// [`open`](Self::open) checks everything the header promises (length, magic,
/// version, checksum, kind, flags, hasher probe); each read then checks that
/// its bytes are present; [`finish`](Self::finish) checks that nothing is left
/// over. Every failure is [`Error::Corrupt`] naming the field, except a probe
/// that differs, which is [`Error::HasherMismatch`].
#[derive(Debug)]
pub struct ByteReader<'a> {
    body: &'a [u8],
}

impl<'a> ByteReader<'a> {
    /// Validates the header and checksum of `bytes` for a filter of `kind`
    /// that will be queried with a hasher whose probe is `probe`. Any set
    /// flag is refused.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for anything malformed; [`Error::HasherMismatch`]
    /// when the stored probe differs from `probe`.
    pub fn open(bytes: &'a [u8], kind: FilterKind, probe: &HasherProbe) -> Result<Self, Error> {
        Self::open_with_flags(bytes, kind, probe, 0).map(|(reader, _)| reader)
    }

    /// As [`open`](Self::open), accepting the header flags in `known` and
    /// returning the stored flags with the reader.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open); a flag outside `known`, or any flag in bytes
    /// of format 1.0 (which had none), is [`Error::Corrupt`].
    pub fn open_with_flags(
        bytes: &'a [u8],
        kind: FilterKind,
        probe: &HasherProbe,
        known: u16,
    ) -> Result<(Self, u16), Error> {
        Self::open_checked(bytes, kind, probe, known, true)
    }

    /// As [`open`](Self::open), without the checksum: the header is validated
    /// and the body is read as usual, at a cost independent of the body's
    /// length. For borrowed views of large filters, whose every access is
    /// bounds-checked anyway; [`verify_checksum`] checks the rest when the
    /// caller wants it.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open), except that altered bytes whose header is
    /// still valid are not detected.
    pub fn open_unverified(
        bytes: &'a [u8],
        kind: FilterKind,
        probe: &HasherProbe,
    ) -> Result<Self, Error> {
        Self::open_checked(bytes, kind, probe, 0, false).map(|(reader, _)| reader)
    }

    fn open_checked(
        bytes: &'a [u8],
        kind: FilterKind,
        probe: &HasherProbe,
        known: u16,
        verify: bool,
    ) -> Result<(Self, u16), Error> {
        if bytes.len() < HEADER_BYTES + CHECKSUM_BYTES {
            return Err(Error::corrupt(format_args!(
                "{} bytes is shorter than the {} bytes of header and checksum",
                bytes.len(),
                HEADER_BYTES + CHECKSUM_BYTES
            )));
        }
        if bytes[..4] != MAGIC {
            return Err(Error::corrupt(
                "missing magic \"MFLT\": not a serialized filter",
            ));
        }
        let (content, stored_sum) = bytes.split_at(bytes.len() - CHECKSUM_BYTES);
        let mut header = ByteReader {
            body: &content[4..],
        };
        let major = header.u16("format major version")?;
        let minor = header.u16("format minor version")?;
        if major != FORMAT_MAJOR {
            return Err(Error::corrupt(format_args!(
                "format version {major}.{minor} is not readable by version {FORMAT_MAJOR}.{FORMAT_MINOR}"
            )));
        }
        if verify && checksum(content) != header_u64(stored_sum) {
            return Err(checksum_mismatch());
        }
        let stored_kind = header.u16("filter kind")?;
        if stored_kind != kind as u16 {
            let found = FilterKind::from_u16(stored_kind).map_or_else(
                || format!("unknown kind {stored_kind}"),
                |k| format!("{k:?}"),
            );
            return Err(Error::corrupt(format_args!(
                "expected a {kind:?} filter, found {found}"
            )));
        }
        let flags = header.u16("flags")?;
        if flags & !known != 0 {
            return Err(Error::corrupt(format_args!(
                "unknown flags {:#06x}",
                flags & !known
            )));
        }
        // Format 1.0 had no flags, and its readers refuse any: a byte string
        // that claims 1.0 and sets one was not written by this library.
        // (Accepted, a 1.0 filter flagged cubic would be read with other
        // positions than it was built with: false negatives.)
        if minor == 0 && flags != 0 {
            return Err(Error::corrupt(format_args!(
                "flags {flags:#06x} in format version {major}.0, which has no flags"
            )));
        }
        // Likewise for a flag newer than the version the bytes claim.
        for (flag, since) in [
            (FLAG_MIXED_OFFSETS, 2),
            (FLAG_HASHED_PROBES, 3),
            (FLAG_FOLDED_PROBES, 4),
            (FLAG_FOLDED_PAIR, 5),
            (FLAG_UNIFORM_HASHES, 6),
        ] {
            if minor < since && flags & flag != 0 {
                return Err(Error::corrupt(format_args!(
                    "flag {flag:#06x} in format version {major}.{minor}, which predates it"
                )));
            }
        }
        let mut stored_probe = [0u64; 4];
        for word in &mut stored_probe {
            *word = header.u64("hasher probe")?;
        }
        if HasherProbe(stored_probe) != *probe {
            return Err(Error::HasherMismatch);
        }
        Ok((header, flags))
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.body.len()
    }

    fn take(&mut self, len: usize, field: &str) -> Result<&'a [u8], Error> {
        if self.body.len() < len {
            return Err(Error::corrupt(format_args!(
                "truncated: {field} needs {len} bytes, {} left",
                self.body.len()
            )));
        }
        let (head, tail) = self.body.split_at(len);
        self.body = tail;
        Ok(head)
    }

    /// Reads one byte.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming `field` when no byte is left.
    pub fn u8(&mut self, field: &str) -> Result<u8, Error> {
        Ok(self.take(1, field)?[0])
    }

    /// Reads a little-endian u16.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming `field` when too few bytes are left.
    pub fn u16(&mut self, field: &str) -> Result<u16, Error> {
        let b = self.take(2, field)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// Reads a little-endian u32.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming `field` when too few bytes are left.
    pub fn u32(&mut self, field: &str) -> Result<u32, Error> {
        let b = self.take(4, field)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Reads a little-endian u64.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming `field` when too few bytes are left.
    pub fn u64(&mut self, field: &str) -> Result<u64, Error> {
        Ok(header_u64(self.take(8, field)?))
    }

    /// Reads an f64 stored as its IEEE-754 bits.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming `field` when too few bytes are left.
    pub fn f64(&mut self, field: &str) -> Result<f64, Error> {
        Ok(f64::from_bits(self.u64(field)?))
    }

    /// Reads an element count and checks that `count × width` bytes are
    /// present, before any allocation.
    fn array_bytes(&mut self, width: usize, field: &str) -> Result<&'a [u8], Error> {
        let count = self.u64(field)?;
        let len = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(width))
            .filter(|&len| len <= self.body.len())
            .ok_or_else(|| {
                Error::corrupt(format_args!(
                    "{field} claims {count} elements of {width} bytes, but only {} bytes are left",
                    self.body.len()
                ))
            })?;
        self.take(len, field)
    }

    /// Reads a u64 element count and returns, borrowed, the `count × width`
    /// bytes of the elements that follow (a view's table).
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming `field` when the count exceeds the bytes left.
    pub fn borrow_array(&mut self, width: usize, field: &str) -> Result<&'a [u8], Error> {
        self.array_bytes(width, field)
    }

    /// Reads a u64 element count and that many bytes.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming `field` when the count exceeds the bytes left.
    pub fn u8_array(&mut self, field: &str) -> Result<Vec<u8>, Error> {
        Ok(self.array_bytes(1, field)?.to_vec())
    }

    /// Reads a u64 element count and that many little-endian u16s.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming `field` when the count exceeds the bytes left.
    pub fn u16_array(&mut self, field: &str) -> Result<Vec<u16>, Error> {
        let bytes = self.array_bytes(2, field)?;
        Ok(bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect())
    }

    /// Reads a u64 element count and that many little-endian u32s.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming `field` when the count exceeds the bytes left.
    pub fn u32_array(&mut self, field: &str) -> Result<Vec<u32>, Error> {
        let bytes = self.array_bytes(4, field)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// Reads a u64 element count and that many little-endian u64s.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming `field` when the count exceeds the bytes left.
    pub fn u64_array(&mut self, field: &str) -> Result<Vec<u64>, Error> {
        let bytes = self.array_bytes(8, field)?;
        Ok(bytes.chunks_exact(8).map(header_u64).collect())
    }

    /// Ends reading.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when bytes are left over: a filter's body has an
    /// exact length, so trailing bytes mean the input is not what it claims.
    pub fn finish(self) -> Result<(), Error> {
        if self.body.is_empty() {
            Ok(())
        } else {
            Err(Error::corrupt(format_args!(
                "{} unexpected trailing bytes",
                self.body.len()
            )))
        }
    }
}

fn header_u64(b: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&b[..8]);
    u64::from_le_bytes(word)
}

/// Checks the checksum of a whole byte string (what
/// [`ByteReader::open_unverified`] skips).
///
/// # Errors
///
/// [`Error::Corrupt`] when the string is shorter than a checksum or the
/// checksum differs.
pub fn verify_checksum(bytes: &[u8]) -> Result<(), Error> {
    let split = bytes.len().checked_sub(CHECKSUM_BYTES).ok_or_else(|| {
        Error::corrupt(format_args!(
            "{} bytes is shorter than a checksum",
            bytes.len()
        ))
    })?;
    if checksum(&bytes[..split]) == header_u64(&bytes[split..]) {
        Ok(())
    } else {
        Err(checksum_mismatch())
    }
}

fn checksum_mismatch() -> Error {
    Error::corrupt("checksum mismatch: the bytes were altered, truncated or extended")
}

/// Recomputes the checksum of a (possibly edited) byte string in place, so
/// that tests can check the reader's structural validation rather than only
/// its checksum. Does nothing to strings shorter than a checksum.
pub fn reseal(bytes: &mut [u8]) {
    if bytes.len() >= CHECKSUM_BYTES {
        let split = bytes.len() - CHECKSUM_BYTES;
        let sum = checksum(&bytes[..split]);
        bytes[split..].copy_from_slice(&sum.to_le_bytes());
    }
}

mod xxh64 {
    //! XXH64, written out from the public specification
    //! (github.com/Cyan4973/xxHash, doc/xxhash_spec.md).

    const P1: u64 = 0x9E37_79B1_85EB_CA87;
    const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    const P3: u64 = 0x1656_67B1_9E37_79F9;
    const P4: u64 = 0x85EB_CA77_C2B2_AE63;
    const P5: u64 = 0x27D4_EB2F_1656_67C5;

    fn read_u64(b: &[u8]) -> u64 {
        super::header_u64(b)
    }

    fn round(acc: u64, input: u64) -> u64 {
        acc.wrapping_add(input.wrapping_mul(P2))
            .rotate_left(31)
            .wrapping_mul(P1)
    }

    fn merge(acc: u64, lane: u64) -> u64 {
        (acc ^ round(0, lane)).wrapping_mul(P1).wrapping_add(P4)
    }

    pub(super) fn hash(input: &[u8], seed: u64) -> u64 {
        let mut rest = input;
        let mut h = if input.len() >= 32 {
            let mut v = [
                seed.wrapping_add(P1).wrapping_add(P2),
                seed.wrapping_add(P2),
                seed,
                seed.wrapping_sub(P1),
            ];
            let mut stripes = rest.chunks_exact(32);
            for stripe in &mut stripes {
                for (lane, word) in v.iter_mut().zip(stripe.chunks_exact(8)) {
                    *lane = round(*lane, read_u64(word));
                }
            }
            rest = stripes.remainder();
            let mut h = v[0]
                .rotate_left(1)
                .wrapping_add(v[1].rotate_left(7))
                .wrapping_add(v[2].rotate_left(12))
                .wrapping_add(v[3].rotate_left(18));
            for lane in v {
                h = merge(h, lane);
            }
            h
        } else {
            seed.wrapping_add(P5)
        };
        h = h.wrapping_add(input.len() as u64);
        let mut words = rest.chunks_exact(8);
        for word in &mut words {
            h ^= round(0, read_u64(word));
            h = h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
        }
        rest = words.remainder();
        if rest.len() >= 4 {
            let word = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
            h ^= u64::from(word).wrapping_mul(P1);
            h = h.rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
            rest = &rest[4..];
        }
        for &byte in rest {
            h ^= u64::from(byte).wrapping_mul(P5);
            h = h.rotate_left(11).wrapping_mul(P1);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(P2);
        h ^= h >> 29;
        h = h.wrapping_mul(P3);
        h ^ (h >> 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh64_reference_vectors() {
        // Values from the reference implementation (python-xxhash 3.x).
        assert_eq!(checksum(b""), 0xEF46_DB37_51D8_E999);
        assert_eq!(checksum(b"a"), 0xD24E_C4F1_A98C_6E5B);
        assert_eq!(checksum(b"abc"), 0x44BC_2CF5_AD77_0999);
        let long: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        assert_eq!(checksum(&long), XXH64_0_TO_255_X1000);
    }

    const XXH64_0_TO_255_X1000: u64 = 0x6EF4_36B0_0EBA_4078;

    fn sample() -> Vec<u8> {
        let probe = HasherProbe([1, 2, 3, 4]);
        let mut w = ByteWriter::new(FilterKind::Bloom, &probe, 64);
        w.u8(7);
        w.u16(0xBEEF);
        w.u32(123_456);
        w.u64(u64::MAX - 1);
        w.f64(0.25);
        w.u8_array(&[1, 2, 3]);
        w.u16_array(&[4, 5]);
        w.u32_array(&[6]);
        w.u64_array(&[7, 8, 9]);
        w.finish()
    }

    /// Every field of [`sample`], in order.
    type Sample = (
        u8,
        u16,
        u32,
        u64,
        f64,
        Vec<u8>,
        Vec<u16>,
        Vec<u32>,
        Vec<u64>,
    );

    fn read_sample(bytes: &[u8]) -> Result<Sample, Error> {
        let mut r = ByteReader::open(bytes, FilterKind::Bloom, &HasherProbe([1, 2, 3, 4]))?;
        let fields = (
            r.u8("a")?,
            r.u16("b")?,
            r.u32("c")?,
            r.u64("d")?,
            r.f64("e")?,
            r.u8_array("f")?,
            r.u16_array("g")?,
            r.u32_array("h")?,
            r.u64_array("i")?,
        );
        r.finish()?;
        Ok(fields)
    }

    #[test]
    fn round_trip() {
        let fields = read_sample(&sample()).unwrap();
        let expected = (
            7,
            0xBEEF,
            123_456,
            u64::MAX - 1,
            0.25,
            vec![1, 2, 3],
            vec![4, 5],
            vec![6],
            vec![7, 8, 9],
        );
        assert_eq!(fields, expected);
    }

    #[test]
    fn header_fields_are_where_the_docs_say() {
        let b = sample();
        assert_eq!(&b[0..4], b"MFLT");
        assert_eq!(u16::from_le_bytes([b[4], b[5]]), FORMAT_MAJOR);
        assert_eq!(u16::from_le_bytes([b[8], b[9]]), FilterKind::Bloom as u16);
        assert_eq!(header_u64(&b[12..20]), 1);
        assert_eq!(header_u64(&b[36..44]), 4);
        assert_eq!(
            header_u64(&b[44 + 23..]),
            3,
            "first array count after 23 bytes of scalars"
        );
    }

    #[test]
    fn flags_round_trip_and_only_known_ones_load() {
        let probe = HasherProbe([1, 2, 3, 4]);
        let mut w = ByteWriter::with_flags(FilterKind::Bloom, &probe, 8, FLAG_CUBIC_PROBES);
        w.u64(7);
        let bytes = w.finish();
        let (mut r, flags) =
            ByteReader::open_with_flags(&bytes, FilterKind::Bloom, &probe, FLAG_CUBIC_PROBES)
                .unwrap();
        assert_eq!(flags, FLAG_CUBIC_PROBES);
        assert_eq!(r.u64("x").unwrap(), 7);
        r.finish().unwrap();
        // A reader that does not know the flag (a 1.0 reader, or a filter
        // kind that has no use for it) refuses the bytes.
        let err = ByteReader::open(&bytes, FilterKind::Bloom, &probe).unwrap_err();
        assert!(err.to_string().contains("unknown flags 0x0001"), "{err}");
        // Known flags do not let unknown ones through.
        let mut both = bytes.clone();
        both[10] = 0b11;
        reseal(&mut both);
        let err = ByteReader::open_with_flags(&both, FilterKind::Bloom, &probe, FLAG_CUBIC_PROBES)
            .unwrap_err();
        assert!(err.to_string().contains("unknown flags 0x0002"), "{err}");
        // Format 1.0 bytes cannot set a flag, even one this reader knows.
        let mut old = bytes.clone();
        old[6] = 0;
        reseal(&mut old);
        let err = ByteReader::open_with_flags(&old, FilterKind::Bloom, &probe, FLAG_CUBIC_PROBES)
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("flags 0x0001 in format version 1.0, which has no flags"),
            "{err}"
        );
        // Bytes without flags open with none reported.
        let plain = sample();
        let (_, flags) =
            ByteReader::open_with_flags(&plain, FilterKind::Bloom, &probe, FLAG_CUBIC_PROBES)
                .unwrap();
        assert_eq!(flags, 0);
        // A 1.2 flag in bytes that claim 1.1 is refused even where the kind
        // knows it; claiming 1.2 it loads.
        let mut w = ByteWriter::with_flags(FilterKind::Cuckoo, &probe, 8, FLAG_MIXED_OFFSETS);
        w.u64(7);
        let mut mixed = w.finish();
        let (_, flags) =
            ByteReader::open_with_flags(&mixed, FilterKind::Cuckoo, &probe, FLAG_MIXED_OFFSETS)
                .unwrap();
        assert_eq!(flags, FLAG_MIXED_OFFSETS);
        mixed[6] = 1;
        reseal(&mut mixed);
        let err =
            ByteReader::open_with_flags(&mixed, FilterKind::Cuckoo, &probe, FLAG_MIXED_OFFSETS)
                .unwrap_err();
        assert!(
            err.to_string()
                .contains("flag 0x0002 in format version 1.1, which predates it"),
            "{err}"
        );
        // Likewise the 1.3 to 1.6 flags in bytes that claim the minor
        // before theirs.
        for (flag, since) in [
            (FLAG_HASHED_PROBES, 3),
            (FLAG_FOLDED_PROBES, 4),
            (FLAG_FOLDED_PAIR, 5),
            (FLAG_UNIFORM_HASHES, 6),
        ] {
            let mut w = ByteWriter::with_flags(FilterKind::Bloom, &probe, 8, flag);
            w.u64(7);
            let mut flagged = w.finish();
            let (_, flags) =
                ByteReader::open_with_flags(&flagged, FilterKind::Bloom, &probe, flag).unwrap();
            assert_eq!(flags, flag);
            flagged[6] = since as u8 - 1;
            reseal(&mut flagged);
            let err =
                ByteReader::open_with_flags(&flagged, FilterKind::Bloom, &probe, flag).unwrap_err();
            let expected = format!(
                "flag {flag:#06x} in format version 1.{}, which predates it",
                since - 1
            );
            assert!(err.to_string().contains(&expected), "{err}");
        }
    }

    #[test]
    fn wrong_kind_probe_version_and_flags_are_refused() {
        let b = sample();
        let probe = HasherProbe([1, 2, 3, 4]);
        let err = ByteReader::open(&b, FilterKind::Cuckoo, &probe).unwrap_err();
        assert!(
            err.to_string()
                .contains("expected a Cuckoo filter, found Bloom"),
            "{err}"
        );
        assert_eq!(
            ByteReader::open(&b, FilterKind::Bloom, &HasherProbe([1, 2, 3, 5])).unwrap_err(),
            Error::HasherMismatch
        );
        let mut v2 = b.clone();
        v2[4] = 2;
        reseal(&mut v2);
        let err = ByteReader::open(&v2, FilterKind::Bloom, &probe).unwrap_err();
        let expected = format!("format version 2.{FORMAT_MINOR}");
        assert!(err.to_string().contains(&expected), "{err}");
        let mut flagged = b.clone();
        flagged[10] = 1;
        reseal(&mut flagged);
        assert!(ByteReader::open(&flagged, FilterKind::Bloom, &probe).is_err());
        let mut unknown = b;
        unknown[8] = 99;
        reseal(&mut unknown);
        let err = ByteReader::open(&unknown, FilterKind::Bloom, &probe).unwrap_err();
        assert!(err.to_string().contains("unknown kind 99"), "{err}");
    }

    #[test]
    fn every_kind_round_trips_through_its_number() {
        for kind in FilterKind::ALL {
            assert_eq!(FilterKind::from_u16(kind as u16), Some(kind));
        }
        assert_eq!(
            FilterKind::from_u16(9),
            Some(FilterKind::BlockedCountingBloom)
        );
        assert_eq!(FilterKind::from_u16(0), None);
        assert_eq!(FilterKind::from_u16(10), None);
    }

    #[test]
    fn a_lying_length_is_refused_before_allocating() {
        let probe = HasherProbe([0; 4]);
        let mut w = ByteWriter::new(FilterKind::Xor8, &probe, 16);
        w.u64(1 << 60);
        let bytes = w.finish();
        let mut r = ByteReader::open(&bytes, FilterKind::Xor8, &probe).unwrap();
        let err = r.u64_array("fingerprints").unwrap_err();
        assert!(
            err.to_string()
                .contains("claims 1152921504606846976 elements"),
            "{err}"
        );
        let mut r = ByteReader::open(&bytes, FilterKind::Xor8, &probe).unwrap();
        assert!(r.u8_array("bytes").is_err());
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let probe = HasherProbe([0; 4]);
        let mut w = ByteWriter::new(FilterKind::Xor8, &probe, 16);
        w.u32(5);
        let bytes = w.finish();
        let r = ByteReader::open(&bytes, FilterKind::Xor8, &probe).unwrap();
        assert!(
            r.finish()
                .unwrap_err()
                .to_string()
                .contains("4 unexpected trailing bytes")
        );
    }

    quickcheck::quickcheck! {
        fn every_truncation_is_refused(cut: usize) -> bool {
            let b = sample();
            let cut = cut % b.len();
            read_sample(&b[..cut]).is_err()
        }

        fn every_bit_flip_is_refused(bit: usize) -> bool {
            let mut b = sample();
            let bit = bit % (b.len() * 8);
            b[bit / 8] ^= 1 << (bit % 8);
            read_sample(&b).is_err()
        }

        fn every_resealed_truncation_is_refused(cut: usize) -> bool {
            // The checksum is valid, so only the structural checks stand
            // between a short body and a wrong read.
            let b = sample();
            let cut = HEADER_BYTES + CHECKSUM_BYTES + cut % (b.len() - HEADER_BYTES - CHECKSUM_BYTES);
            let mut short = b[..cut - CHECKSUM_BYTES].to_vec();
            short.extend_from_slice(&[0; CHECKSUM_BYTES]);
            reseal(&mut short);
            read_sample(&short).is_err()
        }

        fn every_lying_array_length_is_refused(claim: u64) -> bool {
            // Rewrite the first array's count (offset 44 + 23) to any other
            // value, reseal, and read: the reader must refuse, not allocate.
            let mut b = sample();
            let at = HEADER_BYTES + 23;
            if claim == 3 { return true; }
            b[at..at + 8].copy_from_slice(&claim.to_le_bytes());
            reseal(&mut b);
            read_sample(&b).is_err()
        }
    }
}
