//! [`BinaryFuse`]: the 2022 binary fuse filter (segmented layout, ~1.125 n slots).

use std::hash::Hash;

use filter_core::{Error, Filter, HasherProbe, KeyHasher, PortableHasher};

use crate::api::static_filter_api;
use crate::fingerprint::Fingerprint;
use crate::layout::FuseLayout;
use crate::table::Table;

/// A static binary fuse filter with `F`-bit fingerprints (Graf & Lemire,
/// 2022): use the aliases [`BinaryFuse8`] and [`BinaryFuse16`].
///
/// About `1.125 n` fingerprints (more for small sets: the size factor is
/// max(1.125, 0.875 + 0.25 ln(10^6) / ln n)) cut into power-of-two segments;
/// a key's three slots lie in three consecutive segments and must xor to its
/// fingerprint. **9.04 bits per key** for `BinaryFuse8` (false-positive rate
/// 2^-8 ≈ 0.39 %) and **18.1** for `BinaryFuse16` (2^-16 ≈ 0.0015 %) at 10^6
/// keys, within 13 % of the information-theoretic bound. The best static
/// filter here: the smallest, and as fast to build and query as [`Xor`](crate::Xor).
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
/// use xor_filter::BinaryFuse8;
///
/// let keys: Vec<u64> = (0..1_000_000).collect();
/// let filter = BinaryFuse8::from_keys(&keys)?;
/// assert!(keys.iter().all(|k| filter.contains(k)));
/// assert!(filter.bits_per_key() <= 9.1, "{}", filter.bits_per_key());
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
/// use xor_filter::BinaryFuse16;
///
/// let keys: Vec<u64> = (0..1_000_000).collect();
/// let filter = BinaryFuse16::from_keys(&keys)?;
/// assert!(keys.iter().all(|k| filter.contains(k)));
/// assert!(filter.bits_per_key() <= 18.2, "{}", filter.bits_per_key());
///
/// // 2^-16 = 0.0015 %: 10^6 non-members give 15.3 ± 3.9; 1.1 × 15.3 + 4σ allows 33.
/// let fp = (1_000_000..2_000_000u64).filter(|k| filter.contains(k)).count();
/// assert!(fp <= 33, "{fp}");
/// # Ok::<(), xor_filter::Error>(())
/// ```
#[derive(Clone)]
pub struct BinaryFuse<F: Fingerprint, S = PortableHasher> {
    pub(crate) table: Table<FuseLayout, F>,
    pub(crate) hasher: S,
}

/// A binary fuse filter with 8-bit fingerprints: 9.04 bits per key,
/// false-positive rate 2^-8 (0.39 %). See [`BinaryFuse`].
pub type BinaryFuse8<S = PortableHasher> = BinaryFuse<u8, S>;

/// A binary fuse filter with 16-bit fingerprints: 18.1 bits per key,
/// false-positive rate 2^-16 (0.0015 %). See [`BinaryFuse`].
pub type BinaryFuse16<S = PortableHasher> = BinaryFuse<u16, S>;

static_filter_api!(BinaryFuse, FuseLayout, FUSE_KIND);
