//! Unit tests of the core against a `HashMap` of fingerprint counts.

use std::collections::HashMap;

use filter_core::mix64;

use crate::core::{Core, Shape};

fn core(quotients: usize, r: u32) -> Core {
    Core::new(
        Shape {
            quotients,
            remainder_bits: r,
        },
        "test",
    )
    .unwrap()
}

/// Applies ops to a core and a map of fingerprint counts, and checks after
/// each that counts agree exactly (the oracle is keyed by fingerprint, so
/// collisions are not an issue).
fn check(mut c: Core, ops: &[(u8, u16)], domain: u64) -> Result<(), String> {
    let mut oracle: HashMap<u64, u64> = HashMap::new();
    for (step, &(kind, key)) in ops.iter().enumerate() {
        let m = mix64(u64::from(key) % domain);
        let f = c.fingerprint(m);
        match kind % 4 {
            0 | 1 => {
                if c.insert(m).is_ok() {
                    *oracle.entry(f).or_default() += 1;
                }
            }
            2 => {
                let had = oracle.get(&f).copied().unwrap_or(0);
                if c.remove(m) != (had > 0) {
                    return Err(format!("step {step}: remove disagreed (had {had})"));
                }
                if had == 1 {
                    oracle.remove(&f);
                } else if had > 1 {
                    oracle.insert(f, had - 1);
                }
            }
            _ => {
                let copies = u64::from(key % 300) + 1;
                if c.insert_fingerprint(f, copies).is_ok() {
                    *oracle.entry(f).or_default() += copies;
                }
            }
        }
        for (&f, &n) in &oracle {
            let (got, present) = (count_f(&c, f), contains_f(&c, f));
            if got != n || !present {
                return Err(format!("step {step}: fingerprint {f} count {got} want {n}"));
            }
        }
        // Absent fingerprints near the one just used (same and next
        // quotients, remainders above and below): the lookups' shortcuts
        // must answer exactly, counters and long runs included.
        for probe in [
            f ^ 1,
            f + 1,
            f.wrapping_sub(1),
            f + (1 << c.shape().remainder_bits),
        ] {
            if probe < c.space()
                && !oracle.contains_key(&probe)
                && (contains_f(&c, probe) || count_f(&c, probe) != 0)
            {
                return Err(format!("step {step}: absent fingerprint {probe} found"));
            }
        }
        check_runs(&c)?;
        let mut entries: Vec<_> = oracle.iter().map(|(&f, &n)| (f, n)).collect();
        entries.sort_unstable();
        if c.entries() != Some(entries.clone()) {
            return Err(format!("step {step}: entries differ"));
        }
        let rebuilt = Core::build(c.shape(), entries, "t").map_err(|e| e.to_string())?;
        if rebuilt != c {
            return Err(format!("step {step}: table differs from its rebuild"));
        }
        if c.len() != oracle.values().sum::<u64>() {
            return Err(format!("step {step}: len"));
        }
    }
    Ok(())
}

/// Every run found from its home block and the next is the run the exact
/// walk finds.
fn check_runs(c: &Core) -> Result<(), String> {
    let t = c.table();
    for q in 0..c.shape().quotients {
        if !t.is_occupied(q) {
            continue;
        }
        let exact = t.run(q);
        for near in [t.run_near::<false>(q), run_near_bmi2(c, q)] {
            if near.is_some_and(|run| run != exact) {
                return Err(format!("quotient {q}: run {near:?}, exact {exact:?}"));
            }
        }
    }
    Ok(())
}

/// [`Table::run_near`](crate::table::Table::run_near) by `pdep`, where the
/// CPU has it.
#[allow(unsafe_code)]
fn run_near_bmi2(c: &Core, q: usize) -> Option<(usize, usize)> {
    #[cfg(target_arch = "x86_64")]
    if c.table().has_bmi2() {
        #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
        unsafe fn near(c: &Core, q: usize) -> Option<(usize, usize)> {
            c.table().run_near::<true>(q)
        }
        // SAFETY: the table found BMI2, BMI1, POPCNT and LZCNT on this CPU.
        return unsafe { near(c, q) };
    }
    c.table().run_near::<false>(q)
}

/// Count of a fingerprint, through a hash that maps to it: the inverse of
/// the multiply-shift is not needed, as `count` reads the fingerprint only.
fn count_f(c: &Core, f: u64) -> u64 {
    c.count(hash_of(c, f))
}

fn contains_f(c: &Core, f: u64) -> bool {
    c.contains(hash_of(c, f))
}

/// A hash whose fingerprint is `f`: the smallest m with ⌊m·S/2^64⌋ = f.
fn hash_of(c: &Core, f: u64) -> u64 {
    let s = u128::from(c.space());
    let m = (u128::from(f) << 64).div_ceil(s);
    debug_assert_eq!(c.fingerprint(m as u64), f);
    m as u64
}

#[test]
fn tiny_dense_tables_agree_with_the_oracle() {
    // Few quotients and remainders: long clusters, collisions, counters.
    let ops: Vec<(u8, u16)> = (0..3000u32)
        .map(|i| {
            let h = mix64(u64::from(i));
            ((h & 3) as u8, (h >> 8) as u16)
        })
        .collect();
    for (q, r) in [(1, 2), (7, 2), (64, 2), (100, 3), (200, 8)] {
        check(core(q, r), &ops, 500).unwrap_or_else(|e| panic!("Q {q} r {r}: {e}"));
    }
}

#[test]
fn growing_keeps_every_count() {
    let mut c = core(100, 9);
    let mut oracle: HashMap<u64, u64> = HashMap::new();
    for i in 0..90u64 {
        let m = mix64(i % 60);
        c.insert(m).unwrap();
        *oracle.entry(m).or_default() += 1;
    }
    for _ in 0..4 {
        c = c.doubled("t").unwrap();
        for (&m, &n) in &oracle {
            assert_eq!(c.count(m), n);
        }
    }
    assert_eq!(
        c.shape(),
        Shape {
            quotients: 1600,
            remainder_bits: 5
        }
    );
}

quickcheck::quickcheck! {
    fn random_ops_agree_with_the_oracle(ops: Vec<(u8, u16)>, q: u16, r: u8) -> Result<(), String> {
        let q = usize::from(q % 300) + 1;
        let r = 2 + u32::from(r % 12);
        check(core(q, r), &ops, 64)
    }
}

#[test]
fn counted_zero_remainders_never_cost_an_insert_its_place() {
    // Remainder 0 counted 3 or 4 times takes a slot more than its count;
    // the maximum load is charged by count there, so every insert a
    // filter is sized for still fits.
    let mut c = core(100, 7);
    assert_eq!(c.shape().max_used(), 95);
    let mut inserted = 0;
    for q in 0..31u64 {
        for _ in 0..3 {
            c.insert_fingerprint(q << 7, 1).unwrap();
            inserted += 1;
        }
    }
    assert_eq!(inserted, 93);
    assert_eq!(c.used(), 31 * 4);
    c.insert_fingerprint(5, 1).unwrap();
    c.insert_fingerprint(6, 1).unwrap();
    assert_eq!(c.insert_fingerprint(7, 1), Err(crate::core::Full));
}

#[test]
fn a_batch_that_would_pass_the_largest_count_is_full() {
    // One-by-one inserts stop with `Full` where a count would pass
    // u64::MAX; the batch's rebuild must refuse the same batch.
    let mut c = core(1000, 8);
    let f = c.fingerprint(mix64(7));
    c.insert_fingerprint(f, u64::MAX - 2).unwrap();
    let shape = c.shape();
    assert!(matches!(
        c.with_sorted(&[f, f, f], shape, "test"),
        Err(filter_core::Error::Full)
    ));
    let two = c.with_sorted(&[f, f], shape, "test").unwrap();
    assert_eq!(two.count(mix64(7)), u64::MAX);
    assert_eq!(two.len(), u64::MAX);
}
