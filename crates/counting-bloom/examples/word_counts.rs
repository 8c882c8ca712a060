//! Word counts with a counting Bloom filter, beside exact counts: what the
//! filter gets right, where it overestimates, and where its 4-bit counters
//! stop at 15.
//!
//! The text is generated: a million words drawn from a 20,000-word
//! vocabulary with Zipf's law (the rank-r word is drawn in proportion to
//! 1/r), as word frequencies in English text follow, from a fixed seed.
//!
//! Run it with `cargo run --release -p counting-bloom --example word_counts`.

use std::collections::HashMap;

use counting_bloom::{CountingBloomFilter, Error};

/// The most frequent English words, in order, then made-up ones.
const COMMON: [&str; 24] = [
    "the", "of", "and", "to", "a", "in", "is", "it", "you", "that", "he", "was", "for", "on",
    "are", "with", "as", "his", "they", "be", "at", "one", "have", "this",
];
const SYLLABLES: [&str; 16] = [
    "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ber", "dan", "fel", "gor", "hin", "jun",
    "pol", "tek",
];
const VOCABULARY: usize = 20_000;
const WORDS: usize = 1_000_000;

/// The word of rank `rank` (0-based): a common English word, or a made-up
/// one spelled from the rank's digits in base 16.
fn word(rank: usize) -> String {
    if let Some(common) = COMMON.get(rank) {
        return (*common).to_string();
    }
    let mut n = rank;
    let mut spelled = String::new();
    loop {
        spelled.push_str(SYLLABLES[n % 16]);
        n /= 16;
        if n == 0 {
            return spelled;
        }
    }
}

/// A seeded stream of 64-bit values (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }
}

/// The text: `WORDS` words drawn by Zipf's law over the vocabulary.
fn text() -> Vec<String> {
    let vocabulary: Vec<String> = (0..VOCABULARY).map(word).collect();
    // The cumulative weights of 1/r, to draw a rank by binary search.
    let mut cumulative = Vec::with_capacity(VOCABULARY);
    let mut total = 0.0;
    for rank in 1..=VOCABULARY {
        total += 1.0 / rank as f64;
        cumulative.push(total);
    }
    let mut rng = Rng(2024);
    (0..WORDS)
        .map(|_| {
            let target = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
            let rank = cumulative.partition_point(|&c| c < target);
            vocabulary[rank.min(VOCABULARY - 1)].clone()
        })
        .collect()
}

fn main() -> Result<(), Error> {
    let text = text();
    let mut exact: HashMap<&str, u32> = HashMap::new();
    // Sized for the distinct words, not the words: a counting filter holds
    // each distinct item once, with a count.
    let mut counts = CountingBloomFilter::with_fpr(VOCABULARY, 0.01)?;
    for word in &text {
        counts.insert(word.as_str());
        *exact.entry(word).or_default() += 1;
    }

    println!(
        "{} words, {} distinct; the filter takes {} KiB ({:.1} bits per distinct word)",
        text.len(),
        exact.len(),
        counts.memory_bytes() / 1024,
        counts.memory_bytes() as f64 * 8.0 / exact.len() as f64
    );

    let (mut right, mut over, mut stuck) = (0, 0, 0);
    for (&word, &n) in &exact {
        let estimate = counts.count(word);
        if n >= 15 {
            // Every counter of a word seen 15 times or more is saturated.
            assert_eq!(estimate, 15);
            stuck += 1;
        } else if estimate == n {
            right += 1;
        } else {
            // Other words share all of this word's counters.
            assert!(estimate > n);
            over += 1;
        }
    }
    let share = |n: usize| 100.0 * n as f64 / exact.len() as f64;
    println!(
        "counts below 15:   {right} exact ({:.1} %), {over} too high ({:.1} %)",
        share(right),
        share(over)
    );
    println!(
        "counts at 15:      {stuck} words seen 15 times or more ({:.1} %) read 15",
        share(stuck)
    );
    // Saturated counters are non-zero as any other: at this load the rate
    // is the target's. But they never return to zero, whatever is removed.
    println!(
        "saturated counters: {} of {}; false-positive rate estimated from the fill: {:.2} % (target 1 %)",
        counts.saturated_counters(),
        counts.counters(),
        100.0 * counts.estimated_fpr()
    );

    println!("\nThe most frequent words, true count against the filter's:");
    let mut by_count: Vec<(&str, u32)> = exact.iter().map(|(&w, &n)| (w, n)).collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for &(word, n) in by_count.iter().take(5) {
        println!(
            "  {word:>6}: {n:>6} times, count() = {}",
            counts.count(word)
        );
    }

    // Removing every occurrence of a heavy hitter: each remove succeeds (its
    // counters are non-zero), none lowers a saturated counter, so it stays.
    let (the, n) = by_count[0];
    let removed = (0..n).filter(|_| counts.remove(the)).count();
    println!(
        "\nremove(\"{the}\") {n} times: {removed} returned true, and contains(\"{the}\") is still {}",
        counts.contains(the)
    );

    // A rare word comes and goes exactly.
    let (rare, n) = *by_count
        .iter()
        .rev()
        .find(|(w, n)| *n == 3 && counts.count(*w) == 3)
        .expect("a word seen 3 times");
    for _ in 0..n {
        assert!(counts.remove(rare));
    }
    println!(
        "remove(\"{rare}\") {n} times: contains(\"{rare}\") is now {}",
        counts.contains(rare)
    );
    println!("\nFor exact counts of heavy hitters, use the quotient filter.");
    Ok(())
}
