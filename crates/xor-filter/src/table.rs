//! The table both filter families share: a layout, a seed, the fingerprints,
//! and the lookup and byte encoding written once for every width and layout.

use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::prefetch::prefetch;
use filter_core::{Error, HasherProbe, mix64};

use crate::construct;
use crate::fingerprint::Fingerprint;
use crate::layout::Layout;
use crate::view::TableRef;

/// A built filter: every key `k` of the set satisfies
/// `fp(k) == table[p0] ^ table[p1] ^ table[p2]`, where `p0, p1, p2` are the
/// layout's positions of [`seeded`]`(mix64(hash), seed)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Table<L, F> {
    pub(crate) layout: L,
    /// The construction attempt's seed, added to each hash before mixing.
    pub(crate) seed: u64,
    /// The number of distinct key hashes the filter was built from.
    pub(crate) keys: usize,
    /// `layout.slots()` fingerprints.
    pub(crate) fingerprints: Vec<F>,
}

/// The value every position and fingerprint derives from, given a key's
/// mixed hash `m` (`mix64` of its hash): `m` itself for seed 0, the first
/// attempt's, and `mix64(m + seed)` for the seeds of later attempts.
///
/// Why seed 0 takes `m` as it is: the default hasher gives a key's mixed
/// hash directly (a string's costs XXH3 alone), so a filter built on its
/// first attempt, as nearly all are, looks a key up with no further mix.
/// Both branches are bijections of `m`, so duplicates among hashes are
/// exactly duplicates among these values.
#[inline(always)]
pub(crate) fn seeded(m: u64, seed: u64) -> u64 {
    if seed == 0 {
        m
    } else {
        mix64(m.wrapping_add(seed))
    }
}

/// [`seeded`] for a key's hash (its pre-hash, as the `*_hash` methods take).
#[inline(always)]
pub(crate) fn mixed(hash: u64, seed: u64) -> u64 {
    seeded(mix64(hash), seed)
}

impl<L: Layout, F: Fingerprint> Table<L, F> {
    /// Builds the table from raw (unmixed) key hashes; duplicates allowed.
    pub(crate) fn from_hashes(hashes: &[u64]) -> Result<Self, Error> {
        construct::build(hashes)
    }

    /// Whether the key of pre-hash `hash` matches. A table of no keys
    /// matches nothing: its slots would otherwise match 2^-F::BITS of all
    /// keys, a false positive with nothing to be positive about.
    #[inline]
    pub(crate) fn contains_hash(&self, hash: u64) -> bool {
        self.contains_mixed(mix64(hash))
    }

    /// As [`contains_hash`](Self::contains_hash), given the key's mixed
    /// hash (`mix64` of its hash).
    #[inline]
    pub(crate) fn contains_mixed(&self, m: u64) -> bool {
        if self.keys == 0 {
            return false;
        }
        let k = seeded(m, self.seed);
        let [a, b, c] = self.layout.positions(k);
        let t = &self.fingerprints;
        debug_assert!(a < t.len() && b < t.len() && c < t.len());
        #[allow(unsafe_code)]
        // SAFETY: `positions` returns indices below `layout.slots()` for any
        // hash and any layout `for_keys` or `read` can produce: the xor
        // layout reduces into each of its three blocks; the fuse layout's
        // first index is below `segment_count · segment_length`, and the
        // other two xor only bits below the power-of-two `segment_length`
        // (which `read` enforces) into the next two segments (layout tests
        // check the extremes). `fingerprints` has exactly `layout.slots()`
        // entries: construction allocates that many, `from_bytes` refuses any
        // other count, and the fields are private to the crate.
        let (x, y, z) = unsafe {
            (
                *t.get_unchecked(a),
                *t.get_unchecked(b),
                *t.get_unchecked(c),
            )
        };
        F::from_hash(k) ^ x ^ y ^ z == F::default()
    }

    /// Hints that the lookup of `hash` will read its three slots soon (a
    /// batched lookup, `batch.rs`). Never changes an answer.
    #[inline(always)]
    pub(crate) fn prefetch_mixed(&self, m: u64) {
        let [a, b, c] = self.layout.positions(seeded(m, self.seed));
        for position in [a, b, c] {
            prefetch(&self.fingerprints, position);
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.fingerprints.len() * size_of::<F>()
    }

    /// Body: seed (u64), keys (u64), the layout's parameters, fingerprints
    /// (array). See `docs/format-xor-filter.md`.
    pub(crate) fn to_bytes(&self, kind: FilterKind, probe: &HasherProbe) -> Vec<u8> {
        let mut w = ByteWriter::new(kind, probe, 48 + self.memory_bytes());
        w.u64(self.seed);
        w.u64(self.keys as u64);
        self.layout.write(&mut w);
        F::write_array(&mut w, &self.fingerprints);
        w.finish()
    }

    pub(crate) fn from_bytes(
        bytes: &[u8],
        kind: FilterKind,
        probe: &HasherProbe,
    ) -> Result<Self, Error> {
        let view = TableRef::<L, F>::read(ByteReader::open(bytes, kind, probe)?)?;
        Ok(Table {
            layout: view.layout,
            seed: view.seed,
            keys: view.keys,
            fingerprints: F::copy_le(view.fingerprints),
        })
    }
}
