//! The bucket layout of a scalable filter's stages: every stage's buckets
//! refine the buckets of the stage before, so that two items that share a
//! fingerprint and a bucket pair in one stage share them in every smaller
//! stage too (the scalable filter's `remove` rests on this, `scalable.rs`).
//!
//! # The layout
//!
//! Stage `L` (0-based) has `m_L = B·4^L` buckets, `B` even (the first
//! stage's), and every stage takes the same `f`-bit fingerprint `v` from a
//! key's mixed hash `x` (as a [`CuckooFilter`](crate::CuckooFilter) does).
//! Write a bucket of stage `L` as `j = a·4^L + d`, with a *root*
//! `a = ⌊j / 4^L⌋ < B` and a *suffix* `d = j mod 4^L`, `L` base-4 digits.
//!
//! - first bucket: `i_L = ⌊x·m_L / 2^64⌋` (multiply-shift, as everywhere);
//! - other bucket: `alt_L(j, v) = ((c(v) − a) mod B)·4^L + (d XOR T_L(v))`,
//!   with `c(v) = reduce(mix64(v), B) | 1`, the [`Flat`] offset of a table
//!   of `B` buckets, and `T_L(v) = ⌊(mix64(v) mod 2^14) / 2^(14 − 2L)⌋`,
//!   the top `2L` of 14 bits of `mix64(v)`.
//!
//! Stage 0 is therefore exactly a [`CuckooFilter`](crate::CuckooFilter)'s
//! table of `B` buckets.
//!
//! # Why it nests
//!
//! - **First buckets.** `⌊i_{L+1} / 4⌋ = ⌊⌊4·x·m_L / 2^64⌋ / 4⌋ =
//!   ⌊x·m_L / 2^64⌋ = i_L`.
//! - **Other buckets.** For `j = a·4^{L+1} + d` in stage `L + 1`,
//!   `⌊j / 4⌋ = a·4^L + ⌊d / 4⌋`, and since `T_{L+1} = 4·T_L + t` for a
//!   digit `t`, `⌊(d XOR T_{L+1}) / 4⌋ = ⌊d / 4⌋ XOR T_L`. So
//!   `⌊alt_{L+1}(j, v) / 4⌋ = ((c − a) mod B)·4^L + (⌊d / 4⌋ XOR T_L) =
//!   alt_L(⌊j / 4⌋, v)`.
//! - **Pairs.** An item's pair in stage `L` is `{i_L, alt_L(i_L, v)}`;
//!   dividing both by `4^{L−K}` gives its pair in stage `K < L`, by the two
//!   facts above applied `L − K` times. Two items with the same fingerprint
//!   and the same pair in stage `L` therefore have the same pair in every
//!   smaller stage.
//! - **An involution without fixed points.** Applied twice, the root gives
//!   `c − (c − a) = a (mod B)` and the suffix `d XOR T XOR T = d`. A bucket
//!   is its own alternate only if `2a ≡ c (mod B)`, impossible for even `B`
//!   and odd `c`: every item has two distinct buckets in every stage.
//! - **In range.** The root stays below `B` and the suffix below `4^L`, so
//!   the other bucket is below `m_L`, which lookups rely on.
//!
//! # Why the suffix is XOR-ed with a fingerprint's digits
//!
//! The plainer rule `(c_L − j) mod m_L` with `c_{L+1} = 4·c_L + 3` nests
//! as well (its suffix becomes `(4^L − 1) − d`), but it pairs a suffix only
//! with its complement, whatever the fingerprint: a stage of `B·4^L`
//! buckets falls apart into `4^L / 2` tables of `2B` buckets between which
//! no item can move, and a large stage then meets its first `Full` when the
//! fullest of thousands of small tables does. XOR-ing the suffix with
//! digits drawn from the fingerprint links every part of a stage with
//! every other, as the [`Flat`] offsets do in a plain table: an item's
//! other bucket lies in half the stage (the roots of the other parity),
//! chosen by its fingerprint. With the digits every stage first meets
//! `Full` at the load a plain table of its bucket count does (the test
//! `stages_fill_as_plain_tables_before_the_next_opens` in `scalable.rs`);
//! with the complement, measured when the rule was chosen, every stage
//! after the first met it several percent lower.
//!
//! A large stage keeps `c(v)·4^L + T_L(v)` for every fingerprint value,
//! by the same rule and for the same reason as a plain table keeps its
//! offsets (`table.rs`).

use crate::table::{Flat, Pairing, offset_table};

/// The bits of `mix64(v)` that the suffix digits come from: two per stage
/// after the first, for [`MAX_STAGES`](crate::MAX_STAGES) stages.
pub(crate) const SUFFIX_BITS: u32 = 2 * (crate::MAX_STAGES as u32 - 1);

// Two suffix bits per stage: each bucket is split in four in the next.
const _: () = assert!(crate::GROWTH == 4);

/// The alternate-bucket rule of stage `level` of a scalable filter whose
/// first stage has `root_buckets` buckets (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Nested {
    /// The suffix mask, `4^L − 1`.
    suffix_mask: usize,
    /// `2L`, the suffix's bits.
    suffix_bits: u32,
    /// Stage 0's rule, which gives the roots' offsets `c(v)`.
    root: Flat,
    /// `c(v)·4^L + T_L(v)` for every fingerprint value `v` in `0..2^f`, or
    /// empty (see [`keeps_offsets`](crate::table::keeps_offsets)). Never serialized.
    codes: Box<[u32]>,
}

impl Nested {
    /// The rule of stage `level` (below
    /// [`MAX_STAGES`](crate::MAX_STAGES)) whose first stage has
    /// `root_buckets` buckets, for `fingerprint_bits`-bit fingerprints in a
    /// table of `table_bytes` bytes. The caller has checked that
    /// `root_buckets · 4^level` is a valid bucket count.
    pub(crate) fn new(
        root_buckets: usize,
        level: usize,
        fingerprint_bits: u32,
        table_bytes: usize,
    ) -> Nested {
        debug_assert!(level < crate::MAX_STAGES);
        let suffix_bits = 2 * level as u32;
        let buckets = root_buckets << suffix_bits;
        // The roots' offsets, read only by `code`: made for no table bytes,
        // so not kept at the widths stages use (7 bits and more).
        let root = Flat::new(root_buckets, fingerprint_bits, 0);
        let mut nested = Nested {
            suffix_mask: (1 << suffix_bits) - 1,
            suffix_bits,
            root,
            codes: Box::default(),
        };
        nested.codes = offset_table(table_bytes, buckets, fingerprint_bits, |fingerprint| {
            nested.code(fingerprint)
        });
        nested
    }

    /// `c(v)·4^L + T_L(v)`, computed.
    #[inline]
    fn code(&self, fingerprint: u64) -> usize {
        let digits = filter_core::mix64(fingerprint) & ((1 << SUFFIX_BITS) - 1);
        let suffix = (digits >> (SUFFIX_BITS - self.suffix_bits)) as usize;
        (self.root.alt_offset(fingerprint) << self.suffix_bits) | suffix
    }
}

impl Pairing for Nested {
    /// `((c − a) mod B)·4^L + (d XOR T_L)` for `bucket = a·4^L + d`, from
    /// the code `k = c·4^L + T_L`: the roots subtract in place, with the
    /// suffixes masked off (`c·4^L − a·4^L` is `(c − a)·4^L`, brought into
    /// range by one conditional add of `m = B·4^L`), and the suffixes XOR.
    /// Always inlined: it is on the path of every lookup, insert and move,
    /// and left out of line it was a call on each.
    #[inline(always)]
    fn alt(&self, buckets: usize, bucket: usize, fingerprint: u64) -> usize {
        let code = match self.codes.get(fingerprint as usize) {
            Some(&k) => k as usize,
            None => self.code(fingerprint),
        };
        let (root, code_root) = (bucket & !self.suffix_mask, code & !self.suffix_mask);
        let diff = code_root.wrapping_sub(root);
        let root = diff.wrapping_add(buckets & usize::from(code_root < root).wrapping_neg());
        root | ((bucket ^ code) & self.suffix_mask)
    }

    fn kept_bytes(&self) -> usize {
        size_of_val(&*self.codes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{Table, bytes_for};

    fn nested(root_buckets: usize, level: usize, bits: u32) -> Table<Nested> {
        let buckets = root_buckets << (2 * level);
        let bytes = bytes_for(buckets, bits).unwrap();
        let rule = Nested::new(root_buckets, level, bits, bytes);
        Table::with_pairing(vec![0; bytes], buckets, bits, rule)
    }

    /// The module docs' formula, written out from `mix64` and `reduce`.
    fn formula(root_buckets: usize, level: usize, bucket: usize, fp: u64) -> usize {
        let m = filter_core::mix64(fp);
        let c = filter_core::reduce(m, root_buckets & !1) | usize::from(root_buckets >= 2);
        let t = ((m % (1 << 14)) >> (14 - 2 * level)) as usize;
        let (a, d) = (bucket >> (2 * level), bucket % (1 << (2 * level)));
        let root = (c + root_buckets - a) % root_buckets;
        (root << (2 * level)) | (d ^ t)
    }

    #[test]
    fn the_rule_is_the_documented_formula_kept_or_computed() {
        for (root, bits) in [(2, 7), (6, 10), (296, 13), (1_000, 16), (1, 8)] {
            for level in 0..crate::MAX_STAGES {
                let rule = nested(root, level, bits);
                let buckets = root << (2 * level);
                let mut next = crate::test_rng::seeded(root as u64 * 31 + level as u64);
                for _ in 0..2_000 {
                    let j = (next() % buckets as u64) as usize;
                    let fp = next() % ((1 << bits) - 1) + 1;
                    let want = formula(root, level, j, fp);
                    assert_eq!(rule.alt(j, fp), want, "B {root} L {level} j {j} fp {fp}");
                    assert_eq!(
                        rule.pairing.code(fp) >> (2 * level),
                        rule.pairing.root.alt_offset(fp)
                    );
                }
            }
        }
        // Large stages keep their codes, and they are the computed ones.
        let rule = nested(4_000, 6, 10).pairing;
        assert_eq!(rule.codes.len(), 1 << 10);
        for fp in 0..1u64 << 10 {
            assert_eq!(rule.codes[fp as usize] as usize, rule.code(fp));
        }
    }

    #[test]
    fn stage_zero_is_a_plain_table() {
        for root in [1, 2, 4, 6, 296, 1_000] {
            let plain = Table::from_bytes(vec![0; bytes_for(root, 12).unwrap()], root, 12);
            let rule = nested(root, 0, 12);
            for j in 0..root {
                for fp in 1..4096 {
                    assert_eq!(rule.alt(j, fp), plain.alt(j, fp), "B {root} j {j} fp {fp}");
                }
            }
        }
    }

    /// Every bucket of every stage, for small roots (`B` = 1 and 2
    /// included, and odd `B`, which the filter never uses): in range, an
    /// involution, without fixed points for even `B`, and refining the
    /// stage below (first and other buckets both).
    #[test]
    fn pairs_nest_across_stages_and_are_involutions() {
        for root in [1usize, 2, 3, 4, 6, 10] {
            for level in 0..crate::MAX_STAGES {
                let rule = nested(root, level, 8);
                let below = (level > 0).then(|| nested(root, level - 1, 8));
                let buckets = root << (2 * level);
                let step = (buckets / 4_099).max(1);
                for j in (0..buckets).step_by(step).chain([buckets - 1]) {
                    for fp in 1..256u64 {
                        let k = rule.alt(j, fp);
                        assert!(k < buckets, "B {root} L {level} j {j} fp {fp}: {k}");
                        assert_eq!(rule.alt(k, fp), j, "B {root} L {level} j {j} fp {fp}");
                        if root % 2 == 0 {
                            assert_ne!(k, j, "B {root} L {level} j {j} fp {fp}");
                        }
                        if let Some(below) = &below {
                            assert_eq!(k / 4, below.alt(j / 4, fp), "B {root} L {level}");
                        }
                    }
                }
            }
        }
        // First buckets nest too: ⌊reduce(x, 4m) / 4⌋ = reduce(x, m).
        let mut next = crate::test_rng::seeded(0xF1E5_7B0C);
        for _ in 0..100_000 {
            // Up to 2^40 buckets, or a quarter of `usize` on 32-bit targets.
            let most = (1u64 << 40).min(usize::MAX as u64 / 4);
            let (x, m) = (next(), (next() % most) as usize + 1);
            assert_eq!(filter_core::reduce(x, 4 * m) / 4, filter_core::reduce(x, m));
        }
    }

    #[test]
    fn a_large_stage_is_one_table_not_many() {
        // Items of one suffix reach other buckets of many suffixes: with
        // the complement rule they would reach one.
        let rule = nested(6, 5, 12);
        let suffixes: std::collections::HashSet<usize> =
            (1..4096u64).map(|fp| rule.alt(0, fp) % (1 << 10)).collect();
        assert!(suffixes.len() > 900, "{}", suffixes.len());
    }
}
