//! How [`DLeftCountingBloomFilter::with_fpr`](super::DLeftCountingBloomFilter::with_fpr)
//! picks its shape: cell width, words per bucket and buckets per subtable.
//!
//! Two bounds set the bucket count B of a shape with c cells per bucket and
//! r remainder bits:
//!
//! - **the rate**: a non-member matches only when its true fingerprint is
//!   stored (see `table.rs`), so the rate after n distinct inserts is at
//!   most n / (B · (2^r − 2)); B ≥ n / (p · (2^r − 2)) meets p;
//! - **the load**: a key goes to the least loaded of its four buckets, and
//!   `Full` comes only when all four are full. With d-left placement the
//!   fraction of buckets holding more than c keys falls doubly
//!   exponentially in the gap between c and the mean load, so each bucket
//!   size has a load factor below which overflow is practically
//!   impossible. [`MAX_LOAD_PERCENT`] holds it: the largest load (in
//!   steps of 1 %) at which the fluid limit of four-choice go-left
//!   placement (Mitzenmacher and Vöcking's differential equations,
//!   integrated numerically) puts at most 10^−15 overflowing buckets per
//!   key.
//!
//! Every shape the table allows is sized both ways, and the one with the
//! fewest bytes wins (on a tie, fewer words per bucket: fewer to compare).
//! Buckets are one or two words: four- and eight-word buckets would save
//! 10–15 % of the memory at rates of 0.1 % and below, but a lookup would
//! test four times the words.
//! The counter is 4 bits everywhere, as in the other counting filters, so
//! `count` saturates at 15 whatever the rate.

use filter_core::Error;

use super::table::{BUCKET_WORDS, CELL_BITS, COUNTER_BITS, MAX_BUCKETS, SUBTABLES, Shape};

/// For each number of cells per bucket, the largest load factor (percent of
/// cells filled after n inserts) that the table is sized for. Shapes of
/// other cell counts (1, or more than 32) are not offered.
const MAX_LOAD_PERCENT: [(u32, u32); 15] = [
    (2, 42),
    (3, 61),
    (4, 71),
    (5, 77),
    (6, 80),
    (7, 83),
    (8, 85),
    (10, 88),
    (12, 90),
    (14, 91),
    (16, 92),
    (20, 94),
    (24, 95),
    (28, 95),
    (32, 95),
];

/// The load factor a bucket of `cells` cells is sized for, if offered.
fn max_load(cells: u32) -> Option<f64> {
    MAX_LOAD_PERCENT
        .iter()
        .find(|&&(c, _)| c == cells)
        .map(|&(_, percent)| f64::from(percent) / 100.0)
}

/// The buckets per subtable that keep `items` keys from filling a table of
/// `cells`-cell buckets past load `load`.
///
/// Small tables get no margin: their loads spread wider around the mean
/// than the fluid limit says, but seeded fills of 10 to 10^4 keys (the
/// tests) never met `Full` before n, and always fitted several per cent
/// more keys.
fn load_buckets(items: f64, cells: u32, load: f64) -> f64 {
    items / (SUBTABLES as f64 * f64::from(cells) * load)
}

/// The shape of a filter for `expected_items` keys at rate `fpr`.
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `expected_items` (zero, or no shape
/// small enough) or `fpr` (outside (0, 1), or so small that no shape serves
/// even one key).
pub(crate) fn shape_for(expected_items: usize, fpr: f64) -> Result<Shape, Error> {
    if expected_items == 0 {
        return Err(Error::invalid("expected_items", 0, "at least 1"));
    }
    if !(fpr > 0.0 && fpr < 1.0) {
        return Err(Error::invalid("fpr", fpr, "in the open interval (0, 1)"));
    }
    match best(expected_items as f64, fpr) {
        Some((buckets, words, bits)) => Shape::new(buckets, words, bits),
        None if best(1.0, fpr).is_none() => Err(Error::invalid(
            "fpr",
            fpr,
            format_args!("large enough that one key fits in {MAX_BUCKETS} buckets per subtable"),
        )),
        None => Err(Error::invalid(
            "expected_items",
            expected_items,
            format_args!("small enough to fit in {MAX_BUCKETS} buckets per subtable at fpr {fpr}"),
        )),
    }
}

/// The smallest shape (buckets, words per bucket, cell bits) for `items`
/// keys at `fpr`, if any fits.
fn best(items: f64, fpr: f64) -> Option<(u64, usize, u32)> {
    let mut best: Option<(f64, u64, usize, u32)> = None;
    for &words in &BUCKET_WORDS {
        for &bits in &CELL_BITS {
            let cells = (64 / bits) * words as u32;
            let Some(load) = max_load(cells) else {
                continue;
            };
            let remainders = f64::from(bits - COUNTER_BITS).exp2() - 2.0;
            let for_rate = items / (fpr * remainders);
            let for_load = load_buckets(items, cells, load);
            let buckets = for_rate.max(for_load).max(1.0).ceil();
            // NaN (never: items and rate are checked) would also skip.
            if buckets.is_nan() || buckets > MAX_BUCKETS as f64 {
                continue;
            }
            let bytes = buckets * words as f64;
            if best.is_none_or(|(b, ..)| bytes < b) {
                best = Some((bytes, buckets as u64, words, bits));
            }
        }
    }
    best.map(|(_, buckets, words, bits)| (buckets, words, bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_offered_shape_has_a_load() {
        for &words in &BUCKET_WORDS {
            for &bits in &CELL_BITS {
                let cells = (64 / bits) * words as u32;
                assert_eq!(max_load(cells).is_some(), cells >= 2, "{cells}");
            }
        }
    }

    #[test]
    fn common_rates_pick_the_expected_cells() {
        let shape = |p| shape_for(1_000_000, p).unwrap();
        let s = shape(0.01);
        assert_eq!((s.cell_bits, s.bucket_words), (16, 2));
        let s = shape(0.001);
        assert_eq!((s.cell_bits, s.bucket_words), (21, 2));
        let s = shape(0.0001);
        assert_eq!((s.cell_bits, s.bucket_words), (21, 1));
    }
}
