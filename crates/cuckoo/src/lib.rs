#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod batch;
mod encoding;
mod filter;
mod nested;
mod scalable;
mod search;
#[cfg(feature = "serde")]
mod serde_impls;
mod std_traits;
mod table;
#[cfg(test)]
mod test_rng;

pub use filter::{CuckooFilter, MAX_COPIES};
pub use filter_core::{
    BatchContains, BatchInsert, BatchRemove, Error, Filter, Insert, KeyHasher, PortableHasher,
    Remove,
};
pub use scalable::{GROWTH, MAX_STAGES, ScalableCuckooFilter};

use std::hash::Hash;

impl<T: Hash + ?Sized, S: KeyHasher> Filter<T> for CuckooFilter<S> {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        CuckooFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        CuckooFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Insert<T> for CuckooFilter<S> {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        CuckooFilter::insert(self, item)
    }
}

impl<T: Hash + ?Sized, S: KeyHasher> Remove<T> for CuckooFilter<S> {
    #[inline]
    fn remove(&mut self, item: &T) -> bool {
        CuckooFilter::remove(self, item)
    }
}
