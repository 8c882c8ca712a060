//! `cargo xtask compare`: every filter of the workspace and its peer crates,
//! built from the same seeded keys, measured side by side on this machine.
//!
//! For each size, every row (a filter at one target rate) is built, queried
//! with all members and with at least a million non-members, and, where the
//! filter supports it, emptied by removes (and, where it has batched
//! inserts or removes, built and emptied again through those, and where it
//! has an atomic twin, built again by two threads inserting at once, each
//! timed as a column of its own). Rows are measured round-robin, one
//! repetition of every row before the next repetition of any, so a noisy
//! neighbour slows all rows alike; the report gives the lower quartile of the
//! timed batches (see `measure`), and beside each ratio against a peer the
//! lowest and highest ratio of a single round, so a reader can tell a real
//! difference from this machine's noise.
//!
//! Each row's member lookups are also set against their memory floor
//! (`floor`): the same number of cache lines read from a table of the same
//! size, with no filter logic, timed in the same round. It tells how much of
//! a lookup is memory this machine cannot serve faster, and how much is code.
//!
//! A separate, untimed pass (`small_sets`) builds every row's filter from
//! thousands of disjoint sets of 10, 100 and 1000 keys and reports its mean
//! false-positive rate there against its target: filters kept per block or
//! per page hold few keys, and a rate that holds at a million need not hold
//! at ten.
//!
//! Timings come from optimized code only: the `cargo xtask` alias builds this
//! binary with `--release`, and a debug build refuses to run.
//!
//! The run writes its report even when a filter gives a false negative (so
//! the culprit is on record) and then fails with a non-zero exit status.

mod advice;
mod charts;
mod floor;
mod floor_report;
mod machine;
mod measure;
mod options;
mod ours;
mod peers;
mod quality;
mod report;
mod row;
mod small_report;
mod small_sets;
mod subject;
mod theory;
mod workload;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use measure::Entry;
use options::Options;
use row::Row;
use subject::Target;
use workload::Workload;

pub(crate) type Error = Box<dyn std::error::Error>;
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn run(args: &[String]) -> Result<()> {
    let workspace = workspace_root();
    let Some(options) = Options::parse(args, &workspace)? else {
        return Ok(());
    };
    if cfg!(debug_assertions) {
        return Err(
            "refusing to measure a debug build: its timings mean nothing. \
                    Run `cargo xtask compare` (the alias builds with --release)."
                .into(),
        );
    }
    let entries: Vec<Entry> = ours::entries()
        .into_iter()
        .chain(peers::entries())
        .filter(|e| options.selects(e.name, e.krate))
        .collect();
    if entries.is_empty() {
        let known: Vec<String> = ours::entries()
            .iter()
            .chain(&peers::entries())
            .map(|e| format!("{} ({})", e.name, e.krate))
            .collect();
        return Err(format!(
            "--filters matched no filter; known filters: {}",
            known.join(", ")
        )
        .into());
    }

    let machine = machine::Machine::detect(&workspace);
    let started = Instant::now();
    let rows = measure_all(&options, &entries)?;
    let elapsed = started.elapsed();
    let plans: &[small_sets::Plan] = if options.quick {
        &small_sets::QUICK
    } else {
        &small_sets::FULL
    };
    let small = small_sets::measure(options.seed, plans, &rows_of(&options, &entries));

    std::fs::create_dir_all(&options.out)
        .map_err(|e| format!("cannot create {}: {e}", options.out.display()))?;
    let written = report::write(&options, &machine, &rows, &small, elapsed)?;
    let charts = charts::write(&options.out, &rows)?;
    for path in written.iter().chain(&charts) {
        eprintln!("wrote {}", path.display());
    }
    eprintln!(
        "measured {} rows in {}, small sets in {}",
        rows.len(),
        duration(elapsed),
        duration(small.elapsed)
    );

    let broken: Vec<String> = rows
        .iter()
        .filter(|r| r.accuracy.false_negatives > 0 || r.accuracy.failed_removes.unwrap_or(0) > 0)
        .map(|r| {
            format!(
                "{} at n = {}: {} false negatives, {} failed removes",
                r.label(),
                r.n,
                r.accuracy.false_negatives,
                r.accuracy.failed_removes.unwrap_or(0)
            )
        })
        .chain(
            small
                .rows
                .iter()
                .filter(|r| r.false_negatives() > 0)
                .map(|r| {
                    format!(
                        "{} ({}) on small sets: {} false negatives",
                        r.entry.name,
                        r.entry.krate,
                        r.false_negatives()
                    )
                }),
        )
        .collect();
    if !broken.is_empty() {
        return Err(format!(
            "FALSE NEGATIVES or failed removes (a filter said \"absent\" for an inserted key, \
             or could not remove one); the report above records them:\n  {}",
            broken.join("\n  ")
        )
        .into());
    }
    Ok(())
}

/// The rows of one size: each entry once if fixed-rate, once per target if sized.
fn rows_of(options: &Options, entries: &[Entry]) -> Vec<(Entry, Target)> {
    let mut rows: Vec<(Entry, Target)> = Vec::new();
    for e in entries {
        if e.sized {
            rows.extend(options.fprs.iter().map(|&p| (*e, Target::Rate(p))));
        } else {
            rows.push((*e, Target::Fixed));
        }
    }
    rows
}

/// Builds every sized row once from a few keys before anything is timed,
/// so that a rate some filter refuses (`--fpr 1e-9`: the cuckoo filter's
/// fingerprints stop at 16 bits) fails the run at once, naming every such
/// row, instead of minutes in, when that row's turn comes.
fn check_targets(plan: &[(Entry, Target)]) -> Result<()> {
    let members: Vec<u64> = (0..100).collect();
    let refused: Vec<String> = plan
        .iter()
        .filter_map(|(entry, target)| {
            let Target::Rate(p) = *target else {
                return None;
            };
            let built = std::panic::catch_unwind(|| (entry.one_set)(&members, &[], *target))
                .unwrap_or_else(|panic| {
                    Err(format!("panicked: {}", small_sets::panic_message(&*panic)).into())
                });
            built
                .err()
                .map(|e| format!("{} ({}) at --fpr {p}: {e}", entry.name, entry.krate))
        })
        .collect();
    if refused.is_empty() {
        return Ok(());
    }
    Err(format!(
        "some filters cannot be built at the rates asked for; narrow --fpr or --filters:\n  {}",
        refused.join("\n  ")
    )
    .into())
}

fn measure_all(options: &Options, entries: &[Entry]) -> Result<Vec<Row>> {
    let plan = rows_of(options, entries);
    check_targets(&plan)?;
    // Work is roughly proportional to keys touched; weight each row by n so
    // the ETA does not trust the fast small sizes.
    let total: u64 = options
        .sizes
        .iter()
        .map(|&n| (n * options.reps_for(n) * plan.len()) as u64)
        .sum();
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {percent:>3}% ETA {eta_precise} {msg}",
        )
        .map_err(|e| format!("progress template: {e}"))?
        .progress_chars("=> "),
    );
    let mut rows = Vec::new();
    for &n in &options.sizes {
        bar.set_message(format!("n = {}: generating keys", row::count(n)));
        let workload = Workload::new(options.seed, n);
        let reps = options.reps_for(n);
        let mut samples: Vec<Vec<measure::Sample>> = vec![Vec::new(); plan.len()];
        for rep in 0..reps {
            for (i, (entry, target)) in plan.iter().enumerate() {
                bar.set_message(format!(
                    "n = {}, rep {}/{reps}: {} ({})",
                    row::count(n),
                    rep + 1,
                    entry.name,
                    entry.krate
                ));
                let sample = (entry.measure)(&workload, *target)
                    .map_err(|e| format!("{} ({}) at n = {n}: {e}", entry.name, entry.krate))?;
                samples[i].push(sample);
                bar.inc(n as u64);
            }
        }
        for ((entry, target), samples) in plan.iter().zip(&samples) {
            let (accuracy, timing, per_rep) = measure::fold(entry, samples)?;
            rows.push(Row {
                entry: *entry,
                n,
                target: *target,
                accuracy,
                timing,
                per_rep,
            });
        }
        if bar.is_hidden() {
            eprintln!("n = {}: {} rows measured", row::count(n), plan.len());
        }
    }
    bar.finish_and_clear();
    rows.sort_by(|a, b| {
        (a.n, a.entry.family, a.entry.peer)
            .cmp(&(b.n, b.entry.family, b.entry.peer))
            .then(
                b.target_fpr()
                    .unwrap_or(0.0)
                    .total_cmp(&a.target_fpr().unwrap_or(0.0)),
            )
    });
    Ok(rows)
}

/// The workspace root: this crate's parent directory.
fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map_or(manifest.clone(), PathBuf::from)
}

/// `2 min 05 s` or `41.3 s`.
pub(crate) fn duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 {
        format!("{} min {:02} s", (s / 60.0) as u64, (s % 60.0) as u64)
    } else {
        format!("{s:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_a_filter_refuses_fail_the_run_before_anything_is_timed() {
        let sized: Vec<Entry> = ours::entries().into_iter().filter(|e| e.sized).collect();
        let at = |p: f64| -> Vec<(Entry, Target)> {
            sized.iter().map(|e| (*e, Target::Rate(p))).collect()
        };
        check_targets(&at(0.01)).unwrap();
        // Past the cuckoo filter's 16-bit fingerprints and the blocked
        // counting filter's 16 hashes; the classic filters take it.
        let err = check_targets(&at(1e-9)).unwrap_err().to_string();
        assert!(err.contains("  CuckooFilter (cuckoo) at --fpr"), "{err}");
        assert!(
            err.contains("  BlockedCountingBloomFilter (counting-bloom)"),
            "{err}"
        );
        assert!(!err.contains(" BloomFilter (bloom)"), "{err}");
    }
}
