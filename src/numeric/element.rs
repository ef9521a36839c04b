//! Element types: how each supported data type sits in `ArrayBytes`.
//!
//! Each data type has a marker type implementing [`Element`], which names the Rust type holding
//! one element ([`Storage`]) and gives exact access to its value. Sub-byte integers and the 4-, 6-
//! and 8-bit floats take one byte per element (zarrs' in-memory layout): int2/int4 as a
//! sign-extended `i8`, uint2/uint4 and the small floats in the low bits of a `u8`.

use std::fmt::Debug;

use super::convert::{OutOfRangeMode, decode, encode};
use super::round::RoundingMode;
use super::value::Value;
use super::{Kind, NumericType};
use crate::error::FaultKind;

/// A Rust type holding one element in native byte order.
pub(crate) trait Storage:
    bytemuck::Pod + PartialEq + Default + Debug + Send + Sync + 'static
{
    /// The bits of the element; signed integers are sign-extended.
    fn to_bits(self) -> u64;
    /// The element with the low bits of `bits`.
    fn from_bits(bits: u64) -> Self;
}

macro_rules! storage_int {
    ($($t:ty => $via:ty),*) => {$(
        impl Storage for $t {
            #[inline]
            #[allow(clippy::cast_sign_loss, clippy::cast_lossless, reason = "bit reinterpretation; which lint applies depends on the type")]
            fn to_bits(self) -> u64 {
                self as $via as u64
            }
            #[inline]
            #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap, reason = "bit truncation; which lint applies depends on the type")]
            fn from_bits(bits: u64) -> Self {
                bits as Self
            }
        }
    )*};
}
storage_int!(i8 => i64, i16 => i64, i32 => i64, i64 => i64, u8 => u64, u16 => u64, u32 => u64, u64 => u64);

impl Storage for f32 {
    #[inline]
    fn to_bits(self) -> u64 {
        u64::from(f32::to_bits(self))
    }
    #[inline]
    #[expect(clippy::cast_possible_truncation, reason = "bit truncation")]
    fn from_bits(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
}

impl Storage for f64 {
    #[inline]
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
    #[inline]
    fn from_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }
}

/// A supported data type, as a type.
pub(crate) trait Element: Send + Sync + Debug + 'static {
    /// The Rust type of one element.
    type Storage: Storage;
    /// The data type.
    const TYPE: NumericType;
    /// The kind of number.
    const KIND: Kind = Self::TYPE.kind();

    /// The exact value of an element.
    #[inline]
    fn value(x: Self::Storage) -> Value {
        decode(Self::KIND, x.to_bits())
    }

    /// The element for `value` by the `cast_value` procedure (exact, else rounded and range
    /// handled).
    ///
    /// # Errors
    /// Returns why no element is acceptable.
    #[inline]
    fn from_value(
        value: Value,
        rounding: RoundingMode,
        out_of_range: Option<OutOfRangeMode>,
    ) -> Result<Self::Storage, FaultKind> {
        encode(value, Self::KIND, rounding, out_of_range).map(Storage::from_bits)
    }
}

macro_rules! elements {
    ($($marker:ident: $storage:ty;)*) => {
        $(
            #[doc = concat!("The `", stringify!($marker), "` element type.")]
            #[derive(Clone, Copy, Debug)]
            pub(crate) struct $marker;
            impl Element for $marker {
                type Storage = $storage;
                const TYPE: NumericType = NumericType::$marker;
            }
        )*

        /// Runs `$body` with the type alias `$E` bound to the element type of `$t`.
        macro_rules! with_element {
            ($t:expr, $E:ident => $body:expr) => {
                match $t {
                    $(NumericType::$marker => {
                        type $E = $crate::numeric::element::$marker;
                        $body
                    })*
                }
            };
        }
        pub(crate) use with_element;
    };
}

elements! {
    Int2: i8;
    Int4: i8;
    Int8: i8;
    Int16: i16;
    Int32: i32;
    Int64: i64;
    UInt2: u8;
    UInt4: u8;
    UInt8: u8;
    UInt16: u16;
    UInt32: u32;
    UInt64: u64;
    Float4E2M1FN: u8;
    Float6E2M3FN: u8;
    Float6E3M2FN: u8;
    Float8E3M4: u8;
    Float8E4M3: u8;
    Float8E4M3B11FNUZ: u8;
    Float8E4M3FNUZ: u8;
    Float8E5M2: u8;
    Float8E5M2FNUZ: u8;
    Float8E8M0FNU: u8;
    BFloat16: u16;
    Float16: u16;
    Float32: f32;
    Float64: f64;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_width_matches_the_data_type_size() {
        for &t in NumericType::ALL {
            let size = with_element!(t, E => size_of::<<E as Element>::Storage>());
            assert_eq!(size, t.size(), "{t}");
        }
    }

    #[test]
    fn sub_byte_elements_read_only_their_low_bits() {
        // int4 0xF8 is -8; garbage in the upper bits of an int4 byte is ignored.
        assert_eq!(Int4::value(-8), Value::from_i64(-8));
        assert_eq!(Int4::value(0x18), Value::from_i64(-8));
        assert_eq!(UInt2::value(0xff), Value::from_u64(3));
        assert_eq!(Float4E2M1FN::value(0xf2), Value::from_f64(1.0));
        assert_eq!(
            Int4::from_value(Value::from_i64(-8), RoundingMode::NearestEven, None),
            Ok(-8)
        );
    }
}
