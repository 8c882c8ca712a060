//! The byte format shared by every filter: a writer and a validating reader.
//!
//! ```text
//! offset  size  field
//! 0       4     magic, the ASCII bytes "MFLT"
//! 4       2     format major version (u16), currently 1
//! 6       2     format minor version (u16), currently 0
//! 8       2     filter kind (u16, see FilterKind)
//! 10      2     flags (u16): reserved, 0 in format 1.0
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

/// Whether `bytes` end in the checksum of everything before them: the
/// check [`ByteReader::open`] makes, as a call of its own for views that
/// skip it when they open (it reads every byte).
pub fn verify_checksum(bytes: &[u8]) -> bool {
    bytes.len() >= CHECKSUM_BYTES && {
        let split = bytes.len() - CHECKSUM_BYTES;
        checksum(&bytes[..split]) == header_u64(&bytes[split..])
    }
}

/// The first four bytes of every serialized filter.
pub const MAGIC: [u8; 4] = *b"MFLT";
/// The format's major version. Readers refuse other majors.
pub const FORMAT_MAJOR: u16 = 1;
/// The format's minor version. Bytes of any earlier minor of the same major
/// load in every later one.
///
/// - 1.0: the first released version.
pub const FORMAT_MINOR: u16 = 0;
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
    /// `bloom::ScalableBloomFilter`.
    ScalableBloom = 10,
    /// `cuckoo::ScalableCuckooFilter`.
    ScalableCuckoo = 11,
    /// `counting_bloom::DLeftCountingBloomFilter`.
    DLeftCountingBloom = 12,
    /// `quotient_filter::QuotientFilter`.
    Quotient = 13,
    /// `xor_filter::Ribbon`.
    Ribbon = 14,
    /// `xor_filter::PartitionedBinaryFuse8` and `PartitionedBinaryFuse16`
    /// (the width is a field of the body), whole or one partition.
    PartitionedBinaryFuse = 15,
}

impl FilterKind {
    const ALL: [FilterKind; 15] = [
        FilterKind::Bloom,
        FilterKind::BlockedBloom,
        FilterKind::CountingBloom,
        FilterKind::Cuckoo,
        FilterKind::Xor8,
        FilterKind::Xor16,
        FilterKind::BinaryFuse8,
        FilterKind::BinaryFuse16,
        FilterKind::BlockedCountingBloom,
        FilterKind::ScalableBloom,
        FilterKind::ScalableCuckoo,
        FilterKind::DLeftCountingBloom,
        FilterKind::Quotient,
        FilterKind::Ribbon,
        FilterKind::PartitionedBinaryFuse,
    ];

    /// The kind with this format number, if any.
    pub fn from_u16(value: u16) -> Option<FilterKind> {
        FilterKind::ALL.into_iter().find(|k| *k as u16 == value)
    }

    /// The name of the type that writes this kind, for messages.
    pub fn type_name(self) -> &'static str {
        match self {
            FilterKind::Bloom => "BloomFilter",
            FilterKind::BlockedBloom => "BlockedBloomFilter",
            FilterKind::CountingBloom => "CountingBloomFilter",
            FilterKind::Cuckoo => "CuckooFilter",
            FilterKind::Xor8 => "Xor8",
            FilterKind::Xor16 => "Xor16",
            FilterKind::BinaryFuse8 => "BinaryFuse8",
            FilterKind::BinaryFuse16 => "BinaryFuse16",
            FilterKind::BlockedCountingBloom => "BlockedCountingBloomFilter",
            FilterKind::ScalableBloom => "ScalableBloomFilter",
            FilterKind::ScalableCuckoo => "ScalableCuckooFilter",
            FilterKind::DLeftCountingBloom => "DLeftCountingBloomFilter",
            FilterKind::Quotient => "QuotientFilter",
            FilterKind::Ribbon => "Ribbon",
            FilterKind::PartitionedBinaryFuse => "PartitionedBinaryFuse",
        }
    }
}

/// XXH64 with seed 0: the format's checksum.
///
/// A standard, widely implemented hash, so readers in other languages can use
/// a library. Not cryptographic: it detects accidents, not tampering.
pub fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh64::xxh64(bytes, 0)
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
        let mut buf = Vec::with_capacity(HEADER_BYTES + body_bytes + CHECKSUM_BYTES);
        buf.extend_from_slice(&MAGIC);
        buf.extend_from_slice(&FORMAT_MAJOR.to_le_bytes());
        buf.extend_from_slice(&FORMAT_MINOR.to_le_bytes());
        buf.extend_from_slice(&(kind as u16).to_le_bytes());
        buf.extend_from_slice(&0u16.to_le_bytes());
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

    /// Appends a byte limit as a u64: `usize::MAX`, which means none, as
    /// `u64::MAX` on every target, so that a 32-bit writer's "none" reads
    /// as none on a 64-bit host (and is written as the same bytes).
    pub fn byte_limit(&mut self, limit: usize) {
        self.u64(if limit == usize::MAX {
            u64::MAX
        } else {
            limit as u64
        });
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
    /// that will be queried with a hasher whose probe is `probe`.
    ///
    /// # Errors
    ///
    /// [`Error::WrongKind`] for valid bytes of another filter kind;
    /// [`Error::HasherMismatch`] when the stored probe differs from `probe`;
    /// [`Error::Corrupt`] for anything else malformed.
    pub fn open(bytes: &'a [u8], kind: FilterKind, probe: &HasherProbe) -> Result<Self, Error> {
        let (header, _) = Self::open_any(bytes, kind)?;
        let mut header = header;
        let mut stored_probe = [0u64; 4];
        for word in &mut stored_probe {
            *word = header.u64("hasher probe")?;
        }
        if HasherProbe(stored_probe) != *probe {
            return Err(Error::HasherMismatch);
        }
        Ok(header)
    }

    /// As [`open`](Self::open) without the hasher check: validates
    /// everything but the probe, and returns the reader positioned at the
    /// probe with the probe itself. For containers whose parts share one
    /// hasher (the scalable filters) and for views that check the probe
    /// themselves.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open), but never [`Error::HasherMismatch`].
    pub fn open_unchecked_probe(
        bytes: &'a [u8],
        kind: FilterKind,
    ) -> Result<(Self, HasherProbe), Error> {
        let (mut header, _) = Self::open_any(bytes, kind)?;
        let mut stored_probe = [0u64; 4];
        for word in &mut stored_probe {
            *word = header.u64("hasher probe")?;
        }
        Ok((header, HasherProbe(stored_probe)))
    }

    /// As [`open`](Self::open) without the checksum: [`check_header`](Self::check_header),
    /// the probe, and a reader over the body, at a cost independent of the
    /// body's length. For views, which leave the checksum to
    /// [`verify_checksum`].
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open), but altered bytes whose header is still
    /// valid are not detected.
    pub fn open_unverified(
        bytes: &'a [u8],
        kind: FilterKind,
        probe: &HasherProbe,
    ) -> Result<Self, Error> {
        Self::check_header(bytes, kind)?;
        let mut header = ByteReader {
            body: &bytes[12..bytes.len() - CHECKSUM_BYTES],
        };
        let mut stored_probe = [0u64; 4];
        for word in &mut stored_probe {
            *word = header.u64("hasher probe")?;
        }
        if HasherProbe(stored_probe) != *probe {
            return Err(Error::HasherMismatch);
        }
        Ok(header)
    }

    /// Checks length, magic, version, checksum, kind and flags; returns the
    /// reader positioned at the probe.
    fn open_any(bytes: &'a [u8], kind: FilterKind) -> Result<(Self, ()), Error> {
        // The checksum before the kind and flags, so that a flipped bit in
        // the kind field reads as damage (`Corrupt`), not as another kind.
        Self::check_envelope(bytes)?;
        let content = &bytes[..bytes.len() - CHECKSUM_BYTES];
        let expected_sum = header_u64(&bytes[bytes.len() - CHECKSUM_BYTES..]);
        if checksum(content) != expected_sum {
            return Err(Error::corrupt(
                "checksum mismatch: the bytes were altered, truncated or extended",
            ));
        }
        Self::check_header(bytes, kind)?;
        Ok((
            ByteReader {
                body: &content[12..],
            },
            (),
        ))
    }

    /// Checks what the first 12 bytes promise (length, magic, version, kind,
    /// flags) without reading the rest: cheap at any size, for views that
    /// leave the checksum to a call of its own ([`verify_checksum`]).
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open), but never [`Error::HasherMismatch`], and
    /// the checksum is not checked.
    pub fn check_header(bytes: &[u8], kind: FilterKind) -> Result<(), Error> {
        Self::check_envelope(bytes)?;
        let field = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let (major, minor, stored_kind, flags) = (field(4), field(6), field(8), field(10));
        if stored_kind != kind as u16 {
            return Err(match FilterKind::from_u16(stored_kind) {
                Some(found) => Error::WrongKind {
                    expected: kind.type_name(),
                    found: found.type_name(),
                },
                None => Error::corrupt(format_args!(
                    "unknown filter kind {stored_kind} (expected a {})",
                    kind.type_name()
                )),
            });
        }
        if flags != 0 {
            return Err(Error::corrupt(format_args!(
                "flags {flags:#06x} are set; format {major}.{minor} reserves them and they must be 0"
            )));
        }
        Ok(())
    }

    /// Length, magic and major version: what every reader checks first.
    fn check_envelope(bytes: &[u8]) -> Result<(), Error> {
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
        let field = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let (major, minor) = (field(4), field(6));
        if major != FORMAT_MAJOR {
            return Err(Error::corrupt(format_args!(
                "format version {major}.{minor} is not readable by version {FORMAT_MAJOR}.{FORMAT_MINOR}"
            )));
        }
        Ok(())
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

    /// Reads a byte limit written by [`ByteWriter::byte_limit`]: `u64::MAX`
    /// (none), or any limit this target cannot address, is `usize::MAX`.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming `field` when too few bytes are left.
    pub fn byte_limit(&mut self, field: &str) -> Result<usize, Error> {
        Ok(usize::try_from(self.u64(field)?).unwrap_or(usize::MAX))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_limits_are_the_same_bytes_on_every_target() {
        let probe = HasherProbe([1, 2, 3, 4]);
        let mut w = ByteWriter::new(FilterKind::Bloom, &probe, 16);
        w.byte_limit(usize::MAX);
        w.byte_limit(4096);
        let bytes = w.finish();
        let body = &bytes[HEADER_BYTES..bytes.len() - CHECKSUM_BYTES];
        assert_eq!(body[..8], [0xFF; 8]);
        assert_eq!(body[8..], 4096u64.to_le_bytes());
        let mut r = ByteReader::open(&bytes, FilterKind::Bloom, &probe).unwrap();
        assert_eq!(r.byte_limit("none").unwrap(), usize::MAX);
        assert_eq!(r.byte_limit("limit").unwrap(), 4096);
        assert!(r.byte_limit("past the end").is_err());
    }

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
    fn set_flags_and_other_kinds_are_refused_by_name() {
        let probe = HasherProbe([1, 2, 3, 4]);
        let mut flagged = sample();
        flagged[10] = 1;
        reseal(&mut flagged);
        let err = ByteReader::open(&flagged, FilterKind::Bloom, &probe).unwrap_err();
        assert!(err.to_string().contains("flags 0x0001 are set"), "{err}");
        let err = ByteReader::open(&sample(), FilterKind::Cuckoo, &probe).unwrap_err();
        assert_eq!(
            err,
            Error::WrongKind {
                expected: "CuckooFilter",
                found: "BloomFilter"
            }
        );
        let mut unknown = sample();
        unknown[8] = 200;
        reseal(&mut unknown);
        let err = ByteReader::open(&unknown, FilterKind::Bloom, &probe).unwrap_err();
        assert!(err.to_string().contains("unknown filter kind 200"), "{err}");
        assert!(verify_checksum(&sample()));
        assert!(!verify_checksum(&flagged[..flagged.len() - 1]));
        let (_, stored) = ByteReader::open_unchecked_probe(&sample(), FilterKind::Bloom).unwrap();
        assert_eq!(stored, probe);
    }

    #[test]
    fn wrong_kind_probe_version_and_flags_are_refused() {
        let b = sample();
        let probe = HasherProbe([1, 2, 3, 4]);
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
        assert!(err.to_string().contains("unknown filter kind 99"), "{err}");
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
        assert_eq!(FilterKind::from_u16(14), Some(FilterKind::Ribbon));
        assert_eq!(FilterKind::from_u16(16), None);
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
