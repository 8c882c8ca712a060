//! The byte encoding of a partitioned filter (format kind
//! `PartitionedBinaryFuse`, 15), whole or one partition: one layout for
//! both, so that one parser validates them (`docs/format-xor-filter.md`).
//!
//! Body: `fingerprint_bits`, `partitions`, `keys` (the records' sum) and
//! `records` (u64 each), then per record `index`, `seed`, `keys`,
//! `segment_length`, `segment_count` (u64 each), then the fingerprints as
//! one array, the records' tables one after the other in record order. A
//! whole filter has `partitions` records, indices `0..partitions` in order;
//! a partition's bytes have one.

use filter_core::format::{ByteReader, ByteWriter, FilterKind};
use filter_core::{Error, HasherProbe};

use super::{MAX_PARTITIONS, Part, check_partitions};
use crate::fingerprint::Fingerprint;
use crate::layout::{FuseLayout, Layout};

const KIND: FilterKind = FilterKind::PartitionedBinaryFuse;

pub(crate) fn write<F: Fingerprint>(
    probe: &HasherProbe,
    partitions: usize,
    records: &[(usize, Part)],
    fingerprints: &[F],
) -> Vec<u8> {
    let keys: usize = records.iter().map(|(_, p)| p.keys).sum();
    let body = 40 + 40 * records.len() + size_of_val(fingerprints);
    let mut w = ByteWriter::new(KIND, probe, body);
    w.u64(u64::from(F::BITS));
    w.u64(partitions as u64);
    w.u64(keys as u64);
    w.u64(records.len() as u64);
    for &(index, part) in records {
        w.u64(index as u64);
        w.u64(part.seed);
        w.u64(part.keys as u64);
        part.layout.write(&mut w);
    }
    F::write_array(&mut w, fingerprints);
    w.finish()
}

/// A validated body: every record's slots lie inside `fingerprints`.
pub(crate) struct Body<'a> {
    pub(crate) partitions: usize,
    pub(crate) keys: usize,
    pub(crate) records: Vec<(usize, Part)>,
    /// Little-endian fingerprints, `Σ slots × width` bytes.
    pub(crate) fingerprints: &'a [u8],
}

impl Body<'_> {
    /// The records of a whole filter, checked to be one per partition in order.
    pub(crate) fn whole_filter_parts(&self) -> Result<Vec<Part>, Error> {
        if self.records.len() != self.partitions {
            return Err(Error::corrupt(format_args!(
                "a whole filter has a record per partition: {} partitions, {} records \
                 (the bytes of a single partition load as a BinaryFusePartition)",
                self.partitions,
                self.records.len()
            )));
        }
        // `read` checked indices strictly increasing and below
        // `partitions`, so with one per partition they are 0, 1, 2, …
        Ok(self.records.iter().map(|&(_, part)| part).collect())
    }
}

/// Reads and validates the body; `verify` checks the checksum too (views skip it).
pub(crate) fn read<'a, F: Fingerprint>(
    bytes: &'a [u8],
    probe: &HasherProbe,
    verify: bool,
) -> Result<Body<'a>, Error> {
    let mut r = if verify {
        ByteReader::open(bytes, KIND, probe)?
    } else {
        ByteReader::open_unverified(bytes, KIND, probe)?
    };
    let bits = r.u64("fingerprint_bits")?;
    if bits != u64::from(F::BITS) {
        return Err(Error::corrupt(format_args!(
            "fingerprint_bits is {bits}, but this type's fingerprints have {} bits",
            F::BITS
        )));
    }
    let partitions = r.u64("partitions")?;
    let partitions = usize::try_from(partitions)
        .ok()
        .filter(|&p| check_partitions(p).is_ok())
        .ok_or_else(|| {
            Error::corrupt(format_args!(
                "partitions is {partitions}, must be from 1 to {MAX_PARTITIONS}"
            ))
        })?;
    let keys = r.u64("keys")?;
    let count = r.u64("records")?;
    if count == 0 || count > partitions as u64 {
        return Err(Error::corrupt(format_args!(
            "records is {count}, must be from 1 to partitions ({partitions})"
        )));
    }
    let mut records = Vec::new();
    let mut slots = 0usize;
    let mut sum = 0u64;
    for _ in 0..count {
        let index = r.u64("record index")?;
        let after = records.last().map_or(0, |&(i, _)| i as u64 + 1);
        if index < after || index >= partitions as u64 {
            return Err(Error::corrupt(format_args!(
                "record index {index} out of order or not below partitions ({partitions})"
            )));
        }
        let seed = r.u64("seed")?;
        let part_keys = r.u64("record keys")?;
        let part_keys = usize::try_from(part_keys)
            .ok()
            .filter(|&k| k <= crate::MAX_KEYS)
            .ok_or_else(|| {
                Error::corrupt(format_args!(
                    "a record's keys is {part_keys}, at most {} allowed",
                    crate::MAX_KEYS
                ))
            })?;
        let layout = FuseLayout::read(&mut r, part_keys)?;
        let start = slots;
        slots = slots
            .checked_add(layout.slots())
            .ok_or_else(|| Error::corrupt("the records' slots overflow"))?;
        sum += part_keys as u64;
        records.push((
            index as usize,
            Part {
                seed,
                keys: part_keys,
                layout,
                start,
                end: slots,
            },
        ));
    }
    if sum != keys {
        return Err(Error::corrupt(format_args!(
            "keys is {keys}, but the records hold {sum}"
        )));
    }
    let fingerprints = F::borrow_array(&mut r, "fingerprints")?;
    if fingerprints.len() / size_of::<F>() != slots {
        return Err(Error::corrupt(format_args!(
            "fingerprints has {} entries, but the records have {slots} slots",
            fingerprints.len() / size_of::<F>()
        )));
    }
    r.finish()?;
    let keys = usize::try_from(sum).map_err(|_| {
        Error::corrupt(format_args!(
            "keys is {sum}, more than this target addresses"
        ))
    })?;
    Ok(Body {
        partitions,
        keys,
        records,
        fingerprints,
    })
}
