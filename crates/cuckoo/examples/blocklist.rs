//! A blocklist with deletes: half a million blocked domains held in a cuckoo
//! filter in front of an exact (slow, remote, or on-disk) list, so that most
//! requests are cleared without asking the list; domains are unblocked as
//! appeals succeed, and the filter is saved and loaded at restart.
//!
//! Run with `cargo run --release -p cuckoo --example blocklist`.

use std::collections::HashSet;
use std::time::Instant;

use cuckoo::{BatchInsert, BatchRemove, CuckooFilter, Error};

/// A made-up domain name for `i`, in a namespace for `kind`.
fn domain(kind: &str, i: u64) -> String {
    format!(
        "{kind}-{:x}.example.{}",
        i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20,
        i % 7
    )
}

fn main() -> Result<(), Error> {
    let blocked_count = 500_000;
    let start = Instant::now();

    // The exact list, which the filter stands in front of.
    let mut exact: HashSet<String> = (0..blocked_count).map(|i| domain("spam", i)).collect();

    // Room for growth: the list is expected to reach 600,000.
    let mut filter = CuckooFilter::with_fpr(600_000, 0.001)?;
    filter.insert_batch(exact.iter())?;
    println!(
        "loaded {} blocked domains: {:.1} bits each, {:.2?}",
        filter.len(),
        filter.memory_bytes() as f64 * 8.0 / filter.len() as f64,
        start.elapsed()
    );

    // Appeals: 50,000 domains are unblocked. Removing a domain that was
    // inserted is exact, and nothing else is unblocked with it.
    let unblocked: Vec<String> = (0..50_000).map(|i| domain("spam", i * 10)).collect();
    let removed = filter.remove_batch(unblocked.iter());
    for d in &unblocked {
        exact.remove(d);
    }
    println!("unblocked {removed} domains after appeal");

    // Traffic: mostly ordinary domains, some blocked ones. The filter clears
    // almost every ordinary request alone; only its "maybe" goes to the
    // exact list.
    let requests: Vec<String> = (0..1_000_000u64)
        .map(|i| {
            if i % 10 == 0 {
                domain("spam", i / 10 % blocked_count)
            } else {
                domain("news", i)
            }
        })
        .collect();
    let (mut asked_exact, mut blocked, mut false_alarms) = (0, 0, 0);
    for d in &requests {
        if filter.contains(d) {
            asked_exact += 1;
            if exact.contains(d) {
                blocked += 1;
            } else {
                false_alarms += 1;
            }
        } else {
            // No false negatives: a domain the filter clears is not blocked.
            assert!(!exact.contains(d), "{d} was blocked");
        }
    }
    println!(
        "{} requests: {blocked} blocked, {asked_exact} checked against the exact list \
         ({false_alarms} false alarms, {:.3} %)",
        requests.len(),
        100.0 * false_alarms as f64 / (requests.len() - blocked) as f64
    );

    // Restart: the filter is saved with the list and loaded back, on this
    // machine or any other.
    let path = std::env::temp_dir().join("blocklist.cuckoo");
    std::fs::write(&path, filter.to_bytes()).expect("write the filter");
    let bytes = std::fs::read(&path).expect("read the filter");
    let reloaded = CuckooFilter::from_bytes(&bytes)?;
    assert!(exact.iter().all(|d| reloaded.contains(d)));
    println!(
        "saved and reloaded {} bytes: {} domains, all still blocked ({:.2?} in all)",
        bytes.len(),
        reloaded.len(),
        start.elapsed()
    );
    let _ = std::fs::remove_file(&path);
    Ok(())
}
