//! A seeded stream of test values, shared by the unit tests of the table and
//! of the search: SplitMix64 (a Weyl counter through `mix64`), so every test
//! run sees the same tables and a failure replays exactly.

/// The values of SplitMix64 started at `seed`.
pub(crate) fn seeded(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        filter_core::mix64(state)
    }
}
