//! The table of a [`DLeftCountingBloomFilter`](super::DLeftCountingBloomFilter):
//! four subtables of buckets, a bucket a few `u64` words of packed cells, and
//! how a mixed hash becomes a key's four buckets and its remainder.
//!
//! # Cells
//!
//! A cell is a lane of `cell_bits` bits in a word: its low 4 bits are a
//! counter (1 to 15; 15 is saturated), the rest the key's remainder. Lane j
//! of a word is bits `j·cell_bits .. (j + 1)·cell_bits`, as many lanes as fit
//! (`64 / cell_bits`); bits above the last lane stay zero. A cell is empty
//! exactly when its remainder is zero, and remainders are never zero, so an
//! empty cell matches no key. Cells never straddle words, so a word is
//! tested for a remainder with a handful of word operations (SWAR): see
//! [`Shape::matches`].
//!
//! # From a hash to a cell: the permutations
//!
//! A key's mixed 64-bit hash m gives its *true fingerprint*, the pair
//! (q, s): q = `reduce(m, buckets)` from the high bits of m, and s the low
//! `remainder_bits` bits of m (0 read as 1). In subtable 0 the key's bucket
//! is q; in subtable i it is `q + o_i(s) mod buckets`, with o_i a fixed
//! pseudo-random function of s alone (see `Shape::offsets`). For each i the map
//! (q, s) ↦ (bucket, s) is a bijection (given s, q is the bucket minus
//! o_i(s)): the permutation of Bonomi, Mitzenmacher, Panigrahy, Singh and
//! Varghese ("An Improved Construction for Counting Bloom Filters",
//! ESA 2006), written so that the bucket count need not be a power of two.
//!
//! Why it matters: a cell (subtable, bucket, remainder) then belongs to
//! exactly one true fingerprint. Two keys meet in one cell only when their
//! true fingerprints are equal, and then they meet in the same cell in every
//! subtable, so an insert that finds its remainder in any of its four
//! buckets has found its own fingerprint's cell, and counts there. Each
//! fingerprint has at most one cell, a remove decrements the cell its
//! inserts incremented, and no key can decrement a cell another key needs,
//! unless the two share their true fingerprint (then they share the counter,
//! which counts both). With independent bucket and remainder hashes a key
//! could find a remainder that another key left in one of its buckets,
//! count there, and a later remove of either would take the other's copy:
//! a false negative.
//!
//! A query that is not a member matches a cell only if its true fingerprint
//! is stored, so the false-positive rate is at most
//! n / (buckets · (2^remainder_bits − 2)) for n distinct stored keys (the
//! 2 allows for s = 0 read as 1), whatever the cells per bucket.

use filter_core::{Error, reduce};

/// Subtables: the paper's d = 4.
pub(crate) const SUBTABLES: usize = 4;
/// Bits of a cell's counter.
pub(crate) const COUNTER_BITS: u32 = 4;
/// A counter at this value is saturated: it never changes again.
pub(crate) const SATURATED: u64 = (1 << COUNTER_BITS) - 1;
/// Words of one cache line.
pub(crate) const LINE_WORDS: usize = 8;

/// One 64-byte cache line of the table, aligned, so that a bucket (one or
/// two words) never straddles two lines.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct Line(pub(crate) [u64; LINE_WORDS]);

/// The shape of a table and the word masks its cell width implies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Buckets per subtable.
    pub(crate) buckets: usize,
    /// Words per bucket: 1 or 2.
    pub(crate) bucket_words: usize,
    /// Bits per cell: one of [`CELL_BITS`].
    pub(crate) cell_bits: u32,
    /// Cells per word.
    pub(crate) lanes: u32,
    /// Bit 0 of every lane.
    lane_ones: u64,
    /// The remainder bits of every lane.
    remainders: u64,
    /// The top bit of every lane.
    tops: u64,
    /// Every bit of every lane but its top bit.
    below_tops: u64,
    /// `2^remainder_bits − 1`.
    remainder_mask: u64,
}

/// The cell widths a table may have: for each number of lanes per word
/// (8 down to 1), the widest cell that fits, so that no width leaves more
/// bits of a word unused than another of the same lane count.
pub(crate) const CELL_BITS: [u32; 8] = [8, 9, 10, 12, 16, 21, 32, 64];

/// Words per bucket a table may have.
pub(crate) const BUCKET_WORDS: [usize; 2] = [1, 2];

/// The largest bucket count per subtable: 2^40, so that every word index
/// fits in 43 + 3 bits and a table stays far below what `usize` addresses.
pub(crate) const MAX_BUCKETS: u64 = 1 << 40;

/// The multipliers of the offsets o_1, o_2, o_3 (odd: the golden ratio's
/// and the fractional parts of √2 and √3, as 64-bit fractions).
const FIRST_OFFSET: u64 = 0x9E37_79B9_7F4A_7C15;
const SECOND_OFFSET: u64 = 0x6A09_E667_F3BC_C909;
const THIRD_OFFSET: u64 = 0xBB67_AE85_84CA_A73B;

/// A key's place in the table: its four buckets' first word indices and the
/// pattern of its remainder repeated in every lane of a word.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place {
    pub(crate) words: [usize; SUBTABLES],
    pub(crate) pattern: u64,
    pub(crate) remainder: u64,
}

impl Shape {
    /// The shape of `buckets` buckets per subtable of `bucket_words` words
    /// of `cell_bits`-bit cells.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming the field that is out of range.
    pub(crate) fn new(buckets: u64, bucket_words: usize, cell_bits: u32) -> Result<Self, Error> {
        if !CELL_BITS.contains(&cell_bits) {
            return Err(Error::invalid(
                "cell_bits",
                cell_bits,
                format_args!("one of {CELL_BITS:?}"),
            ));
        }
        if !BUCKET_WORDS.contains(&bucket_words) {
            return Err(Error::invalid(
                "bucket_words",
                bucket_words,
                format_args!("one of {BUCKET_WORDS:?}"),
            ));
        }
        if !(1..=MAX_BUCKETS).contains(&buckets) {
            return Err(Error::invalid(
                "buckets",
                buckets,
                format_args!("in 1..={MAX_BUCKETS}"),
            ));
        }
        let lanes = 64 / cell_bits;
        let lane_ones = (0..lanes).fold(0u64, |acc, j| acc | 1 << (j * cell_bits));
        let remainder_bits = cell_bits - COUNTER_BITS;
        let remainder_mask = u64::MAX >> (64 - remainder_bits);
        let top = 1u64 << (cell_bits - 1);
        Ok(Shape {
            // Below 2^40, so it fits a 64-bit usize; 32-bit targets refuse
            // the allocation later, naming the caller's parameter.
            buckets: usize::try_from(buckets)
                .map_err(|_| Error::invalid("buckets", buckets, "addressable on this target"))?,
            bucket_words,
            cell_bits,
            lanes,
            lane_ones,
            remainders: lane_ones.wrapping_mul(remainder_mask << COUNTER_BITS),
            tops: lane_ones.wrapping_mul(top),
            below_tops: lane_ones.wrapping_mul(top - 1),
            remainder_mask,
        })
    }

    /// Bits of a remainder.
    pub(crate) fn remainder_bits(&self) -> u32 {
        self.cell_bits - COUNTER_BITS
    }

    /// Cells per bucket.
    pub(crate) fn bucket_cells(&self) -> u32 {
        self.lanes * self.bucket_words as u32
    }

    /// Words of all four subtables.
    pub(crate) fn words(&self) -> usize {
        SUBTABLES * self.buckets * self.bucket_words
    }

    /// Cache lines of the table.
    pub(crate) fn lines(&self) -> usize {
        self.words().div_ceil(LINE_WORDS)
    }

    /// The lanes of `word` whose remainder is `pattern`'s, as their top
    /// bits: exact per lane (no borrow crosses lanes), so every set bit
    /// names a matching cell. `pattern == 0` gives the empty cells.
    #[inline(always)]
    pub(crate) fn matches(&self, word: u64, pattern: u64) -> u64 {
        let y = (word ^ pattern) & self.remainders;
        // A lane's top bit ends up set iff some bit of the lane is set.
        !(((y & self.below_tops) + self.below_tops) | y) & self.tops
    }

    /// The offsets o_i(s) of subtables 0 to 3 for remainder `s`, below
    /// `buckets`: 0 for subtable 0, then `reduce(s · K_i, buckets)` for three
    /// odd constants K_i. The three products are independent of each other,
    /// so they cost one multiply's latency before the loads; a product
    /// with an odd constant takes distinct remainders to distinct words
    /// whose high bits spread over the buckets.
    #[inline(always)]
    fn offsets(&self, remainder: u64) -> [usize; SUBTABLES] {
        [
            0,
            reduce(remainder.wrapping_mul(FIRST_OFFSET), self.buckets),
            reduce(remainder.wrapping_mul(SECOND_OFFSET), self.buckets),
            reduce(remainder.wrapping_mul(THIRD_OFFSET), self.buckets),
        ]
    }

    /// Where the key of mixed hash `mixed` lives.
    #[inline(always)]
    pub(crate) fn place(&self, mixed: u64) -> Place {
        let home = reduce(mixed, self.buckets);
        self.place_of(home, (mixed & self.remainder_mask).max(1))
    }

    /// Where the true fingerprint (`home`, `remainder`) lives: `home` its
    /// bucket in subtable 0, `remainder` non-zero.
    #[inline(always)]
    pub(crate) fn place_of(&self, home: usize, remainder: u64) -> Place {
        let offsets = self.offsets(remainder);
        let mut words = [0; SUBTABLES];
        for (i, word) in words.iter_mut().enumerate() {
            let mut bucket = home + offsets[i];
            if bucket >= self.buckets {
                bucket -= self.buckets;
            }
            *word = (i * self.buckets + bucket) * self.bucket_words;
        }
        Place {
            words,
            pattern: self.lane_ones.wrapping_mul(remainder << COUNTER_BITS),
            remainder,
        }
    }

    /// The bucket in subtable 0 (the home) of the true fingerprint whose
    /// remainder `remainder` sits in `bucket` of `subtable`: the inverse
    /// permutation.
    pub(crate) fn home(&self, subtable: usize, bucket: usize, remainder: u64) -> usize {
        let offset = self.offsets(remainder)[subtable];
        if bucket >= offset {
            bucket - offset
        } else {
            bucket + self.buckets - offset
        }
    }
}

/// The cells of a table: the words of its subtables' buckets, in order,
/// in 64-byte lines.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Table {
    pub(crate) lines: Vec<Line>,
}

impl Table {
    /// Word `index`.
    #[inline(always)]
    pub(crate) fn word(&self, index: usize) -> u64 {
        self.lines[index / LINE_WORDS].0[index % LINE_WORDS]
    }

    /// Word `index`, to change it.
    #[inline(always)]
    pub(crate) fn word_mut(&mut self, index: usize) -> &mut u64 {
        &mut self.lines[index / LINE_WORDS].0[index % LINE_WORDS]
    }
}

/// The cell a key's remainder occupies: word index and lane shift.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cell {
    pub(crate) word: usize,
    pub(crate) shift: u32,
}

impl Shape {
    /// The `W` words of the bucket whose first word is `first`. A bucket
    /// of one or two words lies inside one line (`first` is a multiple of
    /// `W`, which divides 8), so one bounds check covers it.
    #[inline(always)]
    fn bucket<const W: usize>(table: &Table, first: usize) -> [u64; W] {
        let line = &table.lines[first / LINE_WORDS].0;
        let at = first % LINE_WORDS;
        std::array::from_fn(|j| line[(at + j) % LINE_WORDS])
    }

    /// The cell of `place`'s remainder, if stored (at most one is).
    #[inline(always)]
    pub(crate) fn find(&self, table: &Table, place: &Place) -> Option<Cell> {
        if self.bucket_words == 1 {
            self.find_in::<1>(table, place)
        } else {
            self.find_in::<2>(table, place)
        }
    }

    /// The words of `place`'s four buckets, subtable by subtable.
    #[inline(always)]
    fn candidates<const W: usize>(table: &Table, place: &Place) -> [[u64; W]; SUBTABLES] {
        place.words.map(|first| Self::bucket::<W>(table, first))
    }

    /// Whether some cell of `candidates` holds `place`'s remainder: the
    /// zero-lane test of every word, ored, with no branch on the cells.
    #[inline(always)]
    fn stored<const W: usize>(&self, candidates: &[[u64; W]; SUBTABLES], pattern: u64) -> bool {
        let mut acc = [0u64; W];
        for bucket in candidates {
            for (acc, &word) in acc.iter_mut().zip(bucket) {
                *acc |= self.borrows(word, pattern);
            }
        }
        acc.into_iter().fold(0, |a, x| a | x) & self.tops != 0
    }

    /// Finds the cell of `place`'s remainder: the zero-lane test of every
    /// bucket (exact per bucket) names the buckets that hold it, the first
    /// is taken with a trailing-zero count, and only its words are matched
    /// exactly, the last to the first, with assignments that compile to
    /// conditional moves: the subtable and word a key sits in cost no
    /// mispredicted branch.
    #[inline(always)]
    fn find_in<const W: usize>(&self, table: &Table, place: &Place) -> Option<Cell> {
        let candidates = Self::candidates::<W>(table, place);
        let mut holders = 0u32;
        for (i, bucket) in candidates.iter().enumerate() {
            let flags = bucket
                .iter()
                .fold(0, |acc, &word| acc | self.borrows(word, place.pattern));
            holders |= u32::from(flags & self.tops != 0) << i;
        }
        if holders == 0 {
            return None;
        }
        let subtable = holders.trailing_zeros() as usize;
        let bucket = candidates[subtable];
        let mut at = W - 1;
        let mut hits = self.matches(bucket[at], place.pattern);
        for j in (0..W - 1).rev() {
            let here = self.matches(bucket[j], place.pattern);
            if here != 0 {
                at = j;
                hits = here;
            }
        }
        Some(Cell {
            word: place.words[subtable] + at,
            shift: hits.trailing_zeros() + 1 - self.cell_bits,
        })
    }

    /// Whether the key of mixed hash `mixed` is stored: every word of its
    /// four buckets is tested, with no branch on the cells.
    #[inline(always)]
    pub(crate) fn contains(&self, table: &Table, mixed: u64) -> bool {
        if self.bucket_words == 1 {
            self.contains_in::<1>(table, mixed)
        } else {
            self.contains_in::<2>(table, mixed)
        }
    }

    /// Tests with the zero-lane test of [`borrows`](Self::borrows),
    /// exact for "some lane matches", keeping one accumulator per word of a
    /// bucket so that the compiler can test a bucket's words side by side.
    #[inline(always)]
    fn contains_in<const W: usize>(&self, table: &Table, mixed: u64) -> bool {
        let home = reduce(mixed, self.buckets);
        let remainder = (mixed & self.remainder_mask).max(1);
        let pattern = self.lane_ones.wrapping_mul(remainder << COUNTER_BITS);
        let offsets = self.offsets(remainder);
        let mut acc = [0u64; W];
        for (i, offset) in offsets.into_iter().enumerate() {
            let mut bucket = home + offset;
            if bucket >= self.buckets {
                bucket -= self.buckets;
            }
            let first = (i * self.buckets + bucket) * W;
            let words = Self::bucket::<W>(table, first);
            for (acc, word) in acc.iter_mut().zip(words) {
                *acc |= self.borrows(word, pattern);
            }
        }
        acc.into_iter().fold(0, |a, x| a | x) & self.tops != 0
    }

    /// Non-zero in some lane's top bit exactly when some lane of `word`
    /// holds `pattern`'s remainder (the caller masks with the top bits,
    /// once for several words). The classic zero-lane test: subtracting 1
    /// at each lane's lowest remainder bit borrows through a lane only if it
    /// is zero, and a lane above a zero one may then be flagged too, so
    /// which lanes are flagged is not exact, but whether any is.
    #[inline(always)]
    fn borrows(&self, word: u64, pattern: u64) -> u64 {
        let y = (word ^ pattern) & self.remainders;
        y.wrapping_sub(self.lane_ones << COUNTER_BITS) & !y
    }

    /// Adds `copies` copies of `place`'s fingerprint: to its cell if stored
    /// (the counter saturating at 15), else to a free cell of the least
    /// loaded of its buckets (the leftmost on ties). Returns how many copies
    /// the counters gained.
    ///
    /// # Errors
    ///
    /// [`Error::Full`] when the fingerprint is not stored and all four
    /// buckets are full; nothing changed then.
    pub(crate) fn add(&self, table: &mut Table, place: &Place, copies: u64) -> Result<u64, Error> {
        if self.bucket_words == 1 {
            self.add_in::<1>(table, place, copies)
        } else {
            self.add_in::<2>(table, place, copies)
        }
    }

    /// [`add`](Self::add) for buckets of `W` words. A new fingerprint (the
    /// common case) costs one branch-free test that it is not stored, the
    /// free cells of each bucket, and a pick of the leftmost bucket with
    /// the most that compiles to conditional moves.
    #[inline(always)]
    fn add_in<const W: usize>(
        &self,
        table: &mut Table,
        place: &Place,
        copies: u64,
    ) -> Result<u64, Error> {
        let candidates = Self::candidates::<W>(table, place);
        if self.stored(&candidates, place.pattern) {
            if let Some(cell) = self.find_in::<W>(table, place) {
                let word = table.word_mut(cell.word);
                let count = (*word >> cell.shift) & SATURATED;
                let new = (count + copies).min(SATURATED);
                *word += (new - count) << cell.shift;
                return Ok(new - count);
            }
        }
        let mut best = 0;
        let mut most_free = 0;
        for (i, bucket) in candidates.iter().enumerate() {
            let free: u32 = bucket
                .iter()
                .map(|&word| self.matches(word, 0).count_ones())
                .sum();
            // Strictly more free cells: the leftmost wins a tie.
            if free > most_free {
                most_free = free;
                best = i;
            }
        }
        if most_free == 0 {
            return Err(Error::Full);
        }
        let copies = copies.min(SATURATED);
        let first = place.words[best];
        for (j, &word) in candidates[best].iter().enumerate() {
            let empty = self.matches(word, 0);
            if empty != 0 {
                let shift = empty.trailing_zeros() + 1 - self.cell_bits;
                *table.word_mut(first + j) |= ((place.remainder << COUNTER_BITS) | copies) << shift;
                return Ok(copies);
            }
        }
        // The bucket had a free cell, so a word had an empty lane: never
        // reached.
        Err(Error::Full)
    }

    /// Removes one copy of `place`'s fingerprint. Returns `None` when it is
    /// not stored (nothing changed), else whether a counter went down (a
    /// saturated one stays).
    pub(crate) fn take(&self, table: &mut Table, place: &Place) -> Option<bool> {
        let cell = self.find(table, place)?;
        let word = table.word_mut(cell.word);
        let count = (*word >> cell.shift) & SATURATED;
        if count == SATURATED {
            return Some(false);
        }
        if count == 1 {
            // The last copy: the whole cell empties.
            let lane = u64::MAX >> (64 - self.cell_bits);
            *word &= !(lane << cell.shift);
        } else {
            *word -= 1 << cell.shift;
        }
        Some(true)
    }

    /// The counter of `place`'s fingerprint, 0 when it is not stored.
    pub(crate) fn count(&self, table: &Table, place: &Place) -> u64 {
        self.find(table, place)
            .map_or(0, |cell| (table.word(cell.word) >> cell.shift) & SATURATED)
    }

    /// Every stored cell: (subtable, bucket, remainder, counter), in table
    /// order.
    pub(crate) fn cells<'a>(
        &'a self,
        table: &'a Table,
    ) -> impl Iterator<Item = (usize, usize, u64, u64)> + 'a {
        let lane = u64::MAX >> (64 - self.cell_bits);
        (0..self.words()).flat_map(move |index| {
            let word = table.word(index);
            let bucket_index = index / self.bucket_words;
            let (subtable, bucket) = (bucket_index / self.buckets, bucket_index % self.buckets);
            (0..self.lanes).filter_map(move |j| {
                let cell = (word >> (j * self.cell_bits)) & lane;
                (cell != 0).then_some((subtable, bucket, cell >> COUNTER_BITS, cell & SATURATED))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes() -> impl Iterator<Item = Shape> {
        CELL_BITS.into_iter().flat_map(|bits| {
            BUCKET_WORDS
                .into_iter()
                .flat_map(move |words| [1, 7, 1000].map(|b| Shape::new(b, words, bits).unwrap()))
        })
    }

    /// A word of cells with these remainders (0 = empty) and counter 1.
    fn word(shape: &Shape, remainders: &[u64]) -> u64 {
        remainders.iter().enumerate().fold(0, |acc, (j, &r)| {
            let cell = if r == 0 { 0 } else { (r << COUNTER_BITS) | 1 };
            acc | cell << (j as u32 * shape.cell_bits)
        })
    }

    #[test]
    fn matches_names_exactly_the_equal_lanes() {
        for shape in shapes() {
            let top = shape.remainder_mask;
            let lanes = shape.lanes as usize;
            // Neighbouring values, the extremes and zeros, in every lane order.
            let values = [0, 1, 2, top, top - 1, top >> 1, (top >> 1) + 1];
            for (a, &probe) in values.iter().enumerate() {
                let cells: Vec<u64> = (0..lanes).map(|j| values[(a + j) % values.len()]).collect();
                let w = word(&shape, &cells);
                let pattern = shape.lane_ones.wrapping_mul(probe << COUNTER_BITS);
                let hits = shape.matches(w, pattern);
                for (j, &cell) in cells.iter().enumerate() {
                    let bit = (hits >> (j as u32 * shape.cell_bits + shape.cell_bits - 1)) & 1;
                    assert_eq!(
                        bit == 1,
                        cell == probe,
                        "{shape:?} lane {j} {cell} vs {probe}"
                    );
                }
                assert_eq!(
                    hits.count_ones() as usize,
                    cells.iter().filter(|&&c| c == probe).count()
                );
            }
        }
    }

    #[test]
    fn borrows_agree_with_matches() {
        for shape in shapes() {
            for i in 0..5_000u64 {
                let word =
                    filter_core::mix64(i) & (shape.remainders | (shape.lane_ones * SATURATED));
                let probe = (filter_core::mix64(!i) & shape.remainder_mask).max(1);
                // Plant the probe in lane 0 of every third word.
                let lane = u64::MAX >> (64 - shape.cell_bits);
                let word = if i % 3 == 0 {
                    (word & !lane) | (probe << COUNTER_BITS | 1)
                } else {
                    word
                };
                let pattern = shape.lane_ones.wrapping_mul(probe << COUNTER_BITS);
                assert_eq!(
                    shape.borrows(word, pattern) & shape.tops != 0,
                    shape.matches(word, pattern) != 0,
                    "{shape:?} {word:#x} {probe}"
                );
            }
        }
    }

    #[test]
    fn a_place_inverts_to_its_home() {
        for shape in shapes() {
            for i in 0..2_000u64 {
                let mixed = filter_core::mix64(i);
                let place = shape.place(mixed);
                let home = reduce(mixed, shape.buckets);
                for (subtable, &first) in place.words.iter().enumerate() {
                    assert!(first < shape.words());
                    let bucket = first / shape.bucket_words - subtable * shape.buckets;
                    assert!(bucket < shape.buckets);
                    assert_eq!(shape.home(subtable, bucket, place.remainder), home);
                }
                assert!(place.remainder >= 1 && place.remainder <= shape.remainder_mask);
            }
        }
    }

    #[test]
    fn add_take_count_keep_one_cell_per_fingerprint() {
        let shape = Shape::new(3, 2, 16).unwrap();
        let mut table = Table {
            lines: vec![Line::default(); shape.lines()],
        };
        let a = shape.place(filter_core::mix64(1));
        assert_eq!(shape.add(&mut table, &a, 1), Ok(1));
        assert_eq!(shape.add(&mut table, &a, 20), Ok(14));
        assert_eq!(shape.count(&table, &a), SATURATED);
        assert_eq!(shape.take(&mut table, &a), Some(false));
        assert_eq!(shape.count(&table, &a), SATURATED);
        assert_eq!(shape.cells(&table).count(), 1);
        let b = shape.place(filter_core::mix64(2));
        assert_eq!(shape.take(&mut table, &b), None);
        assert_eq!(shape.add(&mut table, &b, 2), Ok(2));
        assert_eq!(shape.take(&mut table, &b), Some(true));
        assert_eq!(shape.take(&mut table, &b), Some(true));
        assert_eq!(shape.take(&mut table, &b), None);
        assert_eq!(shape.cells(&table).count(), 1);
    }

    #[test]
    fn full_buckets_refuse_and_change_nothing() {
        // One bucket per subtable of 4 cells: 16 fingerprints fit.
        let shape = Shape::new(1, 1, 16).unwrap();
        let mut table = Table {
            lines: vec![Line::default(); shape.lines()],
        };
        let mut stored = 0;
        let mut i = 0;
        while stored < 16 {
            let place = shape.place(filter_core::mix64(i));
            if shape.count(&table, &place) == 0 {
                assert_eq!(shape.add(&mut table, &place, 1), Ok(1));
                stored += 1;
            }
            i += 1;
        }
        let before = table.clone();
        let fresh = (i..)
            .map(|i| shape.place(filter_core::mix64(i)))
            .find(|p| shape.count(&table, p) == 0)
            .unwrap();
        assert_eq!(shape.add(&mut table, &fresh, 1), Err(Error::Full));
        assert!(table == before);
    }
}
