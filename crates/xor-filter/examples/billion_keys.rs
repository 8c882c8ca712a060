//! Builds a `PartitionedBinaryFuse8` of 10^9 keys (or `--keys N`) and
//! reports peak memory, bits per key, the measured false-positive rate and
//! wall time. Not run in CI: at 10^9 keys it takes minutes and ~11 GB.
//!
//! ```text
//! cargo run --release -p xor-filter --example billion_keys -- [--keys N] [--partitions P]
//!     [--mode in-process|processes|both] [--dir DIR]
//! ```
//!
//! - `in-process` (default): the 64-bit hashes of all keys are held in
//!   memory (8 bytes per key, counted in the peak) and the filter is built
//!   with `PartitionedBinaryFuse8::from_hashes_with_hasher`.
//! - `processes`: each partition is built by a separate process (two at a
//!   time), which streams the key set, keeps its partition's hashes, and
//!   writes the partition's bytes to `DIR`; this process then assembles
//!   them, one file at a time.
//! - `both`: `in-process` in a child process, then `processes`, and the two
//!   filters' bytes are compared by their XXH64 (the format's checksum).
//!
//! Keys are `mix64(i + SEED)` for `i` in `0..N` (distinct, as `mix64` is a
//! bijection); non-members are the same for `i` from `N` on.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use filter_core::mix64;
use xor_filter::{BinaryFusePartition, KeyHasher, PartitionedBinaryFuse8, PortableHasher};

const SEED: u64 = 0x5EED_0000_0000_0001;

fn key(i: u64) -> u64 {
    mix64(i.wrapping_add(SEED))
}

struct Args {
    keys: u64,
    partitions: usize,
    mode: String,
    dir: PathBuf,
    worker: Option<usize>,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        keys: 1_000_000_000,
        partitions: 64,
        mode: "in-process".into(),
        dir: std::env::temp_dir().join("billion_keys_parts"),
        worker: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .replace('_', "")
                .parse::<f64>()
                .map_err(|e| format!("{flag}: {e}"))
        };
        match flag.as_str() {
            "--keys" => args.keys = number()? as u64,
            "--partitions" => args.partitions = number()? as usize,
            "--mode" => args.mode = value,
            "--dir" => args.dir = value.into(),
            "--worker" => args.worker = Some(number()? as usize),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(args)
}

/// Peak resident memory of this process (VmHWM), in bytes.
fn peak_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

fn gb(bytes: u64) -> f64 {
    bytes as f64 / 1e9
}

/// The checksum the format ends with: XXH64 of every byte before it, so a
/// hash of the whole byte string.
fn bytes_hash(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().expect("8 bytes"))
}

fn report(filter: &PartitionedBinaryFuse8, n: u64, started: Instant, build_seconds: f64) {
    let hasher = filter.hasher();
    // No false negatives on a sample of members spread over the key set.
    let step = (n / 10_000_000).max(1);
    let missing = (0..n)
        .step_by(step as usize)
        .filter(|&i| !filter.contains_hash(hasher.hash_key(&key(i))))
        .count();
    assert_eq!(missing, 0, "false negatives");
    let queries = 10_000_000u64;
    let fp = (n..n + queries)
        .filter(|&i| filter.contains_hash(hasher.hash_key(&key(i))))
        .count();
    let rate = fp as f64 / queries as f64;
    println!(
        "keys {n}, partitions {}: bits/key {:.4}, false-positive rate {:.5} % ({fp} of {queries}; 2^-8 = 0.39062 %), \
         build {build_seconds:.1} s ({:.1} ns/key), wall {:.1} s",
        filter.partitions(),
        filter.bits_per_key(),
        100.0 * rate,
        build_seconds * 1e9 / n as f64,
        started.elapsed().as_secs_f64()
    );
}

fn in_process(args: &Args) -> Result<u64, xor_filter::Error> {
    let started = Instant::now();
    let hasher = PortableHasher::default();
    let hashes: Vec<u64> = (0..args.keys).map(|i| hasher.hash_key(&key(i))).collect();
    let hashed = started.elapsed().as_secs_f64();
    let filter = PartitionedBinaryFuse8::from_hashes_with_hasher(&hashes, args.partitions, hasher)?;
    let build = started.elapsed().as_secs_f64() - hashed;
    drop(hashes);
    println!("in-process: hashed in {hashed:.1} s, built in {build:.1} s");
    report(&filter, args.keys, started, build);
    let bytes = filter.to_bytes();
    let hash = bytes_hash(&bytes);
    println!(
        "in-process: {} bytes, XXH64 {hash:016x}, peak memory {:.2} GB (VmHWM, hashes included)",
        bytes.len(),
        gb(peak_bytes())
    );
    Ok(hash)
}

fn part_path(dir: &Path, index: usize) -> PathBuf {
    dir.join(format!("part-{index:05}.bin"))
}

fn worker(args: &Args, index: usize) -> Result<(), Box<dyn std::error::Error>> {
    let hasher = PortableHasher::default();
    let part = PartitionedBinaryFuse8::build_partition_with_hasher(
        index,
        args.partitions,
        (0..args.keys).map(|i| hasher.hash_key(&key(i))),
        hasher,
    )?;
    std::fs::write(part_path(&args.dir, index), part.to_bytes())?;
    println!(
        "worker {index}: {} keys, peak {:.2} GB",
        part.len(),
        gb(peak_bytes())
    );
    Ok(())
}

fn processes(args: &Args) -> Result<u64, Box<dyn std::error::Error>> {
    let started = Instant::now();
    std::fs::create_dir_all(&args.dir)?;
    let exe = std::env::current_exe()?;
    let mut worker_peak = String::new();
    // Two builders at a time: one per core.
    for round in (0..args.partitions).collect::<Vec<_>>().chunks(2) {
        let mut children = Vec::new();
        for &i in round {
            children.push(
                Command::new(&exe)
                    .args(["--keys", &args.keys.to_string()])
                    .args(["--partitions", &args.partitions.to_string()])
                    .args(["--dir", &args.dir.to_string_lossy()])
                    .args(["--worker", &i.to_string()])
                    .stdout(std::process::Stdio::piped())
                    .spawn()?,
            );
        }
        for child in children {
            let out = child.wait_with_output()?;
            if !out.status.success() {
                return Err("a worker failed".into());
            }
            worker_peak = String::from_utf8_lossy(&out.stdout).trim().to_string();
        }
    }
    println!("processes: last {worker_peak}");
    let built = started.elapsed().as_secs_f64();
    let parts = (0..args.partitions).map(|i| {
        let bytes = std::fs::read(part_path(&args.dir, i)).expect("partition file");
        BinaryFusePartition::from_bytes(&bytes).expect("partition bytes")
    });
    let filter = PartitionedBinaryFuse8::assemble(parts)?;
    println!(
        "processes: partitions built in {built:.1} s, assembled in {:.1} s",
        started.elapsed().as_secs_f64() - built
    );
    report(&filter, args.keys, started, built);
    let bytes = filter.to_bytes();
    let hash = bytes_hash(&bytes);
    println!(
        "processes: {} bytes, XXH64 {hash:016x}, assembling process peak {:.2} GB",
        bytes.len(),
        gb(peak_bytes())
    );
    Ok(hash)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let result: Result<(), Box<dyn std::error::Error>> = (|| {
        if let Some(index) = args.worker {
            return worker(&args, index);
        }
        match args.mode.as_str() {
            "in-process" => {
                in_process(&args)?;
            }
            "processes" => {
                processes(&args)?;
            }
            "both" => {
                let exe = std::env::current_exe()?;
                let out = Command::new(exe)
                    .args(["--keys", &args.keys.to_string()])
                    .args(["--partitions", &args.partitions.to_string()])
                    .args(["--mode", "in-process"])
                    .output()?;
                let text = String::from_utf8_lossy(&out.stdout);
                print!("{text}");
                let theirs = text
                    .split("XXH64 ")
                    .nth(1)
                    .and_then(|s| s.get(..16))
                    .and_then(|h| u64::from_str_radix(h, 16).ok())
                    .ok_or("the in-process child printed no hash")?;
                let ours = processes(&args)?;
                if ours != theirs {
                    return Err(format!("bytes differ: {theirs:016x} vs {ours:016x}").into());
                }
                println!("byte-identical: both XXH64 {ours:016x}");
            }
            other => return Err(format!("unknown mode {other}").into()),
        }
        Ok(())
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
