//! JSON scalars (Zarr V3 fill-value encoding) read as elements of a data type.
//!
//! `offset`, `scale` and `scalar_map` entries are written in the fill-value encoding of a data
//! type that the codec learns only when it is bound. They are read here by value, strictly by the
//! Zarr V3 fill-value grammar of that type:
//! - a JSON number is the number it spells: integer types take integral numbers in range (also
//!   written as `2.0`, but a number that JSON parsing gives as a float must be below 2^53 in
//!   magnitude, where it is exact: `-9223372036854775809` is not -2^63); float types round it to
//!   nearest-even directly from the exact integer or float64 (never through a narrower float);
//! - float types also take `"NaN"`, `"Infinity"`, `"-Infinity"` where the type has them, and
//!   `"0x"` followed by exactly two hex digits per byte of the element (no sign, no spaces), with
//!   no bit set outside the encoding. This is read here for every float type, independently of
//!   zarrs' lenient parser and of its `microfloat` cargo feature.

use zarrs::array::FillValueMetadata;

use super::convert::encode;
use super::value::Value;
use super::{Kind, NumericType, RoundingMode};
use crate::numeric::fault::FaultKind;

/// Float-valued JSON numbers are exact integers below this magnitude.
const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Why a JSON scalar is not a value of a data type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ScalarError {
    /// Not a JSON number or a recognised string.
    #[error(
        "expected a JSON number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" and the hex digits of the encoding"
    )]
    NotAScalar,
    /// A string for an integer type.
    #[error("integer values are written as JSON numbers")]
    StringForInteger,
    /// A number with a fraction for an integer type.
    #[error("not an integer")]
    NotAnInteger,
    /// A float-valued number too large to be an exact integer.
    #[error(
        "not exactly an integer: JSON numbers read as floats are exact only below 2^53 in magnitude; write the integer itself"
    )]
    InexactInteger,
    /// Outside the finite range of the data type.
    #[error("outside the range of the data type")]
    OutOfRange,
    /// NaN for a type without NaN.
    #[error("the data type has no NaN")]
    NoNan,
    /// An infinity for a type without infinities.
    #[error("the data type has no infinities")]
    NoInfinity,
    /// A hex string of the wrong form or width, or with bits outside the encoding.
    #[error(
        "a hex string must be \"0x\" followed by exactly {digits} hex digits, with no bit above the {bits} bits of the encoding"
    )]
    BadHex {
        /// The number of hex digits of the type.
        digits: usize,
        /// The bits of the encoding.
        bits: u32,
    },
}

/// Reads a JSON scalar as an element of `data_type`, returning its bits (see
/// [`Storage::to_bits`](super::Storage::to_bits); integers sign-extended).
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

/// The hex digits of a `"0x..."` string, if it is one: only hex digits, an even number of them.
fn hex_digits(s: &str) -> Option<&str> {
    s.strip_prefix("0x").filter(|hex| {
        !hex.is_empty() && hex.len() % 2 == 0 && hex.bytes().all(|c| c.is_ascii_hexdigit())
    })
}

/// Checks that a JSON scalar can be a value of some data type (a number, `"NaN"`, an infinity or a
/// hex string of 1, 2, 4 or 8 bytes), for scalars whose data type is not known yet.
///
/// # Errors
/// Returns [`ScalarError::NotAScalar`] otherwise.
pub(crate) fn check_scalar_syntax(
    json: &FillValueMetadata,
    plus_infinity: bool,
) -> Result<(), ScalarError> {
    match json {
        FillValueMetadata::Number(number) if number.as_f64().is_some_and(f64::is_finite) => Ok(()),
        FillValueMetadata::String(s) => match s.as_str() {
            "NaN" | "Infinity" | "-Infinity" => Ok(()),
            "+Infinity" if plus_infinity => Ok(()),
            s if hex_digits(s).is_some_and(|hex| matches!(hex.len(), 2 | 4 | 8 | 16)) => Ok(()),
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
            Some(x) if x.is_finite() => {
                if data_type.is_integer() && x.abs() >= EXACT_INTEGER_LIMIT {
                    return Err(ScalarError::InexactInteger);
                }
                Value::from_f64(x)
            }
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
        FaultKind::OutOfRange | FaultKind::NotExact | FaultKind::InvalidEncoding => {
            ScalarError::OutOfRange
        }
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
    match string {
        "NaN" => format.nan_bits().ok_or(ScalarError::NoNan),
        "Infinity" => format.infinity_bits(false).ok_or(ScalarError::NoInfinity),
        "-Infinity" => format.infinity_bits(true).ok_or(ScalarError::NoInfinity),
        _ => {
            let digits = 2 * data_type.size();
            let bad = ScalarError::BadHex {
                digits,
                bits: format.total_bits(),
            };
            let hex = hex_digits(string).ok_or_else(|| {
                if string.starts_with("0x") {
                    bad.clone()
                } else {
                    ScalarError::NotAScalar
                }
            })?;
            if hex.len() != digits {
                return Err(bad);
            }
            let bits = u64::from_str_radix(hex, 16).map_err(|_| bad.clone())?;
            if format.total_bits() < 64 && bits >> format.total_bits() != 0 {
                return Err(bad);
            }
            Ok(bits)
        }
    }
}

#[cfg(test)]
mod tests;
