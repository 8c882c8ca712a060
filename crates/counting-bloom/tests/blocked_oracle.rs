//! Oracle tests for `BlockedCountingBloomFilter`: quickcheck drives random
//! inserts, removes of present and absent items, and byte round trips,
//! beside a `HashMap` of multiplicities, and checks after every step that
//! every oracle member is reported present.

use counting_bloom::BlockedCountingBloomFilter;
use filter_core::testing::oracle::{Codec, Harness, Op};

mod common;
use common::{few_keys, stretched};

type Blocked = BlockedCountingBloomFilter;

fn codec() -> Option<Codec<Blocked>> {
    Some(Codec {
        to_bytes: Blocked::to_bytes,
        from_bytes: Blocked::from_bytes,
    })
}

fn u64_harness() -> Harness<Blocked, u64> {
    Harness {
        key: |i| i,
        codec: codec(),
    }
}

fn string_harness() -> Harness<Blocked, String> {
    Harness {
        key: |i| format!("https://example.com/{i}"),
        codec: codec(),
    }
}

quickcheck::quickcheck! {
    fn u64_keys_no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
        let filter = Blocked::with_fpr(100, 0.01).map_err(|e| e.to_string())?;
        u64_harness().run_with_remove::<u64>(filter, &ops)
    }

    fn str_keys_no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
        let filter = Blocked::with_fpr(100, 0.01).map_err(|e| e.to_string())?;
        string_harness().run_with_remove::<str>(filter, &ops)
    }

    fn string_keys_no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
        let filter = Blocked::with_fpr(100, 0.01).map_err(|e| e.to_string())?;
        string_harness().run_with_remove::<String>(filter, &ops)
    }

    /// Two blocks (256 counters) for up to 256 keys: every key's two blocks
    /// coincide half the time, counters are shared and saturate. Still no
    /// false negatives.
    fn two_blocks_no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
        let filter = Blocked::with_blocks(2, 16).map_err(|e| e.to_string())?;
        u64_harness().run_with_remove::<u64>(filter, &ops)
    }

    /// Keys inserted more than 15 times: their counters saturate, and
    /// removing every copy must still leave the other keys present.
    fn heavy_repeats_no_false_negatives(ops: Vec<Op>) -> Result<(), String> {
        let ops = few_keys(&stretched(&ops, 400));
        let filter = Blocked::with_fpr(100, 0.01).map_err(|e| e.to_string())?;
        u64_harness().run_with_remove::<u64>(filter.clone(), &ops)?;
        string_harness().run_with_remove::<str>(filter, &ops)
    }

    fn heavy_repeats_in_two_blocks(ops: Vec<Op>) -> Result<(), String> {
        let ops = few_keys(&stretched(&ops, 400));
        let filter = Blocked::with_blocks(2, 7).map_err(|e| e.to_string())?;
        u64_harness().run_with_remove::<u64>(filter, &ops)
    }

    /// Odd and tiny hash counts: one counter in one block and none in the
    /// other, and the most the layout allows.
    fn every_hash_count_no_false_negatives(ops: Vec<Op>, hashes: u8) -> Result<(), String> {
        let hashes = u32::from(hashes % 16) + 1;
        let filter = Blocked::with_blocks(5, hashes).map_err(|e| e.to_string())?;
        u64_harness().run_with_remove::<u64>(filter, &ops)
    }
}
