//! Active sessions at a gateway, kept in a `DLeftCountingBloomFilter`:
//! sessions open and close all day, and each request asks whether its
//! session token is still open before the gateway looks it up in the
//! (slow) session store. Tokens that were never issued or are already
//! closed should rarely reach the store; open ones always must.
//!
//! The event stream is generated from a fixed seed: up to 200,000 sessions
//! open at once, 2 million events in all. An exact `HashSet` beside the
//! filter checks every answer.
//!
//! Run it with `cargo run --release -p counting-bloom --example dleft_sessions`.

use std::collections::HashSet;

use counting_bloom::{CountingBloomFilter, DLeftCountingBloomFilter, Error};

/// The most sessions open at once: what the filter is sized for.
const MAX_OPEN: usize = 200_000;
const EVENTS: usize = 2_000_000;
const TARGET_FPR: f64 = 0.01;

/// A small seeded generator (SplitMix64), so the run is the same every time.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// The token of session number `id`, as a cookie would carry it.
fn token(id: u64) -> String {
    format!("sess-{:016x}", id.wrapping_mul(0x2545_F491_4F6C_DD1D))
}

fn main() -> Result<(), Error> {
    let mut open = DLeftCountingBloomFilter::with_fpr(MAX_OPEN, TARGET_FPR)?;
    let mut truth: HashSet<u64> = HashSet::new();
    // Open sessions in a vector too, to pick one to close or query.
    let mut live: Vec<u64> = Vec::new();
    let mut rng = Rng(2024);
    let mut next_id = 0u64;
    let (mut opened, mut closed) = (0usize, 0usize);
    let (mut live_queries, mut dead_queries, mut false_positives) = (0usize, 0usize, 0usize);

    for _ in 0..EVENTS {
        match rng.below(10) {
            // Open a session (a login), unless the gateway is at capacity.
            0..=2 if live.len() < MAX_OPEN => {
                let id = next_id;
                next_id += 1;
                open.insert(token(id).as_str())?;
                truth.insert(id);
                live.push(id);
                opened += 1;
            }
            // Close one (a logout or a timeout).
            0..=4 if !live.is_empty() => {
                let id = live.swap_remove(rng.below(live.len()));
                truth.remove(&id);
                assert!(
                    open.remove(token(id).as_str()),
                    "an open session is always found"
                );
                closed += 1;
            }
            // A request with an open session: must pass.
            5..=7 if !live.is_empty() => {
                let id = live[rng.below(live.len())];
                assert!(open.contains(token(id).as_str()), "no false negatives");
                live_queries += 1;
            }
            // A request with a closed, expired or forged token.
            _ => {
                let id = if next_id > 0 && rng.below(2) == 0 {
                    rng.next() % next_id // issued once, perhaps closed since
                } else {
                    next_id + 1 + rng.next() % (1 << 40) // never issued
                };
                if truth.contains(&id) {
                    continue;
                }
                dead_queries += 1;
                false_positives += usize::from(open.contains(token(id).as_str()));
            }
        }
    }

    let counting = CountingBloomFilter::with_fpr(MAX_OPEN, TARGET_FPR)?;
    let rate = false_positives as f64 / dead_queries as f64;
    println!(
        "sessions opened {opened}, closed {closed}, open now {}",
        live.len()
    );
    println!("filter holds {} (exact: {})", open.len(), truth.len());
    println!(
        "requests with open tokens: {live_queries}, all passed; with dead tokens: {dead_queries}, \
         {false_positives} reached the store ({:.3} %, target {} %)",
        rate * 100.0,
        TARGET_FPR * 100.0
    );
    println!(
        "memory: {} bytes ({:.1} bits per session at capacity), a CountingBloomFilter: {} bytes",
        open.memory_bytes(),
        open.memory_bytes() as f64 * 8.0 / MAX_OPEN as f64,
        counting.memory_bytes()
    );
    assert_eq!(open.len(), truth.len());
    assert!(rate <= TARGET_FPR, "{rate}");
    Ok(())
}
