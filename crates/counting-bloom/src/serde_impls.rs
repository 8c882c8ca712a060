//! `Serialize` and `Deserialize` (feature `serde`): a filter is its checked
//! bytes ([`to_bytes`](crate::CountingBloomFilter::to_bytes)), so a filter
//! loaded by serde is validated exactly as one loaded by `from_bytes`:
//! checksum, kind, hasher probe, every length. A filter deserializes under
//! its hasher type's default (`S::default()`), as `from_bytes` does under
//! the default hasher; bytes written under another seed are refused.

use filter_core::KeyHasher;
use filter_core::serde_support::{self, serde};

use crate::{BlockedCountingBloomFilter, CountingBloomFilter};

impl<S: KeyHasher> serde::Serialize for CountingBloomFilter<S> {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serde_support::serialize(&self.to_bytes(), serializer)
    }
}

impl<'de, S: KeyHasher + Default> serde::Deserialize<'de> for CountingBloomFilter<S> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_support::deserialize(deserializer, |bytes| {
            Self::from_bytes_with_hasher(bytes, S::default())
        })
    }
}

impl<S: KeyHasher> serde::Serialize for BlockedCountingBloomFilter<S> {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serde_support::serialize(&self.to_bytes(), serializer)
    }
}

impl<'de, S: KeyHasher + Default> serde::Deserialize<'de> for BlockedCountingBloomFilter<S> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_support::deserialize(deserializer, |bytes| {
            Self::from_bytes_with_hasher(bytes, S::default())
        })
    }
}
