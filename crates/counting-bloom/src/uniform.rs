//! Where filters of [`UniformHashes`](filter_core::UniformHashes) put a
//! key: the positions of the default filters, from the hash as it is
//! instead of from its mix (see [`filter_core::hash_quality`]). The
//! classic layout needs nothing of its own; this module is the blocked
//! layout's pair.
//!
//! **The classic layout.** Every [`ProbeSequence`](filter_core::ProbeSequence)
//! starts from x = the hash itself, through filter-core's
//! quality-generic constructors ([`filter_core::LinearProbes::new_for`] and
//! its siblings), the same as `bloom`'s classic filter: the step, the cubic
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
//! For a uniform hash h, x = h itself and y = `folded_product(h ⊕ φ)`, the
//! second word of the default pair ([`PairMix::Folded`]): the first block's
//! load waits on nothing but `reduce`, and the second word still spreads
//! every bit of h, so that the second half's block and the first half's
//! counters are independent of x's bits, which choose the first block and
//! the second half's counters.
//!
//! Why not a second word without a multiply: 64 bits of hash cannot hold two
//! blocks and two 37-bit counter choices apart, so any such y reuses bits of
//! x. The first one built, y = h ⊕ (h << 32), kept every block independent of
//! its own counters, but both halves then named the same counters in each
//! word; whenever the two halves shared a block (one key in B, and B is
//! small in small filters) a key had only half its counters, and the
//! report's small sets measured 1.10× the target at 100 keys and 1 %, 1.13×
//! at 0.1 %, where the default measures 0.93× and 0.79×. With the folded
//! second word they measure as the default does (`cargo xtask compare`'s
//! small sets; `tests/uniform.rs` holds 100-key sets to the target).
//!
//! [`PairMix::Folded`]: crate::counter_block::PairMix::Folded

use filter_core::probes::folded_product;

use crate::counter_block::SECOND;

/// The two words x and y of the key whose uniform hash is `hash`, for the
/// blocked layout: x = `hash`, y = `folded_product(hash ⊕ φ)` (see the
/// module docs for why).
#[inline(always)]
pub(crate) const fn pair(hash: u64) -> (u64, u64) {
    (hash, folded_product(hash ^ SECOND))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter_block::{PairMix, mixed};

    #[test]
    fn the_pair_is_the_hash_and_the_default_pairs_second_word() {
        for h in (0..10_000u64).map(filter_core::mix64) {
            let (x, y) = pair(h);
            assert_eq!(x, h);
            assert_eq!(y, mixed(h, PairMix::Folded).1);
        }
    }
}
