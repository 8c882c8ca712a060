//! The byte encoding: `to_bytes` and a `from_bytes` that validates every
//! field before trusting it. The layout is written down in
//! `docs/format-cuckoo.md`.

use std::hash::BuildHasher;
use std::marker::PhantomData;

use filter_core::format::{
    ByteReader, ByteWriter, FLAG_MIXED_OFFSETS, FLAG_UNIFORM_HASHES, FilterKind,
};
use filter_core::{AnyHashes, Error, HashQuality, HasherProbe};
use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::SeedableRng;

use crate::filter::{CuckooFilter, Victim, check_fingerprint_bits, checked_bytes};
use crate::table::{Offsets, SLOTS, Table};

impl<S: BuildHasher, Q: HashQuality> CuckooFilter<S, Q> {
    /// The filter as bytes: parameters, item count, victim slot, eviction
    /// generator state and the packed table, so that a reloaded filter
    /// answers, inserts and evicts exactly as this one would.
    pub fn to_bytes(&self) -> Vec<u8> {
        let table = self.table.bytes();
        let offsets = match self.table.offsets() {
            Offsets::Mixed => FLAG_MIXED_OFFSETS,
            Offsets::Golden => 0,
        };
        let flags = offsets | Q::flags();
        let mut w = ByteWriter::with_flags(
            FilterKind::Cuckoo,
            &HasherProbe::of(&self.hasher),
            56 + table.len(),
            flags,
        );
        w.u8(self.table.fingerprint_bits() as u8);
        w.u64(self.table.buckets() as u64);
        w.u64(self.len as u64);
        w.u64(self.victim.bucket as u64);
        w.u16(self.victim.fingerprint as u16);
        w.u64(u64::from_le_bytes(self.rng.state()));
        w.u8_array(table);
        w.finish()
    }

    /// Loads a filter of hash quality `Q` written by
    /// [`to_bytes`](Self::to_bytes), to be queried with `hasher`: the
    /// loader for filters of [`UniformHashes`](filter_core::UniformHashes),
    /// whose type the `quality` argument names
    /// ([`from_bytes_with_hasher`](CuckooFilter::from_bytes_with_hasher) is
    /// this with [`AnyHashes`]).
    ///
    /// # Errors
    ///
    /// [`Error::HashQualityMismatch`] when the bytes are of a filter of the
    /// other quality; otherwise as
    /// [`from_bytes_with_hasher`](CuckooFilter::from_bytes_with_hasher).
    pub fn from_bytes_with_quality(bytes: &[u8], hasher: S, _quality: Q) -> Result<Self, Error> {
        let (mut r, flags) = ByteReader::open_with_flags(
            bytes,
            FilterKind::Cuckoo,
            &HasherProbe::of(&hasher),
            FLAG_MIXED_OFFSETS | FLAG_UNIFORM_HASHES,
        )?;
        Q::check_flags(flags)?;
        // Bytes without the flag (format 1.0 and 1.1) keep the offsets they
        // were built with.
        let offsets = if flags & FLAG_MIXED_OFFSETS != 0 {
            Offsets::Mixed
        } else {
            Offsets::Golden
        };
        let bits = u32::from(r.u8("fingerprint_bits")?);
        check_fingerprint_bits(bits).map_err(|_| {
            Error::corrupt(format_args!("fingerprint_bits is {bits}, not in 4..=16"))
        })?;
        let buckets_field = r.u64("buckets")?;
        let buckets = usize::try_from(buckets_field).unwrap_or(usize::MAX);
        let table_len = checked_bytes(buckets, bits, "buckets").map_err(|_| {
            Error::corrupt(format_args!(
                "buckets is {buckets_field}, not a valid table size for {bits}-bit fingerprints"
            ))
        })?;
        let items = r.u64("items")?;
        let victim_bucket = r.u64("victim_bucket")?;
        let victim_fingerprint = u64::from(r.u16("victim_fingerprint")?);
        if victim_fingerprint >> bits != 0 {
            return Err(Error::corrupt(format_args!(
                "victim_fingerprint {victim_fingerprint:#x} is wider than {bits} bits"
            )));
        }
        let victim_in_range = if victim_fingerprint == 0 {
            victim_bucket == 0
        } else {
            victim_bucket < buckets_field
        };
        if !victim_in_range {
            return Err(Error::corrupt(format_args!(
                "victim_bucket is {victim_bucket}, not a bucket of the table (0..{buckets_field}), \
                 or set while the victim slot is empty"
            )));
        }
        let rng_state = r.u64("eviction_state")?;
        // The reader checks the claimed count against the bytes present
        // before it allocates; the count must then match the bucket count.
        let table = r.u8_array("table")?;
        if table.len() != table_len {
            return Err(Error::corrupt(format_args!(
                "table has {} bytes, but {buckets} buckets of {bits}-bit fingerprints need {table_len}",
                table.len()
            )));
        }
        r.finish()?;
        let table = Table::from_bytes_with(table, buckets, bits, offsets);
        if !table.padding_is_clear() {
            return Err(Error::corrupt("table has bits set past its last bucket"));
        }
        // A fingerprint goes to the victim slot only when both of its buckets
        // are full, and a remove that frees a slot in either puts it back, so
        // a victim beside a free slot of its own buckets is a forged state
        // (one that would refuse every insert into a table with room).
        if victim_fingerprint != 0 {
            let bucket = victim_bucket as usize;
            let other = table.alt(bucket, victim_fingerprint);
            if table.count(bucket, 0) + table.count(other, 0) != 0 {
                return Err(Error::corrupt(format_args!(
                    "victim slot is occupied, but its buckets {bucket} and {other} have free slots"
                )));
            }
        }
        let stored = table.occupied_slots() + usize::from(victim_fingerprint != 0);
        if items != stored as u64 {
            return Err(Error::corrupt(format_args!(
                "items is {items}, but the table and victim slot hold {stored} fingerprints"
            )));
        }
        debug_assert!(stored <= buckets * SLOTS + 1);
        Ok(CuckooFilter {
            table,
            len: stored,
            victim: Victim {
                bucket: victim_bucket as usize,
                fingerprint: victim_fingerprint,
            },
            rng: SplitMix64::from_seed(rng_state.to_le_bytes()),
            hasher,
            quality: PhantomData,
        })
    }
}

impl<S: BuildHasher> CuckooFilter<S> {
    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be queried
    /// with `hasher`.
    ///
    /// # Errors
    ///
    /// [`Error::HasherMismatch`] when `hasher` hashes differently from the
    /// writer's; [`Error::HashQualityMismatch`] when the bytes are of a
    /// filter of [`UniformHashes`](filter_core::UniformHashes) (load those
    /// with [`from_bytes_with_quality`](CuckooFilter::from_bytes_with_quality));
    /// [`Error::Corrupt`] naming the field for anything malformed:
    /// truncation, a changed bit, a width outside 4..=16, a bucket count that
    /// does not match the table, bits set past the last bucket, an item count
    /// that differs from the occupied slots, a victim outside the table or
    /// beside a free slot of its own buckets.
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        Self::from_bytes_with_quality(bytes, hasher, AnyHashes)
    }
}
