//! `Serialize` and `Deserialize` (feature `serde`): every filter as its
//! checked bytes, loaded through `from_bytes_with_hasher` with the default
//! of its hasher type, so that a filter read by serde is validated exactly
//! as one read from bytes (checksum, kind, hasher probe, every length).

use filter_core::KeyHasher;
use filter_core::serde_support::{self, serde};

use crate::{
    AtomicBlockedBloomFilter, AtomicBloomFilter, BlockedBloomFilter, BloomFilter,
    ScalableBloomFilter,
};

/// Implements both traits for a filter type with `to_bytes` and
/// `from_bytes_with_hasher`.
macro_rules! bytes_serde {
    ($($filter:ident),* $(,)?) => {$(
        impl<S: KeyHasher> serde::Serialize for $filter<S> {
            fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
                serde_support::serialize(&self.to_bytes(), serializer)
            }
        }

        impl<'de, S: KeyHasher + Default> serde::Deserialize<'de> for $filter<S> {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                serde_support::deserialize(deserializer, |bytes| {
                    $filter::from_bytes_with_hasher(bytes, S::default())
                })
            }
        }
    )*};
}

bytes_serde!(
    BloomFilter,
    BlockedBloomFilter,
    AtomicBloomFilter,
    AtomicBlockedBloomFilter,
    ScalableBloomFilter,
);
