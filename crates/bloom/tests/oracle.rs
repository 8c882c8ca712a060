//! No false negatives: quickcheck drives random operation sequences
//! (inserts and reloads through bytes) against both filters, with a
//! `HashMap` oracle beside them, for `u64`, `str` and `String` keys.

// quickcheck hands properties their generated input by value.
#![allow(clippy::needless_pass_by_value)]

use bloom::{BlockedBloomFilter, BloomFilter};
use filter_core::testing::keys;
use filter_core::testing::oracle::{Codec, Harness, Op};
use quickcheck::{QuickCheck, TestResult};

fn classic_codec() -> Option<Codec<BloomFilter>> {
    Some(Codec {
        to_bytes: BloomFilter::to_bytes,
        from_bytes: BloomFilter::from_bytes,
    })
}

fn blocked_codec() -> Option<Codec<BlockedBloomFilter>> {
    Some(Codec {
        to_bytes: BlockedBloomFilter::to_bytes,
        from_bytes: BlockedBloomFilter::from_bytes,
    })
}

/// Small filters (50 expected keys against up to 256 distinct ones) so that
/// they overfill, up to tables with nearly every bit set.
fn classic() -> BloomFilter {
    BloomFilter::with_fpr(50, 0.05).expect("valid parameters")
}

fn blocked() -> BlockedBloomFilter {
    BlockedBloomFilter::with_fpr(50, 0.05).expect("valid parameters")
}

fn check(result: Result<(), String>) -> TestResult {
    match result {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(e),
    }
}

fn classic_u64(ops: Vec<Op>) -> TestResult {
    let h = Harness {
        key: |i| keys::key(7, i),
        codec: classic_codec(),
    };
    check(h.run::<u64>(classic(), &ops))
}

fn classic_str(ops: Vec<Op>) -> TestResult {
    let h = Harness {
        key: |i| keys::url(7, i),
        codec: classic_codec(),
    };
    check(h.run::<str>(classic(), &ops))
}

fn classic_string(ops: Vec<Op>) -> TestResult {
    let h = Harness {
        key: |i| keys::url(8, i),
        codec: classic_codec(),
    };
    check(h.run::<String>(classic(), &ops))
}

fn blocked_u64(ops: Vec<Op>) -> TestResult {
    let h = Harness {
        key: |i| keys::key(7, i),
        codec: blocked_codec(),
    };
    check(h.run::<u64>(blocked(), &ops))
}

fn blocked_str(ops: Vec<Op>) -> TestResult {
    let h = Harness {
        key: |i| keys::url(7, i),
        codec: blocked_codec(),
    };
    check(h.run::<str>(blocked(), &ops))
}

fn blocked_string(ops: Vec<Op>) -> TestResult {
    let h = Harness {
        key: |i| keys::url(8, i),
        codec: blocked_codec(),
    };
    check(h.run::<String>(blocked(), &ops))
}

fn qc() -> QuickCheck {
    QuickCheck::new().tests(300)
}

#[test]
fn classic_never_forgets_u64_keys() {
    qc().quickcheck(classic_u64 as fn(Vec<Op>) -> TestResult);
}

#[test]
fn classic_never_forgets_str_keys() {
    qc().quickcheck(classic_str as fn(Vec<Op>) -> TestResult);
}

#[test]
fn classic_never_forgets_string_keys() {
    qc().quickcheck(classic_string as fn(Vec<Op>) -> TestResult);
}

#[test]
fn blocked_never_forgets_u64_keys() {
    qc().quickcheck(blocked_u64 as fn(Vec<Op>) -> TestResult);
}

#[test]
fn blocked_never_forgets_str_keys() {
    qc().quickcheck(blocked_str as fn(Vec<Op>) -> TestResult);
}

#[test]
fn blocked_never_forgets_string_keys() {
    qc().quickcheck(blocked_string as fn(Vec<Op>) -> TestResult);
}

quickcheck::quickcheck! {
    /// Arbitrary raw hashes, extreme values included, through the pre-hashed
    /// path of both filters and a byte round trip.
    fn prehashed_keys_are_never_forgotten(hashes: Vec<u64>) -> bool {
        let mut c = BloomFilter::with_fpr(hashes.len().max(1), 0.01).expect("valid");
        let mut b = BlockedBloomFilter::with_fpr(hashes.len().max(1), 0.01).expect("valid");
        for &h in &hashes {
            c.insert_hash(h);
            b.insert_hash(h);
        }
        let c = BloomFilter::from_bytes(&c.to_bytes()).expect("round trip");
        let b = BlockedBloomFilter::from_bytes(&b.to_bytes()).expect("round trip");
        hashes.iter().all(|&h| c.contains_hash(h) && b.contains_hash(h))
    }
}

quickcheck::quickcheck! {
    /// Every hash count, 1 and 2 included (the lookup treats the first two
    /// probes specially), and bit counts that are not multiples of 64.
    fn every_hash_count_keeps_its_keys(hashes: Vec<u64>, k: u8, extra_bits: u16) -> bool {
        let k = u32::from(k % 24) + 1;
        let bits = 64 + u64::from(extra_bits % 5000);
        let mut f = BloomFilter::with_bits(bits, k).expect("valid");
        for &h in &hashes {
            f.insert_hash(h);
        }
        hashes.iter().all(|&h| f.contains_hash(h))
    }
}
