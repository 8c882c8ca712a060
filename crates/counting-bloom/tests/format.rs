//! Format 1.0 of both kinds: committed fixtures that every later version
//! must load and answer alike, refusal of another kind's bytes by name
//! (`WrongKind`), and of the reserved header flags.
//!
//! The fixtures are written with the default hasher, whose hashes are the
//! same on every target, so they load on any machine. To write them again
//! after a deliberate format change (a new major version), run
//! `COUNTING_BLOOM_WRITE_FIXTURES=1 cargo test -p counting-bloom --test format`.

use std::path::PathBuf;

use counting_bloom::{BlockedCountingBloomFilter, CountingBloomFilter, Error};
use filter_core::format::reseal;
use filter_core::testing::header;

/// The keys every fixture holds: 100 strings, 100 integers, and one key
/// inserted 20 times, whose counters saturate.
fn fill(mut insert: impl FnMut(Key)) {
    for i in 0..100u64 {
        insert(Key::Str(format!("member {i}")));
        insert(Key::Int(i * 1_000_003));
    }
    for _ in 0..20 {
        insert(Key::Str("heavy".to_string()));
    }
}

enum Key {
    Str(String),
    Int(u64),
}

fn classic() -> CountingBloomFilter {
    let mut filter = CountingBloomFilter::with_fpr(200, 0.01).unwrap();
    fill(|key| match key {
        Key::Str(s) => filter.insert(s.as_str()),
        Key::Int(i) => filter.insert(&i),
    });
    filter
}

fn blocked() -> BlockedCountingBloomFilter {
    let mut filter = BlockedCountingBloomFilter::with_fpr(200, 0.01).unwrap();
    fill(|key| match key {
        Key::Str(s) => filter.insert(s.as_str()),
        Key::Int(i) => filter.insert(&i),
    });
    filter
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The committed bytes of `name`, first written from `bytes` when
/// `COUNTING_BLOOM_WRITE_FIXTURES` is set.
fn committed(name: &str, bytes: &[u8]) -> Vec<u8> {
    let path = fixture(name);
    if std::env::var_os("COUNTING_BLOOM_WRITE_FIXTURES").is_some() {
        std::fs::write(&path, bytes).unwrap();
    }
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What a loaded fixture must answer: every member present, the heavy key
/// at 15, and the counts of this build's filter for a range of other keys.
fn answers_alike<F>(loaded: &F, built: &F, count: impl Fn(&F, &str) -> u32) {
    for i in 0..100 {
        assert!(count(loaded, &format!("member {i}")) >= 1, "member {i}");
    }
    assert_eq!(count(loaded, "heavy"), 15);
    for i in 0..2_000 {
        let key = format!("other {i}");
        assert_eq!(count(loaded, &key), count(built, &key), "{key}");
    }
}

#[test]
fn format_1_0_fixtures_load_and_answer_alike() {
    let built = classic();
    let bytes = committed("counting-bloom-1.0.bin", &built.to_bytes());
    assert_eq!(bytes, built.to_bytes(), "this build writes other bytes");
    let loaded = CountingBloomFilter::from_bytes(&bytes).unwrap();
    assert_eq!(loaded, built);
    assert!((0..100u64).all(|i| loaded.contains(&(i * 1_000_003))));
    answers_alike(&loaded, &built, CountingBloomFilter::count);

    let built = blocked();
    let bytes = committed("blocked-counting-bloom-1.0.bin", &built.to_bytes());
    assert_eq!(bytes, built.to_bytes(), "this build writes other bytes");
    let loaded = BlockedCountingBloomFilter::from_bytes(&bytes).unwrap();
    assert_eq!(loaded, built);
    assert!((0..100u64).all(|i| loaded.contains(&(i * 1_000_003))));
    answers_alike(&loaded, &built, BlockedCountingBloomFilter::count);
}

#[test]
fn the_header_says_format_1_0_with_no_flags() {
    for bytes in [classic().to_bytes(), blocked().to_bytes()] {
        assert_eq!(&bytes[..4], b"MFLT");
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 1);
        assert_eq!(header::minor(&bytes), 0);
        assert_eq!(header::flags(&bytes), 0);
    }
    assert_eq!(u16::from_le_bytes([classic().to_bytes()[8], 0]), 3);
    assert_eq!(u16::from_le_bytes([blocked().to_bytes()[8], 0]), 9);
}

#[test]
fn another_kinds_bytes_are_refused_by_name() {
    let classic = classic().to_bytes();
    let blocked = blocked().to_bytes();
    assert_eq!(
        BlockedCountingBloomFilter::from_bytes(&classic).unwrap_err(),
        Error::WrongKind {
            expected: "BlockedCountingBloomFilter",
            found: "CountingBloomFilter",
        }
    );
    assert_eq!(
        CountingBloomFilter::from_bytes(&blocked).unwrap_err(),
        Error::WrongKind {
            expected: "CountingBloomFilter",
            found: "BlockedCountingBloomFilter",
        }
    );
    // Valid headers of other kinds, resealed: a Bloom filter's, and the
    // d-left counting filter's from this very crate.
    for (kind, found) in [(1u16, "BloomFilter"), (12, "DLeftCountingBloomFilter")] {
        let mut other = classic.clone();
        other[8..10].copy_from_slice(&kind.to_le_bytes());
        reseal(&mut other);
        let err = CountingBloomFilter::from_bytes(&other).unwrap_err();
        assert_eq!(
            err,
            Error::WrongKind {
                expected: "CountingBloomFilter",
                found
            }
        );
        assert_eq!(
            err.to_string(),
            format!("wrong filter kind: the bytes hold a {found}, not a CountingBloomFilter")
        );
        let err = BlockedCountingBloomFilter::from_bytes(&other).unwrap_err();
        assert!(
            matches!(err, Error::WrongKind { found: f, .. } if f == found),
            "{err}"
        );
    }
}

#[test]
fn every_header_flag_is_refused() {
    // Format 1.0 reserves the flags: one layout per kind, nothing to flag.
    for bit in 0..16 {
        for (name, result) in [
            (
                "classic",
                CountingBloomFilter::from_bytes(&header::with_flags(
                    &classic().to_bytes(),
                    1 << bit,
                ))
                .map(|_| ()),
            ),
            (
                "blocked",
                BlockedCountingBloomFilter::from_bytes(&header::with_flags(
                    &blocked().to_bytes(),
                    1 << bit,
                ))
                .map(|_| ()),
            ),
        ] {
            let Err(Error::Corrupt { reason }) = result else {
                panic!("{name} bit {bit}: {result:?}");
            };
            assert!(reason.contains("are set"), "{name} bit {bit}: {reason}");
        }
    }
}
