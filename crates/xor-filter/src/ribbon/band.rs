//! Construction: banding (on-the-fly Gaussian elimination) and back
//! substitution, retried with a new seed when the system has no solution.
//!
//! 1. **Sort.** The mixed hashes are bucketed by their top bits (one
//!    counting-sort pass), which orders keys by the start of their band,
//!    so banding sweeps its tables instead of missing the cache per key.
//! 2. **Band.** Each slot holds at most one equation, whose first
//!    coefficient is that slot. A key's equation goes to its start slot; if
//!    taken, the resident equation is xored into it (clearing its first
//!    coefficient), and it moves on to its new first coefficient, until it
//!    finds a free slot. Its coefficients never leave its band, so every
//!    step is a 128-bit xor, a count of trailing zeros and a shift. The
//!    keys of one block all start at its first slot, so each walks past
//!    the equations of the keys before it; two keys are eliminated at once
//!    (see [`Band::add_all`]).
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
//! and 8 (fingerprint). With about 1.05–1.1 slots per key that is about 34
//! bytes per key, plus the mixed hashes `from_keys` holds (8) and the
//! solution (the filter's size, and up to two bytes a slot while it is
//! solved),
//! allocated after the sorted hashes are freed.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use filter_core::Error;
use filter_core::memory::zeroed_vec;

use super::row;
use super::shape::{BAND, BLOCK, Shape};
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
    /// (0 for a free slot) and its fingerprint, side by side so that a step
    /// of elimination reads one place.
    rows: Vec<[u64; 3]>,
}

/// What adding one equation did.
enum Added {
    /// It took a free slot.
    New,
    /// It was a combination of earlier ones with the same fingerprint: a
    /// key given twice.
    Duplicate,
    /// It contradicts earlier ones: no solution under this seed.
    Conflict,
}

/// An equation on its way down the band: the slot of its first
/// coefficient, its coefficients from that slot on, and its fingerprint.
#[derive(Clone, Copy)]
struct Equation {
    slot: usize,
    coefficients: u128,
    fingerprint: u64,
}

impl Equation {
    /// The equation of the key of equation hash `h`.
    #[inline(always)]
    fn of(h: u64, starts: usize) -> Self {
        Equation {
            slot: row::start_block(h, starts) * BLOCK,
            coefficients: row::coefficients(h),
            fingerprint: row::fingerprint(h),
        }
    }
}

/// What one elimination step did.
enum Step {
    /// The equation moved on to a later slot.
    Moved,
    /// The equation is done with.
    Done(Added),
}

impl Band {
    /// Adds the equations of the mixed hashes `sorted`: the number of
    /// distinct keys, or `None` on a conflict.
    ///
    /// Two equations are eliminated at once, one from each half of
    /// `sorted`, a step of each in turn: each step waits on the last (a
    /// load, an xor, a count of zeros and a shift), so two independent
    /// chains keep the CPU busy where one leaves it waiting. Gaussian
    /// elimination may take the equations in any order, so the solution is
    /// as valid as one built key by key (and, the order being fixed, the
    /// same on every run).
    fn add_all(&mut self, sorted: &[u64], starts: usize) -> Option<usize> {
        // 1 for a new key, 0 for a duplicate, `None` for a conflict.
        let tally = |added: Added| match added {
            Added::New => Some(1),
            Added::Duplicate => Some(0),
            Added::Conflict => None,
        };
        let mut keys = 0;
        let (first, second) = sorted.split_at(sorted.len() / 2);
        let (mut first, mut second) = (first.iter(), second.iter());
        // The equation under way when one half runs out.
        let mut pending = None;
        match (first.next(), second.next()) {
            (Some(&a), Some(&b)) => {
                let mut a = Equation::of(a, starts);
                let mut b = Equation::of(b, starts);
                loop {
                    if let Step::Done(added) = self.step(&mut a) {
                        keys += tally(added)?;
                        match first.next() {
                            Some(&h) => a = Equation::of(h, starts),
                            None => {
                                pending = Some(b);
                                break;
                            }
                        }
                    }
                    if let Step::Done(added) = self.step(&mut b) {
                        keys += tally(added)?;
                        match second.next() {
                            Some(&h) => b = Equation::of(h, starts),
                            None => {
                                pending = Some(a);
                                break;
                            }
                        }
                    }
                }
            }
            (Some(&h), None) | (None, Some(&h)) => pending = Some(Equation::of(h, starts)),
            (None, None) => {}
        }
        let rest = first.chain(second).map(|&h| Equation::of(h, starts));
        for mut e in pending.into_iter().chain(rest) {
            loop {
                if let Step::Done(added) = self.step(&mut e) {
                    keys += tally(added)?;
                    break;
                }
            }
        }
        Some(keys)
    }

    /// One elimination step of `e`: it takes its slot if free, or is
    /// reduced by the slot's equation and moves on to its next coefficient.
    #[inline(always)]
    fn step(&mut self, e: &mut Equation) -> Step {
        let row = &mut self.rows[e.slot];
        let resident = u128::from(row[0]) | (u128::from(row[1]) << 64);
        if resident == 0 {
            *row = [
                e.coefficients as u64,
                (e.coefficients >> 64) as u64,
                e.fingerprint,
            ];
            return Step::Done(Added::New);
        }
        e.coefficients ^= resident;
        e.fingerprint ^= row[2];
        // 128 when no coefficient is left.
        let skip = e.coefficients.trailing_zeros();
        if skip == u128::BITS {
            return Step::Done(if e.fingerprint == 0 {
                Added::Duplicate
            } else {
                Added::Conflict
            });
        }
        e.slot += skip as usize;
        e.coefficients >>= skip;
        Step::Moved
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
    let starts = shape.starts();
    let mut band = Band {
        rows: zeroed_vec(slots, "slots")?,
    };
    let mut sorted: Vec<u64> = zeroed_vec(hashes.len(), "number of keys")?;
    let mut random = None;
    for attempt in 0..MAX_ATTEMPTS {
        let seed = seed(attempt, &mut random);
        if attempt > 0 {
            band.rows.fill([0; 3]);
        }
        sort_by_start(hashes, seed, &mut sorted);
        let banded = band.add_all(&sorted, starts);
        if let Some(keys) = banded {
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

/// Writes the equation hashes of `hashes` under `seed` into `out`, ordered by
/// their top bits (so by band start, roughly a block at a time).
fn sort_by_start(hashes: &[u64], seed: u64, out: &mut [u64]) {
    let n = hashes.len();
    if n == 0 {
        return;
    }
    // About one bucket per 128 keys, at most 2^16 buckets.
    let bits = (usize::BITS - (n / BAND).leading_zeros()).min(16);
    let shift = 64 - bits;
    let bucket = |h: u64| if bits == 0 { 0 } else { (h >> shift) as usize };
    let mut offsets = vec![0usize; (1 << bits) + 1];
    for &hash in hashes {
        offsets[bucket(row::equation_hash(hash, seed)) + 1] += 1;
    }
    for i in 1..offsets.len() {
        offsets[i] += offsets[i - 1];
    }
    for &hash in hashes {
        let h = row::equation_hash(hash, seed);
        let b = bucket(h);
        out[offsets[b]] = h;
        offsets[b] += 1;
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
            let mut band = Band {
                rows: vec![[0; 3]; shape.slots()],
            };
            let mut sorted = vec![0; hashes.len()];
            sort_by_start(&hashes, 0, &mut sorted);
            assert!(band.add_all(&sorted, shape.starts()).is_some());
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
                let mut band = Band {
                    rows: vec![[0; 3]; shape.slots()],
                };
                let mut ok = 0;
                for trial in 0..trials {
                    let hashes: Vec<u64> = (0..keys as u64)
                        .map(|i| filter_core::mix64(i ^ ((trial as u64) << 40)))
                        .collect();
                    let mut sorted = vec![0; keys];
                    sort_by_start(&hashes, 1, &mut sorted);
                    band.rows.fill([0; 3]);
                    if band.add_all(&sorted, shape.starts()).is_some() {
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
