//! `Serialize` and `Deserialize` (feature `serde`): a [`Ribbon`] as its
//! checked bytes ([`to_bytes`](Ribbon::to_bytes)), read back through
//! [`from_bytes_with_hasher`](Ribbon::from_bytes_with_hasher) with the
//! default value of its hasher type, so that a filter read by serde is
//! validated exactly as `from_bytes` validates it.

use filter_core::KeyHasher;
use filter_core::serde_support::{self, serde};

use super::Ribbon;

impl<S: KeyHasher> serde::Serialize for Ribbon<S> {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serde_support::serialize(&self.to_bytes(), serializer)
    }
}

impl<'de, S: KeyHasher + Default> serde::Deserialize<'de> for Ribbon<S> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_support::deserialize(deserializer, |bytes| {
            Ribbon::from_bytes_with_hasher(bytes, S::default())
        })
    }
}

#[cfg(test)]
mod tests {
    use filter_core::serde_support::serde::Deserialize;
    use filter_core::serde_support::serde::de::value::{BytesDeserializer, Error};

    use crate::Ribbon;

    #[test]
    fn deserialize_reads_to_bytes_and_checks_it() {
        let keys: Vec<u64> = (0..1000).collect();
        let filter = Ribbon::from_keys_with_fpr(&keys, 0.01).unwrap();
        let bytes = filter.to_bytes();
        let read = Ribbon::deserialize(BytesDeserializer::<Error>::new(&bytes)).unwrap();
        assert_eq!(read, filter);
        let mut bad = bytes.clone();
        bad[50] ^= 1;
        let err = Ribbon::<filter_core::PortableHasher>::deserialize(
            BytesDeserializer::<Error>::new(&bad),
        )
        .unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
    }
}
