//! What the filter crates' `serde` features share: a filter serializes as
//! the bytes of its `to_bytes`, and deserializes through its `from_bytes`,
//! so a filter loaded by serde is validated exactly as one loaded from
//! bytes (checksum, kind, hasher probe, every length).
//!
//! A filter crate implements `Serialize` and `Deserialize` with
//! [`serialize`] and [`deserialize`]:
//!
//! ```
//! # use filter_core::{Error, serde_support};
//! # #[derive(Debug, PartialEq)]
//! struct Tiny(Vec<u8>);
//! impl Tiny {
//!     fn to_bytes(&self) -> Vec<u8> { self.0.clone() }
//!     fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
//!         if bytes.is_empty() { Err(Error::corrupt("empty")) } else { Ok(Tiny(bytes.to_vec())) }
//!     }
//! }
//! impl serde::Serialize for Tiny {
//!     fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
//!         serde_support::serialize(&self.to_bytes(), s)
//!     }
//! }
//! impl<'de> serde::Deserialize<'de> for Tiny {
//!     fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
//!         serde_support::deserialize(d, Tiny::from_bytes)
//!     }
//! }
//! let json = serde_json::to_string(&Tiny(vec![1, 2])).unwrap();
//! assert_eq!(serde_json::from_str::<Tiny>(&json).unwrap(), Tiny(vec![1, 2]));
//! assert!(serde_json::from_str::<Tiny>("[]").is_err());
//! ```

use std::fmt;

use serde::de::{self, SeqAccess, Visitor};

use crate::Error;

/// The `serde` crate, for the filter crates' impls.
pub use serde;

/// Serializes a filter's checked bytes (`to_bytes`) as a byte string.
///
/// # Errors
///
/// Whatever `serializer` returns.
pub fn serialize<S: serde::Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_bytes(bytes)
}

/// Deserializes a byte string (or a sequence of bytes, as JSON writes
/// them) and loads it with `from_bytes`.
///
/// # Errors
///
/// What `deserializer` returns, and every error `from_bytes` returns, as a
/// custom error carrying its message.
pub fn deserialize<'de, D, F>(
    deserializer: D,
    from_bytes: impl FnOnce(&[u8]) -> Result<F, Error>,
) -> Result<F, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let bytes = deserializer.deserialize_byte_buf(BytesVisitor)?;
    from_bytes(&bytes).map_err(de::Error::custom)
}

/// Accepts a byte string in any of the shapes serde formats give one.
struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the bytes of a serialized filter")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
        // The size hint comes from the input: cap it so that a lying hint
        // cannot allocate more than the bytes actually present.
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        while let Some(byte) = seq.next_element::<u8>()? {
            bytes.push(byte);
        }
        Ok(bytes)
    }
}
