//! Parquet SBBFs written by Spark (parquet-mr) and by the `parquet` crate,
//! loaded and queried here; and SBBFs built here, loaded and queried by
//! both.
//!
//! `tests/data/parquet/` holds what `scripts/interop` recorded: for each
//! writer a Parquet file of 10^4 rows with an SBBF on each of six columns
//! (`{writer}-10000.parquet`), a manifest giving each column's type and its
//! filter's offset, length and bitset size as the writer's reader reports
//! them, and that reader's answers on 10^5 other values
//! (`{writer}-10000-{column}.answers`). Whole files are committed, so the
//! test reads each filter where a reader would: the bytes at the column
//! chunk's `bloom_filter_offset`, header and bitset. `ours-*` are filters
//! built by this crate (the ignored test below writes them), with the
//! answers of the parquet crate's `Sbbf` (`.parquet-rs-answers`) and
//! parquet-mr's `BlockSplitBloomFilter` (`.parquet-mr-answers`).

#![cfg(feature = "parquet")]

mod spark_parquet_values;

use std::path::PathBuf;

use bloom::parquet::{ParquetBloomFilter, ParquetValue};
use spark_parquet_values::{QUERIES, binary, bitmap, float32, float64, int32, splitmix, string};

const ROWS: usize = 10_000;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/parquet")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The hash of the `i`-th value made from draw `v` as column type `kind`.
fn hash_of(kind: &str, v: i64, i: usize) -> u64 {
    fn h<V: ParquetValue + ?Sized>(v: &V) -> u64 {
        bloom::parquet::hash(v)
    }
    match kind {
        "long" => h(&v),
        "int" => h(&int32(v)),
        "float" => h(&float32(v)),
        "double" => h(&float64(v)),
        "string" => h(string(v, i).as_str()),
        "binary" => h(binary(v).as_slice()),
        other => panic!("unknown column type {other}"),
    }
}

fn hashes(kind: &str, seed: u64, n: usize) -> Vec<u64> {
    splitmix(seed, n)
        .into_iter()
        .enumerate()
        .map(|(i, v)| hash_of(kind, v, i))
        .collect()
}

/// A column of a manifest: name, type, offset, length, bitset bytes.
struct Column {
    name: String,
    kind: String,
    offset: usize,
    length: usize,
    bitset: usize,
}

fn manifest(writer: &str) -> Vec<Column> {
    let text = String::from_utf8(read(&format!("{writer}-{ROWS}.manifest"))).unwrap();
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.split(' ').collect();
            Column {
                name: f[0].into(),
                kind: f[1].into(),
                offset: f[2].parse().unwrap(),
                length: f[3].parse().unwrap(),
                bitset: f[4].parse().unwrap(),
            }
        })
        .collect()
}

fn check_writer(writer: &str) {
    let file = read(&format!("{writer}-{ROWS}.parquet"));
    let columns = manifest(writer);
    assert_eq!(columns.len(), 6);
    for c in columns {
        let name = format!("{writer} column {}", c.name);
        let stored = &file[c.offset..c.offset + c.length];
        let f = ParquetBloomFilter::from_bytes(stored).unwrap();
        assert_eq!(f.bytes(), c.bitset, "{name}");
        assert_eq!(f.to_bytes(), stored, "{name}: written back byte for byte");
        // A reader that knows only the offset finds the same filter.
        let (g, used) = ParquetBloomFilter::from_prefix(&file[c.offset..]).unwrap();
        assert_eq!((&g, used), (&f, c.length), "{name}");
        // Our sizing is the writers', and our inserts set their bits.
        let mut ours = ParquetBloomFilter::with_fpr(ROWS as u64, 0.01).unwrap();
        assert_eq!(ours.bytes(), c.bitset, "{name}");
        let members = hashes(&c.kind, 1, ROWS);
        for &h in &members {
            ours.insert_hash(h);
        }
        assert_eq!(ours, f, "{name}: our inserts set the writer's bits");
        assert!(
            members.iter().all(|&h| f.contains_hash(h)),
            "{name}: a member is missing"
        );

        let recorded = read(&format!("{writer}-{ROWS}-{}.answers", c.name));
        let queries = hashes(&c.kind, 2, QUERIES);
        let mine: Vec<bool> = queries.iter().map(|&h| f.contains_hash(h)).collect();
        assert_eq!(bitmap(&mine), recorded, "{name}: the writer's answers");
        assert_eq!(f.contains_hash_batch(&queries), mine, "{name}: batched");
        // A 1 % target, rounded up to a power of two bytes. The binary
        // column's short values (one byte in eight draws) are often members,
        // so its queries are no test of the rate.
        let rate = mine.iter().filter(|&&a| a).count() as f64 / QUERIES as f64;
        assert!(c.kind == "binary" || rate < 0.01, "{name}: {rate}");
    }
}

#[test]
fn sparks_parquet_filters_answer_as_parquet_mr() {
    check_writer("spark");
}

#[test]
fn the_parquet_crates_filters_answer_as_it_does() {
    check_writer("parquet-rs");
}

#[test]
fn typed_values_hash_as_the_columns_store_them() {
    // The first row of each column, inserted by its Rust type, is found by
    // the writers' filters: the plain encodings agree.
    let file = read(&format!("spark-{ROWS}.parquet"));
    let filter = |column: &str| {
        let c = manifest("spark")
            .into_iter()
            .find(|c| c.name == column)
            .unwrap();
        ParquetBloomFilter::from_bytes(&file[c.offset..c.offset + c.length]).unwrap()
    };
    let v = splitmix(1, 1)[0];
    assert!(filter("id").contains(&v));
    assert!(filter("name").contains(string(v, 0).as_str()));
    assert!(filter("name").contains(&string(v, 0)));
    assert!(filter("name").contains(string(v, 0).as_bytes()));
    assert!(filter("i").contains(&int32(v)));
    assert!(filter("f").contains(&float32(v)));
    assert!(filter("d").contains(&float64(v)));
    assert!(filter("b").contains(binary(v).as_slice()));
    assert!(filter("b").contains(&binary(v)));
}

/// Our filters that the parquet crate and parquet-mr read: each column type
/// at 10^4 values and 1 %.
const KINDS: [&str; 6] = ["long", "string", "int", "float", "double", "binary"];

fn ours(kind: &str) -> ParquetBloomFilter {
    let mut f = ParquetBloomFilter::with_fpr(ROWS as u64, 0.01).unwrap();
    for h in hashes(kind, 1, ROWS) {
        f.insert_hash(h);
    }
    f
}

#[test]
fn readers_load_our_filters_and_answer_as_we_do() {
    for kind in KINDS {
        let f = ours(kind);
        let stem = format!("ours-{kind}-{ROWS}");
        assert_eq!(
            f.to_bitset(),
            read(&format!("{stem}.bitset")),
            "{stem}: still what was read"
        );
        let answers = bitmap(&f.contains_hash_batch(&hashes(kind, 2, QUERIES)));
        assert_eq!(
            answers,
            read(&format!("{stem}.bitset.parquet-rs-answers")),
            "{stem}: Sbbf::new"
        );
        assert_eq!(
            answers,
            read(&format!("{stem}.parquet-mr-answers")),
            "{stem}: parquet-mr"
        );
        if matches!(kind, "long" | "string") {
            assert_eq!(f.to_bytes(), read(&format!("{stem}.bytes")), "{stem}");
            let from_bytes = read(&format!("{stem}.bytes.parquet-rs-answers"));
            assert_eq!(answers, from_bytes, "{stem}: Sbbf::from_bytes");
        }
    }
}

/// Writes `ours-*` for `generate.py parquet-read` and the parquet-rs
/// project's `read`:
/// `cargo test -p bloom --features parquet --test parquet_golden -- --ignored`.
#[test]
#[ignore = "writes the files that scripts/interop gives parquet-mr and the parquet crate"]
fn write_our_filters() {
    for kind in KINDS {
        let f = ours(kind);
        let stem = format!("ours-{kind}-{ROWS}");
        std::fs::write(data(&format!("{stem}.bitset")), f.to_bitset()).unwrap();
        if matches!(kind, "long" | "string") {
            std::fs::write(data(&format!("{stem}.bytes")), f.to_bytes()).unwrap();
        }
    }
}
