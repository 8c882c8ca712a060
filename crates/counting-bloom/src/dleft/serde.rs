//! `Serialize` and `Deserialize` (feature `serde`): a filter serializes as
//! the bytes of [`to_bytes`](DLeftCountingBloomFilter::to_bytes) and
//! deserializes through [`from_bytes`](DLeftCountingBloomFilter::from_bytes),
//! validated exactly as bytes loaded directly (with the default hasher).

use filter_core::serde_support::{self, serde};

use super::DLeftCountingBloomFilter;

impl<S: filter_core::KeyHasher> serde::Serialize for DLeftCountingBloomFilter<S> {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serde_support::serialize(&self.to_bytes(), serializer)
    }
}

impl<'de> serde::Deserialize<'de> for DLeftCountingBloomFilter {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_support::deserialize(deserializer, DLeftCountingBloomFilter::from_bytes)
    }
}
