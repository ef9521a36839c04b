//! The fast paths of `cast_value`: vectorisable loops over hardware types that decide almost
//! every element exactly and leave the rest to the exact element function.

#[cfg(target_arch = "x86_64")]
mod avx512;
mod float_to_float;
mod float_to_int;
mod float_to_int64;
mod int_to_float;
mod int_to_int;

pub(crate) use float_to_float::FloatToFloat;
pub(crate) use float_to_int::FloatToInt;
pub(crate) use float_to_int64::FloatToInt64;
pub(crate) use int_to_float::IntToFloat;
pub(crate) use int_to_int::IntToInt;
