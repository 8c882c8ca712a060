//! What a filter's [`HashQuality`](filter_core::HashQuality) changes: where the positions of a hash
//! start. Everything else (sizes, bytes but for one header flag, lookups,
//! inserts, merges) is the same code for both qualities.
//!
//! Under [`AnyHashes`](filter_core::AnyHashes), the default, a filter mixes
//! every hash before it takes positions from it, so that structured hashes
//! (sequential ids passed to `insert_hash`) still spread over the table:
//! the classic filter starts its probe sequence from
//! [`folded_product`](filter_core::probes::folded_product)`(hash)` (or from
//! [`mix64`](filter_core::mix64)`(hash)` in small tables and old linear
//! ones), the blocked filter multiplies the hash by one constant before it
//! picks the block and the lane word (`block.rs`).
//!
//! Under [`UniformHashes`](filter_core::UniformHashes) the hash is uniform
//! already, and that first mix is skipped, nothing else:
//!
//! - the classic filter's sequence starts at x = hash for every
//!   [`ProbeSequence`](filter_core::ProbeSequence), through filter-core's
//!   quality-generic constructors ([`LinearProbes::new_for`](filter_core::LinearProbes::new_for)
//!   and its siblings), which the counting filter shares. The step (x rotated by
//!   32 bits, salted), the cubic term and the per-probe mix of the hashed
//!   sequence stay, because they make one key's probes differ from each
//!   other, which no quality of the input does;
//! - the blocked filter takes the block from `reduce(hash, blocks)`, which
//!   reads the high bits of the hash, and the lane word from its low 32
//!   bits, `hash as u32`: for a uniform hash the two are independent.
//!
//! Why `if Q::UNIFORM` and not a field: `Q` is a type, so the test is on a
//! constant and the compiler keeps one branch; the default type's lookups
//! are the code they were before the choice existed (see
//! [`filter_core::hash_quality`] for what a runtime field measured).

use filter_core::Error;

/// The error of `assume_uniform_hashes` on a filter with bits set, naming
/// about how many items it holds, from its fill. At least one: a filter
/// with one key in a large table estimates a fraction of a key, which
/// rounds to a misleading "0".
pub(crate) fn not_empty(estimated_items: usize) -> Error {
    filter_core::hash_quality::not_empty(
        "assume_uniform_hashes",
        format_args!("about {}", estimated_items.max(1)),
    )
}
