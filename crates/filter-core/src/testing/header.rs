//! The two header fields that format tests read and forge: the minor
//! version and the flags, at the offsets [`crate::format`] documents. One
//! place for the offsets, so that no test spells them out.

use crate::format::reseal;

/// Where the minor version (u16, little-endian) starts.
const MINOR_AT: usize = 6;
/// Where the flags (u16, little-endian) start.
const FLAGS_AT: usize = 10;

fn field(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

/// The minor format version that `bytes` claim.
///
/// # Panics
///
/// If `bytes` are shorter than the header's first 12 bytes.
pub fn minor(bytes: &[u8]) -> u16 {
    field(bytes, MINOR_AT)
}

/// The header flags of `bytes`.
///
/// # Panics
///
/// As [`minor`].
pub fn flags(bytes: &[u8]) -> u16 {
    field(bytes, FLAGS_AT)
}

/// A copy of `bytes` that claims minor version `minor` and sets exactly
/// `flags`, with its checksum recomputed: a forgery the reader can only
/// refuse by what the header says.
///
/// # Panics
///
/// As [`minor`].
pub fn forged(bytes: &[u8], minor: u16, flags: u16) -> Vec<u8> {
    let mut forged = bytes.to_vec();
    forged[MINOR_AT..MINOR_AT + 2].copy_from_slice(&minor.to_le_bytes());
    forged[FLAGS_AT..FLAGS_AT + 2].copy_from_slice(&flags.to_le_bytes());
    reseal(&mut forged);
    forged
}

/// As [`forged`], keeping the minor version `bytes` claim.
pub fn with_flags(bytes: &[u8], flags: u16) -> Vec<u8> {
    forged(bytes, minor(bytes), flags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HasherProbe;
    use crate::format::{ByteReader, ByteWriter, FORMAT_MINOR, FilterKind};

    #[test]
    fn fields_are_where_the_writer_puts_them() {
        let probe = HasherProbe([1, 2, 3, 4]);
        let bytes = ByteWriter::new(FilterKind::Bloom, &probe, 0).finish();
        assert_eq!((minor(&bytes), flags(&bytes)), (FORMAT_MINOR, 0));
        let forged = forged(&bytes, 3, 4);
        assert_eq!((minor(&forged), flags(&forged)), (3, 4));
        assert!(ByteReader::open(&forged, FilterKind::Bloom, &probe).is_err());
        assert_eq!(flags(&with_flags(&forged, 1)), 1);
        assert_eq!(minor(&with_flags(&forged, 1)), 3);
    }
}
