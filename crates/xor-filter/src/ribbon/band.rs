//! Construction: banding (on-the-fly Gaussian elimination) and back
//! substitution, retried with a new seed when the system has no solution.
//!
//! 1. **Sort.** The mixed hashes are ordered by the block their band
//!    starts at (a counting sort, one bucket a block), so banding meets
//!    each key when it reaches the key's first slot.
//! 2. **Band.** Each slot gets at most one equation, whose first
//!    coefficient is that slot. The table is swept once, block by block and
//!    slot by slot, with the equations that cover the current slot and have
//!    not yet found theirs (a few dozen): the first of them with a
//!    coefficient for the slot takes it and is xored into the others that
//!    have one, clearing it; two slots share a pass over the pending
//!    equations (see [`Band::sweep`]). Coefficients never leave
//!    their band, so a pending equation is two 64-bit words and its
//!    fingerprint, shifted by a block at each block boundary.
//! 3. **Solve** from the last slot down: a slot's solution bit in a column
//!    is its equation's fingerprint bit xor the parity of its other
//!    coefficients and the (already solved) bits they cover. With AVX2 and
//!    at most sixteen columns, all columns of a slot at once, one or two
//!    bytes a slot (`simd::solve_bytes`, `simd::solve_halves`), then turned
//!    into column words; otherwise column by column. A free slot
//!    gets 0: a key not in the set matches with probability 2^-columns
//!    whatever the free bits hold, because its fingerprint is independent
//!    of its coefficients.
//!
//! An equation that eliminates to all-zero coefficients is a linear
//! combination of earlier ones. If its 64-bit fingerprint also cancels, it
//! is a key given twice (for distinct keys that needs 64 more bits to
//! cancel by chance: probability 2^-64), dropped and not counted; otherwise
//! the system has no solution under this seed, and the next seed is tried.
//! Duplicates thus cost nothing: no sort, no retry.
//!
//! The first [`FIXED_ATTEMPTS`] seeds are a fixed sequence, so that builds
//! are reproducible; later ones are unpredictable (a randomly keyed `std`
//! hasher), so that keys crafted against the fixed seeds cannot fail every
//! attempt. After [`MAX_ATTEMPTS`], [`Error::ConstructionFailed`].
//!
//! # Memory at peak
//!
//! Per key: 8 bytes (the sorted mixed hashes); per slot: 16 (coefficients)
//! and 8 (fingerprint); per block: 8 (where its hashes end). With about
//! 1.05–1.1 slots per key that is about 35 bytes per key, plus the mixed
//! hashes `from_keys` holds (8) and the solution (the filter's size, and up
//! to two bytes a slot while it is solved), allocated after the sorted
//! hashes are freed. The slots' table is written once, in order, and never
//! zeroed or reset: a retry overwrites it.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use filter_core::Error;
use filter_core::memory::zeroed_vec;

use super::pending::Pending;
use super::row;
use super::shape::{BLOCK, Shape};
use super::solution::Solution;

/// How many seeds are tried before [`Error::ConstructionFailed`]. The
/// sizing in `shape.rs` makes an attempt fail for at most a few percent of
/// key sets, so reaching this bound with honest keys is beyond observation.
pub(crate) const MAX_ATTEMPTS: u32 = 64;

/// Attempts whose seeds come from the fixed sequence.
const FIXED_ATTEMPTS: u32 = 16;

/// The golden-ratio increment of the fixed seed sequence.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The seed of attempt `attempt`: 0 first (the mixed hashes as they are,
/// see `row::equation_hash`), then a fixed sequence up to
/// [`FIXED_ATTEMPTS`], then from a randomly keyed hasher made on first use.
fn seed(attempt: u32, random: &mut Option<RandomState>) -> u64 {
    if attempt == 0 {
        0
    } else if attempt < FIXED_ATTEMPTS {
        filter_core::mix64(GOLDEN.wrapping_mul(u64::from(attempt) + 1) ^ 0x5249_4242_4F4E)
    } else {
        random
            .get_or_insert_with(RandomState::new)
            .hash_one(attempt)
    }
}

/// The banding tables, reused across attempts.
struct Band {
    /// Per slot: the low and high words of its equation's coefficients
    /// (0 for a free slot) and its fingerprint. Written in slot order by
    /// the sweep, never read by it.
    rows: Vec<[u64; 3]>,
    /// The equations under way.
    pending: Pending,
}

impl Band {
    /// Empty tables for `slots` slots.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when they cannot be allocated.
    fn new(slots: usize) -> Result<Self, Error> {
        let mut rows = Vec::new();
        rows.try_reserve_exact(slots).map_err(|_| {
            Error::invalid(
                "slots",
                slots,
                "small enough that the banding table can be allocated",
            )
        })?;
        Ok(Band {
            rows,
            pending: Pending::default(),
        })
    }

    /// Bands the equations of `sorted` (ordered by start block by
    /// [`sort_by_start`], block `b`'s ending at `ends[b]`): the number of
    /// distinct keys, or `None` when the system has no solution.
    ///
    /// The sweep goes block by block, and in a block column by column: the
    /// equations starting at the block join the pending ones, and each
    /// column's pivot is the first pending equation with that coefficient,
    /// xored into the others that have it. Every equation covering a slot
    /// is pending when its column is swept, so the rows are written once,
    /// in order, and never read back, and the work of two columns is a
    /// pass of independent xors over a few dozen equations
    /// ([`Pending::eliminate_two`](super::pending::Pending::eliminate_two)), where eliminating
    /// one key at a time is a chain of dependent loads and shifts ending in
    /// a branch the CPU cannot predict. Gaussian elimination may take
    /// equations and pivots in any order: the slots that get an equation,
    /// and so the solution with 0 in every free slot, are those of any
    /// other order (the leading coefficients of an echelon basis are the
    /// leading coefficients of the equations' span), and a system has no
    /// solution in every order or in none.
    fn sweep(&mut self, sorted: &[u64], ends: &[usize], shape: Shape) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked above).
            #[allow(unsafe_code)]
            return unsafe { self.sweep_avx2(sorted, ends, shape) };
        }
        self.sweep_any(sorted, ends, shape)
    }

    /// [`Band::sweep`] compiled for AVX2, whose vectors eliminate four
    /// equations at once where the baseline build's hold two.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)]
    unsafe fn sweep_avx2(&mut self, sorted: &[u64], ends: &[usize], shape: Shape) -> Option<usize> {
        self.sweep_any(sorted, ends, shape)
    }

    /// The body of [`Band::sweep`], for any target.
    #[inline(always)]
    fn sweep_any(&mut self, sorted: &[u64], ends: &[usize], shape: Shape) -> Option<usize> {
        self.rows.clear();
        self.pending.clear();
        let mut keys = 0;
        let mut begin = 0;
        for (block, &end) in ends.iter().enumerate() {
            keys += self.block(block, &sorted[begin..end])?;
            begin = end;
        }
        // The last blocks, where no band starts.
        for block in ends.len()..shape.blocks {
            keys += self.block(block, &[])?;
        }
        self.pending.next_block()?;
        debug_assert_eq!(self.pending.len, 0);
        Some(keys)
    }

    /// Sweeps block `block`, whose bands' hashes are `new`: the
    /// number of slots that took an equation, or `None` on a conflict.
    #[inline(always)]
    fn block(&mut self, block: usize, new: &[u64]) -> Option<usize> {
        if block > 0 {
            self.pending.next_block()?;
        }
        for &h in new {
            self.pending.push(h);
        }
        let mut placed = 0;
        for column in (0..BLOCK).step_by(2) {
            let pivots = self.pending.eliminate_two(column);
            for (column, pivot) in (column..).zip(pivots) {
                self.rows.push(match pivot {
                    Some([low, high, fingerprint]) => {
                        placed += 1;
                        // The row's coefficients start at its own slot.
                        let coefficients = (u128::from(low) | u128::from(high) << 64) >> column;
                        [
                            coefficients as u64,
                            (coefficients >> 64) as u64,
                            fingerprint,
                        ]
                    }
                    None => [0; 3],
                });
            }
        }
        Some(placed)
    }
}

/// Builds the solution for the keys' mixed hashes `hashes` (duplicates
/// allowed) in `shape`.
///
/// # Errors
///
/// [`Error::InvalidParameter`] when the tables cannot be allocated;
/// [`Error::ConstructionFailed`] after [`MAX_ATTEMPTS`] failed seeds.
pub(crate) fn build(hashes: &[u64], shape: Shape) -> Result<Solution, Error> {
    let slots = shape.slots();
    let mut band = Band::new(slots)?;
    let mut sorted: Vec<u64> = zeroed_vec(hashes.len(), "number of keys")?;
    let mut ends = Vec::new();
    let mut random = None;
    for attempt in 0..MAX_ATTEMPTS {
        let seed = seed(attempt, &mut random);
        sort_by_start(hashes, seed, shape.starts(), &mut sorted, &mut ends);
        if let Some(keys) = band.sweep(&sorted, &ends, shape) {
            drop(sorted);
            let words = solve(&band, shape)?;
            return Ok(Solution::new(shape, seed, keys, words));
        }
    }
    Err(Error::ConstructionFailed {
        attempts: MAX_ATTEMPTS,
        reason: format!(
            "every seed gave an unsolvable system for {} keys in {slots} slots",
            hashes.len()
        ),
    })
}

/// Writes the equation hashes of `hashes` under `seed` into `out`, ordered
/// by start block (a counting sort); block `b`'s end at `ends[b]`.
fn sort_by_start(hashes: &[u64], seed: u64, starts: usize, out: &mut [u64], ends: &mut Vec<usize>) {
    let block = |hash: u64| row::start_block(row::equation_hash(hash, seed), starts);
    ends.clear();
    ends.resize(starts, 0);
    for &hash in hashes {
        ends[block(hash)] += 1;
    }
    // Each block's first position, then (after the scatter) its end.
    let mut at = 0;
    for e in ends.iter_mut() {
        let count = *e;
        *e = at;
        at += count;
    }
    for &hash in hashes {
        let h = row::equation_hash(hash, seed);
        let b = row::start_block(h, starts);
        out[ends[b]] = h;
        ends[b] += 1;
    }
}

/// Back substitution: the solution words of every column, from the last
/// slot down.
fn solve(band: &Band, shape: Shape) -> Result<Vec<u32>, Error> {
    // Mutated by the x86-64 paths only.
    #[allow(unused_mut)]
    let mut words: Vec<u32> = zeroed_vec(shape.words() + super::solution::PAD, "slots")?;
    #[cfg(target_arch = "x86_64")]
    let columns = shape.max_columns() as usize;
    #[cfg(target_arch = "x86_64")]
    if columns <= 8 && std::arch::is_x86_feature_detected!("avx2") {
        let mut solved: Vec<u8> = zeroed_vec(shape.slots() + super::simd::SOLVE_PAD, "slots")?;
        // SAFETY: the CPU has AVX2 (checked above); `solved` has
        // `SOLVE_PAD` bytes more than there are slots, and every block's 32
        // bytes lie in it.
        #[allow(unsafe_code)]
        unsafe {
            super::simd::solve_bytes(&band.rows, &mut solved);
            for block in 0..shape.blocks {
                let first = shape.first_word(block);
                let here = shape.columns_of(block) as usize;
                super::simd::column_words(
                    solved[block * BLOCK..].as_ptr(),
                    here,
                    &mut words[first..first + here],
                );
            }
        }
        return Ok(words);
    }
    #[cfg(target_arch = "x86_64")]
    if columns <= 16 && std::arch::is_x86_feature_detected!("avx2") {
        let mut solved: Vec<u16> = zeroed_vec(shape.slots() + super::simd::SOLVE_PAD, "slots")?;
        // SAFETY: the CPU has AVX2 (checked above); `solved` has
        // `SOLVE_PAD` slots more than there are, and every block's 32
        // slots lie in it.
        #[allow(unsafe_code)]
        unsafe {
            super::simd::solve_halves(&band.rows, &mut solved);
            for block in 0..shape.blocks {
                let first = shape.first_word(block);
                let here = shape.columns_of(block) as usize;
                super::simd::column_words_halves(
                    solved[block * BLOCK..].as_ptr(),
                    here,
                    &mut words[first..first + here],
                );
            }
        }
        return Ok(words);
    }
    solve_by_columns(band, shape, words)
}

/// Back substitution column by column, into `words` (zeroed, padded).
fn solve_by_columns(band: &Band, shape: Shape, mut words: Vec<u32>) -> Result<Vec<u32>, Error> {
    let columns = shape.max_columns() as usize;
    // `window[j]` holds the solution bits of column `j` for the 128 slots
    // from the current one up: bit `k` is slot `current + k`.
    let mut window = [0u128; super::shape::MAX_COLUMNS as usize];
    for block in (0..shape.blocks).rev() {
        for slot in (block * BLOCK..(block + 1) * BLOCK).rev() {
            let [low, high, fingerprint] = band.rows[slot];
            let coefficients = u128::from(low) | (u128::from(high) << 64);
            for (j, w) in window[..columns].iter_mut().enumerate() {
                // Bit 0 of the shifted window is the unknown itself, and 0.
                let shifted = *w << 1;
                let x = coefficients & shifted;
                let parity = (x as u64 ^ (x >> 64) as u64).count_ones() & 1;
                let bit = ((fingerprint >> j) as u32 & 1) ^ parity;
                // A free slot (no equation) takes 0.
                let bit = if coefficients == 0 { 0 } else { bit };
                *w = shifted | u128::from(bit);
            }
        }
        let first = shape.first_word(block);
        let here = shape.columns_of(block) as usize;
        // Bits 0 to 31 of the window are this block's slots.
        for (word, w) in words[first..first + here].iter_mut().zip(&window) {
            *word = *w as u32;
        }
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsolvable_system_fails_after_the_bound_instead_of_hanging() {
        // 300 keys cannot fit 128 slots under any seed.
        let hashes: Vec<u64> = (0..300).map(filter_core::mix64).collect();
        let shape = Shape::new(4, 7, 4).unwrap();
        match build(&hashes, shape) {
            Err(Error::ConstructionFailed { attempts, .. }) => assert_eq!(attempts, MAX_ATTEMPTS),
            other => panic!("{other:?}"),
        }
    }

    /// Gaussian elimination one key at a time, in the order given: each
    /// equation takes its first coefficient's slot if free, or is reduced
    /// by the equation there and moves on. The rows, and the number of
    /// distinct keys or `None` on a conflict.
    fn key_by_key(hashes: &[u64], shape: Shape) -> (Vec<[u64; 3]>, Option<usize>) {
        let mut rows = vec![[0u64; 3]; shape.slots()];
        let mut keys = 0;
        for &h in hashes {
            let mut slot = row::start_block(h, shape.starts()) * BLOCK;
            let mut coefficients = row::coefficients(h);
            let mut fingerprint = row::fingerprint(h);
            loop {
                let [low, high, resident_fingerprint] = rows[slot];
                let resident = u128::from(low) | u128::from(high) << 64;
                if resident == 0 {
                    rows[slot] = [
                        coefficients as u64,
                        (coefficients >> 64) as u64,
                        fingerprint,
                    ];
                    keys += 1;
                    break;
                }
                coefficients ^= resident;
                fingerprint ^= resident_fingerprint;
                if coefficients == 0 {
                    if fingerprint != 0 {
                        return (rows, None);
                    }
                    break;
                }
                let skip = coefficients.trailing_zeros();
                slot += skip as usize;
                coefficients >>= skip;
            }
        }
        (rows, Some(keys))
    }

    /// The sweep (both its compilations) and key-by-key elimination in the
    /// keys' own order agree: on whether the system has a solution, on the
    /// number of distinct keys, and on the solution (the rows themselves
    /// may differ). Dense shapes make some systems unsolvable; repeated
    /// keys are duplicates.
    #[test]
    fn the_sweep_solves_as_key_by_key_elimination() {
        let (mut solvable, mut unsolvable) = (0, 0);
        for set in 0..300u64 {
            let keys = [0usize, 1, 7, 100, 500, 1000, 3000][set as usize % 7];
            let mut hashes: Vec<u64> = (0..keys as u64)
                .map(|i| filter_core::mix64(i ^ (set << 40)))
                .collect();
            hashes.extend_from_within(..keys / 4);
            // 0 to 1.5 % more slots than keys: often too few.
            let slots = keys + keys * (set as usize % 4) / 200;
            let blocks = slots.div_ceil(BLOCK).max(super::super::shape::BAND_BLOCKS);
            let shape = Shape::new(blocks, 7, blocks).unwrap();
            let (rows, expected) = key_by_key(&hashes, shape);
            let mut band = Band::new(shape.slots()).unwrap();
            let mut sorted = vec![0; hashes.len()];
            let mut ends = Vec::new();
            sort_by_start(&hashes, 0, shape.starts(), &mut sorted, &mut ends);
            // The sweep as dispatched (AVX2 where the CPU has it), then
            // its body as any target compiles it: the same rows.
            let got = band.sweep(&sorted, &ends, shape);
            assert_eq!(got, expected, "set {set}");
            let dispatched = band.rows.clone();
            assert_eq!(band.sweep_any(&sorted, &ends, shape), got, "set {set}");
            assert!(band.rows == dispatched, "set {set}");
            if got.is_none() {
                unsolvable += 1;
                continue;
            }
            solvable += 1;
            assert_eq!(band.rows.len(), shape.slots());
            let zeroed = || vec![0; shape.words() + super::super::solution::PAD];
            let reference = Band {
                rows,
                pending: Pending::default(),
            };
            assert_eq!(
                solve_by_columns(&band, shape, zeroed()).unwrap(),
                solve_by_columns(&reference, shape, zeroed()).unwrap(),
                "set {set}"
            );
        }
        assert!(
            solvable > 200 && unsolvable >= 10,
            "{solvable} {unsolvable}"
        );
    }

    /// Back substitution a byte a slot (AVX2) and column by column give
    /// the same words.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn both_back_substitutions_agree() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let hashes: Vec<u64> = (0..3000).map(filter_core::mix64).collect();
        for fpr in [0.5, 0.1, 0.01, 0.005, 0.001, 1e-4, 2e-5] {
            let shape = Shape::for_keys(hashes.len(), fpr).unwrap();
            let mut band = Band::new(shape.slots()).unwrap();
            let mut sorted = vec![0; hashes.len()];
            let mut ends = Vec::new();
            sort_by_start(&hashes, 0, shape.starts(), &mut sorted, &mut ends);
            assert!(band.sweep(&sorted, &ends, shape).is_some());
            let zeroed = vec![0; shape.words() + super::super::solution::PAD];
            assert_eq!(
                solve(&band, shape).unwrap(),
                solve_by_columns(&band, shape, zeroed).unwrap(),
                "{fpr}"
            );
        }
    }

    #[test]
    fn failed_seeds_are_retried() {
        // 1000 keys at 1.024 slots per key fail some first attempts; every
        // build still succeeds.
        let mut retried = 0;
        for set in 0..60u64 {
            let hashes: Vec<u64> = (0..1000)
                .map(|i| filter_core::mix64(i ^ (set << 32)))
                .collect();
            let shape = Shape::new(32, 7, 32).unwrap();
            let solution = build(&hashes, shape).unwrap();
            retried += usize::from(solution.seed != 0);
            assert_eq!(solution.keys, 1000);
        }
        assert!(retried > 0, "no set needed a second seed");
    }

    /// The fraction of key sets for which one attempt succeeds, with `slack`
    /// slots per key over 1, for `keys` keys: the measurements behind the
    /// sizing in `shape.rs`. Run with
    /// `cargo test -p xor-filter --release --lib -- --ignored --nocapture success_rates`.
    #[test]
    #[ignore = "a measurement, minutes in release mode"]
    fn success_rates() {
        for keys in [100usize, 1000, 10_000, 100_000, 1_000_000] {
            let trials = (20_000_000 / keys).clamp(20, 400);
            for slack in [0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08] {
                let slots = (keys as f64 * (1.0 + slack)).ceil() as usize;
                let blocks = slots.div_ceil(BLOCK).max(crate::ribbon::shape::BAND_BLOCKS);
                let shape = Shape::new(blocks, 8, blocks).unwrap();
                let mut band = Band::new(shape.slots()).unwrap();
                let (mut sorted, mut ends) = (vec![0; keys], Vec::new());
                let mut ok = 0;
                for trial in 0..trials {
                    let hashes: Vec<u64> = (0..keys as u64)
                        .map(|i| filter_core::mix64(i ^ ((trial as u64) << 40)))
                        .collect();
                    sort_by_start(&hashes, 1, shape.starts(), &mut sorted, &mut ends);
                    if band.sweep(&sorted, &ends, shape).is_some() {
                        ok += 1;
                    }
                }
                println!(
                    "keys {keys:>8} slack {slack:.3} slots/key {:.4} success {:.3} ({trials} trials)",
                    shape.slots() as f64 / keys as f64,
                    ok as f64 / trials as f64
                );
            }
        }
    }
}
