//! The values a Parquet SBBF holds, and the bytes each is hashed as.
//!
//! The specification hashes a value's plain encoding with XXH64, seed 0:
//! the little-endian bytes of an `INT32`, `INT64`, `FLOAT` or `DOUBLE`, the
//! twelve bytes of an `INT96`, the bytes of a `FIXED_LEN_BYTE_ARRAY`, and
//! the bytes of a `BYTE_ARRAY` (a string's UTF-8), without the 4-byte length
//! that plain encoding puts before them in a data page; every writer
//! (parquet-mr, Arrow C++, arrow-rs, Impala) hashes them without it.
//!
//! Integer types narrower than 32 bits, signed or not, are stored as `INT32`,
//! and `UINT_32`/`UINT_64` columns as the same bit patterns in `INT32` and
//! `INT64`, so each Rust integer hashes as the physical value it becomes:
//! `7u8`, `7i16` and `7i32` are one key. Floats hash by their bits, as the
//! writers do: `0.0` and `-0.0` are two keys, and each NaN payload another.

use xxhash_rust::xxh64::xxh64;

mod sealed {
    pub trait Sealed {}
}

/// XXH64 with seed 0 of `value`'s plain encoding: the hash a Parquet SBBF
/// stores for it, which
/// [`ParquetBloomFilter::contains_hash`](super::ParquetBloomFilter::contains_hash)
/// and [`insert_hash`](super::ParquetBloomFilter::insert_hash) take.
///
/// ```
/// // The specification's hash of an empty byte string.
/// assert_eq!(bloom::parquet::hash(""), 0xef46_db37_51d8_e999);
/// assert_eq!(bloom::parquet::hash(&7u8), bloom::parquet::hash(&7i32));
/// ```
#[inline]
pub fn hash<V: ParquetValue + ?Sized>(value: &V) -> u64 {
    value.parquet_hash()
}

/// A value of a Parquet column that an SBBF can hold: the integers (as the
/// physical `INT32` or `INT64` they are stored as), `f32` and `f64`, strings
/// and byte strings (`BYTE_ARRAY`), and fixed-length byte arrays
/// (`[u8; N]`, which covers `INT96` as `[u8; 12]`).
///
/// The trait is sealed: each implementation hashes the bytes the Parquet
/// specification names for its type, and a value hashed any other way would
/// be missed by every Parquet reader.
///
/// ```
/// use bloom::parquet::ParquetBloomFilter;
///
/// let mut f = ParquetBloomFilter::with_fpr(1_000, 0.01)?;
/// f.insert("Zürich");
/// assert!(f.contains("Zürich".as_bytes())); // a string is its UTF-8 bytes
/// f.insert(&2.5f64);
/// assert!(f.contains(&2.5f64));
/// # Ok::<(), bloom::Error>(())
/// ```
pub trait ParquetValue: sealed::Sealed {
    /// XXH64, seed 0, of the value's plain encoding.
    fn parquet_hash(&self) -> u64;
}

macro_rules! int32 {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl ParquetValue for $t {
            #[inline]
            fn parquet_hash(&self) -> u64 {
                // Signed types widen with their sign, unsigned ones with
                // zeros, and u32 keeps its bits: the INT32 a writer stores.
                #[allow(clippy::cast_possible_wrap, clippy::cast_lossless)]
                let physical = *self as i32;
                xxh64(&physical.to_le_bytes(), 0)
            }
        }
    )*};
}
int32!(i8, i16, i32, u8, u16, u32);

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl ParquetValue for $t {
            #[inline]
            fn parquet_hash(&self) -> u64 {
                xxh64(&self.to_le_bytes(), 0)
            }
        }
    )*};
}
plain!(i64, u64, f32, f64);

macro_rules! bytes {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl ParquetValue for $t {
            #[inline]
            fn parquet_hash(&self) -> u64 {
                xxh64(self.as_ref(), 0)
            }
        }
    )*};
}
bytes!([u8], Vec<u8>, str, String);

impl<const N: usize> sealed::Sealed for [u8; N] {}
impl<const N: usize> ParquetValue for [u8; N] {
    #[inline]
    fn parquet_hash(&self) -> u64 {
        xxh64(self, 0)
    }
}

impl<T: ParquetValue + ?Sized> sealed::Sealed for &T {}
impl<T: ParquetValue + ?Sized> ParquetValue for &T {
    #[inline]
    fn parquet_hash(&self) -> u64 {
        (**self).parquet_hash()
    }
}
