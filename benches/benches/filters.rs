//! Criterion benchmarks of every filter: build (static) or insert-all
//! (dynamic), contains hit, contains miss, batched lookups of a member and
//! non-member mix (`contains_batch`), batched inserts of every member
//! (`insert_batch`, dynamic filters; both through filter-core's batch
//! traits), inserts from two threads at once
//! into one filter (`AtomicBloomFilter`, `AtomicBlockedBloomFilter`), and remove, one by one and batched
//! (`remove_batch`), where supported, at a
//! cache-resident and an out-of-cache size. See `benches/src/lib.rs` for the
//! workload and the checks made before timing.

use benches::{
    FPR, batched_inserts, batched_lookups, batched_removes, insert_all, lookups, removes,
    shared_inserts,
};
use filter_core::{BatchContains, BatchInsert, BatchRemove};

/// How many of `keys` a filter's `contains_batch` reports present.
macro_rules! batch_count {
    () => {
        |filter, keys: &[u64]| filter.contains_batch(keys).filter(|&found| found).count()
    };
}

/// A dynamic filter's builder through `insert_batch`: `new(n)`, then every
/// member in one batch.
macro_rules! insert_batch {
    ($new:expr) => {
        |keys: &[u64]| {
            let mut filter = $new(keys.len());
            if let Err(e) = filter.insert_batch(keys) {
                panic!("insert_batch failed below the sized capacity: {e}");
            }
            filter
        }
    };
}
/// A filter's batched remove of a batch of keys: how many succeeded.
macro_rules! remove_batch {
    () => {
        |filter: &mut _, keys: &[u64]| filter.remove_batch(keys)
    };
}
use std::sync::Mutex;

use criterion::{Criterion, criterion_group, criterion_main};

fn bloom(c: &mut Criterion) {
    let new = |n| bloom::BloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "BloomFilter", insert_all(new));
    batched_lookups(c, "BloomFilter", insert_all(new), batch_count!());
    batched_inserts(c, "BloomFilter", insert_all(new), insert_batch!(new));
    let new = |n| bloom::BlockedBloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "BlockedBloomFilter", insert_all(new));
    batched_lookups(c, "BlockedBloomFilter", insert_all(new), batch_count!());
    batched_inserts(c, "BlockedBloomFilter", insert_all(new), insert_batch!(new));
    // Sized for one hundredth of the keys: the stages it grows are timed
    // with the inserts.
    let new = |n: usize| {
        bloom::ScalableBloomFilter::with_fpr((n / 100).max(1), FPR).expect("valid parameters")
    };
    lookups(c, "ScalableBloomFilter", insert_all(new));
    batched_lookups(c, "ScalableBloomFilter", insert_all(new), batch_count!());
    batched_inserts(
        c,
        "ScalableBloomFilter",
        insert_all(new),
        insert_batch!(new),
    );
    let new = |n| bloom::AtomicBloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "AtomicBloomFilter", insert_all(new));
    shared_inserts(
        c,
        "AtomicBloomFilter",
        new,
        |filter, key| filter.insert(&key),
        |filter, key| filter.contains(&key),
    );
    let new = |n| bloom::AtomicBlockedBloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "AtomicBlockedBloomFilter", insert_all(new));
    shared_inserts(
        c,
        "AtomicBlockedBloomFilter",
        new,
        |filter, key| filter.insert(&key),
        |filter, key| filter.contains(&key),
    );
    // The alternative they replace: a plain filter behind a lock.
    let new = |n| Mutex::new(bloom::BloomFilter::with_fpr(n, FPR).expect("valid parameters"));
    shared_inserts(
        c,
        "Mutex<BloomFilter>",
        new,
        |filter, key| lock(filter).insert(&key),
        |filter, key| lock(filter).contains(&key),
    );
}

/// The filter behind `mutex` (a panicking benchmark thread poisons it, and
/// the run is over anyway).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn counting_bloom(c: &mut Criterion) {
    let new = |n| counting_bloom::CountingBloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "CountingBloomFilter", insert_all(new));
    batched_lookups(c, "CountingBloomFilter", insert_all(new), batch_count!());
    batched_inserts(
        c,
        "CountingBloomFilter",
        insert_all(new),
        insert_batch!(new),
    );
    removes(c, "CountingBloomFilter", insert_all(new), 0.0);
    batched_removes(
        c,
        "CountingBloomFilter",
        insert_all(new),
        0.0,
        remove_batch!(),
    );
    let new =
        |n| counting_bloom::BlockedCountingBloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "BlockedCountingBloomFilter", insert_all(new));
    batched_lookups(
        c,
        "BlockedCountingBloomFilter",
        insert_all(new),
        batch_count!(),
    );
    batched_inserts(
        c,
        "BlockedCountingBloomFilter",
        insert_all(new),
        insert_batch!(new),
    );
    removes(c, "BlockedCountingBloomFilter", insert_all(new), 0.0);
    batched_removes(
        c,
        "BlockedCountingBloomFilter",
        insert_all(new),
        0.0,
        remove_batch!(),
    );
    let new =
        |n| counting_bloom::DLeftCountingBloomFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "DLeftCountingBloomFilter", insert_all(new));
    batched_lookups(
        c,
        "DLeftCountingBloomFilter",
        insert_all(new),
        batch_count!(),
    );
    batched_inserts(
        c,
        "DLeftCountingBloomFilter",
        insert_all(new),
        insert_batch!(new),
    );
    removes(c, "DLeftCountingBloomFilter", insert_all(new), 0.0);
    batched_removes(
        c,
        "DLeftCountingBloomFilter",
        insert_all(new),
        0.0,
        remove_batch!(),
    );
}

fn cuckoo(c: &mut Criterion) {
    let new = |n| cuckoo::CuckooFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "CuckooFilter", insert_all(new));
    batched_lookups(c, "CuckooFilter", insert_all(new), batch_count!());
    batched_inserts(c, "CuckooFilter", insert_all(new), insert_batch!(new));
    removes(c, "CuckooFilter", insert_all(new), 0.0);
    batched_removes(c, "CuckooFilter", insert_all(new), 0.0, remove_batch!());
    let new = |n: usize| {
        cuckoo::ScalableCuckooFilter::with_fpr((n / 100).max(1), FPR).expect("valid parameters")
    };
    lookups(c, "ScalableCuckooFilter", insert_all(new));
    batched_lookups(c, "ScalableCuckooFilter", insert_all(new), batch_count!());
    batched_inserts(
        c,
        "ScalableCuckooFilter",
        insert_all(new),
        insert_batch!(new),
    );
    // Its remove refuses a member that another stage also reports (see
    // `benches::max_refusals`), at most at the target rate.
    removes(c, "ScalableCuckooFilter", insert_all(new), FPR);
    batched_removes(
        c,
        "ScalableCuckooFilter",
        insert_all(new),
        FPR,
        remove_batch!(),
    );
}

fn quotient_filter(c: &mut Criterion) {
    let new = |n| quotient_filter::QuotientFilter::with_fpr(n, FPR).expect("valid parameters");
    lookups(c, "QuotientFilter", insert_all(new));
    batched_lookups(c, "QuotientFilter", insert_all(new), batch_count!());
    batched_inserts(c, "QuotientFilter", insert_all(new), insert_batch!(new));
    removes(c, "QuotientFilter", insert_all(new), 0.0);
    batched_removes(c, "QuotientFilter", insert_all(new), 0.0, remove_batch!());
}

fn xor_filter(c: &mut Criterion) {
    let build = |keys: &[u64]| xor_filter::Xor8::from_keys(keys).expect("construction");
    lookups(c, "Xor8", build);
    batched_lookups(c, "Xor8", build, batch_count!());
    let build = |keys: &[u64]| xor_filter::Xor16::from_keys(keys).expect("construction");
    lookups(c, "Xor16", build);
    batched_lookups(c, "Xor16", build, batch_count!());
    let build = |keys: &[u64]| xor_filter::BinaryFuse8::from_keys(keys).expect("construction");
    lookups(c, "BinaryFuse8", build);
    batched_lookups(c, "BinaryFuse8", build, batch_count!());
    let build = |keys: &[u64]| xor_filter::BinaryFuse16::from_keys(keys).expect("construction");
    lookups(c, "BinaryFuse16", build);
    batched_lookups(c, "BinaryFuse16", build, batch_count!());
    let build =
        |keys: &[u64]| xor_filter::Ribbon::from_keys_with_fpr(keys, FPR).expect("construction");
    lookups(c, "Ribbon", build);
    batched_lookups(c, "Ribbon", build, batch_count!());
    // Built in 8 partitions, as by 8 processes, then assembled.
    let build = |keys: &[u64]| {
        xor_filter::PartitionedBinaryFuse8::from_keys(keys, 8).expect("construction")
    };
    lookups(c, "PartitionedBinaryFuse8", build);
}

criterion_group!(
    filters,
    bloom,
    counting_bloom,
    cuckoo,
    quotient_filter,
    xor_filter
);
criterion_main!(filters);
