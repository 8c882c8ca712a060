//! Format 1.0 fixtures: the bytes of small filters, committed, so that any
//! change to the hasher, the probe sequences, the block layout or the byte
//! format shows as a failing test rather than as filters that no longer
//! load (or load and answer wrongly) after an upgrade.
//!
//! Regenerate (only for a deliberate new format version) with
//! `BLOOM_WRITE_FIXTURES=1 cargo test -p bloom --test fixtures`.

use bloom::{BlockedBloomFilter, BloomFilter};

/// The members of every fixture: 100 strings and 100 integers.
fn members() -> (Vec<String>, Vec<u64>) {
    let strings = (0..100)
        .map(|i| format!("https://example.com/{i}"))
        .collect();
    let ids = (0..100u64).map(|i| i * 1_000_003).collect();
    (strings, ids)
}

fn classic() -> BloomFilter {
    let (strings, ids) = members();
    let mut f = BloomFilter::with_fpr(200, 0.01).unwrap();
    strings.iter().for_each(|s| f.insert(s.as_str()));
    ids.iter().for_each(|i| f.insert(i));
    f
}

fn blocked() -> BlockedBloomFilter {
    let (strings, ids) = members();
    let mut f = BlockedBloomFilter::with_fpr(200, 0.01).unwrap();
    strings.iter().for_each(|s| f.insert(s.as_str()));
    ids.iter().for_each(|i| f.insert(i));
    f
}

const CLASSIC: &[u8] = include_bytes!("data/bloom-1.0.bin");
const BLOCKED: &[u8] = include_bytes!("data/blocked-bloom-1.0.bin");

/// The fixtures' checksums (their last 8 bytes, XXH64 of the rest), pinned
/// here too so that a regenerated fixture cannot pass unnoticed.
const CLASSIC_CHECKSUM: u64 = 0x0f86_0c76_54f2_c1c7;
const BLOCKED_CHECKSUM: u64 = 0xb1cd_d70d_2410_5714;

fn checksum(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap())
}

#[test]
fn fixtures_load_and_hold_their_members() {
    if std::env::var_os("BLOOM_WRITE_FIXTURES").is_some() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        std::fs::write(dir.join("bloom-1.0.bin"), classic().to_bytes()).unwrap();
        std::fs::write(dir.join("blocked-bloom-1.0.bin"), blocked().to_bytes()).unwrap();
        println!("classic {:#018x}", checksum(&classic().to_bytes()));
        println!("blocked {:#018x}", checksum(&blocked().to_bytes()));
        return;
    }
    let (strings, ids) = members();
    let c = BloomFilter::from_bytes(CLASSIC).unwrap();
    let b = BlockedBloomFilter::from_bytes(BLOCKED).unwrap();
    assert!(
        strings
            .iter()
            .all(|s| c.contains(s.as_str()) && b.contains(s.as_str()))
    );
    assert!(ids.iter().all(|i| c.contains(i) && b.contains(i)));
    // Non-members: at 1 % and half the expected keys, a few at most.
    let fp = (0..1000u64)
        .filter(|i| c.contains(&format!("https://example.org/{i}")))
        .count();
    assert!(fp < 10, "{fp}");
    assert_eq!(
        (checksum(CLASSIC), checksum(BLOCKED)),
        (CLASSIC_CHECKSUM, BLOCKED_CHECKSUM)
    );
}

#[test]
fn this_build_writes_the_fixtures_bytes() {
    if std::env::var_os("BLOOM_WRITE_FIXTURES").is_some() {
        return;
    }
    assert_eq!(classic().to_bytes(), CLASSIC);
    assert_eq!(blocked().to_bytes(), BLOCKED);
}
