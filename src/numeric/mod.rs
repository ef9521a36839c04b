//! The numeric element model: which zarrs data types are real numbers, their widths, bounds and
//! formats, how their elements sit in bytes, and their exact values.

mod convert;
mod family;
pub(crate) mod fault;
pub(crate) mod float_format;
mod hw_float;
mod round;
mod scalar;
mod storage;
mod value;

pub(crate) use convert::{OutOfRangeMode, decode, encode, exact_f64};
pub(crate) use family::{Bits, FloatInput, IntStorage, MapInput, Wrap};
pub(crate) use float_format::FloatFormat;
pub(crate) use hw_float::{HwFloat, round_to_integral, round_to_integral_directed};
pub(crate) use round::{Directed, RoundingMode};
pub(crate) use scalar::{check_scalar_syntax, parse_scalar};
pub(crate) use storage::{Storage, element_bits, write_element_bits};
pub(crate) use value::Value;

use zarrs::array::DataType;
use zarrs::array::data_type as dt;

/// `2^exponent`, exactly, for the exponents of normal float64 values (`f64::powi` promises no
/// precision, and Miri gives it none).
pub(crate) const fn pow2(exponent: i32) -> f64 {
    assert!(-1022 <= exponent && exponent <= 1023, "a normal float64");
    #[expect(clippy::cast_sign_loss, reason = "the biased exponent, 1 to 2046")]
    f64::from_bits(((exponent + 1023) as u64) << 52)
}

/// Signed or unsigned two's complement integers of `bits` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntFormat {
    /// The number of value bits.
    pub(crate) bits: u32,
    /// Whether negative values exist.
    pub(crate) signed: bool,
}

impl IntFormat {
    /// The smallest value.
    pub(crate) const fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    /// The largest value.
    pub(crate) const fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }
}

/// What kind of number a data type holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A two's complement integer.
    Int(IntFormat),
    /// A binary floating-point number.
    Float(FloatFormat),
}

macro_rules! numeric_types {
    ($($variant:ident => $name:literal, $marker:ident, $factory:ident, $size:literal, $kind:expr;)*) => {
        /// The data types the codecs support: every real-number data type of zarrs.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub(crate) enum NumericType {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl NumericType {
            /// Every supported type.
            #[cfg(test)]
            pub(crate) const ALL: &[Self] = &[$(Self::$variant),*];

            /// The numeric type of a zarrs data type, if it is one of the supported types.
            pub(crate) fn from_data_type(data_type: &DataType) -> Option<Self> {
                $(
                    if data_type.is::<dt::$marker>() {
                        return Some(Self::$variant);
                    }
                )*
                None
            }

            /// The zarrs data type.
            #[cfg(test)]
            pub(crate) fn data_type(self) -> DataType {
                match self {
                    $(Self::$variant => dt::$factory(),)*
                }
            }

            /// The Zarr V3 name.
            pub(crate) const fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)*
                }
            }

            /// The number of bytes of one element in `ArrayBytes`.
            pub(crate) const fn size(self) -> usize {
                match self {
                    $(Self::$variant => $size,)*
                }
            }

            /// The kind of number.
            pub(crate) const fn kind(self) -> Kind {
                match self {
                    $(Self::$variant => $kind,)*
                }
            }
        }
    };
}

const fn int(bits: u32, signed: bool) -> Kind {
    Kind::Int(IntFormat { bits, signed })
}

numeric_types! {
    Int2 => "int2", Int2DataType, int2, 1, int(2, true);
    Int4 => "int4", Int4DataType, int4, 1, int(4, true);
    Int8 => "int8", Int8DataType, int8, 1, int(8, true);
    Int16 => "int16", Int16DataType, int16, 2, int(16, true);
    Int32 => "int32", Int32DataType, int32, 4, int(32, true);
    Int64 => "int64", Int64DataType, int64, 8, int(64, true);
    UInt2 => "uint2", UInt2DataType, uint2, 1, int(2, false);
    UInt4 => "uint4", UInt4DataType, uint4, 1, int(4, false);
    UInt8 => "uint8", UInt8DataType, uint8, 1, int(8, false);
    UInt16 => "uint16", UInt16DataType, uint16, 2, int(16, false);
    UInt32 => "uint32", UInt32DataType, uint32, 4, int(32, false);
    UInt64 => "uint64", UInt64DataType, uint64, 8, int(64, false);
    Float4E2M1FN => "float4_e2m1fn", Float4E2M1FNDataType, float4_e2m1fn, 1, Kind::Float(FloatFormat::FLOAT4_E2M1FN);
    Float6E2M3FN => "float6_e2m3fn", Float6E2M3FNDataType, float6_e2m3fn, 1, Kind::Float(FloatFormat::FLOAT6_E2M3FN);
    Float6E3M2FN => "float6_e3m2fn", Float6E3M2FNDataType, float6_e3m2fn, 1, Kind::Float(FloatFormat::FLOAT6_E3M2FN);
    Float8E3M4 => "float8_e3m4", Float8E3M4DataType, float8_e3m4, 1, Kind::Float(FloatFormat::FLOAT8_E3M4);
    Float8E4M3 => "float8_e4m3", Float8E4M3DataType, float8_e4m3, 1, Kind::Float(FloatFormat::FLOAT8_E4M3);
    Float8E4M3B11FNUZ => "float8_e4m3b11fnuz", Float8E4M3B11FNUZDataType, float8_e4m3b11fnuz, 1, Kind::Float(FloatFormat::FLOAT8_E4M3B11FNUZ);
    Float8E4M3FNUZ => "float8_e4m3fnuz", Float8E4M3FNUZDataType, float8_e4m3fnuz, 1, Kind::Float(FloatFormat::FLOAT8_E4M3FNUZ);
    Float8E5M2 => "float8_e5m2", Float8E5M2DataType, float8_e5m2, 1, Kind::Float(FloatFormat::FLOAT8_E5M2);
    Float8E5M2FNUZ => "float8_e5m2fnuz", Float8E5M2FNUZDataType, float8_e5m2fnuz, 1, Kind::Float(FloatFormat::FLOAT8_E5M2FNUZ);
    Float8E8M0FNU => "float8_e8m0fnu", Float8E8M0FNUDataType, float8_e8m0fnu, 1, Kind::Float(FloatFormat::FLOAT8_E8M0FNU);
    BFloat16 => "bfloat16", BFloat16DataType, bfloat16, 2, Kind::Float(FloatFormat::BFLOAT16);
    Float16 => "float16", Float16DataType, float16, 2, Kind::Float(FloatFormat::FLOAT16);
    Float32 => "float32", Float32DataType, float32, 4, Kind::Float(FloatFormat::FLOAT32);
    Float64 => "float64", Float64DataType, float64, 8, Kind::Float(FloatFormat::FLOAT64);
}

impl NumericType {
    /// Whether the type is an integer type.
    pub(crate) const fn is_integer(self) -> bool {
        matches!(self.kind(), Kind::Int(_))
    }

    /// The number of value bits of an element (2 for `int2`, 6 for `float6_e2m3fn`, 64 for `float64`).
    pub(crate) const fn bits(self) -> u32 {
        match self.kind() {
            Kind::Int(format) => format.bits,
            Kind::Float(format) => format.total_bits(),
        }
    }

    /// The encoding an element's bits stand for with its spare bits ignored, as the data types'
    /// specifications say the `bytes` codec ignores them: the value bits, sign-extended for int2
    /// and int4 (as zarrs holds them). Types that fill their bytes are unchanged.
    #[expect(clippy::cast_possible_truncation, reason = "sizes are at most 8")]
    pub(crate) const fn canonical(self, bits: u64) -> u64 {
        let width = 8 * self.size() as u32;
        let value_bits = self.bits();
        if value_bits >= width {
            return bits;
        }
        let low = bits & ((1u64 << value_bits) - 1);
        let spare = ((1u64 << width) - 1) & !((1u64 << value_bits) - 1);
        match self.kind() {
            Kind::Int(IntFormat { signed: true, .. }) if (low >> (value_bits - 1)) & 1 == 1 => {
                low | spare
            }
            _ => low,
        }
    }

    /// Whether the `size()` bytes of an element with these bits are an encoding of the type:
    /// types narrower than their byte must leave the spare bits clear (sign-extended for int2
    /// and int4, as zarrs holds them), that is, be their own [`Self::canonical`] form.
    #[expect(clippy::cast_possible_truncation, reason = "sizes are at most 8")]
    pub(crate) const fn is_encoding(self, bits: u64) -> bool {
        let width = 8 * self.size() as u32;
        self.bits() >= width || self.canonical(bits) == bits & ((1u64 << width) - 1)
    }
}

impl std::fmt::Display for NumericType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The numeric type of a data type, or `None` for anything the codecs do not support (also
/// optional data types, whose elements carry a validity mask).
pub(crate) fn numeric_type(data_type: &DataType) -> Option<NumericType> {
    if data_type.is_optional() {
        None
    } else {
        NumericType::from_data_type(data_type)
    }
}

/// The smallest and largest finite values of `t`.
pub(crate) fn finite_range(t: NumericType) -> (Value, Value) {
    match t.kind() {
        Kind::Int(format) => {
            let value = |x: i128| {
                if x < 0 {
                    Value::from_i64(i64::try_from(x).expect("64 bits"))
                } else {
                    Value::from_u64(u64::try_from(x).expect("64 bits"))
                }
            };
            (value(format.min()), value(format.max()))
        }
        Kind::Float(format) => {
            let (significand, exponent) = format.max_finite();
            let max = Value::Finite {
                negative: false,
                significand,
                exponent,
            };
            let min = if format.is_signed() {
                Value::Finite {
                    negative: true,
                    significand,
                    exponent,
                }
            } else {
                smallest_positive(format)
            };
            (min, max)
        }
    }
}

/// The smallest positive value of an unsigned float format.
fn smallest_positive(format: FloatFormat) -> Value {
    (0..=u64::MAX)
        .map(|bits| format.decode(bits))
        .find(|v| matches!(v, Value::Finite { significand, .. } if *significand != 0))
        .expect("a positive value")
}

/// Every rounding mode.
#[cfg(test)]
pub(crate) const ROUNDINGS: [RoundingMode; 5] = [
    RoundingMode::NearestEven,
    RoundingMode::NearestAway,
    RoundingMode::TowardsZero,
    RoundingMode::TowardsPositive,
    RoundingMode::TowardsNegative,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[expect(clippy::float_cmp, reason = "exact values")]
    fn powers_of_two_are_exact_from_the_least_to_the_largest_normal_exponent() {
        assert_eq!(pow2(0), 1.0);
        assert_eq!(pow2(-1022), f64::MIN_POSITIVE);
        assert_eq!(pow2(1023), f64::MAX / (2.0 - f64::EPSILON));
        for exponent in -1022..1023 {
            assert_eq!(pow2(exponent + 1), 2.0 * pow2(exponent), "2^{exponent}");
        }
    }

    #[test]
    fn every_type_round_trips_through_its_zarrs_data_type() {
        assert_eq!(NumericType::ALL.len(), 26);
        for &t in NumericType::ALL {
            let data_type = t.data_type();
            assert_eq!(NumericType::from_data_type(&data_type), Some(t));
            assert_eq!(data_type.name_v3().as_deref(), Some(t.name()));
            assert_eq!(data_type.fixed_size(), Some(t.size()));
        }
    }

    #[test]
    fn non_numeric_types_are_not_supported() {
        for data_type in [
            dt::bool(),
            dt::complex64(),
            dt::string(),
            dt::bytes(),
            dt::raw_bits(2),
            dt::optional(dt::float32()),
        ] {
            assert_eq!(numeric_type(&data_type), None, "{data_type}");
        }
    }

    #[test]
    fn only_bytes_with_clear_or_sign_extended_spare_bits_are_encodings() {
        let valid = |t: NumericType| (0..=255u64).filter(|&b| t.is_encoding(b)).count();
        assert_eq!(valid(NumericType::Int4), 16);
        assert!(NumericType::Int4.is_encoding(0xf8) && !NumericType::Int4.is_encoding(100));
        assert!(!NumericType::Int4.is_encoding(0x08));
        assert_eq!(valid(NumericType::Int2), 4);
        assert_eq!(valid(NumericType::UInt4), 16);
        assert_eq!(valid(NumericType::Float6E2M3FN), 64);
        assert_eq!(valid(NumericType::Float4E2M1FN), 16);
        assert_eq!(valid(NumericType::Int8), 256);
        assert_eq!(valid(NumericType::Float8E8M0FNU), 256);
        // Each byte stands for the encoding of its value bits, and encodings for themselves.
        for t in [
            NumericType::Int2,
            NumericType::Int4,
            NumericType::UInt2,
            NumericType::UInt4,
            NumericType::Float4E2M1FN,
            NumericType::Float6E3M2FN,
            NumericType::Int8,
        ] {
            for byte in 0..=255u64 {
                let canonical = t.canonical(byte);
                assert!(t.is_encoding(canonical), "{t} {byte:#x}");
                assert_eq!(
                    canonical & ((1 << t.bits()) - 1),
                    byte & ((1 << t.bits()) - 1)
                );
                if t.is_encoding(byte) {
                    assert_eq!(canonical, byte, "{t} {byte:#x}");
                }
            }
        }
        assert_eq!(NumericType::Int4.canonical(0x0f), 0xff);
        assert_eq!(NumericType::Int4.canonical(0x64), 0x04);
        assert_eq!(NumericType::UInt2.canonical(0xfe), 0x02);
    }
}
