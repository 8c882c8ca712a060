//! [`Xor`]: the 2020 xor filter (three blocks, 1.23 n + 32 slots).

use std::hash::Hash;

use filter_core::{Error, Filter, HasherProbe, KeyHasher, PortableHasher};

use crate::api::static_filter_api;
use crate::fingerprint::Fingerprint;
use crate::layout::XorLayout;
use crate::table::Table;

/// A static xor filter with `F`-bit fingerprints (Graf & Lemire, 2020):
/// use the aliases [`Xor8`] and [`Xor16`].
///
/// `1.23 n + 32` fingerprints in three equal blocks; a key is a member when
/// the fingerprints at its three slots, one per block, xor to its own
/// fingerprint. About **9.84 bits per key** for `Xor8` (false-positive rate
/// 2^-8 ≈ 0.39 %) and **19.7** for `Xor16` (2^-16 ≈ 0.0015 %) at 10^6 keys.
/// A lookup reads three random cache lines. Prefer [`BinaryFuse`](crate::BinaryFuse)
/// (9.04 / 18.1 bits per key, 8 % smaller) unless the xor layout's format
/// is what you need.
///
/// # Invariants
///
/// For every distinct key hash the filter was built from, the three
/// fingerprints at its slots xor to its fingerprint: no false negatives.
/// The table never changes after construction.
///
/// # Examples
///
/// ```
/// use xor_filter::Xor8;
///
/// let keys: Vec<u64> = (0..1_000_000).collect();
/// let filter = Xor8::from_keys(&keys)?;
/// assert!(keys.iter().all(|k| filter.contains(k)));
/// assert!(filter.bits_per_key() <= 9.9, "{}", filter.bits_per_key());
///
/// // False-positive rate 2^-8 = 0.39 %: 10^6 non-members give 3906 ± 62
/// // (binomial σ); 0.39 % × 1.1 + 4σ allows 4545.
/// let fp = (1_000_000..2_000_000u64).filter(|k| filter.contains(k)).count();
/// assert!(fp <= 4545, "{fp}");
/// # Ok::<(), xor_filter::Error>(())
/// ```
///
/// Sixteen-bit fingerprints:
///
/// ```
/// use xor_filter::Xor16;
///
/// let keys: Vec<u64> = (0..1_000_000).collect();
/// let filter = Xor16::from_keys(&keys)?;
/// assert!(keys.iter().all(|k| filter.contains(k)));
/// assert!(filter.bits_per_key() <= 19.8, "{}", filter.bits_per_key());
///
/// // 2^-16 = 0.0015 %: 10^6 non-members give 15.3 ± 3.9; 1.1 × 15.3 + 4σ allows 33.
/// let fp = (1_000_000..2_000_000u64).filter(|k| filter.contains(k)).count();
/// assert!(fp <= 33, "{fp}");
/// # Ok::<(), xor_filter::Error>(())
/// ```
#[derive(Clone)]
pub struct Xor<F: Fingerprint, S = PortableHasher> {
    pub(crate) table: Table<XorLayout, F>,
    pub(crate) hasher: S,
}

/// An xor filter with 8-bit fingerprints: 9.84 bits per key, false-positive
/// rate 2^-8 (0.39 %). See [`Xor`].
pub type Xor8<S = PortableHasher> = Xor<u8, S>;

/// An xor filter with 16-bit fingerprints: 19.7 bits per key, false-positive
/// rate 2^-16 (0.0015 %). See [`Xor`].
pub type Xor16<S = PortableHasher> = Xor<u16, S>;

static_filter_api!(Xor, XorLayout, XOR_KIND);
