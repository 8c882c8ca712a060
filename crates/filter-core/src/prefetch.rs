//! A software prefetch hint: one of the two places this crate uses `unsafe`
//! (the other is the call into a batch's AVX2 loop).
//!
//! A lookup in a table larger than the cache waits for memory, and the CPU
//! overlaps only the misses it can see coming: those of the few lookups its
//! instruction window holds. Code that knows which keys come next can ask
//! for their lines early, so that many misses are in flight at once. The
//! xor filters' construction and every filter's batched lookup
//! ([`batch`](crate::batch)) do this.
//!
//! On targets other than x86_64 the hint is a no-op.

#![allow(unsafe_code)]

/// Hints that `slice[index]` will be read soon. Never faults and never
/// changes what the program computes; an index out of range is harmless (the
/// hint is then for some other address, or none).
#[inline(always)]
pub fn prefetch<T>(slice: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // `wrapping_add` computes the address without asserting it is in
        // bounds, so no out-of-range pointer is ever created by `add`.
        let address = slice.as_ptr().wrapping_add(index).cast::<i8>();
        // SAFETY: `_mm_prefetch` requires SSE, which is part of every x86_64
        // target's baseline. A prefetch is only a hint: it never faults and
        // never reads memory architecturally, so any address is sound.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(address);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (slice, index);
    }
}

#[cfg(test)]
mod tests {
    use super::prefetch;

    #[test]
    fn any_index_is_harmless() {
        let table = vec![7u64; 16];
        for index in [0, 15, 16, usize::MAX >> 24, usize::MAX] {
            prefetch(&table, index);
        }
        prefetch::<u8>(&[], 3);
        assert_eq!(table, vec![7u64; 16]);
    }
}
