//! The hashing pipeline: key → 64-bit hash → mixed hash → positions and
//! fingerprints.
//!
//! ```text
//! key: &T where T: Hash + ?Sized
//!   -> hash_key(key)           the 64-bit hash; what the `*_hash` methods take
//!   -> mix64(hash)              a fixed bijective finalizer, stable forever
//!   -> positions, fingerprint   reduce() for "a number below n", fingerprint() for "a non-zero f-bit value"
//! ```
//!
//! Every filter takes its positions from the *mixed* hash, so
//! `filter.contains(&key) == filter.contains_hash(hasher.hash_key(&key))`
//! always, and a `*_hash` method given sequential or shifted ids still
//! meets its rate: [`mix64`] spreads them.
//!
//! Why the mix belongs to the pipeline and not to the user: multiply-shift
//! range reduction keeps the *high* bits of its input and fingerprints take
//! the low ones, so structured 64-bit values (ids, counters, addresses)
//! would pile into a few buckets and share fingerprints. [`mix64`] is a
//! bijection, so it adds no collisions.
//!
//! Why that costs the default nothing: a [`KeyHasher`] computes the mixed
//! hash of a key directly ([`KeyHasher::mixed_hash`]). For the default,
//! [`PortableHasher`], the last step of hashing a key *is* a [`mix64`], so
//! the mixed hash comes out of the hasher and the filter mixes nothing
//! again; `hash_key` returns the value just before that last step. For any
//! other `BuildHasher`, the filter mixes its output once.
//!
//! Why multiply-shift and not `%`: a 64-bit division costs tens of cycles,
//! a widening multiply a few, and it works for any table size, so no filter
//! rounds its tables up to a power of two.

use std::hash::{BuildHasher, Hash, Hasher};

/// Turns keys into the 64-bit hashes a filter works from.
///
/// Implemented for every [`BuildHasher`] (the filter then mixes its output
/// once with [`mix64`]), for [`PortableHasher`], the default of every
/// filter, and for [`UniformHasher`], which trusts a `BuildHasher`'s output
/// to be uniform already.
///
/// The two methods must agree: `mixed_hash(k) == mix64(hash_key(k))` for
/// every key. Filters insert and look up by `mixed_hash`, and their
/// `*_hash` methods apply [`mix64`] to what they are given, so the two paths
/// meet at the same positions.
pub trait KeyHasher {
    /// The 64-bit hash of `key`: the value the filters' `*_hash` methods
    /// take, and what [`HasherProbe`] records.
    fn hash_key<T: Hash + ?Sized>(&self, key: &T) -> u64;

    /// [`mix64`]`(self.hash_key(key))`, computed as cheaply as this hasher
    /// can: the value a filter takes positions and fingerprints from.
    #[inline]
    fn mixed_hash<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        mix64(self.hash_key(key))
    }
}

impl<S: BuildHasher> KeyHasher for S {
    #[inline]
    fn hash_key<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        self.hash_one(key)
    }
}

/// Xored into a [`PortableHasher`]'s seed before it is mixed into the
/// starting state: the first 64 bits of the fractional part of π. Part of
/// the format: changing it changes every hash.
const SEED_SALT: u64 = 0x243F_6A88_85A3_08D3;

/// The default hasher of every filter: the same 64-bit hash for the same
/// key on every target and in every later version of these crates.
///
/// ```
/// use filter_core::{KeyHasher, PortableHasher};
///
/// let hasher = PortableHasher::default();
/// // Pinned: the same on x86-64 (with or without AVX2), aarch64, 32-bit and
/// // big-endian targets, so a filter's bytes load on any machine.
/// assert_eq!(hasher.hash_key(&42u64), 0xe9e0_033e_3bad_af1c);
/// assert_eq!(hasher.hash_key(&42usize), hasher.hash_key(&42u64));
/// # Ok::<(), filter_core::Error>(())
/// ```
///
/// How keys are hashed, as a sequence of writes into a 64-bit state that
/// starts at `mix64(seed ^ SALT)`:
/// - every integer (`u8` to `u64`, `usize`, the signed ones) is written *by
///   value*, as a `u64` (signed values sign-extended, `u128` as its low then
///   high half): `pre = state ^ value; state = mix64(pre)`. So `usize` hashes
///   as `u64` on every target, and no integer is read as native-endian
///   bytes;
/// - a byte string (`str`, `[u8]`, `String`, `Vec<u8>` through their `Hash`
///   impls) goes through XXH3-64 seeded with the state:
///   `state = xxh3_64_with_seed(bytes, state)`;
/// - an integer written right after a byte string (a `str`'s `0xFF`
///   terminator) is folded in without a mix, since XXH3's output is uniform
///   already: `state ^= value · 0x9E3779B97F4A7C15`; the next write, if
///   any, first sets `state = mix64(state)`;
/// - `hash_key` is the last `pre` (or `unmix64(state)` when the last write
///   was a byte string or a folded integer), and `mixed_hash` is the final
///   `state`.
///
/// Integers reach a uniform, mixed hash in one finalizer and strings in
/// XXH3 alone, and [`mix64`]`(hash_key(k)) == mixed_hash(k)` exactly.
///
/// One limit: `std`'s `Hash` for slices of integers other than bytes
/// (`[u64]`, `Vec<u32>`) writes their memory as raw native-endian bytes,
/// which no hasher can see past: such keys hash differently on big-endian
/// targets. Hash their elements one by one, or their little-endian bytes.
///
/// The seed is fixed, so an adversary who knows it can craft keys that
/// collide; [`with_seed`](Self::with_seed) takes a secret one where that
/// matters (filters built with it load only under the same seed).
///
/// Not a [`BuildHasher`]: a filter asks it for mixed hashes, which a
/// `BuildHasher` cannot give.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PortableHasher {
    /// `mix64(seed ^ SEED_SALT)`: the state before any write.
    start: u64,
}

impl PortableHasher {
    /// The hasher of seed `seed`. `PortableHasher::default()` is seed 0.
    #[inline]
    pub const fn with_seed(seed: u64) -> Self {
        PortableHasher {
            start: mix64(seed ^ SEED_SALT),
        }
    }

    #[inline(always)]
    fn state(&self) -> PortableState {
        PortableState {
            state: self.start,
            pre: 0,
            pre_known: false,
            last: Last::Mixed,
        }
    }
}

impl Default for PortableHasher {
    #[inline]
    fn default() -> Self {
        Self::with_seed(0)
    }
}

impl KeyHasher for PortableHasher {
    #[inline]
    fn hash_key<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        let mut state = self.state();
        key.hash(&mut state);
        state.pre_mix()
    }

    #[inline]
    fn mixed_hash<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        let mut state = self.state();
        key.hash(&mut state);
        state.state
    }
}

/// The running state of a [`PortableHasher`]: see its docs for the writes.
///
/// Both outputs are kept, and a caller reads one: inlined, the compiler
/// drops the work of the other (the last mix for `hash_key`, the `pre`
/// bookkeeping for `mixed_hash`).
#[derive(Clone, Copy, Debug)]
struct PortableState {
    state: u64,
    /// The value whose [`mix64`] is `state`, when the last write was an
    /// integer that was mixed in.
    pre: u64,
    pre_known: bool,
    /// What the last write was: it decides how an integer is folded in.
    last: Last,
}

/// The last write into a [`PortableState`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Last {
    /// Nothing, or an integer mixed in with [`mix64`].
    Mixed,
    /// A byte string: `state` is XXH3's output, uniform already.
    Bytes,
    /// An integer folded into a byte string's hash without a mix: `state`
    /// is uniform, but the next write mixes it first.
    Folded,
}

/// The odd multiplier of an integer folded into a byte string's hash: the
/// 64-bit golden ratio.
const FOLD_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

impl PortableState {
    #[inline(always)]
    fn pre_mix(&self) -> u64 {
        if self.pre_known {
            self.pre
        } else {
            unmix64(self.state)
        }
    }

    /// Mixes a folded integer in before anything else is written, so that
    /// only the last write of a key may skip its mix.
    #[inline(always)]
    fn settle(&mut self) {
        if self.last == Last::Folded {
            self.state = mix64(self.state);
        }
    }

    #[inline(always)]
    fn integer(&mut self, value: u64) {
        if self.last == Last::Bytes {
            // Right after a byte string (a `str`'s 0xFF terminator, above
            // all), XXH3's output is uniform already: xor in the integer
            // times an odd constant, a bijection in it, and leave the mix
            // to the next write, if any.
            self.state ^= value.wrapping_mul(FOLD_MULTIPLIER);
            self.last = Last::Folded;
            self.pre_known = false;
            return;
        }
        self.settle();
        self.pre = self.state ^ value;
        self.state = mix64(self.pre);
        self.pre_known = true;
        self.last = Last::Mixed;
    }
}

impl Hasher for PortableState {
    #[inline]
    fn finish(&self) -> u64 {
        self.state
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.settle();
        self.state = xxhash_rust::xxh3::xxh3_64_with_seed(bytes, self.state);
        self.pre_known = false;
        self.last = Last::Bytes;
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.integer(u64::from(i));
    }

    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.integer(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.integer(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.integer(i);
    }

    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.integer(i as u64);
        self.integer((i >> 64) as u64);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.integer(i as u64);
    }

    #[inline]
    fn write_i8(&mut self, i: i8) {
        self.integer(i64::from(i) as u64);
    }

    #[inline]
    fn write_i16(&mut self, i: i16) {
        self.integer(i64::from(i) as u64);
    }

    #[inline]
    fn write_i32(&mut self, i: i32) {
        self.integer(i64::from(i) as u64);
    }

    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.integer(i as u64);
    }

    #[inline]
    fn write_i128(&mut self, i: i128) {
        self.write_u128(i as u128);
    }

    #[inline]
    fn write_isize(&mut self, i: isize) {
        self.integer(i as i64 as u64);
    }
}

/// A [`BuildHasher`] whose output the filter trusts to be uniform already,
/// and so takes positions from without mixing it again.
///
/// The one step for a fast hasher of your own (a hash you already compute
/// for the key, say) that spreads every bit: the filter skips [`mix64`] on
/// the key path. Its `*_hash` methods still mix what they are given, so
/// `hash_key` returns [`unmix64`] of your hasher's output, and
/// `filter.contains_hash(hasher.hash_key(&k)) == filter.contains(&k)` holds
/// as for every hasher.
///
/// Give it only hashers whose output is uniform in every bit: with an
/// identity hasher and sequential ids, a filter may exceed its rate many
/// times over (it never gives a false negative either way).
///
/// ```
/// use std::hash::BuildHasherDefault;
/// use std::collections::hash_map::DefaultHasher;
/// use filter_core::{KeyHasher, UniformHasher, mix64};
///
/// let hasher = UniformHasher(BuildHasherDefault::<DefaultHasher>::default());
/// assert_eq!(mix64(hasher.hash_key("a")), hasher.mixed_hash("a"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UniformHasher<S>(pub S);

impl<S: BuildHasher> KeyHasher for UniformHasher<S> {
    #[inline]
    fn hash_key<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        unmix64(self.0.hash_one(key))
    }

    #[inline]
    fn mixed_hash<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        self.0.hash_one(key)
    }
}

/// A fixed 64-bit bijective finalizer (the SplitMix64 / Stafford "variant 13"
/// mixer). Every output bit depends on every input bit.
///
/// Stable forever: serialized filters depend on it.
#[inline]
pub const fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The inverse of [`mix64`]: `unmix64(mix64(x)) == x` for every `x`.
#[inline]
pub const fn unmix64(mut x: u64) -> u64 {
    // Undo x ^= x >> 31, then the multiply by its inverse mod 2^64, and so on.
    x ^= (x >> 31) ^ (x >> 62);
    x = x.wrapping_mul(0x319642B2D24D8EC3);
    x ^= (x >> 27) ^ (x >> 54);
    x = x.wrapping_mul(0x96DE1B173F119089);
    x ^= (x >> 30) ^ (x >> 60);
    x
}

/// Maps `hash` to `0..n` by multiply-shift range reduction:
/// `(hash * n) >> 64` in 128-bit arithmetic.
///
/// Uniform when the *high* bits of `hash` are; no division, any `n`
/// (Lemire, "A fast alternative to the modulo reduction"). Returns 0 when
/// `n == 0`. Derive other values (fingerprints, a second position) from the
/// low bits or from a further [`mix64`], not from the same high bits.
#[inline]
pub const fn reduce(hash: u64, n: usize) -> usize {
    ((hash as u128 * n as u128) >> 64) as usize
}

/// A non-zero fingerprint of `bits` bits (1 to 32) from the *low* 32 bits of
/// `hash`, uniform over `1..2^bits`.
///
/// Zero is left out so that filters can use 0 to mean "empty slot". The low
/// half is used so that a position taken from the high half by [`reduce`] is
/// independent of it. `bits` outside `1..=32` is clamped into it (a caller bug,
/// not user input: filters validate their widths at construction).
#[inline]
pub const fn fingerprint(hash: u64, bits: u32) -> u64 {
    let bits = if bits == 0 {
        1
    } else if bits > 32 {
        32
    } else {
        bits
    };
    let max = (1u64 << bits) - 1;
    (((hash & 0xFFFF_FFFF) * max) >> 32) + 1
}

/// The hashes of a few fixed keys under one hasher: a hasher's fingerprint.
///
/// Serialized filters store the probe of the hasher they were built with;
/// loading compares it with the probe of the hasher given to load them and
/// refuses a mismatch with [`Error::HasherMismatch`](crate::Error::HasherMismatch).
/// Two hashers that agree on these keys but not on others are possible in
/// principle and not caught; the keys cover integer, byte and string
/// hashing so that seed, version and target changes show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HasherProbe(pub [u64; 4]);

impl HasherProbe {
    /// Hashes the probe keys under `hasher`.
    ///
    /// # Panics
    ///
    /// If `hasher` panics on a string or a byte slice, as hashers written
    /// for integer keys alone may (nohash-hasher's does); serializing a
    /// filter needs one that hashes them.
    pub fn of<S: KeyHasher + ?Sized>(hasher: &S) -> Self {
        HasherProbe([
            hasher.hash_key(&INTEGER_PROBES[0]),
            hasher.hash_key(&INTEGER_PROBES[1]),
            hasher.hash_key("filter-core hasher probe"),
            hasher.hash_key(&[0xA5u8; 37][..]),
        ])
    }

    /// Whether `a` and `b` hash alike, for filters held in memory together
    /// (`union`, `intersect`, `merge`, `==`): compares the hashes of the
    /// integer probe keys only. Both hashers are of one type in one program,
    /// so what can tell them apart is their state (a seed), which integer
    /// keys show as well as strings do; and hashers that take integers only
    /// (identity hashers for `u64` keys, which panic on strings) can be
    /// compared.
    pub fn same<S: KeyHasher + ?Sized>(a: &S, b: &S) -> bool {
        INTEGER_PROBES
            .iter()
            .all(|key| a.hash_key(key) == b.hash_key(key))
    }
}

/// The integer keys of [`HasherProbe`].
const INTEGER_PROBES: [u64; 2] = [0, 0x0123_4567_89AB_CDEF];

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasherDefault;

    #[test]
    fn unmix64_inverts_mix64() {
        let mut x = 0x0123_4567_89AB_CDEFu64;
        for _ in 0..10_000 {
            assert_eq!(unmix64(mix64(x)), x);
            assert_eq!(mix64(unmix64(x)), x);
            x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
        }
        for x in [0, 1, u64::MAX, 1 << 63] {
            assert_eq!(unmix64(mix64(x)), x);
        }
    }

    #[test]
    fn the_two_outputs_agree_for_every_key_shape() {
        let h = PortableHasher::default();
        let s = PortableHasher::with_seed(7);
        for hasher in [h, s] {
            assert_eq!(mix64(hasher.hash_key(&5u64)), hasher.mixed_hash(&5u64));
            assert_eq!(mix64(hasher.hash_key("abc")), hasher.mixed_hash("abc"));
            let bytes: &[u8] = b"xyz";
            assert_eq!(mix64(hasher.hash_key(bytes)), hasher.mixed_hash(bytes));
            let tuple = (1u32, "two", 3i64);
            assert_eq!(mix64(hasher.hash_key(&tuple)), hasher.mixed_hash(&tuple));
            assert_eq!(mix64(hasher.hash_key(&())), hasher.mixed_hash(&()));
        }
    }

    #[test]
    fn integers_hash_by_value_whatever_their_type() {
        let h = PortableHasher::default();
        assert_eq!(h.hash_key(&7u8), h.hash_key(&7u64));
        assert_eq!(h.hash_key(&7u32), h.hash_key(&7usize));
        assert_eq!(h.hash_key(&-1i32), h.hash_key(&u64::MAX));
        assert_eq!(h.hash_key(&-1i64), h.hash_key(&-1isize));
        assert_eq!(h.hash_key("key"), h.hash_key(&String::from("key")));
    }

    #[test]
    fn seeds_change_every_hash() {
        let a = HasherProbe::of(&PortableHasher::default());
        let b = HasherProbe::of(&PortableHasher::with_seed(1));
        assert!(a.0.iter().zip(b.0).all(|(x, y)| *x != y));
        assert!(HasherProbe::same(
            &PortableHasher::with_seed(3),
            &PortableHasher::with_seed(3)
        ));
        assert!(!HasherProbe::same(
            &PortableHasher::with_seed(3),
            &PortableHasher::with_seed(4)
        ));
    }

    #[test]
    fn build_hashers_are_mixed_once_and_uniform_ones_not_at_all() {
        type Sip = BuildHasherDefault<std::collections::hash_map::DefaultHasher>;
        let sip = Sip::default();
        let raw = sip.hash_one("k");
        assert_eq!(sip.hash_key("k"), raw);
        assert_eq!(sip.mixed_hash("k"), mix64(raw));
        let trusted = UniformHasher(sip);
        assert_eq!(trusted.mixed_hash("k"), raw);
        assert_eq!(mix64(trusted.hash_key("k")), raw);
    }

    #[test]
    fn mix64_known_values() {
        // SplitMix64's output for state increments of the golden gamma: the
        // first output of SplitMix64 seeded with 0 is mix64(0x9E3779B97F4A7C15).
        assert_eq!(mix64(0x9E37_79B9_7F4A_7C15), 0xE220_A839_7B1D_CDAF);
        assert_eq!(mix64(0), 0);
    }

    #[test]
    fn reduce_edges() {
        assert_eq!(reduce(0, 10), 0);
        assert_eq!(reduce(u64::MAX, 10), 9);
        assert_eq!(reduce(u64::MAX, 0), 0);
        assert_eq!(reduce(1 << 63, 10), 5);
        assert_eq!(reduce(u64::MAX, usize::MAX), usize::MAX - 1);
    }

    #[test]
    fn fingerprint_is_never_zero_and_fits() {
        for bits in 1..=32 {
            for h in [0u64, 1, 0xFFFF_FFFF, u64::MAX, 0x8000_0000] {
                let f = fingerprint(h, bits);
                assert!(f >= 1 && f < (1u64 << bits), "bits {bits} h {h:#x} f {f}");
            }
        }
        assert_eq!(fingerprint(0xFFFF_FFFF, 8), 255);
        assert_eq!(fingerprint(0, 8), 1);
    }
}
