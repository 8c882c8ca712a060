//! Scalable Bloom filters compared at the same *measured* rate.
//!
//! growable-bloom-filter misses its target (its stages' rates add up to
//! several times it), so at the same target it is smaller and less
//! accurate than ours, and the main tables compare unlike things. Here,
//! for each of its rows, our `ScalableBloomFilter` is grown from the same
//! initial items over the same keys at the loosest target whose measured
//! rate, on the same non-members, is at most the peer's: a bisection on a
//! log scale between the peer's measured rate and three times it. Space
//! and rates are deterministic, so this section is reproducible from the
//! seed.

use bloom::ScalableBloomFilter;

use super::peers::initial_items;
use super::subject::Family;
use super::workload::Workload;
use super::{Result, Row, Section};

/// Bisection steps: the target found is within `3^(1/2^STEPS)` (under
/// 2 %) of the loosest one that meets the rate.
const STEPS: usize = 6;

/// One peer row and ours at its measured rate.
#[derive(Clone, Debug)]
pub(crate) struct Matched {
    pub(crate) n: usize,
    /// The target both rows were asked for in the main tables.
    pub(crate) target: f64,
    pub(crate) peer_bits: f64,
    pub(crate) peer_fpr: f64,
    /// The target ours was built for here.
    pub(crate) ours_target: f64,
    pub(crate) ours_bits: f64,
    pub(crate) ours_fpr: f64,
}

/// Ours at each scalable Bloom peer row's measured rate.
pub(crate) fn measure(seed: u64, rows: &[Row]) -> Result<Vec<Matched>> {
    let mut out = Vec::new();
    let peers = rows.iter().filter(|r| {
        r.section == Section::Main
            && r.entry.info.peer
            && r.entry.info.family == Family::ScalableBloom
    });
    for row in peers {
        let Some(target) = row.target_fpr() else {
            continue;
        };
        let peer_fpr = row.measured_fpr();
        if peer_fpr <= 0.0 {
            continue;
        }
        eprintln!(
            "n = {}: ScalableBloomFilter at GrowableBloom's measured rate ({target} target)",
            row.n
        );
        let work = Workload::<u64>::new(seed, row.n);
        let mut lo = peer_fpr;
        let mut hi = 3.0 * peer_fpr;
        let mut best = grown(&work, lo)?;
        for _ in 0..STEPS {
            let mid = (lo * hi).sqrt();
            let at = grown(&work, mid)?;
            if at.1 <= peer_fpr {
                lo = mid;
                best = at;
            } else {
                hi = mid;
            }
        }
        out.push(Matched {
            n: row.n,
            target,
            peer_bits: row.bits_per_key(),
            peer_fpr,
            ours_target: lo,
            ours_bits: best.0,
            ours_fpr: best.1,
        });
    }
    Ok(out)
}

/// Bits per key and measured rate of ours grown over the members at `fpr`.
fn grown(work: &Workload<u64>, fpr: f64) -> Result<(f64, f64)> {
    let n = work.members.len();
    let mut f = ScalableBloomFilter::with_fpr(initial_items(n), fpr)?;
    for k in &work.members {
        f.insert(k)?;
    }
    if !work.members.iter().all(|k| f.contains(k)) {
        return Err(format!("ScalableBloomFilter at {fpr}: a false negative").into());
    }
    let hits = work.non_members.iter().filter(|k| f.contains(*k)).count();
    Ok((
        f.memory_bytes() as f64 * 8.0 / n as f64,
        hits as f64 / work.non_members.len() as f64,
    ))
}
