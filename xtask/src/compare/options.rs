//! Command-line options of `cargo xtask compare`.
//!
//! Hand-rolled: five flags do not justify a parser crate in a tool whose
//! release build runs in CI.

use std::path::PathBuf;

use super::Result;

pub(crate) const HELP: &str = "\
usage: cargo xtask compare [options]

Builds every filter of the workspace and its peer crates from the same seeded
keys, measures space, false-positive rate and speed, and writes
comparison.md, comparison.csv and SVG charts.

options:
  --quick          100k keys, 1 % target, 3 repetitions (CI; about a minute)
  --n <list>       key counts, comma-separated; k/M suffixes allowed (default 100k,1M,10M)
  --fpr <list>     target rates of the sized filters (default 0.01,0.001)
  --seed <u64>     key seed (default 1); space and FPR are reproducible from it
  --filters <list> only rows whose filter or crate name contains one of these
                   (case-insensitive), e.g. `bloom,xorf`
  --reps <count>   timing repetitions per row (default 7/5/3 by size)
  --out <dir>      output directory (default docs/ for the full run,
                   target/compare/ for runs given any other option, so they
                   never replace the report)
  -h, --help       this text

String keys and the same-hasher rows are measured at one size and rate: 1M
keys (or the size closest to it) and 1 % (or the first rate).

The build is the default one unless RUSTFLAGS says otherwise:
RUSTFLAGS=\"-C target-cpu=native\" cargo xtask compare measures a build for
this CPU; the report's SIMD row says which build made it.";

#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) sizes: Vec<usize>,
    pub(crate) fprs: Vec<f64>,
    pub(crate) seed: u64,
    pub(crate) filters: Vec<String>,
    pub(crate) reps: Option<usize>,
    pub(crate) out: PathBuf,
    /// True when any option narrowed the default run (tests read it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) narrowed: bool,
}

/// The default (full) run: a cache-resident size, one beyond L2 and one
/// beyond any last-level cache; two target rates.
pub(crate) const DEFAULT_SIZES: [usize; 3] = [100_000, 1_000_000, 10_000_000];
pub(crate) const DEFAULT_FPRS: [f64; 2] = [0.01, 0.001];
pub(crate) const DEFAULT_SEED: u64 = 1;

impl Options {
    /// Parses the arguments after `compare`. `Ok(None)` means help was printed.
    pub(crate) fn parse(args: &[String], workspace: &std::path::Path) -> Result<Option<Options>> {
        let mut sizes = None;
        let mut fprs = None;
        let mut seed = DEFAULT_SEED;
        let mut filters = Vec::new();
        let mut reps = None;
        let mut out = None;
        let mut quick = false;
        let mut narrowed = false;
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let mut value = || {
                it.next()
                    .ok_or_else(|| format!("option {flag} needs a value\n\n{HELP}"))
            };
            match flag.as_str() {
                "-h" | "--help" => {
                    println!("{HELP}");
                    return Ok(None);
                }
                "--quick" => quick = true,
                "--n" => sizes = Some(list(value()?, "--n", parse_count)?),
                "--fpr" => fprs = Some(list(value()?, "--fpr", parse_fpr)?),
                "--seed" => {
                    let v = value()?;
                    seed = v.parse().map_err(|_| {
                        format!("--seed must be an integer in 0..=2^64-1, got `{v}`")
                    })?;
                }
                "--filters" => {
                    filters = value()?
                        .split(',')
                        .map(|s| s.trim().to_lowercase())
                        .filter(|s| !s.is_empty())
                        .collect();
                }
                "--reps" => {
                    let v = value()?;
                    let r: usize = v
                        .parse()
                        .ok()
                        .filter(|r| (1..=100).contains(r))
                        .ok_or_else(|| format!("--reps must be in 1..=100, got `{v}`"))?;
                    reps = Some(r);
                }
                "--out" => out = Some(PathBuf::from(value()?)),
                other => return Err(format!("unknown option `{other}`\n\n{HELP}").into()),
            }
            // Every option but `--out` narrows the run, `--reps` too: a
            // report from other repetitions than the default must not
            // replace the committed one unless `--out` says so.
            narrowed |= flag != "--out";
        }
        if quick {
            sizes.get_or_insert_with(|| vec![100_000]);
            fprs.get_or_insert_with(|| vec![0.01]);
            reps.get_or_insert(3);
        }
        let out = out.unwrap_or_else(|| {
            if narrowed {
                target_dir(workspace).join("compare")
            } else {
                workspace.join("docs")
            }
        });
        Ok(Some(Options {
            sizes: sizes.unwrap_or_else(|| DEFAULT_SIZES.to_vec()),
            fprs: fprs.unwrap_or_else(|| DEFAULT_FPRS.to_vec()),
            seed,
            filters,
            reps,
            out,
            narrowed,
        }))
    }

    /// Timing repetitions for `n` keys: more for small, fast sizes, where
    /// one pass is short and noise matters most.
    /// The size and rate of the string-key and same-hasher sections: the
    /// size closest to 1M, and 1 % if asked for, else the first rate.
    pub(crate) fn reference(&self) -> (usize, f64) {
        let n = self
            .sizes
            .iter()
            .copied()
            .min_by_key(|&n| n.abs_diff(1_000_000))
            .unwrap_or(1_000_000);
        let p = if self.fprs.contains(&0.01) {
            0.01
        } else {
            self.fprs.first().copied().unwrap_or(0.01)
        };
        (n, p)
    }

    pub(crate) fn reps_for(&self, n: usize) -> usize {
        self.reps.unwrap_or(match n {
            0..=300_000 => 7,
            300_001..=3_000_000 => 5,
            _ => 3,
        })
    }

    /// Whether a row named `filter` from crate `krate` was asked for.
    pub(crate) fn selects(&self, filter: &str, krate: &str) -> bool {
        let (filter, krate) = (filter.to_lowercase(), krate.to_lowercase());
        self.filters.is_empty()
            || self
                .filters
                .iter()
                .any(|f| filter.contains(f.as_str()) || krate.contains(f.as_str()))
    }
}

/// Cargo's target directory, where narrowed runs write their output.
fn target_dir(workspace: &std::path::Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"))
}

fn list<T>(value: &str, flag: &str, parse: fn(&str) -> Option<T>) -> Result<Vec<T>> {
    let items: Option<Vec<T>> = value.split(',').map(|s| parse(s.trim())).collect();
    match items {
        Some(items) if !items.is_empty() => Ok(items),
        _ => Err(match flag {
            "--n" => format!(
                "--n must be a comma-separated list of key counts in 1000..=100M (k/M suffixes allowed), got `{value}`"
            ),
            _ => format!(
                "--fpr must be a comma-separated list of rates in the open interval (0, 1), got `{value}`"
            ),
        }
        .into()),
    }
}

/// `100000`, `100k`, `1M` or `1_000_000`; at least 1000 keys (fewer gives
/// no usable timing) and at most 100M (the keys alone would need 1.6 GB).
fn parse_count(s: &str) -> Option<usize> {
    let s = s.replace('_', "");
    let (digits, scale) = match s.strip_suffix(['k', 'K']) {
        Some(d) => (d, 1_000),
        None => match s.strip_suffix(['m', 'M']) {
            Some(d) => (d, 1_000_000),
            None => (s.as_str(), 1),
        },
    };
    let n = digits.parse::<usize>().ok()?.checked_mul(scale)?;
    (1_000..=100_000_000).contains(&n).then_some(n)
}

fn parse_fpr(s: &str) -> Option<f64> {
    let p: f64 = s.strip_suffix('%').map_or_else(
        || s.parse().ok(),
        |pct| pct.parse::<f64>().ok().map(|v| v / 100.0),
    )?;
    (p > 0.0 && p < 1.0).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Option<Options>> {
        let args: Vec<String> = args.iter().map(ToString::to_string).collect();
        Options::parse(&args, std::path::Path::new("/ws"))
    }

    #[test]
    fn defaults_are_the_full_run_into_docs() {
        let o = parse(&[]).unwrap().unwrap();
        assert_eq!(o.sizes, DEFAULT_SIZES);
        assert_eq!(o.fprs, DEFAULT_FPRS);
        assert!(!o.narrowed);
        assert_eq!(o.out, PathBuf::from("/ws/docs"));
    }

    #[test]
    fn quick_is_one_size_one_rate_and_never_replaces_the_report() {
        let o = parse(&["--quick"]).unwrap().unwrap();
        assert_eq!(
            (o.sizes.as_slice(), o.fprs.as_slice()),
            (&[100_000][..], &[0.01][..])
        );
        assert!(o.narrowed);
        assert!(o.out.ends_with("compare"));
    }

    #[test]
    fn fewer_repetitions_never_replace_the_report_by_default() {
        let o = parse(&["--reps", "1"]).unwrap().unwrap();
        assert!(o.narrowed);
        assert!(o.out.ends_with("compare"));
        // `--out` alone only moves the full run.
        let o = parse(&["--out", "/elsewhere"]).unwrap().unwrap();
        assert!(!o.narrowed);
        assert_eq!(o.out, PathBuf::from("/elsewhere"));
    }

    #[test]
    fn lists_and_suffixes() {
        let o = parse(&[
            "--n",
            "1k,2M",
            "--fpr",
            "1%,0.001",
            "--filters",
            "Bloom, xorf",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(o.sizes, [1_000, 2_000_000]);
        assert_eq!(o.fprs, [0.01, 0.001]);
        assert!(o.selects("BloomFilter", "bloom"));
        assert!(o.selects("Xor8", "xorf 0.13"));
        assert!(!o.selects("CuckooFilter", "cuckoo"));
    }

    #[test]
    fn bad_values_name_the_option_and_the_allowed_range() {
        let e = parse(&["--fpr", "1.5"]).unwrap_err().to_string();
        assert!(
            e.contains("--fpr") && e.contains("(0, 1)") && e.contains("1.5"),
            "{e}"
        );
        let e = parse(&["--n", "10"]).unwrap_err().to_string();
        assert!(e.contains("1000..=100M"), "{e}");
        let e = parse(&["--reps", "0"]).unwrap_err().to_string();
        assert!(e.contains("1..=100"), "{e}");
        assert!(parse(&["--seed"]).is_err());
        assert!(parse(&["--bogus"]).is_err());
    }
}
