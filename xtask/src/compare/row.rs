//! One line of the report: a filter at one size and target, with its
//! deterministic accuracy and its timings, and the figures derived from them.

use super::measure::{Accuracy, Entry, Timing};
use super::subject::Target;

#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub(crate) entry: Entry,
    pub(crate) n: usize,
    pub(crate) target: Target,
    pub(crate) accuracy: Accuracy,
    /// The timing pooled over every repetition: what the report quotes.
    pub(crate) timing: Timing,
    /// The timing of each repetition alone, in the order they ran.
    pub(crate) per_rep: Vec<Timing>,
}

impl Row {
    pub(crate) fn bits_per_key(&self) -> f64 {
        self.accuracy.memory_bytes as f64 * 8.0 / self.n as f64
    }

    pub(crate) fn measured_fpr(&self) -> f64 {
        self.accuracy.false_positives as f64 / self.accuracy.queries as f64
    }

    pub(crate) fn target_fpr(&self) -> Option<f64> {
        match self.target {
            Target::Rate(p) => Some(p),
            Target::Fixed => None,
        }
    }

    /// The rate the lower bound is taken at: the measured one, or the
    /// expected one when no false positive was seen (log2(1/0) is no bound).
    pub(crate) fn bound_fpr(&self) -> f64 {
        if self.accuracy.false_positives > 0 {
            self.measured_fpr()
        } else {
            self.accuracy.expected_fpr
        }
    }

    /// log2(1/FPR): no filter with this rate can use fewer bits per key.
    pub(crate) fn lower_bound(&self) -> f64 {
        -self.bound_fpr().log2()
    }

    /// Space above the lower bound, in percent.
    pub(crate) fn overhead_pct(&self) -> f64 {
        (self.bits_per_key() / self.lower_bound() - 1.0) * 100.0
    }

    /// `Filter (crate)`, with the target rate for sized filters.
    pub(crate) fn label(&self) -> String {
        let who = if self.entry.peer {
            format!("{} [{}]", self.entry.name, self.entry.krate)
        } else {
            self.entry.name.to_string()
        };
        match self.target {
            Target::Rate(p) => format!("{who} @{}", pct(p)),
            Target::Fixed => who,
        }
    }

    /// Lookups of the shuffled half-member mix: what a workload with half
    /// hits pays per query, branch mispredictions included.
    pub(crate) fn lookup_ns(&self) -> f64 {
        self.timing.mixed_ns
    }
}

/// The rows of the default hash quality: those of `UniformHashes` left out
/// (the advice and the charts; see `quality.rs`).
pub(crate) fn default_quality(rows: &[Row]) -> Vec<Row> {
    rows.iter()
        .filter(|r| !r.entry.uniform_hashes)
        .cloned()
        .collect()
}

/// A rate as a percentage with as many digits as it needs: `1 %`, `0.1 %`,
/// `0.0015 %`.
pub(crate) fn pct(p: f64) -> String {
    let v = p * 100.0;
    // A measured rate of 0 (no false positive among the queries, as a
    // 16-bit filter at small n can show) has no significant digits: its
    // log10 is -inf, which the digit count below cannot take.
    if v == 0.0 {
        return "0 %".into();
    }
    let digits = if v >= 1.0 {
        if v.fract() == 0.0 { 0 } else { 2 }
    } else {
        // Three significant digits below 1 %.
        (2 - v.log10().floor() as i32).clamp(1, 8) as usize
    };
    let s = format!("{v:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s} %")
}

/// A key count as people say it: `100k`, `1M`, `10M`, `2.5M`.
pub(crate) fn count(n: usize) -> String {
    if n >= 1_000_000 && n % 100_000 == 0 {
        let m = n as f64 / 1e6;
        format!("{m}M")
    } else if n >= 1_000 && n % 100 == 0 {
        let k = n as f64 / 1e3;
        format!("{k}k")
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(pct(0.01), "1 %");
        assert_eq!(pct(0.001), "0.1 %");
        assert_eq!(pct(0.00390625), "0.391 %");
        assert_eq!(pct(1.0 / 65536.0), "0.00153 %");
        assert_eq!(pct(0.0), "0 %");
        assert_eq!(count(100_000), "100k");
        assert_eq!(count(10_000_000), "10M");
        assert_eq!(count(2_500_000), "2.5M");
        assert_eq!(count(1234), "1234");
    }
}
