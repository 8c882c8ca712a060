//! No false negatives, whatever is inserted, merged or saved: quickcheck
//! beside a `HashSet`, for both of Spark's versions.

#![cfg(feature = "spark")]

use std::collections::HashSet;

use bloom::spark::{SparkBloomFilter, SparkVersion};
use quickcheck::quickcheck;

fn version(choice: u8, seed: i32) -> SparkVersion {
    if choice % 2 == 0 {
        SparkVersion::V1
    } else {
        SparkVersion::V2 { seed }
    }
}

quickcheck! {
    fn members_are_always_found(ints: Vec<i64>, strings: Vec<String>, choice: u8, seed: i32) -> bool {
        let mut f = SparkBloomFilter::with_fpr_version(version(choice, seed), 64, 0.05).unwrap();
        for v in &ints { f.insert(v); }
        for s in &strings { f.insert(s.as_str()); }
        let f = SparkBloomFilter::from_bytes(&f.to_bytes()).unwrap();
        ints.iter().all(|v| f.contains(v)) && strings.iter().all(|s| f.contains(s.as_bytes()))
    }

    fn a_union_holds_both_sides(left: Vec<i64>, right: Vec<i64>, choice: u8, seed: i32) -> bool {
        let v = version(choice, seed);
        let mut a = SparkBloomFilter::with_fpr_version(v, 64, 0.05).unwrap();
        let mut b = a.clone();
        left.iter().for_each(|x| { a.insert(x); });
        right.iter().for_each(|x| { b.insert(x); });
        let mut both = a.clone();
        both.union(&b).unwrap();
        let mut common = a.clone();
        common.intersect(&b).unwrap();
        let shared: HashSet<_> = left.iter().filter(|x| right.contains(x)).collect();
        left.iter().chain(&right).all(|x| both.contains(x)) && shared.iter().all(|x| common.contains(*x))
    }

    fn insert_says_whether_bits_changed(values: Vec<i32>) -> bool {
        let mut f = SparkBloomFilter::with_fpr(256, 0.01).unwrap();
        values.iter().all(|v| {
            let before = f.contains(v);
            f.insert(v) != before
        })
    }
}

#[test]
fn integers_widen_as_spark_widens_them() {
    let mut f = SparkBloomFilter::with_fpr(100, 0.01).unwrap();
    f.insert(&-5i8);
    assert!(f.contains(&-5i16) && f.contains(&-5i32) && f.contains(&-5i64));
    f.insert(&vec![1u8, 2, 3]);
    assert!(f.contains(&[1u8, 2, 3]) && f.contains(&[1u8, 2, 3][..]));
}
