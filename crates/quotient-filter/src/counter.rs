//! Counts encoded in slots, so that a key seen c times costs
//! O(1 + log c / r) slots instead of c.
//!
//! A run holds its entries (remainder, count) in increasing order of
//! remainder. An entry of remainder x > 0 is written as
//!
//! ```text
//! count 1:   x
//! count 2:   x x
//! count c≥3: x [0] d1 .. dk x     c − 3 in base 2^r − 1, digits that skip x
//! ```
//!
//! A sorted run never holds a value below x right after x, so a first digit
//! below x marks a counter; a leading 0 digit is added when the first digit
//! would not be below x, and the counter ends at the next x, which no digit
//! can equal. Remainder 0 has nothing below it, so its counters are opened
//! by three zeros (a run never holds two entries of remainder 0) and closed
//! by one, with digits shifted up by one to stay non-zero:
//!
//! ```text
//! count 1:   0
//! count 2:   0 0
//! count c≥3: 0 0 0 d1 .. dk 0     c − 3 in base 2^r − 1, digits 1 ..
//! ```
//!
//! The decoder reads only inside one run, and returns `None` for slots that
//! no encoder wrote (a counter that is never closed, or one that overflows
//! a u64), which `from_bytes` uses to refuse them.

/// The most slots one entry can take: a u64 count in base 3 (r = 2) needs
/// 41 digits, plus a leading zero and two remainder slots, or the three
/// opening zeros and one closing zero of remainder 0.
pub(crate) const MAX_ENTRY_SLOTS: usize = 46;

/// The encoded slots of one entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Encoded {
    slots: [u64; MAX_ENTRY_SLOTS],
    len: usize,
}

impl Encoded {
    /// The slot values, in run order.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[u64] {
        &self.slots[..self.len]
    }

    /// How many slots the entry takes.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// Encodes remainder `x` (below 2^`r`) with `count` ≥ 1 in `r`-bit slots.
pub(crate) fn encode(x: u64, count: u64, r: u32) -> Encoded {
    debug_assert!(count >= 1 && r >= 2 && x >> r == 0);
    let mut out = Encoded {
        slots: [0; MAX_ENTRY_SLOTS],
        len: 0,
    };
    let mut push = |v: u64| {
        out.slots[out.len] = v;
        out.len += 1;
    };
    if count <= 2 {
        (0..count).for_each(|_| push(x));
        return out;
    }
    // Digits of count − 3, most significant first.
    let base = (1u64 << r) - 1;
    let mut digits = [0u64; MAX_ENTRY_SLOTS];
    let mut n = 0;
    let mut v = count - 3;
    loop {
        digits[n] = v % base;
        n += 1;
        v /= base;
        if v == 0 {
            break;
        }
    }
    let digits = digits[..n].iter().rev();
    if x == 0 {
        (0..3).for_each(|_| push(0));
        if count > 3 {
            digits.for_each(|&d| push(d + 1));
        }
        push(0);
    } else {
        let skip = |d: u64| if d < x { d } else { d + 1 };
        push(x);
        if skip(digits_first(count - 3, base, n)) > x {
            push(0);
        }
        digits.for_each(|&d| push(skip(d)));
        push(x);
    }
    out
}

/// The most significant of the `n` base-`base` digits of `v`.
fn digits_first(mut v: u64, base: u64, n: usize) -> u64 {
    for _ in 1..n {
        v /= base;
    }
    v
}

/// Decodes the entry that starts at slot `at` of a run ending at slot
/// `end` (inclusive): its remainder, count and number of slots, or `None`
/// when the slots are not an encoding.
#[inline(always)]
pub(crate) fn decode(
    at: usize,
    end: usize,
    r: u32,
    slot: impl Fn(usize) -> u64,
) -> Option<(u64, u64, usize)> {
    let x = slot(at);
    if at == end {
        return Some((x, 1, 1));
    }
    let next = slot(at + 1);
    let base = (1u64 << r) - 1;
    if x == 0 {
        if next != 0 {
            return Some((0, 1, 1));
        }
        if at + 1 == end || slot(at + 2) != 0 {
            return Some((0, 2, 2));
        }
        let mut value: u64 = 0;
        let mut i = at + 3;
        loop {
            if i > end {
                return None;
            }
            let d = slot(i);
            if d == 0 {
                break;
            }
            value = value.checked_mul(base)?.checked_add(d - 1)?;
            i += 1;
        }
        return Some((0, value.checked_add(3)?, i - at + 1));
    }
    if next > x {
        return Some((x, 1, 1));
    }
    if next == x {
        return Some((x, 2, 2));
    }
    let mut value: u64 = 0;
    let mut i = at + 1;
    loop {
        if i > end {
            return None;
        }
        let d = slot(i);
        if d == x {
            break;
        }
        let digit = if d < x { d } else { d - 1 };
        value = value.checked_mul(base)?.checked_add(digit)?;
        i += 1;
    }
    Some((x, value.checked_add(3)?, i - at + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(x: u64, count: u64, r: u32) -> usize {
        let e = encode(x, count, r);
        let s = e.as_slice();
        assert!(s.iter().all(|&v| v >> r == 0), "{s:?}");
        let got = decode(0, s.len() - 1, r, |i| s[i]);
        assert_eq!(
            got,
            Some((x, count, s.len())),
            "x {x} count {count} r {r}: {s:?}"
        );
        // Followed by a larger remainder, the entry still ends where it did.
        if x + 1 < (1 << r) {
            let mut run = s.to_vec();
            run.push(x + 1);
            let got = decode(0, run.len() - 1, r, |i| run[i]);
            assert_eq!(
                got,
                Some((x, count, s.len())),
                "x {x} count {count} r {r}: {run:?}"
            );
        }
        s.len()
    }

    #[test]
    fn small_counts_and_edges() {
        for r in [2, 3, 7, 8, 13, 57] {
            let top = (1u64 << r) - 1;
            for x in [0, 1, 2, top - 1, top] {
                for count in (1..200).chain([1 << 20, 1_000_000, u64::MAX - 1, u64::MAX]) {
                    round_trip(x, count, r);
                }
            }
        }
    }

    #[test]
    fn a_million_copies_cost_few_slots() {
        // 10^6 − 3 in base 127 has three digits: x, up to one leading zero,
        // three digits and x; or three zeros, three digits and a zero.
        for x in [1, 64, 127] {
            assert!(round_trip(x, 1_000_000, 7) <= 6);
        }
        assert_eq!(round_trip(0, 1_000_000, 7), 7);
        assert!(round_trip(3, u64::MAX, 2) <= MAX_ENTRY_SLOTS);
        assert!(round_trip(0, u64::MAX, 2) <= MAX_ENTRY_SLOTS);
    }

    #[test]
    fn unclosed_counters_are_refused() {
        assert_eq!(decode(0, 1, 3, |i| [5, 2][i]), None);
        assert_eq!(decode(0, 3, 3, |i| [0, 0, 0, 4][i]), None);
    }

    quickcheck::quickcheck! {
        fn any_entry_round_trips(x: u64, count: u64, r: u8) -> bool {
            let r = 2 + u32::from(r) % 56;
            let x = x & ((1 << r) - 1);
            round_trip(x, count.max(1), r) <= MAX_ENTRY_SLOTS
        }
    }
}
