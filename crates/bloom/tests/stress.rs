//! Long random operation sequences on tiny and boundary-sized filters:
//! inserts by key and by hash (structured hashes included), `insert_unique`,
//! `union`, `intersect`, `clear` and byte round trips, with a set of what
//! each filter must still report present checked after every operation.

use bloom::{BlockedBloomFilter, BloomFilter, KeyHasher, PortableHasher};

/// SplitMix64: a seeded stream for the operation choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        filter_core::mix64(self.0)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A hash a user might bring: zero, all ones, sequential, strided by a
/// power of two, ids shifted into the high bits, Fibonacci-hashed, random.
fn structured_hash(rng: &mut Rng) -> u64 {
    let i = rng.below(64);
    match rng.below(7) {
        0 => [0, u64::MAX, 1, 1 << 63][i as usize % 4],
        1 => i,
        2 => i << rng.below(64),
        3 => i << 40,
        4 => i.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        5 => u64::MAX - i,
        _ => rng.next(),
    }
}

/// The operations both filter types share, so one driver checks both.
trait Subject: Clone {
    fn insert_hash(&mut self, h: u64);
    fn insert_unique_hash(&mut self, h: u64) -> bool;
    fn contains_hash(&self, h: u64) -> bool;
    fn union(&mut self, other: &Self);
    fn intersect(&mut self, other: &Self);
    fn clear(&mut self);
    fn reload(&self) -> Self;
    fn touch(&self);
}

impl Subject for BloomFilter {
    fn insert_hash(&mut self, h: u64) {
        BloomFilter::insert_hash(self, h);
    }
    fn insert_unique_hash(&mut self, h: u64) -> bool {
        // What `insert_unique` answers for a key, by hash.
        let new = !BloomFilter::contains_hash(self, h);
        BloomFilter::insert_hash(self, h);
        new
    }
    fn contains_hash(&self, h: u64) -> bool {
        BloomFilter::contains_hash(self, h)
    }
    fn union(&mut self, other: &Self) {
        BloomFilter::union(self, other).expect("same shape");
    }
    fn intersect(&mut self, other: &Self) {
        BloomFilter::intersect(self, other).expect("same shape");
    }
    fn clear(&mut self) {
        BloomFilter::clear(self);
    }
    fn reload(&self) -> Self {
        let bytes = self.to_bytes();
        let back = BloomFilter::from_bytes(&bytes).expect("round trip");
        assert_eq!(back.to_bytes(), bytes);
        back
    }
    fn touch(&self) {
        assert!((0.0..=1.0).contains(&self.estimated_fpr()));
        let _ = self.estimated_len();
    }
}

impl Subject for BlockedBloomFilter {
    fn insert_hash(&mut self, h: u64) {
        BlockedBloomFilter::insert_hash(self, h);
    }
    fn insert_unique_hash(&mut self, h: u64) -> bool {
        // What `insert_unique` answers for a key, by hash.
        let new = !BlockedBloomFilter::contains_hash(self, h);
        BlockedBloomFilter::insert_hash(self, h);
        new
    }
    fn contains_hash(&self, h: u64) -> bool {
        BlockedBloomFilter::contains_hash(self, h)
    }
    fn union(&mut self, other: &Self) {
        BlockedBloomFilter::union(self, other).expect("same shape");
    }
    fn intersect(&mut self, other: &Self) {
        BlockedBloomFilter::intersect(self, other).expect("same shape");
    }
    fn clear(&mut self) {
        BlockedBloomFilter::clear(self);
    }
    fn reload(&self) -> Self {
        let bytes = self.to_bytes();
        let back = BlockedBloomFilter::from_bytes(&bytes).expect("round trip");
        assert_eq!(back.to_bytes(), bytes);
        back
    }
    fn touch(&self) {
        assert!((0.0..=1.0).contains(&self.estimated_fpr()));
        let _ = self.estimated_len();
    }
}

/// Runs `ops` random operations on two filters of one shape, `a` and `b`,
/// checking after each that every hash each must hold is present.
fn drive<F: Subject>(empty: &F, seed: u64, ops: usize, label: &str) {
    let hasher = PortableHasher::default();
    let mut rng = Rng(seed);
    let (mut a, mut b) = (empty.clone(), empty.clone());
    let (mut in_a, mut in_b): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
    for step in 0..ops {
        let (f, set) = if rng.below(3) == 0 {
            (&mut b, &mut in_b)
        } else {
            (&mut a, &mut in_a)
        };
        match rng.below(100) {
            0..=39 => {
                let h = structured_hash(&mut rng);
                f.insert_hash(h);
                set.push(h);
            }
            40..=59 => {
                // By key: the filter hashes it with the default hasher.
                let h = hasher.hash_key(&rng.below(1000));
                let before = f.contains_hash(h);
                assert_eq!(
                    f.insert_unique_hash(h),
                    !before,
                    "{label} step {step}: insert_unique disagrees with contains"
                );
                set.push(h);
            }
            60..=64 => {
                a.union(&b);
                in_a.extend_from_slice(&in_b);
            }
            65..=67 => {
                // Intersect with a filter holding a superset of a's keys:
                // every key of a must survive.
                let mut sup = b.clone();
                sup.union(&a);
                a.intersect(&sup);
            }
            68..=69 => {
                // Intersect with b: keys in both must survive.
                a.intersect(&b);
                in_a.retain(|h| in_b.contains(h));
            }
            70 => {
                f.clear();
                set.clear();
            }
            71..=79 => *f = f.reload(),
            _ => {
                let h = structured_hash(&mut rng);
                let _ = f.contains_hash(h);
                f.touch();
            }
        }
        for (f, set, name) in [(&a, &in_a, "a"), (&b, &in_b, "b")] {
            if let Some(h) = set.iter().find(|&&h| !f.contains_hash(h)) {
                panic!("{label} step {step}: {name} forgot {h:#x}");
            }
        }
        if in_a.len() > 400 {
            // Keep the check cheap: start over now and then.
            a.clear();
            in_a.clear();
        }
        if in_b.len() > 400 {
            b.clear();
            in_b.clear();
        }
    }
}

fn ops() -> usize {
    std::env::var("BLOOM_STRESS_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000)
}

#[test]
fn classic_keeps_every_key_at_boundary_sizes() {
    for bits in [1u64, 2, 3, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000] {
        for k in [1, 2, 3, 7, 31] {
            let f = BloomFilter::with_bits(bits, k).unwrap();
            drive(
                &f,
                bits * 100 + u64::from(k),
                ops(),
                &format!("classic {bits}/{k}"),
            );
        }
    }
    for n in [1, 2, 3] {
        let f = BloomFilter::with_fpr(n, 0.01).unwrap();
        drive(&f, n as u64, ops(), &format!("classic n={n}"));
    }
    // Either side of the line where new tables switch from the cubic to the
    // linear sequence (64 · 2^k bits).
    for k in [1u32, 2, 3, 7] {
        for bits in [(64 << k) - 1, 64 << k] {
            let f = BloomFilter::with_bits(bits, k).unwrap();
            drive(
                &f,
                bits ^ 0xC0FF,
                ops(),
                &format!("classic {bits}/{k} at the line"),
            );
        }
    }
}

#[test]
fn blocked_keeps_every_key_at_boundary_sizes() {
    for blocks in [1u64, 2, 3, 4, 5, 8, 33] {
        let f = BlockedBloomFilter::with_blocks(blocks).unwrap();
        drive(&f, blocks, ops(), &format!("blocked {blocks}"));
    }
    for n in [1, 2, 3] {
        let f = BlockedBloomFilter::with_fpr(n, 0.01).unwrap();
        drive(&f, 1000 + n as u64, ops(), &format!("blocked n={n}"));
    }
}
