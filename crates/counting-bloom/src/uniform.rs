//! Where filters of [`UniformHashes`](filter_core::UniformHashes) put a
//! key: the positions of the default filters, from the hash as it is
//! instead of from its mix (see [`filter_core::hash_quality`]).
//!
//! **The classic layout.** Every [`ProbeSequence`](filter_core::ProbeSequence)
//! of [`filter_core::probes`] starts by spreading the hash into its first
//! value x (`folded_product` for the folded sequence, `mix64` for the
//! others) and then goes on from x alone: the step y is x rotated by 32
//! bits and salted, the cubic term z is x times a constant, and the hashed
//! sequence mixes each value x + j·y again. Here x is the hash itself and
//! everything after it is the same, the hashed sequence's per-probe mix
//! included (it is what makes the smallest tables' probes independent, not
//! a repair of the hash). The linear and folded sequences differ only in
//! how they spread the hash, so here they are one sequence. filter-core
//! builds these iterators from a mixed x only, so this module repeats their
//! few lines; a test checks that they give filter-core's probes when handed
//! its mixed x.
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

/// [`filter_core::probes`]' salt of the step: xored into x rotated by 32
/// bits. Must equal filter-core's (a test compares the probes).
const STEP_SALT: u64 = 0x9E37_79B9_7F4A_7C15;

/// [`filter_core::probes`]' multiplier of the cubic sequence's third value.
/// Must equal filter-core's (a test compares the probes).
const BEND_MULTIPLIER: u64 = 0x94D0_49BB_1331_11EB;

/// The first value and the step of the linear (and folded) sequence of a
/// key whose uniform hash is `hash`: probe j is `reduce(x + j·y, len)`.
#[inline(always)]
pub(crate) const fn linear_start(hash: u64) -> (u64, u64) {
    (hash, hash.rotate_left(32) ^ STEP_SALT)
}

/// The probes of [`filter_core::LinearProbes`] (the linear and folded
/// sequences), from x = `hash`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LinearProbes {
    next: u64,
    step: u64,
    len: usize,
}

impl LinearProbes {
    /// The probes of the key whose uniform hash is `hash` in a table of
    /// `len` cells.
    #[inline(always)]
    pub(crate) fn new(hash: u64, len: usize) -> Self {
        let (next, step) = linear_start(hash);
        LinearProbes { next, step, len }
    }
}

impl Iterator for LinearProbes {
    type Item = usize;

    /// The next probe, in `0..len`. Never `None`.
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let position = filter_core::reduce(self.next, self.len);
        self.next = self.next.wrapping_add(self.step);
        Some(position)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// The probes of [`filter_core::CubicProbes`], from x = `hash`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CubicProbes {
    next: u64,
    step: u64,
    bend: u64,
    bend_step: u64,
    len: usize,
}

impl CubicProbes {
    /// The probes of the key whose uniform hash is `hash` in a table of
    /// `len` cells.
    #[inline(always)]
    pub(crate) fn new(hash: u64, len: usize) -> Self {
        let (next, step) = linear_start(hash);
        let z = next.wrapping_mul(BEND_MULTIPLIER);
        CubicProbes {
            next,
            step,
            bend: z,
            bend_step: z,
            len,
        }
    }
}

impl Iterator for CubicProbes {
    type Item = usize;

    /// The next probe, in `0..len`. Never `None`.
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let position = filter_core::reduce(self.next, self.len);
        self.next = self.next.wrapping_add(self.step);
        self.step = self.step.wrapping_add(self.bend);
        self.bend = self.bend.wrapping_add(self.bend_step);
        Some(position)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// The probes of [`filter_core::HashedProbes`], from x = `hash`: each
/// value is still mixed before it is reduced.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HashedProbes {
    next: u64,
    step: u64,
    len: usize,
}

impl HashedProbes {
    /// The probes of the key whose uniform hash is `hash` in a table of
    /// `len` cells.
    #[inline(always)]
    pub(crate) fn new(hash: u64, len: usize) -> Self {
        let (next, step) = linear_start(hash);
        HashedProbes { next, step, len }
    }
}

impl Iterator for HashedProbes {
    type Item = usize;

    /// The next probe, in `0..len`. Never `None`.
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let position = filter_core::reduce(filter_core::mix64(self.next), self.len);
        self.next = self.next.wrapping_add(self.step);
        Some(position)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

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
    use filter_core::probes::folded_product;
    use filter_core::{mix64, reduce};

    fn take(probes: impl Iterator<Item = usize>) -> Vec<usize> {
        probes.take(40).collect()
    }

    #[test]
    fn handed_the_mixed_start_they_are_filter_cores_sequences() {
        // filter-core starts each sequence from mix64(h) (folded_product(h)
        // for the folded one); from that x, these must probe exactly as
        // filter-core does, which checks the copied constants too.
        for len in [1usize, 33, 1000, 9_585_059] {
            for h in [0u64, 1, 7, 0xDEAD_BEEF, u64::MAX, mix64(42)] {
                let x = mix64(h);
                assert_eq!(
                    take(LinearProbes::new(x, len)),
                    take(filter_core::LinearProbes::new(h, len))
                );
                assert_eq!(
                    take(LinearProbes::new(folded_product(h), len)),
                    take(filter_core::LinearProbes::folded(h, len))
                );
                assert_eq!(
                    take(CubicProbes::new(x, len)),
                    take(filter_core::CubicProbes::new(h, len))
                );
                assert_eq!(
                    take(HashedProbes::new(x, len)),
                    take(filter_core::HashedProbes::new(h, len))
                );
            }
        }
    }

    #[test]
    fn the_first_probe_is_the_hash_reduced() {
        // Written out from the definition, not from this module.
        for h in (0..1_000u64).map(|i| mix64(i ^ 0x5EED)) {
            let len = 1_000_003;
            let y = h.rotate_left(32) ^ 0x9E37_79B9_7F4A_7C15;
            let expected: Vec<usize> = (0..7u64)
                .map(|j| reduce(h.wrapping_add(j.wrapping_mul(y)), len))
                .collect();
            assert_eq!(
                LinearProbes::new(h, len).take(7).collect::<Vec<_>>(),
                expected
            );
            assert_eq!(CubicProbes::new(h, len).next(), Some(reduce(h, len)));
            assert_eq!(
                HashedProbes::new(h, len).next(),
                Some(reduce(mix64(h), len))
            );
        }
    }

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
