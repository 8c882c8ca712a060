//! The `serde` feature: every owned filter serializes as the bytes of its
//! `to_bytes` and deserializes through `from_bytes_with_hasher` (with
//! `S::default()`), so a filter loaded by serde is validated exactly as one
//! loaded from bytes: checksum, kind, hasher probe and every length. Views
//! borrow their bytes and are not deserialized; serialize the owned filter
//! or write the bytes themselves.

use filter_core::KeyHasher;
use filter_core::serde_support::{self, serde};

use crate::fingerprint::Fingerprint;
use crate::{BinaryFuse, BinaryFusePartition, PartitionedBinaryFuse, Xor};

macro_rules! serde_via_bytes {
    ($name:ident) => {
        impl<F: Fingerprint, S: KeyHasher> serde::Serialize for $name<F, S> {
            fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
                serde_support::serialize(&self.to_bytes(), serializer)
            }
        }

        impl<'de, F: Fingerprint, S: KeyHasher + Default> serde::Deserialize<'de> for $name<F, S> {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                serde_support::deserialize(deserializer, |bytes| {
                    Self::from_bytes_with_hasher(bytes, S::default())
                })
            }
        }
    };
}

serde_via_bytes!(Xor);
serde_via_bytes!(BinaryFuse);
serde_via_bytes!(PartitionedBinaryFuse);
serde_via_bytes!(BinaryFusePartition);
