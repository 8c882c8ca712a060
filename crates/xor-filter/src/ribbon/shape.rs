//! The shape of a ribbon filter: how many slots, and how many solution
//! columns each block of 32 slots stores.
//!
//! Slots come in blocks of [`BLOCK`] = 32, one 32-bit word per column per
//! block; a key's band of [`BAND`] = 128 slots starts at a block's first
//! slot and covers exactly four blocks. A rate between two powers of two is met by giving the first
//! `upper_start` blocks `columns` columns (rate 2^-columns for a key whose
//! band starts there) and the rest `columns + 1` (rate 2^-(columns+1)): the
//! mix of the two is the fractional number of bits per key the target needs.
//!
//! The number of slots is the number of keys times `1 + overhead(n)`, where
//! the overhead is a fit to measured success rates of one construction
//! attempt (see the constants below): a standard ribbon system of `n` random
//! equations in `m` unknowns of band width 128 is solvable with a probability
//! that falls as `n/m` approaches 1 and, slowly, as `n` grows.

use filter_core::Error;

/// The band width: each key's equation covers 128 consecutive slots.
pub(crate) const BAND: usize = 128;

/// Slots per block: one 32-bit solution word per column.
pub(crate) const BLOCK: usize = 32;

/// Blocks a band covers.
pub(crate) const BAND_BLOCKS: usize = BAND / BLOCK;

/// The widest stored fingerprint, in bits (false-positive rate 2^-32).
pub(crate) const MAX_COLUMNS: u32 = 32;

/// The lowest target rate [`Shape::for_keys`] accepts: 2^-32.
pub(crate) const MIN_FPR: f64 = 1.0 / 4_294_967_296.0;

/// The highest target rate: 1/2 (one column).
pub(crate) const MAX_FPR: f64 = 0.5;

/// The most keys a filter takes: 2^40 on 64-bit targets, where slot and
/// block numbers stay well inside `usize` and the construction's per-slot
/// tables (24 bytes a slot) would not fit any machine beyond it; 2^26 on
/// smaller ones, where those tables would fill the address space beyond it.
pub const MAX_RIBBON_KEYS: usize = if usize::BITS >= 64 {
    (1u64 << 40) as usize
} else {
    1 << 26
};

/// The overhead (slots over keys, minus one) is `OVERHEAD_BASE +
/// OVERHEAD_PER_DOUBLING · log2(keys)`, at least 0, plus
/// [`EXTRA_SLOTS`]: a fit to the key counts at which one attempt succeeded
/// for about 9 of 10 random key sets (`band.rs`'s `success_rates`):
/// 1.033 slots per key at 10^4 keys, 1.046 at 10^5, 1.06 at 10^6. It rises by
/// about 0.4 % per doubling, as RocksDB measured for band width 128 (whose
/// bands start at any slot; starts at block boundaries cost about one
/// percent more slots).
const OVERHEAD_BASE: f64 = -0.020;

/// Growth of the overhead per doubling of the key count.
const OVERHEAD_PER_DOUBLING: f64 = 0.0040;

/// Slots added to every table: small systems (a few hundred keys) fail
/// most often when every slot is needed.
const EXTRA_SLOTS: usize = 16;

/// The slots a set of `keys` keys gets (before rounding up to whole blocks).
pub(crate) fn slots_for(keys: usize) -> usize {
    let log2 = (keys.max(1) as f64).log2();
    let overhead = (OVERHEAD_BASE + OVERHEAD_PER_DOUBLING * log2).max(0.0);
    (keys as f64 * (1.0 + overhead)).ceil() as usize + EXTRA_SLOTS
}

/// 2^-columns: the rate of a block with `columns` columns (at most 33).
fn rate_of(columns: u32) -> f64 {
    1.0 / (1u64 << columns) as f64
}

/// A filter's dimensions and column split. Every field is validated by
/// [`Shape::new`], so code holding a `Shape` can rely on its invariants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Blocks of [`BLOCK`] slots; at least 4 (one band).
    pub(crate) blocks: usize,
    /// Columns of the blocks below `upper_start` (1 to 32).
    pub(crate) columns: u32,
    /// The first block with `columns + 1` columns; `blocks` when none has.
    /// Below `blocks` only when `columns < 32`.
    pub(crate) upper_start: usize,
}

impl Shape {
    /// Checks the invariants of a shape read from bytes or computed.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming the field that breaks one.
    pub(crate) fn new(blocks: usize, columns: u32, upper_start: usize) -> Result<Self, Error> {
        if !(BAND_BLOCKS..=MAX_RIBBON_KEYS / BLOCK * 2).contains(&blocks) {
            return Err(Error::corrupt(format_args!(
                "blocks is {blocks}, must be in {BAND_BLOCKS}..={}",
                MAX_RIBBON_KEYS / BLOCK * 2
            )));
        }
        if !(1..=MAX_COLUMNS).contains(&columns) {
            return Err(Error::corrupt(format_args!(
                "columns is {columns}, must be in 1..={MAX_COLUMNS}"
            )));
        }
        if upper_start > blocks || (upper_start < blocks && columns == MAX_COLUMNS) {
            return Err(Error::corrupt(format_args!(
                "upper_start is {upper_start}, must be at most blocks ({blocks}), \
                 and equal to it when columns is {MAX_COLUMNS}"
            )));
        }
        Ok(Shape {
            blocks,
            columns,
            upper_start,
        })
    }

    /// The shape for `keys` keys at false-positive rate at most `fpr`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `fpr` outside [2^-32, 1/2] or NaN,
    /// or more than [`MAX_RIBBON_KEYS`] keys.
    pub(crate) fn for_keys(keys: usize, fpr: f64) -> Result<Self, Error> {
        if !(MIN_FPR..=MAX_FPR).contains(&fpr) {
            return Err(Error::invalid(
                "fpr",
                fpr,
                "the closed interval [2^-32, 0.5] (2.3e-10 to 0.5)",
            ));
        }
        if keys > MAX_RIBBON_KEYS {
            return Err(Error::invalid(
                "number of keys",
                keys,
                format_args!("at most {MAX_RIBBON_KEYS}"),
            ));
        }
        let blocks = slots_for(keys).div_ceil(BLOCK).max(BAND_BLOCKS);
        // The largest whole number of columns whose rate is still at least
        // the target: 2^-columns >= fpr > 2^-(columns + 1), or 32.
        let mut columns = 1;
        while columns < MAX_COLUMNS && rate_of(columns + 1) >= fpr {
            columns += 1;
        }
        let lower_rate = rate_of(columns);
        let upper_start = if columns == MAX_COLUMNS || lower_rate <= fpr {
            blocks
        } else {
            // A query whose band starts in a lower block matches with
            // probability 2^-columns, in an upper one half that. With a
            // fraction `f` of starts in lower blocks the rate is
            // 2^-(columns+1) (1 + f), at most `fpr` for f <= fpr 2^(columns+1) - 1.
            let fraction = fpr / lower_rate * 2.0 - 1.0;
            let starts = (blocks - (BAND_BLOCKS - 1)) as f64;
            ((fraction * starts).floor() as usize).min(blocks)
        };
        Shape::new(blocks, columns, upper_start)
    }

    /// The number of slots (unknowns of the system).
    #[inline]
    pub(crate) fn slots(&self) -> usize {
        self.blocks * BLOCK
    }

    /// The number of blocks a band can start at: a band of four blocks
    /// starting at any of them lies inside the table.
    #[inline]
    pub(crate) fn starts(&self) -> usize {
        self.blocks - (BAND_BLOCKS - 1)
    }

    /// Columns of block `block`.
    #[inline]
    pub(crate) fn columns_of(&self, block: usize) -> u32 {
        self.columns + u32::from(block >= self.upper_start)
    }

    /// The index of block `block`'s first word: blocks are stored one after
    /// another, each as its columns' words.
    #[inline]
    pub(crate) fn first_word(&self, block: usize) -> usize {
        let upper = usize::from(block >= self.upper_start);
        block * self.columns as usize + upper * (block - upper * self.upper_start)
    }

    /// The number of 32-bit solution words.
    pub(crate) fn words(&self) -> usize {
        self.first_word(self.blocks)
    }

    /// The columns the widest block has: what construction solves for.
    pub(crate) fn max_columns(&self) -> u32 {
        self.columns + u32::from(self.upper_start < self.blocks)
    }

    /// The expected false-positive rate of a key not in the set: the mix of
    /// lower and upper blocks' rates, weighted by their share of starts.
    pub(crate) fn fpr(&self) -> f64 {
        let starts = self.starts() as f64;
        let lower = (self.upper_start as f64).min(starts);
        let rate = rate_of(self.columns);
        (lower * rate + (starts - lower) * rate / 2.0) / starts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_and_split_meet_the_target() {
        for fpr in [0.5, 0.3, 0.1, 0.01, 0.005, 0.001, 1e-4, 1e-6, 1e-9, MIN_FPR] {
            for keys in [0, 1, 100, 1000, 123_456, 1_000_000] {
                let shape = Shape::for_keys(keys, fpr).unwrap();
                assert!(shape.fpr() <= fpr * (1.0 + 1e-12), "{fpr} {keys} {shape:?}");
                assert!(shape.slots() >= keys);
                assert_eq!(shape.words(), shape.first_word(shape.blocks));
            }
        }
        let shape = Shape::for_keys(1_000_000, 0.01).unwrap();
        assert_eq!(shape.columns, 6);
        assert!(shape.fpr() > 0.0099, "{}", shape.fpr());
    }

    #[test]
    fn word_offsets_follow_the_columns() {
        let shape = Shape::new(10, 6, 4).unwrap();
        let mut next = 0;
        for block in 0..10 {
            assert_eq!(shape.first_word(block), next);
            next += shape.columns_of(block) as usize;
        }
        assert_eq!(shape.words(), 4 * 6 + 6 * 7);
    }

    #[test]
    fn bad_rates_and_shapes_are_refused() {
        for fpr in [0.0, -1.0, 0.51, 1.0, f64::NAN, 1e-10] {
            assert!(Shape::for_keys(10, fpr).is_err(), "{fpr}");
        }
        assert!(Shape::new(0, 6, 0).is_err());
        assert!(Shape::new(1, 6, 1).is_err());
        assert!(Shape::new(3, 6, 3).is_err());
        assert!(Shape::new(4, 0, 4).is_err());
        assert!(Shape::new(4, 33, 4).is_err());
        assert!(Shape::new(4, 32, 3).is_err());
        assert!(Shape::new(4, 6, 5).is_err());
    }
}
