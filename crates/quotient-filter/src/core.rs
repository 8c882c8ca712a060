//! The filter on 64-bit mixed hashes: fingerprints, counts, growth and
//! merge, with no hasher and no traits.
//!
//! # Quotient and remainder from any number of slots
//!
//! A hash m is mapped to a fingerprint F = ⌊m · S / 2^64⌋ in `0..S`, where
//! S = Q · 2^r is the filter's *fingerprint space* (Q quotients, r remainder
//! bits); the quotient is F >> r and the remainder the r bits below it.
//! That is multiply-shift range reduction onto `0..Q`, with the remainder
//! taken from the bits of the product just below the quotient, so Q need
//! not be a power of two. Doubling the table doubles Q and takes one bit
//! from r: S, and so every stored F, is unchanged, and the new quotient and
//! remainder of a stored entry are read from its old ones. Two filters of
//! one space hold fingerprints of one kind, whatever their sizes, and merge
//! by a sorted walk of both. The rate is about n / S (the chance that a
//! new key's F equals one of n stored), so each doubling doubles the rate
//! at which the filter is full again; the growable mode reserves a bit of
//! remainder per planned doubling.
//!
//! # Which filters merge
//!
//! Exactly those of one fingerprint space S: built with the same
//! `expected_items`, `fpr` and planned doublings (so the same Q and r),
//! then grown any number of times. Sizing takes Q from the number of keys
//! with no rounding to a power of two, so filters built for different
//! numbers of keys have unrelated Q, and a key's fingerprints in the two
//! spaces, ⌊m · S₁ / 2^64⌋ and ⌊m · S₂ / 2^64⌋, are not functions of each
//! other: no table can hold both filters' entries without losing keys.
//! Where one space is the other times 2^k (the same n at rates 2^k apart,
//! or with k more planned doublings) the finer fingerprints do determine
//! the coarser ones (drop their k low bits), but the sum would then answer
//! at the coarser filter's rate, not at the rate the finer one was built
//! for; such merges are refused like any other change of rate, and the
//! error names both spaces.

#![allow(unsafe_code)]

use filter_core::Error;

use crate::counter::{self, decode, encode};
use crate::table::Table;

/// The most a filter fills its quotients before `insert` reports `Full`:
/// 95 %, as the rank-and-select quotient filter's authors measured it
/// to work at.
pub(crate) const MAX_LOAD_NUM: usize = 19;
/// Denominator of the maximum load.
pub(crate) const MAX_LOAD_DEN: usize = 20;
/// Remainder bits below which counters cannot be encoded (base 2^r − 1
/// needs r ≥ 2) and a table no longer doubles.
pub(crate) const MIN_REMAINDER_BITS: u32 = 2;
/// Remainder bits at most: 57 keeps a fingerprint space of 64 or more
/// quotients inside 64 bits of hash.
pub(crate) const MAX_REMAINDER_BITS: u32 = 57;
/// Spare slots past the last quotient for runs that spill over it: far
/// beyond the queue a load of 95 % builds (its tail falls by e^−0.1 a
/// slot), and never more than the quotients.
const SPILL_SLOTS: usize = 192;

/// The slots an entry of `count` copies and `slots` slots is charged.
#[inline(always)]
fn cost(count: u64, slots: usize) -> usize {
    usize::try_from(count).map_or(slots, |c| c.min(slots))
}

/// Sorted fingerprints as entries: each distinct one with how many times
/// it occurs.
fn grouped(sorted: &[u64]) -> impl Iterator<Item = (u64, u64)> + '_ {
    sorted
        .chunk_by(|a, b| a == b)
        .map(|run| (run[0], run.len() as u64))
}

/// Q and r: the shape of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Quotients (home slots).
    pub(crate) quotients: usize,
    /// Remainder bits.
    pub(crate) remainder_bits: u32,
}

impl Shape {
    /// The fingerprint space Q · 2^r, or `None` when it is 2^64 or more.
    pub(crate) fn space(&self) -> Option<u64> {
        if self.remainder_bits > MAX_REMAINDER_BITS {
            return None;
        }
        u64::try_from((self.quotients as u128) << self.remainder_bits).ok()
    }

    /// Blocks of 64 slots, spill-over slots included.
    pub(crate) fn blocks(&self) -> Option<usize> {
        let slots = self
            .quotients
            .checked_add(self.quotients.min(SPILL_SLOTS))?;
        Some(slots.div_ceil(64))
    }

    /// Slots that may be used before `Full`.
    pub(crate) fn max_used(&self) -> usize {
        (self.quotients as u128 * MAX_LOAD_NUM as u128 / MAX_LOAD_DEN as u128) as usize
    }

    /// The shape with twice the quotients and one remainder bit fewer.
    pub(crate) fn doubled(&self) -> Option<Shape> {
        (self.remainder_bits > MIN_REMAINDER_BITS).then_some(())?;
        Some(Shape {
            quotients: self.quotients.checked_mul(2)?,
            remainder_bits: self.remainder_bits - 1,
        })
    }
}

/// A quotient filter on mixed hashes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Core {
    table: Table,
    shape: Shape,
    space: u64,
    max_used: usize,
    /// Copies held: inserts minus removes.
    len: u64,
    /// The slots the maximum load is checked against: for each entry, its
    /// slots or its count, whichever is fewer. An entry never costs more
    /// than its copies, so `expected_items` inserts always fit, even where
    /// an encoding takes a slot more than its count (remainder 0 counted
    /// 3 or 4 times).
    charged: usize,
    /// Entries whose count is encoded as a counter (3 copies or more).
    /// While there are none, every run's slots are plain remainders in
    /// non-decreasing order, and a lookup needs no check for counters.
    counters: usize,
}

/// Why an insert fails: the slots it needs would pass the maximum load or
/// the table's end, or the count would pass `u64::MAX` ([`Error::Full`]
/// at the surface). A unit, so that the insert path returns one byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Full;

impl From<Full> for Error {
    fn from(_: Full) -> Self {
        Error::Full
    }
}

/// The result of looking for a remainder in a run.
enum Found {
    /// The entry at this slot, with its count and length in slots.
    Entry(usize, u64, usize),
    /// Absent; a new entry would go at this slot.
    Absent(usize),
}

impl Core {
    /// An empty filter of this shape.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming `parameter` when the shape's space
    /// or table is too large.
    pub(crate) fn new(shape: Shape, parameter: &'static str) -> Result<Self, Error> {
        let too_large = || {
            Error::invalid(
                parameter,
                shape.quotients,
                format_args!(
                    "small enough that {} quotients times 2^{} remainders fit in 64 bits",
                    shape.quotients, shape.remainder_bits
                ),
            )
        };
        let space = shape.space().ok_or_else(too_large)?;
        let blocks = shape.blocks().ok_or_else(too_large)?;
        Ok(Core {
            table: Table::new(shape.remainder_bits, blocks, parameter)?,
            shape,
            space,
            max_used: shape.max_used(),
            len: 0,
            charged: 0,
            counters: 0,
        })
    }

    /// The shape.
    pub(crate) fn shape(&self) -> Shape {
        self.shape
    }

    /// Q · 2^r.
    pub(crate) fn space(&self) -> u64 {
        self.space
    }

    /// Copies held.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Slots in use.
    pub(crate) fn used(&self) -> usize {
        self.table.used()
    }

    /// Bytes of the table.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.table.memory_bytes()
    }

    /// The table, for serialization.
    pub(crate) fn table(&self) -> &Table {
        &self.table
    }

    /// The fingerprint of mixed hash `m`.
    #[inline(always)]
    pub(crate) fn fingerprint(&self, m: u64) -> u64 {
        ((u128::from(m) * u128::from(self.space)) >> 64) as u64
    }

    /// Quotient and remainder of fingerprint `f`.
    #[inline(always)]
    fn split(&self, f: u64) -> (usize, u64) {
        let r = self.shape.remainder_bits;
        ((f >> r) as usize, f & ((1 << r) - 1))
    }

    /// The index of the first table word a lookup of mixed hash `m` reads.
    #[inline]
    pub(crate) fn block_word(&self, m: u64) -> usize {
        self.table.block_word(self.split(self.fingerprint(m)).0)
    }

    /// Finds remainder `x` in the run `start..=end`, decoding every entry
    /// up to its place.
    #[inline]
    fn find(&self, x: u64, start: usize, end: usize) -> Found {
        let r = self.shape.remainder_bits;
        let mut at = start;
        while at <= end {
            let Some((rx, count, len)) = decode(at, end, r, |p| self.table.get(p)) else {
                break;
            };
            if rx == x {
                return Found::Entry(at, count, len);
            }
            if rx > x {
                return Found::Absent(at);
            }
            at += len;
        }
        Found::Absent(at)
    }

    /// The body of [`count`](Self::count).
    #[inline(always)]
    fn count_impl<const BMI2: bool>(&self, m: u64) -> u64 {
        let (q, x) = self.split(self.fingerprint(m));
        match self.table.lookup::<BMI2>(q, x, self.counters != 0) {
            // "x" or "x x": as many slots as copies.
            Some(n @ 0..=2) => u64::from(n),
            // Remainder 0 counted 3 times ("0 0 0 0"), a counter, or a run
            // away from home.
            _ => self.count_slow::<BMI2>(q, x),
        }
    }

    /// The body of [`contains`](Self::contains).
    #[inline(always)]
    fn contains_impl<const BMI2: bool>(&self, m: u64) -> bool {
        let (q, x) = self.split(self.fingerprint(m));
        // The run usually ends near q: its remainder's line loads while the
        // metadata's does, not after.
        self.table.prefetch_slot(q);
        match self.table.lookup::<BMI2>(q, x, self.counters != 0) {
            Some(n) => n != 0,
            None => self.contains_slow::<BMI2>(q, x),
        }
    }

    /// The slots `start..=end` of the run of occupied quotient `q`.
    #[inline(always)]
    fn run_of<const BMI2: bool>(&self, q: usize) -> (usize, usize) {
        match self.table.run_near::<BMI2>(q) {
            Some(run) => run,
            None => self.table.run_far(q),
        }
    }

    /// The count of remainder `x` under quotient `q`, by the general path.
    #[inline(never)]
    fn count_slow<const BMI2: bool>(&self, q: usize, x: u64) -> u64 {
        if !self.table.is_occupied(q) {
            return 0;
        }
        let (start, end) = self.run_of::<BMI2>(q);
        match self.find(x, start, end) {
            Found::Entry(_, count, _) => count,
            Found::Absent(_) => 0,
        }
    }

    /// Whether remainder `x` has an entry under quotient `q`, by the
    /// general path.
    #[inline(never)]
    fn contains_slow<const BMI2: bool>(&self, q: usize, x: u64) -> bool {
        if !self.table.is_occupied(q) {
            return false;
        }
        let (start, end) = self.run_of::<BMI2>(q);
        matches!(self.find(x, start, end), Found::Entry(..))
    }

    /// Checks that `charge` more charged slots fit under the maximum load,
    /// and, when `k`, the slots to be inserted, is
    /// more than one, that the table has them after `pos` (one slot is
    /// checked by the insert itself, which changes nothing when it fails).
    fn room(&self, pos: usize, k: usize, charge: usize) -> Result<(), Full> {
        if self.charged + charge > self.max_used || (k > 1 && !self.table.has_room(pos, k)) {
            return Err(Full);
        }
        Ok(())
    }

    /// The body of [`insert_fingerprint`](Self::insert_fingerprint).
    #[inline(always)]
    fn insert_impl<const BMI2: bool>(&mut self, f: u64, copies: u64) -> Result<(), Full> {
        let (q, x) = self.split(f);
        self.table.prefetch_slot(q);
        let r = self.shape.remainder_bits;
        let len = self.len.checked_add(copies).ok_or(Full)?;
        if !self.table.is_occupied(q) {
            if copies == 1 {
                self.room(q, 1, 1)?;
                self.table.start_run(q, x).ok_or(Full)?;
                self.len = len;
                self.charged += 1;
                return Ok(());
            }
            let enc = encode(x, copies, r);
            let charge = cost(copies, enc.len());
            self.room(self.table.next_free(q), enc.len(), charge)?;
            let start = self.table.start_run(q, x).ok_or(Full)?;
            for i in 1..enc.len() {
                self.table.insert_into_run(q, start + i, start + i - 1, 0);
            }
            self.write(start, &enc);
            self.len = len;
            self.charged += charge;
            self.counters += usize::from(copies >= 3);
            return Ok(());
        }
        let (start, end) = self.run_of::<BMI2>(q);
        let (at, old_count, old_len) = match self.find(x, start, end) {
            Found::Entry(at, count, len) => (at, count, len),
            Found::Absent(at) => (at, 0, 0),
        };
        let new_count = old_count.checked_add(copies).ok_or(Full)?;
        if copies == 1 && new_count <= 2 {
            // "x" or "x x": one more slot holding x, no counter to encode.
            self.room(at, 1, 1)?;
            if !self.table.insert_into_run(q, at + old_len, end, x) {
                return Err(Full);
            }
            self.len = len;
            self.charged += 1;
            return Ok(());
        }
        let enc = encode(x, new_count, r);
        let grow = enc.len() - old_len;
        let (old_cost, new_cost) = (cost(old_count, old_len), cost(new_count, enc.len()));
        self.room(at + old_len, grow, new_cost.saturating_sub(old_cost))?;
        for i in 0..grow {
            if !self.table.insert_into_run(q, at + old_len + i, end + i, 0) {
                // Only the first of several can fail, and `room` checked
                // those.
                return Err(Full);
            }
        }
        self.write(at, &enc);
        self.len = len;
        self.charged = self.charged - old_cost + new_cost;
        self.counters = self.counters + usize::from(new_count >= 3) - usize::from(old_count >= 3);
        Ok(())
    }

    fn write(&mut self, at: usize, enc: &counter::Encoded) {
        for (i, &v) in enc.as_slice().iter().enumerate() {
            self.table.set(at + i, v);
        }
    }

    /// Adds one copy of the fingerprint of mixed hash `m`.
    ///
    /// # Errors
    ///
    /// As [`insert_fingerprint`](Self::insert_fingerprint).
    #[inline]
    pub(crate) fn insert(&mut self, m: u64) -> Result<(), Full> {
        self.insert_fingerprint(self.fingerprint(m), 1)
    }

    /// The body of [`remove`](Self::remove).
    #[inline(always)]
    fn remove_impl<const BMI2: bool>(&mut self, m: u64) -> bool {
        let (q, x) = self.split(self.fingerprint(m));
        self.table.prefetch_slot(q);
        if !self.table.is_occupied(q) {
            return false;
        }
        let (start, end) = self.run_of::<BMI2>(q);
        let Found::Entry(at, count, old_len) = self.find(x, start, end) else {
            return false;
        };
        if count <= 2 {
            // "x" or "x x": drop the last slot of the entry.
            self.table.remove_from_run(q, at + old_len - 1, start, end);
            self.charged -= 1;
        } else {
            let enc = encode(x, count - 1, self.shape.remainder_bits);
            let shrink = old_len - enc.len();
            for i in 0..shrink {
                self.table
                    .remove_from_run(q, at + enc.len(), start, end - i);
            }
            self.write(at, &enc);
            self.charged = self.charged - cost(count, old_len) + cost(count - 1, enc.len());
            self.counters -= usize::from(count == 3);
        }
        self.len -= 1;
        true
    }

    /// Copies of the fingerprint of mixed hash `m` held.
    #[inline]
    pub(crate) fn count(&self, m: u64) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if self.table.has_bmi2() {
            // SAFETY: the table found BMI2, BMI1, POPCNT and LZCNT on this CPU.
            return unsafe { self.count_x86(m) };
        }
        self.count_impl::<false>(m)
    }

    /// Whether a copy of the fingerprint of mixed hash `m` is held.
    #[inline]
    pub(crate) fn contains(&self, m: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.table.has_bmi2() {
            // SAFETY: the table found BMI2, BMI1, POPCNT and LZCNT on this CPU.
            return unsafe { self.contains_x86(m) };
        }
        self.contains_impl::<false>(m)
    }

    /// Adds `copies` (≥ 1) copies of fingerprint `f`.
    ///
    /// # Errors
    ///
    /// [`Full`] when the slots it needs would pass the maximum load or the
    /// table's end, or the count would pass `u64::MAX`; nothing is changed
    /// then.
    #[inline]
    pub(crate) fn insert_fingerprint(&mut self, f: u64, copies: u64) -> Result<(), Full> {
        #[cfg(target_arch = "x86_64")]
        if self.table.has_bmi2() {
            // SAFETY: the table found BMI2, BMI1, POPCNT and LZCNT on this CPU.
            return unsafe { self.insert_x86(f, copies) };
        }
        self.insert_impl::<false>(f, copies)
    }

    /// Removes one copy of the fingerprint of mixed hash `m`; `false` when
    /// none is held (nothing changes then).
    #[inline]
    pub(crate) fn remove(&mut self, m: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.table.has_bmi2() {
            // SAFETY: the table found BMI2, BMI1, POPCNT and LZCNT on this CPU.
            return unsafe { self.remove_x86(m) };
        }
        self.remove_impl::<false>(m)
    }

    // The operations compiled for the bit instructions of x86-64-v3, so
    // that rank (popcount), select (pdep) and the scans (tzcnt, lzcnt)
    // inlined into them are single instructions; a default x86-64 build
    // may use none of them. Same code, same answers.

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
    unsafe fn count_x86(&self, m: u64) -> u64 {
        self.count_impl::<true>(m)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
    unsafe fn contains_x86(&self, m: u64) -> bool {
        self.contains_impl::<true>(m)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
    unsafe fn insert_x86(&mut self, f: u64, copies: u64) -> Result<(), Full> {
        self.insert_impl::<true>(f, copies)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
    unsafe fn remove_x86(&mut self, m: u64) -> bool {
        self.remove_impl::<true>(m)
    }

    /// Every entry, as (fingerprint, count), in increasing fingerprint
    /// order; `None` at the first run that does not decode.
    pub(crate) fn entries(&self) -> Option<Vec<(u64, u64)>> {
        let r = self.shape.remainder_bits;
        let mut out = Vec::new();
        let ok = self.table.for_each_run(|q, start, end| {
            let mut at = start;
            while at <= end {
                let Some((x, count, len)) = decode(at, end, r, |p| self.table.get(p)) else {
                    return false;
                };
                out.push(((q as u64) << r | x, count));
                at += len;
            }
            true
        });
        ok.then_some(out)
    }

    /// A filter of `shape` holding `entries` (increasing, distinct
    /// fingerprints of `shape`'s space, counts ≥ 1).
    ///
    /// # Errors
    ///
    /// [`Error::Full`] when they need more than the shape's maximum load or
    /// run past its table; [`Error::InvalidParameter`] when the table
    /// cannot be allocated.
    pub(crate) fn build(
        shape: Shape,
        entries: impl IntoIterator<Item = (u64, u64)>,
        parameter: &'static str,
    ) -> Result<Self, Error> {
        let mut core = Core::new(shape, parameter)?;
        let r = shape.remainder_bits;
        let slots = core.table.slots();
        let mut cursor = 0;
        let mut current: Option<usize> = None;
        let mut len: u64 = 0;
        for (f, count) in entries {
            let (q, x) = core.split(f);
            if current != Some(q) {
                if current.is_some() {
                    core.table.build_slot_end(cursor - 1);
                }
                cursor = cursor.max(q);
                core.table.build_occupied(q);
                current = Some(q);
            }
            // "x" or "x x", as most entries are, without `encode`, which
            // makes and copies room for the longest counter.
            let plain = [x, x];
            let enc;
            let values = if count <= 2 {
                &plain[..count as usize]
            } else {
                enc = encode(x, count, r);
                enc.as_slice()
            };
            core.charged += cost(count, values.len());
            core.counters += usize::from(count >= 3);
            if cursor + values.len() > slots || core.charged > core.max_used {
                return Err(Error::Full);
            }
            for &v in values {
                core.table.build_slot(cursor, v);
                cursor += 1;
            }
            len = len.checked_add(count).ok_or(Error::Full)?;
        }
        if current.is_some() {
            core.table.build_slot_end(cursor - 1);
        }
        core.table.finish_build();
        core.len = len;
        Ok(core)
    }

    /// This filter's entries in a table of the doubled shape.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming `parameter` when the remainder has
    /// no bit left to give or the larger table cannot be allocated.
    pub(crate) fn doubled(&self, parameter: &'static str) -> Result<Self, Error> {
        let shape = self.shape.doubled().ok_or_else(|| {
            Error::invalid(
                parameter,
                self.shape.quotients,
                format_args!(
                    "a filter whose remainders have a bit to give: {} bits left, at least {} are kept",
                    self.shape.remainder_bits, MIN_REMAINDER_BITS
                ),
            )
        })?;
        let entries = self.entries().unwrap_or_default();
        Core::build(shape, entries, parameter)
    }

    /// The multiset sum of `self` and `other` (same space) in a table of
    /// `shape` (the larger of the two, or larger still).
    ///
    /// # Errors
    ///
    /// As [`build_sum`](Self::build_sum).
    pub(crate) fn merged(
        &self,
        other: &Core,
        shape: Shape,
        parameter: &'static str,
    ) -> Result<Self, Error> {
        let (a, b) = (self.entries(), other.entries());
        Core::build_sum(
            shape,
            a.unwrap_or_default(),
            b.unwrap_or_default(),
            parameter,
        )
    }

    /// This filter's entries plus one copy of each of `fingerprints`
    /// (sorted, of this filter's space) in a table of `shape` (this
    /// filter's, or a doubling of it).
    ///
    /// # Errors
    ///
    /// As [`build_sum`](Self::build_sum).
    pub(crate) fn with_sorted(
        &self,
        fingerprints: &[u64],
        shape: Shape,
        parameter: &'static str,
    ) -> Result<Self, Error> {
        let entries = self.entries().unwrap_or_default();
        Core::build_sum(shape, entries, grouped(fingerprints), parameter)
    }

    /// This filter's entries less one copy of each of `fingerprints`
    /// (sorted, of this filter's space; those it does not hold are
    /// skipped), in a table of its shape, and how many copies that took:
    /// one sorted walk of both, fed straight to [`build`](Self::build).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming `parameter` when the table cannot
    /// be allocated (what remains always fits).
    pub(crate) fn without_sorted(
        &self,
        fingerprints: &[u64],
        parameter: &'static str,
    ) -> Result<(Self, u64), Error> {
        let mut asked = grouped(fingerprints).peekable();
        let mut removed = 0;
        let kept = self
            .entries()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(f, count)| {
                while asked.next_if(|&(g, _)| g < f).is_some() {}
                let taken = asked
                    .next_if(|&(g, _)| g == f)
                    .map_or(0, |(_, n)| n.min(count));
                removed += taken;
                (count > taken).then_some((f, count - taken))
            });
        let core = Core::build(self.shape, kept, parameter)?;
        Ok((core, removed))
    }

    /// A table of `shape` holding the multiset sum of `a` and `b` (entries
    /// in increasing fingerprint order, of `shape`'s space): one sorted walk
    /// of both, fed straight to [`build`](Self::build).
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build); [`Error::Full`] also when a count would
    /// pass `u64::MAX`.
    fn build_sum(
        shape: Shape,
        a: impl IntoIterator<Item = (u64, u64)>,
        b: impl IntoIterator<Item = (u64, u64)>,
        parameter: &'static str,
    ) -> Result<Self, Error> {
        let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
        let mut overflow = false;
        let sum = std::iter::from_fn(|| {
            let (f, count) = match (a.peek(), b.peek()) {
                (Some(&(fa, _)), Some(&(fb, _))) if fb < fa => b.next()?,
                (Some(_), _) => a.next()?,
                (None, _) => b.next()?,
            };
            let count = match b.next_if(|&(fb, _)| fb == f) {
                Some((_, more)) => count.checked_add(more).unwrap_or_else(|| {
                    overflow = true;
                    count
                }),
                None => count,
            };
            Some((f, count))
        });
        let core = Core::build(shape, sum, parameter)?;
        if overflow {
            return Err(Error::Full);
        }
        Ok(core)
    }

    /// Rebuilds a loaded table from its entries and checks that the rebuild
    /// is the table itself, so that every accepted byte string is a state
    /// the filter's own operations reach.
    pub(crate) fn from_table(shape: Shape, table: Table, len: u64) -> Result<Self, Error> {
        let mut loaded = Core {
            max_used: shape.max_used(),
            charged: 0,
            counters: 0,
            space: shape
                .space()
                .ok_or_else(|| Error::corrupt("fingerprint space past 2^64"))?,
            shape,
            table,
            len,
        };
        let entries = loaded.entries().ok_or_else(|| {
            Error::corrupt("a run has no end or holds a counter that does not decode")
        })?;
        if entries.last().is_some_and(|&(f, _)| f >= loaded.space) {
            return Err(Error::corrupt("a run belongs to a quotient past the last"));
        }
        if entries.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(Error::corrupt(
                "remainders of a run are not in increasing order",
            ));
        }
        let rebuilt = Core::build(shape, entries, "slots").map_err(|e| {
            Error::corrupt(format_args!(
                "the table cannot be rebuilt from its entries: {e}"
            ))
        })?;
        loaded.table.set_used(rebuilt.table.used());
        loaded.charged = rebuilt.charged;
        loaded.counters = rebuilt.counters;
        if rebuilt != loaded {
            return Err(Error::corrupt(
                "the table's metadata, counters or free slots are not those its entries give",
            ));
        }
        Ok(loaded)
    }
}
