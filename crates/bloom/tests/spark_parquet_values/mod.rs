//! The values the interop golden files were built from, as
//! `scripts/interop/values.py` and `Golden.java` make them: SplitMix64
//! draws (seed 1 for inserted values, seed 2 for the queries) and the
//! column values derived from each draw.

#![allow(dead_code, unreachable_pub)]

/// How many values the scripts queried each filter with.
pub const QUERIES: usize = 100_000;

/// `n` SplitMix64 draws from `seed`, as signed longs.
pub fn splitmix(seed: u64, n: usize) -> Vec<i64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            i64::from_ne_bytes((z ^ (z >> 31)).to_ne_bytes())
        })
        .collect()
}

/// The `i`-th string made from draw `v`: hex, signed decimal, or hex between
/// a 2-byte and a 4-byte UTF-8 character.
pub fn string(v: i64, i: usize) -> String {
    let hex = format!("{:x}", v as u64);
    match i % 3 {
        0 => hex,
        1 => format!("id-{v}"),
        _ => format!("\u{e9}-{hex}-\u{1F4E6}"),
    }
}

/// Java's `(int) v`.
pub fn int32(v: i64) -> i32 {
    v as i32
}

/// `(v >>> 40) / 16`, exact in an `f32`.
pub fn float32(v: i64) -> f32 {
    ((v as u64) >> 40) as f32 / 16.0
}

/// `(v >>> 11) · 2^-53`, exact in an `f64`.
pub fn float64(v: i64) -> f64 {
    ((v as u64) >> 11) as f64 * 2f64.powi(-53)
}

/// The first `1 + v mod 8` little-endian bytes of `v`.
pub fn binary(v: i64) -> Vec<u8> {
    let u = v as u64;
    u.to_le_bytes()[..1 + (u % 8) as usize].to_vec()
}

/// Answer `i` of a bitmap the scripts wrote (bit `i % 8` of byte `i / 8`).
pub fn answer(bitmap: &[u8], i: usize) -> bool {
    bitmap[i / 8] >> (i % 8) & 1 == 1
}

/// Answers as the scripts store them.
pub fn bitmap(answers: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; answers.len().div_ceil(8)];
    for (i, &a) in answers.iter().enumerate() {
        out[i / 8] |= u8::from(a) << (i % 8);
    }
    out
}
