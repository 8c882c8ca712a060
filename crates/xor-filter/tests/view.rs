//! Borrowed views: a view over `to_bytes` output answers exactly as the
//! owned filter, and no byte string, however crafted, makes opening or
//! querying a view panic or read out of bounds.

use filter_core::format::{HEADER_BYTES, reseal};
use filter_core::testing::keys;
use xor_filter::{
    BinaryFuse8, BinaryFuse8Ref, BinaryFuse16, BinaryFuse16Ref, Error, Xor8, Xor8Ref, Xor16,
    Xor16Ref,
};

/// Runs `$body` with `$owned` and `$view` bound to each owned type and its view.
macro_rules! for_each_pair {
    ($owned:ident, $view:ident => $body:block) => {{
        {
            type $owned = Xor8;
            type $view<'a> = Xor8Ref<'a>;
            $body
        }
        {
            type $owned = Xor16;
            type $view<'a> = Xor16Ref<'a>;
            $body
        }
        {
            type $owned = BinaryFuse8;
            type $view<'a> = BinaryFuse8Ref<'a>;
            $body
        }
        {
            type $owned = BinaryFuse16;
            type $view<'a> = BinaryFuse16Ref<'a>;
            $body
        }
    }};
}

#[test]
fn a_view_answers_exactly_as_the_owned_filter() {
    let members = keys::members(21, 30_000);
    let queries = keys::non_members(21, 100_000);
    for n in [0usize, 1, 2, 3, 50, 30_000] {
        let ks = &members[..n];
        for_each_pair!(Owned, View => {
            let f = Owned::from_keys(ks).unwrap();
            let bytes = f.to_bytes();
            // At an odd address too: the table may be unaligned in a file.
            let mut shifted = vec![0u8; 1];
            shifted.extend_from_slice(&bytes);
            for b in [&bytes[..], &shifted[1..]] {
                let v = View::from_bytes(b).unwrap();
                v.verify_checksum().unwrap();
                assert_eq!((v.len(), v.is_empty()), (f.len(), f.is_empty()));
                assert_eq!((v.slots(), v.memory_bytes()), (f.slots(), f.memory_bytes()));
                assert_eq!(v.fingerprint_bits(), f.fingerprint_bits());
                assert!(ks.iter().all(|k| v.contains(k)));
                assert!(queries.iter().all(|q| v.contains(q) == f.contains(q)));
                assert!(queries.iter().all(|&q| v.contains_hash(q) == f.contains_hash(q)));
                assert_eq!(v.to_owned_filter(), f);
                assert_eq!(v.as_bytes(), &bytes[..]);
            }
        });
    }
}

#[test]
fn opening_skips_the_checksum_and_verify_checksum_catches_it() {
    let ks = keys::members(22, 1000);
    let bytes = BinaryFuse8::from_keys(&ks).unwrap().to_bytes();
    let mut altered = bytes.clone();
    let last_fingerprint = altered.len() - 9;
    altered[last_fingerprint] ^= 0x40;
    let v = BinaryFuse8Ref::from_bytes(&altered).unwrap();
    let e = v.verify_checksum().unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
    assert!(BinaryFuse8::from_bytes(&altered).is_err());
}

#[test]
fn a_view_refuses_what_from_bytes_refuses_bar_the_checksum() {
    let ks = keys::members(23, 500);
    let x8 = Xor8::from_keys(&ks).unwrap().to_bytes();
    assert!(matches!(
        BinaryFuse8Ref::from_bytes(&x8),
        Err(Error::WrongKind { .. })
    ));
    assert!(Xor16Ref::from_bytes(&x8).is_err());
    for len in (0..x8.len()).step_by(7) {
        assert!(Xor8Ref::from_bytes(&x8[..len]).is_err(), "{len}");
    }
    let mut extended = x8.clone();
    extended.insert(x8.len() - 8, 0);
    reseal(&mut extended);
    assert!(Xor8Ref::from_bytes(&extended).is_err());
}

/// A deterministic xorshift generator: the crafted inputs are the same on
/// every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Edits `bytes` at random: a field of the body set to a value chosen to
/// stress the checks (0, 1, small, powers of two, huge), random bytes
/// overwritten, or the string cut or extended; then, mostly, reseals it so
/// that the structural checks rather than the checksum face the edit.
fn craft(rng: &mut Rng, valid: &[u8]) -> Vec<u8> {
    let mut b = valid.to_vec();
    for _ in 0..1 + rng.below(3) {
        match rng.below(5) {
            0 | 1 => {
                // A u64 field of the body: seed, keys, layout, array count.
                let at = HEADER_BYTES + 8 * rng.below(6);
                let value = match rng.below(6) {
                    0 => 0,
                    1 => rng.next() % 64,
                    2 => 1 << rng.below(64),
                    3 => (1 << rng.below(64)) - 1,
                    4 => u64::MAX - rng.next() % 4,
                    _ => rng.next(),
                };
                if at + 8 <= b.len() {
                    b[at..at + 8].copy_from_slice(&value.to_le_bytes());
                }
            }
            2 if !b.is_empty() => {
                let at = rng.below(b.len());
                b[at] = rng.next() as u8;
            }
            2 | 3 => {
                let cut = rng.below(b.len() + 1);
                b.truncate(cut);
            }
            _ => {
                let at = rng.below(b.len() + 1);
                let extra = rng.below(40);
                b.splice(at..at, (0..extra).map(|i| i as u8));
            }
        }
    }
    if rng.below(8) != 0 {
        reseal(&mut b);
    }
    b
}

#[test]
fn crafted_bytes_never_panic_a_view() {
    // 4 types × 3 sizes × 1500 crafted strings, each opened and, when it
    // opens, queried with 300 hashes and the extremes: any out-of-bounds
    // read would panic (safe indexing), so passing means none happened.
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let hashes: Vec<u64> = (0..300u64)
        .map(filter_core::mix64)
        .chain([0, 1, u64::MAX, 1 << 63])
        .collect();
    let mut opened = 0usize;
    for n in [0usize, 7, 2000] {
        let ks = keys::members(24, n);
        for_each_pair!(Owned, View => {
            let valid = Owned::from_keys(&ks).unwrap().to_bytes();
            for _ in 0..1500 {
                let b = craft(&mut rng, &valid);
                if let Ok(v) = View::from_bytes(&b) {
                    opened += 1;
                    let _ = v.verify_checksum();
                    for &h in &hashes {
                        std::hint::black_box(v.contains_hash(h));
                    }
                    // What a view opens, the owned reader loads too, when the
                    // checksum holds: one parser.
                    if v.verify_checksum().is_ok() {
                        let owned = Owned::from_bytes(&b).unwrap();
                        assert!(hashes.iter().all(|&h| owned.contains_hash(h) == v.contains_hash(h)));
                    }
                }
            }
        });
    }
    // Some crafted strings must open (seed edits, fingerprint bytes, key
    // counts the layout tolerates), or the lookups would go untested.
    assert!(opened > 1000, "{opened}");
}
