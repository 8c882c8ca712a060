//! The rank-and-select table: blocks of 64 slots, each with an offset, an
//! `occupieds` word, a `runends` word and 64 remainders of `r` bits.
//!
//! Terms (Pandey et al., "A General-Purpose Counting Filter", SIGMOD 2017):
//! a key's *quotient* q names its home slot; the remainders of all keys of
//! one quotient form a *run*, stored contiguously at or after slot q, runs
//! in order of quotient. `occupieds` bit q says that quotient q has a run;
//! `runends` bit p says that slot p ends one. Bit i of the two words of
//! block b is slot 64b + i.
//!
//! A block's *offset* is how many of its slots, from its first, are taken
//! by runs of quotients before the block. With it, the run of quotient q is
//! found with one rank (the number d of occupied quotients of q's block up
//! to q) and one select (the d-th run end from the block's first free
//! slot). Offsets are one byte, 0.125 bits per slot; an offset of 255 or
//! more is stored as 255 and recomputed from the blocks before it. Such
//! offsets need a queue of 255 displaced slots, which at the maximum load
//! of 95 % is rarer than once in 10^10 blocks (the spill-over at a block
//! boundary is a random walk with drift −5 % and variance 0.95 per slot,
//! whose tail falls by e^−0.1 a slot), so the slow path costs nothing on
//! average and keeps every answer exact.
//!
//! Runs never wrap around: the table has a few spare blocks past its last
//! quotient for the runs that spill over, and an insert that would run off
//! the end is refused as `Full`.
//!
//! Lookups, inserts and removes find a run from its home block and, when
//! the run ends past it, the next one ([`Table::run_near`]): at 95 % load
//! runs are displaced by about ten slots, so one home quotient in six or
//! so has its run end in the next block, and the walk that handles any
//! distance costs a loop and a mispredicted branch or two, where the next
//! block's run ends are one more word and one more select.
//!
//! Lookups read a short run (up to ⌊63 / r⌋ slots in one block) as the
//! lanes of one word and count its slots equal to the remainder without a
//! branch on the slot values ([`Lanes`]): comparing slot by slot from the
//! run's end costs a mispredicted branch on about every other lookup.
//! Inserts and removes still decode entry by entry, which measured faster
//! for them, as the slot they change depends on the answer.
//!
//! In cache, a lookup is bound by instruction throughput, not by the
//! latency of its reads: several lookups run at once, and their count is
//! set by how many instructions each takes. So the lookup path reads words
//! without bounds checks (one test of the block instead, and the run's
//! bounds from the selects), and skips the check for counters while the
//! filter holds none (the core keeps a tally of its counters): every run is
//! then plain. Each of the two was a tenth or more of a lookup's
//! instructions.
//!
//! Only tables larger than a core's cache get prefetch hints: in cache the
//! hints are instructions for nothing.
//!
//! Why one array of interleaved blocks (occupieds, runends, remainders) and
//! not three arrays: a lookup reads all three for the same slots, so
//! interleaving puts them on the same one or two cache lines.

use crate::bits::{mask_from, mask_through, select64};

/// Bits `lo..hi` of a word (`lo < hi <= 64`).
#[inline(always)]
fn bit_range(lo: usize, hi: usize) -> u64 {
    (u64::MAX >> (64 - (hi - lo))) << lo
}

/// Stored offsets at or above this are recomputed from the blocks before.
const SATURATED: u8 = u8::MAX;

/// Select by `pdep` when `BMI2`, else portably.
#[inline(always)]
#[allow(unsafe_code)]
fn select_with<const BMI2: bool>(bits: u64, k: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if BMI2 {
        // SAFETY: callers pass `BMI2` only from code that runs where the
        // CPU reported BMI2.
        return unsafe { crate::bits::select64_bmi2(bits, k) };
    }
    select64(bits, k)
}

/// The slot arrays and their metadata. Knows nothing of hashes or counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Table {
    /// Remainder bits per slot.
    r: u32,
    /// `2 + r`: u64 words per block.
    stride: usize,
    /// Number of blocks; slots are `64 * blocks`.
    blocks: usize,
    /// `blocks` blocks of `stride` words: occupieds, runends, remainders;
    /// then one word that stays 0, so that a remainder is always read from
    /// two whole words with no test for where it ends.
    words: Vec<u64>,
    /// One offset per block, saturated at [`SATURATED`].
    offsets: Vec<u8>,
    /// Slots in use.
    used: usize,
    /// Whether the CPU has BMI2 (`pdep`) and `popcnt`, for select and the
    /// operations compiled for them.
    bmi2: bool,
    /// Word-parallel constants for runs of a few slots read as one word.
    lanes: Lanes,
    /// Whether the table is large enough for
    /// [`prefetch_slot`](Self::prefetch_slot) to hint anything.
    prefetch: bool,
}

/// Tables of more words than this are prefetched: smaller ones stay in a
/// core's own cache (2 MiB), where the hints are instructions for nothing.
const PREFETCH_WORDS: usize = 1 << 18;

/// Constants for reading up to `count` slots of `r` bits as the lanes of
/// one word (lane i in bits `i·r..(i+1)·r`), where `count · r` is at most
/// 63 so that a guard bit always follows the last lane.
///
/// A run whose slots are in non-decreasing order holds no counter (every
/// counter's digits start, or for remainder 0 end, with a slot below the
/// one before it; a count of 3 for remainder 0 is four zeros, which only
/// equal remainder 0), so in such a run a key's copies are the slots
/// equal to its remainder and its place is after the slots below it. One
/// pass over the lanes answers that with no branch on the slot values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lanes {
    r: u32,
    /// Lanes in a word: ⌊63 / r⌋.
    count: usize,
    /// Bit 0 of each lane.
    ones: u64,
    /// The lower r − 1 bits of each lane.
    low: u64,
    /// The top bit of each lane.
    high: u64,
    /// All bits of the even lanes.
    even: u64,
    /// Bit 0 of each odd lane: one above each even lane.
    guard: u64,
}

impl Lanes {
    fn new(r: u32) -> Self {
        let count = 63 / r as usize;
        let lane = u64::MAX >> (64 - r);
        let (mut ones, mut even, mut guard) = (0u64, 0u64, 0u64);
        for i in 0..count {
            ones |= 1 << (i * r as usize);
            if i % 2 == 0 {
                even |= lane << (i * r as usize);
                guard |= 1 << ((i + 1) * r as usize);
            }
        }
        Lanes {
            r,
            count,
            ones,
            low: ones * (lane >> 1),
            high: ones << (r - 1),
            even,
            guard,
        }
    }

    /// For each lane j of `v`, bit j·r + r is set when lane j of `v` is at
    /// least lane j of `w`.
    #[inline(always)]
    fn at_least(&self, v: u64, w: u64) -> u64 {
        let r = self.r;
        let (a, b) = (v & self.even, (v >> r) & self.even);
        let (wa, wb) = (w & self.even, (w >> r) & self.even);
        let ge_a = ((a | self.guard).wrapping_sub(wa)) & self.guard;
        let ge_b = ((b | self.guard).wrapping_sub(wb)) & self.guard;
        ge_a | (ge_b << r)
    }
}

impl Table {
    /// An empty table of `blocks` blocks of `r`-bit remainders, or `None`
    /// when it cannot be allocated.
    pub(crate) fn new(
        r: u32,
        blocks: usize,
        parameter: &'static str,
    ) -> Result<Self, filter_core::Error> {
        let stride = 2 + r as usize;
        let len = blocks.checked_mul(stride).ok_or_else(|| {
            filter_core::Error::invalid(
                parameter,
                blocks,
                "small enough for the table to be addressable",
            )
        })?;
        Ok(Table {
            r,
            stride,
            blocks,
            words: filter_core::memory::zeroed_vec(len + 1, parameter)?,
            offsets: filter_core::memory::zeroed_vec(blocks, parameter)?,
            used: 0,
            bmi2: crate::bits::has_bmi2(),
            lanes: Lanes::new(r),
            prefetch: len > PREFETCH_WORDS,
        })
    }

    /// Physical slots (64 per block).
    #[inline]
    pub(crate) fn slots(&self) -> usize {
        self.blocks * 64
    }

    /// Whether the CPU has the bit instructions of [`crate::bits::has_bmi2`].
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn has_bmi2(&self) -> bool {
        self.bmi2
    }

    /// Slots in use.
    #[inline]
    pub(crate) fn used(&self) -> usize {
        self.used
    }

    /// Bytes of the arrays.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.len() * 8 + self.offsets.len()
    }

    /// The interleaved words, for serialization.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words[..self.words.len() - 1]
    }

    /// The stored (saturated) offsets, for serialization.
    pub(crate) fn stored_offsets(&self) -> &[u8] {
        &self.offsets
    }

    /// The index of the first word of the block holding `slot`, for a
    /// prefetch hint.
    #[inline]
    pub(crate) fn block_word(&self, slot: usize) -> usize {
        (slot >> 6) * self.stride
    }

    /// Hints that slot `q`'s block will be read: its metadata words and the
    /// word holding `q`'s remainder, which lie on different cache lines
    /// whenever a block spans two, so that both misses overlap instead of
    /// the second waiting for the first.
    #[inline(always)]
    pub(crate) fn prefetch_slot(&self, q: usize) {
        if !self.prefetch {
            return;
        }
        let w = (q >> 6) * self.stride;
        filter_core::prefetch::prefetch(&self.words, w + 1);
        filter_core::prefetch::prefetch(&self.words, w + 2 + (q & 63) * self.r as usize / 64);
    }

    /// Word `i`, without a bounds check, for the lookup path, which is
    /// bound by the instructions it runs (see the module docs).
    ///
    /// # Safety
    ///
    /// `i < self.words.len()`.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn word(&self, i: usize) -> u64 {
        debug_assert!(i < self.words.len());
        // SAFETY: the caller's promise.
        unsafe { *self.words.get_unchecked(i) }
    }

    /// The answer of a lookup of remainder `x` under quotient `q`: how many
    /// slots of its run equal `x` (0 when `q` is not occupied), when the run
    /// is found near ([`run_near`](Self::run_near)), short and plain
    /// ([`plain_equal`](Self::plain_equal)); `None` for the general path.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn lookup<const BMI2: bool>(&self, q: usize, x: u64, counters: bool) -> Option<u32> {
        let b = q >> 6;
        if b >= self.blocks {
            return None;
        }
        // SAFETY: b < blocks, so b · stride + 1 < blocks · stride <=
        // words.len().
        let occ = unsafe { self.word(b * self.stride) };
        if occ >> (q & 63) & 1 == 0 {
            return Some(0);
        }
        let (start, end) = self.run_near_in::<BMI2>(q, occ)?;
        self.plain_equal(start, end, x, counters)
    }

    #[inline(always)]
    fn occupieds(&self, b: usize) -> u64 {
        self.words[b * self.stride]
    }

    #[inline(always)]
    fn runends(&self, b: usize) -> u64 {
        self.words[b * self.stride + 1]
    }

    /// Whether quotient `q` has a run.
    #[inline(always)]
    pub(crate) fn is_occupied(&self, q: usize) -> bool {
        self.occupieds(q >> 6) >> (q & 63) & 1 == 1
    }

    #[inline(always)]
    fn set_occupied(&mut self, q: usize, on: bool) {
        let w = &mut self.words[(q >> 6) * self.stride];
        *w = (*w & !(1 << (q & 63))) | (u64::from(on) << (q & 63));
    }

    #[inline(always)]
    fn set_runend(&mut self, p: usize, on: bool) {
        let w = &mut self.words[(p >> 6) * self.stride + 1];
        *w = (*w & !(1 << (p & 63))) | (u64::from(on) << (p & 63));
    }

    /// The remainder in slot `p`, read from two words without a test for
    /// where it ends (the second may be the next block's first word, or
    /// the pad word past the last block).
    #[inline(always)]
    pub(crate) fn get(&self, p: usize) -> u64 {
        self.get_in_block((p >> 6) * self.stride, p & 63)
    }

    /// Writes remainder `v` (below 2^r) to slot `p`.
    #[inline(always)]
    pub(crate) fn set(&mut self, p: usize, v: u64) {
        let r = self.r as usize;
        let mask = u64::MAX >> (64 - r);
        let bit = (p & 63) * r;
        let w = (p >> 6) * self.stride + 2 + bit / 64;
        let shift = bit % 64;
        // Two whole words, as `get` reads them, with no branch on whether
        // the slot crosses into the second (the next block's first word, or
        // the pad, written back unchanged when it does not).
        let pair = u128::from(self.words[w]) | u128::from(self.words[w + 1]) << 64;
        let pair = (pair & !(u128::from(mask) << shift)) | u128::from(v) << shift;
        self.words[w] = pair as u64;
        self.words[w + 1] = (pair >> 64) as u64;
    }

    /// The remainder in slot `i` of the block whose words start at `base`,
    /// read from two words without a branch (the second may be the next
    /// block's first, or the pad word past the last block).
    #[inline(always)]
    fn get_in_block(&self, base: usize, i: usize) -> u64 {
        let r = self.r as usize;
        let bit = i * r;
        let w = base + 2 + bit / 64;
        let pair = u128::from(self.words[w]) | u128::from(self.words[w + 1]) << 64;
        (pair >> (bit % 64)) as u64 & (u64::MAX >> (64 - r))
    }

    /// The slots `start..=end` (`start <= end`) as the lanes of one word,
    /// with the lane mask, when they lie in one block and fit in a word.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn window(&self, start: usize, end: usize) -> Option<(u64, u64)> {
        let n = end - start + 1;
        if n > self.lanes.count || (start ^ end) >> 6 != 0 || end >> 6 >= self.blocks {
            return None;
        }
        let r = self.r as usize;
        let bit = (start & 63) * r;
        let w = (start >> 6) * self.stride + 2 + bit / 64;
        // SAFETY: `start`'s block is below `blocks` (checked above), and
        // `bit / 64 <= 63 * r / 64 < r`, so `w + 1 <= ((start >> 6) + 1) *
        // stride <= blocks * stride < words.len()` (the pad follows).
        let pair = unsafe { u128::from(self.word(w)) | u128::from(self.word(w + 1)) << 64 };
        let mask = u64::MAX >> (64 - n * r);
        Some(((pair >> (bit % 64)) as u64 & mask, mask))
    }

    /// The lanes of run `start..=end` with their mask, when the run fits
    /// in a word and its slots do not decrease (so it holds no counter).
    #[inline(always)]
    fn plain_window(&self, start: usize, end: usize) -> Option<(u64, u64)> {
        let (v, mask) = self.window(start, end)?;
        let l = &self.lanes;
        // Lane j + 1 of v against lane j: the answer lands on bit (j + 1)·r,
        // bit 0 of lane j + 1, for every lane after the first.
        let up = l.at_least(v >> l.r, v);
        let need = l.ones & mask & !1;
        (up & need == need).then_some((v, mask))
    }

    /// How many slots of a short run without counters equal `x`; `None`
    /// when the run is long or holds a counter. `counters` says whether the
    /// filter holds any: without, every run is plain and is not checked.
    #[inline(always)]
    pub(crate) fn plain_equal(
        &self,
        start: usize,
        end: usize,
        x: u64,
        counters: bool,
    ) -> Option<u32> {
        let (v, mask) = if counters {
            self.plain_window(start, end)?
        } else {
            self.window(start, end)?
        };
        let l = &self.lanes;
        // A lane is zero exactly when adding its low bits to all ones below
        // its top bit leaves that bit and the lane's own top bit clear.
        let y = v ^ x.wrapping_mul(l.ones);
        let t = ((y & l.low) + l.low) | y;
        Some((!t & l.high & mask).count_ones())
    }

    /// The slots `start..=end` of the run of occupied quotient `q`, found
    /// from `q`'s block and, when the run ends past it, the next block:
    /// rank in the one, select in the other. `None` (for
    /// [`run`](Self::run) to answer) when the block's offset is saturated
    /// or reaches past it, or the run ends further on.
    ///
    /// `BMI2` says that the caller runs with BMI2, so select is `pdep`
    /// without a test per call.
    #[inline(always)]
    pub(crate) fn run_near<const BMI2: bool>(&self, q: usize) -> Option<(usize, usize)> {
        self.run_near_in::<BMI2>(q, self.occupieds(q >> 6))
    }

    /// [`run_near`](Self::run_near) given `occ`, the occupieds word of
    /// `q`'s block (which must be below `blocks`).
    #[inline(always)]
    #[allow(unsafe_code)]
    fn run_near_in<const BMI2: bool>(&self, q: usize, occ: u64) -> Option<(usize, usize)> {
        let (b, i) = (q >> 6, q & 63);
        let base = b * self.stride;
        if b >= self.blocks {
            // Never for a quotient; after `lookup`'s own test the compiler
            // drops this one.
            return None;
        }
        // SAFETY: b < blocks = offsets.len(), and base + 1 < blocks · stride
        // <= words.len().
        let (off, ends) = unsafe {
            (
                usize::from(*self.offsets.get_unchecked(b)),
                self.word(base + 1),
            )
        };
        if off >= 64 {
            return None;
        }
        // Rank: the run of q is the d-th to end at or after the offset.
        let d = (occ & mask_through(i)).count_ones();
        let from_off = ends & mask_from(off);
        let here = from_off.count_ones();
        if d <= here {
            let t = select_with::<BMI2>(from_off, d - 1) as usize;
            // The run starts after the run end before it, or at q.
            let below = ends & !mask_from(t);
            let start = q.max(b * 64 + 64 - below.leading_zeros() as usize);
            return Some((start, b * 64 + t));
        }
        if b + 1 >= self.blocks {
            return None;
        }
        // SAFETY: b + 1 < blocks, so (b + 1) · stride + 1 < words.len().
        let next = unsafe { self.word(base + self.stride + 1) };
        let t = select_with::<BMI2>(next, d - 1 - here) as usize;
        if t >= 64 {
            return None;
        }
        let below = next & !mask_from(t);
        let start = if below != 0 {
            (b + 1) * 64 + 64 - below.leading_zeros() as usize
        } else {
            q.max(b * 64 + 64 - ends.leading_zeros() as usize)
        };
        Some((start, (b + 1) * 64 + t))
    }

    /// The offset of block `b`, exact.
    #[inline(always)]
    fn offset(&self, b: usize) -> usize {
        let stored = self.offsets[b];
        if stored < SATURATED {
            usize::from(stored)
        } else {
            self.offset_slow(b)
        }
    }

    /// Recomputes a saturated offset forward from the nearest block before
    /// it whose offset is stored exactly (block 0's always is).
    #[cold]
    fn offset_slow(&self, b: usize) -> usize {
        let mut a = b;
        while a > 0 && self.offsets[a] == SATURATED {
            a -= 1;
        }
        let mut off = if self.offsets[a] == SATURATED {
            0
        } else {
            usize::from(self.offsets[a])
        };
        for c in a + 1..=b {
            let end = self.next_free_with(64 * c - 1, off);
            off = end.saturating_sub(64 * c);
        }
        off
    }

    #[inline(always)]
    fn select(&self, bits: u64, k: u32) -> u32 {
        // `bmi2` is set only where the CPU reported BMI2.
        if self.bmi2 {
            select_with::<true>(bits, k)
        } else {
            select_with::<false>(bits, k)
        }
    }

    /// The first slot at or after `pos` whose set bit of `runends` is the
    /// `k`-th (0-based) from `pos`, or `None` past the table's end.
    #[inline(always)]
    fn select_runend(&self, pos: usize, mut k: u32) -> Option<usize> {
        let mut b = pos >> 6;
        let mut bits = self.runends(b) & mask_from(pos & 63);
        loop {
            if k == 0 && bits != 0 {
                return Some(b * 64 + bits.trailing_zeros() as usize);
            }
            let c = bits.count_ones();
            if k < c {
                return Some(b * 64 + self.select(bits, k) as usize);
            }
            k -= c;
            b += 1;
            if b >= self.blocks {
                return None;
            }
            bits = self.runends(b);
        }
    }

    /// The last set bit of `runends` strictly before slot `p`, if any at or
    /// after `floor`.
    #[inline(always)]
    fn prev_runend(&self, p: usize, floor: usize) -> Option<usize> {
        if p == 0 {
            return None;
        }
        let mut b = (p - 1) >> 6;
        let mut bits = self.runends(b) & mask_through((p - 1) & 63);
        loop {
            if bits != 0 {
                let at = b * 64 + 63 - bits.leading_zeros() as usize;
                return (at >= floor).then_some(at);
            }
            if b == 0 || b * 64 <= floor {
                return None;
            }
            b -= 1;
            bits = self.runends(b);
        }
    }

    /// The first slot at or after `x` not taken by the runs of quotients up
    /// to `x`: `x` itself when it is free of them, else one past the end of
    /// the last such run. `x` is free exactly when this returns `x`.
    #[inline(always)]
    pub(crate) fn next_free(&self, x: usize) -> usize {
        self.next_free_with(x, self.offset(x >> 6))
    }

    #[inline(always)]
    fn next_free_with(&self, x: usize, off: usize) -> usize {
        let b = x >> 6;
        let i = x & 63;
        let d = (self.occupieds(b) & mask_through(i)).count_ones();
        if d == 0 {
            return if off > i { b * 64 + off } else { x };
        }
        match self.select_runend(b * 64 + off, d - 1) {
            Some(t) => x.max(t + 1),
            // Only a corrupt table lacks the run end; `from_bytes` refuses
            // those, so this is never reached from valid states.
            None => self.slots(),
        }
    }

    /// The slots `start..=end` of the run of occupied quotient `q`.
    #[inline(always)]
    pub(crate) fn run(&self, q: usize) -> (usize, usize) {
        let end = self.run_end(q);
        (self.run_start(q, end), end)
    }

    /// [`run`](Self::run), out of line, for the runs that
    /// [`run_near`](Self::run_near) leaves.
    #[inline(never)]
    pub(crate) fn run_far(&self, q: usize) -> (usize, usize) {
        self.run(q)
    }

    /// The last slot of the run of occupied quotient `q`.
    #[inline(always)]
    pub(crate) fn run_end(&self, q: usize) -> usize {
        let b = q >> 6;
        let d = (self.occupieds(b) & mask_through(q & 63)).count_ones();
        self.select_runend(b * 64 + self.offset(b), d.wrapping_sub(1))
            .unwrap_or(self.slots() - 1)
    }

    /// The first slot of the run of occupied quotient `q` that ends at
    /// `end`: one past the run end before it, if that is at or after `q`.
    #[inline(always)]
    pub(crate) fn run_start(&self, q: usize, end: usize) -> usize {
        match self.prev_runend(end, q) {
            Some(prev) => prev + 1,
            None => q,
        }
    }

    /// The first free slot at or after `pos`, by jumps of
    /// [`free_distance`](Self::free_distance): popcounts only, no select.
    #[inline(always)]
    fn first_empty(&self, mut pos: usize) -> usize {
        while pos < self.slots() {
            let jump = self.free_distance(pos);
            if jump == 0 {
                return pos;
            }
            pos += jump;
        }
        pos
    }

    /// 0 when slot `x` is free, else a number of slots from `x` that are
    /// all taken: the runs of quotients up to `x` that have not ended before
    /// `x` (each needs a slot at or after `x`), plus what the runs from
    /// before the block still take.
    #[inline(always)]
    fn free_distance(&self, x: usize) -> usize {
        let b = x >> 6;
        let i = x & 63;
        let off = self.offset(b);
        let d = (self.occupieds(b) & mask_through(i)).count_ones() as usize;
        if off > i {
            return off - i + d;
        }
        // Run ends in slots off..i of the block (below x): runs of
        // quotients of this block, as the earlier runs end before off.
        let ended = if i == off {
            0
        } else {
            (self.runends(b) & mask_from(off) & !mask_from(i)).count_ones() as usize
        };
        // Never negative in a valid table; loaded tables are checked first.
        d.saturating_sub(ended)
    }

    /// The first slot at or after `pos` that no run of a quotient below
    /// it reaches (free, or the first slot of a run at its home), by jumps
    /// of [`pending_runs`](Self::pending_runs); the table's length past its
    /// last slot.
    #[inline(always)]
    fn first_unshifted(&self, mut pos: usize) -> usize {
        while pos < self.slots() {
            let jump = self.pending_runs(pos);
            if jump == 0 {
                return pos;
            }
            pos += jump;
        }
        self.slots()
    }

    /// The runs of quotients below slot `x` that have not ended before `x`:
    /// each takes a slot at or after `x`, so at least that many slots from
    /// `x` on are taken by runs away from their home. As
    /// [`free_distance`](Self::free_distance), without quotient `x` itself.
    #[inline(always)]
    fn pending_runs(&self, x: usize) -> usize {
        let b = x >> 6;
        let i = x & 63;
        let off = self.offset(b);
        let d = (self.occupieds(b) & !mask_from(i)).count_ones() as usize;
        if off > i {
            return off - i + d;
        }
        let ended = (self.runends(b) & mask_from(off) & !mask_from(i)).count_ones() as usize;
        // Never negative in a valid table; loaded tables are checked first.
        d.saturating_sub(ended)
    }

    /// Whether `k` more slots can be inserted at `pos`: the `k`-th free
    /// slot at or after `pos` is inside the table.
    pub(crate) fn has_room(&self, pos: usize, k: usize) -> bool {
        let mut at = pos;
        for _ in 0..k {
            at = self.first_empty(at);
            if at >= self.slots() {
                return false;
            }
            at += 1;
        }
        true
    }

    /// Opens an empty slot at `pos` for the run of quotient `q` (which must
    /// start at or before `pos` and end at or after `pos − 1`, or be about
    /// to start at `pos`): shifts the slots from `pos` to the first free
    /// slot one to the right, with their run-end bits. The new slot has no
    /// run end, and its remainder is for the caller to write (it may hold
    /// the one moved out of it). The caller checked
    /// [`has_room`](Self::has_room).
    #[inline(always)]
    fn open_slot(&mut self, q: usize, pos: usize) -> bool {
        let e = self.first_empty(pos);
        if e >= self.slots() {
            return false;
        }
        if e != pos {
            self.shift_right(pos, e);
        }
        // Runs of quotients below each block from q + 1 to e now take one
        // more of its slots.
        // A `while`, not an inclusive range: this loop usually runs no
        // times, and the range's bookkeeping cost more than its body.
        let mut b = (q >> 6) + 1;
        while b <= e >> 6 {
            if self.offsets[b] < SATURATED {
                self.offsets[b] += 1;
            }
            b += 1;
        }
        self.used += 1;
        true
    }

    /// Moves slots `pos..e` to `pos + 1..=e` (remainders and run ends)
    /// and clears slot `pos`'s run end, leaving its remainder for the
    /// caller to write: a block at a time, a word at a time.
    #[inline(always)]
    fn shift_right(&mut self, pos: usize, e: usize) {
        let (first, last) = (pos >> 6, e >> 6);
        if first == last {
            // The usual case, without the carries between blocks.
            let (lo, hi) = (pos & 63, e & 63);
            self.shift_remainders_up(first, lo, hi);
            let w = &mut self.words[first * self.stride + 1];
            let range = mask_from(lo) & mask_through(hi);
            *w = (*w & !range) | (((*w & range) << 1) & range);
            return;
        }
        let (mut rem, mut end) = (0, false);
        for b in first..=last {
            let lo = if b == first { pos & 63 } else { 0 };
            let hi = if b == last { e & 63 } else { 63 };
            // Slot e is free: the last block shifts nothing out. Slot pos
            // keeps its value, for the caller to overwrite.
            let rem_out = if b < last { self.get(b * 64 + hi) } else { 0 };
            self.shift_remainders_up(b, lo, hi);
            if b > first {
                self.set(b * 64 + lo, rem);
            }
            rem = rem_out;
            let w = &mut self.words[b * self.stride + 1];
            let range = mask_from(lo) & mask_through(hi);
            let end_out = (*w >> hi) & 1 == 1;
            *w = (*w & !range) | (((*w & range) << 1) & range) | (u64::from(end) << lo);
            end = end_out;
        }
        // Slot e was free, so nothing is shifted out of it.
        debug_assert!(rem == 0 && !end);
    }

    /// Moves the remainders of slots `lo..hi` of block `b` to `lo + 1..=hi`
    /// (slot `lo` keeps its value, to be overwritten).
    #[inline(always)]
    fn shift_remainders_up(&mut self, b: usize, lo: usize, hi: usize) {
        if lo >= hi {
            return;
        }
        let r = self.r as usize;
        let base = b * self.stride + 2;
        let (from, to) = ((lo + 1) * r, (hi + 1) * r);
        for w in (from / 64..=(to - 1) / 64).rev() {
            let mask = bit_range(from.max(64 * w) - 64 * w, to.min(64 * w + 64) - 64 * w);
            let below = if w > 0 {
                self.words[base + w - 1] >> (64 - r)
            } else {
                0
            };
            let shifted = (self.words[base + w] << r) | below;
            let word = &mut self.words[base + w];
            *word = (*word & !mask) | (shifted & mask);
        }
    }

    /// Moves the remainders of slots `lo + 1..=hi` of block `b` to
    /// `lo..hi` (slot `hi` keeps its value, to be overwritten).
    #[inline(always)]
    fn shift_remainders_down(&mut self, b: usize, lo: usize, hi: usize) {
        if lo >= hi {
            return;
        }
        let r = self.r as usize;
        let base = b * self.stride + 2;
        let (from, to) = (lo * r, hi * r);
        for w in from / 64..=(to - 1) / 64 {
            let mask = bit_range(from.max(64 * w) - 64 * w, to.min(64 * w + 64) - 64 * w);
            let above = if w + 1 < r {
                self.words[base + w + 1] << (64 - r)
            } else {
                0
            };
            let shifted = (self.words[base + w] >> r) | above;
            let word = &mut self.words[base + w];
            *word = (*word & !mask) | (shifted & mask);
        }
    }

    /// Inserts a slot holding `v` at `pos` into the run of quotient `q`,
    /// which currently spans `start..=end`; `pos` is in `start..=end + 1`.
    /// `false`, with nothing changed, when no free slot follows `pos`.
    #[inline(always)]
    pub(crate) fn insert_into_run(&mut self, q: usize, pos: usize, end: usize, v: u64) -> bool {
        if !self.open_slot(q, pos) {
            return false;
        }
        if pos == end + 1 {
            self.set_runend(end, false);
            self.set_runend(pos, true);
        }
        self.set(pos, v);
        true
    }

    /// Starts the run of unoccupied quotient `q` with one slot holding `v`,
    /// at [`next_free(q)`](Self::next_free); returns that slot, or `None`,
    /// with nothing changed, when no free slot follows it.
    #[inline(always)]
    pub(crate) fn start_run(&mut self, q: usize, v: u64) -> Option<usize> {
        if self.free_distance(q) == 0 {
            // Slot q is free: the run starts at home and nothing moves (no
            // offset changes, as q's own block does not count its runs).
            self.set_occupied(q, true);
            self.set_runend(q, true);
            self.set(q, v);
            self.used += 1;
            return Some(q);
        }
        let pos = self.next_free(q);
        if !self.open_slot(q, pos) {
            return None;
        }
        self.set_occupied(q, true);
        self.set_runend(pos, true);
        self.set(pos, v);
        Some(pos)
    }

    /// Removes slot `pos` from the run of quotient `q`, which spans
    /// `start..=end`; the run ends with it when it was its only slot.
    #[inline(always)]
    pub(crate) fn remove_from_run(&mut self, q: usize, pos: usize, start: usize, end: usize) {
        // The slots after `pos` that move back: the rest of this run and
        // every following run of the cluster that is not at its home, up to
        // the first slot after the run that is free or starts a run at home.
        let last = self.first_unshifted(end + 1) - 1;
        if start == end {
            self.set_occupied(q, false);
        }
        if pos == last {
            // Nothing follows in the cluster: free the slot in place.
            self.set(pos, 0);
            self.set_runend(pos, false);
        } else {
            self.shift_left(pos, last);
        }
        if pos == end && start < end {
            self.set_runend(pos - 1, true);
        }
        let mut b = (q >> 6) + 1;
        while b <= last >> 6 {
            if self.offsets[b] < SATURATED {
                self.offsets[b] -= 1;
            } else {
                // A saturated offset may have dropped below the saturation
                // point: store it exactly again. Blocks are visited in order,
                // so the one before is already right.
                let exact = self.offset_slow(b);
                self.offsets[b] = exact.min(usize::from(SATURATED)) as u8;
            }
            b += 1;
        }
        self.used -= 1;
    }

    /// Moves slots `pos + 1..=last` to `pos..last` (remainders and run ends)
    /// and clears slot `last`: a block at a time, a word at a time.
    #[inline(always)]
    fn shift_left(&mut self, pos: usize, last: usize) {
        let (first, end_block) = (pos >> 6, last >> 6);
        if first == end_block {
            // The usual case, without the carries between blocks.
            let (lo, hi) = (pos & 63, last & 63);
            self.shift_remainders_down(first, lo, hi);
            self.set(last, 0);
            let w = &mut self.words[first * self.stride + 1];
            let range = mask_from(lo) & mask_through(hi);
            *w = (*w & !range) | (((*w & range) >> 1) & range);
            return;
        }
        let (mut rem, mut end) = (0, false);
        for b in (first..=end_block).rev() {
            let lo = if b == first { pos & 63 } else { 0 };
            let hi = if b == end_block { last & 63 } else { 63 };
            // The first block's slot pos is the one removed.
            let rem_out = if b > first { self.get(b * 64 + lo) } else { 0 };
            self.shift_remainders_down(b, lo, hi);
            self.set(b * 64 + hi, rem);
            rem = rem_out;
            let w = &mut self.words[b * self.stride + 1];
            let range = mask_from(lo) & mask_through(hi);
            let end_out = (*w >> lo) & 1 == 1;
            *w = (*w & !range) | (((*w & range) >> 1) & range) | (u64::from(end) << hi);
            end = end_out;
        }
    }

    /// Appends, for the builder: slot `p` holds `v`. Slots are written in
    /// increasing order into an empty table, and
    /// [`finish_build`](Self::finish_build) is called at the end.
    pub(crate) fn build_slot(&mut self, p: usize, v: u64) {
        self.set(p, v);
        self.used += 1;
    }

    /// Marks slot `p` as a run's end, for the builder.
    pub(crate) fn build_slot_end(&mut self, p: usize) {
        self.set_runend(p, true);
    }

    /// Marks quotient `q` occupied, for the builder.
    pub(crate) fn build_occupied(&mut self, q: usize) {
        self.set_occupied(q, true);
    }

    /// Computes every offset from the runs written by the builder.
    pub(crate) fn finish_build(&mut self) {
        let mut off = 0;
        self.offsets[0] = 0;
        for b in 1..self.blocks {
            let end = self.next_free_with(64 * b - 1, off);
            off = end.saturating_sub(64 * b);
            self.offsets[b] = off.min(usize::from(SATURATED)) as u8;
        }
    }

    /// Replaces the arrays with loaded ones (checked by the caller against
    /// a rebuild).
    pub(crate) fn from_parts(r: u32, blocks: usize, mut words: Vec<u64>, offsets: Vec<u8>) -> Self {
        words.push(0);
        Table {
            prefetch: words.len() > PREFETCH_WORDS + 1,
            r,
            stride: 2 + r as usize,
            blocks,
            words,
            offsets,
            used: 0,
            bmi2: crate::bits::has_bmi2(),
            lanes: Lanes::new(r),
        }
    }

    /// Sets the count of used slots of a loaded table, from its rebuild.
    pub(crate) fn set_used(&mut self, used: usize) {
        self.used = used;
    }

    /// Calls `f(q, start, end)` for every run, in order of quotient, reading
    /// only `occupieds` and `runends` (not the offsets), so that it also
    /// walks a loaded table before its offsets are trusted. Stops with
    /// `false` when a run has no end inside the table.
    pub(crate) fn for_each_run(&self, mut f: impl FnMut(usize, usize, usize) -> bool) -> bool {
        let mut cursor = 0;
        for b in 0..self.blocks {
            let mut occ = self.occupieds(b);
            while occ != 0 {
                let q = b * 64 + occ.trailing_zeros() as usize;
                occ &= occ - 1;
                let start = q.max(cursor);
                if start >= self.slots() {
                    return false;
                }
                let Some(end) = self.select_runend(start, 0) else {
                    return false;
                };
                if !f(q, start, end) {
                    return false;
                }
                cursor = end + 1;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The copies of `x` a run of encoded entries holds, by decoding.
    fn walked(t: &Table, start: usize, end: usize, x: u64) -> u64 {
        let mut at = start;
        while at <= end {
            let (rx, count, len) = crate::counter::decode(at, end, t.r, |p| t.get(p)).unwrap();
            if rx == x {
                return count;
            }
            at += len;
        }
        0
    }

    quickcheck::quickcheck! {
        fn lanes_agree_with_the_walk(seed: u64, r: u8, start: u8) -> bool {
            let r = [2u32, 3, 5, 7, 8, 10, 13, 21, 31, 32, 57][usize::from(r) % 11];
            let top = 1u64 << r;
            let mut t = Table::new(r, 3, "t").unwrap();
            // A sorted run of a few entries, some counted.
            let mut s = seed;
            let mut next = || { s = filter_core::mix64(s.wrapping_add(1)); s };
            let mut xs: Vec<u64> = (0..1 + next() % 6).map(|_| next() % top).collect();
            if next() % 3 == 0 { xs.push(0); }
            xs.sort_unstable();
            xs.dedup();
            let mut slots = Vec::new();
            for &x in &xs {
                let count = match next() % 5 { 0 => 3 + next() % 400, 1 => 2, _ => 1 };
                slots.extend_from_slice(crate::counter::encode(x, count, r).as_slice());
            }
            let start = usize::from(start) % 100;
            if start + slots.len() > 3 * 64 {
                return true;
            }
            for (i, &v) in slots.iter().enumerate() {
                t.set(start + i, v);
            }
            let end = start + slots.len() - 1;
            let plain = slots.windows(2).all(|w| w[0] <= w[1]);
            let fits = slots.len() <= t.lanes.count && start / 64 == end / 64;
            let probes = xs.iter().copied().chain((0..8).map(|_| next() % top));
            probes.collect::<Vec<_>>().into_iter().all(|x| {
                let truth = walked(&t, start, end, x);
                // Unchecked (for filters with no counter), a plain run
                // answers as checked.
                let unchecked = t.plain_equal(start, end, x, false);
                let checked = t.plain_equal(start, end, x, true);
                (!plain || unchecked == checked) && match checked {
                    None => !(plain && fits),
                    Some(n) => plain && fits && (u64::from(n) == truth || (x == 0 && n == 4 && truth == 3)),
                }
            })
        }
    }

    #[test]
    fn word_shifts_match_slot_moves() {
        for r in [2u32, 3, 7, 13, 57] {
            for (pos, e) in [(0, 1), (3, 9), (60, 70), (5, 130), (63, 64), (0, 191)] {
                let mut t = Table::new(r, 3, "t").unwrap();
                let mask = (1u64 << r) - 1;
                for p in 0..192 {
                    if p != e {
                        t.set(p, filter_core::mix64(p as u64 + 1) & mask);
                    }
                }
                let before: Vec<u64> = (0..192).map(|p| t.get(p)).collect();
                t.shift_right(pos, e);
                let after: Vec<u64> = (0..192).map(|p| t.get(p)).collect();
                let mut want = before.clone();
                want.remove(e);
                // Slot pos keeps its remainder, for the caller to write.
                want.insert(pos, before[pos]);
                assert_eq!(after, want, "right r {r} pos {pos} e {e}");
                t.shift_left(pos, e);
                let back: Vec<u64> = (0..192).map(|p| t.get(p)).collect();
                let mut want = before.clone();
                want[e] = 0;
                assert_eq!(back, want, "left r {r} pos {pos} e {e}");
            }
        }
    }
}
