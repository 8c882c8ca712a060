//! An oracle-driven quickcheck harness for "no false negatives".
//!
//! The harness applies the same random [`Op`]s to a filter and to a
//! `HashMap` of multiplicities (the oracle), and after every step checks
//! that every key the oracle holds is reported present. It also checks the
//! promises around the edges:
//!
//! - an `insert` either succeeds or fails with [`Error::Full`] or
//!   [`Error::TooManyCopies`];
//! - removing a present key returns `true`;
//! - removing a key that was never inserted *and that the filter reports
//!   absent* returns `false` and leaves the serialized filter byte-identical;
//! - a round trip through bytes is accepted and re-serializes identically.
//!
//! ```ignore
//! quickcheck::quickcheck! {
//!     fn no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
//!         let harness = Harness { key: |i| i, codec: Some(Codec { to_bytes: MyFilter::to_bytes, from_bytes: MyFilter::from_bytes }) };
//!         harness.run_with_remove::<u64>(MyFilter::with_fpr(100, 0.01).unwrap(), &ops)
//!     }
//! }
//! ```

use std::borrow::Borrow;
use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;

use quickcheck::{Arbitrary, Gen};

use crate::{Error, Insert, Remove};

/// The first index of keys that the harness never inserts.
pub const ABSENT_BASE: u64 = 1 << 63;

/// One step of a random operation sequence. The `u8` picks a key from a
/// small domain, so that repeats (duplicate inserts, removes of a key
/// inserted several times) are common.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// Insert the member key with this index.
    Insert(u8),
    /// Remove one copy of a key the oracle holds (the `n % len`-th, in
    /// insertion order); skipped when the oracle is empty.
    RemovePresent(u8),
    /// Remove the never-inserted key with index `ABSENT_BASE + n`, when the
    /// filter reports it absent.
    RemoveAbsent(u8),
    /// Serialize the filter and continue with the reloaded copy.
    Reload,
}

impl Arbitrary for Op {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = u8::arbitrary(g);
        match u8::arbitrary(g) % 20 {
            0..=9 => Op::Insert(n),
            10..=14 => Op::RemovePresent(n),
            15..=17 => Op::RemoveAbsent(n),
            _ => Op::Reload,
        }
    }
}

/// A filter's serialization, as plain function pointers so that inherent
/// methods can be passed: `Codec { to_bytes: T::to_bytes, from_bytes: T::from_bytes }`.
#[derive(Debug)]
pub struct Codec<F> {
    /// Serializes the filter.
    pub to_bytes: fn(&F) -> Vec<u8>,
    /// Loads a filter.
    pub from_bytes: fn(&[u8]) -> Result<F, Error>,
}

/// How the harness makes keys and, optionally, serializes the filter.
#[derive(Debug)]
pub struct Harness<F, K> {
    /// Turns an index into a key; must be injective. Member indices are
    /// below [`ABSENT_BASE`], never-inserted ones at or above it.
    pub key: fn(u64) -> K,
    /// Serialization, for [`Op::Reload`] and the "removal changed nothing"
    /// check; `None` skips both.
    pub codec: Option<Codec<F>>,
}

impl<F, K: Hash + Eq + Clone + Debug> Harness<F, K> {
    /// Runs `ops` against `filter` for a filter without removal: remove ops
    /// are skipped.
    ///
    /// # Errors
    ///
    /// A description of the first broken promise.
    pub fn run<Q: ?Sized>(&self, filter: F, ops: &[Op]) -> Result<(), String>
    where
        F: Insert<Q>,
        K: Borrow<Q>,
    {
        self.drive(filter, ops, None)
    }

    /// Runs `ops` against `filter`, removes included.
    ///
    /// # Errors
    ///
    /// A description of the first broken promise.
    pub fn run_with_remove<Q: ?Sized>(&self, filter: F, ops: &[Op]) -> Result<(), String>
    where
        F: Remove<Q>,
        K: Borrow<Q>,
    {
        self.drive(filter, ops, Some(|f: &mut F, k: &Q| f.remove(k)))
    }

    fn drive<Q: ?Sized>(
        &self,
        mut filter: F,
        ops: &[Op],
        remove: Option<fn(&mut F, &Q) -> bool>,
    ) -> Result<(), String>
    where
        F: Insert<Q>,
        K: Borrow<Q>,
    {
        // Insertion order is kept beside the counts so that RemovePresent
        // picks deterministically.
        let mut counts: HashMap<K, usize> = HashMap::new();
        let mut order: Vec<K> = Vec::new();
        for (step, op) in ops.iter().enumerate() {
            match *op {
                Op::Insert(n) => {
                    let k = (self.key)(u64::from(n));
                    match filter.insert(k.borrow()) {
                        Ok(()) => {
                            let c = counts.entry(k.clone()).or_insert(0);
                            if *c == 0 {
                                order.push(k);
                            }
                            *c += 1;
                        }
                        Err(Error::Full | Error::TooManyCopies { .. }) => {}
                        Err(e) => return Err(format!("step {step}: insert {k:?} failed: {e}")),
                    }
                }
                Op::RemovePresent(n) => {
                    let Some(remove) = remove else { continue };
                    if order.is_empty() {
                        continue;
                    }
                    let k = order[usize::from(n) % order.len()].clone();
                    if !remove(&mut filter, k.borrow()) {
                        return Err(format!(
                            "step {step}: remove of present {k:?} returned false"
                        ));
                    }
                    let c = counts.get_mut::<K>(&k).ok_or("oracle lost a key")?;
                    *c -= 1;
                    if *c == 0 {
                        counts.remove::<K>(&k);
                        order.retain(|o| o != &k);
                    }
                }
                Op::RemoveAbsent(n) => {
                    let Some(remove) = remove else { continue };
                    let k = (self.key)(ABSENT_BASE + u64::from(n));
                    if filter.contains(k.borrow()) {
                        continue; // a false positive: removing it is documented as unsafe
                    }
                    let before = self.codec.as_ref().map(|c| (c.to_bytes)(&filter));
                    if remove(&mut filter, k.borrow()) {
                        return Err(format!("step {step}: remove of absent {k:?} returned true"));
                    }
                    let after = self.codec.as_ref().map(|c| (c.to_bytes)(&filter));
                    if before != after {
                        return Err(format!(
                            "step {step}: remove of absent {k:?} changed the filter"
                        ));
                    }
                }
                Op::Reload => {
                    let Some(codec) = &self.codec else { continue };
                    let bytes = (codec.to_bytes)(&filter);
                    filter = (codec.from_bytes)(&bytes)
                        .map_err(|e| format!("step {step}: reload failed: {e}"))?;
                    if (codec.to_bytes)(&filter) != bytes {
                        return Err(format!("step {step}: reload changed the bytes"));
                    }
                }
            }
            if let Some(missing) = counts.keys().find(|k| !filter.contains((*k).borrow())) {
                return Err(format!(
                    "step {step} ({op:?}): false negative for {missing:?}"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Filter;
    use std::collections::HashSet;

    /// An exact set: the harness must accept it.
    #[derive(Clone, Default)]
    struct Exact(HashMap<u64, usize>);

    impl Filter<u64> for Exact {
        fn contains(&self, item: &u64) -> bool {
            self.0.contains_key(item)
        }
        fn memory_bytes(&self) -> usize {
            0
        }
    }
    impl Insert<u64> for Exact {
        fn insert(&mut self, item: &u64) -> Result<(), Error> {
            *self.0.entry(*item).or_default() += 1;
            Ok(())
        }
    }
    impl Remove<u64> for Exact {
        fn remove(&mut self, item: &u64) -> bool {
            match self.0.get_mut(item) {
                Some(c) if *c > 1 => {
                    *c -= 1;
                    true
                }
                Some(_) => self.0.remove(item).is_some(),
                None => false,
            }
        }
    }

    /// A set that forgets everything on remove: the harness must catch it.
    #[derive(Default)]
    struct Forgetful(HashSet<u64>);

    impl Filter<u64> for Forgetful {
        fn contains(&self, item: &u64) -> bool {
            self.0.contains(item)
        }
        fn memory_bytes(&self) -> usize {
            0
        }
    }
    impl Insert<u64> for Forgetful {
        fn insert(&mut self, item: &u64) -> Result<(), Error> {
            self.0.insert(*item);
            Ok(())
        }
    }
    impl Remove<u64> for Forgetful {
        fn remove(&mut self, item: &u64) -> bool {
            self.0.remove(item)
        }
    }

    quickcheck::quickcheck! {
        fn exact_set_passes(ops: Vec<Op>) -> Result<(), String> {
            Harness::<Exact, u64> { key: |i| i, codec: None }.run_with_remove(Exact::default(), &ops)
        }
    }

    #[test]
    fn forgetful_set_is_caught() {
        // Insert key 1 twice, remove one copy: the oracle still holds it.
        let ops = [Op::Insert(1), Op::Insert(1), Op::RemovePresent(0)];
        let harness = Harness::<Forgetful, u64> {
            key: |i| i,
            codec: None,
        };
        let err = harness
            .run_with_remove(Forgetful::default(), &ops)
            .unwrap_err();
        assert!(err.contains("false negative for 1"), "{err}");
    }
}
