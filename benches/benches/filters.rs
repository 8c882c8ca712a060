//! Criterion benchmarks of every filter: build (static) or insert-all
//! (dynamic), contains hit, contains miss, and remove where supported, at a
//! cache-resident and an out-of-cache size. See `benches/src/lib.rs` for the
//! workload and the checks made before timing.

use benches::{FPR, insert_all, lookups, removes};
use criterion::{Criterion, criterion_group, criterion_main};

fn counting_bloom(c: &mut Criterion) {
    let new = |n| counting_bloom::CountingBloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "CountingBloomFilter", insert_all(new));
    removes(c, "CountingBloomFilter", insert_all(new));
}

fn cuckoo(c: &mut Criterion) {
    let new = |n| cuckoo::CuckooFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "CuckooFilter", insert_all(new));
    removes(c, "CuckooFilter", insert_all(new));
}

criterion_group!(filters, counting_bloom, cuckoo);
criterion_main!(filters);
