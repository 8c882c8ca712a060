//! The measurement harness: one build, member and non-member lookups, and
//! removes, for one filter at one size and target.
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
    pub(crate) hasher: &'static str,
    pub(crate) dynamic: bool,
    pub(crate) remove: bool,
    pub(crate) sized: bool,
    pub(crate) deterministic: bool,
    pub(crate) measure: fn(&Workload, Target) -> Result<Sample>,
}

/// The registry entry of `S`.
pub(crate) fn entry<S: Subject>() -> Entry {
    Entry {
        name: S::NAME,
        krate: S::CRATE,
        family: S::FAMILY,
        peer: S::PEER,
        hasher: S::HASHER,
        dynamic: S::DYNAMIC,
        remove: S::REMOVE,
        sized: S::SIZED,
        deterministic: S::DETERMINISTIC,
        measure: sample::<S>,
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
    /// Members whose `remove` returned false (must be 0), for filters with remove.
    pub(crate) failed_removes: Option<usize>,
}

/// The timed half of a measurement, in nanoseconds per key.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Timing {
    pub(crate) build_ns: f64,
    pub(crate) hit_ns: f64,
    pub(crate) miss_ns: f64,
    pub(crate) remove_ns: Option<f64>,
}

/// One repetition of one row.
#[derive(Clone, Debug)]
pub(crate) struct Sample {
    pub(crate) accuracy: Accuracy,
    pub(crate) timing: Timing,
}

fn per_key(elapsed: Duration, keys: usize) -> f64 {
    elapsed.as_nanos() as f64 / keys.max(1) as f64
}

/// Counts the keys `filter` reports present.
#[inline(never)]
fn count_hits<S: Subject>(filter: &S, keys: &[u64]) -> usize {
    let filter = black_box(filter);
    keys.iter().map(|&k| usize::from(filter.contains(k))).sum()
}

/// Removes every key once; returns how many removes reported success.
#[inline(never)]
fn remove_all<S: Subject>(filter: &mut S, keys: &[u64]) -> usize {
    let filter = black_box(filter);
    keys.iter().map(|&k| usize::from(filter.remove(k))).sum()
}

#[inline(never)]
fn build<S: Subject>(keys: &[u64], target: Target) -> Result<S> {
    S::build(black_box(keys), target)
}

/// Builds `S` from the workload's members and measures it.
pub(crate) fn sample<S: Subject>(workload: &Workload, target: Target) -> Result<Sample> {
    let (members, queries) = (&workload.members, &workload.non_members);
    let start = Instant::now();
    let mut filter: S = build(members, target)?;
    let build_time = start.elapsed();

    let start = Instant::now();
    let hits = count_hits(&filter, members);
    let hit_time = start.elapsed();

    let start = Instant::now();
    let false_positives = count_hits(&filter, queries);
    let miss_time = start.elapsed();

    let mut accuracy = Accuracy {
        params: filter.params(),
        memory_bytes: filter.memory_bytes(),
        expected_fpr: filter.expected_fpr(members.len()),
        queries: queries.len(),
        false_positives,
        false_negatives: members.len() - hits,
        retries: filter.retries(),
        failed_removes: None,
    };
    let mut timing = Timing {
        build_ns: per_key(build_time, members.len()),
        hit_ns: per_key(hit_time, members.len()),
        miss_ns: per_key(miss_time, queries.len()),
        remove_ns: None,
    };
    if S::REMOVE {
        let start = Instant::now();
        let removed = remove_all(&mut filter, members);
        timing.remove_ns = Some(per_key(start.elapsed(), members.len()));
        accuracy.failed_removes = Some(members.len() - removed);
    }
    Ok(Sample { accuracy, timing })
}

/// The median of `values` (the mean of the middle two for an even count).
pub(crate) fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    match values.len() {
        0 => f64::NAN,
        len if len % 2 == 1 => values[mid],
        _ => (values[mid - 1] + values[mid]) / 2.0,
    }
}

/// Folds the repetitions of one row: the accuracy of the first (checked
/// identical across repetitions for deterministic filters; the worst false
/// negative count otherwise) and the median of each timing.
pub(crate) fn fold(entry: &Entry, samples: &[Sample]) -> Result<(Accuracy, Timing)> {
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
        accuracy.false_negatives = accuracy.false_negatives.max(s.accuracy.false_negatives);
    }
    let pick = |f: fn(&Timing) -> Option<f64>| -> Option<f64> {
        let mut v: Vec<f64> = samples.iter().filter_map(|s| f(&s.timing)).collect();
        (!v.is_empty()).then(|| median(&mut v))
    };
    let timing = Timing {
        build_ns: pick(|t| Some(t.build_ns)).unwrap_or(f64::NAN),
        hit_ns: pick(|t| Some(t.hit_ns)).unwrap_or(f64::NAN),
        miss_ns: pick(|t| Some(t.miss_ns)).unwrap_or(f64::NAN),
        remove_ns: pick(|t| t.remove_ns),
    };
    Ok((accuracy, timing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
