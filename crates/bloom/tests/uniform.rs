//! Filters of `UniformHashes`: they take positions from the hash as it is,
//! never forget a key on any path (plain, atomic, batched, through bytes),
//! meet their rate with a good hasher, keep their bytes apart from those of
//! the default quality, and the default quality's bytes are what they were.

// quickcheck hands properties their generated input by value.
#![allow(clippy::needless_pass_by_value)]

use bloom::{
    AnyHashes, AtomicBlockedBloomFilter, AtomicBloomFilter, BlockedBloomFilter, BloomFilter,
    DefaultHashBuilder, Error, ProbeSequence, UniformHashes,
};
use filter_core::format::{FLAG_UNIFORM_HASHES, HEADER_BYTES};
use filter_core::testing::oracle::{Codec, Harness, Op};
use filter_core::testing::stable_hasher::StableHasher;
use filter_core::testing::stats::{fpr_upper_bound, measured_fpr};
use filter_core::testing::{header, keys};
use filter_core::{mix64, reduce};
use quickcheck::{QuickCheck, TestResult};

type Classic = BloomFilter<DefaultHashBuilder, UniformHashes>;
type Blocked = BlockedBloomFilter<DefaultHashBuilder, UniformHashes>;

fn uniform_classic(filter: BloomFilter) -> Classic {
    filter.assume_uniform_hashes().expect("an empty filter")
}

fn uniform_blocked(filter: BlockedBloomFilter) -> Blocked {
    filter.assume_uniform_hashes().expect("an empty filter")
}

/// The mismatch of loading bytes of quality `stored` as `expected`.
fn mismatch(stored: &'static str, expected: &'static str) -> Error {
    Error::HashQualityMismatch { stored, expected }
}

// ---------------------------------------------------------------------------
// Oracle: no false negatives over random operation sequences.

fn classic_codec() -> Option<Codec<Classic>> {
    Some(Codec {
        to_bytes: Classic::to_bytes,
        from_bytes: |bytes| {
            Classic::from_bytes_with_quality(bytes, DefaultHashBuilder::default(), UniformHashes)
        },
    })
}

fn blocked_codec() -> Option<Codec<Blocked>> {
    Some(Codec {
        to_bytes: Blocked::to_bytes,
        from_bytes: |bytes| {
            Blocked::from_bytes_with_quality(bytes, DefaultHashBuilder::default(), UniformHashes)
        },
    })
}

/// A small uniform classic filter of each probe sequence, chosen by
/// `shape`, so that up to 256 distinct keys overfill it: hashed (200 bits,
/// k = 10, below 2^(1 + 7) bits), cubic (50 keys at 5 %: 312 bits, k = 4)
/// and folded (4096 bits, k = 4).
fn small_classic(shape: u8) -> Classic {
    let (filter, sequence) = match shape % 3 {
        0 => (BloomFilter::with_bits(200, 10), ProbeSequence::Hashed),
        1 => (BloomFilter::with_fpr(50, 0.05), ProbeSequence::Cubic),
        _ => (BloomFilter::with_bits(4096, 4), ProbeSequence::Folded),
    };
    let filter = uniform_classic(filter.expect("valid parameters"));
    assert_eq!(filter.probe_sequence(), sequence);
    filter
}

fn check(result: Result<(), String>) -> TestResult {
    match result {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(e),
    }
}

fn classic_never_forgets(ops: Vec<Op>, shape: u8, url_keys: bool) -> TestResult {
    let filter = small_classic(shape);
    if url_keys {
        let h = Harness {
            key: |i| keys::url(17, i),
            codec: classic_codec(),
        };
        check(h.run::<str>(filter, &ops))
    } else {
        let h = Harness {
            key: |i| keys::key(17, i),
            codec: classic_codec(),
        };
        check(h.run::<u64>(filter, &ops))
    }
}

fn blocked_never_forgets(ops: Vec<Op>, url_keys: bool) -> TestResult {
    // 50 keys at 5 %: 2 blocks, overfilled by up to 256 keys.
    let filter = uniform_blocked(BlockedBloomFilter::with_fpr(50, 0.05).expect("valid"));
    if url_keys {
        let h = Harness {
            key: |i| keys::url(18, i),
            codec: blocked_codec(),
        };
        check(h.run::<str>(filter, &ops))
    } else {
        let h = Harness {
            key: |i| keys::key(18, i),
            codec: blocked_codec(),
        };
        check(h.run::<u64>(filter, &ops))
    }
}

#[test]
fn uniform_filters_never_forget_keys_under_random_operations() {
    let qc = || QuickCheck::new().tests(300);
    qc().quickcheck(classic_never_forgets as fn(Vec<Op>, u8, bool) -> TestResult);
    qc().quickcheck(blocked_never_forgets as fn(Vec<Op>, bool) -> TestResult);
}

quickcheck::quickcheck! {
    /// Arbitrary raw hashes, structured ones included (which a uniform
    /// filter spreads badly, but never forgets), through every insert path
    /// of all four types and a byte round trip.
    fn prehashed_keys_are_never_forgotten(hashes: Vec<u64>, shape: u8) -> bool {
        let n = hashes.len().max(1);
        let mut c = small_classic(shape);
        let mut b = uniform_blocked(BlockedBloomFilter::with_fpr(n, 0.01).expect("valid"));
        let atomic_c = AtomicBloomFilter::from(small_classic(shape));
        let atomic_b = AtomicBlockedBloomFilter::from(b.clone());
        let mut batched_c = small_classic(shape);
        let mut batched_b = b.clone();
        for &h in &hashes {
            c.insert_hash(h);
            b.insert_hash(h);
            atomic_c.insert_hash(h);
            atomic_b.insert_hash(h);
        }
        batched_c.insert_hash_batch(hashes.iter().copied());
        batched_b.insert_hash_batch(hashes.iter().copied());
        let hasher = DefaultHashBuilder::default;
        let c = Classic::from_bytes_with_quality(&c.to_bytes(), hasher(), UniformHashes)
            .expect("round trip");
        let b = Blocked::from_bytes_with_quality(&b.to_bytes(), hasher(), UniformHashes)
            .expect("round trip");
        let found = |h: &u64| {
            c.contains_hash(*h)
                && b.contains_hash(*h)
                && atomic_c.contains_hash(*h)
                && atomic_b.contains_hash(*h)
                && batched_c.contains_hash(*h)
                && batched_b.contains_hash(*h)
        };
        hashes.iter().all(found)
            && c.contains_hash_batch(hashes.iter().copied()).all(|x| x)
            && b.contains_hash_batch(hashes.iter().copied()).all(|x| x)
    }
}

// ---------------------------------------------------------------------------
// Statistical: the target rate, with the default hasher on random keys.

/// Tolerance, as in `tests/fpr.rs`: q non-member queries give a binomial
/// proportion with σ = √(p(1 − p)/q). 10 % above the target (slack 1.1)
/// for rounding in the sizing, and 4σ on top, so a correct filter fails
/// with probability about 3·10^−5 per assertion (one-sided normal tail),
/// while one 20 % over target at q ≈ 62,000 and p = 1 % (0.2 points ≈
/// 5σ) or at q ≈ 624,000 and p = 0.1 % (5σ) does not pass. The seeds are
/// fixed, so the outcome is deterministic; the bound says how unlucky a
/// seed would have to be.
const SLACK: f64 = 1.1;
const SIGMAS: f64 = 4.0;

fn queries_for(fpr: f64) -> usize {
    // σ under 4 % of p: q ≥ (1 − p)/(p · 0.04²).
    ((1.0 - fpr) / (fpr * 0.0016)).ceil() as usize
}

#[test]
fn uniform_filters_meet_the_target_rate_with_the_default_hasher() {
    for fpr in [0.01, 0.001] {
        // 1,000 keys at 0.1 % is a cubic classic table, the others folded.
        for n in [1_000, 20_000, 300_000] {
            let members = keys::members(21, n);
            let non_members = keys::non_members(21, queries_for(fpr));
            let q = non_members.len();
            let bound = fpr_upper_bound(fpr, q, SLACK, SIGMAS);

            let mut classic = uniform_classic(BloomFilter::with_fpr(n, fpr).unwrap());
            members.iter().for_each(|k| classic.insert(k));
            assert!(members.iter().all(|k| classic.contains(k)));
            let measured = measured_fpr(&classic, &non_members);
            assert!(
                measured <= bound,
                "classic p {fpr} n {n}: measured {measured} > {bound}"
            );

            let mut blocked = uniform_blocked(BlockedBloomFilter::with_fpr(n, fpr).unwrap());
            blocked.insert_batch(&members);
            assert!(members.iter().all(|k| blocked.contains(k)));
            let measured = measured_fpr(&blocked, &non_members);
            assert!(
                measured <= bound,
                "blocked p {fpr} n {n}: measured {measured} > {bound}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Positions: the uniform filters take them from the hash as it is.

/// Where a byte string's table starts: after the header, the two
/// parameters (u64 and u32) and the array's u64 length.
const TABLE_AT: usize = HEADER_BYTES + 8 + 4 + 8;

/// The set bits of a classic filter's bytes, as positions.
fn classic_set_bits(bytes: &[u8], bits: u64) -> Vec<u64> {
    let words = bits.div_ceil(64) as usize;
    let table = &bytes[TABLE_AT..TABLE_AT + 8 * words];
    (0..bits)
        .filter(|&i| {
            let word = u64::from_le_bytes(table[(i / 64) as usize * 8..][..8].try_into().unwrap());
            word >> (i % 64) & 1 == 1
        })
        .collect()
}

/// The k positions of raw hash `h` in a uniform classic table of `len` bits
/// under `sequence`, from the definitions in `filter_core::probes` with
/// x = h: probe j is reduce(x + j·y), y = x rotated by 32 bits xor the
/// golden ratio, plus (j³ − j)/6 · z for the cubic sequence (z = x times
/// SplitMix64's second constant), or mixed before the reduction for the
/// hashed one.
fn uniform_positions(h: u64, len: usize, sequence: ProbeSequence, k: u64) -> Vec<u64> {
    let x = h;
    let y = x.rotate_left(32) ^ 0x9E37_79B9_7F4A_7C15;
    let z = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    let mut positions: Vec<u64> = (0..k)
        .map(|j| {
            let linear = x.wrapping_add(j.wrapping_mul(y));
            let value = match sequence {
                ProbeSequence::Cubic => linear.wrapping_add(((j * j * j - j) / 6).wrapping_mul(z)),
                ProbeSequence::Hashed => mix64(linear),
                _ => linear,
            };
            reduce(value, len) as u64
        })
        .collect();
    positions.sort_unstable();
    positions.dedup();
    positions
}

#[test]
fn uniform_classic_filters_set_the_bits_of_the_unmixed_hash() {
    let shapes = [
        (100_003, 7, ProbeSequence::Folded),
        (1_000, 7, ProbeSequence::Cubic),
        (60, 8, ProbeSequence::Hashed),
    ];
    let hashes = [0u64, 1, 0xDEAD_BEEF, u64::MAX, mix64(5), mix64(6) << 1];
    for (bits, k, sequence) in shapes {
        for h in hashes {
            let mut plain = uniform_classic(BloomFilter::with_bits(bits, k).unwrap());
            assert_eq!(plain.probe_sequence(), sequence);
            plain.insert_hash(h);
            let expected = uniform_positions(h, bits as usize, sequence, u64::from(k));
            let at = format!("{sequence:?} {bits} bits, hash {h:#x}");
            assert_eq!(classic_set_bits(&plain.to_bytes(), bits), expected, "{at}");
            // The atomic twin and the batched insert set the same bits.
            let atomic =
                AtomicBloomFilter::from(uniform_classic(BloomFilter::with_bits(bits, k).unwrap()));
            atomic.insert_hash(h);
            assert_eq!(atomic.to_bytes(), plain.to_bytes(), "{at}");
            let mut batched = uniform_classic(BloomFilter::with_bits(bits, k).unwrap());
            batched.insert_hash_batch([h]);
            assert_eq!(batched, plain, "{at}");
            // The default quality mixes, so the same hash sets other bits,
            // except for hash 0, which mix64 maps to itself (the folded
            // product does not).
            let mut mixed = BloomFilter::with_bits(bits, k).unwrap();
            mixed.insert_hash(h);
            let same = classic_set_bits(&mixed.to_bytes(), bits) == expected;
            assert_eq!(same, h == 0 && sequence != ProbeSequence::Folded, "{at}");
        }
    }
}

#[test]
fn a_uniform_filter_read_as_linear_finds_its_members() {
    // Under uniform hashes the linear and folded sequences both start at
    // the hash, so bytes whose flags name no sequence (linear) read the
    // members a folded table set.
    let mut filter = uniform_classic(BloomFilter::with_bits(100_000, 5).unwrap());
    let members = keys::members(22, 2_000);
    members.iter().for_each(|k| filter.insert(k));
    let linear = header::with_flags(&filter.to_bytes(), FLAG_UNIFORM_HASHES);
    let hasher = DefaultHashBuilder::default();
    let linear = Classic::from_bytes_with_quality(&linear, hasher, UniformHashes).unwrap();
    assert_eq!(linear.probe_sequence(), ProbeSequence::Linear);
    assert!(members.iter().all(|k| linear.contains(k)));
}

/// Parquet's split-block salts, the lane multipliers of `block.rs`.
const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// The lane words of a blocked filter's bytes.
fn lanes_of(bytes: &[u8], blocks: usize) -> Vec<u32> {
    bytes[TABLE_AT..TABLE_AT + 32 * blocks]
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

#[test]
fn uniform_blocked_filters_set_the_bits_of_the_unmixed_hash() {
    let blocks = 1_000usize;
    let hashes = [0u64, 1, 0xDEAD_BEEF, u64::MAX, mix64(5), 7 << 40];
    for h in hashes {
        // Block reduce(h, blocks), from the high bits; in lane i the bit
        // (low32(h) · SALT[i]) >> 27.
        let mut expected = vec![0u32; 8 * blocks];
        let block = reduce(h, blocks);
        for (i, salt) in SALT.iter().enumerate() {
            expected[8 * block + i] = 1 << ((h as u32).wrapping_mul(*salt) >> 27);
        }
        let new = || uniform_blocked(BlockedBloomFilter::with_blocks(blocks as u64).unwrap());
        let mut plain = new();
        plain.insert_hash(h);
        assert_eq!(lanes_of(&plain.to_bytes(), blocks), expected, "{h:#x}");
        // The atomic twin (AVX2 or portable, whichever this CPU runs) and
        // the batched insert set the same bits, and all find the key.
        let atomic = AtomicBlockedBloomFilter::from(new());
        atomic.insert_hash(h);
        assert_eq!(atomic.to_bytes(), plain.to_bytes(), "{h:#x}");
        let mut batched = new();
        batched.insert_hash_batch([h]);
        assert_eq!(batched, plain, "{h:#x}");
        assert!(plain.contains_hash(h) && atomic.contains_hash(h));
        assert!(plain.contains_hash_batch([h]).all(|x| x));
        // The default quality mixes first and puts the key elsewhere, but
        // for hash 0, which its multiply maps to itself.
        let mut mixed = BlockedBloomFilter::with_blocks(blocks as u64).unwrap();
        mixed.insert_hash(h);
        let same = lanes_of(&mixed.to_bytes(), blocks) == expected;
        assert_eq!(same, h == 0, "{h:#x}");
    }
}

#[test]
fn uniform_batches_agree_with_single_lookups_in_large_tables() {
    // Tables past 8 MiB are prefetched and, on CPUs with AVX2, answered in
    // chunks (the blocked filter at every size): the same answers, and the
    // same filter as one-by-one inserts.
    let members = keys::members(23, 20_000);
    let asked: Vec<u64> = keys::interleaved(&members, &keys::non_members(23, 20_000));
    let mut classic = uniform_classic(BloomFilter::with_bits((1 << 26) + 4096, 7).unwrap());
    let mut one_by_one = classic.clone();
    classic.insert_batch(&members);
    members.iter().for_each(|k| one_by_one.insert(k));
    assert!(classic == one_by_one);
    let single: Vec<bool> = asked.iter().map(|k| classic.contains(k)).collect();
    assert_eq!(classic.contains_batch(&asked).collect::<Vec<_>>(), single);
    assert!(single.iter().filter(|&&x| x).count() >= members.len());

    let mut blocked = uniform_blocked(BlockedBloomFilter::with_blocks(300_000).unwrap());
    let mut one_by_one = blocked.clone();
    blocked.extend(&members);
    members.iter().for_each(|k| one_by_one.insert(k));
    assert!(blocked == one_by_one);
    let single: Vec<bool> = asked.iter().map(|k| blocked.contains(k)).collect();
    assert_eq!(blocked.contains_batch(&asked).collect::<Vec<_>>(), single);
    assert!(single.iter().filter(|&&x| x).count() >= members.len());
}

// ---------------------------------------------------------------------------
// The default quality's bytes are what they were before the choice existed.

/// The checksum of a byte string, its last eight bytes: equal checksums of
/// equal-length strings mean (but for a 2^−64 accident) equal bytes.
fn checksum_of(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap())
}

#[test]
fn the_default_quality_writes_the_bytes_it_wrote_before() {
    // Taken from the code before this type parameter existed (commit
    // ca56591, format 1.6): StableHasher, "key-0".."key-{n-1}" and five raw
    // hashes, one filter per classic probe sequence and one blocked.
    let raw = [0u64, 1, 2, u64::MAX, 1 << 40];
    let pinned = [
        (2, 1e-6, ProbeSequence::Hashed, 80, 0xb83c_c681_03cd_3476),
        (10, 0.01, ProbeSequence::Cubic, 88, 0x92f5_d453_692f_7fe2),
        (
            1000,
            0.01,
            ProbeSequence::Folded,
            1272,
            0xaa1a_2fd4_d578_e62f,
        ),
    ];
    for (n, fpr, sequence, len, sum) in pinned {
        let mut f = BloomFilter::with_fpr_and_hasher(n, fpr, StableHasher::default()).unwrap();
        (0..n).for_each(|i| f.insert(&format!("key-{i}")));
        raw.iter().for_each(|&h| f.insert_hash(h));
        assert_eq!(f.probe_sequence(), sequence);
        let bytes = f.to_bytes();
        assert_eq!(header::flags(&bytes) & FLAG_UNIFORM_HASHES, 0);
        assert_eq!(
            (bytes.len(), checksum_of(&bytes)),
            (len, sum),
            "{sequence:?}"
        );
        // The atomic twin writes them too.
        assert_eq!(AtomicBloomFilter::from(f).to_bytes(), bytes);
    }
    let mut f =
        BlockedBloomFilter::with_fpr_and_hasher(1000, 0.01, StableHasher::default()).unwrap();
    (0..1000).for_each(|i| f.insert(&format!("key-{i}")));
    raw.iter().for_each(|&h| f.insert_hash(h));
    let bytes = f.to_bytes();
    assert_eq!(header::flags(&bytes), 0);
    assert_eq!(
        (bytes.len(), checksum_of(&bytes)),
        (1416, 0x37a3_2a7b_5f01_ddb7)
    );
    assert_eq!(AtomicBlockedBloomFilter::from(f).to_bytes(), bytes);
}

// ---------------------------------------------------------------------------
// Bytes: the flag, round trips, and no loading across qualities.

/// A uniform and a default filter of each type, holding the same keys.
fn both_qualities() -> (Classic, BloomFilter, Blocked, BlockedBloomFilter) {
    let members = keys::members(24, 1_000);
    let mut any_c = BloomFilter::with_fpr(1_000, 0.01).unwrap();
    let mut uni_c = uniform_classic(any_c.clone());
    let mut any_b = BlockedBloomFilter::with_fpr(1_000, 0.01).unwrap();
    let mut uni_b = uniform_blocked(any_b.clone());
    for k in &members {
        any_c.insert(k);
        uni_c.insert(k);
        any_b.insert(k);
        uni_b.insert(k);
    }
    (uni_c, any_c, uni_b, any_b)
}

#[test]
fn bytes_record_the_quality_and_round_trip() {
    let (uni_c, any_c, uni_b, any_b) = both_qualities();
    let members = keys::members(24, 1_000);
    let hasher = DefaultHashBuilder::default;
    for (bytes, uniform) in [
        (uni_c.to_bytes(), true),
        (any_c.to_bytes(), false),
        (uni_b.to_bytes(), true),
        (any_b.to_bytes(), false),
    ] {
        let flag = header::flags(&bytes) & FLAG_UNIFORM_HASHES != 0;
        assert_eq!(flag, uniform);
    }
    // The classic filter's sequence flag is beside it, unchanged.
    assert_eq!(
        header::flags(&uni_c.to_bytes()),
        header::flags(&any_c.to_bytes()) | FLAG_UNIFORM_HASHES
    );

    let c = Classic::from_bytes_with_quality(&uni_c.to_bytes(), hasher(), UniformHashes).unwrap();
    assert_eq!(c, uni_c);
    assert_eq!(c.to_bytes(), uni_c.to_bytes());
    assert!(members.iter().all(|k| c.contains(k)));
    let b = Blocked::from_bytes_with_quality(&uni_b.to_bytes(), hasher(), UniformHashes).unwrap();
    assert_eq!(b, uni_b);
    assert!(members.iter().all(|k| b.contains(k)));
    // The default quality named explicitly loads its own bytes.
    let c = BloomFilter::from_bytes_with_quality(&any_c.to_bytes(), hasher(), AnyHashes).unwrap();
    assert_eq!(c, any_c);
    let b = BlockedBloomFilter::from_bytes_with_quality(&any_b.to_bytes(), hasher(), AnyHashes)
        .unwrap();
    assert_eq!(b, any_b);
    // The two qualities hold the same keys at other positions.
    assert_ne!(
        uni_c.to_bytes()[HEADER_BYTES..],
        any_c.to_bytes()[HEADER_BYTES..]
    );
    assert_ne!(
        uni_b.to_bytes()[HEADER_BYTES..],
        any_b.to_bytes()[HEADER_BYTES..]
    );
}

#[test]
fn bytes_of_one_quality_do_not_load_as_the_other() {
    let (uni_c, any_c, uni_b, any_b) = both_qualities();
    let hasher = DefaultHashBuilder::default;
    let as_any = mismatch("UniformHashes", "AnyHashes");
    let as_uniform = mismatch("AnyHashes", "UniformHashes");
    let (uni_c, any_c, uni_b, any_b) = (
        uni_c.to_bytes(),
        any_c.to_bytes(),
        uni_b.to_bytes(),
        any_b.to_bytes(),
    );

    assert_eq!(BloomFilter::from_bytes(&uni_c).unwrap_err(), as_any);
    assert_eq!(
        BloomFilter::from_bytes_with_hasher(&uni_c, hasher()).unwrap_err(),
        as_any
    );
    assert_eq!(
        Classic::from_bytes_with_quality(&any_c, hasher(), UniformHashes).unwrap_err(),
        as_uniform
    );
    assert_eq!(BlockedBloomFilter::from_bytes(&uni_b).unwrap_err(), as_any);
    assert_eq!(
        BlockedBloomFilter::from_bytes_with_hasher(&uni_b, hasher()).unwrap_err(),
        as_any
    );
    assert_eq!(
        Blocked::from_bytes_with_quality(&any_b, hasher(), UniformHashes).unwrap_err(),
        as_uniform
    );

    // The atomic twins share the format, and the refusals.
    assert_eq!(AtomicBloomFilter::from_bytes(&uni_c).unwrap_err(), as_any);
    assert_eq!(
        AtomicBloomFilter::from_bytes_with_hasher(&uni_c, hasher()).unwrap_err(),
        as_any
    );
    assert_eq!(
        AtomicBloomFilter::from_bytes_with_quality(&any_c, hasher(), UniformHashes).unwrap_err(),
        as_uniform
    );
    assert_eq!(
        AtomicBlockedBloomFilter::from_bytes(&uni_b).unwrap_err(),
        as_any
    );
    assert_eq!(
        AtomicBlockedBloomFilter::from_bytes_with_hasher(&uni_b, hasher()).unwrap_err(),
        as_any
    );
    assert_eq!(
        AtomicBlockedBloomFilter::from_bytes_with_quality(&any_b, hasher(), UniformHashes)
            .unwrap_err(),
        as_uniform
    );
    // And load their own quality's bytes.
    let atomic_c = AtomicBloomFilter::from_bytes_with_quality(&uni_c, hasher(), UniformHashes);
    assert_eq!(atomic_c.unwrap().to_bytes(), uni_c);
    let atomic_b =
        AtomicBlockedBloomFilter::from_bytes_with_quality(&uni_b, hasher(), UniformHashes);
    assert_eq!(atomic_b.unwrap().to_bytes(), uni_b);

    // A hasher mismatch is still reported as one.
    let other = DefaultHashBuilder::with_seed(9);
    assert_eq!(
        Classic::from_bytes_with_quality(&uni_c, other, UniformHashes).unwrap_err(),
        Error::HasherMismatch
    );
}

#[test]
fn atomic_twins_are_the_same_uniform_filters() {
    let members = keys::members(25, 5_000);
    let plain = |mut f: Classic| {
        members.iter().for_each(|k| f.insert(k));
        f
    };
    let classic = plain(uniform_classic(BloomFilter::with_fpr(5_000, 0.01).unwrap()));
    let atomic = AtomicBloomFilter::with_fpr(5_000, 0.01)
        .unwrap()
        .assume_uniform_hashes()
        .unwrap();
    std::thread::scope(|s| {
        for share in members.chunks(1_250) {
            let atomic = &atomic;
            s.spawn(move || share.iter().for_each(|k| atomic.insert(k)));
        }
    });
    assert_eq!(atomic.to_bytes(), classic.to_bytes());
    assert_eq!(atomic.to_bloom_filter(), classic);
    let back: Classic = BloomFilter::from(atomic);
    assert_eq!(back, classic);
    let again = AtomicBloomFilter::from(back);
    assert!(members.iter().all(|k| again.contains(k)));

    let mut blocked = uniform_blocked(BlockedBloomFilter::with_fpr(5_000, 0.01).unwrap());
    members.iter().for_each(|k| blocked.insert(k));
    let atomic = AtomicBlockedBloomFilter::with_fpr(5_000, 0.01)
        .unwrap()
        .assume_uniform_hashes()
        .unwrap();
    std::thread::scope(|s| {
        for share in members.chunks(1_250) {
            let atomic = &atomic;
            s.spawn(move || share.iter().for_each(|k| atomic.insert(k)));
        }
    });
    assert_eq!(atomic.to_bytes(), blocked.to_bytes());
    assert_eq!(atomic.to_blocked_bloom_filter(), blocked);
    let back: Blocked = BlockedBloomFilter::from(atomic);
    assert_eq!(back, blocked);
    let again = AtomicBlockedBloomFilter::from(back);
    assert!(members.iter().all(|k| again.contains(k)));
}

// ---------------------------------------------------------------------------
// assume_uniform_hashes.

#[test]
fn assume_uniform_hashes_converts_an_empty_filter() {
    let members = keys::members(26, 2_000);
    // A filter that held keys and was cleared converts as a new one does,
    // and the two then answer alike.
    let mut used = BloomFilter::with_fpr(2_000, 0.01).unwrap();
    members.iter().for_each(|k| used.insert(k));
    used.clear();
    let fresh = uniform_classic(BloomFilter::with_fpr(2_000, 0.01).unwrap());
    let mut a = uniform_classic(used);
    let mut b = fresh.clone();
    // The shape of the default filter: the quality changes no size.
    let any = BloomFilter::with_fpr(2_000, 0.01).unwrap();
    let shape = |f: &Classic| (f.bits(), f.hashes(), f.probe_sequence());
    assert_eq!(shape(&a), (any.bits(), any.hashes(), any.probe_sequence()));
    assert_eq!(a.probe_sequence(), ProbeSequence::Folded);
    assert_eq!(a, b);
    members.iter().for_each(|k| a.insert(k));
    b.insert_batch(&members);
    assert_eq!(a, b);
    assert_eq!(a.to_bytes(), b.to_bytes());
    assert!(members.iter().all(|k| a.contains(k)));

    let mut used = BlockedBloomFilter::with_fpr(2_000, 0.01).unwrap();
    members.iter().for_each(|k| used.insert(k));
    used.clear();
    let mut a = uniform_blocked(used);
    let mut b = uniform_blocked(BlockedBloomFilter::with_fpr(2_000, 0.01).unwrap());
    assert_eq!(a, b);
    members.iter().for_each(|k| a.insert(k));
    b.extend(&members);
    assert_eq!(a.to_bytes(), b.to_bytes());
    assert!(members.iter().all(|k| a.contains(k)));
    let text = format!("{a:?}");
    assert!(text.contains("hash_quality: UniformHashes"), "{text}");
}

#[test]
fn assume_uniform_hashes_refuses_a_filter_with_keys() {
    let expected = |n: usize| {
        format!(
            "assume_uniform_hashes must be called on an empty filter, got a filter of about {n} items"
        )
    };
    let members = keys::members(27, 1_000);

    let mut classic = BloomFilter::with_fpr(1_000, 0.01).unwrap();
    classic.insert(&1u64);
    assert_eq!(
        classic
            .clone()
            .assume_uniform_hashes()
            .unwrap_err()
            .to_string(),
        expected(1)
    );
    members.iter().for_each(|k| classic.insert(k));
    let n = classic.estimated_len();
    assert!((950..=1_050).contains(&n), "{n}");
    let err = classic.clone().assume_uniform_hashes().unwrap_err();
    assert!(matches!(
        err,
        Error::InvalidParameter {
            name: "assume_uniform_hashes",
            ..
        }
    ));
    assert_eq!(err.to_string(), expected(n));
    let atomic = AtomicBloomFilter::from(classic);
    assert_eq!(
        atomic.assume_uniform_hashes().unwrap_err().to_string(),
        expected(n)
    );

    let mut blocked = BlockedBloomFilter::with_fpr(1_000, 0.01).unwrap();
    blocked.insert(&1u64);
    assert_eq!(
        blocked
            .clone()
            .assume_uniform_hashes()
            .unwrap_err()
            .to_string(),
        expected(1)
    );
    members.iter().for_each(|k| blocked.insert(k));
    let n = blocked.estimated_len();
    assert!((950..=1_050).contains(&n), "{n}");
    let err = blocked.clone().assume_uniform_hashes().unwrap_err();
    assert_eq!(err.to_string(), expected(n));
    let atomic = AtomicBlockedBloomFilter::from(blocked);
    assert_eq!(
        atomic.assume_uniform_hashes().unwrap_err().to_string(),
        expected(n)
    );
}

// ---------------------------------------------------------------------------
// Union and intersection.

#[test]
fn uniform_filters_union_and_intersect() {
    let left = keys::members(28, 3_000);
    let right = keys::members(29, 3_000);
    let shared = &left[..1_000];

    let new = || uniform_classic(BloomFilter::with_fpr(6_000, 0.01).unwrap());
    let (mut a, mut b, mut all) = (new(), new(), new());
    left.iter().for_each(|k| a.insert(k));
    right.iter().chain(shared).for_each(|k| b.insert(k));
    left.iter().chain(&right).for_each(|k| all.insert(k));
    let mut union = a.clone();
    union.union(&b).unwrap();
    // Union is the filter of every key, bit for bit.
    assert_eq!(union, all);
    let mut both = a.clone();
    both.intersect(&b).unwrap();
    assert!(shared.iter().all(|k| both.contains(k)));
    assert!(both.ones() < a.ones());
    let mut other_size = uniform_classic(BloomFilter::with_fpr(7_000, 0.01).unwrap());
    assert!(matches!(
        other_size.union(&a),
        Err(Error::Incompatible { .. })
    ));

    let new = || uniform_blocked(BlockedBloomFilter::with_fpr(6_000, 0.01).unwrap());
    let (mut a, mut b, mut all) = (new(), new(), new());
    left.iter().for_each(|k| a.insert(k));
    right.iter().chain(shared).for_each(|k| b.insert(k));
    left.iter().chain(&right).for_each(|k| all.insert(k));
    let mut union = a.clone();
    union.union(&b).unwrap();
    assert_eq!(union, all);
    let mut both = a.clone();
    both.intersect(&b).unwrap();
    assert!(shared.iter().all(|k| both.contains(k)));
    assert!(both.ones() < a.ones());
    // Hashers that hash differently do not combine, whatever the quality.
    let seeded = uniform_blocked(
        BlockedBloomFilter::with_fpr_and_hasher(6_000, 0.01, DefaultHashBuilder::with_seed(3))
            .unwrap(),
    );
    assert_eq!(a.clone().union(&seeded), Err(Error::HasherMismatch));
}

// ---------------------------------------------------------------------------
// What the promise is for: structured hashes break the rate, never members.

#[test]
fn sequential_ids_as_hashes_break_the_rate_of_uniform_filters_not_their_members() {
    // Even ids 0, 2, .., 2·10^4 passed to `insert_hash` as they are, odd
    // ones asked. Their high bits are all zero, so a uniform blocked filter
    // puts every one in block 0, and a uniform classic filter starts every
    // one at bit 0 with steps that differ by a few hundredths of a bit from
    // one id to the next: an odd id's probes fall on its neighbours' bits.
    // Nearly every odd id answers "present", while the default quality,
    // which mixes, stays near 1 % (bound as in `tests/fpr.rs`: 1.1 × 1 %
    // plus 4σ over 10^4 queries).
    let n = 10_000u64;
    let members = || (0..n).map(|i| 2 * i);
    let asked = || (0..n).map(|i| 2 * i + 1);
    let rate = |found: usize| found as f64 / n as f64;
    let bound = fpr_upper_bound(0.01, n as usize, SLACK, SIGMAS);

    let mut uniform = uniform_classic(BloomFilter::with_fpr(n as usize, 0.01).unwrap());
    let mut mixed = BloomFilter::with_fpr(n as usize, 0.01).unwrap();
    uniform.insert_hash_batch(members());
    mixed.insert_hash_batch(members());
    assert!(members().all(|i| uniform.contains_hash(i) && mixed.contains_hash(i)));
    let uniform_rate = rate(asked().filter(|&i| uniform.contains_hash(i)).count());
    let mixed_rate = rate(asked().filter(|&i| mixed.contains_hash(i)).count());
    assert!(uniform_rate > 0.5, "classic uniform {uniform_rate}");
    assert!(mixed_rate <= bound, "classic mixed {mixed_rate}");

    let mut uniform = uniform_blocked(BlockedBloomFilter::with_fpr(n as usize, 0.01).unwrap());
    let mut mixed = BlockedBloomFilter::with_fpr(n as usize, 0.01).unwrap();
    uniform.insert_hash_batch(members());
    mixed.insert_hash_batch(members());
    assert!(members().all(|i| uniform.contains_hash(i) && mixed.contains_hash(i)));
    let blocked_rate = rate(asked().filter(|&i| uniform.contains_hash(i)).count());
    let mixed_rate = rate(asked().filter(|&i| mixed.contains_hash(i)).count());
    assert!(blocked_rate > 0.5, "blocked uniform {blocked_rate}");
    assert!(mixed_rate <= bound, "blocked mixed {mixed_rate}");
}
