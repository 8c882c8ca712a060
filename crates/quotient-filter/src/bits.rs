//! Rank and select on 64-bit words.
//!
//! Every lookup ends in a select: "where is the k-th run end at or after
//! this slot". The portable [`select64`] is a broadword byte search
//! (prefix popcounts of the eight bytes in one multiply, then a short
//! loop inside the chosen byte), so it costs the same few instructions
//! for every k and needs no table. Where the CPU has BMI2 (checked at run
//! time), `pdep` and `tzcnt` give the same answer in two instructions.

#![allow(unsafe_code)]

/// Bits `0..=i` of a word (`i < 64`).
#[inline(always)]
pub(crate) const fn mask_through(i: usize) -> u64 {
    u64::MAX >> (63 - i)
}

/// Bits `i..64` of a word (`i < 64`).
#[inline(always)]
pub(crate) const fn mask_from(i: usize) -> u64 {
    u64::MAX << i
}

/// The position of the `k`-th (0-based) set bit of `x`; 64 when `x` has
/// `k` or fewer set bits.
#[inline]
pub(crate) fn select64(x: u64, k: u32) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    if k >= x.count_ones() {
        return 64;
    }
    // Popcount of each byte, then their prefix sums (byte i holds the set
    // bits of bytes 0..=i; at most 64, so no byte overflows).
    let mut s = x - ((x >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    let sums = s.wrapping_mul(ONES);
    // Bytes whose prefix sum is at most k: their count is the byte holding
    // the k-th bit.
    let k_bytes = u64::from(k) * ONES;
    let at_most_k = ((k_bytes | HIGHS) - sums) & HIGHS;
    let byte = at_most_k.count_ones() * 8;
    let before = if byte == 0 {
        0
    } else {
        ((sums >> (byte - 8)) & 0xFF) as u32
    };
    let mut bits = (x >> byte) & 0xFF;
    for _ in 0..(k - before) {
        bits &= bits - 1;
    }
    byte + bits.trailing_zeros()
}

/// [`select64`] by `pdep` and `tzcnt`, for CPUs with BMI2: the same
/// answers for every `k` below the number of set bits.
///
/// # Safety
///
/// The CPU must support BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[inline]
pub(crate) unsafe fn select64_bmi2(x: u64, k: u32) -> u32 {
    // SAFETY: the caller guarantees BMI2, this function's only requirement.
    // (Newer compilers treat the intrinsic as safe inside this function; the
    // block keeps the crate building on its minimum Rust version.)
    #[allow(unused_unsafe)]
    let bit = unsafe { std::arch::x86_64::_pdep_u64(1u64 << (k & 63), x) };
    bit.trailing_zeros()
}

/// Whether this CPU has BMI2 (for [`select64_bmi2`]) and the other bit
/// instructions the filter's operations are compiled for on x86-64
/// (`popcnt`, `lzcnt`, BMI1): every CPU with BMI2 has them.
pub(crate) fn has_bmi2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("lzcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(x: u64, k: u32) -> u32 {
        (0..64)
            .filter(|i| x >> i & 1 == 1)
            .nth(k as usize)
            .unwrap_or(64)
    }

    #[test]
    fn select_matches_naive_on_edges() {
        for x in [0, 1, u64::MAX, 1 << 63, 0x8000_0000_0000_0001, 0xF0F0] {
            for k in 0..66 {
                assert_eq!(select64(x, k), naive(x, k), "x {x:#x} k {k}");
            }
        }
    }

    quickcheck::quickcheck! {
        fn select_matches_naive(x: u64, k: u8) -> bool {
            let k = u32::from(k % 66);
            select64(x, k) == naive(x, k)
        }

        fn bmi2_select_matches_portable(x: u64, k: u8) -> bool {
            let k = u32::from(k) % x.count_ones().max(1);
            if !has_bmi2() || x == 0 {
                return true;
            }
            #[cfg(target_arch = "x86_64")]
            {
                // SAFETY: the CPU has BMI2, checked just above.
                select64(x, k) == unsafe { select64_bmi2(x, k) }
            }
            // Elsewhere `has_bmi2` is false and the test returned above.
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = k;
                true
            }
        }

        fn masks(i: u8) -> bool {
            let i = usize::from(i % 64);
            mask_through(i).count_ones() as usize == i + 1 && mask_from(i).count_ones() as usize == 64 - i
        }
    }
}
