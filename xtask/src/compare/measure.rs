//! The measurement harness: one build, member, non-member and mixed
//! lookups, batched lookups and removes, for one filter at one size and
//! target.
//!
//! Each pass yields two kinds of result, kept apart on purpose:
//! - [`Accuracy`] (space, false positives, false negatives): a pure
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
use super::subject::{Info, Key, Subject, Target};
use super::workload::{MakeKey, Workload};

/// A row type as the registry lists it: what the report says about it, the
/// key type, and its monomorphized measurement function.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) info: Info,
    /// `u64` or `string`.
    pub(crate) keys: &'static str,
    pub(crate) measure: fn(u64, usize, Target, &mut Cache) -> Result<Sample>,
}

/// The registry entry of `S` on keys of type `K`.
pub(crate) fn entry<S: Subject<K>, K: Cached>() -> Entry {
    Entry {
        info: S::INFO,
        keys: K::NAME,
        measure: sample::<S, K>,
    }
}

/// The workloads of one size, made once and shared by every row.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    u64s: Option<(u64, usize, Workload<u64>)>,
    strings: Option<(u64, usize, Workload<String>)>,
}

/// Gives the workload of `(seed, n)` from `cache`, making it if needed.
pub(crate) trait Cached: MakeKey {
    fn workload(cache: &mut Cache, seed: u64, n: usize) -> &Workload<Self>;
}

macro_rules! cached {
    ($key:ty, $field:ident) => {
        impl Cached for $key {
            fn workload(cache: &mut Cache, seed: u64, n: usize) -> &Workload<$key> {
                if !matches!(&cache.$field, Some((s, m, _)) if *s == seed && *m == n) {
                    cache.$field = Some((seed, n, Workload::new(seed, n)));
                }
                match &cache.$field {
                    Some((_, _, workload)) => workload,
                    None => unreachable!("filled above"),
                }
            }
        }
    };
}

cached!(u64, u64s);
cached!(String, strings);

/// The deterministic half of a measurement.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Accuracy {
    pub(crate) memory_bytes: usize,
    pub(crate) queries: usize,
    pub(crate) false_positives: usize,
    pub(crate) false_negatives: usize,
    /// Members whose `remove` returned false (must be 0).
    pub(crate) failed_removes: Option<usize>,
    pub(crate) lines_per_hit: usize,
}

/// The timed half of a measurement, in nanoseconds per key.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Timing {
    pub(crate) build_ns: f64,
    pub(crate) hit_ns: f64,
    /// The memory floor of a hit: as many cache lines read from a table of
    /// the same size, with nothing else (see [`MemoryFloor`]).
    pub(crate) floor_ns: f64,
    pub(crate) miss_ns: f64,
    /// Half members, half non-members, shuffled.
    pub(crate) mixed_ns: f64,
    /// The mixed queries through `contains_batch`, where there is one.
    pub(crate) batched_ns: Option<f64>,
    pub(crate) remove_ns: Option<f64>,
}

/// One repetition of one row.
#[derive(Clone, Debug)]
pub(crate) struct Sample {
    pub(crate) accuracy: Accuracy,
    build_ns: f64,
    hit: Vec<f64>,
    floor: Vec<f64>,
    miss: Vec<f64>,
    mixed: Vec<f64>,
    batched: Vec<f64>,
    remove: Vec<f64>,
}

fn per_key(elapsed: Duration, keys: usize) -> f64 {
    elapsed.as_nanos() as f64 / keys.max(1) as f64
}

/// Keys per timed batch: long enough that the clock's cost is noise, short
/// enough that most batches run without being preempted.
const BATCH: usize = 1 << 13;

/// The quantile of the batch timings a row reports: the lower quartile.
///
/// On a shared machine a batch that loses the CPU, or shares the memory bus
/// or last-level cache with another process, takes longer, never shorter.
/// The lower quartile is the undisturbed rate as long as a quarter of the
/// batches run undisturbed, where a mean or median would report the
/// neighbours. On a quiet machine all three agree.
const BATCH_QUANTILE: f64 = 0.25;

/// Runs `op` over `keys` in timed batches; returns the sum of its results
/// and each batch's nanoseconds per key.
#[inline(always)]
fn batched<K>(keys: &[K], mut op: impl FnMut(&[K]) -> usize) -> (usize, Vec<f64>) {
    let mut total = 0;
    let mut rates = Vec::with_capacity(keys.len() / BATCH + 1);
    for batch in keys.chunks(BATCH) {
        let start = Instant::now();
        total += op(batch);
        rates.push(per_key(start.elapsed(), batch.len()));
    }
    (total, rates)
}

#[inline(never)]
fn count_hits<S: Subject<K>, K: Key>(filter: &S, keys: &[K]) -> usize {
    let filter = black_box(filter);
    keys.iter().map(|k| usize::from(filter.contains(k))).sum()
}

#[inline(never)]
fn count_batch<S: Subject<K>, K: Key>(filter: &S, keys: &[K]) -> usize {
    black_box(filter).count_batch(keys)
}

#[inline(never)]
fn remove_all<S: Subject<K>, K: Key>(filter: &mut S, keys: &[K]) -> usize {
    let filter = black_box(filter);
    keys.iter().map(|k| usize::from(filter.remove(k))).sum()
}

#[inline(never)]
fn build<S: Subject<K>, K: Key>(keys: &[K], target: Target) -> Result<S> {
    S::build(black_box(keys), target)
}

/// Builds `S` from the members of the `(seed, n)` workload and measures it.
pub(crate) fn sample<S: Subject<K>, K: Cached>(
    seed: u64,
    n: usize,
    target: Target,
    cache: &mut Cache,
) -> Result<Sample> {
    let workload = K::workload(cache, seed, n);
    let (members, queries) = (&workload.members, &workload.non_members);
    let start = Instant::now();
    let mut filter: S = build(members, target)?;
    let build_time = start.elapsed();

    let (hits, hit) = batched(members, |keys| count_hits(&filter, keys));
    // The floor right after the hits, so both see the same neighbours; its
    // table is freed before the next loop. It reads by the members' index,
    // whatever the key type.
    let floor_table = MemoryFloor::new(filter.memory_bytes(), filter.lines_per_hit());
    let ids: Vec<u64> = (0..members.len() as u64).map(filter_core::mix64).collect();
    let (counted, floor) = batched(&ids, |keys| black_box(&floor_table).count(keys));
    drop(floor_table);
    if counted != ids.len() {
        return Err(format!(
            "{}: the memory floor counted {counted} of {}",
            S::INFO.name,
            ids.len()
        )
        .into());
    }
    let (false_positives, miss) = batched(queries, |keys| count_hits(&filter, keys));
    let (mixed_hits, mixed) = batched(&workload.mixed, |keys| count_hits(&filter, keys));
    let mut batched_rates = Vec::new();
    if S::INFO.batch {
        let (batch_hits, rates) = batched(&workload.mixed, |keys| count_batch(&filter, keys));
        // The batched lookup must answer exactly as one-by-one lookups.
        if batch_hits != mixed_hits {
            return Err(format!(
                "{}: batched lookups found {batch_hits} of the mixed queries, one-by-one lookups {mixed_hits}",
                S::INFO.name
            )
            .into());
        }
        batched_rates = rates;
    }
    let mut accuracy = Accuracy {
        memory_bytes: filter.memory_bytes(),
        queries: queries.len(),
        false_positives,
        false_negatives: members.len() - hits,
        failed_removes: None,
        lines_per_hit: filter.lines_per_hit(),
    };
    let mut remove = Vec::new();
    if S::INFO.remove {
        let (removed, rates) = batched(members, |keys| remove_all(&mut filter, keys));
        remove = rates;
        accuracy.failed_removes = Some(members.len() - removed);
    }
    Ok(Sample {
        accuracy,
        build_ns: per_key(build_time, members.len()),
        hit,
        floor,
        miss,
        mixed,
        batched: batched_rates,
        remove,
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
/// the worst false-negative and failed-remove counts), the timing of all
/// repetitions pooled (the lower quartile of the batches, the fastest
/// build), and the timing of each repetition on its own, so that the report
/// can show how far a ratio between two rows moves from round to round.
pub(crate) fn fold(entry: &Entry, samples: &[Sample]) -> Result<(Accuracy, Timing, Vec<Timing>)> {
    let first = samples.first().ok_or("no samples")?;
    let mut accuracy = first.accuracy.clone();
    for s in &samples[1..] {
        if entry.info.deterministic && s.accuracy != first.accuracy {
            return Err(format!(
                "{} ({}) is not deterministic: a repetition gave {:?}, the first {:?}",
                entry.info.name, entry.info.krate, s.accuracy, first.accuracy
            )
            .into());
        }
        accuracy.false_negatives = accuracy.false_negatives.max(s.accuracy.false_negatives);
        accuracy.failed_removes = accuracy.failed_removes.max(s.accuracy.failed_removes);
    }
    let per_rep = samples
        .iter()
        .map(|s| timing(entry, std::slice::from_ref(s)))
        .collect();
    Ok((accuracy, timing(entry, samples), per_rep))
}

fn timing(entry: &Entry, samples: &[Sample]) -> Timing {
    let pool = |batches: fn(&Sample) -> &Vec<f64>| -> f64 {
        let mut all: Vec<f64> = samples
            .iter()
            .flat_map(|s| batches(s).iter().copied())
            .collect();
        quantile(&mut all, BATCH_QUANTILE)
    };
    Timing {
        build_ns: samples
            .iter()
            .map(|s| s.build_ns)
            .fold(f64::INFINITY, f64::min),
        hit_ns: pool(|s| &s.hit),
        floor_ns: pool(|s| &s.floor),
        miss_ns: pool(|s| &s.miss),
        mixed_ns: pool(|s| &s.mixed),
        batched_ns: entry.info.batch.then(|| pool(|s| &s.batched)),
        remove_ns: entry.info.remove.then(|| pool(|s| &s.remove)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::subject::Family;
    use std::collections::HashSet;

    /// An exact set that forgets every tenth key it is given: a filter with
    /// false negatives, which the harness must count.
    struct Forgetful(HashSet<u64>);

    impl Subject<u64> for Forgetful {
        const INFO: Info = Info {
            remove: true,
            sized: false,
            ..Info::ours("Forgetful", Family::Bloom, true)
        };
        fn build(keys: &[u64], _: Target) -> Result<Self> {
            let kept = keys.iter().enumerate().filter(|(i, _)| i % 10 != 0);
            Ok(Forgetful(kept.map(|(_, &k)| k).collect()))
        }
        fn contains(&self, key: &u64) -> bool {
            self.0.contains(key)
        }
        fn remove(&mut self, key: &u64) -> bool {
            self.0.remove(key)
        }
        fn memory_bytes(&self) -> usize {
            self.0.len() * 8
        }
        fn lines_per_hit(&self) -> usize {
            1
        }
    }

    #[test]
    fn false_negatives_and_failed_removes_are_counted() {
        let s = sample::<Forgetful, u64>(5, 10_000, Target::Fixed, &mut Cache::default()).unwrap();
        assert_eq!(s.accuracy.false_negatives, 1_000);
        assert_eq!(s.accuracy.failed_removes, Some(1_000));
        assert_eq!(s.accuracy.false_positives, 0);
        assert_eq!(s.accuracy.queries, crate::compare::workload::MIN_QUERIES);
    }

    #[test]
    fn quantiles() {
        assert_eq!(quantile(&mut [3.0, 1.0, 2.0], 0.5), 2.0);
        assert_eq!(quantile(&mut [5.0, 4.0, 1.0, 3.0, 2.0], 0.25), 2.0);
        assert_eq!(quantile(&mut [7.0], 0.25), 7.0);
        assert!(quantile(&mut [], 0.25).is_nan());
    }
}
