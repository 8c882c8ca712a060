//! The `BloomFilterHeader` that precedes an SBBF's bitset in a Parquet file,
//! in Thrift's compact protocol.
//!
//! ```text
//! struct BloomFilterHeader {
//!   1: required i32 numBytes;                        // the bitset's length
//!   2: required BloomFilterAlgorithm algorithm;      // union { 1: SplitBlockAlgorithm BLOCK }
//!   3: required BloomFilterHash hash;                // union { 1: XxHash XXHASH }
//!   4: required BloomFilterCompression compression;  // union { 1: Uncompressed UNCOMPRESSED }
//! }
//! ```
//!
//! Every writer emits the same fifteen or so bytes (the field headers, a
//! zigzag varint for `numBytes`, and three unions each holding an empty
//! struct), but a reader must accept what the protocol allows: fields in
//! any order, field ids as deltas or in full, and fields it does not know,
//! which it skips. This module reads that much of the compact protocol
//! (every type, nested at most [`MAX_DEPTH`] deep, every length checked
//! against the bytes left) and no more. Why not a Thrift dependency: the
//! header is four fields, and reading it needs about a hundred lines; a
//! Thrift crate would be most of this feature's dependency weight.

use filter_core::Error;

/// How deeply structs, lists and maps may nest inside the header before it
/// is refused: the real header nests two deep, and a limit keeps hostile
/// bytes from exhausting the stack.
pub(crate) const MAX_DEPTH: usize = 16;

// Compact-protocol type codes.
const STOP: u8 = 0;
const BOOL_TRUE: u8 = 1;
const BOOL_FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;

fn corrupt(reason: impl std::fmt::Display) -> Error {
    Error::corrupt(format_args!("Parquet BloomFilterHeader: {reason}"))
}

/// A cursor over the header's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, Error> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| corrupt(format_args!("truncated at byte {}", self.at)))?;
        self.at += 1;
        Ok(b)
    }

    fn skip(&mut self, n: u64) -> Result<(), Error> {
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err(corrupt(format_args!(
                "a field of {n} bytes at byte {} runs past the end ({left} bytes left)",
                self.at
            )));
        }
        // n ≤ left, a usize.
        self.at += usize::try_from(n).unwrap_or(usize::MAX);
        Ok(())
    }

    /// An unsigned LEB128 varint of at most 64 bits.
    fn varint(&mut self) -> Result<u64, Error> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            let part = u64::from(b & 0x7f);
            if shift == 63 && part > 1 {
                return Err(corrupt("a varint overflows 64 bits"));
            }
            value |= part << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(corrupt("a varint is longer than 10 bytes"))
    }

    /// A zigzag-encoded i32.
    fn i32(&mut self) -> Result<i32, Error> {
        let raw = u32::try_from(self.varint()?).map_err(|_| corrupt("an i32 overflows 32 bits"))?;
        let magnitude = i32::try_from(raw >> 1).unwrap_or(i32::MAX);
        Ok(if raw & 1 == 0 {
            magnitude
        } else {
            -magnitude - 1
        })
    }

    /// The next field's (type, id) of a struct whose last field id was
    /// `last`, or `None` at the struct's end.
    fn field(&mut self, last: i16) -> Result<Option<(u8, i16)>, Error> {
        let b = self.byte()?;
        let kind = b & 0x0f;
        if kind == STOP {
            return Ok(None);
        }
        let delta = b >> 4;
        let id = if delta == 0 {
            let zigzag = self.varint()?;
            let raw = u16::try_from(zigzag).map_err(|_| corrupt("a field id overflows 16 bits"))?;
            let magnitude = i16::try_from(raw >> 1).unwrap_or(i16::MAX);
            if raw & 1 == 0 {
                magnitude
            } else {
                -magnitude - 1
            }
        } else {
            last.checked_add(i16::from(delta))
                .ok_or_else(|| corrupt("a field id overflows 16 bits"))?
        };
        Ok(Some((kind, id)))
    }

    /// Skips one value of compact type `kind`.
    fn skip_value(&mut self, kind: u8, depth: usize) -> Result<(), Error> {
        if depth > MAX_DEPTH {
            return Err(corrupt(format_args!("nested more than {MAX_DEPTH} deep")));
        }
        match kind {
            BOOL_TRUE | BOOL_FALSE => Ok(()),
            BYTE => self.skip(1),
            I16 | I32 | I64 => self.varint().map(drop),
            DOUBLE => self.skip(8),
            BINARY => {
                let len = self.varint()?;
                self.skip(len)
            }
            LIST | SET => {
                let b = self.byte()?;
                let count = match b >> 4 {
                    15 => self.varint()?,
                    short => u64::from(short),
                };
                self.skip_elements(count, b & 0x0f, depth)
            }
            MAP => {
                let count = self.varint()?;
                if count == 0 {
                    return Ok(());
                }
                let types = self.byte()?;
                for _ in 0..self.bounded(count)? {
                    self.skip_element(types >> 4, depth + 1)?;
                    self.skip_element(types & 0x0f, depth + 1)?;
                }
                Ok(())
            }
            STRUCT => {
                let mut last = 0;
                while let Some((kind, id)) = self.field(last)? {
                    self.skip_value(kind, depth + 1)?;
                    last = id;
                }
                Ok(())
            }
            other => Err(corrupt(format_args!("unknown compact type {other}"))),
        }
    }

    /// A collection's element count, refused if it cannot fit in the bytes
    /// left: in the compact protocol every element of a list, set or map
    /// takes at least one byte, so a larger count is a lie, and the loops
    /// over elements stay as short as the input.
    fn bounded(&self, count: u64) -> Result<u64, Error> {
        let left = (self.bytes.len() - self.at) as u64;
        if count > left {
            return Err(corrupt(format_args!(
                "a collection of {count} elements at byte {} cannot fit in {left} bytes",
                self.at
            )));
        }
        Ok(count)
    }

    fn skip_elements(&mut self, count: u64, kind: u8, depth: usize) -> Result<(), Error> {
        for _ in 0..self.bounded(count)? {
            self.skip_element(kind, depth + 1)?;
        }
        Ok(())
    }

    /// In collections a boolean is one byte, unlike in a field header.
    fn skip_element(&mut self, kind: u8, depth: usize) -> Result<(), Error> {
        match kind {
            BOOL_TRUE | BOOL_FALSE => self.skip(1),
            other => self.skip_value(other, depth),
        }
    }

    /// Reads a union field (a struct with one field set) and returns the
    /// id of the field that is set; skips that field's value.
    fn union(&mut self, name: &str, depth: usize) -> Result<i16, Error> {
        let mut set = None;
        let mut last = 0;
        while let Some((kind, id)) = self.field(last)? {
            if set.replace(id).is_some() {
                return Err(corrupt(format_args!("{name} sets more than one member")));
            }
            self.skip_value(kind, depth + 1)?;
            last = id;
        }
        set.ok_or_else(|| corrupt(format_args!("{name} sets no member")))
    }
}

/// Reads the header at the front of `bytes` and returns the bitset's
/// length in bytes and the header's own length.
pub(crate) fn read(bytes: &[u8]) -> Result<(usize, usize), Error> {
    let mut r = Reader { bytes, at: 0 };
    let (mut num_bytes, mut algorithm, mut hash, mut compression) = (None, None, None, None);
    let mut last = 0;
    while let Some((kind, id)) = r.field(last)? {
        match (id, kind) {
            (1, I32) => num_bytes = Some(r.i32()?),
            (2, STRUCT) => algorithm = Some(r.union("algorithm", 1)?),
            (3, STRUCT) => hash = Some(r.union("hash", 1)?),
            (4, STRUCT) => compression = Some(r.union("compression", 1)?),
            (1..=4, other) => {
                return Err(corrupt(format_args!("field {id} has compact type {other}")));
            }
            _ => r.skip_value(kind, 1)?,
        }
        last = id;
    }
    let missing = |name| corrupt(format_args!("the required field {name} is missing"));
    let num_bytes = num_bytes.ok_or_else(|| missing("numBytes"))?;
    let members = [
        (
            "algorithm",
            algorithm.ok_or_else(|| missing("algorithm"))?,
            "BLOCK",
        ),
        ("hash", hash.ok_or_else(|| missing("hash"))?, "XXHASH"),
        (
            "compression",
            compression.ok_or_else(|| missing("compression"))?,
            "UNCOMPRESSED",
        ),
    ];
    for (name, id, known) in members {
        if id != 1 {
            return Err(corrupt(format_args!(
                "{name} is member {id}, which this reader does not know (only 1, {known}, exists)"
            )));
        }
    }
    let num_bytes = usize::try_from(num_bytes)
        .map_err(|_| corrupt(format_args!("numBytes is negative ({num_bytes})")))?;
    Ok((num_bytes, r.at))
}

/// The header every writer emits for a bitset of `num_bytes` bytes.
pub(crate) fn write(num_bytes: i32, out: &mut Vec<u8>) {
    out.push(0x15); // field 1, i32
    let zigzag = u32::from_ne_bytes(((num_bytes << 1) ^ (num_bytes >> 31)).to_ne_bytes());
    let mut v = zigzag;
    while v >= 0x80 {
        // Truncation intended: seven bits at a time.
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    // Fields 2, 3 and 4: a union whose member 1 is an empty struct.
    for _ in 0..3 {
        out.extend_from_slice(&[0x1c, 0x1c, 0x00, 0x00]);
    }
    out.push(0x00);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_what_every_writer_writes_and_reads_it_back() {
        let mut out = Vec::new();
        write(1024, &mut out);
        assert_eq!(
            out,
            [
                0x15, 0x80, 0x10, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0
            ]
        );
        assert_eq!(read(&out), Ok((1024, out.len())));
    }

    #[test]
    fn accepts_what_the_protocol_allows() {
        // Fields out of order, long-form field ids, and an unknown field
        // (id 9: a list of two strings) that is skipped.
        let bytes = [
            0x0c, 0x04, 0x1c, 0, 0, // field 2 (long form), algorithm BLOCK
            0x0c, 0x08, 0x1c, 0, 0, // field 4 (long form), compression UNCOMPRESSED
            0x0c, 0x06, 0x1c, 0, 0, // field 3 (long form), hash XXHASH
            0x69, 0x28, 1, b'a', 1, b'b', // field 9 (delta 6): list<binary> of 2
            0x05, 0x02, 0x40, // field 1 (long form): numBytes = 32
            0x00,
        ];
        assert_eq!(read(&bytes), Ok((32, bytes.len())));
    }

    #[test]
    fn refuses_a_known_field_of_the_wrong_type() {
        let bytes = [0x1c, 0x00, 0x00]; // field 1 as a struct
        assert!(
            read(&bytes)
                .unwrap_err()
                .to_string()
                .contains("field 1 has compact type 12")
        );
    }

    #[test]
    fn refuses_unknown_members_and_missing_fields() {
        let mut out = Vec::new();
        write(32, &mut out);
        let mut other_hash = out.clone();
        other_hash[7] = 0x2c; // hash member 2
        assert!(
            read(&other_hash)
                .unwrap_err()
                .to_string()
                .contains("hash is member 2")
        );
        let no_compression = [0x15, 0x40, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0];
        assert!(
            read(&no_compression)
                .unwrap_err()
                .to_string()
                .contains("compression")
        );
        for cut in 0..out.len() {
            assert!(read(&out[..cut]).is_err(), "{cut}");
        }
    }

    #[test]
    fn refuses_deep_nesting_and_lying_lengths() {
        let mut deep = vec![0x9c]; // field 9, struct
        deep.extend(std::iter::repeat_n(0x1c, 100));
        assert!(read(&deep).is_err());
        let huge_binary = [0x98, 0xff, 0xff, 0xff, 0xff, 0x0f];
        assert!(read(&huge_binary).is_err());
        let huge_list = [0x99, 0xf8, 0xff, 0xff, 0xff, 0xff, 0x0f];
        assert!(read(&huge_list).is_err());
        let long_varint = [
            0x15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ];
        assert!(read(&long_varint).is_err());
    }
}
