//! The measurement harness: one build, member, non-member and mixed
//! lookups, and removes, for one filter at one size and target.
//!
//! Each pass yields two kinds of result, kept apart on purpose:
//! - [`Accuracy`] (space, false positives, false negatives, retries): a pure
//!   function of the seed and the filter's code, reproducible bit for bit;
//! - [`Timing`]: nanoseconds per key, from this machine and this run.
//!
//! The lookup loops count hits. The count is what the accuracy half reports
//! (so a broken filter cannot post a fast number without also posting false
//! negatives), and using it keeps the optimizer from deleting the loop.

use std::hint::black_box;
use std::time::{Duration, Instant};

use super::Result;
use super::floor::MemoryFloor;
use super::small_sets::{self, SetCount};
use super::subject::{Family, Subject, Target};
use super::workload::Workload;

/// A filter type as the registry lists it: its labels and its monomorphized
/// measurement function.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) name: &'static str,
    pub(crate) krate: &'static str,
    pub(crate) family: Family,
    pub(crate) peer: bool,
    /// Built with `UniformHashes` (see [`Subject::UNIFORM_HASHES`]).
    pub(crate) uniform_hashes: bool,
    pub(crate) hasher: &'static str,
    pub(crate) dynamic: bool,
    pub(crate) remove: bool,
    pub(crate) batch: bool,
    pub(crate) batch_insert: bool,
    pub(crate) shared_insert: bool,
    pub(crate) batch_remove: bool,
    pub(crate) sized: bool,
    pub(crate) deterministic: bool,
    pub(crate) measure: fn(&Workload, Target) -> Result<Sample>,
    /// Builds one filter from a small key set and counts its false
    /// positives (the "small sets" section).
    pub(crate) one_set: fn(&[u64], &[u64], Target) -> Result<SetCount>,
}

/// The registry entry of `S`.
pub(crate) fn entry<S: Subject>() -> Entry {
    Entry {
        name: S::NAME,
        krate: S::CRATE,
        family: S::FAMILY,
        peer: S::PEER,
        uniform_hashes: S::UNIFORM_HASHES,
        hasher: S::HASHER,
        dynamic: S::DYNAMIC,
        remove: S::REMOVE,
        batch: S::BATCH,
        batch_insert: S::BATCH_INSERT,
        shared_insert: S::SHARED_INSERT,
        batch_remove: S::BATCH_REMOVE,
        sized: S::SIZED,
        deterministic: S::DETERMINISTIC,
        measure: sample::<S>,
        one_set: small_sets::one_set::<S>,
    }
}

/// The deterministic half of a measurement.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Accuracy {
    pub(crate) params: String,
    pub(crate) memory_bytes: usize,
    pub(crate) expected_fpr: f64,
    pub(crate) queries: usize,
    pub(crate) false_positives: usize,
    pub(crate) false_negatives: usize,
    pub(crate) retries: Option<u32>,
    /// Members whose `remove` returned false (must be 0), for filters with
    /// remove; with a batched remove, its failures are added.
    pub(crate) failed_removes: Option<usize>,
    /// Cache lines a member lookup reads (see [`Subject::lines_per_hit`]).
    pub(crate) lines_per_hit: usize,
}

/// The timed half of a measurement, in nanoseconds per key.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Timing {
    pub(crate) build_ns: f64,
    /// The build through the filter's batched insert, for filters that
    /// have one.
    pub(crate) build_batched_ns: Option<f64>,
    /// The build by [`SHARED_THREADS`](super::subject::SHARED_THREADS)
    /// threads inserting at once into the filter's atomic twin, for filters
    /// that have one.
    pub(crate) build_shared_ns: Option<f64>,
    pub(crate) hit_ns: f64,
    /// The memory floor of a hit: as many cache lines read from a table of
    /// the same size, with nothing else (see [`MemoryFloor`]).
    pub(crate) floor_ns: f64,
    pub(crate) miss_ns: f64,
    /// Half members, half non-members, shuffled (see `Workload::mixed`).
    pub(crate) mixed_ns: f64,
    /// The mixed queries through the filter's batched lookup, for filters
    /// that have one.
    pub(crate) batched_ns: Option<f64>,
    pub(crate) remove_ns: Option<f64>,
    /// Removes through the filter's batched remove, for filters that have
    /// one.
    pub(crate) remove_batched_ns: Option<f64>,
}

/// One repetition of one row: its accuracy, its build time and the
/// nanoseconds per key of every timed batch.
#[derive(Clone, Debug)]
pub(crate) struct Sample {
    pub(crate) accuracy: Accuracy,
    build_ns: f64,
    build_batched_ns: f64,
    build_shared_ns: f64,
    hit_batches: Vec<f64>,
    floor_batches: Vec<f64>,
    miss_batches: Vec<f64>,
    mixed_batches: Vec<f64>,
    batched_batches: Vec<f64>,
    remove_batches: Vec<f64>,
    remove_batched_batches: Vec<f64>,
}

fn per_key(elapsed: Duration, keys: usize) -> f64 {
    elapsed.as_nanos() as f64 / keys.max(1) as f64
}

/// Keys per timed batch: long enough (~10–500 µs) that the clock's cost
/// (~25 ns) is noise, short enough that most batches run without being
/// preempted, and many batches even at the smallest size.
const BATCH: usize = 1 << 13;

/// The quantile of the batch timings a row reports: the lower quartile.
///
/// On a shared machine a batch that loses the CPU, or shares the memory bus
/// or last-level cache with another process, takes longer, never shorter;
/// each batch is 8192 random queries, so undisturbed batches of one filter
/// agree closely. The lower quartile is therefore the undisturbed rate as
/// long as a quarter of the batches run undisturbed, where a mean or median
/// would report the neighbours. On a quiet machine all three agree.
const BATCH_QUANTILE: f64 = 0.25;

/// Runs `op` over `keys` in timed batches; returns the sum of its results
/// and each batch's nanoseconds per key.
#[inline(always)]
fn batched(keys: &[u64], mut op: impl FnMut(&[u64]) -> usize) -> (usize, Vec<f64>) {
    let mut total = 0;
    let mut rates = Vec::with_capacity(keys.len() / BATCH + 1);
    for batch in keys.chunks(BATCH) {
        let start = Instant::now();
        total += op(batch);
        rates.push(per_key(start.elapsed(), batch.len()));
    }
    (total, rates)
}

/// Counts the keys `filter` reports present.
#[inline(never)]
fn count_hits<S: Subject>(filter: &S, keys: &[u64]) -> usize {
    let filter = black_box(filter);
    keys.iter().map(|&k| usize::from(filter.contains(k))).sum()
}

/// Counts the keys `filter` reports present through its batched lookup.
#[inline(never)]
fn count_batch<S: Subject>(filter: &S, keys: &[u64]) -> usize {
    black_box(filter).count_batch(keys)
}

/// Removes every key once; returns how many removes reported success.
#[inline(never)]
fn remove_all<S: Subject>(filter: &mut S, keys: &[u64]) -> usize {
    let filter = black_box(filter);
    keys.iter().map(|&k| usize::from(filter.remove(k))).sum()
}

/// Removes every key once through the batched remove; returns how many
/// removes reported success.
#[inline(never)]
fn remove_all_batch<S: Subject>(filter: &mut S, keys: &[u64]) -> usize {
    black_box(filter).remove_batch(keys)
}

#[inline(never)]
fn build<S: Subject>(keys: &[u64], target: Target) -> Result<S> {
    S::build(black_box(keys), target)
}

#[inline(never)]
fn build_batch<S: Subject>(keys: &[u64], target: Target) -> Result<S> {
    S::build_batch(black_box(keys), target)
}

#[inline(never)]
fn build_shared<S: Subject>(keys: &[u64], target: Target) -> Result<S> {
    S::build_shared(black_box(keys), target)
}

/// How many of the mixed queries `twin`, a second build of the row's
/// filter, reports present: through the batched lookup where there is one
/// (checked against one-by-one lookups on the row's own filter): at 10M
/// keys it is up to 4 times faster, which keeps the check to a few seconds
/// of the full run.
fn twin_hits<S: Subject>(twin: &S, workload: &Workload) -> usize {
    if S::BATCH {
        count_batch(twin, &workload.mixed)
    } else {
        count_hits(twin, &workload.mixed)
    }
}

/// A second build of the row's filter by `build`: how long it took, and
/// how many of the mixed queries it reports present ([`twin_hits`]). The
/// twin is dropped before this returns.
fn timed_twin<S: Subject>(
    workload: &Workload,
    build: impl FnOnce() -> Result<S>,
) -> Result<(Duration, usize)> {
    let start = Instant::now();
    let twin = build()?;
    let time = start.elapsed();
    Ok((time, twin_hits(&twin, workload)))
}

/// Builds `S` from the workload's members and measures it.
pub(crate) fn sample<S: Subject>(workload: &Workload, target: Target) -> Result<Sample> {
    let (members, queries) = (&workload.members, &workload.non_members);
    let start = Instant::now();
    let mut filter: S = build(members, target)?;
    let build_time = start.elapsed();

    // The batched build, timed like the one-by-one build and checked
    // against it on the mixed queries, then dropped so that the lookups
    // below run with one table in memory, as without it.
    let batched_build = if S::BATCH_INSERT {
        Some(timed_twin(workload, || build_batch::<S>(members, target))?)
    } else {
        None
    };
    // The shared build likewise (threads setting the same bits in any
    // order leave the same filter).
    let shared_build = if S::SHARED_INSERT {
        Some(timed_twin(workload, || build_shared::<S>(members, target))?)
    } else {
        None
    };

    let (hits, hit_batches) = batched(members, |keys| count_hits(&filter, keys));
    // The floor right after the hits, so both see the same neighbours; its
    // table is freed before the next loop.
    let floor = MemoryFloor::new(filter.memory_bytes(), filter.lines_per_hit());
    let (counted, floor_batches) = batched(members, |keys| black_box(&floor).count(keys));
    drop(floor);
    // Every key counts (every word is odd). Using the count also keeps the
    // optimizer from deleting the loads, whose values nothing else needs.
    if counted != members.len() {
        return Err(format!(
            "{}: the memory floor counted {counted} of {} keys",
            S::NAME,
            members.len()
        )
        .into());
    }
    let (false_positives, miss_batches) = batched(queries, |keys| count_hits(&filter, keys));
    let (mixed_hits, mixed_batches) = batched(&workload.mixed, |keys| count_hits(&filter, keys));
    let mut batched_batches = Vec::new();
    if S::BATCH {
        let (batch_hits, batches) = batched(&workload.mixed, |keys| count_batch(&filter, keys));
        // The batched lookup must answer exactly as one-by-one lookups; a
        // count that differs is a bug, not a timing.
        if batch_hits != mixed_hits {
            return Err(format!(
                "{}: batched lookups found {batch_hits} of the mixed queries, one-by-one lookups {mixed_hits}",
                S::NAME
            )
            .into());
        }
        batched_batches = batches;
    }
    // The batched and shared builds must answer as the one-by-one build
    // does: the same count of the mixed queries (members and non-members),
    // so a batched or threaded insert that drops or misplaces keys fails
    // the run.
    for (how, twin) in [("batched", batched_build), ("shared", shared_build)] {
        if let Some((_, twin_hits)) = twin {
            if twin_hits != mixed_hits {
                return Err(format!(
                    "{}: the filter built by {how} inserts found {twin_hits} of the mixed \
                     queries, the one built one by one {mixed_hits}",
                    S::NAME
                )
                .into());
            }
        }
    }

    let mut accuracy = Accuracy {
        params: filter.params(),
        memory_bytes: filter.memory_bytes(),
        expected_fpr: filter.expected_fpr(members.len()),
        queries: queries.len(),
        false_positives,
        false_negatives: members.len() - hits,
        retries: filter.retries(),
        failed_removes: None,
        lines_per_hit: filter.lines_per_hit(),
    };
    let mut remove_batches = Vec::new();
    let mut remove_batched_batches = Vec::new();
    if S::REMOVE {
        let (removed, batches) = batched(members, |keys| remove_all(&mut filter, keys));
        remove_batches = batches;
        let mut failed = members.len() - removed;
        if S::BATCH_REMOVE {
            // A fresh full filter to empty through the batched remove,
            // built (untimed) once the emptied one is dropped, so that one
            // table is in memory, as for the one-by-one removes; it is
            // emptied in the same batches of keys, so the two columns
            // compare. Every member must be removed: a shortfall counts as
            // failed removes, which fail the run.
            drop(filter);
            let mut twin: S = if S::BATCH_INSERT {
                build_batch(members, target)?
            } else {
                build(members, target)?
            };
            let (removed, batches) = batched(members, |keys| remove_all_batch(&mut twin, keys));
            remove_batched_batches = batches;
            failed += members.len() - removed;
        }
        accuracy.failed_removes = Some(failed);
    }
    Ok(Sample {
        accuracy,
        build_ns: per_key(build_time, members.len()),
        build_batched_ns: batched_build.map_or(f64::NAN, |(t, _)| per_key(t, members.len())),
        build_shared_ns: shared_build.map_or(f64::NAN, |(t, _)| per_key(t, members.len())),
        hit_batches,
        floor_batches,
        miss_batches,
        mixed_batches,
        batched_batches,
        remove_batches,
        remove_batched_batches,
    })
}

/// The `q`-quantile of `values` (nearest rank), NaN when there are none.
pub(crate) fn quantile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        len => values[((len - 1) as f64 * q).round() as usize],
    }
}

/// Folds the repetitions of one row: the accuracy of the first (checked
/// identical across repetitions for deterministic filters; otherwise with
/// the worst false-negative and failed-remove counts of any repetition), the timing of all repetitions pooled, and the
/// timing of each repetition on its own.
///
/// Pooled, a row reports the lower quartile of the lookup and remove
/// batches of all repetitions, and the fastest build (a build is one timed
/// span, and on a shared machine noise only ever adds to it). The
/// per-repetition timings let the report show how far a ratio between two
/// rows moves from one round to the next: the rows of one round run close
/// together in time, under the same neighbours.
pub(crate) fn fold(entry: &Entry, samples: &[Sample]) -> Result<(Accuracy, Timing, Vec<Timing>)> {
    let first = samples.first().ok_or("no samples")?;
    let mut accuracy = first.accuracy.clone();
    for s in &samples[1..] {
        if entry.deterministic && s.accuracy != first.accuracy {
            return Err(format!(
                "{} ({}) is not deterministic: repetition gave {:?}, first gave {:?}",
                entry.name, entry.krate, s.accuracy, first.accuracy
            )
            .into());
        }
        // The two counts the run fails on: the worst repetition's, so that
        // a fault in any repetition fails it.
        accuracy.false_negatives = accuracy.false_negatives.max(s.accuracy.false_negatives);
        accuracy.failed_removes = accuracy.failed_removes.max(s.accuracy.failed_removes);
    }
    let per_rep = samples
        .iter()
        .map(|s| timing(entry, std::slice::from_ref(s)))
        .collect();
    Ok((accuracy, timing(entry, samples), per_rep))
}

/// The timing of `samples` pooled: the lower quartile of their batches and
/// the fastest build.
fn timing(entry: &Entry, samples: &[Sample]) -> Timing {
    let fastest =
        |build: fn(&Sample) -> f64| samples.iter().map(build).fold(f64::INFINITY, f64::min);
    let pool = |batches: fn(&Sample) -> &Vec<f64>| -> f64 {
        let mut all: Vec<f64> = samples
            .iter()
            .flat_map(|s| batches(s).iter().copied())
            .collect();
        quantile(&mut all, BATCH_QUANTILE)
    };
    Timing {
        build_ns: fastest(|s| s.build_ns),
        build_batched_ns: entry.batch_insert.then(|| fastest(|s| s.build_batched_ns)),
        build_shared_ns: entry.shared_insert.then(|| fastest(|s| s.build_shared_ns)),
        hit_ns: pool(|s| &s.hit_batches),
        floor_ns: pool(|s| &s.floor_batches),
        miss_ns: pool(|s| &s.miss_batches),
        mixed_ns: pool(|s| &s.mixed_batches),
        batched_ns: entry.batch.then(|| pool(|s| &s.batched_batches)),
        remove_ns: entry.remove.then(|| pool(|s| &s.remove_batches)),
        remove_batched_ns: entry
            .batch_remove
            .then(|| pool(|s| &s.remove_batched_batches)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::subject::Family;
    use std::collections::HashSet;

    /// An exact set that forgets every tenth key it is given: a filter
    /// with false negatives, which the harness must count. With
    /// `LOSSY_SHARED`, it has a shared build too, which forgets one key
    /// more than its one-by-one build (the harness compares how many of the
    /// mixed queries each finds).
    struct Forgetful<const LOSSY_SHARED: bool = false>(HashSet<u64>);

    impl<const LOSSY_SHARED: bool> Subject for Forgetful<LOSSY_SHARED> {
        const NAME: &'static str = "Forgetful";
        const CRATE: &'static str = "test";
        const FAMILY: Family = Family::Bloom;
        const PEER: bool = false;
        const HASHER: &'static str = "none";
        const DYNAMIC: bool = true;
        const REMOVE: bool = true;
        const SIZED: bool = false;

        fn build(keys: &[u64], _: Target) -> Result<Self> {
            let kept = keys.iter().enumerate().filter(|(i, _)| i % 10 != 0);
            Ok(Forgetful(kept.map(|(_, &k)| k).collect()))
        }
        const SHARED_INSERT: bool = LOSSY_SHARED;
        fn build_shared(keys: &[u64], _: Target) -> Result<Self> {
            let kept = keys
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 10 != 0 && *i != 1);
            Ok(Forgetful(kept.map(|(_, &k)| k).collect()))
        }
        fn contains(&self, key: u64) -> bool {
            self.0.contains(&key)
        }
        fn remove(&mut self, key: u64) -> bool {
            self.0.remove(&key)
        }
        // The default batched remove (one by one), so the second emptying
        // runs on a fresh build that forgets the same keys.
        const BATCH_REMOVE: bool = true;
        fn memory_bytes(&self) -> usize {
            self.0.len() * 8
        }
        fn lines_per_hit(&self) -> usize {
            1
        }
        fn params(&self) -> String {
            String::new()
        }
        fn expected_fpr(&self, _: usize) -> f64 {
            0.0
        }
    }

    #[test]
    fn false_negatives_and_failed_removes_are_counted() {
        let workload = Workload::new(5, 10_000);
        let s = sample::<Forgetful>(&workload, Target::Fixed).unwrap();
        assert_eq!(s.accuracy.false_negatives, 1_000);
        // 1000 forgotten keys fail to be removed one by one, and again on
        // the fresh filter emptied through the batched remove.
        assert_eq!(s.accuracy.failed_removes, Some(2_000));
        assert_eq!(s.accuracy.false_positives, 0);
        assert_eq!(s.accuracy.queries, crate::compare::workload::MIN_QUERIES);
    }

    #[test]
    fn a_fault_in_any_repetition_of_a_nondeterministic_row_is_kept() {
        // Regression: for rows whose accuracy may differ between
        // repetitions, only the false negatives of later repetitions were
        // kept, so failed removes there could not fail the run.
        let workload = Workload::new(5, 10_000);
        let mut clean = sample::<Forgetful>(&workload, Target::Fixed).unwrap();
        let faulty = sample::<Forgetful>(&workload, Target::Fixed).unwrap();
        clean.accuracy.false_negatives = 0;
        clean.accuracy.failed_removes = Some(0);
        let mut entry = entry::<Forgetful>();
        entry.deterministic = false;
        let (accuracy, _, _) = fold(&entry, &[clean, faulty]).unwrap();
        assert_eq!(accuracy.false_negatives, 1_000);
        assert_eq!(accuracy.failed_removes, Some(2_000));
    }

    #[test]
    fn a_shared_build_that_answers_differently_fails_the_row() {
        // The mixed queries hold the first half of the members, so the key
        // only the shared build forgets is among them.
        let workload = Workload::new(5, 1_000);
        let err = sample::<Forgetful<true>>(&workload, Target::Fixed).unwrap_err();
        assert!(err.to_string().contains("shared inserts"), "{err}");
    }

    #[test]
    fn quantiles() {
        assert_eq!(quantile(&mut [3.0, 1.0, 2.0], 0.5), 2.0);
        assert_eq!(quantile(&mut [5.0, 4.0, 1.0, 3.0, 2.0], 0.25), 2.0);
        assert_eq!(quantile(&mut [7.0], 0.25), 7.0);
        assert!(quantile(&mut [], 0.25).is_nan());
    }
}
