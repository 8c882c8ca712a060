//! Sizing math: how many bits and hashes a target false-positive rate needs,
//! and what rate a given size achieves.
//!
//! Every function checks its inputs and returns [`Error::InvalidParameter`]
//! for NaN, infinities, rates outside (0, 1), zero item counts and sizes that
//! would overflow, so constructors can pass user input straight through.
//!
//! The formulas (n items, m bits, k hashes, p the false-positive rate):
//!
//! | quantity | formula |
//! | --- | --- |
//! | classic Bloom bits | m = ⌈−n ln p / (ln 2)²⌉ |
//! | classic Bloom hashes | k = round(m/n · ln 2), at least 1 |
//! | classic Bloom rate | (1 − e^(−kn/m))^k |
//! | blocked Bloom rate | Σ_i Poisson(i; λ = n·B/m) · rate of one B-bit block holding i items |
//! | cuckoo fingerprint bits | f = ⌈log2(2b / p)⌉ |
//! | lower bound | log2(1/p) bits per key, for any filter |

use std::fmt::Display;
use std::ops::RangeInclusive;

use crate::Error;

/// The largest bit count any filter may be sized to: 2^46 bits (8 TiB of
/// table). Beyond this, allocation would fail on any real machine; refusing
/// early turns an abort into an error that names the limit.
pub const MAX_BITS: u64 = 1 << 46;

/// Checks that `fpr` lies in the open interval (0, 1).
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `fpr` for NaN, infinities, 0, 1 and
/// anything outside.
pub fn check_fpr(fpr: f64) -> Result<f64, Error> {
    if fpr.is_finite() && fpr > 0.0 && fpr < 1.0 {
        Ok(fpr)
    } else {
        Err(Error::invalid("fpr", fpr, "in the open interval (0, 1)"))
    }
}

/// Checks that `expected_items` is at least 1.
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `expected_items` when it is 0.
pub fn check_items(expected_items: usize) -> Result<usize, Error> {
    if expected_items == 0 {
        Err(Error::invalid("expected_items", 0, "at least 1"))
    } else {
        Ok(expected_items)
    }
}

/// Checks that `value` lies in `range`, naming `name` in the error.
///
/// ```
/// # use filter_core::sizing::check_range;
/// assert_eq!(check_range("hashes", 7u32, 1..=64)?, 7);
/// let err = check_range("hashes", 0u32, 1..=64).unwrap_err();
/// assert_eq!(err.to_string(), "hashes must be in 1..=64, got 0");
/// # Ok::<(), filter_core::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `name`, the value and the range.
pub fn check_range<T>(name: &'static str, value: T, range: RangeInclusive<T>) -> Result<T, Error>
where
    T: PartialOrd + Display,
{
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(Error::invalid(
            name,
            &value,
            format_args!("in {}..={}", range.start(), range.end()),
        ))
    }
}

/// Checks that a bit count is in `1..=MAX_BITS`.
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `bits`.
pub fn check_bits(bits: u64) -> Result<u64, Error> {
    check_range("bits", bits, 1..=MAX_BITS)
}

/// Converts a computed (floating-point) bit count to an integer, refusing
/// results that are not finite or exceed [`MAX_BITS`].
fn bits_from_f64(bits: f64, expected_items: usize, fpr: f64) -> Result<u64, Error> {
    if bits.is_finite() && bits <= MAX_BITS as f64 {
        Ok((bits.ceil() as u64).max(1))
    } else {
        Err(Error::invalid(
            "expected_items",
            expected_items,
            format_args!("small enough that the filter fits in {MAX_BITS} bits at fpr {fpr}"),
        ))
    }
}

/// Optimal bit count of a classic Bloom filter for `expected_items` items at
/// false-positive rate `fpr`: m = ⌈−n ln p / (ln 2)²⌉.
///
/// ```
/// # use filter_core::sizing::bloom_bits;
/// assert_eq!(bloom_bits(1_000_000, 0.01)?, 9_585_059);
/// # Ok::<(), filter_core::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::InvalidParameter`] for `expected_items == 0`, an `fpr` outside
/// (0, 1), or a result above [`MAX_BITS`].
pub fn bloom_bits(expected_items: usize, fpr: f64) -> Result<u64, Error> {
    check_items(expected_items)?;
    check_fpr(fpr)?;
    let ln2 = std::f64::consts::LN_2;
    bits_from_f64(
        -(expected_items as f64) * fpr.ln() / (ln2 * ln2),
        expected_items,
        fpr,
    )
}

/// Optimal hash count for `bits` bits holding `expected_items` items:
/// k = round(m/n · ln 2), at least 1.
///
/// # Errors
///
/// [`Error::InvalidParameter`] for zero items, bits out of range, or more
/// than about 6.2·10^9 bits per item (a hash count past `u32::MAX`).
pub fn bloom_hashes(bits: u64, expected_items: usize) -> Result<u32, Error> {
    check_items(expected_items)?;
    check_bits(bits)?;
    let k = (bits as f64 / expected_items as f64 * std::f64::consts::LN_2).round();
    // m/n can reach 2^46, and k = 0.69 · 2^46 does not fit in u32: refuse
    // it rather than let `as` saturate to u32::MAX.
    if k > f64::from(u32::MAX) {
        return Err(Error::invalid(
            "bits",
            bits,
            format_args!(
                "at most {} per expected item ({expected_items} items), so that the hash count fits in a u32",
                (f64::from(u32::MAX) / std::f64::consts::LN_2).floor()
            ),
        ));
    }
    Ok((k as u32).max(1))
}

/// The textbook shape for `expected_items` items at `fpr`: ([`bloom_bits`],
/// [`bloom_hashes`]), m = ⌈−n ln p / (ln 2)²⌉ and k = round(m/n · ln 2),
/// for a filter that takes at most `max_hashes` hashes. Its rate is a
/// little above `fpr` (k is rounded); [`bloom_shape`] is the one that
/// meets it. Sizing searches use it as a lower bound.
///
/// A rate too small for the hash limit is refused naming `fpr` *before*
/// sizing: the optimal k = round(m/n · ln 2) with m ≥ −n ln p / (ln 2)² is
/// at least round(log2(1/p)) whatever n is, so log2(1/p) > `max_hashes` + ½
/// means no n can serve the rate, and blaming `expected_items` for the
/// table that would take (as sizing alone would at large n) sends the
/// caller the wrong way. (A hair of margin keeps floating-point rounding at
/// the boundary from refusing what the exact sizing accepts; the exact k
/// is checked too.)
///
/// ```
/// use filter_core::sizing::textbook_bloom_shape;
/// assert_eq!(textbook_bloom_shape(1_000_000, 0.01, 64)?, (9_585_059, 7));
/// let err = textbook_bloom_shape(1_000_000_000, 1e-30, 64).unwrap_err();
/// assert!(err.to_string().starts_with("fpr must be"), "{err}");
/// # Ok::<(), filter_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`bloom_bits`] and [`bloom_hashes`]; [`Error::InvalidParameter`]
/// naming `fpr` when its optimal hash count exceeds `max_hashes`.
pub fn textbook_bloom_shape(
    expected_items: usize,
    fpr: f64,
    max_hashes: u32,
) -> Result<(u64, u32), Error> {
    check_items(expected_items)?;
    check_fpr(fpr)?;
    let fewest = -fpr.log2();
    if fewest > f64::from(max_hashes) + 0.5 + 1e-9 {
        return Err(too_many_hashes(fpr, fewest.round() as u32, max_hashes));
    }
    let bits = bloom_bits(expected_items, fpr)?;
    let hashes = bloom_hashes(bits, expected_items)?;
    if hashes > max_hashes {
        return Err(too_many_hashes(fpr, hashes, max_hashes));
    }
    Ok((bits, hashes))
}

/// The shape of a classic Bloom filter that meets `fpr` with
/// `expected_items` items in the fewest bits, for a filter that takes at
/// most `max_hashes` hashes: of the two whole hash counts around the
/// continuous optimum log2(1/p), the one that needs fewer bits
/// m = ⌈−k·n / ln(1 − p^(1/k))⌉ (the fewer hashes on a tie).
///
/// Why not the textbook shape ([`textbook_bloom_shape`]): its m is the
/// optimum for a continuous k, and rounding k to a whole number raises the
/// rate at that m: to 1.0039 % at a 1 % target (k = 7 for an optimum of
/// 6.64), 0.1007 at 0.1. Growing m until the whole k meets the target costs
/// 0.08 % more bits at 1 %, 0.33 % at 0.1, almost nothing at 0.1 % (whose
/// optimum, 9.97, is nearly whole), and keeps the promise that
/// `with_fpr(n, p)` stays at p.
///
/// Then, with few keys, more bits still: the formula gives the rate at the
/// table's mean fill, but a small table's fill varies with its keys, and
/// the rate averaged over key sets is higher (at the size above, 1.55× p
/// for one key at 1 %, 1.09× for 10, 1.006× for 100). m grows until that
/// mean meets p (the occupancy model in `occupancy.rs`): 11 bits for one
/// key at 1 %, not 10;
/// at 10^6 keys, 2 bits more. The model is of independent probes, which the
/// probe sequences match (see [`crate::probes`], whose hashed sequence
/// exists for the smallest tables at tiny rates, where the cubic one did
/// not).
///
/// Above p = ½ the optimum is below one hash, and one hash needs
/// m = n / −ln(1 − p) bits, far more than the textbook formula: at
/// p = 0.85, 0.53 bits per key against 0.34, and the textbook size would
/// give a rate of 0.948. Near p = 1 the gap grows without bound (the
/// textbook size tends to zero bits), so very large `expected_items` at
/// such rates can exceed [`MAX_BITS`].
///
/// ```
/// use filter_core::sizing::bloom_shape;
/// assert_eq!(bloom_shape(1_000_000, 0.01, 64)?, (9_592_957, 7));
/// let err = bloom_shape(1_000_000_000, 1e-30, 64).unwrap_err();
/// assert!(err.to_string().starts_with("fpr must be"), "{err}");
/// # Ok::<(), filter_core::Error>(())
/// ```
///
/// # Errors
///
/// As [`textbook_bloom_shape`], and [`Error::InvalidParameter`] naming
/// `expected_items` when the fitting size exceeds [`MAX_BITS`].
pub fn bloom_shape(expected_items: usize, fpr: f64, max_hashes: u32) -> Result<(u64, u32), Error> {
    let (textbook, _) = textbook_bloom_shape(expected_items, fpr, max_hashes)?;
    let optimum = -fpr.log2();
    // The whole counts around the optimum that the limit allows (at least
    // one: the floor may be 0, and the check above keeps the ceiling's
    // round-down within the limit).
    let [fewer, more] = [optimum.floor(), optimum.ceil()].map(|k| (k as u32).clamp(1, max_hashes));
    let shape = |hashes| fitting_bits(expected_items, fpr, hashes).map(|bits| (bits, hashes));
    // The fewer bits; on a tie (or one count only) the fewer hashes.
    let (bits, hashes) = match (shape(fewer), shape(more)) {
        (Ok(a), Ok(b)) if b.0 < a.0 => b,
        (Ok(a), _) | (Err(_), Ok(a)) => a,
        (Err(e), Err(_)) => return Err(e),
    };
    // Never below the textbook size, which is the optimum over every k.
    let bits = bits.max(textbook);
    Ok((
        meeting_mean_rate(bits, expected_items, fpr, hashes)?,
        hashes,
    ))
}

/// The fewest bits, at least `bits`, at which the rate averaged over key
/// sets ([`occupancy::mean_bloom_fpr`](crate::occupancy)) meets `fpr`: what
/// few keys need beyond the formula, whose rate is that of the mean fill.
fn meeting_mean_rate(
    bits: u64,
    expected_items: usize,
    fpr: f64,
    hashes: u32,
) -> Result<u64, Error> {
    let meets = |bits: u64| crate::occupancy::mean_bloom_fpr(bits, expected_items, hashes) <= fpr;
    if meets(bits) {
        return Ok(bits);
    }
    // Grow by a sixteenth (one bit at least) until the rate is met, then
    // bisect; a handful of keys needs at most a fifth more, and many keys
    // a few bits.
    let (mut lo, mut hi) = (bits, bits);
    loop {
        if hi >= MAX_BITS {
            return bits_from_f64(f64::INFINITY, expected_items, fpr);
        }
        hi = hi.saturating_add((hi / 16).max(1)).min(MAX_BITS);
        if meets(hi) {
            break;
        }
        lo = hi;
    }
    first_meeting(lo, hi, |bits| Ok(meets(bits)))
}

/// The smallest size in `lo + 1 ..= hi` that `meets`, by bisection, for a
/// condition that holds from some size on (more space, lower rate) and
/// where `lo` fails and `hi` meets: what every sizing search here, and the
/// blocked counting filter's, ends with once it has bracketed its answer.
///
/// ```
/// use filter_core::sizing::first_meeting;
/// let fewest = first_meeting(10, 1000, |m| Ok(m * m >= 5000))?;
/// assert_eq!(fewest, 71);
/// # Ok::<(), filter_core::Error>(())
/// ```
///
/// # Errors
///
/// The first error `meets` returns.
pub fn first_meeting(
    mut lo: u64,
    mut hi: u64,
    mut meets: impl FnMut(u64) -> Result<bool, Error>,
) -> Result<u64, Error> {
    while hi.saturating_sub(lo) > 1 {
        let mid = lo + (hi - lo) / 2;
        if meets(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

/// The fewest bits at which `hashes` hashes per item meet `fpr` with
/// `expected_items` items: ⌈−k·n / ln(1 − p^(1/k))⌉.
fn fitting_bits(expected_items: usize, fpr: f64, hashes: u32) -> Result<u64, Error> {
    // 1 − p^(1/k) as −expm1(ln p / k): exact also where p^(1/k) is close
    // to 1 (large k, or p close to 1).
    let k = f64::from(hashes);
    let unset = -(fpr.ln() / k).exp_m1();
    bits_from_f64(-k * expected_items as f64 / unset.ln(), expected_items, fpr)
}

/// `error` from building a table of `size` `unit` (the parameter that
/// names it: `"bits"`, `"counters"`, `"blocks"`) for `expected_items` items
/// at `fpr`, as the caller of a `with_fpr` should read it: that caller chose
/// the item count, not the table size, so a table that cannot be allocated
/// is reported against `expected_items`. Other errors pass through.
pub fn blame_items(
    error: Error,
    unit: &'static str,
    size: u64,
    expected_items: usize,
    fpr: f64,
) -> Error {
    match error {
        Error::InvalidParameter { name, .. } if name == unit => Error::invalid(
            "expected_items",
            expected_items,
            format_args!("small enough that its {size} {unit} at fpr {fpr} can be allocated"),
        ),
        other => other,
    }
}

/// The error for a rate whose optimal hash count `hashes` exceeds `limit`.
fn too_many_hashes(fpr: f64, hashes: u32, limit: u32) -> Error {
    // About the smallest rate the limit allows: log2(1/p) = limit + ½.
    let smallest = (-(f64::from(limit) + 0.5)).exp2();
    Error::invalid(
        "fpr",
        fpr,
        format_args!(
            "large enough that the optimal hash count is at most {limit} \
             (it would be {hashes}; about {smallest:.1e} is the smallest such rate \
             at large counts, somewhat more for a handful of items)"
        ),
    )
}

/// Expected false-positive rate of a classic Bloom filter with `bits` bits,
/// `hashes` hash functions and `items` items: (1 − e^(−kn/m))^k.
///
/// # Errors
///
/// [`Error::InvalidParameter`] for bits out of range or zero hashes.
pub fn bloom_fpr(bits: u64, items: usize, hashes: u32) -> Result<f64, Error> {
    check_bits(bits)?;
    check_hashes(hashes)?;
    Ok(bloom_fpr_unchecked(bits as f64, items as f64, hashes))
}

fn check_hashes(hashes: u32) -> Result<u32, Error> {
    if hashes == 0 {
        Err(Error::invalid("hashes", 0, "at least 1"))
    } else {
        Ok(hashes)
    }
}

fn bloom_fpr_unchecked(bits: f64, items: f64, hashes: u32) -> f64 {
    (1.0 - (-(hashes as f64) * items / bits).exp()).powf(f64::from(hashes))
}

/// How a blocked Bloom filter sets a key's `k` bits inside its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockLayout {
    /// k bits anywhere in the block (a classic Bloom filter per block).
    Free,
    /// The block is split into k equal lanes and one bit is set in each
    /// (the "split block" layout of Parquet and Impala).
    Split,
}

/// Expected false-positive rate of a blocked Bloom filter: `bits` bits in
/// blocks of `block_bits`, `hashes` bits per key, `items` items.
///
/// Keys land in blocks at random, so a block's load is Poisson distributed
/// around its mean λ = n·B/m; overloaded blocks contribute most of the false
/// positives, which is why blocking costs bits at a given rate. The rate is
/// the Poisson-weighted mean of the rate of one block holding i items.
///
/// # Errors
///
/// [`Error::InvalidParameter`] for bits out of range, zero hashes, a block
/// that does not divide into `hashes` lanes (split layout) or is larger than
/// the filter.
pub fn blocked_bloom_fpr(
    bits: u64,
    items: usize,
    hashes: u32,
    block_bits: u32,
    layout: BlockLayout,
) -> Result<f64, Error> {
    check_bits(bits)?;
    check_hashes(hashes)?;
    if block_bits == 0 || u64::from(block_bits) > bits {
        return Err(Error::invalid(
            "block_bits",
            block_bits,
            format_args!("in 1..={}", bits.min(u64::from(u32::MAX))),
        ));
    }
    if layout == BlockLayout::Split && block_bits % hashes != 0 {
        return Err(Error::invalid(
            "block_bits",
            block_bits,
            format_args!("a multiple of hashes ({hashes}) for the split layout"),
        ));
    }
    let b = f64::from(block_bits);
    let in_block = |load: f64| block_rate(load, hashes, block_bits, layout);
    let lambda = items as f64 * b / bits as f64;
    if lambda == 0.0 {
        return Ok(0.0);
    }
    // Sum the Poisson weights in log space so that large means do not
    // underflow e^(−λ); stop well past the mean, where the weights are
    // negligible (30 standard deviations plus a margin for small λ).
    let spread = 30.0 * lambda.sqrt() + 30.0;
    let last = (lambda + spread).ceil() as u64;
    let ln_lambda = lambda.ln();
    // Loads as far below the mean weigh as little. Below λ ≈ 960 that
    // reaches 0 and the sum runs from 0, as it always did; above, it starts
    // there, so that it takes O(√λ) terms rather than O(λ): λ is the items
    // per block, which a caller can make as large as usize::MAX (one block
    // of usize::MAX items never returned).
    let first = (lambda - spread).floor().max(0.0) as u64;
    if first == 0 {
        let mut ln_weight = -lambda;
        let mut total = 0.0;
        for load in 0..=last {
            if load > 0 {
                ln_weight += ln_lambda - (load as f64).ln();
            }
            total += ln_weight.exp() * in_block(load as f64);
        }
        return Ok(total.min(1.0));
    }
    if in_block(first as f64) >= 1.0 {
        // Every load that carries weight fills the block: the sum is the
        // total Poisson weight, 1.
        return Ok(1.0);
    }
    // Walk out from the mode, whose weight is computed directly.
    let mode = lambda.floor() as u64;
    let mut total = 0.0;
    let mut ln_weight = ln_poisson(mode, lambda);
    for load in mode..=last {
        if load > mode {
            ln_weight += ln_lambda - (load as f64).ln();
        }
        total += ln_weight.exp() * in_block(load as f64);
    }
    let mut ln_weight = ln_poisson(mode, lambda);
    for load in (first..mode).rev() {
        ln_weight -= ln_lambda - ((load + 1) as f64).ln();
        total += ln_weight.exp() * in_block(load as f64);
    }
    Ok(total.min(1.0))
}

/// ln of the Poisson weight of `n` (at least 900) at mean `lambda`:
/// −λ + n ln λ − ln n!, with ln n! from Stirling's series (the first omitted
/// term, 1/(1680·n^7), is below 10^−23 here), rearranged as
/// n·(ln(1 + x) − x) − ½ ln(2πn) − corrections, x = (λ − n)/n, so that no
/// two large terms cancel.
fn ln_poisson(n: u64, lambda: f64) -> f64 {
    let n = n as f64;
    let x = (lambda - n) / n;
    n * (x.ln_1p() - x)
        - 0.5 * (std::f64::consts::TAU * n).ln()
        - (1.0 / (12.0 * n) - 1.0 / (360.0 * n.powi(3)) + 1.0 / (1260.0 * n.powi(5)))
}

/// The false-positive rate of one block of `block_bits` bits holding `load`
/// keys of `hashes` bits each (the shape already validated).
fn block_rate(load: f64, hashes: u32, block_bits: u32, layout: BlockLayout) -> f64 {
    let b = f64::from(block_bits);
    match layout {
        BlockLayout::Free => bloom_fpr_unchecked(b, load, hashes),
        BlockLayout::Split => {
            let lane = b / f64::from(hashes);
            (1.0 - (1.0 - 1.0 / lane).powf(load)).powf(f64::from(hashes))
        }
    }
}

/// The smallest bit count (a multiple of `block_bits`) at which a blocked
/// Bloom filter with `hashes` bits per key and `expected_items` items meets
/// `fpr` by [`blocked_bloom_fpr`].
///
/// # Errors
///
/// As [`bloom_bits`] and [`blocked_bloom_fpr`].
pub fn blocked_bloom_bits(
    expected_items: usize,
    fpr: f64,
    hashes: u32,
    block_bits: u32,
    layout: BlockLayout,
) -> Result<u64, Error> {
    let classic = bloom_bits(expected_items, fpr)?;
    let block = u64::from(block_bits.max(1));
    // Blocking never needs fewer bits than the classic optimum; double until
    // the target is met, then bisect on the block count.
    let mut lo = classic.div_ceil(block).max(1);
    // Validates the shape (hashes, block size, layout) before the screen
    // below relies on it; with no items this returns at once.
    blocked_bloom_fpr(lo * block, 0, hashes, block_bits, layout)?;
    // Whether `blocks` blocks meet the target. The Poisson sum takes time
    // linear in the mean load λ = n / blocks, and at a rate close to 1 the
    // classic size is tiny, so the first tries can have λ in the billions
    // (n = 10^8 at p = 1 − 10^−8 took 15 s, larger n hours). The block rate
    // grows with the load, and a Poisson load falls below λ − 10√λ with
    // probability under e^−50 (Chernoff), so when a block holding that many
    // keys already misses the target, the filter does too, without the sum.
    let meets = |blocks: u64| -> Result<bool, Error> {
        let lambda = expected_items as f64 / blocks as f64;
        let low = (lambda - 10.0 * lambda.sqrt()).floor();
        if low > 0.0 && block_rate(low, hashes, block_bits, layout) > fpr {
            return Ok(false);
        }
        Ok(blocked_bloom_fpr(blocks * block, expected_items, hashes, block_bits, layout)? <= fpr)
    };
    if meets(lo)? {
        return Ok(lo * block);
    }
    // Doubling stops at the largest block count within `MAX_BITS`, which is
    // tried too: a size between the last power-of-two multiple of the
    // classic size and the limit can still meet the target.
    let most = MAX_BITS / block;
    let mut hi = lo;
    loop {
        if hi >= most {
            return Err(Error::invalid(
                "fpr",
                fpr,
                format_args!(
                    "reachable for {expected_items} items with {hashes} bits per key in {block_bits}-bit blocks within {MAX_BITS} bits"
                ),
            ));
        }
        hi = hi.saturating_mul(2).min(most);
        if meets(hi)? {
            break;
        }
        lo = hi;
    }
    Ok(first_meeting(lo, hi, meets)? * block)
}

/// Fingerprint width of a cuckoo filter with `bucket_slots` slots per bucket
/// at rate `fpr`: f = ⌈log2(2b / p)⌉.
///
/// A lookup compares the fingerprint with the 2b slots of two buckets, each a
/// false match with probability 1/(2^f − 1) ≈ 2^−f.
///
/// ```
/// # use filter_core::sizing::cuckoo_fingerprint_bits;
/// assert_eq!(cuckoo_fingerprint_bits(0.01, 4)?, 10);
/// # Ok::<(), filter_core::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::InvalidParameter`] for an `fpr` outside (0, 1) or zero slots.
pub fn cuckoo_fingerprint_bits(fpr: f64, bucket_slots: u32) -> Result<u32, Error> {
    check_fpr(fpr)?;
    if bucket_slots == 0 {
        return Err(Error::invalid("bucket_slots", 0, "at least 1"));
    }
    // A tiny epsilon keeps exact powers of two (p = 2b / 2^f) from rounding up
    // by floating-point noise.
    let f = (2.0 * f64::from(bucket_slots) / fpr).log2() - 1e-9;
    Ok((f.ceil() as u32).max(1))
}

/// The information-theoretic lower bound on the space of any filter with
/// false-positive rate `fpr`: log2(1/p) bits per key.
///
/// # Errors
///
/// [`Error::InvalidParameter`] for an `fpr` outside (0, 1).
pub fn lower_bound_bits_per_key(fpr: f64) -> Result<f64, Error> {
    Ok(-check_fpr(fpr)?.log2())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_known_values() {
        // The textbook values at n = 10^6, 1 % and 0.1 %.
        assert_eq!(bloom_bits(1_000_000, 0.01).unwrap(), 9_585_059);
        assert_eq!(bloom_hashes(9_585_059, 1_000_000).unwrap(), 7);
        assert_eq!(bloom_bits(1_000_000, 0.001).unwrap(), 14_377_588);
        assert_eq!(bloom_hashes(14_377_588, 1_000_000).unwrap(), 10);
    }

    #[test]
    fn classic_rate_at_optimum_is_target() {
        for &p in &[0.1, 0.01, 0.001, 1e-6] {
            let m = bloom_bits(100_000, p).unwrap();
            let k = bloom_hashes(m, 100_000).unwrap();
            let rate = bloom_fpr(m, 100_000, k).unwrap();
            // Rounding k to an integer moves the rate slightly off the
            // continuous optimum, by well under 10 %.
            assert!((rate / p - 1.0).abs() < 0.1, "p {p}: rate {rate}");
        }
    }

    #[test]
    fn rejects_bad_fpr_everywhere() {
        for p in [
            0.0,
            1.0,
            -0.5,
            1.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert!(
                matches!(
                    check_fpr(p),
                    Err(Error::InvalidParameter { name: "fpr", .. })
                ),
                "{p}"
            );
            assert!(bloom_bits(10, p).is_err(), "{p}");
            assert!(cuckoo_fingerprint_bits(p, 4).is_err(), "{p}");
            assert!(lower_bound_bits_per_key(p).is_err(), "{p}");
            assert!(
                blocked_bloom_bits(10, p, 8, 256, BlockLayout::Split).is_err(),
                "{p}"
            );
        }
        let msg = check_fpr(1.5).unwrap_err().to_string();
        assert_eq!(msg, "fpr must be in the open interval (0, 1), got 1.5");
    }

    #[test]
    fn rejects_zero_items_and_overflowing_sizes() {
        assert!(matches!(
            bloom_bits(0, 0.01),
            Err(Error::InvalidParameter {
                name: "expected_items",
                ..
            })
        ));
        // Past 2^46 bits. (On 32-bit targets usize::MAX keys take 4.1·10^10
        // bits at 1 % and 6.2·10^12 at 1e-300, under the limit: the
        // allocation refuses them.)
        if cfg!(target_pointer_width = "64") {
            assert!(bloom_bits(usize::MAX, 0.01).is_err());
            assert!(bloom_bits(usize::MAX, 1e-300).is_err());
        }
        assert!(bloom_hashes(0, 10).is_err());
        assert!(bloom_hashes(MAX_BITS + 1, 10).is_err());
        assert!(bloom_hashes(100, 0).is_err());
        // Regression: 2^46 bits for one item asks for 4.9·10^13 hashes,
        // which `as u32` used to saturate silently to u32::MAX.
        assert!(matches!(
            bloom_hashes(MAX_BITS, 1),
            Err(Error::InvalidParameter { name: "bits", .. })
        ));
        assert_eq!(bloom_hashes(6_000_000_000, 1).unwrap(), 4_158_883_083);
        assert!(bloom_fpr(0, 10, 3).is_err());
        assert!(bloom_fpr(100, 10, 0).is_err());
        assert!(cuckoo_fingerprint_bits(0.01, 0).is_err());
        assert!(blocked_bloom_fpr(100, 10, 4, 512, BlockLayout::Free).is_err());
        assert!(blocked_bloom_fpr(1024, 10, 3, 256, BlockLayout::Split).is_err());
        assert!(blocked_bloom_fpr(1024, 10, 3, 0, BlockLayout::Free).is_err());
    }

    #[test]
    fn cuckoo_widths() {
        assert_eq!(cuckoo_fingerprint_bits(0.03, 4).unwrap(), 9);
        assert_eq!(cuckoo_fingerprint_bits(0.01, 4).unwrap(), 10);
        assert_eq!(cuckoo_fingerprint_bits(0.002, 4).unwrap(), 12);
        assert_eq!(cuckoo_fingerprint_bits(0.0002, 4).unwrap(), 16);
        // Exactly 2b / 2^8 needs exactly 8 bits, not 9.
        assert_eq!(cuckoo_fingerprint_bits(8.0 / 256.0, 4).unwrap(), 8);
    }

    #[test]
    fn lower_bound() {
        assert!((lower_bound_bits_per_key(0.01).unwrap() - 6.643_856).abs() < 1e-6);
        assert!((lower_bound_bits_per_key(0.5).unwrap() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn blocking_costs_bits_and_meets_target() {
        let n = 1_000_000;
        let classic = bloom_bits(n, 0.01).unwrap();
        for layout in [BlockLayout::Free, BlockLayout::Split] {
            let m = blocked_bloom_bits(n, 0.01, 8, 512, layout).unwrap();
            assert!(m > classic, "{layout:?}: {m} <= {classic}");
            assert!(m < classic * 2, "{layout:?}: {m} more than double");
            assert_eq!(m % 512, 0);
            assert!(blocked_bloom_fpr(m, n, 8, 512, layout).unwrap() <= 0.01);
            assert!(blocked_bloom_fpr(m - 512, n, 8, 512, layout).unwrap() > 0.01);
        }
    }

    #[test]
    // Its key count is past a 32-bit `usize`.
    #[cfg(target_pointer_width = "64")]
    fn blocked_sizing_near_rate_one_returns_promptly() {
        // Regression: at a rate close to 1 the classic size is a few bits, so
        // the search started at one block with a mean load of n, and each
        // Poisson sum took time linear in n: 15 s for n = 10^8 at
        // p = 1 − 10^−8, hours for this n (2^40 at p = 1 − 10^−12).
        let (n, p) = (1usize << 40, 1.0 - 1e-12);
        let m = blocked_bloom_bits(n, p, 8, 256, BlockLayout::Split).unwrap();
        assert!(blocked_bloom_fpr(m, n, 8, 256, BlockLayout::Split).unwrap() <= p);
        assert!(blocked_bloom_fpr(m - 256, n, 8, 256, BlockLayout::Split).unwrap() > p);
        // No size within MAX_BITS meets this one: an error, and promptly.
        assert!(
            blocked_bloom_bits(usize::MAX / 4, 1.0 - 1e-16, 8, 256, BlockLayout::Split).is_err()
        );
    }

    #[test]
    fn unallocatable_tables_are_blamed_on_the_item_count() {
        let table = Error::invalid("counters", 7, "small enough to allocate");
        let blamed = blame_items(table, "counters", 7, 5, 0.01);
        assert_eq!(
            blamed.to_string(),
            "expected_items must be small enough that its 7 counters at fpr 0.01 can be allocated, got 5"
        );
        // Errors about anything else pass through unchanged.
        let other = Error::invalid("hashes", 0, "in 1..=64");
        assert_eq!(blame_items(other.clone(), "counters", 7, 5, 0.01), other);
    }

    #[test]
    // Its key counts are past a 32-bit `usize`.
    #[cfg(target_pointer_width = "64")]
    fn blocked_sizing_tries_sizes_up_to_the_limit() {
        // Regression: the search doubled from the classic size and gave up
        // as soon as a doubling passed MAX_BITS, so 4·10^12 items at 1 %
        // (classic 3.8·10^13 bits, doubled 7.7·10^13 > 2^46 ≈ 7.04·10^13)
        // were refused although about 4.2·10^13 bits meet the target.
        let n = 4_000_000_000_000;
        let m = blocked_bloom_bits(n, 0.01, 8, 256, BlockLayout::Split).unwrap();
        assert!(m <= MAX_BITS && m % 256 == 0, "{m}");
        assert!(blocked_bloom_fpr(m, n, 8, 256, BlockLayout::Split).unwrap() <= 0.01);
        assert!(blocked_bloom_fpr(m - 256, n, 8, 256, BlockLayout::Split).unwrap() > 0.01);
        // Where even the limit misses the target, the error still comes.
        let err =
            blocked_bloom_bits(7_000_000_000_000, 0.01, 8, 256, BlockLayout::Split).unwrap_err();
        assert!(
            err.to_string().contains("within 70368744177664 bits"),
            "{err}"
        );
    }

    #[test]
    fn blocked_rate_with_a_huge_mean_load_returns_promptly() {
        // Regression: the Poisson sum ran from load 0 to λ + 30√λ, so one
        // block holding usize::MAX items never returned.
        let rate = blocked_bloom_fpr(256, usize::MAX, 8, 256, BlockLayout::Split).unwrap();
        assert_eq!(rate, 1.0);
        // A huge block that such loads do not fill: O(√λ) terms, λ = 2·10^9.
        let rate =
            blocked_bloom_fpr(1 << 32, 4_000_000_000, 1, 1 << 31, BlockLayout::Free).unwrap();
        let expected = 1.0 - (-2e9f64 / f64::from(1u32 << 31)).exp();
        assert!((rate / expected - 1.0).abs() < 1e-6, "{rate} vs {expected}");
    }

    #[test]
    fn blocked_rate_sum_from_the_mean_matches_the_sum_from_zero() {
        // Above λ ≈ 960 the sum now starts 30σ below the mean and walks out
        // from the mode, whose weight comes from Stirling's series; it must
        // agree with the plain sum from 0 (the old code) wherever that one
        // is affordable (its own rounding grows with its λ steps).
        fn from_zero(bits: u64, items: usize, layout: BlockLayout) -> f64 {
            let lambda = items as f64 * 256.0 / bits as f64;
            let last = (lambda + 30.0 * lambda.sqrt() + 30.0).ceil() as u64;
            let (mut ln_weight, mut total) = (-lambda, 0.0);
            for load in 0..=last {
                if load > 0 {
                    ln_weight += lambda.ln() - (load as f64).ln();
                }
                total += ln_weight.exp() * block_rate(load as f64, 8, 256, layout);
            }
            total.min(1.0)
        }
        for layout in [BlockLayout::Free, BlockLayout::Split] {
            for lambda in [900usize, 961, 1000, 1500, 3000, 100_000] {
                let (bits, items) = (256 * 1000, lambda * 1000);
                let new = blocked_bloom_fpr(bits, items, 8, 256, layout).unwrap();
                let old = from_zero(bits, items, layout);
                assert!(
                    (new - old).abs() <= 1e-9 * old,
                    "{layout:?} λ {lambda}: {new} vs {old}"
                );
            }
        }
        for n in [900u64, 1000, 20_000] {
            // −λ + n ln λ − ln n! summed plainly, at λ = n + 0.5.
            let lambda = n as f64 + 0.5;
            let direct =
                -lambda + n as f64 * lambda.ln() - (1..=n).map(|i| (i as f64).ln()).sum::<f64>();
            assert!((ln_poisson(n, lambda) - direct).abs() < 1e-9, "{n}");
        }
    }

    #[test]
    fn blocked_sizing_matches_a_plain_search() {
        // The screen in `blocked_bloom_bits` only skips sums whose answer
        // it knows; the smallest block count meeting the target is the one
        // a plain linear search over `blocked_bloom_fpr` finds.
        for layout in [BlockLayout::Free, BlockLayout::Split] {
            for n in [1, 3, 1000, 20_000] {
                for p in [0.999, 0.9, 0.5, 0.1, 0.01] {
                    let m = blocked_bloom_bits(n, p, 8, 256, layout).unwrap();
                    let rate = |bits| blocked_bloom_fpr(bits, n, 8, 256, layout).unwrap();
                    assert!(rate(m) <= p, "{layout:?} n {n} p {p}");
                    let classic = bloom_bits(n, p).unwrap().div_ceil(256) * 256;
                    assert!(m == classic || rate(m - 256) > p, "{layout:?} n {n} p {p}");
                }
            }
        }
    }

    #[test]
    fn blocked_rate_approaches_classic_for_huge_blocks() {
        // One block as large as the filter has no load variance to speak of
        // beyond the Poisson spread of the count itself; its rate is close
        // to the classic rate.
        let m = 1 << 20;
        let classic = bloom_fpr(m, 100_000, 7).unwrap();
        let blocked = blocked_bloom_fpr(m, 100_000, 7, 1 << 20, BlockLayout::Free).unwrap();
        assert!(
            (blocked / classic - 1.0).abs() < 0.05,
            "{blocked} vs {classic}"
        );
    }
}
