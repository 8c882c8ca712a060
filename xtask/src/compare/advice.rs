//! The "which filter should I use" section, derived from the rows of this
//! run (never hard-coded: a user's machine may rank the filters differently),
//! and the pairing of each of our filters with its closest peer.

use std::fmt::Write as _;

use super::measure::Timing;
use super::row::{Row, count, default_quality, pct};
use super::subject::SHARED_THREADS;

/// Each of our rows with the peer row of the same family, size and target
/// (a fixed-rate peer pairs with every target).
pub(crate) fn peer_pairs(rows: &[Row]) -> Vec<(&Row, &Row)> {
    rows.iter()
        .filter(|r| !r.entry.peer)
        .filter_map(|ours| {
            rows.iter()
                .filter(|p| p.entry.peer && p.entry.family == ours.entry.family && p.n == ours.n)
                .find(|p| p.target_fpr().is_none() || p.target_fpr() == ours.target_fpr())
                .map(|peer| (ours, peer))
        })
        .collect()
}

fn describe(r: &Row) -> String {
    format!(
        "**{}** ({}{})",
        r.entry.name,
        r.entry.krate,
        if r.entry.peer { ", peer" } else { "" }
    )
}

/// "**Filter** (crate) a → b ns" for each of `rows` whose timing has an
/// `after` (a batched or shared variant), `a` its `before`.
fn before_after<'a>(
    rows: impl Iterator<Item = &'a Row>,
    before: impl Fn(&Row) -> f64,
    after: impl Fn(&Timing) -> Option<f64>,
) -> Vec<String> {
    rows.filter_map(|r| {
        let after = after(&r.timing)?;
        Some(format!("{} {:.1} → {after:.1} ns", describe(r), before(r)))
    })
    .collect()
}

fn min_by<'a>(rows: impl Iterator<Item = &'a Row>, key: impl Fn(&Row) -> f64) -> Option<&'a Row> {
    rows.filter(|r| key(r).is_finite())
        .min_by(|a, b| key(a).total_cmp(&key(b)))
}

/// The markdown of the section. Rows of `UniformHashes` are left out: the
/// advice is for the default types, and those rows carry a promise about
/// the hashes that the advice cannot check.
pub(crate) fn section(rows: &[Row]) -> String {
    let defaults = default_quality(rows);
    let rows = defaults.as_slice();
    let mut s = String::new();
    let (Some(large), Some(small)) = (
        rows.iter().map(|r| r.n).max(),
        rows.iter().map(|r| r.n).min(),
    ) else {
        return "No rows were measured.\n".into();
    };
    let at = |n: usize| rows.iter().filter(move |r| r.n == n);
    let ours_at = |n: usize| at(n).filter(|r| !r.entry.peer);
    let _ = writeln!(
        s,
        "From this run, at {} keys unless stated (lookup speeds: a shuffled mix of half members, half non-members).\n",
        count(large)
    );

    // Smallest at about 0.4 % (the rate of the 8-bit fingerprint filters) or
    // less.
    let near = |r: &&Row| r.measured_fpr() <= 0.0045;
    if let Some(best) = min_by(at(large).filter(near), Row::bits_per_key) {
        let _ = write!(
            s,
            "- **Smallest at 0.45 % false positives or less:** {} with {:.2} bits/key at {} measured",
            describe(best),
            best.bits_per_key(),
            pct(best.measured_fpr())
        );
        if best.entry.peer {
            if let Some(ours) = min_by(ours_at(large).filter(near), Row::bits_per_key) {
                let _ = write!(
                    s,
                    "; ours: {} with {:.2} bits/key",
                    describe(ours),
                    ours.bits_per_key()
                );
            }
        }
        if let Some(bloom) = at(large)
            .filter(|r| !r.entry.peer && r.entry.dynamic && near(r))
            .min_by(|a, b| a.bits_per_key().total_cmp(&b.bits_per_key()))
        {
            let _ = write!(
                s,
                " (the smallest dynamic filter measured at 0.45 % or less, {}, needs {:.2} at {})",
                describe(bloom),
                bloom.bits_per_key(),
                pct(bloom.measured_fpr())
            );
        }
        s.push_str(".\n");
    }

    // Rare false positives: the rate of the 16-bit fingerprint filters, for
    // when a false positive costs a disk read or a network round trip.
    let rare = |r: &&Row| r.measured_fpr() <= 0.0001;
    if let Some(best) = min_by(ours_at(large).filter(rare), Row::bits_per_key) {
        let _ = writeln!(
            s,
            "- **Rare false positives (0.01 % or less, where each one is expensive):** {} with \
             {:.2} bits/key at {} measured ({} of {} non-members).",
            describe(best),
            best.bits_per_key(),
            pct(best.measured_fpr()),
            best.accuracy.false_positives,
            count(best.accuracy.queries),
        );
    }

    // Fastest lookup, out of cache and in cache.
    let mut places = vec![(large, "largest size")];
    if small != large {
        places.push((small, "smallest size"));
    }
    for (n, where_) in places {
        if let Some(best) = min_by(at(n), Row::lookup_ns) {
            let _ = write!(
                s,
                "- **Fastest lookup ({where_}, {} keys):** {} at {:.1} ns/key{}",
                count(n),
                describe(best),
                best.lookup_ns(),
                best.target_fpr()
                    .map_or(String::new(), |p| format!(" (sized for {})", pct(p)))
            );
            if best.entry.peer {
                if let Some(ours) = min_by(ours_at(n), Row::lookup_ns) {
                    let _ = write!(
                        s,
                        "; ours: {} at {:.1} ns/key",
                        describe(ours),
                        ours.lookup_ns()
                    );
                }
            }
            s.push_str(".\n");
        }
    }

    // Dynamic filters are compared at one target, the first requested.
    let target = rows.iter().find_map(Row::target_fpr);
    let at_target = |r: &&Row| r.target_fpr().is_none_or(|p| Some(p) == target);
    let tag = target.map_or(String::new(), |p| format!(" at {}", pct(p)));

    // Batched lookups, where the filters have them.
    let batched = before_after(ours_at(large).filter(at_target), Row::lookup_ns, |t| {
        t.batched_ns
    });
    if !batched.is_empty() {
        let _ = writeln!(
            s,
            "- **Queries known up front (joins, batches of LSM-tree reads), {} keys{tag}:** \
             `contains_batch` requests each query's memory 32 queries ahead; \
             one by one → batched: {}.",
            count(large),
            batched.join("; ")
        );
    }

    // Batched inserts, where the filters have them.
    let loaded = before_after(
        ours_at(large).filter(at_target),
        |r| r.timing.build_ns,
        |t| t.build_batched_ns,
    );
    if !loaded.is_empty() {
        let _ = writeln!(
            s,
            "- **Loading in bulk (a snapshot, a day's keys), {} keys{tag}:** \
             `insert_batch` (and `extend`) requests each key's memory 32 keys ahead; \
             build one by one → batched, per key: {}.",
            count(large),
            loaded.join("; ")
        );
    }

    // Threads inserting into one filter, where the filters have an atomic
    // twin.
    let shared = before_after(
        ours_at(large).filter(at_target),
        |r| r.timing.build_ns,
        |t| t.build_shared_ns,
    );
    if !shared.is_empty() {
        let _ = writeln!(
            s,
            "- **Threads inserting into one filter (a crawler's workers), {} keys{tag}:** \
             `AtomicBloomFilter` and `AtomicBlockedBloomFilter` take inserts through `&self`, \
             with atomic bit sets and no lock, and are the same filters bit for bit; an \
             atomic insert costs several times a plain one, which pays where threads would \
             otherwise take turns at a lock. Build by one thread → by {SHARED_THREADS} \
             threads at once into the atomic twin, per key: {}.",
            count(large),
            shared.join("; ")
        );
    }

    // Deletes.
    let removable: Vec<&Row> = ours_at(large)
        .filter(|r| r.entry.remove)
        .filter(at_target)
        .collect();
    if !removable.is_empty() {
        // A batched remove is quoted only where it is at least a tenth
        // faster than removing one by one: below 8 MiB it is the same loop,
        // and the two columns then differ by a few percent of noise alone.
        let helps = |r: &Row| {
            r.timing
                .remove_batched_ns
                .filter(|&b| b < 0.9 * r.timing.remove_ns.unwrap_or(f64::NAN))
        };
        let parts: Vec<String> = removable
            .iter()
            .map(|r| {
                let batched = helps(r).map_or(String::new(), |b| format!(" ({b:.1} batched)"));
                format!(
                    "{} {:.1} bits/key, remove {:.1} ns{batched}, lookup {:.1} ns",
                    describe(r),
                    r.bits_per_key(),
                    r.timing.remove_ns.unwrap_or(f64::NAN),
                    r.lookup_ns()
                )
            })
            .collect();
        let _ = write!(s, "- **Supports delete{tag}:** {}.", parts.join("; "));
        if removable.iter().any(|r| helps(r).is_some()) {
            let _ = write!(
                s,
                " Deleting keys known up front (expiring a day's keys), `remove_batch` \
                 requests each key's memory 32 keys ahead."
            );
        }
        let smallest = min_by(removable.iter().copied(), Row::bits_per_key);
        let fastest = min_by(removable.iter().copied(), |r| {
            r.timing.remove_ns.unwrap_or(f64::NAN)
        });
        if let (Some(small), Some(fast)) = (smallest, fastest) {
            if small.entry.name == fast.entry.name {
                let _ = write!(
                    s,
                    " {} is both smaller and faster to delete from.",
                    describe(small)
                );
            } else {
                let _ = write!(
                    s,
                    " {} is smaller; {} deletes faster.",
                    describe(small),
                    describe(fast)
                );
            }
        }
        let _ = writeln!(
            s,
            " A cuckoo filter can fill up (insert returns `Full` past its capacity); a \
             counting Bloom filter cannot, and also estimates multiplicities."
        );
    }

    // Static against dynamic.
    let statics = min_by(
        ours_at(large).filter(|r| !r.entry.dynamic && near(r)),
        Row::bits_per_key,
    );
    let dynamic = || ours_at(large).filter(|r| r.entry.dynamic).filter(at_target);
    let fastest_dynamic = min_by(dynamic(), Row::lookup_ns);
    let smallest_dynamic = min_by(dynamic(), Row::bits_per_key);
    if let Some(st) = statics {
        let _ = write!(
            s,
            "- **Static or dynamic:** if every key is known up front, a static filter is \
             smallest: {} at {:.2} bits/key, {:.1} ns lookups, {:.1} ns/key to build.",
            describe(st),
            st.bits_per_key(),
            st.lookup_ns(),
            st.timing.build_ns,
        );
        if let (Some(fast), Some(small)) = (fastest_dynamic, smallest_dynamic) {
            let _ = write!(
                s,
                " If keys arrive over time{tag}: fastest lookups with {} ({:.1} ns, {:.2} \
                 bits/key, {:.1} ns inserts); smallest with {} ({:.2} bits/key, {:.1} ns lookups).",
                describe(fast),
                fast.lookup_ns(),
                fast.bits_per_key(),
                fast.timing.build_ns,
                describe(small),
                small.bits_per_key(),
                small.lookup_ns(),
            );
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::compare::measure::{Accuracy, Entry, Sample};
    use crate::compare::subject::{Family, Target};
    use crate::compare::workload::Workload;
    use crate::compare::{Result, measure::Timing};

    fn unmeasured(_: &Workload, _: Target) -> Result<Sample> {
        Err("not measured in this test".into())
    }

    /// The advice line that contains `marker`; the test fails, showing the
    /// whole section, when there is none.
    fn line_with<'a>(text: &'a str, marker: &str) -> &'a str {
        text.lines()
            .find(|l| l.contains(marker))
            .unwrap_or_else(|| panic!("no line with {marker:?} in {text}"))
    }

    /// One of our static filters at 1M keys with `bits` bits/key and
    /// `false_positives` among 1M non-members.
    pub(crate) fn static_row(
        name: &'static str,
        family: Family,
        bits: usize,
        false_positives: usize,
    ) -> Row {
        let n = 1_000_000;
        let timing = Timing {
            build_ns: 20.0,
            hit_ns: 4.0,
            miss_ns: 4.0,
            mixed_ns: 4.0,
            build_batched_ns: None,
            build_shared_ns: None,
            batched_ns: None,
            remove_ns: None,
            remove_batched_ns: None,
            floor_ns: 2.0,
        };
        Row {
            entry: Entry {
                name,
                krate: "xor-filter",
                family,
                peer: false,
                uniform_hashes: false,
                hasher: "none",
                dynamic: false,
                remove: false,
                batch: false,
                batch_insert: false,
                shared_insert: false,
                batch_remove: false,
                sized: false,
                deterministic: true,
                measure: unmeasured,
                one_set: |_, _, _| Err("not measured in this test".into()),
            },
            n,
            target: Target::Fixed,
            accuracy: Accuracy {
                params: String::new(),
                memory_bytes: bits * n / 8,
                expected_fpr: 0.0,
                queries: 1_000_000,
                false_positives,
                false_negatives: 0,
                retries: None,
                failed_removes: None,
                lines_per_hit: 1,
            },
            timing,
            per_rep: vec![timing],
        }
    }

    #[test]
    fn the_advice_names_a_filter_for_rare_false_positives() {
        let rows = [
            static_row("BinaryFuse8", Family::BinaryFuse8, 9, 3_900),
            static_row("BinaryFuse16", Family::BinaryFuse16, 18, 15),
            static_row("Xor16", Family::Xor16, 20, 15),
        ];
        let text = section(&rows);
        let line = line_with(&text, "Rare false positives");
        assert!(
            line.contains("**BinaryFuse16** (xor-filter) with 18.00 bits/key"),
            "{line}"
        );
        assert!(line.contains("(15 of 1M non-members)"), "{line}");
        // Without a 16-bit filter in the run, there is no such line.
        assert!(!section(&rows[..1]).contains("Rare false positives"));
        // Nor a batched line without batched timings.
        assert!(!text.contains("Queries known up front"));
        assert!(!text.contains("Loading in bulk"));
    }

    #[test]
    fn the_advice_keeps_to_the_default_hash_quality() {
        // A row of `UniformHashes` that is smaller and faster than every
        // default row is still not what the advice names: its figures hold
        // only for uniform hashes. The peer table pairs it all the same.
        let mut uniform = static_row("BinaryFuse8 (UniformHashes)", Family::BinaryFuse8, 8, 3_000);
        uniform.entry.uniform_hashes = true;
        uniform.timing.mixed_ns = 1.0;
        let rows = [
            static_row("BinaryFuse8", Family::BinaryFuse8, 9, 3_900),
            uniform,
        ];
        let text = section(&rows);
        assert!(text.contains("**BinaryFuse8** (xor-filter)"), "{text}");
        assert!(!text.contains("UniformHashes"), "{text}");
        assert!(
            line_with(&text, "Fastest lookup").contains("4.0 ns/key"),
            "{text}"
        );
    }

    #[test]
    fn the_advice_quotes_batched_lookups_where_measured() {
        let mut row = static_row("BinaryFuse8", Family::BinaryFuse8, 9, 3_900);
        row.timing.batched_ns = Some(1.5);
        let text = section(&[row]);
        let line = line_with(&text, "Queries known up front");
        assert!(
            line.contains("**BinaryFuse8** (xor-filter) 4.0 → 1.5 ns"),
            "{line}"
        );
    }

    #[test]
    fn the_advice_quotes_batched_removes_where_they_help() {
        let mut row = static_row("CuckooFilter", Family::Cuckoo, 12, 100);
        row.entry.dynamic = true;
        row.entry.remove = true;
        row.timing.remove_ns = Some(30.0);
        row.timing.remove_batched_ns = Some(12.0);
        let text = section(std::slice::from_ref(&row));
        let line = line_with(&text, "Supports delete");
        assert!(line.contains("remove 30.0 ns (12.0 batched)"), "{line}");
        assert!(line.contains("`remove_batch`"), "{line}");
        // A batched remove within noise of one by one is not quoted.
        row.timing.remove_batched_ns = Some(28.0);
        let text = section(&[row]);
        assert!(!text.contains("batched)"), "{text}");
        assert!(!text.contains("`remove_batch`"), "{text}");
    }

    #[test]
    fn the_advice_quotes_shared_builds_where_measured() {
        let mut row = static_row("BinaryFuse8", Family::BinaryFuse8, 9, 3_900);
        assert!(!section(std::slice::from_ref(&row)).contains("Threads inserting"));
        row.timing.build_shared_ns = Some(12.5);
        let text = section(&[row]);
        let line = line_with(&text, "Threads inserting into one filter");
        assert!(
            line.contains("**BinaryFuse8** (xor-filter) 20.0 → 12.5 ns"),
            "{line}"
        );
    }

    #[test]
    fn the_advice_quotes_batched_builds_where_measured() {
        let mut row = static_row("BinaryFuse8", Family::BinaryFuse8, 9, 3_900);
        row.timing.build_batched_ns = Some(7.5);
        let text = section(&[row]);
        let line = line_with(&text, "Loading in bulk");
        assert!(
            line.contains("**BinaryFuse8** (xor-filter) 20.0 → 7.5 ns"),
            "{line}"
        );
    }
}
