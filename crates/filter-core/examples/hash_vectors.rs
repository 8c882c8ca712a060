//! Prints the default hasher's test vectors, one `name hash_key mixed_hash`
//! line per key: what `.ci/portable-bytes` compares between a default
//! build and one for the native CPU, and what `tests/portable_vectors.rs`
//! pins.

use filter_core::{KeyHasher, PortableHasher};

fn main() {
    let h = PortableHasher::default();
    let text = "https://example.com/a/long/enough/path?query=1";
    let bytes: &[u8] = &[0, 1, 2, 3, 0xFF, 0x80, 7];
    let long: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
    let rows: [(&str, u64, u64); 11] = [
        ("u64 42", h.hash_key(&42u64), h.mixed_hash(&42u64)),
        ("u64 max", h.hash_key(&u64::MAX), h.mixed_hash(&u64::MAX)),
        ("u32 42", h.hash_key(&42u32), h.mixed_hash(&42u32)),
        ("i64 -7", h.hash_key(&-7i64), h.mixed_hash(&-7i64)),
        ("usize 42", h.hash_key(&42usize), h.mixed_hash(&42usize)),
        ("str", h.hash_key(text), h.mixed_hash(text)),
        (
            "String",
            h.hash_key(&text.to_string()),
            h.mixed_hash(&text.to_string()),
        ),
        ("bytes", h.hash_key(bytes), h.mixed_hash(bytes)),
        ("bytes 1000", h.hash_key(&long[..]), h.mixed_hash(&long[..])),
        (
            "tuple",
            h.hash_key(&(7u64, "seven", -7i32)),
            h.mixed_hash(&(7u64, "seven", -7i32)),
        ),
        (
            "seed 1 u64 42",
            PortableHasher::with_seed(1).hash_key(&42u64),
            PortableHasher::with_seed(1).mixed_hash(&42u64),
        ),
    ];
    for (name, hash, mixed) in rows {
        println!("{name}: {hash:#018x} {mixed:#018x}");
    }
}
