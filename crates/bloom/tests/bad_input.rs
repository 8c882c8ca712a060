//! Every bad parameter is an `Err` naming it; every damaged byte string is
//! refused.

use bloom::{BlockedBloomFilter, BloomFilter, Error, PortableHasher};
use filter_core::format::{CHECKSUM_BYTES, HEADER_BYTES, reseal};
use filter_core::testing::{BAD_RATES, header, keys};

fn name_of(e: &Error) -> &'static str {
    match e {
        Error::InvalidParameter { name, .. } => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn bad_rates_are_errors() {
    for p in BAD_RATES {
        assert_eq!(
            name_of(&BloomFilter::with_fpr(100, p).unwrap_err()),
            "fpr",
            "{p}"
        );
        assert_eq!(
            name_of(&BlockedBloomFilter::with_fpr(100, p).unwrap_err()),
            "fpr",
            "{p}"
        );
    }
    let msg = BloomFilter::with_fpr(100, 1.5).unwrap_err().to_string();
    assert_eq!(msg, "fpr must be in the open interval (0, 1), got 1.5");
}

#[test]
fn zero_items_and_overflowing_sizes_are_errors() {
    assert_eq!(
        name_of(&BloomFilter::with_fpr(0, 0.01).unwrap_err()),
        "expected_items"
    );
    assert_eq!(
        name_of(&BlockedBloomFilter::with_fpr(0, 0.01).unwrap_err()),
        "expected_items"
    );
    // Past the 2^46-bit limit on 64-bit targets. On 32-bit ones the address
    // space refuses first, and only the largest counts pass it (2^31 keys at
    // 0.5 take 390 MB).
    let huge: &[(usize, f64)] = if cfg!(target_pointer_width = "64") {
        &[
            (usize::MAX, 0.01),
            (usize::MAX / 2, 0.5),
            (usize::MAX >> 24, 1e-300),
        ]
    } else {
        &[(usize::MAX, 0.01), (usize::MAX, 1e-300)]
    };
    for &(n, p) in huge {
        assert!(BloomFilter::with_fpr(n, p).is_err(), "{n} {p}");
        assert!(BlockedBloomFilter::with_fpr(n, p).is_err(), "{n} {p}");
    }
    // Sizes inside the 2^46-bit limit but beyond this machine's memory are
    // left to `filter_core::memory::zeroed_vec`'s own tests: on a machine
    // that overcommits memory, an 8 TiB request could be granted and then
    // zero-filled, which is not something a test should try.
}

#[test]
fn rates_too_small_for_the_hash_limit_name_fpr() {
    // A subnormal rate such as 1e-310 needs 1030 hashes, past `MAX_HASHES`:
    // the error names `fpr`, the parameter the caller passed, not `hashes`.
    for p in [1e-310, f64::from_bits(1)] {
        let err = BloomFilter::with_fpr(3, p).unwrap_err();
        assert_eq!(name_of(&err), "fpr", "{p}: {err}");
        assert!(
            err.to_string().contains("hash count is at most 1024"),
            "{err}"
        );
    }
    // The smallest normal rate still fits (1022 hashes).
    assert_eq!(
        BloomFilter::with_fpr(1, f64::MIN_POSITIVE)
            .unwrap()
            .hashes(),
        1022
    );
}

#[test]
fn blocked_rates_below_one_block_per_key_name_fpr() {
    // At 10^-20 the Poisson model asks for 10^8 blocks per key (2.9 GB for
    // one key): rates below `MIN_FPR` are refused by name rather than
    // allocated, or blamed on `expected_items`.
    for (n, p) in [(1, 1e-20), (1000, 1e-20), (1_000_000, 1e-9)] {
        let err = BlockedBloomFilter::with_fpr(n, p).unwrap_err();
        assert_eq!(name_of(&err), "fpr", "{n} {p}: {err}");
        assert!(err.to_string().contains("at least 2.3e-9"), "{err}");
    }
    // The limit is the model's rate at one block per key, rounded up: at
    // it, the sizing takes at most one 256-bit block per key, and a hair
    // lower the model would need more.
    let one_block_per_key = filter_core::sizing::blocked_bloom_fpr(
        256,
        1,
        8,
        256,
        filter_core::sizing::BlockLayout::Split,
    )
    .unwrap();
    assert!(
        (one_block_per_key..one_block_per_key * 1.01).contains(&bloom::MIN_FPR),
        "{one_block_per_key}"
    );
    for n in [1, 10, 1000] {
        let filter = BlockedBloomFilter::with_fpr(n, bloom::MIN_FPR).unwrap();
        assert!(filter.blocks() <= n as u64, "{n}: {}", filter.blocks());
    }
}

#[test]
// On 32-bit targets usize::MAX / 4 keys meet this rate in 29 MB, and get a
// filter.
#[cfg(target_pointer_width = "64")]
fn blocked_sizing_near_rate_one_is_prompt() {
    // A rate just below 1 gives a classic size of a few bits; a blocked
    // search starting there with every key in one block would sum a
    // Poisson series as long as the key count. The call must return its
    // error promptly.
    let err = BlockedBloomFilter::with_fpr(usize::MAX / 4, 1.0 - 1e-16).unwrap_err();
    assert_eq!(name_of(&err), "fpr", "{err}");
}

#[test]
// Its sizes are past a 32-bit `usize`, where the address space refuses them first.
#[cfg(target_pointer_width = "64")]
fn unallocatable_sizes_name_expected_items() {
    // 5·10^12 keys at 1 % fit under the 2^46-bit limit but not in memory:
    // the error names the parameter the caller passed, not the bits. Run only
    // where the kernel refuses a 6 TB request outright (overcommit modes 0
    // and 2): where it overcommits, the request could be granted and then
    // written.
    if !filter_core::testing::huge_allocations_are_refused() {
        return;
    }
    let n = 5_000_000_000_000;
    assert_eq!(
        name_of(&BloomFilter::with_fpr(n, 0.01).unwrap_err()),
        "expected_items"
    );
    // The blocked table (5.3·10^13 bits) also fits under the limit.
    assert_eq!(
        name_of(&BlockedBloomFilter::with_fpr(n, 0.01).unwrap_err()),
        "expected_items"
    );
    // Explicit shapes name their own parameter.
    assert_eq!(
        name_of(&BlockedBloomFilter::with_blocks(1 << 38).unwrap_err()),
        "blocks"
    );
    assert_eq!(
        name_of(&BloomFilter::with_bits(1 << 46, 8).unwrap_err()),
        "bits"
    );
}

#[test]
fn bad_explicit_shapes_are_errors() {
    assert_eq!(name_of(&BloomFilter::with_bits(0, 7).unwrap_err()), "bits");
    assert_eq!(
        name_of(&BloomFilter::with_bits((1 << 46) + 1, 7).unwrap_err()),
        "bits"
    );
    assert_eq!(
        name_of(&BloomFilter::with_bits(u64::MAX, 7).unwrap_err()),
        "bits"
    );
    assert_eq!(
        name_of(&BloomFilter::with_bits(1000, 0).unwrap_err()),
        "hashes"
    );
    assert_eq!(
        name_of(&BloomFilter::with_bits(1000, bloom::MAX_HASHES + 1).unwrap_err()),
        "hashes"
    );
    assert!(BloomFilter::with_bits(1, 1).is_ok());
    assert!(BloomFilter::with_bits(1000, bloom::MAX_HASHES).is_ok());

    assert_eq!(
        name_of(&BlockedBloomFilter::with_blocks(0).unwrap_err()),
        "blocks"
    );
    assert_eq!(
        name_of(&BlockedBloomFilter::with_blocks(u64::MAX).unwrap_err()),
        "blocks"
    );
    assert_eq!(
        name_of(&BlockedBloomFilter::with_blocks(bloom::MAX_BLOCKS + 1).unwrap_err()),
        "blocks"
    );
    assert_eq!(BlockedBloomFilter::with_blocks(2).unwrap().bits(), 512);
}

fn classic_bytes() -> Vec<u8> {
    // 1000 bits: the last word has 24 padding bits, which must stay zero.
    let mut f = BloomFilter::with_bits(1000, 5).unwrap();
    keys::members(1, 60).iter().for_each(|k| f.insert(k));
    f.to_bytes()
}

fn blocked_bytes() -> Vec<u8> {
    let mut f = BlockedBloomFilter::with_blocks(3).unwrap();
    keys::members(1, 60).iter().for_each(|k| f.insert(k));
    f.to_bytes()
}

fn both_refuse(classic: &[u8], blocked: &[u8]) -> bool {
    BloomFilter::from_bytes(classic).is_err() && BlockedBloomFilter::from_bytes(blocked).is_err()
}

#[test]
fn every_truncation_is_refused() {
    // Every length, not a sample: the strings are a few hundred bytes.
    let (c, b) = (classic_bytes(), blocked_bytes());
    for cut in 0..c.len() {
        assert!(
            BloomFilter::from_bytes(&c[..cut]).is_err(),
            "classic cut at {cut}"
        );
    }
    for cut in 0..b.len() {
        assert!(
            BlockedBloomFilter::from_bytes(&b[..cut]).is_err(),
            "blocked cut at {cut}"
        );
    }
}

#[test]
fn every_bit_flip_is_refused() {
    // Every single bit of both strings, header, body and checksum.
    for bytes in [classic_bytes(), blocked_bytes()] {
        for bit in 0..bytes.len() * 8 {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert!(
                BloomFilter::from_bytes(&flipped).is_err()
                    && BlockedBloomFilter::from_bytes(&flipped).is_err(),
                "bit {bit} of {} bytes",
                bytes.len()
            );
        }
    }
}

/// Runs every operation on a filter that `from_bytes` accepted, so that an
/// accepted lie would show as a panic or a forgotten key here.
/// What the bit-flip test needs of both filter types.
trait Serialized: Sized {
    fn load(bytes: &[u8]) -> Result<Self, Error>;
    fn save(&self) -> Vec<u8>;
    fn insert(&mut self, hash: u64);
    fn contains(&self, hash: u64) -> bool;
    fn estimates(&self) -> (f64, usize);
}

impl Serialized for BloomFilter {
    fn load(bytes: &[u8]) -> Result<Self, Error> {
        BloomFilter::from_bytes(bytes)
    }
    fn save(&self) -> Vec<u8> {
        self.to_bytes()
    }
    fn insert(&mut self, hash: u64) {
        self.insert_hash(hash);
    }
    fn contains(&self, hash: u64) -> bool {
        self.contains_hash(hash)
    }
    fn estimates(&self) -> (f64, usize) {
        (self.estimated_fpr(), self.estimated_len())
    }
}

impl Serialized for BlockedBloomFilter {
    fn load(bytes: &[u8]) -> Result<Self, Error> {
        BlockedBloomFilter::from_bytes(bytes)
    }
    fn save(&self) -> Vec<u8> {
        self.to_bytes()
    }
    fn insert(&mut self, hash: u64) {
        self.insert_hash(hash);
    }
    fn contains(&self, hash: u64) -> bool {
        self.contains_hash(hash)
    }
    fn estimates(&self) -> (f64, usize) {
        (self.estimated_fpr(), self.estimated_len())
    }
}

/// Flips every body bit of `bytes` in turn and reseals the checksum: each
/// result must be refused, or load as a filter that round-trips to the
/// same bytes, keeps what it is given and survives a reload.
fn resealed_flips_are_refused_or_work<F: Serialized>(bytes: &[u8]) {
    let hashes = || (0..500u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 40));
    for bit in HEADER_BYTES * 8..(bytes.len() - CHECKSUM_BYTES) * 8 {
        let mut lie = bytes.to_vec();
        lie[bit / 8] ^= 1 << (bit % 8);
        reseal(&mut lie);
        let Ok(mut f) = F::load(&lie) else { continue };
        assert_eq!(f.save(), lie, "bit {bit}: accepted bytes do not round-trip");
        let _ = f.estimates();
        for h in hashes() {
            f.insert(h);
            assert!(f.contains(h), "bit {bit}");
        }
        let back = F::load(&f.save()).unwrap();
        assert!(hashes().all(|h| back.contains(h)), "bit {bit}");
    }
}

#[test]
fn resealed_bit_flips_are_refused_or_load_a_working_filter() {
    // Past the checksum, a flipped bit in a parameter must be refused or
    // give a filter that works; a flipped table bit is just another filter.
    resealed_flips_are_refused_or_work::<BloomFilter>(&classic_bytes());
    resealed_flips_are_refused_or_work::<BlockedBloomFilter>(&blocked_bytes());
}

quickcheck::quickcheck! {
    fn trailing_garbage_is_refused(garbage: Vec<u8>) -> bool {
        if garbage.is_empty() { return true; }
        let (mut c, mut b) = (classic_bytes(), blocked_bytes());
        // Inserted before the checksum and resealed, so only the structure
        // (the reader's `finish`) stands in the way; and appended raw.
        let (mut c2, mut b2) = (c.clone(), b.clone());
        c2.extend_from_slice(&garbage);
        b2.extend_from_slice(&garbage);
        let at = c.len() - CHECKSUM_BYTES;
        c.splice(at..at, garbage.iter().copied());
        let at = b.len() - CHECKSUM_BYTES;
        b.splice(at..at, garbage.iter().copied());
        reseal(&mut c);
        reseal(&mut b);
        both_refuse(&c, &b) && both_refuse(&c2, &b2)
    }

    fn resealed_truncations_are_refused(cut: usize) -> bool {
        let (c, b) = (classic_bytes(), blocked_bytes());
        let shorten = |bytes: &[u8]| {
            let body = bytes.len() - HEADER_BYTES - CHECKSUM_BYTES;
            let mut short = bytes[..HEADER_BYTES + cut % body].to_vec();
            short.extend_from_slice(&[0; CHECKSUM_BYTES]);
            reseal(&mut short);
            short
        };
        both_refuse(&shorten(&c), &shorten(&b))
    }
}

/// Rewrites a little-endian field of `len` bytes at body offset `at`, reseals.
fn lie(mut bytes: Vec<u8>, at: usize, value: u64, len: usize) -> Vec<u8> {
    let at = HEADER_BYTES + at;
    bytes[at..at + len].copy_from_slice(&value.to_le_bytes()[..len]);
    reseal(&mut bytes);
    bytes
}

fn corrupt_reason(r: Result<impl std::fmt::Debug, Error>) -> String {
    match r {
        Err(Error::Corrupt { reason }) => reason,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn resealed_lies_in_classic_fields_are_refused() {
    let good = classic_bytes();
    assert!(BloomFilter::from_bytes(&good).is_ok());
    // Body: bits u64 @0, hashes u32 @8, word count u64 @12, words @20.
    for (at, value, len, needle) in [
        (0, 0, 8, "bits is 0"),
        (0, (1 << 46) + 1, 8, "bits is"),
        (0, 1100, 8, "words"),
        (0, 900, 8, "words"),
        (8, 0, 4, "hashes is 0"),
        (8, 5000, 4, "hashes is 5000"),
        (12, 1 << 60, 8, "claims"),
        (12, 15, 8, "trailing"),
    ] {
        let reason = corrupt_reason(BloomFilter::from_bytes(&lie(good.clone(), at, value, len)));
        assert!(reason.contains(needle), "field @{at} = {value}: {reason}");
    }
    // A bit set in the padding past bit 1000 (the top byte of the last word).
    let mut padded = good.clone();
    let last = padded.len() - CHECKSUM_BYTES - 1;
    padded[last] |= 0x80;
    reseal(&mut padded);
    let reason = corrupt_reason(BloomFilter::from_bytes(&padded));
    assert!(reason.contains("past bit 1000"), "{reason}");
}

#[test]
fn resealed_lies_in_blocked_fields_are_refused() {
    let good = blocked_bytes();
    assert!(BlockedBloomFilter::from_bytes(&good).is_ok());
    // Body: blocks u64 @0, hashes u32 @8, lane count u64 @12, lanes @20.
    for (at, value, len, needle) in [
        (0, 0, 8, "blocks is 0"),
        (0, u64::MAX, 8, "blocks is"),
        (0, 4, 8, "lanes"),
        (8, 7, 4, "hashes is 7"),
        (12, 1 << 60, 8, "claims"),
        (12, 16, 8, "trailing"),
    ] {
        let reason = corrupt_reason(BlockedBloomFilter::from_bytes(&lie(
            good.clone(),
            at,
            value,
            len,
        )));
        assert!(reason.contains(needle), "field @{at} = {value}: {reason}");
    }
}

#[test]
fn wrong_kind_and_wrong_hasher_are_refused() {
    let (c, b) = (classic_bytes(), blocked_bytes());
    assert_eq!(
        BloomFilter::from_bytes(&b).unwrap_err(),
        Error::WrongKind {
            expected: "BloomFilter",
            found: "BlockedBloomFilter"
        }
    );
    assert_eq!(
        BlockedBloomFilter::from_bytes(&c).unwrap_err(),
        Error::WrongKind {
            expected: "BlockedBloomFilter",
            found: "BloomFilter"
        }
    );
    let message = BloomFilter::from_bytes(&b).unwrap_err().to_string();
    assert!(message.contains("hold a BlockedBloomFilter"), "{message}");
    // The atomic twins read the same kinds.
    assert!(matches!(
        bloom::AtomicBloomFilter::from_bytes(&b),
        Err(Error::WrongKind { .. })
    ));
    assert!(matches!(
        bloom::AtomicBlockedBloomFilter::from_bytes(&c),
        Err(Error::WrongKind { .. })
    ));
    let other = PortableHasher::with_seed(9);
    assert_eq!(
        BloomFilter::from_bytes_with_hasher(&c, other).unwrap_err(),
        Error::HasherMismatch
    );
    assert_eq!(
        BlockedBloomFilter::from_bytes_with_hasher(&b, other).unwrap_err(),
        Error::HasherMismatch
    );
    assert!(BloomFilter::from_bytes(&[]).is_err());
    assert!(BlockedBloomFilter::from_bytes(b"MFLT").is_err());
}

#[test]
fn resealed_header_flags_are_refused() {
    // Format 1.0 reserves the flags: any bit set, resealed past the
    // checksum, is refused by both filters.
    for bytes in [classic_bytes(), blocked_bytes()] {
        for bit in 0..16 {
            let flagged = header::with_flags(&bytes, 1 << bit);
            let classic = BloomFilter::from_bytes(&flagged).map(drop);
            let blocked = BlockedBloomFilter::from_bytes(&flagged).map(drop);
            for err in [classic.unwrap_err(), blocked.unwrap_err()] {
                assert!(
                    matches!(err, Error::Corrupt { .. } | Error::WrongKind { .. }),
                    "bit {bit}: {err}"
                );
            }
        }
    }
}
