//! How Bloom-family filters turn one 64-bit hash into k table positions.
//!
//! Double hashing (Kirsch and Mitzenmacher, "Less hashing, same performance",
//! 2006): from two values x and y, probe j is derived from x + j·y. Two hash
//! values give the same asymptotic false-positive rate as k independent ones,
//! and a lookup hashes the key once instead of k times, which matters most
//! for string keys.
//!
//! Here x and y live in the 64-bit ring and each position is
//! [`reduce`]`(x + j·y, len)`, so the arithmetic is "mod 2^64, then scaled to
//! len" instead of "mod len": no division, any table length. That also
//! removes the weakness the *enhanced* variant (Dillinger and Manolios, 2004)
//! was invented for: mod len, a step y sharing a factor with len cycles
//! through few positions, so an extra j-dependent increment is needed. Mod
//! 2^64, two probes i < j of a key land on the same position only when
//! (j − i)·y falls within about 2^64/len of a multiple of 2^64: probability
//! about k²/len per key.
//!
//! That is not free in small tables. For about 1/len of the keys the step
//! y/2^64 lies near a fraction with a small denominator, and the k probes
//! fall on one to a few cells; such a non-member is a false positive about
//! as often as a cell is set, not that rate to the k-th power. On the
//! classic Bloom filter at its textbook size this adds roughly 0.4/len to
//! the false-positive rate at k = 7 to 10 and 0.15/len at k = 20: 1.49× the
//! target at 1 % with 10 keys, 1.23× at 0.1 % with 100, 1.11× at 10^−4 with
//! 1000, about 1.5× at 10^−6 with 10^4 keys.
//!
//! So small tables use [`ProbeSequence::Cubic`], a third hash value in the
//! sequence: probe j is x + j·y + (j³ − j)/6 · z, z = x times an odd
//! constant. The cubic term is zero for the first two probes and bends the
//! rest off any progression, and because z differs from key to key two keys
//! no longer share a two-parameter family of probe sets. (Dillinger and
//! Manolios's cubic term with a fixed z, one cell, left part of the excess:
//! 1.11× at 1 % with 10 keys, 1.16× at 0.1 % with 10.) Measured means over
//! 5,000–20,000 key sets at the textbook size:
//!
//! | rate, keys | linear | cubic | independent probes (exact) |
//! | --- | --- | --- | --- |
//! | 1 %, 10 | 1.49× | 1.089× | 1.089× |
//! | 1 %, 20 | 1.24× | 1.041× | 1.042× |
//! | 0.1 %, 10 | 3.4× | 1.110× | 1.113× |
//! | 0.1 %, 100 | 1.23× | 1.011× | 1.011× |
//! | 10^−4, 1000 | 1.11× | 1.01× | – |
//!
//! The last column is what k truly independent probes give: at a few keys
//! the fill of a table varies from key set to key set, and the mean of
//! fill^k exceeds the k-th power of the mean fill, so even perfect probes
//! sit a little above the textbook rate there.
//!
//! The cubic term is not enough in the smallest tables at tiny rates. A
//! table of a few dozen cells probed 16 to 30 times per key (one to a few
//! keys at 10^−5 to 10^−8) still sees queries whose probes bunch onto a few
//! cells far more often than independent probes would: one key at 10^−6
//! (33 cells, k = 19) measured 2.2× the target, at 10^−8 (44 cells,
//! k = 26) 26×. The excess falls with the table (about 1.4 powers of its
//! size at k = 19) but the target falls faster with k. So the smallest
//! tables use [`ProbeSequence::Hashed`]: the linear sequence's values, each
//! put through [`mix64`] before it is reduced. A mixed value has no
//! arithmetic relation to its neighbours, so the probes behave as
//! independent ones and the rate is the one [`crate::sizing`] computes for
//! independent probes. The same two cases measured 0.75× and 0.66× the
//! target (2·10^8 and 5·10^9 queries over 20,000 key sets). The mix costs
//! two multiplies per probe: classic-filter lookups (`contains_hash`, half
//! members) measured 1.3–1.5× those of the cubic sequence in the same
//! tables with a mix of the query in the loop (21 → 30 ns for one key at
//! 10^−6, 17 → 23 ns for 50 keys at 10^−4, 26 → 39 ns for 20,000 keys at
//! 10^−8) and 1.5–1.75× without (a review's run: 14.6 → 23.0, 11.3 → 17.4,
//! 20.1 → 35.1 ns), which is why it is kept to the tables that need it (see
//! [`ProbeSequence::for_table`]).
//!
//! Large tables keep the plain linear form (x + j·y, as
//! [`ProbeSequence::Folded`]): there the excess is below a percent of the
//! rate and the cubic adds are not free (see [`ProbeSequence::for_table`]
//! for the line and its cost). The sequence a filter uses is stored in its
//! bytes (`format::FLAG_CUBIC_PROBES`, `format::FLAG_HASHED_PROBES`,
//! `format::FLAG_FOLDED_PROBES`), and bytes of format 1.0, written before
//! the cubic sequence existed, load as linear at every size. Bytes of 1.1
//! to 1.3 load cubic or hashed where they say so, and linear where they
//! say nothing, also where a table is now built otherwise: such a stored
//! filter keeps its sequence (and the cubic sequence's excess, or the
//! slower mix) until it is rebuilt.
//!
//! x spreads the user's hash, so that sequential or strided hashes (ids
//! passed to `insert_hash` as they are) do not probe in step; y is x
//! rotated by 32 bits, so the high bits [`reduce`] reads for the step are
//! the low bits of x, independent of the high bits that pick the first
//! position, then xored with a constant. Without the constant, a hash with
//! x = 0 (the raw hash 0 under [`mix64`]) would get y = 0 and all k probes
//! on one cell; with it, the step is near zero only for a few arbitrary
//! 64-bit hashes, as likely as any other collision.
//!
//! Two ways to spread the hash into x, which is also the whole difference
//! between [`ProbeSequence::Linear`] and [`ProbeSequence::Folded`]:
//!
//! - **`Linear`** (formats 1.0–1.3): x = [`mix64`]`(hash)`, two multiplies
//!   and three xor-shifts in a row. Cheaper one-round mixers (one multiply
//!   by a constant, with or without an xor-shift) were measured and fail:
//!   with strided pre-hashed ids (stride 2^28 to 2^32) they doubled the
//!   false-positive rate of a 1 % filter, because a multiply by a constant
//!   maps an arithmetic progression of ids to another one.
//! - **`Folded`** (format 1.4, every new table that is not small): x =
//!   [`folded_product`]`(hash)`, one 64 × 64 → 128-bit product of two
//!   different functions of the hash, folded. Quadratic in the hash, so a
//!   progression of ids does not stay one. In the branch-free lookups of a
//!   table in cache the mix is on the path to every load, and this one gets
//!   there in about half the time: classic Bloom lookups of 1M keys at 1 %
//!   took 10.2 ns against 12.5 with [`mix64`] (0.1 %: 16.0 against 18.1),
//!   in four alternating runs of `cargo xtask compare`. Its rates match: over
//!   78 shapes of structured ids at 1 % and 0.1 % (ids shifted by 0 to 43
//!   bits, with and without a constant xored in, multiplied by nine
//!   constants with and without a fold, byte-swapped, bit-reversed, Gray
//!   coded, squared, negated and complemented; 200,000 members each), the
//!   mean rate was 0.998 of the target at both rates (1.003 and 0.994 with
//!   [`mix64`]), and the worst shape 1.08 (bit-reversed ids at 0.1 %, 2.5
//!   standard errors) against 1.06. `bloom`'s tests check such shapes.
//!
//! The classic Bloom filter and the counting Bloom filter both use this, so
//! the same key touches the same cells in both at equal size.

use crate::format::{FLAG_CUBIC_PROBES, FLAG_FOLDED_PROBES, FLAG_HASHED_PROBES};
use crate::{Error, HashQuality, mix64, reduce};

/// Xored into the step so that no natural hash value (0 above all) gets a
/// zero step: the 64-bit golden ratio, an arbitrary odd constant.
const STEP_SALT: u64 = 0x9E37_79B9_7F4A_7C15;

/// Xored into the two factors of [`folded_product`], so that neither is
/// zero for a natural hash value (0 above all) and the two differ where the
/// hash's halves are equal: the two multipliers of SplitMix64's finalizer,
/// arbitrary odd constants with bits spread over the whole word.
const FOLD_SALT_LOW: u64 = 0xBF58_476D_1CE4_E5B9;
/// See [`FOLD_SALT_LOW`].
const FOLD_SALT_HIGH: u64 = 0x94D0_49BB_1331_11EB;

/// The largest table, in bytes, that Bloom-family lookups probe without a
/// data-dependent branch; larger tables are probed with an early exit.
///
/// Branch-free, all k loads of a lookup overlap and no answer is ever
/// mispredicted. With an early exit, a miss stops at the first unset bit or
/// zero counter and fetches fewer cache lines, but whether it stops depends
/// on the key, so in a stream that mixes members and non-members the branch
/// mispredicts on about half the queries. While the table fits in the
/// last-level cache the loads are cheap and the mispredictions dominate;
/// once it spills into DRAM, memory traffic is the scarce resource and the
/// early exit wins.
///
/// Measured on a shared 2-core AMD EPYC with 32 MiB of L3 (`cargo xtask
/// compare`):
/// - classic Bloom filter, 1M keys (1.2–1.8 MB): branch-free lookups of a
///   half-member shuffled stream took 9.2 ns against 13.9 ns with an early
///   exit after two probes (12.4 against 17.0 ns at 0.1 %); all-miss
///   batches were level at 1 % and 25 % slower at 0.1 %;
/// - counting Bloom filter, 1M keys (4.8 MB): branch-free misses took about
///   16 ns against 27–53 ns with an early exit;
/// - at 10M keys, 0.1 % (an 18 MB Bloom table, a 48 MB counting table) the
///   early exit answered misses 1.3–3× faster.
///
/// 16 MiB sits between the two regimes, below the last-level cache of most
/// current server and desktop CPUs.
pub const BRANCH_FREE_MAX_BYTES: usize = 16 << 20;

/// Below this many cells per 2^k (k the probes per key), a new table uses
/// [`ProbeSequence::Cubic`]. See [`ProbeSequence::for_table`].
pub const CUBIC_MAX_CELLS_PER_2K: u64 = 64;

/// A new table of fewer than 2^([`HASHED_MAX_LOG2_BASE`] + ⌊3k/4⌋) cells
/// (k the probes per key) uses [`ProbeSequence::Hashed`]. See
/// [`ProbeSequence::for_table`].
pub const HASHED_MAX_LOG2_BASE: u32 = 1;

/// Which sequence of positions a table's keys probe: a property of the
/// table, fixed when it is built and stored in its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProbeSequence {
    /// Probe j is `reduce(x + j·y, len)`: double hashing in the 64-bit
    /// ring. The only sequence of format 1.0.
    Linear,
    /// Probe j is `reduce(x + j·y + (j³ − j)/6 · z, len)` with z a third
    /// value from the key's hash, which keeps small tables at the rate of
    /// independent probes (see the module docs). Format 1.1.
    Cubic,
    /// Probe j is `reduce(mix64(x + j·y), len)`: the linear sequence's
    /// values, each mixed, so that the probes of the smallest tables behave
    /// as independent ones (see the module docs). Format 1.3.
    Hashed,
    /// Probe j is `reduce(x + j·y, len)` as in [`Linear`](Self::Linear),
    /// with x the [`folded_product`] of the hash and its 32-bit rotation
    /// instead of its [`mix64`]: the same rates, and the first load of a lookup starts
    /// sooner (see the module docs). Format 1.4; new tables of every size
    /// that would otherwise be linear.
    Folded,
}

impl ProbeSequence {
    /// Every sequence, oldest first.
    pub const ALL: [ProbeSequence; 4] = [
        ProbeSequence::Linear,
        ProbeSequence::Cubic,
        ProbeSequence::Hashed,
        ProbeSequence::Folded,
    ];

    /// The sequence a new table of `len` cells probed `hashes` times per key
    /// uses: [`Hashed`](Self::Hashed) below 2^(1 + ⌊3k/4⌋) cells
    /// ([`HASHED_MAX_LOG2_BASE`]), [`Cubic`](Self::Cubic) below
    /// [`CUBIC_MAX_CELLS_PER_2K`] · 2^k cells, [`Folded`](Self::Folded) from
    /// there on. ([`Linear`](Self::Linear), its forerunner, is only ever
    /// loaded from bytes.)
    ///
    /// Why the first line: the cubic sequence's excess in the smallest
    /// tables is roughly a fixed amount, 10^−6 to 2·10^−6 at a few dozen
    /// cells, falling as the 1.4th power of the table size (measured at
    /// k = 19 between 33 and 91 cells). The target is about 2^−k, so the
    /// excess stays below 0.1 % of it from about 5,000 cells at k = 19 and
    /// 185,000 at k = 26: about 33 · (2^k / 500)^0.73 cells. The line is
    /// at 2^(1 + ⌊3k/4⌋), 4 to 10 times that: 32 cells at k = 6, 64 at
    /// k = 7, 1,024 at k = 13, 65,536 at k = 20, 2^21 at k = 27. With the k
    /// that `with_fpr` picks, that is up to 5 keys at 1 %, 17 at 0.1 %, 53
    /// at 10^−4, 2,278 at 10^−6 and 54,694 at 10^−8. The margin is wide
    /// because the excess was measured at one k only; it costs the tables
    /// between the two lines the mix (see the module docs), at rates where
    /// a lookup already probes 13 to 30 times.
    ///
    /// Why there: the linear sequence adds about 0.4/len to the rate, and a
    /// table sized for rate p by the textbook formula probes k ≈ log2(1/p)
    /// times, so the excess is about 0.4 · 2^k / len of the rate: 0.6 % of
    /// it at the line, more below. The cubic sequence's two extra adds per
    /// probe measured 1.2× the lookup time of the linear one in
    /// cache-resident tables (100k keys, 1 %, and 1M keys, 0.1 %, forced to
    /// cubic), and no difference once lookups wait on memory (2M keys at
    /// 10^−6, an 8 MB table just below the line). Below the line the rate
    /// matters more; above it, the speed.
    ///
    /// At 1 % (k = 7) the line is 8,192 cells (about 850 keys), at 0.1 %
    /// (k = 10) 65,536 (about 4,500 keys), at 10^−6 (k = 20) 2^26 (about
    /// 2.3M keys).
    pub fn for_table(len: usize, hashes: u32) -> Self {
        // 2^(1 + 3k/4) exceeds every u64 from k = 84 on, and 64 · 2^k from
        // k = 58 on.
        let hashed_log2 = HASHED_MAX_LOG2_BASE.saturating_add(hashes.saturating_mul(3) / 4);
        let tiny = hashed_log2 >= 64 || (len as u64) < 1 << hashed_log2;
        let small = hashes >= 58 || (len as u64) >> hashes < CUBIC_MAX_CELLS_PER_2K;
        if tiny {
            ProbeSequence::Hashed
        } else if small {
            ProbeSequence::Cubic
        } else {
            ProbeSequence::Folded
        }
    }

    /// Every header flag that records a sequence: what a Bloom-family
    /// reader passes to
    /// [`ByteReader::open_with_flags`](crate::format::ByteReader::open_with_flags).
    pub const HEADER_FLAGS: u16 = FLAG_CUBIC_PROBES | FLAG_HASHED_PROBES | FLAG_FOLDED_PROBES;

    /// The header flags that record this sequence in a filter's bytes:
    /// [`FLAG_CUBIC_PROBES`], [`FLAG_HASHED_PROBES`], [`FLAG_FOLDED_PROBES`]
    /// or none.
    pub fn header_flags(self) -> u16 {
        match self {
            ProbeSequence::Linear => 0,
            ProbeSequence::Cubic => FLAG_CUBIC_PROBES,
            ProbeSequence::Hashed => FLAG_HASHED_PROBES,
            ProbeSequence::Folded => FLAG_FOLDED_PROBES,
        }
    }

    /// The sequence recorded by header `flags`. Bytes without a sequence
    /// flag, every byte string of format 1.0 among them, were built with
    /// the linear sequence.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when two sequence flags are set: no writer sets
    /// more than one, and reading by either would put members on other
    /// cells than they were inserted at.
    pub fn from_header_flags(flags: u16) -> Result<Self, Error> {
        match flags & Self::HEADER_FLAGS {
            0 => Ok(ProbeSequence::Linear),
            FLAG_CUBIC_PROBES => Ok(ProbeSequence::Cubic),
            FLAG_HASHED_PROBES => Ok(ProbeSequence::Hashed),
            FLAG_FOLDED_PROBES => Ok(ProbeSequence::Folded),
            both => Err(Error::corrupt(format_args!(
                "flags {both:#06x} name two probe sequences"
            ))),
        }
    }
}

/// Multiplies the mixed hash into the cubic sequence's third value z: the
/// second constant of SplitMix64's finalizer, an arbitrary odd number.
const BEND_MULTIPLIER: u64 = 0x94D0_49BB_1331_11EB;

/// The probes of one key in a table of `len` cells under
/// [`ProbeSequence::Linear`], as an endless iterator: probe j is
/// `reduce(x + j·y, len)`.
///
/// Why two types and not one with a runtime flag: a filter dispatches on its
/// sequence once per call and then runs a loop generic over the probe type,
/// so the linear loop carries none of the cubic arithmetic. A single type
/// with z = 0 for the linear case measured 20 % slower 1M-key lookups: the
/// compiler merged the two copies of the loop and kept the cubic adds.
///
/// Positions may repeat within one key (about k²/2·len of the time); a
/// filter must treat a repeat as two touches of the same cell.
#[derive(Clone, Copy, Debug)]
pub struct LinearProbes {
    /// x + j·y for the next j.
    next: u64,
    /// y.
    step: u64,
    len: usize,
}

impl LinearProbes {
    /// Starts the probes of the key whose raw (unmixed) 64-bit hash is
    /// `hash`, in a table of `len` cells, under [`ProbeSequence::Linear`]:
    /// x = [`mix64`]`(hash)`. Every filter has `len ≥ 1`; with `len = 0`
    /// every probe is 0, which no table can hold.
    #[inline(always)]
    pub fn new(hash: u64, len: usize) -> Self {
        Self::from_start(mix64(hash), len)
    }

    /// As [`new`](Self::new), under [`ProbeSequence::Folded`]:
    /// x = [`folded_product`]`(hash)`.
    #[inline(always)]
    pub fn folded(hash: u64, len: usize) -> Self {
        Self::from_start(folded_product(hash), len)
    }

    /// As [`new`](Self::new), with x = `hash` itself, unmixed: the start
    /// of [`ProbeSequence::Linear`] and [`ProbeSequence::Folded`] in a
    /// filter of [`UniformHashes`](crate::UniformHashes), whose hashes are
    /// spread already, so that the mix would only delay the first load.
    #[inline(always)]
    pub fn from_uniform_hash(hash: u64, len: usize) -> Self {
        Self::from_start(hash, len)
    }

    /// [`new`](Self::new) in a filter of hash quality `Q`:
    /// [`from_uniform_hash`](Self::from_uniform_hash) for
    /// [`UniformHashes`](crate::UniformHashes). `Q` is a type, so only one
    /// arm is compiled.
    #[inline(always)]
    pub fn new_for<Q: HashQuality>(hash: u64, len: usize) -> Self {
        if Q::UNIFORM {
            Self::from_uniform_hash(hash, len)
        } else {
            Self::new(hash, len)
        }
    }

    /// [`folded`](Self::folded) in a filter of hash quality `Q`: the same
    /// sequence as [`new_for`](Self::new_for) for
    /// [`UniformHashes`](crate::UniformHashes), since the linear and folded
    /// sequences differ only in how they mix the hash.
    #[inline(always)]
    pub fn folded_for<Q: HashQuality>(hash: u64, len: usize) -> Self {
        if Q::UNIFORM {
            Self::from_uniform_hash(hash, len)
        } else {
            Self::folded(hash, len)
        }
    }

    /// The probes whose first value, before reduction, is `x`; the step is
    /// x rotated by 32 bits, salted.
    #[inline(always)]
    fn from_start(x: u64, len: usize) -> Self {
        LinearProbes {
            next: x,
            step: x.rotate_left(32) ^ STEP_SALT,
            len,
        }
    }
}

/// The first probe value of [`ProbeSequence::Folded`]: the 128-bit product
/// of `hash` and `hash` rotated by 32 bits, each xored with a constant,
/// folded to 64 bits by xoring its high half into its low half.
///
/// One multiply, where [`mix64`] takes two in a row, and the two factors
/// are computed side by side, so the value is ready in about half the
/// time. A product of two functions of the hash is quadratic in it, not
/// linear as one multiply by a constant is: sequential, strided and
/// multiplied ids do not map to an arithmetic progression (see the module
/// docs for what that costs and what was measured). Not a bijection, so
/// distinct hashes can share a value; for 2^25 sequential, strided
/// (2^20, 2^32), φ-multiplied and half-repeated ids (i | i << 32) none did,
/// and the values' top 40 bits, which pick the positions, collided 488 to
/// 526 times per shape where random values give 512 (a throwaway check).
///
/// The blocked counting filter (format 1.5,
/// [`FLAG_FOLDED_PAIR`](crate::format::FLAG_FOLDED_PAIR)) takes a
/// key's two words from this of `hash` and of `hash` xor the golden ratio:
/// two products whose factors differ by constants, computed side by side
/// (`counting-bloom`'s docs give the rates this measured).
#[inline(always)]
pub const fn folded_product(hash: u64) -> u64 {
    let a = (hash ^ FOLD_SALT_LOW) as u128;
    let b = (hash.rotate_left(32) ^ FOLD_SALT_HIGH) as u128;
    let product = a * b;
    (product as u64) ^ ((product >> 64) as u64)
}

impl LinearProbes {
    /// The next probe's value before reduction, and the step between
    /// values: the probes from here on are `reduce(next + i·step, len)` for
    /// i = 0, 1, … (all mod 2^64). For code that computes several probes at
    /// once, such as a vector lookup, which must reach the same positions
    /// as this iterator.
    #[inline(always)]
    pub fn next_and_step(&self) -> (u64, u64) {
        (self.next, self.step)
    }
}

impl Iterator for LinearProbes {
    type Item = usize;

    /// The next probe, in `0..len`. Never `None`: the sequence is endless,
    /// and a filter takes its k.
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let position = reduce(self.next, self.len);
        self.next = self.next.wrapping_add(self.step);
        Some(position)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// The probes of one key in a table of `len` cells under
/// [`ProbeSequence::Cubic`], as an endless iterator: probe j is
/// `reduce(x + j·y + (j³ − j)/6 · z, len)` mod 2^64, with x and y as in
/// [`LinearProbes`] and z = x · an odd constant.
///
/// The iterator keeps the differences, so each probe costs three adds and
/// a multiply-shift, and no probe depends on a loaded value.
#[derive(Clone, Copy, Debug)]
pub struct CubicProbes {
    /// x + j·y + T(j)·z for the next j, T(j) = (j³ − j)/6.
    next: u64,
    /// The next difference, y + j(j+1)/2 · z.
    step: u64,
    /// The next difference of the difference, (j + 1)·z.
    bend: u64,
    /// z.
    bend_step: u64,
    len: usize,
}

impl CubicProbes {
    /// Starts the probes of the key whose raw (unmixed) 64-bit hash is
    /// `hash`, in a table of `len` cells. Every filter has `len ≥ 1`; with
    /// `len = 0` every probe is 0, which no table can hold.
    #[inline(always)]
    pub fn new(hash: u64, len: usize) -> Self {
        Self::from_start(mix64(hash), len)
    }

    /// As [`new`](Self::new), with x = `hash` itself, unmixed, as
    /// [`LinearProbes::from_uniform_hash`]: for a filter of
    /// [`UniformHashes`](crate::UniformHashes).
    #[inline(always)]
    pub fn from_uniform_hash(hash: u64, len: usize) -> Self {
        Self::from_start(hash, len)
    }

    /// [`new`](Self::new) in a filter of hash quality `Q`, as
    /// [`LinearProbes::new_for`].
    #[inline(always)]
    pub fn new_for<Q: HashQuality>(hash: u64, len: usize) -> Self {
        if Q::UNIFORM {
            Self::from_uniform_hash(hash, len)
        } else {
            Self::new(hash, len)
        }
    }

    /// The probes whose first value, before reduction, is `x`.
    #[inline(always)]
    fn from_start(x: u64, len: usize) -> Self {
        let z = x.wrapping_mul(BEND_MULTIPLIER);
        CubicProbes {
            next: x,
            step: x.rotate_left(32) ^ STEP_SALT,
            bend: z,
            bend_step: z,
            len,
        }
    }
}

impl Iterator for CubicProbes {
    type Item = usize;

    /// The next probe, in `0..len`. Never `None`.
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let position = reduce(self.next, self.len);
        self.next = self.next.wrapping_add(self.step);
        self.step = self.step.wrapping_add(self.bend);
        self.bend = self.bend.wrapping_add(self.bend_step);
        Some(position)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// The probes of one key in a table of `len` cells under
/// [`ProbeSequence::Hashed`], as an endless iterator: probe j is
/// `reduce(mix64(x + j·y), len)` mod 2^64, with x and y as in
/// [`LinearProbes`].
///
/// Each probe costs an add, the mix (two multiplies) and a multiply-shift;
/// as in the other sequences no probe depends on a loaded value, so the
/// mixes of one key overlap.
#[derive(Clone, Copy, Debug)]
pub struct HashedProbes {
    /// x + j·y for the next j, before the mix.
    next: u64,
    /// y.
    step: u64,
    len: usize,
}

impl HashedProbes {
    /// Starts the probes of the key whose raw (unmixed) 64-bit hash is
    /// `hash`, in a table of `len` cells. Every filter has `len ≥ 1`; with
    /// `len = 0` every probe is 0, which no table can hold.
    #[inline(always)]
    pub fn new(hash: u64, len: usize) -> Self {
        Self::from_linear(LinearProbes::new(hash, len))
    }

    /// As [`new`](Self::new), with x = `hash` itself, unmixed, as
    /// [`LinearProbes::from_uniform_hash`]: for a filter of
    /// [`UniformHashes`](crate::UniformHashes). Each probe is still mixed,
    /// since that mix makes the probes of one key independent of each
    /// other, which a uniform hash alone does not.
    #[inline(always)]
    pub fn from_uniform_hash(hash: u64, len: usize) -> Self {
        Self::from_linear(LinearProbes::from_uniform_hash(hash, len))
    }

    /// [`new`](Self::new) in a filter of hash quality `Q`, as
    /// [`LinearProbes::new_for`].
    #[inline(always)]
    pub fn new_for<Q: HashQuality>(hash: u64, len: usize) -> Self {
        Self::from_linear(LinearProbes::new_for::<Q>(hash, len))
    }

    /// The linear sequence's values, to be mixed one by one.
    #[inline(always)]
    fn from_linear(linear: LinearProbes) -> Self {
        let LinearProbes { next, step, len } = linear;
        HashedProbes { next, step, len }
    }
}

impl Iterator for HashedProbes {
    type Item = usize;

    /// The next probe, in `0..len`. Never `None`.
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let position = reduce(mix64(self.next), self.len);
        self.next = self.next.wrapping_add(self.step);
        Some(position)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// The first `k` probes of the key whose raw hash is `hash` in a table of
/// `len` cells probed by `sequence`, collected: for tests, diagnostics and
/// cold paths. Hot paths match on the sequence and run a loop generic over
/// [`LinearProbes`] / [`CubicProbes`] / [`HashedProbes`]. Allocates `k`
/// positions, so `k` is
/// a filter's hash count, not an arbitrary `u32`.
pub fn probe_positions(hash: u64, len: usize, sequence: ProbeSequence, k: u32) -> Vec<usize> {
    let k = k as usize;
    match sequence {
        ProbeSequence::Linear => LinearProbes::new(hash, len).take(k).collect(),
        ProbeSequence::Cubic => CubicProbes::new(hash, len).take(k).collect(),
        ProbeSequence::Hashed => HashedProbes::new(hash, len).take(k).collect(),
        ProbeSequence::Folded => LinearProbes::folded(hash, len).take(k).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_in_range_and_spread() {
        // The last is 2^40 − 1 on 64-bit targets (2^8 − 1 on 32-bit ones).
        let lens = [1usize, 2, 63, 64, 65, 1000, 9_585_059, usize::MAX >> 24];
        for (len, sequence) in lens
            .into_iter()
            .flat_map(|len| ProbeSequence::ALL.map(|sequence| (len, sequence)))
        {
            for hash in [0u64, 1, u64::MAX, 0xDEAD_BEEF, 12345] {
                let ps = probe_positions(hash, len, sequence, 20);
                assert_eq!(ps.len(), 20);
                assert!(ps.iter().all(|&p| p < len), "{len}: {ps:?}");
                // Twenty probes in a table of a million cells or more
                // repeat a cell with probability below 20²/2·10^6 = 0.02 %;
                // in smaller tables repeats are expected and allowed.
                if len >= 1_000_000 {
                    let mut distinct = ps.clone();
                    distinct.sort_unstable();
                    distinct.dedup();
                    assert_eq!(distinct.len(), 20, "{len}: {ps:?}");
                }
            }
        }
    }

    #[test]
    fn next_and_step_predict_the_linear_probes() {
        for (hash, len) in [(0u64, 1usize), (u64::MAX, 63), (0xDEAD_BEEF, 9_585_059)] {
            let mut probes = LinearProbes::new(hash, len);
            probes.next();
            let (next, step) = probes.next_and_step();
            let predicted: Vec<usize> = (0..20u64)
                .map(|i| reduce(next.wrapping_add(step.wrapping_mul(i)), len))
                .collect();
            assert_eq!(predicted, probes.take(20).collect::<Vec<_>>());
        }
    }

    #[test]
    fn small_tables_get_the_cubic_sequence_and_the_smallest_the_hashed() {
        use ProbeSequence::{Cubic, Folded, Hashed};
        // At k = 7 the lines are 2^(1 + 5) = 64 and 64 · 2^7 = 8192 cells.
        assert_eq!(ProbeSequence::for_table(63, 7), Hashed);
        assert_eq!(ProbeSequence::for_table(64, 7), Cubic);
        assert_eq!(ProbeSequence::for_table(8191, 7), Cubic);
        assert_eq!(ProbeSequence::for_table(8192, 7), Folded);
        // At k = 1 they are 2 and 128 cells.
        assert_eq!(ProbeSequence::for_table(1, 1), Hashed);
        assert_eq!(ProbeSequence::for_table(2, 1), Cubic);
        assert_eq!(ProbeSequence::for_table(128, 1), Folded);
        // At k = 26 (10^−8) the first is 2^20 cells.
        assert_eq!(ProbeSequence::for_table((1 << 20) - 1, 26), Hashed);
        assert_eq!(ProbeSequence::for_table(1 << 20, 26), Cubic);
        // From k = 58 the cubic line is past every table a 64-bit `usize`
        // counts, from k = 84 the hashed one.
        if cfg!(target_pointer_width = "64") {
            assert_eq!(ProbeSequence::for_table(usize::MAX, 57), Folded);
            assert_eq!(ProbeSequence::for_table(usize::MAX, 58), Cubic);
            assert_eq!(ProbeSequence::for_table(usize::MAX, 83), Cubic);
            assert_eq!(ProbeSequence::for_table(usize::MAX, 84), Hashed);
        }
        assert_eq!(ProbeSequence::for_table(usize::MAX, u32::MAX), Hashed);
    }

    #[test]
    fn header_flags_round_trip_and_two_sequences_are_refused() {
        for sequence in ProbeSequence::ALL {
            let flags = sequence.header_flags();
            assert_eq!(flags & !ProbeSequence::HEADER_FLAGS, 0);
            assert_eq!(ProbeSequence::from_header_flags(flags), Ok(sequence));
        }
        for a in ProbeSequence::ALL {
            for b in ProbeSequence::ALL {
                let flags = a.header_flags() | b.header_flags();
                if a != b && a.header_flags() != 0 && b.header_flags() != 0 {
                    let err = ProbeSequence::from_header_flags(flags).unwrap_err();
                    assert!(
                        err.to_string().contains("name two probe sequences"),
                        "{err}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_iterator_follows_the_closed_form() {
        // The iterators keep differences; the documented sequences are
        // reduce(x + j·y + (j³ − j)/6 · z) and reduce(mix64(x + j·y)).
        // (j³ − j)/6 is exact in u64 for these j, so the two must agree
        // probe for probe. The folded sequence is the linear one from
        // another x, written out here from its definition.
        for len in [1usize, 96, 1000, 9_585_059] {
            for hash in [0u64, 7, 0xDEAD_BEEF, u64::MAX] {
                for sequence in ProbeSequence::ALL {
                    let x = match sequence {
                        ProbeSequence::Folded => {
                            let a = u128::from(hash ^ FOLD_SALT_LOW);
                            let b = u128::from(hash.rotate_left(32) ^ FOLD_SALT_HIGH);
                            let product = a * b;
                            (product >> 64) as u64 ^ product as u64
                        }
                        _ => mix64(hash),
                    };
                    let y = x.rotate_left(32) ^ STEP_SALT;
                    let probes = probe_positions(hash, len, sequence, 300);
                    for (j, &p) in probes.iter().enumerate() {
                        let j = j as u64;
                        let linear = x.wrapping_add(j.wrapping_mul(y));
                        let cubic = (j * j * j - j) / 6;
                        let z = x.wrapping_mul(BEND_MULTIPLIER);
                        let value = match sequence {
                            ProbeSequence::Linear | ProbeSequence::Folded => linear,
                            ProbeSequence::Cubic => linear.wrapping_add(cubic.wrapping_mul(z)),
                            ProbeSequence::Hashed => mix64(linear),
                        };
                        let expected = reduce(value, len);
                        assert_eq!(p, expected, "{sequence:?} len {len} hash {hash} j {j}");
                    }
                }
            }
        }
    }

    #[test]
    fn uniform_starts_skip_only_the_first_mix() {
        // Given the value the mixing constructors would start from, the
        // uniform ones probe the same cells: they differ in x alone, and
        // the hashed sequence keeps mixing each probe.
        let take = |probes: &mut dyn Iterator<Item = usize>| probes.take(30).collect::<Vec<_>>();
        for len in [1usize, 96, 1000, 9_585_059] {
            for hash in [0u64, 7, 0xDEAD_BEEF, u64::MAX] {
                let x = mix64(hash);
                assert_eq!(
                    take(&mut LinearProbes::from_uniform_hash(x, len)),
                    take(&mut LinearProbes::new(hash, len))
                );
                assert_eq!(
                    take(&mut CubicProbes::from_uniform_hash(x, len)),
                    take(&mut CubicProbes::new(hash, len))
                );
                assert_eq!(
                    take(&mut HashedProbes::from_uniform_hash(x, len)),
                    take(&mut HashedProbes::new(hash, len))
                );
                let folded = folded_product(hash);
                assert_eq!(
                    take(&mut LinearProbes::from_uniform_hash(folded, len)),
                    take(&mut LinearProbes::folded(hash, len))
                );
                // The quality-generic starts pick the one their type names.
                use crate::{AnyHashes, UniformHashes};
                assert_eq!(
                    take(&mut LinearProbes::new_for::<AnyHashes>(hash, len)),
                    take(&mut LinearProbes::new(hash, len))
                );
                assert_eq!(
                    take(&mut LinearProbes::folded_for::<AnyHashes>(hash, len)),
                    take(&mut LinearProbes::folded(hash, len))
                );
                assert_eq!(
                    take(&mut CubicProbes::new_for::<AnyHashes>(hash, len)),
                    take(&mut CubicProbes::new(hash, len))
                );
                assert_eq!(
                    take(&mut HashedProbes::new_for::<AnyHashes>(hash, len)),
                    take(&mut HashedProbes::new(hash, len))
                );
                for mut uniform in [
                    LinearProbes::new_for::<UniformHashes>(hash, len),
                    LinearProbes::folded_for::<UniformHashes>(hash, len),
                ] {
                    assert_eq!(
                        take(&mut uniform),
                        take(&mut LinearProbes::from_uniform_hash(hash, len))
                    );
                }
                assert_eq!(
                    take(&mut CubicProbes::new_for::<UniformHashes>(hash, len)),
                    take(&mut CubicProbes::from_uniform_hash(hash, len))
                );
                assert_eq!(
                    take(&mut HashedProbes::new_for::<UniformHashes>(hash, len)),
                    take(&mut HashedProbes::from_uniform_hash(hash, len))
                );
            }
        }
    }

    #[test]
    fn cubic_probes_do_not_collapse_onto_few_cells() {
        // Keys whose 10 probes cover at most 3 of 1000 cells: under the
        // linear sequence a step near a fraction with a small denominator
        // does that for a fraction of the keys near 1/len (the cause of the
        // small-table excess). Ten uniform probes cover at most 3 cells with
        // probability about C(1000, 3) · 3^10 / 1000^10 ≈ 10^−17, so the
        // cubic sequence, if it works, gives none in 200,000 keys.
        let (len, k) = (1000, 10);
        let collapsed = |sequence| {
            (0..200_000u64)
                .filter(|&h| {
                    let mut cells = probe_positions(h, len, sequence, k);
                    cells.sort_unstable();
                    cells.dedup();
                    cells.len() <= 3
                })
                .count()
        };
        let linear = collapsed(ProbeSequence::Linear);
        let cubic = collapsed(ProbeSequence::Cubic);
        // Measured: 179 linear keys (0.9/len), so more than 20 is far past
        // chance and a regression to linear probes would fail the second
        // assertion.
        assert!(linear > 20, "linear {linear}");
        assert_eq!(cubic, 0);
    }

    #[test]
    fn every_sequence_keeps_its_positions() {
        // Serialized filters hold bits set at these positions: a change to
        // any sequence (or to mix64, reduce or the constants) would make
        // every stored filter of that sequence lose members. Values taken
        // when each sequence was added (the folded one in format 1.4, the
        // others by 1.3).
        let expected = [
            (
                ProbeSequence::Linear,
                [304, 752, 200, 648, 96, 544, 991, 439],
            ),
            (
                ProbeSequence::Cubic,
                [304, 752, 934, 584, 435, 223, 681, 542],
            ),
            (
                ProbeSequence::Hashed,
                [353, 303, 842, 441, 434, 115, 463, 594],
            ),
            (
                ProbeSequence::Folded,
                [405, 487, 569, 652, 734, 816, 899, 981],
            ),
        ];
        for (sequence, positions) in expected {
            assert_eq!(
                probe_positions(0xDEAD_BEEF, 1000, sequence, 8),
                positions,
                "{sequence:?}"
            );
        }
    }

    #[test]
    fn hashed_probes_do_not_bunch_where_cubic_ones_still_do() {
        // One key at 10^−6: 33 cells, k = 19. Nineteen independent probes
        // cover at most 7 of 33 cells with probability 4.6·10^−7 (exact,
        // by the occupancy recurrence), so 200,000 keys expect 0.09 such
        // keys. The cubic sequence measured 33 (about 160 in a million), which
        // is what held the rate of a one-key table at 2.2× its target; the
        // hashed one 1 in a million, as independent probes.
        let (len, k) = (33, 19);
        let bunched = |sequence| {
            (0..200_000u64)
                .filter(|&h| {
                    let mut cells = probe_positions(h, len, sequence, k);
                    cells.sort_unstable();
                    cells.dedup();
                    cells.len() <= 7
                })
                .count()
        };
        let cubic = bunched(ProbeSequence::Cubic);
        let hashed = bunched(ProbeSequence::Hashed);
        assert!(cubic > 10, "cubic {cubic}");
        // Poisson(0.09) exceeds 2 with probability 1.1·10^−4.
        assert!(hashed <= 2, "hashed {hashed}");
    }

    #[test]
    fn hash_zero_gets_k_distinct_probes() {
        for sequence in ProbeSequence::ALL {
            let ps = probe_positions(0, 1 << 20, sequence, 10);
            let mut distinct = ps.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), 10, "{sequence:?}: {ps:?}");
        }
    }

    #[test]
    fn sequential_hashes_spread_over_the_table() {
        // A poor user hash (sequential ids) must still fill every region.
        let len = 1024;
        let mut seen = vec![false; len];
        for h in 0..2000u64 {
            seen[probe_positions(h, len, ProbeSequence::Linear, 1)[0]] = true;
        }
        let filled = seen.iter().filter(|&&s| s).count();
        // 2000 uniform throws into 1024 cells leave ≈ 1024·e^(−2000/1024) ≈ 145
        // empty, so ≈ 879 filled with σ ≈ 9; without mixing all land in cell 0.
        assert!(filled > 800, "{filled}");
    }

    #[test]
    fn every_probe_is_spread_not_only_the_first() {
        // 200 keys × 3 probes into 1000 cells cover 1 − e^(−0.6) ≈ 45 % of
        // them on average (σ ≈ 1.6 %); a step y stuck near zero would leave
        // the later probes on top of the first and cover about 18 %.
        let len = 1000;
        let mut seen = vec![false; len];
        for h in 0..200u64 {
            for p in probe_positions(h, len, ProbeSequence::Linear, 3) {
                seen[p] = true;
            }
        }
        let covered = seen.iter().filter(|&&s| s).count();
        assert!(covered > 380, "covered {covered}");
    }
}
