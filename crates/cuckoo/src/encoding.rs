//! The byte encoding: `to_bytes` and a `from_bytes` that validates every
//! field before trusting it. The layout is written down in
//! `docs/format-cuckoo.md`.

use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::{Error, HasherProbe, KeyHasher};
use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::SeedableRng;

use crate::filter::{Cuckoo, CuckooFilter, Victim, check_fingerprint_bits, checked_bytes};
use crate::table::{Flat, Pairing, SLOTS, Table};

impl<S: KeyHasher> CuckooFilter<S> {
    /// The filter as bytes: parameters, item count, victim slot, eviction
    /// generator state and the packed table, so that a reloaded filter
    /// answers, inserts and evicts exactly as this one would. The layout is
    /// in `docs/format-cuckoo.md`.
    ///
    /// # Panics
    ///
    /// If the hasher panics on a string or byte slice key, as hashers
    /// written for integers alone may: the bytes record the hashes of a few
    /// such keys ([`HasherProbe`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(
            FilterKind::Cuckoo,
            &HasherProbe::of(&self.hasher),
            BODY_FIXED_BYTES + self.cuckoo.table.bytes().len(),
        );
        self.cuckoo.write_body(&mut w);
        w.finish()
    }

    /// Loads a filter written by [`to_bytes`](Self::to_bytes), to be queried
    /// with `hasher`.
    ///
    /// # Errors
    ///
    /// [`Error::HasherMismatch`] when `hasher` hashes differently from the
    /// writer's; [`Error::WrongKind`] for the bytes of another filter kind;
    /// [`Error::Corrupt`] naming the field for anything malformed:
    /// truncation, a changed bit, a width outside 4..=16, a bucket count that
    /// does not match the table, bits set past the last bucket, an item count
    /// that differs from the occupied slots, a victim outside the table or
    /// beside a free slot of its own buckets.
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, Error> {
        let mut r = ByteReader::open(bytes, FilterKind::Cuckoo, &HasherProbe::of(&hasher))?;
        let flat = |buckets, bits, table_bytes| Ok(Flat::new(buckets, bits, table_bytes));
        let cuckoo = Cuckoo::read_body(&mut r, flat)?;
        r.finish()?;
        Ok(CuckooFilter { cuckoo, hasher })
    }
}

/// Bytes of the body before the table's: width, buckets, items, victim
/// bucket and fingerprint, eviction state, the table's length.
pub(crate) const BODY_FIXED_BYTES: usize = 1 + 8 + 8 + 8 + 2 + 8 + 8;

impl<P: Pairing> Cuckoo<P> {
    /// Appends the body (everything after the header) to `w`: also one
    /// stage of a scalable filter's bytes.
    pub(crate) fn write_body(&self, w: &mut ByteWriter) {
        w.u8(self.table.fingerprint_bits() as u8);
        w.u64(self.table.buckets() as u64);
        w.u64(self.len as u64);
        w.u64(self.victim.bucket as u64);
        w.u16(self.victim.fingerprint as u16);
        w.u64(u64::from_le_bytes(self.rng.state()));
        w.u8_array(self.table.bytes());
    }

    /// Reads a body written by [`write_body`](Self::write_body), checking
    /// every field. `pairing` makes the table's rule from its bucket count,
    /// width and byte count, or refuses a shape its caller does not allow,
    /// before anything is allocated.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming the field, and `pairing`'s errors.
    pub(crate) fn read_body(
        r: &mut ByteReader<'_>,
        pairing: impl FnOnce(usize, u32, usize) -> Result<P, Error>,
    ) -> Result<Self, Error> {
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
        let pairing = pairing(buckets, bits, table_len)?;
        // The reader checks the claimed count against the bytes present
        // before it allocates; the count must then match the bucket count.
        let table = r.u8_array("table")?;
        if table.len() != table_len {
            return Err(Error::corrupt(format_args!(
                "table has {} bytes, but {buckets} buckets of {bits}-bit fingerprints need {table_len}",
                table.len()
            )));
        }
        let table = Table::with_pairing(table, buckets, bits, pairing);
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
        Ok(Cuckoo {
            table,
            len: stored,
            victim: Victim {
                bucket: victim_bucket as usize,
                fingerprint: victim_fingerprint,
            },
            rng: SplitMix64::from_seed(rng_state.to_le_bytes()),
        })
    }
}
