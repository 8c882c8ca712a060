//! Spark's own filters, loaded and queried here; and filters built here,
//! loaded and queried by Spark.
//!
//! `tests/data/spark/` holds what `scripts/interop/generate.py` recorded
//! from Spark 4 (pyspark from PyPI): `v{1,2}-{long,string}-{n}.bin` are the
//! bytes of `BloomFilter.writeTo` for filters Spark built with
//! `BloomFilter.create(version, n, optimalNumOfBits(n, 0.03), 0)` and filled
//! with n values (the script checked that `DataFrame.stat.bloomFilter`
//! writes the same version-2 bytes), and `.answers` are Spark's
//! `mightContain` answers on 10^5 other values. `ours-*.bin` are filters
//! built by this crate (the ignored test below writes them), and
//! `.spark-answers` what Spark's `readFrom` and `mightContain` made of them.

#![cfg(feature = "spark")]

mod spark_parquet_values;

use std::path::PathBuf;

use bloom::spark::{SparkBloomFilter, SparkVersion};
use spark_parquet_values::{QUERIES, answer, bitmap, splitmix, string};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/spark")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn version(name: &str) -> SparkVersion {
    if name == "v1" {
        SparkVersion::V1
    } else {
        SparkVersion::V2 { seed: 0 }
    }
}

/// Our answers for the queries of `kind`.
fn our_answers(f: &SparkBloomFilter, kind: &str) -> Vec<bool> {
    splitmix(2, QUERIES)
        .iter()
        .enumerate()
        .map(|(i, &q)| {
            if kind == "long" {
                f.contains(&q)
            } else {
                f.contains(string(q, i).as_str())
            }
        })
        .collect()
}

/// A filter of our own holding the first `n` values of `kind`.
fn fill(mut f: SparkBloomFilter, kind: &str, n: usize) -> SparkBloomFilter {
    for (i, v) in splitmix(1, n).into_iter().enumerate() {
        if kind == "long" {
            f.insert(&v);
        } else {
            f.insert(string(v, i).as_str());
        }
    }
    f
}

fn check_sparks_filter(v: &str, kind: &str, n: usize) {
    let name = format!("{v}-{kind}-{n}");
    let bytes = read(&format!("{name}.bin"));
    let f = SparkBloomFilter::from_bytes(&bytes).unwrap();
    assert_eq!(f.version(), version(v), "{name}");
    assert_eq!(f.to_bytes(), bytes, "{name}: written back byte for byte");

    // Our sizing is Spark's, and our inserts set Spark's bits: the same
    // values inserted here give the same bytes.
    let empty = SparkBloomFilter::with_fpr_version(version(v), n as u64, 0.03).unwrap();
    assert_eq!(
        (empty.bits(), empty.hashes()),
        (f.bits(), f.hashes()),
        "{name}"
    );
    let ours = fill(empty, kind, n);
    assert_eq!(ours, f, "{name}: our inserts set Spark's bits");

    let members = splitmix(1, n);
    for (i, &v) in members.iter().enumerate() {
        let present = if kind == "long" {
            f.contains(&v)
        } else {
            f.contains(string(v, i).as_str())
        };
        assert!(present, "{name}: member {i} missing");
    }
    let sparks = read(&format!("{name}.answers"));
    let mine = our_answers(&f, kind);
    for (i, &a) in mine.iter().enumerate() {
        assert_eq!(a, answer(&sparks, i), "{name}: query {i}");
    }
    // The rate is Spark's 3 % target, give or take: a sanity check that the
    // queries are not all members or all misses.
    let rate = mine.iter().filter(|&&a| a).count() as f64 / QUERIES as f64;
    assert!(rate > 0.005 && rate < 0.06, "{name}: {rate}");
}

#[test]
fn sparks_v1_filters_answer_as_spark() {
    for kind in ["long", "string"] {
        for n in [1_000, 1_000_000] {
            check_sparks_filter("v1", kind, n);
        }
    }
}

#[test]
fn sparks_v2_filters_answer_as_spark() {
    for kind in ["long", "string"] {
        for n in [1_000, 1_000_000] {
            check_sparks_filter("v2", kind, n);
        }
    }
}

#[test]
fn sparks_filters_union_with_ours_under_sparks_rule() {
    let sparks = SparkBloomFilter::from_bytes(&read("v2-long-1000.bin")).unwrap();
    // A second partition's filter, shaped like Spark's.
    let mut partition =
        SparkBloomFilter::with_hashes(sparks.version(), sparks.hashes(), sparks.bits()).unwrap();
    partition.insert(&-1i64);
    let mut merged = sparks.clone();
    merged.union(&partition).unwrap();
    assert!(merged.contains(&-1i64));
    assert!(splitmix(1, 1_000).iter().all(|v| merged.contains(v)));
    // Spark refuses another version, size, seed or hash count; so do we.
    let v1 = SparkBloomFilter::from_bytes(&read("v1-long-1000.bin")).unwrap();
    assert!(merged.clone().union(&v1).is_err());
    for other in [
        SparkBloomFilter::with_hashes(SparkVersion::V2 { seed: 1 }, sparks.hashes(), sparks.bits()),
        SparkBloomFilter::with_hashes(sparks.version(), sparks.hashes() + 1, sparks.bits()),
        SparkBloomFilter::with_hashes(sparks.version(), sparks.hashes(), sparks.bits() + 64),
    ] {
        let mut copy = merged.clone();
        assert!(copy.union(&other.unwrap()).is_err());
        assert_eq!(copy, merged, "a refused union changes nothing");
    }
}

/// The filters of ours that Spark read: versions 1 and 2 (seed 0, and a
/// seeded version 2), longs and strings, 10^4 values at 1 %.
const OURS: [(&str, &str, usize); 6] = [
    ("v1", "long", 10_000),
    ("v1", "string", 10_000),
    ("v2", "long", 10_000),
    ("v2", "string", 10_000),
    ("v2s", "long", 10_000),
    ("v2s", "string", 10_000),
];

fn ours(v: &str, kind: &str, n: usize) -> SparkBloomFilter {
    let version = match v {
        "v1" => SparkVersion::V1,
        "v2" => SparkVersion::V2 { seed: 0 },
        _ => SparkVersion::V2 { seed: -123_456_789 },
    };
    fill(
        SparkBloomFilter::with_fpr_version(version, n as u64, 0.01).unwrap(),
        kind,
        n,
    )
}

#[test]
fn spark_reads_our_filters_and_answers_as_we_do() {
    for (v, kind, n) in OURS {
        let name = format!("ours-{v}-{kind}-{n}");
        let f = ours(v, kind, n);
        assert_eq!(
            f.to_bytes(),
            read(&format!("{name}.bin")),
            "{name}: still the bytes Spark read"
        );
        let sparks = read(&format!("{name}.spark-answers"));
        assert_eq!(bitmap(&our_answers(&f, kind)), sparks, "{name}");
    }
}

/// Writes `ours-*.bin` for `generate.py spark-read`:
/// `cargo test -p bloom --features spark --test spark_golden -- --ignored`.
#[test]
#[ignore = "writes the files that scripts/interop/generate.py gives Spark"]
fn write_our_filters() {
    for (v, kind, n) in OURS {
        std::fs::write(
            data(&format!("ours-{v}-{kind}-{n}.bin")),
            ours(v, kind, n).to_bytes(),
        )
        .unwrap();
    }
}
