//! What several test files share: a macro that runs a test body once per
//! filter type.

/// Runs `$body` once for each of the four filter types, bound to `$ty`.
macro_rules! for_each_type {
    ($ty:ident => $body:block) => {{
        {
            type $ty = xor_filter::Xor8;
            $body
        }
        {
            type $ty = xor_filter::Xor16;
            $body
        }
        {
            type $ty = xor_filter::BinaryFuse8;
            $body
        }
        {
            type $ty = xor_filter::BinaryFuse16;
            $body
        }
    }};
}

pub(crate) use for_each_type;
