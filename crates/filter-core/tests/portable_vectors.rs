//! The default hasher's output, pinned: the same on every target (this test
//! runs on the other targets of `.ci/other-targets`, big-endian included)
//! and in a build for the native CPU (`.ci/portable-bytes`). A change here
//! makes every saved filter unloadable: it needs a new major format.

use filter_core::{KeyHasher, PortableHasher, mix64};

/// `(hash_key, mixed_hash)` of `key` under the default hasher.
fn both<T: std::hash::Hash + ?Sized>(key: &T) -> (u64, u64) {
    let h = PortableHasher::default();
    (h.hash_key(key), h.mixed_hash(key))
}

const U64_42: (u64, u64) = (0xe9e0_033e_3bad_af1c, 0x9ff1_2c31_a380_d4b3);

#[test]
fn integers_hash_by_value() {
    assert_eq!(both(&42u64), U64_42);
    assert_eq!(both(&42u32), U64_42);
    assert_eq!(both(&42usize), U64_42);
    assert_eq!(both(&42u8), U64_42);
    assert_eq!(
        both(&u64::MAX),
        (0x161f_fcc1_c452_50c9, 0x4797_2f75_cfdf_2c55)
    );
    assert_eq!(both(&-7i64), (0x161f_fcc1_c452_50cf, 0x30e9_8ffa_6f18_68a3));
    assert_eq!(both(&-7i32), both(&-7i64));
}

#[test]
fn strings_and_bytes_hash_through_xxh3() {
    let text = "https://example.com/a/long/enough/path?query=1";
    assert_eq!(both(text), (0xad8d_5a0d_5864_197e, 0xbd54_11ce_3e1f_674c));
    assert_eq!(both(&text.to_string()), both(text));
    let bytes: &[u8] = &[0, 1, 2, 3, 0xFF, 0x80, 7];
    assert_eq!(both(bytes), (0xa364_b96d_b8f4_be08, 0xdf14_a8b0_cc5b_19bc));
    assert_eq!(both(&bytes.to_vec()), both(bytes));
    let long: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
    assert_eq!(
        both(&long[..]),
        (0xe1ec_5ff3_f329_9ce6, 0xc479_4f73_8400_7c4d)
    );
}

#[test]
fn tuples_and_seeds() {
    assert_eq!(
        both(&(7u64, "seven", -7i32)),
        (0x2238_d4b9_e5cb_dd45, 0x95ed_5a48_52a7_560b)
    );
    let seeded = PortableHasher::with_seed(1);
    assert_eq!(
        (seeded.hash_key(&42u64), seeded.mixed_hash(&42u64)),
        (0x8204_7734_2d9c_40ea, 0xd844_0495_93b6_bd49)
    );
}

#[test]
fn every_vector_is_the_mix_of_its_hash() {
    for (hash, mixed) in [U64_42, both("x"), both(&(1u8, 2u16))] {
        assert_eq!(mix64(hash), mixed);
    }
}
