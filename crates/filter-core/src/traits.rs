//! The three traits every filter implements.
//!
//! They are deliberately small: a filter is something you can ask, something
//! you can add to, and sometimes something you can take from. Everything else
//! (pre-hashed keys, serialization, sizing) is inherent API on each type,
//! because it differs in meaningful ways between families.

use crate::Error;

/// A probabilistic set: answers "may `item` be in the set?".
///
/// # Contract
///
/// `contains` never returns `false` for an item that is in the set: not after
/// a failed insert, not after a `remove` of another item that returned
/// `false`, not after a round trip through bytes. It may return `true` for an
/// item that was never inserted (a false positive), with the probability the
/// filter documents.
pub trait Filter<T: ?Sized> {
    /// Returns `false` only if `item` was never inserted (or was removed).
    /// `true` means "probably present".
    fn contains(&self, item: &T) -> bool;

    /// The size in bytes of the filter's tables: the memory that scales with
    /// the number of items. Fixed-size bookkeeping is not counted.
    fn memory_bytes(&self) -> usize;
}

/// A filter that items can be added to one at a time.
pub trait Insert<T: ?Sized>: Filter<T> {
    /// Adds `item`.
    ///
    /// # Errors
    ///
    /// [`Error::Full`] where a filter has a hard capacity and no room is left.
    /// A failed insert leaves every earlier item present. Filters that cannot
    /// fill up (Bloom filters) never return an error.
    fn insert(&mut self, item: &T) -> Result<(), Error>;
}

/// A filter that items can be taken out of.
pub trait Remove<T: ?Sized>: Insert<T> {
    /// Removes one copy of `item`.
    ///
    /// Returns `true` if one copy was removed, `false` if nothing changed.
    /// A `false` answer guarantees the filter is exactly as before.
    ///
    /// Removing an item that was never inserted but happens to be a false
    /// positive can make other items disappear, in every filter of this
    /// workspace that removes: only remove what was inserted. Each filter
    /// documents how much a mistaken remove can damage.
    fn remove(&mut self, item: &T) -> bool;
}
