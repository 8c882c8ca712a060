//! Bloom filters: a set that answers "is x in?" with **no false negatives**
//! and a tunable rate of false positives, in about 1.44 · log2(1/p) bits per
//! key, whatever the keys are.
//!
//! Two types, for two priorities:
//!
//! | type | bits/key at 1 % | at 0.1 % | memory accesses per lookup | when |
//! | --- | --- | --- | --- | --- |
//! | [`BloomFilter`] | 9.59 | 14.38 | k (7 at 1 %) | the smallest dynamic filter; the textbook one |
//! | [`BlockedBloomFilter`] | 10.53 (1.098×) | 16.89 (1.175×) | 1 | the fastest; production systems' choice |
//!
//! Both accept keys one at a time, forever (no "full"), never forget a key,
//! merge with [`BloomFilter::union`] / [`BloomFilter::intersect`], estimate
//! their own rate and cardinality from their fill, and save to bytes that
//! refuse to load under a hasher that would give false negatives.
//! Neither can remove a key: see the `counting-bloom` and `cuckoo` crates.
//!
//! # Threads
//!
//! Every filter is `Send` and `Sync` (with a hasher that is): share one
//! behind an `Arc`, or borrow it into scoped threads, and query it from all
//! of them at once. Inserting takes `&mut self`, so threads that insert
//! into one filter need either a lock around it, or one of the atomic
//! twins, whose `insert` takes `&self`: [`AtomicBloomFilter`] and
//! [`AtomicBlockedBloomFilter`], the two filters with their bits in atomic
//! words (bit for bit the same filters and bytes, at several times the
//! cost per insert; their docs give the figures). The blocked one inserts
//! about twice as fast, because a key's bits share one cache line. Threads
//! that each build a filter of their own can merge them at the end with
//! [`BloomFilter::union`] or [`BlockedBloomFilter::union`].
//!
//! # Hash quality
//!
//! Both filters, and both atomic twins, take a second type parameter,
//! `Q`: [`AnyHashes`] by default, where the filter mixes every hash before
//! taking positions from it (so sequential ids passed to `insert_hash` are
//! safe), or [`UniformHashes`], where it takes them from the hash as it is.
//! The mix is on the path to a lookup's first load, and a lookup that hits
//! the cache is short: without it, at 10^6 keys and 1 %, classic lookups
//! took 5.6 ns instead of 6.5 and blocked ones 1.55 instead of 2.0
//! (`cargo xtask compare`). Keys hashed by the default hasher, or hashes
//! from another good hash function, keep the filter's rate; structured
//! values do not (the rate can reach 100 %, though no member is ever
//! lost). An empty filter becomes uniform with `assume_uniform_hashes`,
//! and the choice is part of the type and of the bytes: a uniform
//! filter's bytes load with `from_bytes_with_quality(.., UniformHashes)`
//! and as nothing else ([`Error::HashQualityMismatch`]).
//!
//! ```
//! use bloom::{BlockedBloomFilter, UniformHashes};
//!
//! let mut fast: BlockedBloomFilter<_, UniformHashes> =
//!     BlockedBloomFilter::with_fpr(10_000, 0.01)?.assume_uniform_hashes()?;
//! fast.insert("https://example.com/");
//! assert!(fast.contains("https://example.com/"));
//! # Ok::<(), bloom::Error>(())
//! ```
//!
//! # Examples
//!
//! ```
//! use bloom::{BlockedBloomFilter, BloomFilter};
//!
//! let mut seen = BloomFilter::with_fpr(10_000, 0.01)?;
//! assert!(seen.insert_unique("https://example.com/"));   // new
//! assert!(!seen.insert_unique("https://example.com/"));  // (probably) seen before
//! assert!(seen.contains("https://example.com/"));
//!
//! let mut fast = BlockedBloomFilter::with_fpr(10_000, 0.01)?;
//! fast.insert(&42u64);
//! fast.extend(&[7u64, 8, 9]);                            // `insert` for each
//! assert!(fast.contains(&42u64) && fast.contains(&8u64));
//!
//! let restored = BlockedBloomFilter::from_bytes(&fast.to_bytes())?;
//! assert!(restored.contains(&42u64));
//! # Ok::<(), bloom::Error>(())
//! ```
//!
//! # Design decisions
//!
//! - **One hash per key.** The hasher runs once; the classic filter derives
//!   its k positions by double hashing ([`filter_core::probes`]; a cubic
//!   variant in small tables, a hashed one in the smallest), the blocked
//!   filter its block
//!   from the high bits of one multiply and its eight lane bits from salted
//!   multiplies of a fold of that product. The `*_hash` methods
//!   take that 64-bit hash directly, and the filter mixes it first, so a
//!   poor hash (sequential ids) still spreads over the table: the classic
//!   filter with [`filter_core::probes::folded_product`] (with
//!   [`filter_core::mix64`] in small tables, and in large ones loaded from
//!   bytes older than format 1.4), the blocked filter with one multiply.
//!   Where the hashes are uniform already the mix is skipped at the
//!   caller's word ([`UniformHashes`], above); only the first mix: the
//!   probe step, the cubic term and the hashed sequence's per-probe mix
//!   stay, since they keep one key's probes apart.
//!   The mixers are fixed and public, so hashes crafted against them are
//!   not spread: ids shifted left by 16 bits and put through the inverse of
//!   `mix64` (against the classic filter's former mixer), or multiplied by
//!   the inverse of the blocked multiplier, measured false-positive rates
//!   of 99.9 % and 100 % at a 1 % target. Hashes from an untrusted
//!   source belong in `insert`/`contains` with a seeded hasher
//!   ([`DefaultHashBuilder::with_seed`]), not in the `*_hash` methods.
//! - **No `%`, no power-of-two tables.** Positions and blocks are chosen by
//!   multiply-shift ([`filter_core::reduce`]), so a filter has exactly the
//!   bits its target needs.
//! - **Classic lookups do not branch on the bits they read, unless the
//!   table outgrows the cache.** A lookup that stops at the first unset bit
//!   branches on whether the key is a member, which in a stream mixing
//!   members and non-members the CPU cannot predict: at 1M keys, 1 %, a
//!   shuffled half-member stream took 13.9 ns per lookup with an exit after
//!   two probes and 9.2 ns with all k probes loaded and combined without a
//!   branch (`fastbloom`, one branch per probe: 12.6 ns), while all-member
//!   and all-miss batches were level. Past 16 MiB
//!   ([`filter_core::BRANCH_FREE_MAX_BYTES`]) the table lives in DRAM and a
//!   miss's extra loads cost more than a misprediction, so there a lookup
//!   checks two probes first (which ends three misses in four) and the rest
//!   together.
//! - **Batched lookups.** `contains_batch` answers many queries in order,
//!   requesting each query's cache lines 32 queries ahead
//!   ([`filter_core::batch`]), so that a table outside the cache serves
//!   many misses at once. It is used from 8 MiB and pays once the table is
//!   out of cache. In one full `cargo xtask compare` on a shared 2-core AMD
//!   EPYC (32 MiB L3), at 10M keys and p = 0.1 % (18 MB classic, 21 MB
//!   blocked), per query: 23.8 ns against 43.8 ns one by one for
//!   [`BloomFilter`], 4.2 against 5.3 ns for [`BlockedBloomFilter`]. At
//!   p = 1 % (12 MB and 13 MB, tables that compete for the shared
//!   last-level cache and stayed in it in that run) it gained less: 10.8
//!   against 11.0 ns, 2.6 against 3.2 ns. Batched times also move far less
//!   from run to run than lone lookups, which wait on whatever other
//!   tenants left in that cache (19–40 ns for the classic filter at 1 % in
//!   other runs). Smaller tables are not prefetched. On CPUs with AVX2 a
//!   batch answers 32 queries at a time in a loop compiled for it
//!   ([chunks](filter_core::batch#chunks)): for [`BlockedBloomFilter`] at
//!   every size, its AVX2 probe inlined instead of called per query, and
//!   for [`BloomFilter`] from 8 MiB (in cache that loop measured slower).
//! - **Batched inserts.** `insert_batch` (and `extend`, which calls it)
//!   inserts many keys in order with the same lookahead, for loading a
//!   filter in bulk (an SSTable's keys as it is written, a blocklist at
//!   start-up). The filter ends bit for bit as one-by-one inserts leave it.
//!   It pays out of cache: at 10M keys and p = 0.1 %, in the same run,
//!   24.0 ns per key against 38.3 ns one by one for [`BloomFilter`], 4.5
//!   against 10.5 ns for [`BlockedBloomFilter`]. At p = 1 %, with the
//!   tables in cache, 10.6 against 11.1 ns for [`BloomFilter`] (14–46 ns
//!   one by one in other runs, batched 14 ns in each), and 3.0 against
//!   2.7 ns for [`BlockedBloomFilter`], slower batched. Tables under 8 MiB
//!   are filled one by one.
//! - **The blocked filter is Parquet's split block.** One 256-bit block
//!   per key, 32-byte aligned so it never straddles a cache line, one bit in
//!   each of its eight 32-bit lanes: one memory access and no collisions
//!   among a key's bits. A 256-bit block is one AVX2 register, so a lookup
//!   is one multiply, two shifts and one `vptest` around its load; a whole
//!   512-bit cache line per block costs about 4 % fewer bits at 1 % (10.10
//!   per key against 10.53) but needs two of every vector instruction, and
//!   measured about 15 % slower lookups and 20 % slower inserts. A user who
//!   picks the blocked filter has chosen speed over space.
//! - **AVX2 where the CPU has it, chosen at run time.** Baseline x86-64 has
//!   no per-lane variable shift, so the portable probe builds its masks with
//!   eight scalar shifts; a lookup whose cache miss overlaps with others is
//!   bound by instructions, and the AVX2 probe (`vpsllvq`, `vptest`) measured
//!   several times faster. The check runs once per filter; the portable probe
//!   sets the same bits, so bytes are portable across CPUs. This is one of
//!   the crate's `unsafe` sites (`src/simd.rs`).
//! - **The classic filter reads and writes its words unchecked.** Every
//!   probe is below the bit count by construction, so the bounds check on
//!   each of the k accesses can never fail, yet it cost about 13 % of a
//!   member lookup at 1M keys (1.18× fastbloom's time with it, 1.02–1.04×
//!   without, in an interleaved A/B on the same keys) and 8–15 % of an
//!   insert (1.20–1.22× fastbloom's build time with it, 1.10× without, at
//!   1M keys and 1 %). The read and the write in `classic.rs` are the
//!   crate's other `unsafe` sites.
//! - **The blocked filter mixes with one multiply, not `mix64`.** A blocked
//!   lookup is a dozen instructions around one cache miss, and
//!   [`filter_core::mix64`] measured 1.45× sbbf-rs-safe's lookup time (which
//!   uses its input as is) where one multiply and two xor-folds measure
//!   1.10×. The block comes from the product's high bits, the lane bits from
//!   a fold of the product's halves and the input's high half, then the
//!   salted multiplies (`block.rs` explains each term). Seeded tests check
//!   the rate with sequential, strided and multiplicatively pre-hashed ids.
//!   One multiply is not a full mixer, and some shapes remain: ids shifted
//!   left by 27 to 30 bits measured 1.0–1.4 % at a 1 % target (28 and 29
//!   the worst), where every other shift from 0 to 44 bits measured
//!   0.7–0.85 %.
//!   The multiplier is deliberately not the golden ratio, which many users'
//!   own hashes multiply by: the two would compound to φ², which spread
//!   sequential ids so badly that the rate measured up to 40 % at a 1 %
//!   target. The classic filter cannot mix with one multiply by a
//!   constant: its step y comes from the low half of the mixed hash, and
//!   with one round sequential ids measured a 3.1 % rate at a 1 % target.
//! - **The classic filter mixes with a folded product, not `mix64`.** A
//!   lookup in a table in cache waits for the mix before its first load;
//!   [`filter_core::mix64`] is two multiplies in a row. The folded product
//!   multiplies two functions of the hash (the hash and its rotation, each
//!   xored with a constant) once and xors the product's halves: quadratic
//!   in the hash, so progressions of ids do not stay progressions, and
//!   ready in about half the time. At 1M keys and 1 %, in alternating runs
//!   of `cargo xtask compare`, lookups took 10.2 ns against 12.5 with
//!   `mix64` and inserts 9.4 against 10.3 (fastbloom: 9.8 ns for members,
//!   15.4 for non-members, 13.6 for a shuffled mix); at 0.1 %, 16.0 against
//!   18.1. The rates match `mix64`'s over 78 shapes of structured ids
//!   ([`filter_core::probes`] has the figures), and the seeded tests check
//!   the structured shapes against the target. It is format 1.4's
//!   [`ProbeSequence::Folded`]; bytes written before it load with the
//!   sequence they were built with.
//! - **Blocking is paid for in bits, honestly.** [`BlockedBloomFilter::with_fpr`]
//!   sizes with the Poisson model of block loads
//!   ([`filter_core::sizing::blocked_bloom_bits`]) so the *measured* rate
//!   meets the target, rather than quoting the classic formula.
//! - **The hasher is part of the filter's identity.** `union`, `intersect`
//!   and `from_bytes` compare the hashers' [`filter_core::HasherProbe`] and
//!   refuse a mismatch with [`Error::HasherMismatch`].
//!
//! # Crate features
//!
//! None. The crate depends on `filter-core` and `fixedbitset` only. Its
//! `unsafe` code is the AVX2 block probes (plain and atomic), behind a
//! runtime CPU check, and the classic filters' unchecked word reads and
//! writes (plain and atomic); each states why it is sound.

#![deny(missing_docs)]
#![deny(unsafe_code)]

mod atomic;
mod atomic_blocked;
mod batch;
mod block;
mod blocked;
mod classic;
mod encoding;
mod quality;
mod simd;
mod std_traits;

#[cfg(feature = "parquet")]
pub mod parquet;
#[cfg(feature = "spark")]
pub mod spark;

pub use atomic::AtomicBloomFilter;
pub use atomic_blocked::AtomicBlockedBloomFilter;
pub use block::{BLOCK_BITS, BLOCK_HASHES};
pub use blocked::{BlockedBloomFilter, MAX_BLOCKS, MIN_FPR};
pub use classic::{BloomFilter, MAX_HASHES};
pub use filter_core::{
    AnyHashes, DefaultHashBuilder, Error, Filter, HashQuality, Insert, ProbeSequence, Remove,
    UniformHashes,
};

/// The README's example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
