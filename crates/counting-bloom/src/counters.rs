//! The counter table: 4-bit saturating counters packed 16 to a `u64`.
//!
//! Counter `j` lives in word `j / 16`, bits `4·(j % 16) .. 4·(j % 16) + 4`.
//! Packing into whole words (rather than bytes) lets merge and the
//! saturated-counter census work on 16 counters per instruction, and keeps
//! the layout one plain `u64` array in the byte format.
//!
//! Why 4 bits: with the optimal number of hashes, the chance that any counter
//! reaches 16 is about 1.37e-15 × m (Fan et al., "Summary Cache"). A counter
//! that does reach [`MAX_COUNT`] **saturates**: it is never incremented past it
//! and never decremented again, because after saturation the table no longer
//! knows how many items it counts, and decrementing could reach zero while an
//! item is still present (a false negative). The price is a counter that stays
//! non-zero forever, a tiny rise in the false-positive rate.

use filter_core::Error;
use filter_core::memory::zeroed_vec;

/// The value at which a counter saturates.
pub(crate) const MAX_COUNT: u64 = 15;
/// Counters per `u64` word.
pub(crate) const COUNTERS_PER_WORD: u64 = 16;

/// Every fourth bit set, one per counter: `0x1111…`.
const LOW_BIT_OF_EACH: u64 = 0x1111_1111_1111_1111;
/// The low nibble of every byte: the even-numbered counters.
const EVEN_COUNTERS: u64 = 0x0F0F_0F0F_0F0F_0F0F;

/// Words needed to hold `counters` counters.
pub(crate) fn words_for(counters: u64) -> u64 {
    counters.div_ceil(COUNTERS_PER_WORD)
}

/// The word index and bit shift of counter `counter`.
#[inline(always)]
pub(crate) fn locate(counter: usize) -> (usize, u32) {
    (counter >> 4, ((counter & 15) as u32) << 2)
}

/// Allocates a zeroed table for `counters` counters.
pub(crate) fn zeroed_table(counters: u64) -> Result<Vec<u64>, Error> {
    let words = usize::try_from(words_for(counters)).map_err(|_| {
        Error::invalid(
            "counters",
            counters,
            "small enough to address on this platform",
        )
    })?;
    // Reported against the counters the caller asked for, not the words.
    zeroed_vec::<u64>(words, "counters").map_err(|_| {
        Error::invalid(
            "counters",
            counters,
            format_args!("small enough to allocate ({words} words of 8 bytes could not be)"),
        )
    })
}

/// How many counters of one word are saturated (equal to 15).
#[inline]
pub(crate) fn saturated_in_word(word: u64) -> u32 {
    (word & (word >> 1) & (word >> 2) & (word >> 3) & LOW_BIT_OF_EACH).count_ones()
}

/// How many counters of one word are non-zero.
#[inline]
pub(crate) fn nonzero_in_word(word: u64) -> u32 {
    ((word | (word >> 1) | (word >> 2) | (word >> 3)) & LOW_BIT_OF_EACH).count_ones()
}

/// How many counters of `table` are saturated. Padding counters past the
/// last real one are always zero, so they never count.
pub(crate) fn count_saturated(table: &[u64]) -> u64 {
    table.iter().map(|&w| u64::from(saturated_in_word(w))).sum()
}

/// Adds two words counter by counter, each sum capped at 15.
///
/// The even and odd counters are spread into separate bytes so that each sum
/// (at most 30) has room to carry into bit 4 of its byte; a carry marks an
/// overflow, which is widened into a nibble of ones.
#[inline]
pub(crate) fn saturating_add_words(a: u64, b: u64) -> u64 {
    let add = |x: u64, y: u64| {
        let sum = x + y; // at most 30 per byte: no carry between bytes
        let overflow = ((sum >> 4) & 0x0101_0101_0101_0101) * 0x0F;
        (sum | overflow) & EVEN_COUNTERS
    };
    let even = add(a & EVEN_COUNTERS, b & EVEN_COUNTERS);
    let odd = add((a >> 4) & EVEN_COUNTERS, (b >> 4) & EVEN_COUNTERS);
    even | (odd << 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nibbles(word: u64) -> Vec<u64> {
        (0..16).map(|i| (word >> (4 * i)) & 15).collect()
    }

    #[test]
    fn saturating_add_matches_per_counter_min() {
        // Every pair of counter values, placed at every position class.
        for x in 0..16u64 {
            for y in 0..16u64 {
                let a = x * LOW_BIT_OF_EACH;
                let b = y * LOW_BIT_OF_EACH;
                let want = (x + y).min(15) * LOW_BIT_OF_EACH;
                assert_eq!(saturating_add_words(a, b), want, "{x} + {y}");
            }
        }
        let a = 0xFEDC_BA98_7654_3210;
        let b = 0x0123_4567_89AB_CDEF;
        let got = nibbles(saturating_add_words(a, b));
        let want: Vec<u64> = nibbles(a)
            .iter()
            .zip(nibbles(b))
            .map(|(x, y)| (x + y).min(15))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn saturated_census() {
        assert_eq!(saturated_in_word(0), 0);
        assert_eq!(saturated_in_word(u64::MAX), 16);
        assert_eq!(saturated_in_word(0xF0E0_F00F), 3);
        assert_eq!(count_saturated(&[u64::MAX, 0xF, 0xE]), 17);
    }

    #[test]
    fn nonzero_census() {
        assert_eq!(nonzero_in_word(0), 0);
        assert_eq!(nonzero_in_word(u64::MAX), 16);
        // Every value 1..=15 in one counter counts once, at every position.
        for value in 1..16u64 {
            for position in 0..16 {
                assert_eq!(nonzero_in_word(value << (4 * position)), 1);
            }
        }
        assert_eq!(nonzero_in_word(0x1000_0800_0040_0002), 4);
        assert_eq!(nonzero_in_word(0x1111_1111_1111_1111), 16);
    }

    #[test]
    fn locate_and_words() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(17), (1, 4));
        assert_eq!(locate(31), (1, 60));
        assert_eq!(words_for(1), 1);
        assert_eq!(words_for(16), 1);
        assert_eq!(words_for(17), 2);
    }
}
