//! JSON scalars (Zarr V3 fill-value encoding) read as elements of a data type.
//!
//! `offset`, `scale` and `scalar_map` entries are written in the fill-value encoding of a data
//! type that the codec learns only when it is bound. They are read here by value:
//! - a JSON number is the number it spells: integer types take integral numbers in range (also
//!   written as `2.0`), float types round it to nearest-even directly from the exact integer or
//!   float64 (never through a narrower float);
//! - `"NaN"`, `"Infinity"`, `"-Infinity"` and hex strings of the exact encoding width are read by
//!   zarrs for the standard floats, and here for the 4-, 6- and 8-bit floats, whose zarrs parsing
//!   depends on its `microfloat` cargo feature (raw bits without it, values with it).

use zarrs::array::FillValueMetadata;

use super::convert::encode;
use super::value::Value;
use super::{Kind, NumericType, RoundingMode};
use crate::error::FaultKind;

/// Why a JSON scalar is not a value of a data type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ScalarError {
    /// Not a JSON number or a recognised string.
    #[error(
        "expected a JSON number, \"NaN\", \"Infinity\", \"-Infinity\" or a hex string of the encoding"
    )]
    NotAScalar,
    /// A string for an integer type.
    #[error("integer values are written as JSON numbers")]
    StringForInteger,
    /// A number with a fraction for an integer type.
    #[error("not an integer")]
    NotAnInteger,
    /// Outside the finite range of the data type.
    #[error("outside the range of the data type")]
    OutOfRange,
    /// NaN for a type without NaN.
    #[error("the data type has no NaN")]
    NoNan,
    /// An infinity for a type without infinities.
    #[error("the data type has no infinities")]
    NoInfinity,
    /// A hex string of the wrong width or with bits outside the encoding.
    #[error("a hex string must spell exactly the {0} bits of the encoding")]
    BadHex(u32),
}

/// Reads a JSON scalar as an element of `data_type`, returning its bits (see
/// [`Storage::to_bits`](super::Storage::to_bits)).
///
/// With `plus_infinity`, `"+Infinity"` is read as `"Infinity"` (the `cast_value` specification
/// spells it so in an example).
///
/// # Errors
/// Returns a [`ScalarError`] if the scalar is not a value of the data type.
pub(crate) fn parse_scalar(
    data_type: NumericType,
    json: &FillValueMetadata,
    plus_infinity: bool,
) -> Result<u64, ScalarError> {
    match json {
        FillValueMetadata::Number(number) => parse_number(data_type, number),
        FillValueMetadata::String(string) => {
            let string = match string.as_str() {
                "+Infinity" if plus_infinity => "Infinity",
                s => s,
            };
            parse_string(data_type, string)
        }
        _ => Err(ScalarError::NotAScalar),
    }
}

/// Checks that a JSON scalar can be a value of some data type (a number, `"NaN"`, an infinity or a
/// hex string), for scalars whose data type is not known yet.
///
/// # Errors
/// Returns [`ScalarError::NotAScalar`] otherwise.
pub(crate) fn check_scalar_syntax(
    json: &FillValueMetadata,
    plus_infinity: bool,
) -> Result<(), ScalarError> {
    let is_hex = |s: &str| {
        s.strip_prefix("0x").is_some_and(|hex| {
            !hex.is_empty() && hex.len() % 2 == 0 && hex.chars().all(|c| c.is_ascii_hexdigit())
        })
    };
    match json {
        FillValueMetadata::Number(_) => Ok(()),
        FillValueMetadata::String(s) => match s.as_str() {
            "NaN" | "Infinity" | "-Infinity" => Ok(()),
            "+Infinity" if plus_infinity => Ok(()),
            s if is_hex(s) => Ok(()),
            _ => Err(ScalarError::NotAScalar),
        },
        _ => Err(ScalarError::NotAScalar),
    }
}

fn parse_number(data_type: NumericType, number: &serde_json::Number) -> Result<u64, ScalarError> {
    let value = if let Some(u) = number.as_u64() {
        Value::from_u64(u)
    } else if let Some(i) = number.as_i64() {
        Value::from_i64(i)
    } else {
        match number.as_f64() {
            Some(x) if x.is_finite() => Value::from_f64(x),
            _ => return Err(ScalarError::OutOfRange),
        }
    };
    if data_type.is_integer()
        && let Value::Finite { exponent, .. } = value.normalized()
        && exponent < 0
    {
        return Err(ScalarError::NotAnInteger);
    }
    encode(value, data_type.kind(), RoundingMode::NearestEven, None).map_err(|fault| match fault {
        FaultKind::NanNotRepresentable => ScalarError::NoNan,
        FaultKind::InfinityNotRepresentable => ScalarError::NoInfinity,
        FaultKind::OutOfRange | FaultKind::NotExact => ScalarError::OutOfRange,
    })
}

fn parse_string(data_type: NumericType, string: &str) -> Result<u64, ScalarError> {
    let format = match data_type.kind() {
        Kind::Int(_) => {
            return Err(match string {
                "NaN" => ScalarError::NoNan,
                "Infinity" | "-Infinity" => ScalarError::NoInfinity,
                _ => ScalarError::StringForInteger,
            });
        }
        Kind::Float(format) => format,
    };
    match data_type {
        NumericType::Float16
        | NumericType::BFloat16
        | NumericType::Float32
        | NumericType::Float64 => {
            let json = FillValueMetadata::String(string.to_string());
            let fill_value =
                data_type.data_type().fill_value_v3(&json).map_err(|_| {
                    match string.strip_prefix("0x") {
                        Some(_) => ScalarError::BadHex(format.total_bits()),
                        None => ScalarError::NotAScalar,
                    }
                })?;
            let mut bytes = [0u8; 8];
            bytes[..data_type.size()].copy_from_slice(fill_value.as_ne_bytes());
            Ok(match data_type.size() {
                2 => u64::from(u16::from_ne_bytes([bytes[0], bytes[1]])),
                4 => u64::from(u32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
                _ => u64::from_ne_bytes(bytes),
            })
        }
        _ => match string {
            "NaN" => format.nan_bits().ok_or(ScalarError::NoNan),
            "Infinity" => format.infinity_bits(false).ok_or(ScalarError::NoInfinity),
            "-Infinity" => format.infinity_bits(true).ok_or(ScalarError::NoInfinity),
            _ => {
                let hex = string.strip_prefix("0x").ok_or(ScalarError::NotAScalar)?;
                let bits = u8::from_str_radix(hex, 16)
                    .ok()
                    .filter(|_| hex.len() == 2)
                    .ok_or(ScalarError::BadHex(format.total_bits()))?;
                if u32::from(bits) >> format.total_bits() != 0 {
                    return Err(ScalarError::BadHex(format.total_bits()));
                }
                Ok(u64::from(bits))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::decode;

    fn parse(t: NumericType, json: &str) -> Result<Value, ScalarError> {
        let json: FillValueMetadata = serde_json::from_str(json).unwrap();
        parse_scalar(t, &json, true).map(|bits| decode(t.kind(), bits))
    }

    #[test]
    fn integers_accept_integral_numbers_in_range_only() {
        assert_eq!(parse(NumericType::Int64, "2.0"), Ok(Value::from_i64(2)));
        assert_eq!(
            parse(NumericType::Int64, "-9223372036854775808"),
            Ok(Value::from_i64(i64::MIN))
        );
        assert_eq!(
            parse(NumericType::UInt64, "18446744073709551615"),
            Ok(Value::from_u64(u64::MAX))
        );
        assert_eq!(
            parse(NumericType::Int8, "1.5"),
            Err(ScalarError::NotAnInteger)
        );
        assert_eq!(
            parse(NumericType::Int8, "128"),
            Err(ScalarError::OutOfRange)
        );
        assert_eq!(
            parse(NumericType::UInt8, "-1"),
            Err(ScalarError::OutOfRange)
        );
        assert_eq!(parse(NumericType::Int4, "-8"), Ok(Value::from_i64(-8)));
        assert_eq!(
            parse(NumericType::Int32, "\"5\""),
            Err(ScalarError::StringForInteger)
        );
        assert_eq!(
            parse(NumericType::Int16, "\"NaN\""),
            Err(ScalarError::NoNan)
        );
        assert_eq!(
            parse(NumericType::Int32, "true"),
            Err(ScalarError::NotAScalar)
        );
        assert_eq!(
            parse(NumericType::Int32, "[1, 2]"),
            Err(ScalarError::NotAScalar)
        );
    }

    #[test]
    fn floats_round_numbers_once_to_nearest_even() {
        // 1 + 2^-11 + 2^-40 lies just above the float16 tie 1 + 2^-11: nearest is 1 + 2^-10.
        assert_eq!(
            parse(NumericType::Float16, "1.0004882821813226"),
            Ok(Value::from_f64(1.000_976_562_5))
        );
        // The same for bfloat16 at 1 + 2^-8 + 2^-40.
        assert_eq!(
            parse(NumericType::BFloat16, "1.0039062500009095"),
            Ok(Value::from_f64(1.007_812_5))
        );
        // 2^53 + 1 as an integer rounds to 2^53 in float64; in float32 directly from the integer.
        assert_eq!(
            parse(NumericType::Float64, "9007199254740993"),
            Ok(Value::from_u64(1 << 53))
        );
        assert_eq!(
            parse(NumericType::Float32, "0.1"),
            Ok(Value::from_f64(f64::from(0.1f32)))
        );
        assert_eq!(
            parse(NumericType::Float32, "1e300"),
            Err(ScalarError::OutOfRange)
        );
        assert_eq!(
            parse(NumericType::Float8E4M3, "1"),
            Ok(Value::from_f64(1.0))
        );
        assert_eq!(
            parse(NumericType::Float8E8M0FNU, "0"),
            Err(ScalarError::OutOfRange)
        );
    }

    #[test]
    fn float_strings_are_nan_infinity_or_hex() {
        assert_eq!(
            parse(NumericType::Float64, "\"0x7ff8000000000001\""),
            Ok(Value::Nan)
        );
        assert_eq!(
            parse(NumericType::Float32, "\"0x3f800000\""),
            Ok(Value::from_f64(1.0))
        );
        assert_eq!(
            parse(NumericType::Float32, "\"0x3f80\""),
            Err(ScalarError::BadHex(32))
        );
        assert_eq!(
            parse(NumericType::Float16, "\"+Infinity\""),
            Ok(Value::Infinity { negative: false })
        );
        assert_eq!(
            parse(NumericType::Float8E5M2, "\"-Infinity\""),
            Ok(Value::Infinity { negative: true })
        );
        assert_eq!(
            parse(NumericType::Float8E4M3FNUZ, "\"Infinity\""),
            Err(ScalarError::NoInfinity)
        );
        assert_eq!(
            parse(NumericType::Float4E2M1FN, "\"NaN\""),
            Err(ScalarError::NoNan)
        );
        assert_eq!(
            parse(NumericType::Float8E4M3, "\"0x38\""),
            Ok(Value::from_f64(1.0))
        );
        assert_eq!(
            parse(NumericType::Float4E2M1FN, "\"0x12\""),
            Err(ScalarError::BadHex(4))
        );
        assert_eq!(
            parse(NumericType::Float64, "\"5\""),
            Err(ScalarError::NotAScalar)
        );
    }
}
