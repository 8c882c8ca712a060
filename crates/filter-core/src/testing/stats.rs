//! Tolerances for statistical assertions.
//!
//! A measured false-positive rate over q independent non-member queries is a
//! binomial proportion: mean p, standard deviation σ = √(p(1 − p)/q). Tests
//! assert `measured ≤ p · slack + z · σ`, with the slack (1.1 for
//! "within 10 % of target") and z written beside each assertion. With fixed
//! seeds the outcome is deterministic; the tolerance says how unlucky a seed
//! would have to be for a correct filter to fail, so a failure means a bug.

use crate::Filter;

/// `target · slack + sigmas · √(target(1 − target)/queries)`.
pub fn fpr_upper_bound(target: f64, queries: usize, slack: f64, sigmas: f64) -> f64 {
    let sd = (target * (1.0 - target) / queries as f64).sqrt();
    target * slack + sigmas * sd
}

/// The fraction of `queries` that `filter` reports present.
///
/// # Panics
///
/// With no queries: a rate of nothing would pass every upper bound, so a
/// test that built an empty query set by mistake fails instead.
pub fn measured_fpr<T, F: Filter<T> + ?Sized>(filter: &F, queries: &[T]) -> f64 {
    assert!(!queries.is_empty(), "measured_fpr needs at least one query");
    let hits = queries.iter().filter(|q| filter.contains(q)).count();
    hits as f64 / queries.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "at least one query")]
    fn a_rate_of_no_queries_is_refused() {
        struct Everything;
        impl Filter<u64> for Everything {
            fn contains(&self, _: &u64) -> bool {
                true
            }
            fn memory_bytes(&self) -> usize {
                0
            }
        }
        measured_fpr(&Everything, &[]);
    }

    #[test]
    fn bound_shrinks_with_queries() {
        let a = fpr_upper_bound(0.01, 10_000, 1.1, 4.0);
        let b = fpr_upper_bound(0.01, 1_000_000, 1.1, 4.0);
        assert!(a > b && b > 0.011);
        assert!((b - (0.011 + 4.0 * (0.01f64 * 0.99 / 1e6).sqrt())).abs() < 1e-12);
    }
}
