//! Operation-sequence shapers shared by the two oracle test files.

use filter_core::testing::oracle::Op;

/// Folds member keys into a domain of four, so that each key is inserted
/// many times: sequences of a few hundred ops push keys past 15 copies and
/// exercise saturated counters.
pub(crate) fn few_keys(ops: &[Op]) -> Vec<Op> {
    ops.iter()
        .map(|op| match *op {
            Op::Insert(n) => Op::Insert(n % 4),
            other => other,
        })
        .collect()
}

/// Makes a sequence at least `len` ops long by repeating it, so that heavy
/// repeats happen even when quickcheck generates a short sequence.
pub(crate) fn stretched(ops: &[Op], len: usize) -> Vec<Op> {
    if ops.is_empty() {
        return Vec::new();
    }
    ops.iter()
        .copied()
        .cycle()
        .take(len.max(ops.len()))
        .collect()
}
