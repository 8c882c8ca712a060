//! Breadth-first search for a free slot: first a shallow one before the
//! random walk, then a wider one after a failed walk, and the way a victim
//! is put back after a remove.
//!
//! The random walk of the paper is cheap but blind: near capacity it can
//! miss free slots two moves away for 500 kicks, and each of its steps waits
//! for the previous one's cache miss. A breadth-first search over the graph
//! "bucket → the other buckets of its residents" finds the shortest chain of
//! moves to a free slot, and then performs the moves from the free end
//! back, so every fingerprint always sits in one of its two buckets (Li et
//! al., "Algorithmic improvements for fast concurrent cuckoo hashing",
//! EuroSys 2014, found the same: breadth-first chains are much shorter near
//! capacity).
//!
//! - [`place_nearby`](Table::place_nearby) runs for every insert whose two
//!   buckets are both full: two levels (the other buckets of their 8
//!   residents, then of those buckets' 32), each read all at once so that
//!   a level costs about one cache miss, in fixed-size arrays.
//! - [`place_by_search`](Table::place_by_search) runs only when the walk
//!   after that failed too (up to 512 buckets), or when a remove frees room
//!   while the victim slot is occupied (up to 65,536).

use std::collections::HashSet;

use crate::table::{Pairing, SLOTS, Table};

/// How many buckets the search after a failed insert walk may visit: depth
/// about 4 from two roots.
pub(crate) const INSERT_SEARCH_BUCKETS: usize = 512;

/// How many buckets the search that puts the victim back may visit. Larger:
/// the freed slot may be anywhere, and removes while full are rare.
pub(crate) const REINSERT_SEARCH_BUCKETS: usize = 1 << 16;

/// The residents of an item's two buckets: the first level of
/// [`place_nearby`](Table::place_nearby).
const ROOT_SLOTS: usize = 2 * SLOTS;

/// The residents of their other buckets: its second level.
const LEVEL_TWO_SLOTS: usize = ROOT_SLOTS * SLOTS;

/// A visited bucket and how it was reached.
struct Node {
    bucket: usize,
    /// Index of the node whose slot `parent_slot` holds a resident whose
    /// other bucket is `bucket`; `usize::MAX` for the two roots.
    parent: usize,
    parent_slot: u32,
}

impl<P: Pairing> Table<P> {
    /// Places `fingerprint`, whose buckets `first` and `second` are both
    /// full, by a chain of at most two moves, if one leads to a free slot:
    /// first the other buckets of the eight residents of `first` and
    /// `second`, then the other buckets of *their* residents. Returns
    /// `false`, with the table unchanged, if none of those 40 buckets has
    /// room.
    ///
    /// Why before the random walk: near capacity most buckets are full, and
    /// the walk reads the other buckets of one bucket's four residents per
    /// step, one cache miss after another, several steps per insert that
    /// needs one near capacity. Here each level's buckets are all read
    /// before any is examined, so a level costs about one miss, and the
    /// eight candidates of the first level already find room as often as
    /// two steps of the walk. Arrays of fixed size, no allocation: this runs
    /// for most inserts above 90 % load.
    ///
    /// A chain's buckets are distinct: every bucket on it is full except its
    /// free end, so the moves cannot disturb one another. (With an odd
    /// bucket count a resident's other bucket can be its own; such a
    /// candidate is full, and is skipped like any full one.)
    pub(crate) fn place_nearby(&mut self, first: usize, second: usize, fingerprint: u64) -> bool {
        let roots = [first, second];
        let root_values = [self.read(first), self.read(second)];
        let residents: [u64; ROOT_SLOTS] =
            std::array::from_fn(|s| self.lane(root_values[s / SLOTS], (s % SLOTS) as u32));
        let homes: [usize; ROOT_SLOTS] =
            std::array::from_fn(|s| self.alt(roots[s / SLOTS], residents[s]));
        let values: [u64; ROOT_SLOTS] = std::array::from_fn(|s| self.read(homes[s]));
        // Into the emptiest of the eight, not the first with room: it keeps
        // the buckets even, so fewer later inserts find both of theirs full
        // and fewer then need the walk.
        if let Some((s, start)) = self.emptiest(&values) {
            self.write(homes[s], values[s] | residents[s] << start);
            self.swap(roots[s / SLOTS], (s % SLOTS) as u32, fingerprint);
            return true;
        }
        let residents_2: [u64; LEVEL_TWO_SLOTS] =
            std::array::from_fn(|k| self.lane(values[k / SLOTS], (k % SLOTS) as u32));
        let homes_2: [usize; LEVEL_TWO_SLOTS] =
            std::array::from_fn(|k| self.alt(homes[k / SLOTS], residents_2[k]));
        let values_2: [u64; LEVEL_TWO_SLOTS] = std::array::from_fn(|k| self.read(homes_2[k]));
        for k in 0..LEVEL_TWO_SLOTS {
            if let Some(start) = self.find_lane(values_2[k], 0) {
                let s = k / SLOTS;
                self.write(homes_2[k], values_2[k] | residents_2[k] << start);
                self.swap(homes[s], (k % SLOTS) as u32, residents[s]);
                self.swap(roots[s / SLOTS], (s % SLOTS) as u32, fingerprint);
                return true;
            }
        }
        false
    }

    /// Places `fingerprint`, whose buckets are `bucket` and `alt(bucket, fp)`,
    /// by moving residents along the shortest chain to a free slot found by
    /// breadth-first search. Returns `false`, with the table unchanged, when
    /// no free slot lies within `max_buckets` buckets.
    pub(crate) fn place_by_search(
        &mut self,
        bucket: usize,
        fingerprint: u64,
        max_buckets: usize,
    ) -> bool {
        let other = self.alt(bucket, fingerprint);
        if self.try_put(bucket, fingerprint) || self.try_put(other, fingerprint) {
            return true;
        }
        let mut nodes = Vec::new();
        let mut visited = HashSet::new();
        for root in [bucket, other] {
            if visited.insert(root) {
                nodes.push(Node {
                    bucket: root,
                    parent: usize::MAX,
                    parent_slot: 0,
                });
            }
        }
        let mut next = 0;
        while next < nodes.len() {
            let here = nodes[next].bucket;
            for slot in 0..SLOTS as u32 {
                let resident = self.slot(here, slot);
                let target = self.alt(here, resident);
                // Visiting each bucket once keeps the chain's buckets
                // distinct, so its moves cannot disturb one another.
                if visited.contains(&target) {
                    continue;
                }
                if self.try_put(target, resident) {
                    self.shift_chain(&nodes, next, slot, fingerprint);
                    return true;
                }
                if nodes.len() < max_buckets {
                    visited.insert(target);
                    nodes.push(Node {
                        bucket: target,
                        parent: next,
                        parent_slot: slot,
                    });
                }
            }
            next += 1;
        }
        false
    }

    /// The resident of `slot` in `nodes[node]` has been copied to its other
    /// bucket; fill that slot from the parent, and so on up to a root, whose
    /// freed slot takes `fingerprint`.
    fn shift_chain(&mut self, nodes: &[Node], mut node: usize, mut slot: u32, fingerprint: u64) {
        loop {
            let Node {
                bucket,
                parent,
                parent_slot,
            } = nodes[node];
            if parent == usize::MAX {
                self.swap(bucket, slot, fingerprint);
                return;
            }
            let moving = self.slot(nodes[parent].bucket, parent_slot);
            self.swap(bucket, slot, moving);
            (node, slot) = (parent, parent_slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Fills tables of odd and even bucket counts through `place_nearby`
    /// (when both buckets are full) and checks after every placement that
    /// each item placed so far is in one of its two buckets, and that
    /// nothing else is in the table.
    #[test]
    fn place_nearby_keeps_every_item_in_one_of_its_buckets() {
        let mut next = crate::test_rng::seeded(0x0123_4567_89AB_CDEF);
        for (buckets, bits) in [(64, 8), (63, 8), (101, 5), (40, 16), (7, 12)] {
            let bytes = vec![0; crate::table::bytes_for(buckets, bits).unwrap()];
            let mut t = Table::from_bytes(bytes, buckets, bits);
            // Copies per (lower bucket, upper bucket, fingerprint).
            let mut items: HashMap<(usize, usize, u64), usize> = HashMap::new();
            let (mut placed, mut nearby) = (0, 0);
            for _ in 0..buckets * SLOTS * 2 {
                let first = (next() % buckets as u64) as usize;
                let fp = next() % ((1 << bits) - 1) + 1;
                let second = t.alt(first, fp);
                let ok = if t.try_put(first, fp) || t.try_put(second, fp) {
                    true
                } else {
                    let ok = t.place_nearby(first, second, fp);
                    nearby += usize::from(ok);
                    ok
                };
                if !ok {
                    continue;
                }
                placed += 1;
                *items
                    .entry((first.min(second), first.max(second), fp))
                    .or_default() += 1;
                for (&(a, b, fp), &copies) in &items {
                    let held = if a == b {
                        t.count(a, fp) as usize
                    } else {
                        (t.count(a, fp) + t.count(b, fp)) as usize
                    };
                    assert!(held >= copies, "m {buckets} f {bits}: ({a}, {b}, {fp})");
                }
                assert_eq!(t.occupied_slots(), placed, "m {buckets} f {bits}");
            }
            assert!(nearby > 0, "m {buckets} f {bits}: never moved anything");
        }
    }
}
