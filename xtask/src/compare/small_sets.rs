//! The "small sets" section: every filter's false-positive rate when it holds
//! 10, 100 or 1000 keys, as filters in front of many small sets do (one per
//! SSTable block, per page, per shard).
//!
//! A filter can meet its target at a million keys and miss it at ten: a small
//! table rounds differently, and probe sequences that are fine in a large
//! table can collapse in a small one (`filter_core::probes` tells how our
//! Bloom filters did, and what fixed it). One small filter's rate is too
//! noisy to judge, so for each size the harness builds T filters from T
//! disjoint seeded key sets, queries each with q non-members of its own, and
//! reports the mean over all T·q queries with a standard error that includes
//! the set-to-set spread (see [`estimate`]).
//!
//! Only accuracy is measured here; nothing is timed.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use filter_core::testing::keys;

use super::Result;
use super::measure::Entry;
use super::subject::{Subject, Target};

/// One size of the section: n keys per set, T sets, q non-member queries
/// per set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) n: usize,
    pub(crate) sets: usize,
    pub(crate) queries: usize,
}

/// The full run: 8M queries per row and size, so that at 0.1 % the
/// binomial standard error alone is 1/√(0.001 · 8M) ≈ 1.1 % of the rate
/// (and a 16-bit fingerprint filter, at 2^-16, still sees about 120 false
/// positives: ±9 %). Tiny sets get more sets and fewer queries each: their
/// per-set rates spread the most (a 10-key table's fill varies widely), and
/// the spread shrinks only with √T. Building 8000 ten-key filters costs
/// little; the whole section takes a few seconds.
pub(crate) const FULL: [Plan; 3] = [
    Plan {
        n: 10,
        sets: 8_000,
        queries: 1_000,
    },
    Plan {
        n: 100,
        sets: 2_000,
        queries: 4_000,
    },
    Plan {
        n: 1_000,
        sets: 400,
        queries: 20_000,
    },
];

/// `--quick` (CI): one size, fewer sets; it exercises the code in well
/// under a second, and its errors are still about 3 % of a 1 % rate.
pub(crate) const QUICK: [Plan; 1] = [Plan {
    n: 100,
    sets: 500,
    queries: 2_000,
}];

/// What one filter built from one small key set gave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SetCount {
    pub(crate) false_positives: usize,
    pub(crate) false_negatives: usize,
    /// The rate theory predicts for this filter holding these keys.
    pub(crate) expected_fpr: f64,
}

/// Builds `S` from `members`, queries every member and every one of
/// `queries` (non-members) once.
pub(crate) fn one_set<S: Subject>(
    members: &[u64],
    queries: &[u64],
    target: Target,
) -> Result<SetCount> {
    let filter = S::build(members, target)?;
    let hits = members.iter().filter(|&&k| filter.contains(k)).count();
    let false_positives = queries.iter().filter(|&&k| filter.contains(k)).count();
    Ok(SetCount {
        false_positives,
        false_negatives: members.len() - hits,
        expected_fpr: filter.expected_fpr(members.len()),
    })
}

/// What a ratio is taken against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Reference {
    /// The rate a sized filter was asked for.
    Target(f64),
    /// A fixed-rate filter's own expected rate (mean over the sets: a
    /// cuckoo filter's depends on its load).
    Expected(f64),
}

impl Reference {
    pub(crate) fn rate(self) -> f64 {
        match self {
            Reference::Target(p) | Reference::Expected(p) => p,
        }
    }
}

/// The mean false-positive rate over all sets of one row and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Estimate {
    pub(crate) mean: f64,
    pub(crate) std_error: f64,
    pub(crate) reference: Reference,
    pub(crate) false_positives: usize,
    pub(crate) false_negatives: usize,
}

impl Estimate {
    pub(crate) fn ratio(&self) -> f64 {
        self.mean / self.reference.rate()
    }

    pub(crate) fn ratio_std_error(&self) -> f64 {
        self.std_error / self.reference.rate()
    }
}

/// The mean rate of `counts` (each set queried `queries` times) and its
/// standard error.
///
/// Every set gets the same number of queries, so the mean of the per-set
/// rates is the pooled rate. Its standard error is the larger of:
/// - the spread: the sample standard deviation of the per-set rates over
///   √T. The per-set rates vary both because the sets' tables differ (fill,
///   collisions) and because each is estimated from q queries, so this one
///   figure covers both, without assuming the sets alike;
/// - the binomial √(p(1 − p)/(T·q)) at p = max(mean, reference): with few
///   or no false positives seen (a 16-bit fingerprint filter), the sample
///   spread is itself too noisy to trust, and a filter that met its
///   reference rate would show at least this error.
pub(crate) fn estimate(counts: &[SetCount], queries: usize, reference: Reference) -> Estimate {
    let sets = counts.len().max(1) as f64;
    let rates: Vec<f64> = counts
        .iter()
        .map(|c| c.false_positives as f64 / queries as f64)
        .collect();
    let mean = rates.iter().sum::<f64>() / sets;
    let variance = if rates.len() > 1 {
        rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (sets - 1.0)
    } else {
        0.0
    };
    let spread = (variance / sets).sqrt();
    let p = mean.max(reference.rate());
    let binomial = (p * (1.0 - p) / (sets * queries as f64)).sqrt();
    Estimate {
        mean,
        std_error: spread.max(binomial),
        reference,
        false_positives: counts.iter().map(|c| c.false_positives).sum(),
        false_negatives: counts.iter().map(|c| c.false_negatives).sum(),
    }
}

/// The result of one row at one size.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Outcome {
    Measured(Estimate),
    /// Construction failed (an error, or a panic) on `failed` of the sets;
    /// `error` is the first message.
    Failed {
        failed: usize,
        error: String,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Cell {
    pub(crate) plan: Plan,
    pub(crate) outcome: Outcome,
}

/// One filter at one target, at every size of the section.
#[derive(Clone, Debug)]
pub(crate) struct SmallRow {
    pub(crate) entry: Entry,
    pub(crate) target: Target,
    pub(crate) cells: Vec<Cell>,
}

impl SmallRow {
    /// The filter's false negatives over every set (must be 0).
    pub(crate) fn false_negatives(&self) -> usize {
        self.cells
            .iter()
            .map(|c| match &c.outcome {
                Outcome::Measured(e) => e.false_negatives,
                Outcome::Failed { .. } => 0,
            })
            .sum()
    }
}

/// The whole section: its sizes, its rows, and how long it took.
#[derive(Clone, Debug)]
pub(crate) struct SmallSets {
    pub(crate) plans: Vec<Plan>,
    pub(crate) rows: Vec<SmallRow>,
    pub(crate) elapsed: Duration,
}

/// Measures every `(entry, target)` at every plan.
///
/// Set t of size n holds the member keys with indices t·n..(t+1)·n (the
/// seeded generator of the main run), so no two sets share a key; the
/// queries of set t are the non-member keys with indices t·q..(t+1)·q,
/// disjoint from every set by construction. Each set getting queries of its
/// own keeps the sets' rates independent, which the standard error assumes:
/// shared queries would share any query that happens to be unlucky.
pub(crate) fn measure(seed: u64, plans: &[Plan], rows: &[(Entry, Target)]) -> SmallSets {
    let started = Instant::now();
    // A peer that panics on a tiny set must not end the run, nor print one
    // backtrace per set: panics are caught and reported in the table.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut cells: Vec<Vec<Cell>> = vec![Vec::new(); rows.len()];
    for &plan in plans {
        let members = keys::members(seed, plan.n * plan.sets);
        let queries = keys::non_members(seed, plan.queries * plan.sets);
        for (i, &(entry, target)) in rows.iter().enumerate() {
            let outcome = measure_cell(entry, target, plan, &members, &queries);
            cells[i].push(Cell { plan, outcome });
        }
        eprintln!(
            "small sets of {} keys: {} rows measured ({} sets each)",
            plan.n,
            rows.len(),
            plan.sets
        );
    }
    std::panic::set_hook(hook);
    let mut rows: Vec<SmallRow> = rows
        .iter()
        .zip(cells)
        .map(|(&(entry, target), cells)| SmallRow {
            entry,
            target,
            cells,
        })
        .collect();
    // By family, ours before peers; the sort is stable, so each filter's
    // targets stay together in the order they were asked for.
    rows.sort_by_key(|r| (r.entry.family, r.entry.peer));
    SmallSets {
        plans: plans.to_vec(),
        rows,
        elapsed: started.elapsed(),
    }
}

fn measure_cell(
    entry: Entry,
    target: Target,
    plan: Plan,
    members: &[u64],
    queries: &[u64],
) -> Outcome {
    let mut counts = Vec::with_capacity(plan.sets);
    let mut failed = 0;
    let mut first_error = None;
    let sets = members.chunks_exact(plan.n).take(plan.sets);
    for (set, queries) in sets.zip(queries.chunks_exact(plan.queries)) {
        let result = catch_unwind(AssertUnwindSafe(|| (entry.one_set)(set, queries, target)))
            .unwrap_or_else(|panic| Err(format!("panicked: {}", panic_message(&*panic)).into()));
        match result {
            Ok(count) => counts.push(count),
            Err(e) => {
                failed += 1;
                first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }
    if let Some(error) = first_error {
        return Outcome::Failed { failed, error };
    }
    let reference = match target {
        Target::Rate(p) => Reference::Target(p),
        Target::Fixed => Reference::Expected(
            counts.iter().map(|c| c.expected_fpr).sum::<f64>() / counts.len().max(1) as f64,
        ),
    };
    Outcome::Measured(estimate(&counts, plan.queries, reference))
}

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(ToString::to_string)
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// The exact false-positive rate of a Bloom filter of `m` bits holding `n`
/// keys with `k` truly independent, uniform probes per key, averaged over
/// key sets: E[(X/m)^k], where X is the number of set bits after n·k
/// uniform throws into m cells (the occupancy distribution, by dynamic
/// programming). The textbook (1 − e^(−kn/m))^k is the k-th power of the
/// mean fill, which E[fill^k] exceeds when the fill varies.
pub(crate) fn independent_probes_fpr(m: usize, n: usize, k: u32) -> f64 {
    let mut occupied = vec![0.0f64; m + 1];
    occupied[0] = 1.0;
    let cells = m as f64;
    for _ in 0..n * k as usize {
        for j in (0..=m).rev() {
            let stay = occupied[j] * j as f64 / cells;
            let from_below = if j > 0 {
                occupied[j - 1] * (cells - (j - 1) as f64) / cells
            } else {
                0.0
            };
            occupied[j] = stay + from_below;
        }
    }
    occupied
        .iter()
        .enumerate()
        .map(|(j, p)| p * (j as f64 / cells).powf(f64::from(k)))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::measure::entry;
    use crate::compare::subject::Family;

    fn counts(false_positives: &[usize]) -> Vec<SetCount> {
        false_positives
            .iter()
            .map(|&fp| SetCount {
                false_positives: fp,
                false_negatives: 0,
                expected_fpr: 0.01,
            })
            .collect()
    }

    #[test]
    fn the_standard_error_is_the_set_to_set_spread_when_the_sets_differ() {
        // Rates 0 and 0.04 over 4 sets: mean 0.02, sample sd
        // √(4 · 0.0004 / 3) = 0.02309, over √4 sets: 0.011547. The binomial
        // √(0.02 · 0.98 / 400) = 0.0070 is smaller.
        let e = estimate(&counts(&[0, 4, 0, 4]), 100, Reference::Target(0.01));
        assert!((e.mean - 0.02).abs() < 1e-12);
        assert!((e.std_error - 0.011_547).abs() < 1e-6, "{}", e.std_error);
        assert!((e.ratio() - 2.0).abs() < 1e-12);
        assert!((e.ratio_std_error() - 1.1547).abs() < 1e-4);
        assert_eq!(e.false_positives, 8);
    }

    #[test]
    fn the_standard_error_is_binomial_when_the_sets_agree_or_show_nothing() {
        // Identical sets: no spread, so √(0.01 · 0.99 / 400) = 0.0049749.
        let e = estimate(&counts(&[1, 1, 1, 1]), 100, Reference::Target(0.01));
        assert!((e.std_error - 0.004_974_9).abs() < 1e-7, "{}", e.std_error);
        // No false positive at all: the error is taken at the reference
        // rate, not at the measured 0 (which would claim certainty).
        let e = estimate(&counts(&[0, 0]), 1000, Reference::Expected(0.5));
        assert_eq!(e.mean, 0.0);
        assert!((e.std_error - (0.25f64 / 2000.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn independent_probes_sit_above_the_textbook_rate_on_tiny_tables() {
        // The figures `filter_core::probes` quotes: 1 % at 10 keys is
        // m = 96, k = 7; 0.1 % at 10 keys is m = 144, k = 10.
        let ratio = independent_probes_fpr(96, 10, 7) / 0.01;
        assert!((ratio - 1.089).abs() < 0.0005, "{ratio}");
        let ratio = independent_probes_fpr(144, 10, 10) / 0.001;
        assert!((ratio - 1.113).abs() < 0.0015, "{ratio}");
        // A large table's fill hardly varies: the textbook rate holds.
        let textbook = (1.0 - (-7.0f64 * 1000.0 / 9586.0).exp()).powi(7);
        let ratio = independent_probes_fpr(9586, 1000, 7) / textbook;
        assert!((ratio - 1.0).abs() < 0.01, "{ratio}");
    }

    /// Refuses sets below 50 keys; otherwise an exact set.
    struct Picky(std::collections::HashSet<u64>);

    impl Subject for Picky {
        const NAME: &'static str = "Picky";
        const CRATE: &'static str = "test";
        const FAMILY: Family = Family::Xor8;
        const PEER: bool = true;
        const HASHER: &'static str = "none";
        const DYNAMIC: bool = false;
        const REMOVE: bool = false;
        const SIZED: bool = false;

        fn build(keys: &[u64], _: Target) -> Result<Self> {
            if keys.len() < 50 {
                return Err(format!("needs at least 50 keys, got {}", keys.len()).into());
            }
            assert!(keys.len() < 500, "panics at 500 keys or more");
            Ok(Picky(keys.iter().copied().collect()))
        }
        fn contains(&self, key: u64) -> bool {
            self.0.contains(&key)
        }
        fn memory_bytes(&self) -> usize {
            0
        }
        fn lines_per_hit(&self) -> usize {
            1
        }
        fn params(&self) -> String {
            String::new()
        }
        fn expected_fpr(&self, _: usize) -> f64 {
            0.001
        }
    }

    #[test]
    fn failing_and_panicking_constructors_become_cells_not_crashes() {
        let plans = [
            Plan {
                n: 10,
                sets: 3,
                queries: 10,
            },
            Plan {
                n: 100,
                sets: 3,
                queries: 10,
            },
            Plan {
                n: 1000,
                sets: 2,
                queries: 10,
            },
        ];
        let s = measure(9, &plans, &[(entry::<Picky>(), Target::Fixed)]);
        let cells = &s.rows[0].cells;
        assert_eq!(
            cells[0].outcome,
            Outcome::Failed {
                failed: 3,
                error: "needs at least 50 keys, got 10".into()
            }
        );
        let Outcome::Measured(e) = &cells[1].outcome else {
            panic!("{:?}", cells[1].outcome)
        };
        // An exact set, and its sets are disjoint from the queries.
        assert_eq!((e.false_positives, e.false_negatives), (0, 0));
        assert_eq!(e.reference, Reference::Expected(0.001));
        assert_eq!(
            cells[2].outcome,
            Outcome::Failed {
                failed: 2,
                error: "panicked: panics at 500 keys or more".into()
            }
        );
    }

    #[test]
    fn sets_are_disjoint() {
        let plan = FULL[0];
        let members = keys::members(1, plan.n * plan.sets);
        let distinct: std::collections::HashSet<u64> = members.iter().copied().collect();
        assert_eq!(distinct.len(), members.len());
    }
}
