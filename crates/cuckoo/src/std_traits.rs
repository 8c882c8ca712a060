//! The standard traits a user expects beyond `Clone`: a `Debug` that shows
//! the filter's shape instead of its table, and equality of whole state.

use filter_core::{HasherProbe, KeyHasher};
use std::fmt;

use crate::filter::{Cuckoo, CuckooFilter};
use crate::table::Pairing;

impl<S> fmt::Debug for CuckooFilter<S> {
    /// The shape and fill, not the table: a table can be gigabytes, and a
    /// `{:?}` in a log line should not print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CuckooFilter")
            .field("len", &self.cuckoo.len)
            .field("buckets", &self.cuckoo.table.buckets())
            .field("fingerprint_bits", &self.cuckoo.table.fingerprint_bits())
            .field("is_full", &(self.cuckoo.victim.fingerprint != 0))
            .field("memory_bytes", &self.cuckoo.table.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// Two filters are equal when they hold the same table, item count, victim
/// slot and eviction generator state, and their hashers hash alike
/// ([`HasherProbe::same`], which asks integer keys only, so hashers for
/// integers alone compare too): then their
/// [`to_bytes`](CuckooFilter::to_bytes) are equal as well. Equal filters
/// answer every query alike and stay equal under the same operations.
impl<S: KeyHasher> PartialEq for CuckooFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.cuckoo.same_state(&other.cuckoo) && HasherProbe::same(&self.hasher, &other.hasher)
    }
}

impl<P: Pairing> Cuckoo<P> {
    /// Whether the two hold the same table, item count, victim slot and
    /// eviction state.
    pub(crate) fn same_state(&self, other: &Self) -> bool {
        self.len == other.len
            && self.victim == other.victim
            && self.rng.state() == other.rng.state()
            && self.table == other.table
    }
}

impl<S: KeyHasher> Eq for CuckooFilter<S> {}
