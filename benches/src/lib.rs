//! Shared workload of the criterion benchmarks in `benches/benches/`.
