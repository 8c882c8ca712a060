//! URL deduplication with a `BloomFilter`: a stream of a million URLs,
//! about half of them repeats, and the question "have I seen this one?"
//! answered from under a megabyte instead of the tens of megabytes the
//! URLs themselves take.
//!
//! `cargo run --release -p bloom --example url_dedup`

use std::collections::HashSet;

use bloom::BloomFilter;

/// A deterministic stream of URLs: `count` draws from `distinct` pages.
fn urls(count: u64, distinct: u64) -> impl Iterator<Item = String> {
    (0..count).map(move |i| {
        let page = scramble(i) % distinct;
        format!("https://example.com/articles/{}/page-{page}", page % 97)
    })
}

/// A fixed bijection of `u64` (SplitMix64's finalizer), to draw pages.
fn scramble(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn main() -> Result<(), bloom::Error> {
    let (count, distinct) = (1_000_000, 600_000);
    let mut seen = BloomFilter::with_fpr(distinct as usize, 0.01)?;
    // An exact set beside it, only to show what the filter got wrong.
    let mut exact = HashSet::new();
    let (mut new, mut skipped, mut wrongly_skipped) = (0, 0, 0);
    for url in urls(count, distinct) {
        let first_time = exact.insert(url.clone());
        if seen.insert_unique(url.as_str()) {
            new += 1; // certainly new: crawl it
            assert!(first_time, "a Bloom filter never calls a seen URL new");
        } else {
            skipped += 1; // probably seen
            wrongly_skipped += usize::from(first_time);
        }
    }
    println!("{count} URLs: {new} new, {skipped} skipped as seen");
    println!(
        "{wrongly_skipped} new URLs were skipped as false positives ({:.3} % of the new ones)",
        100.0 * wrongly_skipped as f64 / exact.len() as f64
    );
    println!(
        "filter: {} KiB ({:.2} bits per URL), estimated rate now {:.3} %",
        seen.memory_bytes() / 1024,
        seen.bits() as f64 / exact.len() as f64,
        100.0 * seen.estimated_fpr()
    );
    Ok(())
}
