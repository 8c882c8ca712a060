//! A cuckoo filter: an approximate set that supports deletes, fills to about
//! 95 % of its slots, and never loses a key.
//!
//! Use it where items come and go (caches, sessions, dedup windows) and a
//! Bloom filter's lack of deletes would force periodic rebuilds. It costs
//! about 10.5 bits per item for a 1 % false-positive rate (a Bloom filter:
//! 9.6, without deletes; a counting Bloom filter: 38, with them), and an
//! insert past its capacity returns [`Error::Full`] instead of losing a
//! key. For a set that never changes, a static filter (the `xor-filter`
//! crate) is smaller still.
//!
//! How it works: partial-key cuckoo hashing (Fan, Andersen, Kaminsky,
//! Mitzenmacher, "Cuckoo Filter: Practically Better Than Bloom", CoNEXT
//! 2014). Each item is an `f`-bit fingerprint (a few bits of its hash)
//! stored in one of two buckets of four slots. The second bucket is
//! computed from the first and the fingerprint alone, so a resident can be
//! moved ("kicked") to its other bucket without knowing its key, and an item
//! can be removed by clearing its fingerprint.
//!
//! # Space and false-positive rate
//!
//! [`CuckooFilter::with_fpr(n, p)`](CuckooFilter::with_fpr) uses
//! `f = ⌈log2(8 / p)⌉`-bit fingerprints at 95 % load: about `f / 0.95` bits
//! per key, and a false-positive rate of at most `8 · load / (2^f − 1)` < p.
//! (Rates of 12.5 % and more give 4- to 6-bit fingerprints, which are sized
//! for 80 to 93 % load; see [`TARGET_LOAD`].)
//! Inserts first fail at about 97 % load. Measured at n = 10,000,000
//! (bits/key) and n = 200,003 (FPR, seed 42):
//!
//! | target p | f  | bits/key | measured FPR at n items |
//! |----------|----|----------|-------------------------|
//! | 3 %      | 9  | 9.49     | 1.44 %                  |
//! | 1 %      | 10 | 10.54    | 0.75 %                  |
//! | 0.2 %    | 12 | 12.66    | 0.18 %                  |
//! | 0.02 %   | 16 | 16.86    | 0.011 %                 |
//!
//! # Examples
//!
//! ```
//! use cuckoo::CuckooFilter;
//!
//! let mut sessions = CuckooFilter::with_fpr(10_000, 0.01)?;
//! sessions.insert("session-4f1c")?;
//! sessions.insert("session-9a0e")?;
//! assert!(sessions.contains("session-4f1c"));
//!
//! // Deletes are exact for items that were inserted.
//! assert!(sessions.remove("session-4f1c"));
//! assert!(!sessions.contains("session-4f1c"));
//! assert!(sessions.contains("session-9a0e"));
//! assert_eq!(sessions.len(), 1);
//!
//! // Bytes round-trip, eviction state included.
//! let copy = CuckooFilter::from_bytes(&sessions.to_bytes())?;
//! assert!(copy.contains("session-9a0e"));
//! # Ok::<(), cuckoo::Error>(())
//! ```
//!
//! # Design decisions
//!
//! - **A victim slot, so no key is ever lost.** When 500 evictions do not find
//!   a free slot, the textbook filter (and the `cuckoofilter` crate) drops the
//!   fingerprint in hand, which belongs to some earlier item: a false
//!   negative. Here it goes to a one-entry victim slot that lookups and
//!   removes also check; from then on inserts return [`Error::Full`] (and
//!   change nothing) until a remove frees a slot that the victim can reach by
//!   a chain of moves, and then the victim is moved back into the table.
//! - **Near capacity: both buckets at once, the emptier one, and short chains
//!   first.** Past half load an insert reads both of its buckets before looking
//!   at either (so the second bucket's cache miss overlaps the first's) and
//!   puts the fingerprint in the emptier one (judged by its lowest empty
//!   slot, exact until removes leave holes), which leaves fewer items with
//!   both buckets full later (31 % of the inserts from 85 to 90 % load instead
//!   of 38 %). When both are full, a shallow breadth-first search looks for a
//!   chain of one or two moves to a free slot: the other buckets of the 8
//!   residents, then of their 32 residents, each level read all at once so that
//!   it costs about one cache miss where the paper's random walk pays one miss
//!   per step; a resident moves into the emptiest of the first level's
//!   candidates, again for evenness. Only when that fails (for 4 % of the
//!   inserts that take the load from 90 % to 95 %) does the random walk of up
//!   to 500 evictions run, each step first reading the other buckets of the
//!   current bucket's four residents at once and moving one into a free slot if
//!   it can. A failed walk is followed by a bounded breadth-first search (at
//!   most 512 buckets), so inserts first fail at about 97.5 % load instead of
//!   95 %.
//! - **Fingerprints of any width, packed.** The width follows the target
//!   rate, 4 to 16 bits, and buckets of `4f` bits lie back to back in a bit
//!   array, so a 10-bit fingerprint costs 10 bits, not 16. A bucket is read as
//!   one (possibly unaligned) 64-bit window, and its four slots are compared at
//!   once with the SWAR "has zero lane" trick: no loop, no branch per slot.
//! - **No power-of-two tables.** The first bucket is `reduce(x, m)`
//!   (multiply-shift) of the mixed hash `x`; the alternate bucket is
//!   `(c(fp) − i) mod m`, an involution for every `m`, computed with one
//!   conditional add instead of a division. The paper's `i XOR h(fp)` needs
//!   `m` a power of two, which wastes up to half the memory. Large tables,
//!   and every table of 4 to 6 bits, keep `c(fp)` for every fingerprint
//!   (4 KiB at 10 bits, 256 KiB at 16, at most 1/128 of a large filter;
//!   256 bytes at most for narrow ones), which takes its multiplications
//!   off the path to the second bucket: lookups and removes at 1M keys
//!   about 5 % faster at 10 bits, lookups 8 to 17 % faster at 13 to 16
//!   bits, measured in `cargo xtask compare`. Up to 12 bits, there `c(fp)`
//!   is SplitMix64's finalizer of the fingerprint, reduced; in the tables
//!   that compute it on every lookup, and from 13 bits, the fingerprint
//!   times the golden ratio, one multiply. The golden ratio spaces the
//!   offsets of consecutive fingerprints almost evenly, and with few
//!   fingerprint values in a large table that leaves items too few paths:
//!   inserts met `Full` before their item count (4 to 6 bits at some sizes
//!   from 479,000 items, 7 and 8 bits at 30 million). Where it is still
//!   used the table is small or the fingerprints have 13 bits or more, and
//!   no such failure showed.
//! - **Mixing that survives structured hashes, kept off the critical
//!   path.** Pre-hashed keys (`insert_hash`) are often sequential or shifted
//!   ids, so the hash goes through SplitMix64's finalizer (without its last
//!   xor-shift, which only serves low output bits); the fingerprint is taken
//!   halfway through it, because the second bucket depends on the
//!   fingerprint and a lookup waits for that bucket's load. A test inserts
//!   eleven id shapes and checks the rate against the model and that
//!   `with_fpr(n, p)` takes all n without `Full`; one-multiply mixers fail
//!   it. Details in `position.rs`.
//! - **Lookups sized for memory-level parallelism.** A lookup that misses
//!   the cache waits on two independent loads; how many lookups the CPU
//!   overlaps is set by how many instructions each one holds in the
//!   schedulers and for how long. So the lookup path tests the (almost
//!   always empty) victim slot first, loads both buckets before comparing
//!   anything, branches on nothing it loaded, skips masking the windows,
//!   and reads even-width buckets (whole bytes) without a shift. On x86-64
//!   the two windows are loaded straight into one SSE2 register (baseline
//!   on every x86-64 CPU), odd-width windows are shifted to their buckets
//!   there, and the comparison is done there, so the work that waits on
//!   memory leaves the integer scheduler free (the same test in general
//!   registers is about 15 % slower). A lookup is 52 instructions at
//!   `f = 10` (63 at odd widths); absent-key lookups at 1,000,000 keys take
//!   0.80–0.93× the `cuckoofilter` crate's time, though its table is
//!   smaller (8-bit fingerprints) and its lookup does not mix. An insert
//!   into a bucket with room is one load and one store of the window as
//!   read, the fingerprint OR-ed into its empty lane. These unchecked
//!   8-byte accesses (and the SSE2 loads) are the crate's only `unsafe`: in
//!   `table.rs`, plus the lookup's call in `filter.rs` (bounds checks cost
//!   about 8 % of a lookup). The offsets are in range because every bucket
//!   is `< m`: by construction on the lookup path (`reduce` and `alt` both
//!   return buckets `< m`), by one compare on the insert and remove paths.
//! - **Batched lookups.** `contains_batch` answers many queries in order,
//!   requesting each query's two buckets 32 queries ahead
//!   ([`filter_core::batch`]), so that a table outside the cache serves
//!   many misses at once. In one full `cargo xtask compare` on a shared
//!   2-core AMD EPYC, at 10M keys and p = 0.1 % (a 17 MB table, out of
//!   cache): 7.4 ns per query against 24–27 ns one by one; at p = 1 % (a
//!   13 MB table that competes for the shared last-level cache, and stayed
//!   in it in that run): 5.1 against 5.6–6.6 ns, and 24–28 ns one by one
//!   in runs where other tenants held that cache; batched times move far
//!   less. Tables under 8 MiB are looked up one by one: in cache, locating
//!   every key twice costs more than the prefetch saves (prefetched, 1M
//!   keys, 1.3 MB: 6.5 against 4.9 ns).
//! - **Batched inserts.** `insert_batch` (and `insert_hash_batch`) inserts
//!   many keys in order with the same two-bucket prefetch 32 keys ahead,
//!   leaving the table byte for byte as one-by-one inserts would, and
//!   stopping at the first error (typically `Full`) as they would. Past
//!   80 % load it also requests, 16 keys ahead, the buckets a full bucket's
//!   residents would move to. Filling a 10M-key, p = 1 % table (13 MB) took
//!   17.3 ns per key against 21.0 ns one by one in one full
//!   `cargo xtask compare` (the `cuckoofilter` crate: 20.5 ns one by one,
//!   at 60 % load), and a p = 0.1 % one (17 MB) 26.9 against 47.1 ns, on a
//!   shared 2-core AMD EPYC; a 1M-key table (1.3 MB) is filled one by one
//!   either way.
//! - **Batched removals.** `remove_batch` (and `remove_hash_batch`) removes
//!   many keys in order with the same prefetch and returns how many it
//!   removed, leaving the table byte for byte as one-by-one removals would
//!   (a key not found is skipped and changes nothing). Emptying the
//!   10M-key, p = 1 % table took 7.8 ns per key against 11.8 ns one by one
//!   in one full `cargo xtask compare` on the same machine.
//! - **Seeded evictions.** Which resident to evict is drawn from a
//!   `rand_xoshiro` SplitMix64 generator with a fixed seed whose state is part
//!   of the byte format: the same operations give the same table, on every
//!   run and after a reload.
//! - **Duplicates are bounded, not corrupting.** An item can be inserted up to
//!   [`MAX_COPIES`] = 8 times (every slot of its two buckets); the ninth
//!   insert is [`Error::Full`] and changes nothing.
//! - **Hashes are mixed, unless you promise they are uniform.** The default
//!   filter puts every 64-bit hash through two multiply rounds before taking
//!   its bucket and fingerprint (`position.rs`), so that `insert_hash` of
//!   sequential or shifted ids still fills to 97 % at its rate. That is ten
//!   instructions of a lookup of about fifty, and wasted on the output of a
//!   good hasher. A filter of [`UniformHashes`]
//!   ([`assume_uniform_hashes`](CuckooFilter::assume_uniform_hashes)) takes
//!   the hash as it is: at 10^6 keys and 1 %, absent-key lookups took 2.64
//!   ns against 3.73 in the committed `cargo xtask compare` report (a 2-core
//!   AMD EPYC), 0.58× the `cuckoofilter` crate's on the same cheap hasher
//!   (0.59–0.61× over eight runs), where the default takes 0.82×. Structured hashes then fill it early (tested: ids `i << 32`
//!   share one fingerprint and stop at a few dozen), and never lose a key.
//!   The choice is a type parameter, `CuckooFilter<S, Q>`, so the default
//!   pays nothing for it (as a field, its branch cost the uniform lookups
//!   0.1–0.15 ns); see [`filter_core::hash_quality`].
//!
//! # Crate features
//!
//! None. The crate depends on `filter-core` and `rand_xoshiro` only.

#![deny(missing_docs)]
#![deny(unsafe_code)]

mod batch;
mod encoding;
mod filter;
mod position;
mod search;
mod std_traits;
mod table;
#[cfg(test)]
mod test_rng;

pub use filter::{CuckooFilter, MAX_COPIES, MAX_KICKS, TARGET_LOAD};
pub use filter_core::{
    AnyHashes, DefaultHashBuilder, Error, Filter, HashQuality, Insert, Remove, UniformHashes,
};

use std::hash::{BuildHasher, Hash};

impl<T: Hash + ?Sized, S: BuildHasher, Q: HashQuality> Filter<T> for CuckooFilter<S, Q> {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        CuckooFilter::contains(self, item)
    }

    fn memory_bytes(&self) -> usize {
        CuckooFilter::memory_bytes(self)
    }
}

impl<T: Hash + ?Sized, S: BuildHasher, Q: HashQuality> Insert<T> for CuckooFilter<S, Q> {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<(), Error> {
        CuckooFilter::insert(self, item)
    }
}

impl<T: Hash + ?Sized, S: BuildHasher, Q: HashQuality> Remove<T> for CuckooFilter<S, Q> {
    #[inline]
    fn remove(&mut self, item: &T) -> bool {
        CuckooFilter::remove(self, item)
    }
}

/// The README's example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
