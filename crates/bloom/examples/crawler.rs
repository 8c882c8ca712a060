//! A crawler frontier that does not know how many URLs it will meet: a
//! `ScalableBloomFilter` sized for 1,000 URLs that grows, stage by stage,
//! as the crawl discovers more, keeping its false-positive rate at most 1 %
//! throughout, under a memory cap.
//!
//! `cargo run --release -p bloom --example crawler`

use std::collections::VecDeque;

use bloom::{Error, ScalableBloomFilter};

/// The links on page `url`: a deterministic web where each page links to
/// eight others, some already seen, most new, up to `pages` pages in all.
fn links(url: u64, pages: u64) -> impl Iterator<Item = u64> {
    (0..8).map(move |i| scramble(url * 8 + i) % pages)
}

/// A fixed bijection of `u64` (SplitMix64's finalizer), to draw links.
fn scramble(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn address(page: u64) -> String {
    format!("https://site-{}.example/page/{page}", page % 1_000)
}

fn main() -> Result<(), Error> {
    let pages = 1_000_000;
    // 64 MiB at most for the filter: the crawl stops growing it beyond.
    let mut seen = ScalableBloomFilter::with_fpr(1_000, 0.01)?.with_max_bytes(64 << 20);
    let mut frontier = VecDeque::from([0u64]);
    seen.insert(address(0).as_str())?;
    let mut crawled = 0u64;
    while let Some(page) = frontier.pop_front() {
        crawled += 1;
        for link in links(page, pages) {
            match seen.insert(address(link).as_str()) {
                Ok(true) => frontier.push_back(link), // new: crawl it later
                Ok(false) => {}                       // seen (or a false positive)
                Err(Error::Full) => {
                    println!("memory cap reached; stopping discovery");
                    frontier.clear();
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if crawled.is_power_of_two() && crawled >= 1 << 14 {
            println!(
                "crawled {crawled:>9}, known {:>9}, {:>2} stages, {:>6} KiB",
                seen.len(),
                seen.stages(),
                seen.memory_bytes() / 1024
            );
        }
    }
    println!(
        "done: crawled {crawled} pages of {pages}; the filter holds {} URLs in {} stages, {:.1} bits per URL",
        seen.len(),
        seen.stages(),
        seen.memory_bytes() as f64 * 8.0 / seen.len() as f64
    );
    Ok(())
}
