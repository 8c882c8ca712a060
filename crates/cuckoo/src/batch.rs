//! Batched lookups, inserts and removals through filter-core's
//! [`BatchContains`], [`BatchInsert`] and [`BatchRemove`]: the two buckets a
//! key's lookup or insert will read are prefetched
//! [`LOOKAHEAD`](filter_core::batch::LOOKAHEAD) keys ahead
//! in tables larger than the cache.
//!
//! An insert reads only its first bucket below half load, both past it
//! (where most of a bulk load's inserts happen), so the same two-bucket
//! prefetch serves both. Past 80 % load a batched insert also requests,
//! [`FOLLOW_UP`](filter_core::batch::FOLLOW_UP) keys ahead, where the
//! residents of a full bucket would move
//! ([`Lookahead::prefetch_insert_follow_ups`]). A removal reads the same
//! two buckets (and the victim slot, which lives in the filter itself).
//! Tables under [`PREFETCH_MIN_BYTES`] are worked one key at a time: in
//! cache, locating every key twice costs more than the prefetch saves.

use std::hash::Hash;

use filter_core::batch::{Lookahead, PREFETCH_MIN_BYTES};
use filter_core::{BatchContains, BatchInsert, BatchRemove, Error, KeyHasher};

use crate::CuckooFilter;
use crate::table::SLOTS;

impl<S> Lookahead for CuckooFilter<S> {
    /// Both buckets' windows, each by its first and its last byte: the
    /// 8-byte load of a window crosses into the next cache line for 7 of
    /// every 64 start bytes, and then needs both lines.
    #[inline(always)]
    fn prefetch_hash(&self, mixed: u64) {
        let (first, fp) = self.cuckoo.locate(mixed);
        let second = self.cuckoo.table.alt(first, fp);
        self.cuckoo.table.prefetch_bucket(first);
        self.cuckoo.table.prefetch_bucket(second);
    }

    /// The victim slot included: a full table answers batched as it does
    /// one by one.
    #[inline(always)]
    fn lookup_hash(&self, mixed: u64) -> bool {
        self.cuckoo.contains_mixed(mixed)
    }

    fn worth_prefetching(&self) -> bool {
        self.cuckoo.table.memory_bytes() >= PREFETCH_MIN_BYTES
    }

    /// Only with prefetching: in cache the chunk loop did not pay for this
    /// filter's lookup.
    fn answers_in_chunks(&self) -> bool {
        self.worth_prefetching()
    }

    /// Past 80 % load, where most inserts find both their buckets full and
    /// go on to the other buckets of those buckets' eight residents
    /// (`Table::place_nearby`): when a bucket is full now, request the other
    /// buckets of its four residents. The two buckets were requested
    /// several keys ago, so reading them rarely waits. Below 80 % load the
    /// test would mostly find room and only cost its reads.
    #[inline(always)]
    fn prefetch_insert_follow_ups(&self, mixed: u64) {
        if self.cuckoo.len * 5 <= self.cuckoo.table.buckets() * SLOTS * 4 {
            return;
        }
        let (first, fp) = self.cuckoo.locate(mixed);
        for bucket in [first, self.cuckoo.table.alt(first, fp)] {
            let residents = self.cuckoo.table.read(bucket);
            if self.cuckoo.table.find_lane(residents, 0).is_none() {
                for slot in 0..SLOTS as u32 {
                    let resident = self.cuckoo.table.lane(residents, slot);
                    self.cuckoo
                        .table
                        .prefetch_bucket(self.cuckoo.table.alt(bucket, resident));
                }
            }
        }
    }
}

/// `contains_batch` and `contains_hash_batch`: the answers of `contains`
/// and `contains_hash`, item by item.
///
/// ```
/// use cuckoo::{BatchContains, CuckooFilter};
///
/// let mut sessions = CuckooFilter::with_fpr(1_000, 0.01)?;
/// sessions.insert("session-4f1c")?;
/// let live: Vec<bool> = sessions.contains_batch(["session-4f1c", "session-0000"]).collect();
/// assert!(live[0]);
/// # Ok::<(), cuckoo::Error>(())
/// ```
impl<S: KeyHasher> BatchContains for CuckooFilter<S> {
    #[inline(always)]
    fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hasher.mixed_hash(item)
    }
}

/// `insert_batch` and `insert_hash_batch`: the inserts of `insert`, item by
/// item, stopping at the first error (`Full` or `TooManyCopies`) as they
/// would. Compare `len()` before and after to learn how many went in.
///
/// ```
/// use cuckoo::{BatchInsert, CuckooFilter};
///
/// let mut sessions = CuckooFilter::with_fpr(10_000, 0.01)?;
/// sessions.insert_batch(["session-4f1c", "session-9a0e", "session-77b2"])?;
/// assert_eq!(sessions.len(), 3);
/// # Ok::<(), cuckoo::Error>(())
/// ```
impl<S: KeyHasher> BatchInsert for CuckooFilter<S> {
    #[inline(always)]
    fn batch_insert(&mut self, mixed: u64) -> Result<(), Error> {
        self.cuckoo.insert_mixed(mixed)
    }
}

/// `remove_batch` and `remove_hash_batch`: the removals of `remove`, item by
/// item; they return how many succeeded.
///
/// ```
/// use cuckoo::{BatchInsert, BatchRemove, CuckooFilter};
///
/// let mut sessions = CuckooFilter::with_fpr(10_000, 0.01)?;
/// sessions.insert_batch(["session-4f1c", "session-9a0e", "session-77b2"])?;
/// assert_eq!(sessions.remove_batch(["session-4f1c", "session-77b2"]), 2);
/// assert_eq!(sessions.len(), 1);
/// # Ok::<(), cuckoo::Error>(())
/// ```
impl<S: KeyHasher> BatchRemove for CuckooFilter<S> {
    #[inline(always)]
    fn batch_remove(&mut self, mixed: u64) -> bool {
        self.cuckoo.remove_mixed(mixed)
    }
}
