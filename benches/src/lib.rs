//! The workload and the measurement routines shared by the criterion
//! benchmarks in `benches/benches/`.
//!
//! Every benchmark follows the same pattern, written once here so that a new
//! filter is one line in `benches/filters.rs`:
//!
//! - keys come from `filter_core::testing::keys` (seeded; members and
//!   non-members disjoint by construction);
//! - two sizes: [`SMALL`] keys (the filter fits in L2) and [`LARGE`] keys
//!   (tens of megabytes: beyond the last-level cache of most machines);
//! - before anything is timed, the filter is checked: every member must be
//!   reported present and at most [`MAX_MISS_HITS`] of the non-members, so a
//!   broken filter cannot post a fast number;
//! - a filter that threads insert into at once (`bloom::AtomicBloomFilter`,
//!   `bloom::AtomicBlockedBloomFilter`)
//!   is also built by two threads sharing it ([`shared_inserts`]);
//! - lookups and removes time a batch of [`BATCH`] queries, so the large size
//!   is built once per benchmark, not once per iteration; each iteration takes
//!   the next batch of a rotation through all n keys, so that at the large
//!   size no iteration finds the previous one's cache lines still warm.
//!
//! Filters are driven through the shared traits with their default hasher:
//! these are the numbers a user of the crate gets. `cargo xtask compare`
//! compares against peer crates; this is for tracking one filter over time.
//!
//! Run: `cargo bench -p benches` (or `-- contains_hit` to pick a group).
//! `FILTER_BENCH_SIZES=100000` narrows the sizes.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use filter_core::testing::keys;
use filter_core::{Filter, Insert, Remove};

/// Keys of the cache-resident size.
pub const SMALL: usize = 100_000;
/// Keys of the out-of-cache size.
pub const LARGE: usize = 10_000_000;
/// Queries per timed lookup or remove batch.
pub const BATCH: usize = 10_000;
/// Seed of every benchmark's keys.
pub const SEED: u64 = 0xB16B_00B5;
/// The largest fraction of non-members a filter sized for 1 % (or an 8-bit
/// fingerprint filter) may report present before a benchmark refuses to run.
pub const MAX_MISS_HITS: f64 = 0.05;
/// The target rate of the sized filters.
pub const FPR: f64 = 0.01;

/// The sizes to benchmark: [`SMALL`] and [`LARGE`], or the comma-separated
/// list in `FILTER_BENCH_SIZES`.
pub fn sizes() -> Vec<usize> {
    std::env::var("FILTER_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|v| v.trim().parse().ok()).collect())
        .filter(|v: &Vec<usize>| !v.is_empty())
        .unwrap_or_else(|| vec![SMALL, LARGE])
}

/// Members and non-members for one size.
#[derive(Debug)]
pub struct Workload {
    /// The `n` inserted keys.
    pub members: Vec<u64>,
    /// `max(n, BATCH)` keys never inserted.
    pub non_members: Vec<u64>,
}

impl Workload {
    /// `n` members and as many non-members (at least a batch) under [`SEED`].
    pub fn new(n: usize) -> Self {
        Workload {
            members: keys::members(SEED, n),
            non_members: keys::non_members(SEED, n.max(BATCH)),
        }
    }
}

/// Successive batches of [`BATCH`] keys, wrapping around at the end.
#[derive(Debug)]
pub struct Rotation<'a> {
    keys: &'a [u64],
    at: usize,
}

impl<'a> Rotation<'a> {
    /// A rotation through `keys`, from the first.
    pub fn new(keys: &'a [u64]) -> Self {
        Rotation { keys, at: 0 }
    }

    /// The next batch (the whole slice when it is shorter than a batch).
    pub fn next_batch(&mut self) -> &'a [u64] {
        if self.at + BATCH > self.keys.len() {
            self.at = 0;
        }
        let batch = &self.keys[self.at..(self.at + BATCH).min(self.keys.len())];
        self.at += BATCH;
        batch
    }
}

/// Panics unless every member is present and few non-members are: run
/// before timing, so that a broken filter cannot post a number.
pub fn check<F: Filter<u64>>(name: &str, filter: &F, members: &[u64], non_members: &[u64]) {
    let found = count_hits(filter, members);
    assert_eq!(
        found,
        members.len(),
        "{name}: {} false negatives among {} members; refusing to benchmark",
        members.len() - found,
        members.len()
    );
    let false_positives = count_hits(filter, non_members);
    assert!(
        false_positives as f64 <= MAX_MISS_HITS * non_members.len() as f64,
        "{name}: {false_positives} of {} non-members reported present; refusing to benchmark",
        non_members.len()
    );
}

fn count_hits<F: Filter<u64>>(filter: &F, queries: &[u64]) -> usize {
    queries.iter().filter(|k| filter.contains(k)).count()
}

/// Build (static) or insert-all (dynamic), contains hit and miss, for one
/// filter at every size. `build` makes the filter from all members.
pub fn lookups<F: Filter<u64>>(c: &mut Criterion, name: &str, build: impl Fn(&[u64]) -> F) {
    for n in sizes() {
        let w = Workload::new(n);
        let filter = build(&w.members);
        check(name, &filter, &w.members, &w.non_members);

        let mut group = c.benchmark_group("build");
        group.throughput(Throughput::Elements(n as u64));
        if n > SMALL {
            // One build of the large size takes a good fraction of a second:
            // ten flat samples of one build each, not criterion's default
            // 100 samples of linearly growing iteration counts.
            group.sample_size(10).sampling_mode(SamplingMode::Flat);
        }
        group.bench_function(BenchmarkId::new(name, n), |b| {
            b.iter(|| build(black_box(&w.members)));
        });
        group.finish();

        for (group, keys) in [
            ("contains_hit", &w.members),
            ("contains_miss", &w.non_members),
        ] {
            let mut group = c.benchmark_group(group);
            group.throughput(Throughput::Elements(BATCH.min(keys.len()) as u64));
            group.bench_function(BenchmarkId::new(name, n), |b| {
                let mut batches = Rotation::new(keys);
                b.iter(|| count_hits(black_box(&filter), black_box(batches.next_batch())));
            });
            group.finish();
        }
    }
}

/// The filter's batched lookup (`contains_batch`) of a half-member,
/// half-non-member mix, timed like the one-by-one lookups; `count` returns
/// how many of the queries the batched lookup reports present. Checked
/// first against one-by-one lookups of the same queries.
pub fn batched_lookups<F: Filter<u64>>(
    c: &mut Criterion,
    name: &str,
    build: impl Fn(&[u64]) -> F,
    count: impl Fn(&F, &[u64]) -> usize,
) {
    for n in sizes() {
        let w = Workload::new(n);
        let filter = build(&w.members);
        check(name, &filter, &w.members, &w.non_members);
        let mixed: Vec<u64> = w
            .members
            .iter()
            .zip(&w.non_members)
            .flat_map(|(&member, &other)| [member, other])
            .collect();
        assert_eq!(
            count(&filter, &mixed),
            count_hits(&filter, &mixed),
            "{name}: batched lookups disagree with one-by-one lookups"
        );
        let mut group = c.benchmark_group("contains_batch_mixed");
        group.throughput(Throughput::Elements(BATCH.min(mixed.len()) as u64));
        group.bench_function(BenchmarkId::new(name, n), |b| {
            let mut batches = Rotation::new(&mixed);
            b.iter(|| count(black_box(&filter), black_box(batches.next_batch())));
        });
        group.finish();
    }
}

/// A dynamic filter's build through its batched insert (`insert_batch` of
/// `filter_core::BatchInsert`, which requests each key's memory 32 keys
/// ahead), timed like the
/// one-by-one build of [`lookups`]; `batched` makes the filter from all
/// members through `insert_batch`. Checked first against the filter
/// `one_by_one` builds: every member present, and the same answers to a
/// half-member, half-non-member mix.
pub fn batched_inserts<F: Filter<u64>>(
    c: &mut Criterion,
    name: &str,
    one_by_one: impl Fn(&[u64]) -> F,
    batched: impl Fn(&[u64]) -> F,
) {
    for n in sizes() {
        let w = Workload::new(n);
        let filter = batched(&w.members);
        check(name, &filter, &w.members, &w.non_members);
        let twin = one_by_one(&w.members);
        assert_eq!(
            count_hits(&filter, &w.non_members),
            count_hits(&twin, &w.non_members),
            "{name}: the batched build answers non-members unlike the one-by-one build"
        );
        drop((filter, twin));

        let mut group = c.benchmark_group("insert_batch");
        group.throughput(Throughput::Elements(n as u64));
        if n > SMALL {
            // As for `build`: ten flat samples of one large build each.
            group.sample_size(10).sampling_mode(SamplingMode::Flat);
        }
        group.bench_function(BenchmarkId::new(name, n), |b| {
            b.iter(|| batched(black_box(&w.members)));
        });
        group.finish();
    }
}

/// The threads [`shared_inserts`] builds with.
pub const SHARED_THREADS: [usize; 2] = [1, 2];

/// A build of a filter that threads share: a new filter sized for every
/// member (`new`), then the members inserted by 1 and by 2 threads at once,
/// each thread a contiguous share, through `insert` (which takes `&F`: an
/// atomic filter, or a filter behind a lock). Timed like the
/// one-by-one build of [`lookups`] (thread start-up included, some tens of
/// microseconds against milliseconds of inserts). Checked first: the
/// filter two threads build holds every member (`contains`).
pub fn shared_inserts<F: Sync>(
    c: &mut Criterion,
    name: &str,
    new: impl Fn(usize) -> F,
    insert: impl Fn(&F, u64) + Sync,
    contains: impl Fn(&F, u64) -> bool,
) {
    let build = |keys: &[u64], threads: usize| {
        let filter = new(keys.len());
        std::thread::scope(|s| {
            for share in keys.chunks(keys.len().div_ceil(threads).max(1)) {
                let (filter, insert) = (&filter, &insert);
                s.spawn(move || share.iter().for_each(|&k| insert(filter, k)));
            }
        });
        filter
    };
    for n in sizes() {
        let w = Workload::new(n);
        let filter = build(&w.members, 2);
        assert!(
            w.members.iter().all(|&k| contains(&filter, k)),
            "{name}: a member is missing after a shared build; refusing to benchmark"
        );
        drop(filter);
        let mut group = c.benchmark_group("build_shared");
        group.throughput(Throughput::Elements(n as u64));
        if n > SMALL {
            // As for `build`: ten flat samples of one large build each.
            group.sample_size(10).sampling_mode(SamplingMode::Flat);
        }
        for threads in SHARED_THREADS {
            let id = BenchmarkId::new(format!("{name}/{threads} threads"), n);
            group.bench_function(id, |b| {
                b.iter(|| build(black_box(&w.members), threads));
            });
        }
        group.finish();
    }
}

/// A dynamic filter's builder: a new, empty filter sized for `n` items,
/// then every member inserted.
pub fn insert_all<F: Insert<u64>>(new: impl Fn(usize) -> F) -> impl Fn(&[u64]) -> F {
    move |keys| {
        let mut filter = new(keys.len());
        for k in keys {
            if let Err(e) = filter.insert(k) {
                panic!("insert failed below the sized capacity: {e}");
            }
        }
        filter
    }
}

/// Remove of a batch of members, timed; they are re-inserted (untimed)
/// after each iteration so every iteration removes from a full filter, and
/// the next iteration takes the next batch. `refusal_rate` is the largest
/// rate at which the filter may refuse a member's remove (see
/// [`max_refusals`]): 0 for a filter whose remove of a member always
/// succeeds.
pub fn removes<F: Remove<u64>>(
    c: &mut Criterion,
    name: &str,
    build: impl Fn(&[u64]) -> F,
    refusal_rate: f64,
) {
    timed_removes(c, "remove", name, build, refusal_rate, |filter, batch| {
        batch
            .iter()
            .map(|k| usize::from(filter.remove(black_box(k))))
            .sum()
    });
}

/// Removes of a batch of members through the filter's batched remove
/// (`remove_batch` of `filter_core::BatchRemove`, which requests each key's memory 32 keys ahead in
/// tables of 8 MiB or more), timed exactly like [`removes`]: the same
/// batches in the same rotation, re-inserted (untimed) after each
/// iteration.
pub fn batched_removes<F: Remove<u64>>(
    c: &mut Criterion,
    name: &str,
    build: impl Fn(&[u64]) -> F,
    refusal_rate: f64,
    remove_batch: impl Fn(&mut F, &[u64]) -> usize,
) {
    timed_removes(
        c,
        "remove_batch",
        name,
        build,
        refusal_rate,
        |filter, batch| remove_batch(filter, black_box(batch)),
    );
}

/// The most refused removes a batch of `batch` members may see when each
/// is refused with probability at most `rate`: the binomial mean plus five
/// standard deviations, `q·p + 5·√(q·p·(1 − p))` (a correct filter exceeds
/// it with probability below 10^−6 per check, and the keys are seeded
/// anyway); 0 when `rate` is 0.
///
/// A `ScalableCuckooFilter` refuses a member's remove when a stage other
/// than the member's own also reports it, a false positive of that stage;
/// the stages' rates sum to at most the filter's target, so the target
/// bounds the rate of refusals. For 10,000 members at 1 %: 149.
pub fn max_refusals(rate: f64, batch: usize) -> usize {
    let mean = rate * batch as f64;
    (mean + 5.0 * (mean * (1.0 - rate)).sqrt()).floor() as usize
}

/// Re-inserts the members of `batch` that a remove took out, `removed` of
/// them. When every remove succeeded, all of them: a member may still read
/// present (a false positive), and its copy must come back all the same.
/// Otherwise the refused ones, which a refused remove leaves present, must
/// not get a second copy, so the members the filter no longer reports are
/// re-inserted; a member that was removed and still reads present through
/// another item's fingerprint is not, which can cost that item its copy in
/// a later iteration, and the item is then re-inserted when its own batch
/// comes round. Only the timing runs on such a filter; the checks run
/// before it.
fn restore<F: Remove<u64>>(filter: &mut F, batch: &[u64], removed: usize) {
    let all = removed == batch.len();
    for k in batch {
        if all || !filter.contains(k) {
            filter.insert(k).expect("re-insert after remove");
        }
    }
}

/// The criterion group `group` of [`removes`] and [`batched_removes`]:
/// `remove` takes a batch of members out and says how many went. Checked
/// first, one by one through `Remove::remove`: every refused member is
/// still present and at most [`max_refusals`] are refused (none when
/// `refusal_rate` is 0); then `remove` itself on the same batch, refusing
/// as few; and after each, with the members re-inserted, the filter
/// answers as before.
fn timed_removes<F: Remove<u64>>(
    c: &mut Criterion,
    group: &str,
    name: &str,
    build: impl Fn(&[u64]) -> F,
    refusal_rate: f64,
    remove: impl Fn(&mut F, &[u64]) -> usize,
) {
    for n in sizes() {
        let w = Workload::new(n);
        let mut filter = build(&w.members);
        check(name, &filter, &w.members, &w.non_members);
        let mut batches = Rotation::new(&w.members);
        let batch = batches.next_batch();
        let allowed = max_refusals(refusal_rate, batch.len());

        let refused: Vec<u64> = batch
            .iter()
            .filter(|k| !filter.remove(k))
            .copied()
            .collect();
        assert!(
            refused.iter().all(|k| filter.contains(k)),
            "{name}: a refused remove took a member out ({group})"
        );
        assert!(
            refused.len() <= allowed,
            "{name}: {} of {} members' removes refused, at most {allowed} allowed ({group})",
            refused.len(),
            batch.len()
        );
        for k in batch.iter().filter(|k| !refused.contains(k)) {
            filter.insert(k).expect("re-insert after remove");
        }
        check(name, &filter, &w.members, &w.non_members);

        let removed = remove(&mut filter, batch);
        assert!(
            batch.len() - removed <= allowed,
            "{name}: {} of {} members' removes refused, at most {allowed} allowed ({group})",
            batch.len() - removed,
            batch.len()
        );
        restore(&mut filter, batch, removed);
        check(name, &filter, &w.members, &w.non_members);

        let mut group = c.benchmark_group(group);
        group.throughput(Throughput::Elements(batch.len() as u64));
        group.bench_function(BenchmarkId::new(name, n), |b| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                for _ in 0..iters {
                    let batch = batches.next_batch();
                    let start = Instant::now();
                    let removed = black_box(remove(&mut filter, batch));
                    timed += start.elapsed();
                    restore(&mut filter, batch, removed);
                }
                timed
            });
        });
        group.finish();
    }
}

/// The root README's example, compiled and run as a doctest so it cannot
/// rot. It lives here because this is the one library that sees every
/// filter crate.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct RootReadmeDoctests;
