//! Filters of `UniformHashes`, which take positions from each hash as it is:
//! no false negatives, the rate promise for uniform hashes, `count` never
//! below the truth, their own bytes, batches that answer as one-by-one
//! calls, and what structured hashes do to them.

// quickcheck passes generated values by value.
#![allow(clippy::needless_pass_by_value)]

use counting_bloom::{
    BlockedCountingBloomFilter, CountingBloomFilter, DefaultHashBuilder, Error, ProbeSequence,
    UniformHashes,
};
use filter_core::format::FLAG_UNIFORM_HASHES;
use filter_core::testing::oracle::{Codec, Harness, Op};
use filter_core::testing::{header, keys, stats};
use quickcheck::QuickCheck;

type Classic = CountingBloomFilter<DefaultHashBuilder, UniformHashes>;
type Blocked = BlockedCountingBloomFilter<DefaultHashBuilder, UniformHashes>;

fn classic(expected_items: usize, fpr: f64) -> Classic {
    let filter = CountingBloomFilter::with_fpr(expected_items, fpr).unwrap();
    filter.assume_uniform_hashes().unwrap()
}

fn blocked(expected_items: usize, fpr: f64) -> Blocked {
    let filter = BlockedCountingBloomFilter::with_fpr(expected_items, fpr).unwrap();
    filter.assume_uniform_hashes().unwrap()
}

fn load_classic(bytes: &[u8]) -> Result<Classic, Error> {
    CountingBloomFilter::from_bytes_with_quality(
        bytes,
        DefaultHashBuilder::default(),
        UniformHashes,
    )
}

fn load_blocked(bytes: &[u8]) -> Result<Blocked, Error> {
    BlockedCountingBloomFilter::from_bytes_with_quality(
        bytes,
        DefaultHashBuilder::default(),
        UniformHashes,
    )
}

/// A classic-layout filter of a shape picked by two arbitrary bytes: tiny
/// tables (1..=300 counters, 1..=10 hashes: the hashed and cubic
/// sequences, crowded, with saturated counters) or, for one shape in four,
/// a 20,000-counter table with 3 to 6 hashes (the folded sequence, and the
/// AVX2 lookup where the CPU has it).
fn classic_shape(size: u8, hashes: u8) -> Classic {
    let filter = if size % 4 == 0 {
        CountingBloomFilter::with_counters(20_000, u32::from(hashes % 4) + 3)
    } else {
        CountingBloomFilter::with_counters(u64::from(size) + 45, u32::from(hashes % 10) + 1)
    };
    filter.unwrap().assume_uniform_hashes().unwrap()
}

/// A blocked filter of 2..=7 blocks and 1..=16 hashes: blocks coincide
/// often, and counters saturate.
fn blocked_shape(size: u8, hashes: u8) -> Blocked {
    let filter = BlockedCountingBloomFilter::with_blocks(
        u64::from(size % 6) + 2,
        u32::from(hashes % 16) + 1,
    );
    filter.unwrap().assume_uniform_hashes().unwrap()
}

fn classic_u64(ops: Vec<Op>, size: u8, hashes: u8) -> Result<(), String> {
    let harness = Harness::<Classic, u64> {
        key: |i| i,
        codec: Some(Codec {
            to_bytes: Classic::to_bytes,
            from_bytes: load_classic,
        }),
    };
    harness.run_with_remove::<u64>(classic_shape(size, hashes), &ops)
}

fn classic_str(ops: Vec<Op>, size: u8, hashes: u8) -> Result<(), String> {
    let harness = Harness::<Classic, String> {
        key: |i| format!("session-{i}"),
        codec: None,
    };
    harness.run_with_remove::<str>(classic_shape(size, hashes), &ops)
}

fn blocked_u64(ops: Vec<Op>, size: u8, hashes: u8) -> Result<(), String> {
    let harness = Harness::<Blocked, u64> {
        key: |i| i,
        codec: Some(Codec {
            to_bytes: Blocked::to_bytes,
            from_bytes: load_blocked,
        }),
    };
    harness.run_with_remove::<u64>(blocked_shape(size, hashes), &ops)
}

fn blocked_str(ops: Vec<Op>, size: u8, hashes: u8) -> Result<(), String> {
    let harness = Harness::<Blocked, String> {
        key: |i| format!("session-{i}"),
        codec: None,
    };
    harness.run_with_remove::<str>(blocked_shape(size, hashes), &ops)
}

#[test]
fn no_false_negatives_in_random_sequences() {
    // As tests/oracle.rs and tests/blocked_oracle.rs, seeded so a failure
    // reproduces: inserts, removes of present and absent keys, reloads.
    for prop in [classic_u64, classic_str, blocked_u64, blocked_str] {
        QuickCheck::new()
            .tests(300)
            .rng(quickcheck::Gen::from_size_and_seed(400, 0x5EED))
            .quickcheck(prop as fn(Vec<Op>, u8, u8) -> Result<(), String>);
    }
}

#[test]
fn uniform_hashes_meet_the_rate_promise() {
    // n = 200,003 keys hashed by the default hasher (uniform), seed 42,
    // 10^6 non-member queries: the `with_fpr` promise holds for filters of
    // `UniformHashes` as for the default, since a good hasher's output is
    // what the mix makes of any input. Bound, as in tests/promises.rs and
    // tests/blocked_promises.rs: p · 1.05 (the classic filter's whole k,
    // the blocked model's Poisson loads) plus 4 binomial σ at rate p
    // (σ = √(p(1−p)/q): 1e-4 at 1 %, 3.2e-5 at 0.1 %), which a correct
    // filter exceeds by chance about once in 30,000 runs. A derivation of
    // the words that tied a block to its counters would fail this at once.
    let n = 200_003;
    let members = keys::members(42, n);
    let queries = 1_000_000;
    let non_members = keys::non_members(42, queries);
    for p in [0.01, 0.001] {
        let bound = stats::fpr_upper_bound(p, queries, 1.05, 4.0);
        let mut c = classic(n, p);
        let mut b = blocked(n, p);
        for k in &members {
            c.insert(k);
            b.insert(k);
        }
        assert!(members.iter().all(|k| c.contains(k) && b.contains(k)));
        let measured = stats::measured_fpr(&c, &non_members);
        assert!(measured <= bound, "classic p {p}: {measured} > {bound}");
        println!("classic p {p}: measured {measured:.6}");
        let measured = stats::measured_fpr(&b, &non_members);
        assert!(measured <= bound, "blocked p {p}: {measured} > {bound}");
        println!("blocked p {p}: measured {measured:.6}");
    }
}

#[test]
fn count_is_never_below_the_truth() {
    // Keys of multiplicity 1 to 5 (no counter comes near 15 at design
    // load), then one copy of every key removed: `count` is at least the
    // remaining multiplicity for every key, both layouts, and is exact for
    // most (other keys cover all of a key's counters about p of the time).
    let n = 20_000;
    let members = keys::members(7, n);
    let copies = |i: usize| i % 5 + 1;
    let mut c = classic(n, 0.01);
    let mut b = blocked(n, 0.01);
    for (i, k) in members.iter().enumerate() {
        for _ in 0..copies(i) {
            c.insert_hash(*k);
            b.insert_hash(*k);
        }
    }
    for removed in 0..2 {
        let mut exact = [0; 2];
        for (i, k) in members.iter().enumerate() {
            let truth = (copies(i) - removed) as u32;
            let (cc, bc) = (c.count_hash(*k), b.count_hash(*k));
            assert!(cc >= truth && bc >= truth, "key {i}: {cc} {bc} < {truth}");
            exact[0] += usize::from(cc == truth);
            exact[1] += usize::from(bc == truth);
        }
        // A key's minimum counter exceeds its multiplicity only where
        // other keys cover all its counters: about the false-positive rate
        // (1 %), so 5 % is far past chance.
        assert!(exact.iter().all(|&e| e > n * 95 / 100), "{exact:?}");
        if removed == 0 {
            for k in &members {
                assert!(c.remove_hash(*k) && b.remove_hash(*k));
            }
        }
    }
}

#[test]
fn structured_hashes_defeat_a_uniform_filter_but_lose_nothing() {
    // What the promise is for. Sequential ids as they are are tiny
    // numbers: the classic layout's first probe reduce(i, m) is 0 for all
    // of them, and the later ones spread little (probe j moves by about
    // j·i·m/2^32 counters from one id to the next); the blocked layout's
    // first block is 0 for all of them, and its counters saturate, so only
    // the second half tests anything. Measured at 1 %: 4.9 % for the
    // classic layout, 18 % for the blocked one, so 3 % and 10 % are far
    // past the target and its noise. The default filters mix the ids
    // first and meet p (bound as in `uniform_hashes_meet_the_rate_promise`,
    // 100,000 queries: σ = 3.1e-4). Either way, every member is found and
    // counted.
    let n = 10_000u64;
    let queries = 100_000;
    let bound = stats::fpr_upper_bound(0.01, queries, 1.05, 4.0);
    let rate = |contains: &dyn Fn(u64) -> bool| {
        (n..n + queries as u64).filter(|&id| contains(id)).count() as f64 / queries as f64
    };

    let mut trusting = classic(n as usize, 0.01);
    let mut any = CountingBloomFilter::with_fpr(n as usize, 0.01).unwrap();
    for id in 0..n {
        trusting.insert_hash(id);
        any.insert_hash(id);
    }
    assert!((0..n).all(|id| trusting.contains_hash(id) && trusting.count_hash(id) >= 1));
    assert!((0..n).all(|id| any.contains_hash(id)));
    let (bad, good) = (
        rate(&|id| trusting.contains_hash(id)),
        rate(&|id| any.contains_hash(id)),
    );
    println!("classic: uniform {bad}, default {good}");
    assert!(bad > 0.03, "classic uniform {bad}");
    assert!(good <= bound, "classic default {good} > {bound}");

    let mut trusting = blocked(n as usize, 0.01);
    let mut any = BlockedCountingBloomFilter::with_fpr(n as usize, 0.01).unwrap();
    for id in 0..n {
        trusting.insert_hash(id);
        any.insert_hash(id);
    }
    assert!((0..n).all(|id| trusting.contains_hash(id) && trusting.count_hash(id) >= 1));
    assert!((0..n).all(|id| any.contains_hash(id)));
    let (bad, good) = (
        rate(&|id| trusting.contains_hash(id)),
        rate(&|id| any.contains_hash(id)),
    );
    println!("blocked: uniform {bad}, default {good}");
    assert!(bad > 0.1, "blocked uniform {bad}");
    assert!(good <= bound, "blocked default {good} > {bound}");
    // Ten thousand first halves in one block saturate its counters, and
    // removing every id still finds each one.
    assert!(trusting.saturated_counters() > 0);
    assert!((0..n).all(|id| trusting.remove_hash(id)));
}

#[test]
fn uniform_positions_differ_from_the_default_ones() {
    // The same hash lands elsewhere under the two qualities: a default
    // filter holding one key, its bytes relabelled uniform (checksum
    // resealed), no longer finds it, for every one of 200 keys. By chance
    // it would find it only if the key's own k counters were among the k
    // set ones: (k / counters)^k, below 1e-25 here.
    let (mut classic_moved, mut blocked_moved) = (0, 0);
    for i in 0..200u64 {
        let hash = keys::key(11, i);
        let mut any = CountingBloomFilter::with_counters(1 << 16, 7).unwrap();
        assert_eq!(any.probe_sequence(), ProbeSequence::Folded);
        any.insert_hash(hash);
        let relabelled = with_uniform_flag(&any.to_bytes());
        classic_moved += usize::from(!load_classic(&relabelled).unwrap().contains_hash(hash));

        let mut any = BlockedCountingBloomFilter::with_blocks(1 << 10, 6).unwrap();
        any.insert_hash(hash);
        let relabelled = with_uniform_flag(&any.to_bytes());
        blocked_moved += usize::from(!load_blocked(&relabelled).unwrap().contains_hash(hash));
    }
    assert_eq!((classic_moved, blocked_moved), (200, 200));
}

fn with_uniform_flag(bytes: &[u8]) -> Vec<u8> {
    header::with_flags(bytes, header::flags(bytes) | FLAG_UNIFORM_HASHES)
}

#[test]
fn bytes_record_the_quality_and_load_only_as_it() {
    let mismatch = Error::HashQualityMismatch {
        stored: "UniformHashes",
        expected: "AnyHashes",
    };
    let other_way = Error::HashQualityMismatch {
        stored: "AnyHashes",
        expected: "UniformHashes",
    };

    let mut filter = classic(1_000, 0.01);
    (0..900u64).for_each(|i| filter.insert(&i));
    let bytes = filter.to_bytes();
    assert_eq!(
        header::flags(&bytes) & FLAG_UNIFORM_HASHES,
        FLAG_UNIFORM_HASHES
    );
    let loaded = load_classic(&bytes).unwrap();
    assert_eq!(loaded, filter);
    assert_eq!(loaded.to_bytes(), bytes);
    assert!((0..900u64).all(|i| loaded.contains(&i)));
    assert_eq!(
        CountingBloomFilter::from_bytes(&bytes).unwrap_err(),
        mismatch
    );
    let err = CountingBloomFilter::from_bytes_with_hasher(&bytes, DefaultHashBuilder::default());
    assert_eq!(err.unwrap_err(), mismatch);

    let mut any = CountingBloomFilter::with_fpr(1_000, 0.01).unwrap();
    any.insert(&1u64);
    let any_bytes = any.to_bytes();
    assert_eq!(header::flags(&any_bytes) & FLAG_UNIFORM_HASHES, 0);
    assert_eq!(load_classic(&any_bytes).unwrap_err(), other_way);
    // The header decides: the default's bytes with the flag set load as
    // uniform (and then look in other places, so it must be right).
    let flipped = header::with_flags(&any_bytes, header::flags(&any_bytes) | FLAG_UNIFORM_HASHES);
    assert!(load_classic(&flipped).is_ok());

    let mut filter = blocked(1_000, 0.01);
    (0..900u64).for_each(|i| filter.insert(&i));
    let bytes = filter.to_bytes();
    assert_eq!(
        header::flags(&bytes) & FLAG_UNIFORM_HASHES,
        FLAG_UNIFORM_HASHES
    );
    let loaded = load_blocked(&bytes).unwrap();
    assert_eq!(loaded, filter);
    assert_eq!(loaded.to_bytes(), bytes);
    assert!((0..900u64).all(|i| loaded.contains(&i)));
    assert_eq!(
        BlockedCountingBloomFilter::from_bytes(&bytes).unwrap_err(),
        mismatch
    );
    let err =
        BlockedCountingBloomFilter::from_bytes_with_hasher(&bytes, DefaultHashBuilder::default());
    assert_eq!(err.unwrap_err(), mismatch);

    let mut any = BlockedCountingBloomFilter::with_fpr(1_000, 0.01).unwrap();
    any.insert(&1u64);
    let any_bytes = any.to_bytes();
    assert_eq!(header::flags(&any_bytes) & FLAG_UNIFORM_HASHES, 0);
    assert_eq!(load_blocked(&any_bytes).unwrap_err(), other_way);
    let flipped = header::with_flags(&any_bytes, header::flags(&any_bytes) | FLAG_UNIFORM_HASHES);
    assert!(load_blocked(&flipped).is_ok());
}

#[test]
fn only_an_empty_filter_becomes_uniform() {
    // Two keys in a 1,000-key filter set 2k counters, which the estimate
    // reads back as 2 items.
    let mut filter = CountingBloomFilter::with_fpr(1_000, 0.01).unwrap();
    filter.insert(&7u64);
    filter.insert(&8u64);
    let err = filter.clone().assume_uniform_hashes().unwrap_err();
    assert_eq!(
        err.to_string(),
        "assume_uniform_hashes must be called on an empty filter, got a filter of about 2 items"
    );
    // Emptied by removes, it may: no counter is left where the mixed
    // hashes put it.
    assert!(filter.remove(&7u64) && filter.remove(&8u64));
    let mut emptied = filter.assume_uniform_hashes().unwrap();
    emptied.insert(&7u64);
    assert!(emptied.contains(&7u64));
    assert!(format!("{emptied:?}").contains("UniformHashes"));
    let default = CountingBloomFilter::with_fpr(1_000, 0.01).unwrap();
    assert!(format!("{default:?}").contains("AnyHashes"));

    let mut filter = BlockedCountingBloomFilter::with_fpr(1_000, 0.01).unwrap();
    filter.insert(&7u64);
    filter.insert(&8u64);
    let err = filter.clone().assume_uniform_hashes().unwrap_err();
    assert_eq!(
        err.to_string(),
        "assume_uniform_hashes must be called on an empty filter, got a filter of about 2 items"
    );
    assert!(filter.remove(&7u64) && filter.remove(&8u64));
    let mut emptied = filter.assume_uniform_hashes().unwrap();
    emptied.insert(&7u64);
    assert!(emptied.contains(&7u64));
    assert!(format!("{emptied:?}").contains("UniformHashes"));

    // A saturated counter never returns to zero, so such a filter stays
    // what it is, and says so.
    let mut saturated = CountingBloomFilter::with_fpr(1_000, 0.01).unwrap();
    (0..20).for_each(|_| saturated.insert(&1u64));
    (0..20).for_each(|_| {
        saturated.remove(&1u64);
    });
    assert!(saturated.saturated_counters() > 0);
    assert!(saturated.assume_uniform_hashes().is_err());
}

#[test]
fn batches_answer_as_one_by_one() {
    // Batched inserts, lookups and removes take the same counters as the
    // one-by-one methods in uniform filters, in tables of 8 MiB and up,
    // which batches prefetch (and, with AVX2, answer in chunks), and in a
    // small one, which they do not.
    let n = 50_000;
    let members = keys::members(3, n);
    let queries = keys::interleaved(&members, &keys::non_members(3, n));
    let classic_tables = [
        CountingBloomFilter::with_counters(20_000_000, 7).unwrap(),
        CountingBloomFilter::with_fpr(n, 0.01).unwrap(),
    ];
    for table in classic_tables {
        let mut batched = table.assume_uniform_hashes().unwrap();
        let mut one_by_one = batched.clone();
        batched.insert_batch(&members);
        members.iter().for_each(|k| one_by_one.insert(k));
        assert_eq!(batched, one_by_one);
        let answers: Vec<bool> = batched.contains_batch(&queries).collect();
        let expected: Vec<bool> = queries.iter().map(|k| one_by_one.contains(k)).collect();
        assert_eq!(answers, expected);
        assert!(answers.iter().step_by(2).all(|&a| a));
        assert_eq!(batched.remove_batch(&members), n);
        assert_eq!(batched.nonzero_counters(), 0);
    }
    let blocked_tables = [
        BlockedCountingBloomFilter::with_blocks(1 << 17, 6).unwrap(),
        BlockedCountingBloomFilter::with_fpr(n, 0.01).unwrap(),
    ];
    for table in blocked_tables {
        let mut batched = table.assume_uniform_hashes().unwrap();
        let mut one_by_one = batched.clone();
        batched.insert_batch(&members);
        members.iter().for_each(|k| one_by_one.insert(k));
        assert_eq!(batched, one_by_one);
        let answers: Vec<bool> = batched.contains_batch(&queries).collect();
        let expected: Vec<bool> = queries.iter().map(|k| one_by_one.contains(k)).collect();
        assert_eq!(answers, expected);
        assert!(answers.iter().step_by(2).all(|&a| a));
        assert_eq!(batched.remove_batch(&members), n);
        assert_eq!(batched.nonzero_counters(), 0);
    }
}

#[test]
fn small_blocked_filters_of_uniform_hashes_meet_the_target() {
    // Filters of 100 keys have a few blocks, so a key's two halves often
    // share one. A second word that repeats bits of the first (the first
    // pair built, y = h ^ (h << 32)) then gives both halves the same
    // counters, and 100-key filters measured 1.10× the target at 1 % and
    // 1.13× at 0.1 % (`cargo xtask compare`, small sets), where the default
    // measures 0.93× and 0.79×.
    //
    // The mean over T = 2000 sets of q = 2000 non-members each (seeds 1000 +
    // set): 4M queries, a binomial standard error of 0.5 % of a 1 % rate
    // and 1.6 % of a 0.1 % rate, which the set-to-set spread of small tables
    // about doubles. The bound, 1.05 × the target, is then at least 3σ above
    // a rate equal to the target and 3σ below the old pair's, and far above
    // the default's.
    let (n, sets, queries) = (100, 2_000u64, 2_000);
    for p in [0.01, 0.001] {
        let mut false_positives = 0usize;
        for set in 0..sets {
            let mut filter = blocked(n, p);
            for k in keys::members(1_000 + set, n) {
                filter.insert(&k);
            }
            false_positives += keys::non_members(1_000 + set, queries)
                .iter()
                .filter(|k| filter.contains(k))
                .count();
        }
        let measured = false_positives as f64 / (sets as usize * queries) as f64;
        println!("p {p}: {:.3}× the target", measured / p);
        assert!(measured <= 1.05 * p, "p {p}: measured {measured}");
    }
}
