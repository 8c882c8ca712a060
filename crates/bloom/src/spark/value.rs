//! The values Spark's `BloomFilter` hashes, and how each is hashed.
//!
//! Spark hashes two kinds of value: integers, widened to a Java `long`
//! (`putLong`, and `put` of a `Byte`, `Short`, `Integer` or `Long`), and
//! byte strings (`putBinary`, and `putString`, which hashes the string's
//! UTF-8 bytes). So `5i32` and `5i64` are the same key, as in Spark, while
//! `"5"` is another. Unsigned integers have no Java counterpart and are not
//! accepted: whether `u64::MAX` should be Spark's `-1L` is for the caller to
//! say, with `as i64`.

use super::murmur3::{hash_bytes, hash_long};

mod sealed {
    pub trait Sealed {}
}

/// A value that Spark's `BloomFilter` can hold: `i8`, `i16`, `i32` and
/// `i64` (hashed as Spark's `long`), `str` and `String` (hashed as their
/// UTF-8 bytes), and byte strings (`[u8]`, `[u8; N]`, `Vec<u8>`).
///
/// The trait is sealed: each implementation reproduces one of Spark's
/// `put*` methods bit for bit, and a value hashed any other way would be
/// missed by Spark and by this crate alike.
///
/// ```
/// use bloom::spark::SparkBloomFilter;
///
/// let mut f = SparkBloomFilter::with_fpr(1_000, 0.03)?;
/// f.insert(&7i32);
/// assert!(f.contains(&7i64)); // Spark widens every integer to a long
/// f.insert("café");
/// assert!(f.contains("café".as_bytes())); // a string is its UTF-8 bytes
/// # Ok::<(), bloom::Error>(())
/// ```
pub trait SparkValue: sealed::Sealed {
    /// Spark's 32-bit Murmur3 of the value under `seed`
    /// (`Murmur3_x86_32.hashLong` or `hashUnsafeBytes`).
    fn spark_hash(&self, seed: i32) -> i32;
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl SparkValue for $t {
            #[inline]
            fn spark_hash(&self, seed: i32) -> i32 {
                hash_long(i64::from(*self), seed)
            }
        }
    )*};
}
integers!(i8, i16, i32, i64);

impl sealed::Sealed for [u8] {}
impl SparkValue for [u8] {
    #[inline]
    fn spark_hash(&self, seed: i32) -> i32 {
        hash_bytes(self, seed)
    }
}

impl<const N: usize> sealed::Sealed for [u8; N] {}
impl<const N: usize> SparkValue for [u8; N] {
    #[inline]
    fn spark_hash(&self, seed: i32) -> i32 {
        hash_bytes(self, seed)
    }
}

impl sealed::Sealed for Vec<u8> {}
impl SparkValue for Vec<u8> {
    #[inline]
    fn spark_hash(&self, seed: i32) -> i32 {
        hash_bytes(self, seed)
    }
}

impl sealed::Sealed for str {}
impl SparkValue for str {
    #[inline]
    fn spark_hash(&self, seed: i32) -> i32 {
        hash_bytes(self.as_bytes(), seed)
    }
}

impl sealed::Sealed for String {}
impl SparkValue for String {
    #[inline]
    fn spark_hash(&self, seed: i32) -> i32 {
        hash_bytes(self.as_bytes(), seed)
    }
}

impl<T: SparkValue + ?Sized> sealed::Sealed for &T {}
impl<T: SparkValue + ?Sized> SparkValue for &T {
    #[inline]
    fn spark_hash(&self, seed: i32) -> i32 {
        (**self).spark_hash(seed)
    }
}
