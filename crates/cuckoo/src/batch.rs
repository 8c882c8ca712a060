//! Batched lookups, inserts and removals (see [`filter_core::batch`]): the two
//! buckets a key's lookup or insert will read are prefetched 32 keys ahead.
//! An insert reads only its first bucket below half load, both past it
//! (where most of a bulk load's inserts happen), so the same two-bucket
//! prefetch serves both. Past 80 % load a batched insert also requests,
//! 16 keys ahead, where the residents of a full bucket would move
//! ([`Lookahead::prefetch_insert_follow_ups`]). A removal reads the same
//! two buckets (and the victim slot, which lives in the filter itself).

use std::hash::{BuildHasher, Hash};

use filter_core::HashQuality;
use filter_core::batch::{Batch, Lookahead, PREFETCH_MIN_BYTES, insert_ahead, remove_ahead};

use crate::table::SLOTS;
use crate::{CuckooFilter, Error};

impl<S: BuildHasher, Q: HashQuality> Lookahead for CuckooFilter<S, Q> {
    /// Both buckets' windows, each by its first and its last byte: the
    /// 8-byte load of a window crosses into the next cache line for 7 of
    /// every 64 start bytes, and then needs both lines. Measured at 10M
    /// keys and p = 1 %, three interleaved runs: 7.3–11 ns per query
    /// prefetching both ends, 8.1–13.6 ns the first byte only.
    #[inline(always)]
    fn prefetch_hash(&self, hash: u64) {
        let (first, fp) = self.locate(hash);
        let second = self.table.alt(first, fp);
        self.table.prefetch_bucket(first);
        self.table.prefetch_bucket(second);
    }

    /// The victim slot included: a full table answers batched as it does
    /// one by one.
    #[inline(always)]
    fn lookup_hash(&self, hash: u64) -> bool {
        self.contains_hash(hash)
    }

    fn worth_prefetching(&self) -> bool {
        self.memory_bytes() >= PREFETCH_MIN_BYTES
    }

    // Only with prefetching: in cache the chunk loop measured slower than
    // one lookup per call in one build (1M keys, 1 %: 6.2 ns against 4.7)
    // and level in another; at 10M keys it gained (see
    // `filter_core::batch`).
    fn answers_in_chunks(&self) -> bool {
        self.worth_prefetching()
    }

    /// Past 80 % load, where most inserts find both their buckets full
    /// (61 % from 90 to 95 %) and go on to the other buckets of those
    /// buckets' eight residents (`Table::place_nearby`): when a bucket is
    /// full now, request the other buckets of its four residents. The two
    /// buckets were requested 16 keys ago, so reading them rarely waits.
    /// Filling a 10M-key, 1 % table in scratch runs: 30–37 ns per key
    /// against 48–55 ns with the two buckets alone. Below 80 % load the
    /// test would mostly find room and only cost its reads.
    #[inline(always)]
    fn prefetch_insert_follow_ups(&self, hash: u64) {
        if self.len * 5 <= self.slots() * 4 {
            return;
        }
        let (first, fp) = self.locate(hash);
        for bucket in [first, self.table.alt(first, fp)] {
            let residents = self.table.read(bucket);
            if self.table.find_lane(residents, 0).is_none() {
                for slot in 0..SLOTS as u32 {
                    let resident = self.table.lane(residents, slot);
                    self.table.prefetch_bucket(self.table.alt(bucket, resident));
                }
            }
        }
    }
}

impl<S: BuildHasher, Q: HashQuality> CuckooFilter<S, Q> {
    /// Whether each item of `items` may be present, in order: the answers
    /// of [`contains`](Self::contains), item by item, computed with the
    /// buckets of the items 32 ahead already requested from memory
    /// (see [`filter_core::batch`]). Use it when the items are known up
    /// front and the table is larger than the last-level cache: at 10M
    /// items and p = 0.1 % (a 17 MB table) a full `cargo xtask compare`
    /// measured 7.4 ns per item against 24–27 ns for
    /// [`contains`](Self::contains) one by one (shared 2-core AMD EPYC,
    /// 32 MB L3, half members, shuffled); at p = 1 % (13 MB), a table that
    /// stayed in the cache in that run, 5.1 against 5.6–6.6 ns, and 24–28 ns
    /// one by one in runs where other tenants held the cache. Tables
    /// under 8 MiB are looked up one by one, as by `contains`: in cache,
    /// prefetching cost more than it saved (1M items, 1.3 MB: 6.5 against
    /// 4.9 ns). Larger ones, on CPUs with AVX2, answer 32 items at a time in
    /// a loop compiled for it ([chunks](filter_core::batch#chunks)).
    ///
    /// ```
    /// use cuckoo::CuckooFilter;
    ///
    /// let mut sessions = CuckooFilter::with_fpr(1_000, 0.01)?;
    /// sessions.insert("session-4f1c")?;
    /// let asked = ["session-4f1c", "session-0000"];
    /// let live: Vec<bool> = sessions.contains_batch(asked).collect();
    /// assert_eq!(live[0], true);
    /// # Ok::<(), cuckoo::Error>(())
    /// ```
    pub fn contains_batch<'a>(
        &'a self,
        items: impl IntoIterator<Item: Hash, IntoIter: 'a>,
    ) -> impl Iterator<Item = bool> + 'a {
        Batch::new(
            self,
            items.into_iter().map(|item| self.hasher.hash_one(item)),
        )
    }

    /// As [`contains_batch`](Self::contains_batch), for raw 64-bit hashes.
    pub fn contains_hash_batch<'a>(
        &'a self,
        hashes: impl IntoIterator<Item = u64, IntoIter: 'a>,
    ) -> impl Iterator<Item = bool> + 'a {
        Batch::new(self, hashes.into_iter())
    }

    /// Inserts every item of `items`, in order: exactly the inserts of
    /// [`insert`](Self::insert), item by item, each item's two buckets
    /// requested from memory 32 items before it is inserted (see
    /// [`filter_core::batch`]), so the table ends byte for byte as
    /// one-by-one inserts leave it. Use it to load a table larger than the
    /// last-level cache in bulk: filling a 10M-item, p = 0.1 % table
    /// (17 MB) took 26.9 ns per item against 47.1 ns one by one in one full
    /// `cargo xtask compare` (shared 2-core AMD EPYC); at p = 1 % (13 MB,
    /// which stayed in the cache in that run) 17.3 against 21.0 ns. Tables under 8 MiB
    /// are filled one by one, as by `insert`.
    ///
    /// The usual cuckoo caveats hold: a duplicate is stored again (and
    /// counts in [`len`](Self::len)), and an item's ninth copy is refused
    /// with [`Error::Full`]. Compare `len()` before and after to learn how
    /// many items went in.
    ///
    /// # Errors
    ///
    /// The first error an insert returns, typically [`Error::Full`]. The
    /// items before the failing one are inserted; it and every item after
    /// it are not. On a prefetched table the batch has already taken up to
    /// 32 items past the failing one from `items`: to resume after a
    /// [`remove`](Self::remove) makes room, do not continue the same
    /// iterator, but skip as many items of the input as `len()` grew by.
    ///
    /// ```
    /// use cuckoo::CuckooFilter;
    ///
    /// // Loading the live sessions at start-up.
    /// let saved = ["session-4f1c", "session-9a0e", "session-77b2"];
    /// let mut sessions = CuckooFilter::with_fpr(10_000, 0.01)?;
    /// sessions.insert_batch(saved)?;
    /// assert_eq!(sessions.len(), 3);
    /// assert!(sessions.contains("session-9a0e"));
    /// # Ok::<(), cuckoo::Error>(())
    /// ```
    pub fn insert_batch(&mut self, items: impl IntoIterator<Item: Hash>) -> Result<(), Error> {
        insert_ahead(
            self,
            items,
            |f, item| f.hasher.hash_one(item),
            Self::insert_hash,
        )
    }

    /// As [`insert_batch`](Self::insert_batch), for raw 64-bit hashes
    /// (each as [`insert_hash`](Self::insert_hash) takes it).
    ///
    /// # Errors
    ///
    /// As [`insert_batch`](Self::insert_batch).
    pub fn insert_hash_batch(
        &mut self,
        hashes: impl IntoIterator<Item = u64>,
    ) -> Result<(), Error> {
        insert_ahead(self, hashes, |_, hash| hash, Self::insert_hash)
    }

    /// Removes every item of `items`, in order, and returns how many were
    /// removed: exactly the removals of [`remove`](Self::remove), item by
    /// item (one copy each; an item not found is skipped and changes
    /// nothing), each item's two buckets requested from memory 32 items
    /// before its removal (see [`filter_core::batch`]), so the table ends
    /// byte for byte as one-by-one removals leave it. Use it to expire many
    /// items at once; tables under 8 MiB are emptied one by one, as by
    /// `remove`. As with `remove`, only remove what was inserted: a false
    /// positive's removal deletes another item's fingerprint.
    ///
    /// ```
    /// use cuckoo::CuckooFilter;
    ///
    /// let mut sessions = CuckooFilter::with_fpr(10_000, 0.01)?;
    /// sessions.insert_batch(["session-4f1c", "session-9a0e", "session-77b2"])?;
    /// // Two sessions expire.
    /// let expired = sessions.remove_batch(["session-4f1c", "session-77b2"]);
    /// assert_eq!(expired, 2);
    /// assert_eq!(sessions.len(), 1);
    /// assert!(sessions.contains("session-9a0e"));
    /// # Ok::<(), cuckoo::Error>(())
    /// ```
    pub fn remove_batch(&mut self, items: impl IntoIterator<Item: Hash>) -> usize {
        remove_ahead(
            self,
            items,
            |f, item| f.hasher.hash_one(item),
            Self::remove_hash,
        )
    }

    /// As [`remove_batch`](Self::remove_batch), for raw 64-bit hashes
    /// (each as [`remove_hash`](Self::remove_hash) takes it).
    pub fn remove_hash_batch(&mut self, hashes: impl IntoIterator<Item = u64>) -> usize {
        remove_ahead(self, hashes, |_, hash| hash, Self::remove_hash)
    }
}
