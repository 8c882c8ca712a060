//! Batched lookups, inserts and removals: many keys at once, their memory
//! requested ahead of time.
//!
//! # Why
//!
//! One lookup in a table larger than the cache is a few instructions around
//! one or more cache misses. A loop of lookups runs only as fast as the CPU
//! can overlap those misses, and it overlaps only the lookups its
//! instruction window holds: a handful. When the caller has the keys up
//! front (a join, a batch of LSM-tree reads, a crawl frontier), the filter
//! can compute where key i + [`LOOKAHEAD`] lives while it tests key i, and
//! ask the CPU for those lines with a prefetch hint. Many misses are then in
//! flight at once. In a table that fits the cache the hint only costs the
//! work of locating each key twice, so filters skip it there
//! ([`PREFETCH_MIN_BYTES`]).
//!
//! # How
//!
//! A filter implements [`Lookahead`] (where a key's memory is, and the
//! lookup itself) and the batch traits ([`BatchContains`], [`BatchInsert`],
//! [`BatchRemove`]), whose provided methods are written once here. A
//! batched lookup is a [`Batch`]: an iterator over the answers, in the
//! order of the keys, that keeps [`LOOKAHEAD`] hashes in a small ring. Each
//! step takes one new hash, prefetches it, and answers the oldest. The
//! answers are exactly those of the filter's one-by-one lookups.
//!
//! Inserts gain the same way when a filter is loaded in bulk (an SSTable's
//! keys when it is written, a blocklist at start-up): [`insert_ahead`]
//! drives the inserts with the same ring, in the keys' order, so the filter
//! ends exactly as one-by-one inserts leave it. Removals use the ring too
//! ([`remove_ahead`]): expiring many entries at once is the same access
//! pattern as loading them.
//!
//! # Chunks
//!
//! A default x86-64 build targets CPUs without AVX2, so the compiler may
//! not use it in a lookup, nor in the caller's hashing, and a filter with
//! an AVX2 kernel calls it once per key. A batch knows many keys at once:
//! where the filter opts in ([`Lookahead::answers_in_chunks`]) and the CPU
//! has AVX2 (checked when the batch is made), it takes [`LOOKAHEAD`] hashes
//! at a time and answers them in one call to a loop compiled for AVX2,
//! into which the source iterator (the caller's hashing included) and the
//! filter's lookup are inlined. Where the filter prefetches, the loop keeps
//! the ring's order exactly: each lookup comes after the prefetches of the
//! [`LOOKAHEAD`] − 1 hashes that follow it. [`Iterator::fold`] (behind
//! `count`, `sum` and `for_each`) takes the answers a chunk at a time;
//! `next` (behind `for` loops, `zip` and `collect`) hands them out one by
//! one. The answers are those of `lookup_hash`, key by key, either way.
//! Filters opt in where a benchmark showed the chunk loop faster; in small
//! tables some filters' chunk loops are slower than one lookup per call, and
//! those opt in only from [`PREFETCH_MIN_BYTES`].

use std::convert::Infallible;
use std::fmt;
use std::hash::Hash;

use crate::Error;

use crate::chunk;

/// How many keys ahead a [`Batch`] prefetches: enough misses in flight to
/// cover DRAM latency, while the ring stays within four cache lines. Fewer
/// (16) left much of the gain on the table in out-of-cache benchmarks.
pub const LOOKAHEAD: usize = 32;

/// What a filter provides for batched lookups.
pub trait Lookahead {
    /// Hints to the CPU that the lookup of raw hash `hash` will read its
    /// memory soon (see [`prefetch`](crate::prefetch::prefetch)). Must not
    /// change any answer.
    fn prefetch_hash(&self, hash: u64);

    /// The filter's lookup of raw hash `hash`.
    fn lookup_hash(&self, hash: u64) -> bool;

    /// Whether prefetching pays for this filter: `false` for tables small
    /// enough to stay in cache, where it would only locate each key twice.
    fn worth_prefetching(&self) -> bool;

    /// Called by [`insert_ahead`] [`FOLLOW_UP`] keys before the insert of
    /// raw hash `hash`, whose memory [`prefetch_hash`](Self::prefetch_hash)
    /// requested [`LOOKAHEAD`] − [`FOLLOW_UP`] keys earlier and has likely
    /// arrived: a filter whose insert may go on to memory that those lines
    /// point to (the buckets a cuckoo filter would move residents to) can
    /// read them here and request that memory too. Must not change any
    /// answer or any state. By default, nothing.
    #[inline(always)]
    fn prefetch_insert_follow_ups(&self, hash: u64) {
        let _ = hash;
    }

    /// Whether a [`Batch`] should answer this filter's lookups
    /// [`LOOKAHEAD`] at a time in a loop compiled for AVX2, on CPUs that
    /// have it (see [Chunks](self#chunks)). The answers are the same either
    /// way; opt in where a benchmark shows it pays. By default, `false`.
    fn answers_in_chunks(&self) -> bool {
        false
    }
}

/// How many keys before its insert [`insert_ahead`] lets a filter request
/// the memory a key's insert reaches through its first lines
/// ([`Lookahead::prefetch_insert_follow_ups`]): half the lookahead, so the
/// first lines have had half the ring's time to arrive and the follow-ups
/// have the other half.
pub const FOLLOW_UP: usize = LOOKAHEAD / 2;

/// Tables at least this large are prefetched by filters that follow the
/// workspace's default ([`Lookahead::worth_prefetching`]): 8 MiB. Smaller
/// tables stay mostly in the caches, and there locating every key twice
/// costs more than the prefetch saves; from about this size on, batched
/// lookups of the classic and counting filters overtook one-by-one ones in
/// the benchmarks.
pub const PREFETCH_MIN_BYTES: usize = 8 << 20;

/// The answers of a batched lookup: for each hash of the source, in order,
/// whether the filter may contain it.
///
/// Built by a filter's `contains_batch` or `contains_hash_batch`. Holds up to
/// [`LOOKAHEAD`] hashes taken from the source but not yet answered.
#[must_use = "iterators are lazy: the lookups happen as it is consumed"]
pub struct Batch<'f, F: ?Sized, I> {
    filter: &'f F,
    hashes: I,
    /// The hashes taken but not yet answered, oldest at `head`.
    ring: [u64; LOOKAHEAD],
    head: usize,
    pending: usize,
    /// Whether the filter prefetches; if not, each hash is answered as soon
    /// as it is taken and the ring stays empty.
    prefetch: bool,
    /// `Some` if lookups are answered a chunk at a time ([`chunk`]). Then
    /// the ring holds the hashes taken and prefetched but not answered,
    /// oldest at index 0 (`head` stays 0).
    chunked: Option<chunk::Vector>,
    /// `answers[next_answer..answered]` are the answers computed but not
    /// yet returned: up to a chunk's when chunked, at most one when only
    /// prefetching, none otherwise (both counts stay 0).
    answers: [bool; LOOKAHEAD],
    next_answer: usize,
    answered: usize,
}

impl<'f, F: Lookahead + ?Sized, I: Iterator<Item = u64>> Batch<'f, F, I> {
    /// A batched lookup of `hashes` in `filter`.
    pub fn new(filter: &'f F, hashes: I) -> Self {
        let prefetch = filter.worth_prefetching();
        Batch {
            filter,
            hashes,
            ring: [0; LOOKAHEAD],
            head: 0,
            pending: 0,
            prefetch,
            chunked: chunk::Vector::detect().filter(|_| filter.answers_in_chunks()),
            answers: [false; LOOKAHEAD],
            next_answer: 0,
            answered: 0,
        }
    }

    /// In chunked mode (`vector`): answers the next chunk of hashes;
    /// `false` once the source is exhausted. Out of line, as is
    /// [`fold_chunks`](Self::fold_chunks), so that `next` and `fold` stay
    /// as small as before chunks for filters that do not use them: inlined,
    /// the chunked code made other filters' batches up to 18 % slower.
    #[inline(never)]
    fn answer_next_chunk(&mut self, vector: chunk::Vector) -> bool {
        self.answered = chunk::answer_next(
            vector,
            self.filter,
            &mut self.hashes,
            self.prefetch,
            &mut self.ring,
            &mut self.pending,
            &mut self.answers,
        );
        self.next_answer = 0;
        self.answered != 0
    }

    /// For `next`, when no answer is ready and the batch is chunked or
    /// prefetches: puts the next answers in `answers[..answered]` and sets
    /// `next_answer` to 0; `false` once the source is exhausted. Chunked, it
    /// answers a chunk; otherwise it takes one step of the ring (top it up,
    /// answer the oldest hash). Out of line: see `next`.
    #[inline(never)]
    fn refill_answers(&mut self) -> bool {
        if let Some(vector) = self.chunked {
            return self.answer_next_chunk(vector);
        }
        // Top the ring up: a full ring at the start, then one hash per
        // answer, until the source runs dry and the ring drains.
        while self.pending < LOOKAHEAD {
            let Some(hash) = self.hashes.next() else {
                break;
            };
            self.filter.prefetch_hash(hash);
            self.ring[(self.head + self.pending) % LOOKAHEAD] = hash;
            self.pending += 1;
        }
        if self.pending == 0 {
            return false;
        }
        let hash = self.ring[self.head];
        self.head = (self.head + 1) % LOOKAHEAD;
        self.pending -= 1;
        self.answers[0] = self.filter.lookup_hash(hash);
        self.next_answer = 0;
        self.answered = 1;
        true
    }

    /// [`Iterator::fold`] in chunked mode (`vector`): the answers left of
    /// the current chunk, then a chunk at a time.
    #[inline(never)]
    fn fold_chunks<B, G: FnMut(B, bool) -> B>(
        mut self,
        vector: chunk::Vector,
        init: B,
        mut f: G,
    ) -> B {
        let mut acc = init;
        let mut ready = self.next_answer..self.answered;
        loop {
            for &answer in self.answers.get(ready).unwrap_or_default() {
                acc = f(acc, answer);
            }
            if !self.answer_next_chunk(vector) {
                return acc;
            }
            ready = 0..self.answered;
        }
    }
}

impl<F: Lookahead + ?Sized, I: Iterator<Item = u64>> Iterator for Batch<'_, F, I> {
    type Item = bool;

    #[inline]
    fn next(&mut self) -> Option<bool> {
        // Only the two common steps are inline, so that `next` stays small
        // enough for the compiler to inline into the caller's loop: a lookup
        // without prefetching, or an answer already computed. As one
        // function with the rest, `next` was called once per answer, which
        // cost a `for` loop over a batch a quarter of its speed.
        if self.next_answer == self.answered {
            if self.chunked.is_none() && !self.prefetch {
                // Straight through: in cache-resident tables the ring's
                // bookkeeping costs more than it saves.
                return self.hashes.next().map(|hash| self.filter.lookup_hash(hash));
            }
            if !self.refill_answers() {
                return None;
            }
        }
        let answer = self.answers.get(self.next_answer).copied();
        self.next_answer += 1;
        answer
    }

    /// Answers all that is left; in chunked mode a chunk at a time, without
    /// the per-answer bookkeeping of [`next`](Self::next) (`count`, `sum`
    /// and `for_each` come here).
    #[inline]
    fn fold<B, G: FnMut(B, bool) -> B>(self, init: B, mut f: G) -> B {
        if let Some(vector) = self.chunked {
            return self.fold_chunks(vector, init, f);
        }
        if !self.prefetch {
            // Straight through, by the source's own `fold`. (Nothing is
            // pending: without prefetching the ring stays empty.)
            let filter = self.filter;
            return self
                .hashes
                .map(|hash| filter.lookup_hash(hash))
                .fold(init, f);
        }
        let mut acc = init;
        for answer in self {
            acc = f(acc, answer);
        }
        acc
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (low, high) = self.hashes.size_hint();
        let held = self.pending + (self.answered - self.next_answer);
        (
            low.saturating_add(held),
            high.and_then(|high| high.checked_add(held)),
        )
    }
}

impl<F: Lookahead + ?Sized, I: ExactSizeIterator<Item = u64>> ExactSizeIterator
    for Batch<'_, F, I>
{
}

/// Inserts `keys` into `filter` in order, the memory of each requested
/// [`LOOKAHEAD`] keys before it is inserted (when the filter is
/// [worth prefetching](Lookahead::worth_prefetching)), and its
/// [follow-ups](Lookahead::prefetch_insert_follow_ups) requested
/// [`FOLLOW_UP`] keys before: the engine of the filters' `insert_batch`.
///
/// `hash` turns a key into its raw 64-bit hash (it sees the filter, for its
/// hasher); `insert` inserts one hash. The filter ends exactly as inserting
/// the keys one by one would leave it: prefetching reads, never writes, and
/// every key is hashed before the inserts it runs ahead of, which cannot
/// change a hash.
///
/// # Errors
///
/// The first error `insert` returns. Keys before the failing one are
/// inserted; the failing key and every key after it are not (keys already
/// hashed into the ring are dropped).
pub fn insert_ahead<F, K, E>(
    filter: &mut F,
    keys: impl IntoIterator<Item = K>,
    hash: impl Fn(&F, K) -> u64,
    insert: impl FnMut(&mut F, u64) -> Result<(), E>,
) -> Result<(), E>
where
    F: Lookahead + ?Sized,
{
    update_ahead(filter, keys, hash, FollowUps::Requested, insert)
}

/// Removes `keys` from `filter` in order, the memory of each requested
/// [`LOOKAHEAD`] keys before its removal (when the filter is
/// [worth prefetching](Lookahead::worth_prefetching)): the engine of the
/// filters' `remove_batch`. Returns how many removals succeeded.
///
/// `hash` turns a key into its raw 64-bit hash; `remove` removes one hash
/// and says whether it did. Every key is tried, whatever the answers before
/// it, and the filter ends exactly as removing the keys one by one would
/// leave it. No follow-ups are requested: a removal reads only the memory
/// [`prefetch_hash`](Lookahead::prefetch_hash) asks for.
pub fn remove_ahead<F, K>(
    filter: &mut F,
    keys: impl IntoIterator<Item = K>,
    hash: impl Fn(&F, K) -> u64,
    mut remove: impl FnMut(&mut F, u64) -> bool,
) -> usize
where
    F: Lookahead + ?Sized,
{
    let mut removed = 0;
    let Ok(()) = update_ahead(filter, keys, hash, FollowUps::Skipped, |filter, h| {
        removed += usize::from(remove(filter, h));
        Ok::<(), Infallible>(())
    });
    removed
}

/// Whether [`update_ahead`] calls
/// [`prefetch_insert_follow_ups`](Lookahead::prefetch_insert_follow_ups).
#[derive(Clone, Copy, PartialEq, Eq)]
enum FollowUps {
    Requested,
    Skipped,
}

/// The ring shared by [`insert_ahead`] and [`remove_ahead`]: applies
/// `update` to the hash of each key in order, each key's memory requested
/// [`LOOKAHEAD`] keys before, stopping at the first error.
fn update_ahead<F, K, E>(
    filter: &mut F,
    keys: impl IntoIterator<Item = K>,
    hash: impl Fn(&F, K) -> u64,
    follow_ups: FollowUps,
    mut update: impl FnMut(&mut F, u64) -> Result<(), E>,
) -> Result<(), E>
where
    F: Lookahead + ?Sized,
{
    let mut keys = keys.into_iter();
    if !filter.worth_prefetching() {
        // As in `Batch`: in cache, the ring would only add work.
        return keys.try_for_each(|key| {
            let h = hash(filter, key);
            update(filter, h)
        });
    }
    let mut ring = [0u64; LOOKAHEAD];
    let mut pending = 0;
    // Fill the ring, then update the oldest hash for each new one taken.
    for key in keys.by_ref() {
        let h = hash(filter, key);
        filter.prefetch_hash(h);
        ring[pending] = h;
        pending += 1;
        if pending == LOOKAHEAD {
            break;
        }
    }
    let mut head = 0;
    for key in keys {
        let h = hash(filter, key);
        filter.prefetch_hash(h);
        let oldest = std::mem::replace(&mut ring[head], h);
        head = (head + 1) % LOOKAHEAD;
        // The ring now runs from the key after `oldest` (at `head`) to `h`;
        // the key FOLLOW_UP updates after `oldest` is FOLLOW_UP − 1 past
        // `head`. (Keys in the ring's first fill and its drain get no
        // follow-ups: a few dozen per batch.)
        if follow_ups == FollowUps::Requested {
            filter.prefetch_insert_follow_ups(ring[(head + FOLLOW_UP - 1) % LOOKAHEAD]);
        }
        update(filter, oldest)?;
    }
    // The source ran dry: drain the ring, oldest first. (A ring that never
    // filled has `head` 0 and its hashes in `ring[..pending]`.)
    for i in 0..pending {
        update(filter, ring[(head + i) % LOOKAHEAD])?;
    }
    Ok(())
}

/// [`insert_ahead`] for filters whose inserts cannot fail (the Bloom
/// filters'): every key is inserted.
pub fn insert_all_ahead<F, K>(
    filter: &mut F,
    keys: impl IntoIterator<Item = K>,
    hash: impl Fn(&F, K) -> u64,
    mut insert: impl FnMut(&mut F, u64),
) where
    F: Lookahead + ?Sized,
{
    let Ok(()) = insert_ahead(filter, keys, hash, |filter, h| {
        insert(filter, h);
        Ok::<(), Infallible>(())
    });
}

/// Batched lookups, for every filter: `contains_batch` and
/// `contains_hash_batch`. Each filter crate re-exports it; bring it into
/// scope to call them (`use bloom::BatchContains;`).
///
/// The answers are those of `contains` and `contains_hash`, item by item,
/// in order; the memory of the item [`LOOKAHEAD`] ahead is requested while
/// one is answered, in tables large enough for that to pay (see the
/// [module docs](self)).
///
/// The methods hidden from the docs are how a filter plugs in; they are
/// not part of the public API.
pub trait BatchContains: Lookahead + Sized {
    /// The value [`Lookahead::lookup_hash`] takes for `item`.
    #[doc(hidden)]
    fn batch_hash_of<T: Hash + ?Sized>(&self, item: &T) -> u64;

    /// The value [`Lookahead::lookup_hash`] takes for the 64-bit hash
    /// `hash` (what `contains_hash` is given): by default its mix, the
    /// mixed hash every filter takes positions from (see [`crate::hash`]).
    #[doc(hidden)]
    #[inline(always)]
    fn batch_hash_of_hash(&self, hash: u64) -> u64 {
        crate::hash::mix64(hash)
    }

    /// Whether each item of `items` may be present, in order: the answers
    /// of `contains`, item by item. Use it when the items are known up
    /// front and the table is larger than the cache.
    fn contains_batch<'a, I>(&'a self, items: I) -> impl Iterator<Item = bool> + 'a
    where
        I: IntoIterator<Item: Hash>,
        I::IntoIter: 'a,
    {
        Batch::new(
            self,
            items.into_iter().map(move |item| self.batch_hash_of(&item)),
        )
    }

    /// As [`contains_batch`](Self::contains_batch), for 64-bit hashes: the
    /// answers of `contains_hash`.
    fn contains_hash_batch<'a, I>(&'a self, hashes: I) -> impl Iterator<Item = bool> + 'a
    where
        I: IntoIterator<Item = u64>,
        I::IntoIter: 'a,
    {
        Batch::new(
            self,
            hashes
                .into_iter()
                .map(move |hash| self.batch_hash_of_hash(hash)),
        )
    }
}

/// Batched inserts, for every filter that takes inserts: `insert_batch`
/// and `insert_hash_batch`. The filter ends exactly as inserting the items
/// one by one would leave it; the memory of the item [`LOOKAHEAD`] ahead is
/// requested while one is inserted. Use it to load many keys at once (an
/// SSTable's keys, a blocklist at start-up).
pub trait BatchInsert: BatchContains {
    /// Inserts the item whose [`BatchContains::batch_hash_of`] is `hash`.
    #[doc(hidden)]
    fn batch_insert(&mut self, hash: u64) -> Result<(), Error>;

    /// Inserts every item of `items`, in order.
    ///
    /// # Errors
    ///
    /// The first error an insert returns (`Full` where a filter can fill
    /// up). The items before it are inserted; it and those after it are not.
    fn insert_batch<I>(&mut self, items: I) -> Result<(), Error>
    where
        I: IntoIterator<Item: Hash>,
    {
        insert_ahead(
            self,
            items,
            |filter, item| filter.batch_hash_of(&item),
            Self::batch_insert,
        )
    }

    /// As [`insert_batch`](Self::insert_batch), for 64-bit hashes.
    ///
    /// # Errors
    ///
    /// As [`insert_batch`](Self::insert_batch).
    fn insert_hash_batch<I>(&mut self, hashes: I) -> Result<(), Error>
    where
        I: IntoIterator<Item = u64>,
    {
        insert_ahead(self, hashes, Self::batch_hash_of_hash, Self::batch_insert)
    }
}

/// Batched removals, for every filter that takes removals: `remove_batch`
/// and `remove_hash_batch`. Every item is tried, in order, and the filter
/// ends exactly as removing them one by one would leave it.
pub trait BatchRemove: BatchInsert {
    /// Removes one copy of the item whose [`BatchContains::batch_hash_of`]
    /// is `hash`; whether it did.
    #[doc(hidden)]
    fn batch_remove(&mut self, hash: u64) -> bool;

    /// Removes one copy of each item of `items`, in order; returns how many
    /// removals succeeded.
    fn remove_batch<I>(&mut self, items: I) -> usize
    where
        I: IntoIterator<Item: Hash>,
    {
        remove_ahead(
            self,
            items,
            |filter, item| filter.batch_hash_of(&item),
            Self::batch_remove,
        )
    }

    /// As [`remove_batch`](Self::remove_batch), for 64-bit hashes.
    fn remove_hash_batch<I>(&mut self, hashes: I) -> usize
    where
        I: IntoIterator<Item = u64>,
    {
        remove_ahead(self, hashes, Self::batch_hash_of_hash, Self::batch_remove)
    }
}

impl<F: ?Sized, I> fmt::Debug for Batch<'_, F, I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Batch")
            .field("pending", &self.pending)
            .field("prefetch", &self.prefetch)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A "filter" holding the even hashes, recording what it was asked.
    struct Evens {
        prefetch: bool,
        /// Opts in to answering in chunks (where the CPU allows).
        chunked: bool,
        log: RefCell<Vec<(char, u64)>>,
    }

    impl Lookahead for Evens {
        fn prefetch_hash(&self, hash: u64) {
            self.log.borrow_mut().push(('p', hash));
        }
        fn lookup_hash(&self, hash: u64) -> bool {
            self.log.borrow_mut().push(('l', hash));
            hash % 2 == 0
        }
        fn worth_prefetching(&self) -> bool {
            self.prefetch
        }
        fn prefetch_insert_follow_ups(&self, hash: u64) {
            self.log.borrow_mut().push(('f', hash));
        }
        fn answers_in_chunks(&self) -> bool {
            self.chunked
        }
    }

    fn evens(prefetch: bool) -> Evens {
        Evens {
            prefetch,
            chunked: false,
            log: RefCell::new(Vec::new()),
        }
    }

    /// Every mode: prefetching or not, answering in chunks or not.
    fn every_mode() -> impl Iterator<Item = Evens> {
        [(false, false), (false, true), (true, false), (true, true)]
            .into_iter()
            .map(|(prefetch, chunked)| Evens {
                chunked,
                ..evens(prefetch)
            })
    }

    /// Lengths around the chunk size.
    const LENGTHS: [usize; 9] = [0, 1, 31, 32, 33, 63, 64, 65, 100];

    #[test]
    fn every_mode_answers_in_order_however_consumed() {
        for len in LENGTHS {
            let expected: Vec<bool> = (0..len as u64).map(|h| h % 2 == 0).collect();
            for filter in every_mode() {
                let at = format!("prefetch {}, chunked {}", filter.prefetch, filter.chunked);
                // All at once (`fold`, which `for_each` calls).
                let mut answers = Vec::new();
                Batch::new(&filter, 0..len as u64).for_each(|answer| answers.push(answer));
                assert_eq!(answers, expected, "{at}, {len} hashes, fold");
                // One by one (`next`) for up to 40 answers, past the first
                // chunk, then the rest at once; the size hint counts what
                // is left at each step.
                let mut batch = Batch::new(&filter, 0..len as u64);
                let mut answers = Vec::new();
                for taken in 0..len.min(40) {
                    assert_eq!(batch.size_hint(), (len - taken, Some(len - taken)), "{at}");
                    answers.extend(batch.next());
                }
                batch.for_each(|answer| answers.push(answer));
                assert_eq!(answers, expected, "{at}, {len} hashes, next then fold");
                // Every hash was looked up once per batch, in order, and,
                // where the filter prefetches, prefetched once, with the 31
                // hashes after it (as many as there were) prefetched before
                // its lookup.
                let log = filter.log.borrow();
                let lookups: Vec<u64> = log.iter().filter(|e| e.0 == 'l').map(|e| e.1).collect();
                let twice: Vec<u64> = (0..len as u64).chain(0..len as u64).collect();
                assert_eq!(lookups, twice, "{at}, {len} hashes");
                if !filter.prefetch {
                    assert!(log.iter().all(|e| e.0 == 'l'), "{at}");
                    continue;
                }
                let first_run = &log[..log.len() / 2];
                for key in 0..len as u64 {
                    let at_key = |kind| first_run.iter().position(|&e| e == (kind, key));
                    let (Some(p), Some(l)) = (at_key('p'), at_key('l')) else {
                        panic!("{at}: key {key} not prefetched or looked up");
                    };
                    let between = first_run[p + 1..l].iter().filter(|e| e.0 == 'p').count();
                    let expected = (LOOKAHEAD - 1).min(len - 1 - key as usize);
                    assert_eq!(between, expected, "{at}, {len} hashes, key {key}");
                }
            }
        }
    }

    #[test]
    fn answers_every_hash_in_order() {
        for prefetch in [false, true] {
            for len in [0, 1, LOOKAHEAD - 1, LOOKAHEAD, LOOKAHEAD + 1, 100] {
                let filter = evens(prefetch);
                let batch = Batch::new(&filter, (0..len).map(|h| h as u64));
                assert_eq!(batch.len(), len);
                let answers: Vec<bool> = batch.collect();
                let expected: Vec<bool> = (0..len as u64).map(|h| h % 2 == 0).collect();
                assert_eq!(answers, expected, "prefetch {prefetch}, {len} hashes");
            }
        }
    }

    #[test]
    fn prefetches_lookahead_keys_ahead() {
        let filter = evens(true);
        let mut batch = Batch::new(&filter, 0..40u64);
        assert_eq!(batch.next(), Some(true));
        // The first answer waited for a full ring.
        let log = filter.log.borrow().clone();
        let prefetched: Vec<u64> = log.iter().filter(|e| e.0 == 'p').map(|e| e.1).collect();
        assert_eq!(prefetched, (0..LOOKAHEAD as u64).collect::<Vec<_>>());
        assert_eq!(log.last(), Some(&('l', 0)));
        // Afterwards, one new hash per answer.
        assert_eq!(batch.next(), Some(false));
        let log = filter.log.borrow().clone();
        assert_eq!(
            log[log.len() - 2..],
            [('p', LOOKAHEAD as u64), ('l', 1)],
            "{log:?}"
        );
        assert_eq!(batch.size_hint(), (38, Some(38)));
        assert_eq!(batch.count(), 38);
        // Every hash was prefetched once and looked up once.
        let log = filter.log.borrow();
        assert_eq!(log.iter().filter(|e| e.0 == 'p').count(), 40);
        assert_eq!(log.iter().filter(|e| e.0 == 'l').count(), 40);
    }

    /// Inserts `keys` (their own hashes) into `filter` by [`insert_ahead`],
    /// logging each insert as `'i'`; hash `fail`, if any, is refused.
    fn insert_logged(
        filter: &mut Evens,
        keys: std::ops::Range<u64>,
        fail: Option<u64>,
    ) -> Result<(), u64> {
        insert_ahead(
            filter,
            keys,
            |_, key| key,
            |f, h| {
                if Some(h) == fail {
                    return Err(h);
                }
                f.log.borrow_mut().push(('i', h));
                Ok(())
            },
        )
    }

    fn logged(filter: &Evens, kind: char) -> Vec<u64> {
        filter
            .log
            .borrow()
            .iter()
            .filter(|e| e.0 == kind)
            .map(|e| e.1)
            .collect()
    }

    #[test]
    fn inserts_every_key_in_order() {
        for prefetch in [false, true] {
            for len in [0, 1, LOOKAHEAD - 1, LOOKAHEAD, LOOKAHEAD + 1, 100] {
                let len = len as u64;
                let mut filter = evens(prefetch);
                assert_eq!(insert_logged(&mut filter, 0..len, None), Ok(()));
                assert_eq!(
                    logged(&filter, 'i'),
                    (0..len).collect::<Vec<_>>(),
                    "prefetch {prefetch}, {len} keys"
                );
                let prefetched = if prefetch { (0..len).collect() } else { vec![] };
                assert_eq!(
                    logged(&filter, 'p'),
                    prefetched,
                    "prefetch {prefetch}, {len} keys"
                );
            }
        }
    }

    #[test]
    fn inserts_run_lookahead_keys_behind_their_prefetch() {
        let mut filter = evens(true);
        insert_logged(&mut filter, 0..100, None).unwrap();
        let log = filter.log.borrow();
        for key in 0..100u64 {
            let at = |kind| log.iter().position(|&e| e == (kind, key)).unwrap();
            // After its own prefetch and before its insert come the
            // prefetches of the next 32 keys, as many as the source had.
            let after = log[at('p') + 1..at('i')]
                .iter()
                .filter(|e| e.0 == 'p')
                .count();
            assert_eq!(after, LOOKAHEAD.min(99 - key as usize), "key {key}");
        }
    }

    #[test]
    fn follow_ups_come_half_the_lookahead_before_the_insert() {
        let mut filter = evens(true);
        insert_logged(&mut filter, 0..100, None).unwrap();
        let log = filter.log.borrow();
        let followed = logged(&filter, 'f');
        // Every key past the ring's first fill, up to the drain, once.
        let first = (LOOKAHEAD - FOLLOW_UP) as u64;
        let last = (100 - FOLLOW_UP) as u64;
        assert_eq!(followed, (first..last).collect::<Vec<_>>());
        for &key in &followed {
            let at = |kind| log.iter().position(|&e| e == (kind, key)).unwrap();
            assert!(at('p') < at('f'), "key {key}");
            let inserts_between = log[at('f')..at('i')].iter().filter(|e| e.0 == 'i').count();
            assert_eq!(inserts_between, FOLLOW_UP, "key {key}");
        }
        // No follow-ups for tables not worth prefetching.
        let mut small = evens(false);
        insert_logged(&mut small, 0..100, None).unwrap();
        assert!(logged(&small, 'f').is_empty());
    }

    #[test]
    fn infallible_inserts_take_every_key() {
        let mut filter = evens(true);
        insert_all_ahead(
            &mut filter,
            0..50u64,
            |_, key| key,
            |f, h| {
                f.log.borrow_mut().push(('i', h));
            },
        );
        assert_eq!(logged(&filter, 'i'), (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn an_insert_error_stops_the_batch() {
        for prefetch in [false, true] {
            for fail in [0, 5, LOOKAHEAD as u64, 60, 99] {
                let mut filter = evens(prefetch);
                assert_eq!(insert_logged(&mut filter, 0..100, Some(fail)), Err(fail));
                assert_eq!(
                    logged(&filter, 'i'),
                    (0..fail).collect::<Vec<_>>(),
                    "prefetch {prefetch}"
                );
            }
        }
    }

    #[test]
    fn removes_try_every_key_in_order_and_count_successes() {
        for prefetch in [false, true] {
            for len in [0u64, 1, LOOKAHEAD as u64, 100] {
                let mut filter = evens(prefetch);
                // "Removes" the even hashes; an odd one fails, and the batch
                // goes on past it.
                let removed = remove_ahead(
                    &mut filter,
                    0..len,
                    |_, key| key,
                    |f, h| {
                        f.log.borrow_mut().push(('r', h));
                        h % 2 == 0
                    },
                );
                assert_eq!(removed as u64, len.div_ceil(2), "prefetch {prefetch}");
                assert_eq!(logged(&filter, 'r'), (0..len).collect::<Vec<_>>());
                let prefetched = if prefetch { (0..len).collect() } else { vec![] };
                assert_eq!(logged(&filter, 'p'), prefetched, "prefetch {prefetch}");
                // Follow-ups are for inserts only.
                assert!(logged(&filter, 'f').is_empty(), "prefetch {prefetch}");
            }
        }
    }

    #[test]
    fn small_tables_are_not_prefetched() {
        let filter = evens(false);
        let answers: Vec<bool> = Batch::new(&filter, 0..5u64).collect();
        assert_eq!(answers, [true, false, true, false, true]);
        let log = filter.log.borrow();
        assert!(log.iter().all(|e| e.0 == 'l'), "{log:?}");
        assert_eq!(log.len(), 5);
    }
}
