//! What the fuzz targets share.
//!
//! The targets live in `fuzz_targets/`, one per property; `README.md` says
//! how to run them and what the first campaign found.

use filter_core::KeyHasher;
use std::collections::HashMap;

/// A structured 64-bit hash picked by one fuzz byte: zero, all ones, one,
/// the top bit alone, or small ids shifted into the high bits (`i << 40`).
///
/// Pre-hashed keys bypass the filters' hashers, so these are the inputs
/// that a weak user hash would send: they collide in their low or high
/// halves, which is where fingerprints and positions are cut from.
pub fn structured_hash(byte: u8) -> u64 {
    match byte & 0x1f {
        0 => 0,
        1 => u64::MAX,
        2 => 1,
        3 => 0x8000_0000_0000_0000,
        4 => u64::MAX - 1,
        n => u64::from(n - 4) << 40,
    }
}

/// The item one operation byte of the sequence targets names: with the top
/// bit clear, the key `byte mod key_space`, hashed by the filter's own
/// hasher (`hash_key`), for the keyed methods (`insert(&key)`); with it set, a
/// [`structured_hash`] for the pre-hashed ones (`insert_hash(hash)`).
/// `hash` is what the oracles record either way.
#[derive(Clone, Copy, Debug)]
pub struct Item {
    /// The key, for the keyed methods; `None` for a pre-hashed item.
    pub key: Option<u64>,
    /// The item's 64-bit hash.
    pub hash: u64,
}

impl Item {
    /// The item `byte` names, for a filter hashing with `hasher`.
    pub fn new(byte: u8, key_space: u64, hasher: &impl KeyHasher) -> Item {
        if byte & 0x80 == 0 {
            let key = u64::from(byte) % key_space;
            Item {
                key: Some(key),
                hash: hasher.hash_key(&key),
            }
        } else {
            Item {
                key: None,
                hash: structured_hash(byte),
            }
        }
    }
}

/// A remove of an item the filter reports absent (`remove` does it): it
/// must return `false` and change nothing.
pub fn check_remove_absent<F: Clone + PartialEq>(
    filter: &mut F,
    remove: impl FnOnce(&mut F) -> bool,
) {
    let before = filter.clone();
    assert!(!remove(filter), "remove of an absent item returned true");
    assert!(
        *filter == before,
        "remove of an absent item changed the filter"
    );
}

/// A remove of `hash` checked against a multiplicity oracle: an item
/// inserted and not yet removed must be removed (`true`), and loses one
/// copy in the oracle; one never inserted that the filter reports absent
/// goes to [`check_remove_absent`]; a false positive is not removed, since
/// removing it may take another item's copy.
pub fn check_remove<F: Clone + PartialEq>(
    filter: &mut F,
    oracle: &mut HashMap<u64, u32>,
    hash: u64,
    reported: bool,
    remove: impl FnOnce(&mut F) -> bool,
) {
    match oracle.get(&hash).copied().unwrap_or(0) {
        0 if !reported => check_remove_absent(filter, remove),
        0 => {}
        count => {
            assert!(remove(filter), "remove of an inserted item returned false");
            if count == 1 {
                oracle.remove(&hash);
            } else {
                oracle.insert(hash, count - 1);
            }
        }
    }
}
