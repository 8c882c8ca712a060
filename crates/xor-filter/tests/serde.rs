//! The `serde` feature: a filter round-trips through JSON and postcard as
//! its checked bytes, and bytes that `from_bytes` refuses are refused.
#![cfg(feature = "serde")]

use filter_core::testing::keys;
use xor_filter::{BinaryFuse8, BinaryFuse16, PartitionedBinaryFuse8, Xor8, Xor16};

#[test]
fn round_trips_through_json_and_postcard() {
    let ks = keys::members(61, 3000);
    let queries = keys::non_members(61, 20_000);
    macro_rules! check {
        ($f:expr, $ty:ty) => {{
            let f: $ty = $f;
            let json = serde_json::to_string(&f).unwrap();
            let from_json: $ty = serde_json::from_str(&json).unwrap();
            let binary = postcard::to_stdvec(&f).unwrap();
            let from_binary: $ty = postcard::from_bytes(&binary).unwrap();
            for g in [&from_json, &from_binary] {
                assert_eq!(g.to_bytes(), f.to_bytes());
                assert!(ks.iter().all(|k| g.contains(k)));
                assert!(queries.iter().all(|q| g.contains(q) == f.contains(q)));
            }
            // The serialized form is the checked bytes: a flipped bit is refused.
            let mut bad = f.to_bytes();
            bad[50] ^= 1;
            let bad = postcard::to_stdvec(&serde_bytes_like(&bad)).unwrap();
            assert!(postcard::from_bytes::<$ty>(&bad).is_err());
            assert!(serde_json::from_str::<$ty>("[1, 2, 3]").is_err());
        }};
    }
    check!(Xor8::from_keys(&ks).unwrap(), Xor8);
    check!(Xor16::from_keys(&ks).unwrap(), Xor16);
    check!(BinaryFuse8::from_keys(&ks).unwrap(), BinaryFuse8);
    check!(BinaryFuse16::from_keys(&ks).unwrap(), BinaryFuse16);
    check!(
        PartitionedBinaryFuse8::from_keys(&ks, 3).unwrap(),
        PartitionedBinaryFuse8
    );
}

/// A value that serializes as a byte string, as a filter does.
fn serde_bytes_like(bytes: &[u8]) -> Bytes<'_> {
    Bytes(bytes)
}

struct Bytes<'a>(&'a [u8]);

use filter_core::serde_support::serde;

impl serde::Serialize for Bytes<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}
