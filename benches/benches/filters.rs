//! Criterion benchmarks of every filter: build (static) or insert-all
//! (dynamic), contains hit, contains miss, and remove where supported, at a
//! cache-resident and an out-of-cache size. See `benches/src/lib.rs` for the
//! workload and the checks made before timing.

use benches::{FPR, insert_all, lookups, removes};
use criterion::{Criterion, criterion_group, criterion_main};

fn bloom(c: &mut Criterion) {
    let new = |n| bloom::BloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "BloomFilter", insert_all(new));
    let new = |n| bloom::BlockedBloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "BlockedBloomFilter", insert_all(new));
}

fn counting_bloom(c: &mut Criterion) {
    let new = |n| counting_bloom::CountingBloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "CountingBloomFilter", insert_all(new));
    removes(c, "CountingBloomFilter", insert_all(new));
    let new =
        |n| counting_bloom::BlockedCountingBloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "BlockedCountingBloomFilter", insert_all(new));
    removes(c, "BlockedCountingBloomFilter", insert_all(new));
}

fn cuckoo(c: &mut Criterion) {
    let new = |n| cuckoo::CuckooFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "CuckooFilter", insert_all(new));
    removes(c, "CuckooFilter", insert_all(new));
}

fn xor_filter(c: &mut Criterion) {
    let build = |keys: &[u64]| xor_filter::Xor8::from_keys(keys).expect("construction");
    lookups(c, "Xor8", build);
    let build = |keys: &[u64]| xor_filter::Xor16::from_keys(keys).expect("construction");
    lookups(c, "Xor16", build);
    let build = |keys: &[u64]| xor_filter::BinaryFuse8::from_keys(keys).expect("construction");
    lookups(c, "BinaryFuse8", build);
    let build = |keys: &[u64]| xor_filter::BinaryFuse16::from_keys(keys).expect("construction");
    lookups(c, "BinaryFuse16", build);
}

criterion_group!(filters, bloom, counting_bloom, cuckoo, xor_filter);
criterion_main!(filters);
