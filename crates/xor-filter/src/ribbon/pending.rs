//! The equations under way while `band.rs` sweeps the table: those
//! whose band covers the current block and that have not yet taken a slot,
//! and the passes that eliminate one or two of the block's columns from
//! all of them at once.

use super::row;
use super::shape::BLOCK;

/// The equations whose band covers the block being swept and that have
/// not yet taken a slot, as three parallel arrays, so that eliminating a
/// column is a loop of masked xors that the compiler vectorizes. Bit `i`
/// of an equation's coefficients is that of slot `32 × block + i`.
///
/// The first `len` entries are the equations; the arrays are longer, by a
/// multiple of [`LANES`], and hold zeros past `len` (an equation with no
/// coefficients, which no pass changes), so that passes run over whole
/// vectors and the first [`LANES`] entries can always be read.
#[derive(Default)]
pub(super) struct Pending {
    low: Vec<u64>,
    high: Vec<u64>,
    fingerprints: Vec<u64>,
    pub(super) len: usize,
}

/// Equations a pass takes at once (four 64-bit lanes of AVX2).
const LANES: usize = 4;

impl Pending {
    /// Empties the set, leaving zeroed room for a few vectors.
    pub(super) fn clear(&mut self) {
        self.len = 0;
        for words in [&mut self.low, &mut self.high, &mut self.fingerprints] {
            words.clear();
            words.resize(8 * LANES, 0);
        }
    }

    /// Adds the equation of the key of equation hash `h`, whose band starts
    /// at the block being swept.
    #[inline(always)]
    pub(super) fn push(&mut self, h: u64) {
        if self.len + LANES >= self.low.len() {
            let longer = 2 * self.low.len() + LANES;
            for words in [&mut self.low, &mut self.high, &mut self.fingerprints] {
                words.resize(longer, 0);
            }
        }
        let (low, high) = row::coefficient_words(h);
        self.low[self.len] = low;
        self.high[self.len] = high;
        self.fingerprints[self.len] = row::fingerprint(h);
        self.len += 1;
    }

    /// Moves on to the next block: the coefficients of the block just swept
    /// (all eliminated, so 0) are shifted out. An equation with no
    /// coefficient left is dropped: a key given twice if its fingerprint
    /// cancelled too; otherwise the system has no solution, and `None`.
    #[inline(always)]
    pub(super) fn next_block(&mut self) -> Option<()> {
        let mut kept = 0;
        for i in 0..self.len {
            let (low, high, fingerprint) = (self.low[i], self.high[i], self.fingerprints[i]);
            let (low, high) = (low >> BLOCK | high << BLOCK, high >> BLOCK);
            if low | high == 0 {
                if fingerprint != 0 {
                    return None;
                }
                continue;
            }
            self.low[kept] = low;
            self.high[kept] = high;
            self.fingerprints[kept] = fingerprint;
            kept += 1;
        }
        for words in [&mut self.low, &mut self.high, &mut self.fingerprints] {
            words[kept..self.len].fill(0);
        }
        self.len = kept;
        Some(())
    }

    /// Takes out the first equation whose low word `has` maps to 1 (the
    /// first of the first four found without a branch; only when none of
    /// them has it, a scan), or `None`. The last equation takes its place.
    #[inline(always)]
    fn take_first(&mut self, has: impl Fn(u64) -> u64) -> Option<[u64; 3]> {
        let four = (0..LANES).fold(0, |bits, i| bits | has(self.low[i]) << i);
        let first = if four != 0 {
            four.trailing_zeros() as usize
        } else {
            self.low[..self.len].iter().position(|&low| has(low) != 0)?
        };
        let taken = [self.low[first], self.high[first], self.fingerprints[first]];
        let last = self.len - 1;
        for words in [&mut self.low, &mut self.high, &mut self.fingerprints] {
            words[first] = words[last];
            words[last] = 0;
        }
        self.len = last;
        Some(taken)
    }

    /// The pending arrays up to the last whole vector: the zeros past
    /// `len` stay zeros under any pass.
    #[inline(always)]
    fn vectors(&mut self) -> (&mut [u64], &mut [u64], &mut [u64]) {
        let end = self.len.div_ceil(LANES) * LANES;
        (
            &mut self.low[..end],
            &mut self.high[..end],
            &mut self.fingerprints[..end],
        )
    }

    /// Eliminates columns `column` and `column + 1` of the block: for
    /// each, takes out the first equation with that coefficient (the
    /// column's pivot: its low, high and fingerprint words) and xors it
    /// into every other one that has it, both columns in one pass; `None`
    /// for a column no equation has (a free slot).
    ///
    /// The second pivot is the first equation with coefficient `column +
    /// 1` once the first pivot is xored in where it goes, which the pass
    /// does first for each equation.
    #[inline(always)]
    pub(super) fn eliminate_two(&mut self, column: usize) -> [Option<[u64; 3]>; 2] {
        let has = |low: u64| (low >> column) & 1;
        let Some(p) = self.take_first(has) else {
            return [None, self.eliminate(column + 1)];
        };
        let next = column + 1;
        // Coefficient `next` after the first pivot is xored in.
        let has_next = |low: u64| ((low >> next) ^ (has(low) & (p[0] >> next))) & 1;
        let Some(q) = self.take_first(has_next) else {
            self.pass(column, p);
            return [Some(p), None];
        };
        let mask = 0u64.wrapping_sub(has(q[0]));
        let q = [
            q[0] ^ (mask & p[0]),
            q[1] ^ (mask & p[1]),
            q[2] ^ (mask & p[2]),
        ];
        let (low, high, fingerprints) = self.vectors();
        for ((low, high), fingerprint) in low.iter_mut().zip(high).zip(fingerprints) {
            let mask = 0u64.wrapping_sub(has(*low));
            *low ^= mask & p[0];
            *high ^= mask & p[1];
            *fingerprint ^= mask & p[2];
            let mask = 0u64.wrapping_sub((*low >> next) & 1);
            *low ^= mask & q[0];
            *high ^= mask & q[1];
            *fingerprint ^= mask & q[2];
        }
        [Some(p), Some(q)]
    }

    /// Eliminates column `column` alone: as [`Pending::eliminate_two`]
    /// for one column.
    #[inline(always)]
    fn eliminate(&mut self, column: usize) -> Option<[u64; 3]> {
        let pivot = self.take_first(|low| (low >> column) & 1)?;
        self.pass(column, pivot);
        Some(pivot)
    }

    /// Xors `pivot` into every pending equation with coefficient `column`.
    #[inline(always)]
    fn pass(&mut self, column: usize, pivot: [u64; 3]) {
        let (low, high, fingerprints) = self.vectors();
        for ((low, high), fingerprint) in low.iter_mut().zip(high).zip(fingerprints) {
            let mask = 0u64.wrapping_sub((*low >> column) & 1);
            *low ^= mask & pivot[0];
            *high ^= mask & pivot[1];
            *fingerprint ^= mask & pivot[2];
        }
    }
}
