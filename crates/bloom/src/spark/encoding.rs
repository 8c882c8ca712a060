//! Spark's bytes: `BloomFilter.writeTo` and `readFrom`, big-endian fields
//! (see the [module docs](super) for the table).

use filter_core::Error;

use super::{MAX_WORDS, SparkBloomFilter, SparkVersion};

/// Bytes before the words: version, k, (seed,) word count.
fn header_bytes(version: SparkVersion) -> usize {
    match version {
        SparkVersion::V1 => 12,
        SparkVersion::V2 { .. } => 16,
    }
}

/// Reads Java `int`s from the front of a byte string.
struct Ints<'a> {
    rest: &'a [u8],
}

impl Ints<'_> {
    fn next(&mut self, field: &str) -> Result<i32, Error> {
        let (head, rest) = self.rest.split_first_chunk::<4>().ok_or_else(|| {
            Error::corrupt(format_args!(
                "Spark BloomFilter truncated: {} bytes left where its {field} (4 bytes) belongs",
                self.rest.len()
            ))
        })?;
        self.rest = rest;
        Ok(i32::from_be_bytes(*head))
    }
}

impl SparkBloomFilter {
    /// The bytes Spark's `BloomFilter.writeTo` writes for this filter, which
    /// Spark's `BloomFilter.readFrom` loads.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(header_bytes(self.version) + self.words.len() * 8);
        out.extend_from_slice(&self.version.number().to_be_bytes());
        // Both fit in an i32: the constructors and `from_bytes` enforce it.
        let k = i32::try_from(self.hashes).unwrap_or(i32::MAX);
        out.extend_from_slice(&k.to_be_bytes());
        if let SparkVersion::V2 { seed } = self.version {
            out.extend_from_slice(&seed.to_be_bytes());
        }
        let words = i32::try_from(self.words.len()).unwrap_or(i32::MAX);
        out.extend_from_slice(&words.to_be_bytes());
        for w in &self.words {
            out.extend_from_slice(&w.to_be_bytes());
        }
        out
    }

    /// Loads the bytes of one filter written by Spark's
    /// `BloomFilter.writeTo` (version 1 or 2), or by
    /// [`to_bytes`](Self::to_bytes).
    ///
    /// The bytes must hold exactly one filter: its length is checked against
    /// the word count before anything is allocated.
    ///
    /// ```
    /// use bloom::spark::SparkBloomFilter;
    ///
    /// // Version 1, k = 1, one word with bit 0 set: what Spark writes.
    /// let mut bytes = vec![0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1];
    /// bytes.extend_from_slice(&1u64.to_be_bytes());
    /// let f = SparkBloomFilter::from_bytes(&bytes)?;
    /// assert_eq!((f.bits(), f.hashes(), f.ones()), (64, 1, 1));
    /// assert!(SparkBloomFilter::from_bytes(&bytes[..15]).is_err());
    /// # Ok::<(), bloom::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`], saying which field is wrong, if the bytes are
    /// truncated or longer than the filter they describe, if the version is
    /// neither 1 nor 2, if the word count or k is not positive, or if k
    /// exceeds the bit count.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let mut ints = Ints { rest: bytes };
        let version = match ints.next("version")? {
            1 => SparkVersion::V1,
            // The seed follows k; read in order below.
            2 => SparkVersion::V2 { seed: 0 },
            other => {
                return Err(Error::corrupt(format_args!(
                    "unknown Spark BloomFilter version {other} (versions 1 and 2 exist)"
                )));
            }
        };
        let k = ints.next("number of hash functions")?;
        let version = match version {
            SparkVersion::V2 { .. } => SparkVersion::V2 {
                seed: ints.next("seed")?,
            },
            v1 => v1,
        };
        let words = ints.next("word count")?;
        let words = usize::try_from(words)
            .ok()
            .filter(|&w| (1..=MAX_WORDS).contains(&w))
            .ok_or_else(|| {
                Error::corrupt(format_args!(
                    "Spark BloomFilter word count {words} is not positive"
                ))
            })?;
        let payload = ints.rest;
        // words ≤ i32::MAX, so words · 8 fits in a u64 and, where it does not
        // fit in a usize, cannot match a slice length anyway.
        let expected = words as u64 * 8;
        if payload.len() as u64 != expected {
            return Err(Error::corrupt(format_args!(
                "Spark BloomFilter of {words} words needs {expected} bytes of bits after its \
                 {}-byte header, found {}",
                header_bytes(version),
                payload.len()
            )));
        }
        let bits = words as u64 * 64;
        let hashes = u32::try_from(k)
            .ok()
            .filter(|&k| k >= 1 && u64::from(k) <= bits)
            .ok_or_else(|| {
                Error::corrupt(format_args!(
                    "Spark BloomFilter has {k} hash functions, outside 1..={}",
                    bits.min(MAX_WORDS as u64)
                ))
            })?;
        let words = payload
            .chunks_exact(8)
            .map(|c| u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        Ok(SparkBloomFilter {
            version,
            hashes,
            words,
        })
    }
}
