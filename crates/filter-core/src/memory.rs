//! Fallible allocation of filter tables.

use crate::Error;

/// A vector of `len` default (zero) values, or an error instead of an
/// out-of-memory abort.
///
/// Sizing functions already refuse absurd sizes; this catches the sizes that
/// pass those checks but do not fit in this machine's memory, so that
/// `with_bits(huge, ..)` is an `Err` that names `parameter`, never an abort.
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `parameter` when the allocation fails
/// or its byte size overflows.
pub fn zeroed_vec<T: Copy + Default>(len: usize, parameter: &'static str) -> Result<Vec<T>, Error> {
    let mut table: Vec<T> = Vec::new();
    let fail = || {
        Error::invalid(
            parameter,
            len,
            format_args!(
                "small enough to allocate ({} elements of {} bytes could not be allocated)",
                len,
                size_of::<T>()
            ),
        )
    };
    len.checked_mul(size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(fail)?;
    table.try_reserve_exact(len).map_err(|_| fail())?;
    table.resize(len, T::default());
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tables_are_zeroed() {
        let v: Vec<u64> = zeroed_vec(100, "words").unwrap();
        assert_eq!(v, vec![0; 100]);
    }

    #[test]
    fn impossible_tables_are_errors() {
        let err = zeroed_vec::<u64>(usize::MAX / 4, "words").unwrap_err();
        assert!(
            matches!(err, Error::InvalidParameter { name: "words", .. }),
            "{err}"
        );
        // Past `isize::MAX` bytes on 64- and 32-bit targets alike.
        assert!(zeroed_vec::<u64>(usize::MAX >> 3, "words").is_err());
    }
}
