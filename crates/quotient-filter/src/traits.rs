//! The shared traits, and serde behind its feature.

use std::hash::Hash;

use filter_core::{Error, Filter, Insert, KeyHasher, Remove};

use crate::QuotientFilter;

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for QuotientFilter<S> {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        QuotientFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        QuotientFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Insert<T> for QuotientFilter<S> {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        QuotientFilter::insert(self, item)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Remove<T> for QuotientFilter<S> {
    #[inline]
    fn remove(&mut self, item: &T) -> bool {
        QuotientFilter::remove(self, item)
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use filter_core::serde_support::{self, serde};
    use filter_core::{KeyHasher, PortableHasher};

    use crate::QuotientFilter;

    impl<S: KeyHasher> serde::Serialize for QuotientFilter<S> {
        fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            serde_support::serialize(&self.to_bytes(), serializer)
        }
    }

    impl<'de> serde::Deserialize<'de> for QuotientFilter<PortableHasher> {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            serde_support::deserialize(deserializer, QuotientFilter::from_bytes)
        }
    }
}
