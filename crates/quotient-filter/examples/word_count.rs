//! Counts the words of a generated text with a quotient filter and checks
//! the counts against exact ones.
//!
//! `cargo run --release -p quotient-filter --example word_count`

use std::collections::HashMap;

use filter_core::mix64;
use quotient_filter::QuotientFilter;

/// A text of `words` words drawn from a Zipf-like vocabulary: word i of the
/// vocabulary appears about 1 / (i + 1) as often as the first, so a few
/// words are very common and most are rare, as in natural text.
fn text(words: usize, vocabulary: u64) -> String {
    let weights: Vec<f64> = (0..vocabulary).map(|i| 1.0 / (i + 1) as f64).collect();
    let total: f64 = weights.iter().sum();
    let mut cumulative = Vec::with_capacity(weights.len());
    let mut sum = 0.0;
    for w in &weights {
        sum += w / total;
        cumulative.push(sum);
    }
    let mut out = String::with_capacity(words * 8);
    for i in 0..words as u64 {
        let u = (mix64(i) >> 11) as f64 / (1u64 << 53) as f64;
        let rank = cumulative
            .partition_point(|&c| c < u)
            .min(cumulative.len() - 1);
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&format!("w{rank:x}"));
    }
    out
}

fn main() -> Result<(), quotient_filter::Error> {
    let text = text(5_000_000, 1_000_000);
    let mut exact: HashMap<&str, u64> = HashMap::new();
    for word in text.split(' ') {
        *exact.entry(word).or_default() += 1;
    }
    // Sized for the distinct words; the common ones cost a few slots each.
    let mut counts = QuotientFilter::growable_with_fpr(exact.len(), 0.001, 1)?;
    for word in text.split(' ') {
        counts.insert(word)?;
    }
    let mut top: Vec<(&str, u64)> = exact.iter().map(|(w, c)| (*w, *c)).collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    println!("{} words, {} distinct", counts.len(), exact.len());
    println!("{:>8} {:>10} {:>10}", "word", "exact", "filter");
    for (word, count) in top.iter().take(10) {
        println!("{word:>8} {count:>10} {:>10}", counts.count(*word));
    }
    let over = exact
        .iter()
        .filter(|(w, c)| counts.count(**w) != **c)
        .count();
    assert!(exact.iter().all(|(w, c)| counts.count(*w) >= *c));
    println!(
        "{over} of {} distinct words read above their count (they share a fingerprint)",
        exact.len()
    );
    println!(
        "{:.2} bits per distinct word, {} slots for {} distinct words, load {:.3}",
        counts.memory_bytes() as f64 * 8.0 / exact.len() as f64,
        counts.used_slots(),
        exact.len(),
        counts.load_factor()
    );
    Ok(())
}
