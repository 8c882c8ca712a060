//! The machine header of the report: what the timings were measured on.

use std::path::Path;
use std::process::Command;

/// Where and how a report was produced.
#[derive(Clone, Debug)]
pub(crate) struct Machine {
    pub(crate) cpu: String,
    pub(crate) cores: usize,
    pub(crate) os: String,
    pub(crate) rustc: String,
    pub(crate) commit: String,
    pub(crate) profile: &'static str,
    /// Whether the build inlines the AVX2 kernels (see [`simd_build`]).
    pub(crate) simd: String,
    pub(crate) date: String,
}

impl Machine {
    pub(crate) fn detect(workspace: &Path) -> Machine {
        Machine {
            cpu: cpu_model().unwrap_or_else(|| "unknown".into()),
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
            rustc: output("rustc", &["-V"], workspace).unwrap_or_else(|| "unknown".into()),
            commit: commit(workspace),
            profile: if cfg!(debug_assertions) {
                "debug (timings meaningless)"
            } else {
                "release (workspace [profile.release]: opt-level 3, lto = \"fat\", codegen-units = 1)"
            },
            simd: simd_build(),
            date: utc_date(),
        }
    }
}

/// How this build meets the CPU's vector instructions.
///
/// Why the report says so: a default build targets baseline x86-64, and
/// `bloom` and `counting-bloom` pick their AVX2 kernels at run time, so each
/// operation calls a function compiled for AVX2. A build for an AVX2 target
/// (`-C target-cpu=native` or `x86-64-v3`) inlines those kernels and lets
/// the compiler vectorize the measuring loops, which moves some rows by a
/// third or more (the README's "Compiling for your CPU"). Two reports
/// compare only when this row matches.
fn simd_build() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        if cfg!(target_feature = "avx2") {
            let also = [
                ("BMI2", cfg!(target_feature = "bmi2")),
                ("AVX-512F", cfg!(target_feature = "avx512f")),
            ]
            .into_iter()
            .filter_map(|(name, on)| on.then_some(format!(", {name}")))
            .collect::<String>();
            format!("compiled for AVX2{also}: the AVX2 kernels are inlined")
        } else if std::arch::is_x86_feature_detected!("avx2") {
            "baseline x86-64 build; AVX2 found at run time, its kernels called, not inlined".into()
        } else {
            "baseline x86-64 build, no AVX2 on this CPU: portable kernels".into()
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        "portable kernels (the AVX2 kernels are x86-64 only)".into()
    }
}

fn output(program: &str, args: &[&str], dir: &Path) -> Option<String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The short commit hash, marked `-dirty` when the worktree has changes
/// (the report then describes code that no commit holds).
fn commit(workspace: &Path) -> String {
    let Some(hash) = output("git", &["rev-parse", "--short=12", "HEAD"], workspace) else {
        return "unknown (not a git checkout)".into();
    };
    let dirty = output(
        "git",
        &["status", "--porcelain", "--untracked-files=no"],
        workspace,
    )
    .is_some_and(|s| !s.is_empty());
    if dirty { format!("{hash}-dirty") } else { hash }
}

fn cpu_model() -> Option<String> {
    if let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") {
        return info
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string());
    }
    output(
        "sysctl",
        &["-n", "machdep.cpu.brand_string"],
        Path::new("."),
    )
}

/// Today's date in UTC, `YYYY-MM-DD HH:MM`, without a date crate
/// (Howard Hinnant's civil-from-days).
fn utc_date() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let (hh, mm) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02} UTC")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SIMD row tells the two x86-64 builds apart: a test binary built
    /// with `-C target-cpu=x86-64-v3` must say the kernels are inlined, a
    /// default one that they are called (or portable, without AVX2).
    #[test]
    fn the_simd_row_names_how_this_build_was_compiled() {
        let row = simd_build();
        if cfg!(not(target_arch = "x86_64")) {
            assert!(row.starts_with("portable kernels"), "{row}");
        } else if cfg!(target_feature = "avx2") {
            assert!(row.starts_with("compiled for AVX2"), "{row}");
            assert!(row.ends_with("the AVX2 kernels are inlined"), "{row}");
        } else {
            assert!(row.starts_with("baseline x86-64 build"), "{row}");
            assert!(
                row.ends_with("called, not inlined") || row.ends_with("portable kernels"),
                "{row}"
            );
        }
    }
}
