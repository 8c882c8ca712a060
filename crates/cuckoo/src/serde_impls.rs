//! The `serde` feature: a filter serializes as the bytes of its
//! `to_bytes`, and deserializes through `from_bytes_with_hasher` with the
//! hasher's default, so a filter loaded by serde is validated exactly as
//! one loaded from bytes (checksum, kind, hasher probe, every length).

use filter_core::KeyHasher;
use filter_core::serde_support::{self, serde};

use crate::{CuckooFilter, ScalableCuckooFilter};

impl<S: KeyHasher> serde::Serialize for CuckooFilter<S> {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serde_support::serialize(&self.to_bytes(), serializer)
    }
}

impl<'de, S: KeyHasher + Default> serde::Deserialize<'de> for CuckooFilter<S> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_support::deserialize(deserializer, |bytes| {
            CuckooFilter::from_bytes_with_hasher(bytes, S::default())
        })
    }
}

impl<S: KeyHasher> serde::Serialize for ScalableCuckooFilter<S> {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serde_support::serialize(&self.to_bytes(), serializer)
    }
}

impl<'de, S: KeyHasher + Default> serde::Deserialize<'de> for ScalableCuckooFilter<S> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_support::deserialize(deserializer, |bytes| {
            ScalableCuckooFilter::from_bytes_with_hasher(bytes, S::default())
        })
    }
}
