//! `cargo xtask portable write DIR` and `cargo xtask portable check DIR`:
//! the byte format's promise that bytes written by one build load in
//! another, checked across builds that hash differently if anything in the
//! pipeline depended on the CPU target (`.ci/portable-bytes` runs `write`
//! in a default build and `check` in one for the native CPU, and the other
//! way round).
//!
//! `write` builds every filter kind from seeded keys (integers and
//! strings) and saves its bytes. `check` loads each with `from_bytes`,
//! queries it with the members (every one must be present) and with
//! non-members, and compares those answers, and the bytes of the same
//! filter built by this build, with what the writing build saved.

use std::path::Path;

use filter_core::testing::keys;
use filter_core::{Error, Filter, Insert};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const MEMBERS: usize = 20_000;
const QUERIES: usize = 20_000;

pub(crate) fn run(args: &[String]) -> Result<()> {
    match args {
        [mode, dir] if mode == "write" => each(Path::new(dir), true),
        [mode, dir] if mode == "check" => each(Path::new(dir), false),
        _ => Err("usage: cargo xtask portable write DIR | check DIR".into()),
    }
}

/// The seeded member keys, as integers and as strings.
fn members() -> (Vec<u64>, Vec<String>) {
    let ids = keys::members(7, MEMBERS);
    let strings = ids.iter().map(|id| format!("key-{id:x}")).collect();
    (ids, strings)
}

/// Answers to the non-member queries, as a string of 0s and 1s.
fn answers<F: Filter<u64> + Filter<str>>(filter: &F) -> String {
    keys::non_members(7, QUERIES)
        .iter()
        .map(|&k| {
            let s = format!("key-{k:x}");
            let hit =
                Filter::<u64>::contains(filter, &k) || Filter::<str>::contains(filter, s.as_str());
            if hit { '1' } else { '0' }
        })
        .collect()
}

/// Fills a dynamic filter with both key sets.
fn fill<F: Insert<u64> + Insert<str>>(mut filter: F) -> Result<F> {
    let (ids, strings) = members();
    for id in &ids {
        filter.insert(id)?;
    }
    for s in &strings {
        filter.insert(s.as_str())?;
    }
    Ok(filter)
}

/// Every member present in `filter`.
fn all_present<F: Filter<u64> + Filter<str>>(name: &str, filter: &F) -> Result<()> {
    let (ids, strings) = members();
    let lost = ids
        .iter()
        .filter(|k| !Filter::<u64>::contains(filter, k))
        .count()
        + strings
            .iter()
            .filter(|s| !Filter::<str>::contains(filter, s.as_str()))
            .count();
    if lost > 0 {
        return Err(format!("{name}: {lost} members absent after loading: false negatives").into());
    }
    Ok(())
}

/// Writes or checks one kind: `build` makes the filter, `to_bytes` and
/// `from_bytes` are its own.
fn kind<F: Filter<u64> + Filter<str>>(
    dir: &Path,
    write: bool,
    name: &str,
    build: impl Fn() -> Result<F>,
    to_bytes: impl Fn(&F) -> Vec<u8>,
    from_bytes: impl Fn(&[u8]) -> std::result::Result<F, Error>,
) -> Result<()> {
    let (bytes_path, answers_path) = (
        dir.join(format!("{name}.bin")),
        dir.join(format!("{name}.answers")),
    );
    let built = build()?;
    if write {
        std::fs::write(&bytes_path, to_bytes(&built))?;
        std::fs::write(&answers_path, answers(&built))?;
        return Ok(());
    }
    let saved = std::fs::read(&bytes_path).map_err(|e| format!("{}: {e}", bytes_path.display()))?;
    let loaded = from_bytes(&saved)
        .map_err(|e| format!("{name}: the other build's bytes do not load: {e}"))?;
    all_present(name, &loaded)?;
    let expected = std::fs::read_to_string(&answers_path)?;
    if answers(&loaded) != expected {
        return Err(format!("{name}: answers differ from the writing build's").into());
    }
    if to_bytes(&built) != saved {
        return Err(format!("{name}: this build writes other bytes for the same keys").into());
    }
    eprintln!("{name}: loads, answers and rebuilds byte for byte");
    Ok(())
}

fn each(dir: &Path, write: bool) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let (ids, strings) = members();
    let mut hashes: Vec<u64> = ids
        .iter()
        .map(|id| filter_core::KeyHasher::hash_key(&filter_core::PortableHasher::default(), id))
        .collect();
    hashes.extend(strings.iter().map(|s| {
        filter_core::KeyHasher::hash_key(&filter_core::PortableHasher::default(), s.as_str())
    }));
    let n = 2 * MEMBERS;
    macro_rules! dynamic {
        ($name:literal, $ty:ty) => {
            kind(
                dir,
                write,
                $name,
                || fill(<$ty>::with_fpr(n, 0.01)?),
                <$ty>::to_bytes,
                <$ty>::from_bytes,
            )?
        };
    }
    dynamic!("bloom", bloom::BloomFilter);
    dynamic!("blocked-bloom", bloom::BlockedBloomFilter);
    dynamic!("scalable-bloom", bloom::ScalableBloomFilter);
    dynamic!("counting-bloom", counting_bloom::CountingBloomFilter);
    dynamic!(
        "blocked-counting-bloom",
        counting_bloom::BlockedCountingBloomFilter
    );
    dynamic!(
        "dleft-counting-bloom",
        counting_bloom::DLeftCountingBloomFilter
    );
    dynamic!("cuckoo", cuckoo::CuckooFilter);
    dynamic!("scalable-cuckoo", cuckoo::ScalableCuckooFilter);
    dynamic!("quotient", quotient_filter::QuotientFilter);
    macro_rules! fixed {
        ($name:literal, $ty:ty) => {
            kind(
                dir,
                write,
                $name,
                || Ok(<$ty>::from_hashes(&hashes)?),
                <$ty>::to_bytes,
                <$ty>::from_bytes,
            )?
        };
    }
    fixed!("xor8", xor_filter::Xor8);
    fixed!("xor16", xor_filter::Xor16);
    fixed!("binary-fuse8", xor_filter::BinaryFuse8);
    fixed!("binary-fuse16", xor_filter::BinaryFuse16);
    kind(
        dir,
        write,
        "ribbon",
        || Ok(xor_filter::Ribbon::from_hashes_with_fpr(&hashes, 0.005)?),
        xor_filter::Ribbon::to_bytes,
        xor_filter::Ribbon::from_bytes,
    )?;
    if write {
        eprintln!("wrote every filter kind's bytes to {}", dir.display());
    }
    Ok(())
}
