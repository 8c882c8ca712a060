//! Oracle tests: quickcheck drives random inserts, removes of present and
//! absent items, and byte round trips, beside a `HashMap` of multiplicities,
//! and checks after every step that every oracle member is reported present.

use counting_bloom::CountingBloomFilter;
use filter_core::testing::oracle::{Codec, Harness, Op};

mod common;
use common::{few_keys, stretched};

fn codec() -> Option<Codec<CountingBloomFilter>> {
    Some(Codec {
        to_bytes: CountingBloomFilter::to_bytes,
        from_bytes: CountingBloomFilter::from_bytes,
    })
}

fn u64_harness() -> Harness<CountingBloomFilter, u64> {
    Harness {
        key: |i| i,
        codec: codec(),
    }
}

fn string_harness() -> Harness<CountingBloomFilter, String> {
    Harness {
        key: |i| format!("https://example.com/{i}"),
        codec: codec(),
    }
}

quickcheck::quickcheck! {
    fn u64_keys_no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
        let filter = CountingBloomFilter::with_fpr(100, 0.01).map_err(|e| e.to_string())?;
        u64_harness().run_with_remove::<u64>(filter, &ops)
    }

    fn str_keys_no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
        let filter = CountingBloomFilter::with_fpr(100, 0.01).map_err(|e| e.to_string())?;
        string_harness().run_with_remove::<str>(filter, &ops)
    }

    fn string_keys_no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
        let filter = CountingBloomFilter::with_fpr(100, 0.01).map_err(|e| e.to_string())?;
        string_harness().run_with_remove::<String>(filter, &ops)
    }

    /// A tiny table (64 counters for up to 256 keys) is crowded: many false
    /// positives, shared counters and saturated ones. Still no false negatives.
    fn crowded_table_no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
        let filter = CountingBloomFilter::with_counters(64, 3).map_err(|e| e.to_string())?;
        u64_harness().run_with_remove::<u64>(filter, &ops)
    }

    /// Keys inserted more than 15 times: their counters saturate, and
    /// removing every copy must still leave the other keys present.
    fn heavy_repeats_no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
        let ops = few_keys(&stretched(&ops, 400));
        let filter = CountingBloomFilter::with_fpr(100, 0.01).map_err(|e| e.to_string())?;
        u64_harness().run_with_remove::<u64>(filter.clone(), &ops)?;
        string_harness().run_with_remove::<str>(filter, &ops)
    }

    /// More than eight hashes: lookups run a branch-free group of eight,
    /// then the rest.
    fn many_hashes_no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
        let filter = CountingBloomFilter::with_counters(3_000, 20).map_err(|e| e.to_string())?;
        u64_harness().run_with_remove::<u64>(filter, &ops)
    }

    fn heavy_repeats_in_crowded_table(ops: Vec<Op>) -> Result<(), String> {
        let ops = few_keys(&stretched(&ops, 400));
        let filter = CountingBloomFilter::with_counters(20, 4).map_err(|e| e.to_string())?;
        u64_harness().run_with_remove::<u64>(filter, &ops)
    }
}
