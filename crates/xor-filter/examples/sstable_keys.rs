//! An SSTable's key filter: built once when the table is written, saved
//! beside it, and queried in place when the table is opened, so that a
//! lookup of an absent key skips the table's index and data blocks.
//!
//! ```text
//! cargo run --release -p xor-filter --example sstable_keys
//! ```
//!
//! The filter file is read into memory once and queried through a
//! `BinaryFuse16Ref`, which borrows the bytes instead of copying the table.
//! A database that memory-maps its files would open the same view over the
//! mapping (with a crate such as `memmap2`), and the table would be paged in
//! only where lookups touch it.

use std::time::Instant;

use xor_filter::{BinaryFuse16, BinaryFuse16Ref};

fn row_key(i: u64) -> String {
    format!(
        "user:{:010}/orders/{}",
        i.wrapping_mul(0x9E37_79B9) % 10_000_000_000,
        i % 97
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rows = 1_000_000u64;
    let keys: Vec<String> = (0..rows).map(row_key).collect();
    let path = std::env::temp_dir().join(format!("sstable-{}.filter", std::process::id()));

    // Writing the table: one filter over all its keys, saved beside it.
    let started = Instant::now();
    let filter = BinaryFuse16::from_keys(&keys)?;
    std::fs::write(&path, filter.to_bytes())?;
    println!(
        "wrote {} keys' filter to {} ({} bytes, {:.2} bits/key) in {:.2} s",
        filter.len(),
        path.display(),
        std::fs::metadata(&path)?.len(),
        filter.bits_per_key(),
        started.elapsed().as_secs_f64()
    );
    drop(filter);

    // Opening the table: the filter's header is checked, its table borrowed.
    let bytes = std::fs::read(&path)?;
    let started = Instant::now();
    let view = BinaryFuse16Ref::from_bytes(&bytes)?;
    let opened = started.elapsed();
    view.verify_checksum()?;
    println!(
        "opened a view in {:.1} µs; checksum verified in {:.1} ms",
        opened.as_secs_f64() * 1e6,
        started.elapsed().as_secs_f64() * 1e3
    );

    // Point lookups: members always pass; absent keys rarely do.
    assert!(keys.iter().all(|k| view.contains(k)));
    let absent: Vec<String> = (rows..rows + 1_000_000).map(row_key).collect();
    let started = Instant::now();
    let passed = absent.iter().filter(|k| view.contains(*k)).count();
    println!(
        "{passed} of {} absent keys passed the filter (2^-16 expected: {:.1}); {:.1} ns per lookup",
        absent.len(),
        absent.len() as f64 / 65536.0,
        started.elapsed().as_secs_f64() * 1e9 / absent.len() as f64
    );
    std::fs::remove_file(&path)?;
    Ok(())
}
