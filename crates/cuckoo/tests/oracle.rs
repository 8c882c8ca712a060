//! Oracle quickchecks: a `HashMap` of multiplicities beside the filter, random
//! insert / remove / absent-remove / reload sequences, and "every oracle member
//! is found" after every step. The filters are tiny (1 to 12 buckets), so
//! inserts fail with `Full` often, from both a full table and the copy limit.

// quickcheck passes generated values by value.
#![allow(clippy::needless_pass_by_value)]

use cuckoo::{CuckooFilter, PortableHasher};
use filter_core::testing::oracle::{Codec, Harness, Op};
use quickcheck::QuickCheck;

type Cuckoo = CuckooFilter<PortableHasher>;

fn codec() -> Option<Codec<Cuckoo>> {
    Some(Codec {
        to_bytes: Cuckoo::to_bytes,
        from_bytes: Cuckoo::from_bytes,
    })
}

/// A tiny filter from two arbitrary bytes: 1..=12 buckets, 4..=16 bits.
fn tiny(buckets: u8, bits: u8) -> Cuckoo {
    let filter =
        CuckooFilter::with_buckets(usize::from(buckets % 12) + 1, u32::from(bits % 13) + 4);
    filter.expect("parameters are in range")
}

fn u64_keys(ops: Vec<Op>, buckets: u8, bits: u8) -> Result<(), String> {
    let harness = Harness::<Cuckoo, u64> {
        key: |i| i,
        codec: codec(),
    };
    harness.run_with_remove::<u64>(tiny(buckets, bits), &ops)
}

fn str_keys(ops: Vec<Op>, buckets: u8, bits: u8) -> Result<(), String> {
    let harness = Harness::<Cuckoo, String> {
        key: |i| format!("session-{i}"),
        codec: codec(),
    };
    harness.run_with_remove::<str>(tiny(buckets, bits), &ops)
}

fn string_keys(ops: Vec<Op>, buckets: u8, bits: u8) -> Result<(), String> {
    let harness = Harness::<Cuckoo, String> {
        key: |i| format!("https://example.com/{i}"),
        codec: None,
    };
    harness.run_with_remove::<String>(tiny(buckets, bits), &ops)
}

fn check(prop: fn(Vec<Op>, u8, u8) -> Result<(), String>) {
    // quickcheck's default generator makes sequences of up to 100 ops; a
    // larger size gives longer runs that fill the tiny tables many times. The
    // generator is seeded so a failure reproduces.
    QuickCheck::new()
        .tests(300)
        .rng(quickcheck::Gen::from_size_and_seed(400, 0x5EED))
        .quickcheck(prop);
}

#[test]
fn no_false_negatives_u64() {
    check(u64_keys);
}

#[test]
fn no_false_negatives_str() {
    check(str_keys);
}

#[test]
fn no_false_negatives_string() {
    check(string_keys);
}

#[test]
fn a_fixed_sequence_that_fills_the_table() {
    // 40 distinct inserts into 8 slots: most fail; every success stays found.
    let ops: Vec<Op> = (0..40).map(Op::Insert).chain([Op::Reload]).collect();
    for bits in 4..=16 {
        u64_keys(ops.clone(), 1, bits - 4).unwrap();
    }
}
