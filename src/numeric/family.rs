//! Families of element types that the fast kernels are generic over.

use num_traits::{AsPrimitive, CheckedRem, PrimInt};

use super::element::{
    BFloat16, Float16, Float32, Float64, Int2, Int4, Int8, Int16, Int32, Int64, UInt2, UInt4,
    UInt8, UInt16, UInt32, UInt64,
};
use super::{Element, HwFloat, IntFormat, Kind, Storage};

/// The storage of an integer element: a primitive integer that converts to every primitive.
pub(crate) trait IntStorage:
    Storage
    + PrimInt
    + CheckedRem
    + AsPrimitive<i8>
    + AsPrimitive<i16>
    + AsPrimitive<i32>
    + AsPrimitive<i64>
    + AsPrimitive<u8>
    + AsPrimitive<u16>
    + AsPrimitive<u32>
    + AsPrimitive<u64>
    + AsPrimitive<f32>
    + AsPrimitive<f64>
{
}

impl IntStorage for i8 {}
impl IntStorage for i16 {}
impl IntStorage for i32 {}
impl IntStorage for i64 {}
impl IntStorage for u8 {}
impl IntStorage for u16 {}
impl IntStorage for u32 {}
impl IntStorage for u64 {}

/// Integer data types, including the sub-byte ones.
pub(crate) trait IntElement: Element<Storage: IntStorage> {
    /// Bits and signedness.
    const FORMAT: IntFormat = match Self::KIND {
        Kind::Int(format) => format,
        Kind::Float(_) => panic!("not an integer type"),
    };

    /// `v` modulo `2^bits`, as two's complement: the low bits, sign-extended for signed types.
    #[inline]
    #[expect(clippy::cast_sign_loss, reason = "two's complement")]
    fn wrap(v: i64) -> Self::Storage {
        let unused = 64 - Self::FORMAT.bits;
        let low = if Self::FORMAT.signed {
            ((v << unused) >> unused) as u64
        } else {
            ((v as u64) << unused) >> unused
        };
        Self::Storage::from_bits(low)
    }

    /// The largest storage value not above `x` (`x` at least the type's minimum).
    fn from_i128_clamped(x: i128) -> Self::Storage {
        let x = x.clamp(Self::FORMAT.min(), Self::FORMAT.max());
        Self::Storage::from_bits(super::convert::twos_complement_bits(x))
    }
}

macro_rules! int_elements {
    ($($t:ident),*) => {$(impl IntElement for $t {})*};
}
int_elements!(
    Int2, Int4, Int8, Int16, Int32, Int64, UInt2, UInt4, UInt8, UInt16, UInt32, UInt64
);

/// Float data types of at least 16 bits, computed in a hardware float that holds every value.
pub(crate) trait FloatElement: Element {
    /// f32 or f64.
    type Wide: HwFloat;
    /// The exact value in the wider float.
    fn widen(x: Self::Storage) -> Self::Wide;
}

impl FloatElement for Float16 {
    type Wide = f32;
    #[inline]
    fn widen(x: u16) -> f32 {
        half::f16::from_bits(x).to_f32()
    }
}

impl FloatElement for BFloat16 {
    type Wide = f32;
    #[inline]
    fn widen(x: u16) -> f32 {
        // bfloat16 is the upper half of a float32.
        f32::from_bits(u32::from(x) << 16)
    }
}

impl FloatElement for Float32 {
    type Wide = f32;
    #[inline]
    fn widen(x: f32) -> f32 {
        x
    }
}

impl FloatElement for Float64 {
    type Wide = f64;
    #[inline]
    fn widen(x: f64) -> f64 {
        x
    }
}

/// Data types whose elements a kernel reads as input (other than through a lookup table), with
/// the number that `scalar_map` keys are compared as: numeric equality, -0 equal to +0.
pub(crate) trait MapInput: Element {
    /// The comparable number.
    type Key: Copy + PartialEq + Send + Sync + std::fmt::Debug + 'static;
    /// The number of an element.
    fn key(x: Self::Storage) -> Self::Key;
    /// Whether the number is NaN.
    #[expect(clippy::eq_op, reason = "NaN test")]
    #[inline]
    fn key_is_nan(k: Self::Key) -> bool {
        k != k
    }
}

macro_rules! int_map_inputs {
    ($($t:ident),*) => {$(
        impl MapInput for $t {
            type Key = <$t as Element>::Storage;
            #[inline]
            fn key(x: Self::Storage) -> Self::Key {
                x
            }
        }
    )*};
}
int_map_inputs!(Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64);

macro_rules! float_map_inputs {
    ($($t:ident),*) => {$(
        impl MapInput for $t {
            type Key = <$t as FloatElement>::Wide;
            #[inline]
            fn key(x: Self::Storage) -> Self::Key {
                <$t as FloatElement>::widen(x)
            }
        }
    )*};
}
float_map_inputs!(Float16, BFloat16, Float32, Float64);
