//! Breadth-first search for a free slot: the fallback after a failed random
//! walk, and the way a victim is put back after a remove.
//!
//! The random walk of the paper is cheap but blind: near capacity it can
//! miss free slots two moves away for 500 kicks. A breadth-first search over
//! the graph "bucket → the other buckets of its residents" finds the shortest
//! chain of moves to any free slot within a bounded number of buckets, and
//! then performs the moves from the free end back, so every fingerprint
//! always sits in one of its two buckets. It runs only when both candidate
//! buckets are full and the walk failed, or when a remove frees room while
//! the victim slot is occupied.

use std::collections::HashSet;

use crate::table::{SLOTS, Table};

/// How many buckets the search after a failed insert walk may visit: depth
/// about 4 from two roots.
pub(crate) const INSERT_SEARCH_BUCKETS: usize = 512;

/// How many buckets the search that puts the victim back may visit. Larger:
/// the freed slot may be anywhere, and removes while full are rare.
pub(crate) const REINSERT_SEARCH_BUCKETS: usize = 1 << 16;

/// A visited bucket and how it was reached.
struct Node {
    bucket: usize,
    /// Index of the node whose slot `parent_slot` holds a resident whose
    /// other bucket is `bucket`; `usize::MAX` for the two roots.
    parent: usize,
    parent_slot: u32,
}

impl Table {
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
