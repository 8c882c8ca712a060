//! The memory floor of a lookup: how long reading a filter's cache lines
//! takes on this machine, with no filter around the reads.
//!
//! A member lookup in a classic Bloom filter reads k cache lines at
//! independent positions, a cuckoo filter two buckets, a blocked filter one
//! block. Once the table outgrows the L1 cache those reads are most of the
//! lookup's cost, and no code makes them cheaper: only a layout that reads
//! fewer lines, or a smaller table. [`MemoryFloor`] measures that cost
//! alone. It allocates a table of the filter's size and runs a lookup loop
//! with everything but the reads taken out: each key is hashed as every
//! row's keys are ([`Cheap64`]), `lines` positions follow from the hash by
//! multiply-shift, the first word of each line is read and the words are
//! combined without a branch, and the loop counts the keys whose words are
//! all odd (every key, as every word is odd: the count keeps the loads from
//! being optimised away). Timed like the filters' lookups, it gives each row
//! a floor: a filter at 1.1× its floor has little left to gain from code,
//! and a target below the floor cannot be met on this machine by a filter
//! of that layout and size.

use super::workload::Cheap64;

/// Words per 64-byte cache line.
const LINE_WORDS: usize = 8;

/// A table the size of a filter's, read `lines` cache lines per key.
#[derive(Debug)]
pub(crate) struct MemoryFloor {
    /// Odd words, so that every page is backed as a built filter's is.
    words: Vec<u64>,
    lines: usize,
}

impl MemoryFloor {
    /// A table of `bytes` bytes rounded up to whole cache lines (one at
    /// least), read `lines` lines per key.
    pub(crate) fn new(bytes: usize, lines: usize) -> Self {
        let words = bytes.div_ceil(64).max(1) * LINE_WORDS;
        MemoryFloor {
            words: (0..words as u64)
                .map(|i| filter_core::mix64(i) | 1)
                .collect(),
            lines,
        }
    }

    fn table_lines(&self) -> usize {
        self.words.len() / LINE_WORDS
    }

    /// For each key, reads its `lines` cache lines and counts the keys whose
    /// words are all odd.
    #[inline(never)]
    pub(crate) fn count(&self, keys: &[u64]) -> usize {
        let words = &self.words[..];
        let table_lines = self.table_lines();
        keys.iter()
            .map(|&key| {
                let mut all = 1;
                for line in positions(key, table_lines).take(self.lines) {
                    all &= words[line * LINE_WORDS];
                }
                (all & 1) as usize
            })
            .sum()
    }
}

/// The lines key `key` reads in a table of `table_lines` lines: the first
/// from its hash by multiply-shift, each next from a rotated and offset
/// hash, as cheap as a filter's probe step.
#[inline(always)]
fn positions(key: u64, table_lines: usize) -> impl Iterator<Item = usize> {
    let mut hash = Cheap64::hash(key);
    std::iter::repeat_with(move || {
        let line = ((u128::from(hash) * table_lines as u128) >> 64) as usize;
        hash = hash.rotate_left(21).wrapping_add(0x9E37_79B9_7F4A_7C15);
        line
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_reads_its_lines_and_counts() {
        for (bytes, lines) in [(0, 1), (64, 2), (100, 3), (1 << 20, 7)] {
            let floor = MemoryFloor::new(bytes, lines);
            assert!(floor.words.len() * 8 >= bytes.max(64), "{bytes} bytes");
            let keys: Vec<u64> = (0..1_000).collect();
            assert_eq!(floor.count(&keys), keys.len());
        }
    }

    #[test]
    fn positions_cover_the_table_evenly() {
        // 1,000 lines, 100,000 keys × 2 lines: each line is read 200 times
        // on average (binomial σ ≈ 14), so 100..=300 is 7σ either side. A
        // rule that used part of the table, or fell out of it, fails.
        let mut reads = vec![0u32; 1_000];
        for key in 0..100_000 {
            for line in positions(key, reads.len()).take(2) {
                reads[line] += 1;
            }
        }
        assert!(reads.iter().all(|&r| (100..=300).contains(&r)), "{reads:?}");
    }

    #[test]
    fn a_key_reads_distinct_lines() {
        // Two of a key's lines coincide with probability about 1 in the
        // table's line count: in 10,000 keys of a 2^20-line table, a
        // handful at most; a step that repeated would coincide always.
        let repeats = (0..10_000u64)
            .filter(|&key| {
                let lines: Vec<usize> = positions(key, 1 << 20).take(7).collect();
                (1..lines.len()).any(|i| lines[..i].contains(&lines[i]))
            })
            .count();
        assert!(repeats <= 5, "{repeats}");
    }
}
