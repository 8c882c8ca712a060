//! What the fuzz targets share.
//!
//! The targets live in `fuzz_targets/`, one per property; `README.md` says
//! how to run them and what the first campaign found.

/// A structured 64-bit hash picked by one fuzz byte: zero, all ones, one,
/// the top bit alone, or small ids shifted into the high bits (`i << 40`).
///
/// Pre-hashed keys bypass the filters' hashers, so these are the inputs
/// that a weak user hash would send: they collide in their low or high
/// halves, which is where fingerprints and positions are cut from.
pub fn structured_hash(byte: u8) -> u64 {
    match byte & 0x1f {
        0 => 0,
        1 => u64::MAX,
        2 => 1,
        3 => 0x8000_0000_0000_0000,
        4 => u64::MAX - 1,
        n => u64::from(n - 4) << 40,
    }
}
