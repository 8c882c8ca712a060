//! The report's "Against the memory floor" section: each row's member
//! lookup beside the time its cache-line reads alone take (see `floor`).

use std::fmt::Write as _;

use super::report::who;
use super::row::{Row, count, pct};

/// The section's text: an explanation, then one table per size.
pub(crate) fn section(rows: &[Row], sizes: &[usize]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "A member lookup reads cache lines at independent positions: k for a classic \
         Bloom filter, one block for a blocked one, two buckets for a cuckoo filter, three \
         fingerprints for xor and binary fuse filters. The floor is a loop that hashes each \
         member as every row does, reads as many lines from a table of the filter's size, \
         and does nothing else (`xtask/src/compare/floor.rs`), timed like the hits and right \
         after them in the same round. No lookup of that layout and size can beat its floor \
         on this machine, so hit / floor says how much a filter spends beyond its memory \
         reads, and a speed target below a layout's floor needs a smaller table or fewer \
         lines per lookup, not faster code. On a busy machine both figures move with the \
         neighbours (most at 10M keys, where the tables share the last-level cache), their \
         ratio less, since the two loops run moments apart. Peers are measured the same way.\n"
    );
    for &n in sizes {
        let _ = writeln!(
            s,
            "### {} keys\n\n| filter | crate | FPR target | lines per hit | table | lookup hit | floor | hit / floor |",
            count(n)
        );
        let _ = writeln!(s, "| --- | --- | --: | --: | --: | --: | --: | --: |");
        for r in rows.iter().filter(|r| r.n == n) {
            let t = &r.timing;
            let (name, krate) = who(r);
            let _ = writeln!(
                s,
                "| {name} | {krate} | {} | {} | {} | {:.2} | {:.2} | {:.2} |",
                r.target_fpr().map_or_else(|| "–".into(), pct),
                r.accuracy.lines_per_hit,
                megabytes(r.accuracy.memory_bytes),
                t.hit_ns,
                t.floor_ns,
                t.hit_ns / t.floor_ns,
            );
        }
        s.push('\n');
    }
    s
}

/// `bytes` in megabytes (10^6), to two decimals below 10 MB.
fn megabytes(bytes: usize) -> String {
    let mb = bytes as f64 / 1e6;
    if mb < 10.0 {
        format!("{mb:.2} MB")
    } else {
        format!("{mb:.1} MB")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::advice::tests::static_row;
    use crate::compare::subject::Family;

    #[test]
    fn each_row_shows_its_lines_table_and_ratio_to_the_floor() {
        // 9 bits/key at 1M keys: 1.125 MB; hit 4.0 ns over a 2.0 ns floor.
        let mut row = static_row("Xor8", Family::Xor8, 9, 3_900);
        row.accuracy.lines_per_hit = 3;
        let text = section(std::slice::from_ref(&row), &[1_000_000]);
        assert!(text.contains("### 1M keys"), "{text}");
        assert!(
            text.contains("| Xor8 | **xor-filter** | – | 3 | 1.12 MB | 4.00 | 2.00 | 2.00 |"),
            "{text}"
        );
        // Rows of other sizes stay out of the table.
        assert!(!section(&[row], &[100_000]).contains("| Xor8"));
    }

    #[test]
    fn megabytes_keep_three_figures() {
        assert_eq!(megabytes(1_198_136), "1.20 MB");
        assert_eq!(megabytes(49_270_592), "49.3 MB");
        assert_eq!(megabytes(64), "0.00 MB");
    }
}
