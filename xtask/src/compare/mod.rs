//! `cargo xtask compare`: every filter of the workspace and its peer crates,
//! built from the same seeded keys, measured side by side on this machine.
//!
//! Four sections of rows:
//! - the main tables: our default types with the default hasher, and each
//!   peer as its README shows, on `u64` keys, at every size and rate;
//! - string keys (16 to 64 bytes) at one size and rate, for the filters
//!   that have a peer;
//! - the same cheap hasher for everyone (`Cheap64`; ours through
//!   `UniformHasher`), so that what differs is the filters alone;
//! - our quotient filter given the memory qfilter takes, at one size and
//!   rate, beside the two main rows of that family.
//!
//! Every row is built, queried with all members, at least a million
//! non-members and a shuffled half-and-half mix (one by one, and batched
//! where the filter has `contains_batch`), and emptied by removes where the
//! filter has them. Rows of one size are measured round-robin, one
//! repetition of every row before the next repetition of any, so a noisy
//! neighbour slows all rows alike; the report gives the lower quartile of
//! the timed batches (see `measure`). Each row's member lookups are also
//! set against their memory floor (`floor`).
//!
//! Timings come from optimized code only: the `cargo xtask` alias builds
//! this binary with `--release`, and a debug build refuses to run. The run
//! writes its report even when a filter gives a false negative (so the
//! culprit is on record) and then fails with a non-zero exit status.

mod charts;
mod floor;
mod machine;
mod matched;
mod measure;
mod options;
mod ours;
mod peers;
mod report;
mod subject;
mod theory;
mod workload;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use measure::{Accuracy, Cache, Entry, Timing};
use options::Options;
use subject::Target;

pub(crate) type Error = Box<dyn std::error::Error>;
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

/// Which table a row belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Section {
    /// Default types and hashers, `u64` keys.
    Main,
    /// String keys.
    Strings,
    /// Everyone on `Cheap64`.
    Cheap,
    /// Our quotient filter loaded by `insert_batch`, and given qfilter's
    /// memory.
    Quotient,
}

/// One measured row.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub(crate) entry: Entry,
    pub(crate) section: Section,
    pub(crate) n: usize,
    pub(crate) target: Target,
    pub(crate) accuracy: Accuracy,
    pub(crate) timing: Timing,
    pub(crate) per_rep: Vec<Timing>,
}

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
    let plan = plan(&options);
    if plan.is_empty() {
        return Err("--filters matched no filter".into());
    }
    let machine = machine::Machine::detect(&workspace);
    let started = Instant::now();
    let rows = measure_all(&options, &plan)?;
    let matched = matched::measure(options.seed, &rows)?;
    let elapsed = started.elapsed();

    std::fs::create_dir_all(&options.out)
        .map_err(|e| format!("cannot create {}: {e}", options.out.display()))?;
    let mut written = report::write(&options, &machine, &rows, &matched, elapsed)?;
    written.extend(charts::write(&options.out, &rows)?);
    for path in &written {
        eprintln!("wrote {}", path.display());
    }
    eprintln!("measured {} rows in {}", rows.len(), duration(elapsed));

    let broken: Vec<String> = rows
        .iter()
        .filter(|r| r.accuracy.false_negatives > 0 || r.accuracy.failed_removes.unwrap_or(0) > 0)
        .map(|r| {
            format!(
                "{} ({}) at n = {}: {} false negatives, {} failed removes",
                r.entry.info.name,
                r.entry.info.krate,
                r.n,
                r.accuracy.false_negatives,
                r.accuracy.failed_removes.unwrap_or(0)
            )
        })
        .collect();
    if !broken.is_empty() {
        return Err(format!(
            "FALSE NEGATIVES or failed removes (a filter said \"absent\" for an inserted key, \
             or could not remove one); the report records them:\n  {}",
            broken.join("\n  ")
        )
        .into());
    }
    Ok(())
}

/// One row to measure: what, in which section, at which size and rate.
#[derive(Clone, Copy, Debug)]
struct Planned {
    entry: Entry,
    section: Section,
    n: usize,
    target: Target,
}

/// Every row of the run: the main tables at every size and rate, and the
/// string-key and cheap-hasher sections at the reference size and rate.
fn plan(options: &Options) -> Vec<Planned> {
    let mut plan = Vec::new();
    let mut add = |entries: Vec<Entry>, section: Section, sizes: &[usize], fprs: &[f64]| {
        for &n in sizes {
            for entry in entries
                .iter()
                .filter(|e| options.selects(e.info.name, e.info.krate))
            {
                let targets: Vec<Target> = if entry.info.sized {
                    fprs.iter().map(|&p| Target::Rate(p)).collect()
                } else {
                    vec![Target::Fixed]
                };
                for target in targets {
                    plan.push(Planned {
                        entry: *entry,
                        section,
                        n,
                        target,
                    });
                }
            }
        }
    };
    let main: Vec<Entry> = ours::entries()
        .into_iter()
        .chain(peers::entries())
        .collect();
    add(main, Section::Main, &options.sizes, &options.fprs);
    let (n, p) = options.reference();
    let strings = ours::string_entries()
        .into_iter()
        .chain(peers::string_entries())
        .collect();
    add(strings, Section::Strings, &[n], &[p]);
    let cheap = ours::cheap_entries()
        .into_iter()
        .chain(peers::cheap_entries())
        .collect();
    add(cheap, Section::Cheap, &[n], &[p]);
    let quotient = ours::quotient_entries()
        .into_iter()
        .chain(peers::same_memory_entries())
        .collect();
    add(quotient, Section::Quotient, &[n], &[p]);
    plan
}

fn measure_all(options: &Options, plan: &[Planned]) -> Result<Vec<Row>> {
    let mut sizes: Vec<usize> = plan.iter().map(|p| p.n).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut rows = Vec::new();
    let mut cache = Cache::default();
    for n in sizes {
        let here: Vec<&Planned> = plan.iter().filter(|p| p.n == n).collect();
        let reps = options.reps_for(n);
        let mut samples = vec![Vec::new(); here.len()];
        for rep in 0..reps {
            eprintln!(
                "n = {}: repetition {}/{reps} of {} rows",
                report::count(n),
                rep + 1,
                here.len()
            );
            for (i, p) in here.iter().enumerate() {
                let sample =
                    (p.entry.measure)(options.seed, n, p.target, &mut cache).map_err(|e| {
                        format!(
                            "{} ({}) at n = {n}: {e}",
                            p.entry.info.name, p.entry.info.krate
                        )
                    })?;
                samples[i].push(sample);
            }
        }
        for (p, samples) in here.iter().zip(&samples) {
            let (accuracy, timing, per_rep) = measure::fold(&p.entry, samples)?;
            rows.push(Row {
                entry: p.entry,
                section: p.section,
                n,
                target: p.target,
                accuracy,
                timing,
                per_rep,
            });
        }
    }
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
