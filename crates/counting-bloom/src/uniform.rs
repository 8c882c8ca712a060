//! Where filters of [`UniformHashes`](filter_core::UniformHashes) put a
//! key: the positions of the default filters, from the hash as it is
//! instead of from its mix (see [`filter_core::hash_quality`]). The
//! classic layout needs nothing of its own; this module is the blocked
//! layout's pair.
//!
//! **The classic layout.** Every [`ProbeSequence`](filter_core::ProbeSequence)
//! starts from x = the hash itself, through filter-core's
//! `from_uniform_hash` constructors ([`filter_core::LinearProbes`] and its
//! two siblings), the same as `bloom`'s classic filter: the step, the cubic
//! term and the hashed sequence's per-probe mix are unchanged. The linear
//! and folded sequences differ only in how they spread the hash, so here
//! they are one sequence.
//!
//! **The blocked layout.** A key's two words x and y (`counter_block.rs`)
//! are used as follows, b being the bits of the block count (the top b bits
//! of a word pick a block, through `reduce`):
//!
//! - the first half: block from x's top b bits, counters and word window
//!   from y's low 37 bits;
//! - the second half: block from y's top b bits, counters and window from
//!   x's low 37 bits.
//!
//! For a uniform hash h, x = h and y = h ⊕ (h << 32): two instructions,
//! no multiply, and none at all before the first block's `reduce`. Why
//! these, bit by bit: y's low 32 bits are h's, and its bit i ≥ 32 is h's
//! bit i xor h's bit i − 32, so y is a bijection of h and, for b ≤ 27
//! (up to 2^27 blocks, an 8 GiB table), every pair that must be
//! independent is, exactly:
//!
//! - the first block and its counters: y's low 37 bits are h's bits 0..37
//!   (bits 32..37 xored with 0..5), all below x's top b bits (h's
//!   64 − b..64), and of full rank, so the window and the counters are
//!   independent of each other too;
//! - the second block and its counters: each of y's top b bits holds one
//!   of h's bits 64 − b..64, none of which is among x's low 37 bits;
//! - the two blocks: each of y's top b bits also holds one of h's bits
//!   32 − b..32, which x's top b bits do not.
//!
//! What is shared: both halves name the same counter in each word (y's low
//! 32 bits are x's), though in blocks, and mostly windows, of their own.
//! Each block's counters are loaded by keys independent of the query's
//! counters, so that changes no rate. And 64 bits cannot hold two blocks
//! and two 37-bit counter choices apart in larger tables: beyond 2^27
//! blocks the lowest b − 27 bits of the second block are tied to bits of
//! its counters' choice.
//!
//! What does not work, though it looks alike: y = rotl(h, 32) gives the
//! first half counters from h's high bits, the very bits that pick its
//! block, so every key of a block would use the same counters in several
//! words; y = h ⊕ rotl(h, 32) has equal halves, so each half's word window
//! is a function of its counter in word 0, and only half of that word's
//! counters would ever be used. (And y = h puts both halves in one block.)

/// The two words x and y of the key whose uniform hash is `hash`, for the
/// blocked layout: x = `hash`, y = `hash ⊕ (hash << 32)` (see the module
/// docs for why).
#[inline(always)]
pub(crate) const fn pair(hash: u64) -> (u64, u64) {
    (hash, hash ^ (hash << 32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use filter_core::mix64;

    #[test]
    fn the_pair_is_the_hash_and_its_halves_xored_into_the_high_one() {
        for h in [0u64, 1, 0xDEAD_BEEF, u64::MAX, 0x0123_4567_89AB_CDEF] {
            let (x, y) = pair(h);
            assert_eq!(x, h);
            assert_eq!(y as u32, h as u32);
            assert_eq!((y >> 32) as u32, (h as u32) ^ ((h >> 32) as u32));
        }
    }

    #[test]
    fn the_second_word_is_a_bijection_of_the_hash() {
        // y = h ^ (h << 32) is undone by y ^ (y << 32): the pair loses no
        // bit of the hash (the fault of h ^ rotl(h, 32), see the module docs).
        for h in (0..10_000u64).map(mix64) {
            let (_, y) = pair(h);
            assert_eq!(y ^ (y << 32), h);
        }
    }
}
