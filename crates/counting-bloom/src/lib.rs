//! A counting Bloom filter: a Bloom filter that can also **remove** items and
//! **estimate how many times** an item was inserted.
//!
//! A classic Bloom filter sets k bits per item and can never clear them,
//! because a bit may be shared with other items. Replacing each bit with a
//! small counter (Fan, Cao, Almeida and Broder, "Summary Cache", 2000) makes
//! insert an increment and remove a decrement, so a set whose members come
//! and go (a blocklist, a cache directory, the flows currently open) can be
//! kept in a filter without rebuilding it.
//!
//! [`CountingBloomFilter::with_fpr(n, p)`](CountingBloomFilter::with_fpr) is
//! sized exactly like the classic filter (same m, same k) with 4-bit counters,
//! so it costs **4× the memory** of a classic Bloom filter: about 38.4 bits
//! per key at p = 1 %, 57.5 at p = 0.1 %.
//! [`BlockedCountingBloomFilter`] keeps each item's counters in two cache
//! lines for faster lookups on large sets, at 39.4 and 61.8 bits per key. If
//! you never remove, use the classic filter; if you remove, the cuckoo
//! filter does so in about a quarter of the space, up to its load limit.
//! Neither can tell a false positive from a member, so both require removing
//! only what was inserted (see "`remove` checks first" below).
//!
//! # Examples
//!
//! ```
//! use counting_bloom::CountingBloomFilter;
//!
//! let mut filter = CountingBloomFilter::with_fpr(10_000, 0.01)?;
//! filter.insert("alice");
//! filter.insert("bob");
//! filter.insert("bob");
//! assert!(filter.contains("alice"));
//! assert_eq!(filter.count("bob"), 2);
//!
//! assert!(filter.remove("alice"));
//! assert!(!filter.contains("alice"));
//! assert!(filter.contains("bob"));      // removing alice never hides bob
//! assert!(!filter.remove("carol"));     // certainly absent: nothing changes
//! # Ok::<(), counting_bloom::Error>(())
//! ```
//!
//! The blocked type has the same methods:
//!
//! ```
//! use counting_bloom::BlockedCountingBloomFilter;
//!
//! let mut filter = BlockedCountingBloomFilter::with_fpr(10_000_000, 0.01)?;
//! assert_eq!(filter.memory_bytes() as u64, filter.blocks() * 64);
//! assert_eq!(filter.memory_bytes(), 49_270_592);            // 39.4 bits per key
//! filter.insert(&42u64);
//! filter.insert(&42u64);
//! assert_eq!(filter.count(&42u64), 2);
//! assert!(filter.remove(&42u64));
//! assert!(filter.contains(&42u64));
//! # Ok::<(), counting_bloom::Error>(())
//! ```
//!
//! # Design decisions
//!
//! - **4-bit counters, packed 16 to a `u64`.** With the optimal k, the chance
//!   that any counter ever reaches 16 is about 1.37e-15 × m, so 4 bits suffice
//!   and 8 would double the memory for nothing. Packing into words lets merge
//!   add 16 counters per step.
//! - **Saturation instead of overflow.** A counter that reaches 15 stays at 15:
//!   it is never incremented past it and never decremented again, since the
//!   filter no longer knows how many items share it. That trades a stuck
//!   non-zero counter (a slightly higher false-positive rate) for never
//!   creating a false negative. [`saturated_counters`](CountingBloomFilter::saturated_counters)
//!   says how many there are.
//! - **`remove` checks first.** If any of the item's counters is zero the
//!   item was certainly never inserted: `remove` returns `false` and changes
//!   nothing. It cannot recognise a *false positive*, though: removing an item
//!   that was never inserted but whose counters are all non-zero decrements
//!   other items' counters and can make them false negatives. Only remove
//!   what you inserted. The cuckoo filter has the same rule (a mistaken
//!   remove deletes the fingerprint it matches); it limits the damage to at
//!   most one other item, where here k counters shared with many are
//!   decremented.
//! - **One hash per key.** Positions come from one 64-bit hash by double
//!   hashing and multiply-shift range reduction (no `%`, any table size),
//!   shared with the classic Bloom filter: see [`filter_core::probes`].
//! - **Two layouts, two types.** [`CountingBloomFilter`] puts an item's k
//!   counters anywhere in the table, like the classic filter's bits, so its
//!   false-positive rate is the classic one at exactly 4× the classic memory
//!   (small tables probe a cubic or hashed sequence to keep it there: see
//!   the type docs);
//!   a lookup touches up to k cache lines. [`BlockedCountingBloomFilter`]
//!   puts them in **two** 64-byte blocks (⌈k/2⌉ and ⌊k/2⌋ counters, one per
//!   64-bit word), so a lookup touches two cache lines, read together; the
//!   uneven load of the blocks costs counters: 2.7 % more memory than
//!   [`CountingBloomFilter`] at p = 1 %, 7.4 % at 0.1 %. Why two blocks and not
//!   one: with all k counters in one 128-counter block the load variance is
//!   so large that p = 1 % needs 4.47× the classic memory, past the 4.3×
//!   budget; splitting halves the variance. The two byte formats are
//!   distinct kinds, so they never mix. Since format 1.5 the blocked
//!   layout takes a key's two blocks and counters from two independent
//!   folded products of its hash rather than two `mix64`s: fewer
//!   instructions before the loads (1M keys, 1 %: lookups 7.7 ns against
//!   8.1, removes 12.6 against 13.5; 10M keys: removes 63 against 83), and
//!   no clumping for hashes that are multiples of the golden ratio, where
//!   the old pair measured 1.31× p at 0.1 %. Bytes of 1.4 and earlier load
//!   with the counters they were built with.
//! - **Hashes are mixed, unless you promise they are uniform.** Both
//!   types spread every 64-bit hash (a folded product) before taking
//!   positions from it, so that `insert_hash` of sequential or strided ids
//!   still meets p. On the output of a good hasher that is wasted work on
//!   the path to every load. A filter of [`UniformHashes`]
//!   ([`assume_uniform_hashes`](CountingBloomFilter::assume_uniform_hashes))
//!   takes the hash as it is: the classic layout's probes start from it,
//!   and the blocked layout's first word is the hash itself, so its first
//!   load waits on no multiply; the second word stays the default's folded
//!   product, since a second word made of the hash's own bits gave small
//!   filters 1.1× their target (`uniform.rs` says why). Uniform hashes
//!   meet p as before; structured ones then share counters (tested:
//!   sequential ids measured 4.9× p in the classic layout and 18× in the
//!   blocked one), and never lose a key. The choice is a type
//!   parameter, `CountingBloomFilter<S, Q>`, so the default pays nothing
//!   for it, and a header flag of the bytes (format 1.6); see
//!   [`filter_core::hash_quality`].
//! - **Which to pick.** [`BlockedCountingBloomFilter`] is the faster one.
//!   Measured on a shared 2-core AMD EPYC (32 MiB L3), same keys, pre-hashed,
//!   p = 1 %, in one full `cargo xtask compare`: at 1M keys its lookups
//!   took 6.2–6.3 ns against 9.5–9.6 ns for [`CountingBloomFilter`] (and
//!   about 8.5 ns for the classic `BloomFilter`), its inserts about half
//!   of [`CountingBloomFilter`]'s time and its removes about a third; at
//!   10M keys (48–49 MB tables, in DRAM) 41–42 ns against 63 ns. Where a
//!   classic filter's table still fits the last-level cache and this one
//!   does not (10M keys at 1 %: 12 MB against 49 MB), its lookups cost
//!   about 4× the classic filter's (3.9–4.0×, misses and hits): two DRAM
//!   misses cost more than a few cache hits. It uses AVX2 where the CPU
//!   has it (detected at run time). Pick [`CountingBloomFilter`] when
//!   memory matters most: it is 2.7 % smaller at p = 1 % and 7.4 % at
//!   0.1 %, and it stays within 4.3× of a classic filter at every p, where
//!   the blocked one does only for p ≥ 0.1 %. Both meet p at every size.
//!   The classic layout's small tables probe a cubic sequence (format 1.1),
//!   the smallest a hashed one (1.3), and take the few counters more that
//!   the spread of a small table's fill costs: 0.99× p at 10 items and 1 %,
//!   0.99× at 100 items and 0.1 %, 0.75× for one item at 10^−6 (means over
//!   20,000 key sets). The blocked one has two blocks (256
//!   counters) at least, so small sets sit far below p and cost more per
//!   item: 0.05× p at 10 items and 1 %.
//! - **Batched lookups.** `contains_batch` answers many queries in order,
//!   requesting each query's cache lines 32 queries ahead
//!   ([`filter_core::batch`]), so that a table in DRAM serves many misses
//!   at once. At 10M keys and p = 1 % (48–49 MB tables), per query:
//!   18.6 ns against 62.9 ns one by one for [`CountingBloomFilter`],
//!   12.6 against 41.4 ns for [`BlockedCountingBloomFilter`], in one full
//!   `cargo xtask compare` on a shared 2-core AMD EPYC. Tables under
//!   8 MiB are not prefetched. On CPUs with AVX2 a batch answers 32
//!   queries at a time in a loop compiled for it
//!   ([chunks](filter_core::batch#chunks)): for [`CountingBloomFilter`] at
//!   every size, for [`BlockedCountingBloomFilter`] from 8 MiB, its AVX2
//!   kernels inlined (in cache that loop measured slower than one call
//!   per key).
//! - **Batched inserts.** `insert_batch` (and `extend`, which calls it)
//!   inserts many items in order with the same lookahead, for loading a
//!   filter in bulk. The counters end exactly as one-by-one inserts leave
//!   them, saturation included. At 10M keys and p = 1 %, in one full
//!   `cargo xtask compare` on the same shared EPYC: 28.9 ns per key against
//!   107.4 ns one by one for [`CountingBloomFilter`], 16.9 against 55.7 ns
//!   for [`BlockedCountingBloomFilter`]. Tables under 8 MiB are filled one
//!   by one.
//! - **Batched removals.** `remove_batch` removes many items in order with
//!   the same lookahead (expiring a day's entries, a blocklist's removals
//!   applied in bulk) and returns how many it removed; the counters end
//!   exactly as one-by-one removals leave them, and the rule of `remove`
//!   holds for each item. At 10M keys and p = 1 %, in the same full run:
//!   33.2 ns per key against 128.3 ns one by one for
//!   [`CountingBloomFilter`], 14.9 against 64.9 ns for
//!   [`BlockedCountingBloomFilter`]. Tables under 8 MiB are emptied one by
//!   one.
//! - **Sized by an exact model.** The blocked filter's rate follows exactly
//!   from its layout given Poisson block loads (the classic independent-counter
//!   approximation overstated it by up to 4 %, and so oversized filters);
//!   `with_fpr` picks the hash count and block count that meet p with the
//!   fewest blocks, and the measured rate sits at p.
//! - **Lookups four counters at a time.** Where the CPU has AVX2
//!   (detected at run time), [`CountingBloomFilter`] computes, fetches
//!   (`vpgatherqq`) and tests an item's counters four at a time, for
//!   every table but the smallest (cache-resident, where gathers do not
//!   pay) up to 2 GiB with at most 16 hashes. Its portable loop spent about ten instructions per counter
//!   against eight per bit in the classic filter, and a lookup that waits on
//!   memory is slowed by every instruction it holds: at 1M keys its lookups
//!   took 1.35–1.40× the classic filter's, and took 1.12–1.18× with the
//!   gathers at p = 1 %, 1.03–1.07× at 0.1 % (across runs, before format
//!   1.4); at 10M keys and 1 % they went
//!   from 121 to 65 ns (see `filter_simd.rs`). Format 1.4's folded probes
//!   then sped the classic filter up more than this one (its lookups wait
//!   on the mix more than the gathers do): in a full `cargo xtask compare`
//!   at 247d9ef, at 1M keys, this filter's lookups took 1.41× the classic
//!   filter's at 1 % (14.4 against 10.2 ns) and 1.20× at 0.1 % (18.9
//!   against 15.8), and in the committed report, at 7a55752, 1.32× at 1 %
//!   (8.45 against 6.39 ns, the README's figure) and 1.20× at 0.1 % (10.7
//!   against 8.92). Without AVX2, tables up
//!   to 16 MiB are probed without branches (all loads overlap, no
//!   mispredicted early exit) and larger ones exit at the first zero
//!   counter, saving DRAM bandwidth. See
//!   [`contains_hash`](CountingBloomFilter::contains_hash). The blocked
//!   lookup never branches on the counters: its two lines are read before
//!   either is tested.
//!
//! # Crate features
//!
//! None. The crate depends only on `filter-core`. Both filters' AVX2 code
//! is chosen at run time (`is_x86_feature_detected!`), so one build runs
//! everywhere; the portable code computes the same answers.
//!
//! # Unsafe code
//!
//! Only where a benchmark showed it pays, each block stating why it is
//! sound: the blocked filter's AVX2 kernels (`blocked_simd.rs`: lookup,
//! insert, remove), the classic-layout filter's AVX2 lookup
//! (`filter_simd.rs`: its gathers read only words of the table, since every
//! probe is below the counter count), and that filter's portable counter
//! read (`filter.rs`), whose bounds check can never fail for the same
//! reason and cost about 6 % of a lookup at 1M keys.

#![deny(missing_docs)]
#![deny(unsafe_code)]

mod batch;
mod blocked;
mod blocked_encoding;
mod blocked_estimates;
mod blocked_simd;
mod blocked_sizing;
mod counter_block;
mod counters;
mod dleft;
mod encoding;
mod filter;
mod filter_simd;
mod kernel;
mod std_traits;
mod uniform;

pub use blocked::BlockedCountingBloomFilter;
pub use blocked_sizing::{MAX_BLOCKED_HASHES, MAX_BLOCKS};
pub use dleft::DLeftCountingBloomFilter;
pub use filter::{CountingBloomFilter, MAX_COUNTERS, MAX_HASHES};
pub use filter_core::{
    AnyHashes, DefaultHashBuilder, Error, Filter, HashQuality, Insert, ProbeSequence, Remove,
    UniformHashes,
};

/// The README's example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
