//! Which implementation a filter's operations run on: portable Rust, or
//! AVX2 where the CPU has it. Both filter types choose once, when a filter
//! is built or loaded, and both kernels give the same answers and bytes.

/// Which implementation a filter's operations use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// Plain Rust, any target.
    Portable,
    /// AVX2 intrinsics; only ever constructed after a successful runtime
    /// check for AVX2, BMI1, BMI2 and POPCNT.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    /// The fastest kernel this CPU supports. (CPUs with AVX2 have the
    /// other three; they let the compiler use `mulx`, `popcnt` and
    /// non-destructive shifts.)
    pub(crate) fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            return Kernel::Avx2;
        }
        Kernel::Portable
    }
}
