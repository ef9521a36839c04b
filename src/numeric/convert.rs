//! Exact conversion between element encodings and values, following the `cast_value` procedure:
//! a value that the target holds exactly is kept; otherwise it is rounded by the rounding mode and
//! then handled by the out-of-range mode.
//!
//! This is the reference path of the crate. The fast kernels produce the same results for the
//! common type pairs, and fall back to it wherever the numbers get unusual.

use super::round::{Magnitude, RoundedFloat, round_to_float, round_to_integer};
use super::value::{Value, compare_magnitudes};
use super::{FloatFormat, IntFormat, Kind, RoundingMode};
use crate::numeric::fault::FaultKind;

pub(crate) use zarrs_metadata_ext::codec::cast_value::CastValueOutOfRangeMode as OutOfRangeMode;

use std::cmp::Ordering;

/// The value of an element encoding (low bits of `bits`; upper bits are ignored).
#[expect(
    clippy::cast_possible_wrap,
    reason = "reinterpreting two's complement bits"
)]
pub(crate) fn decode(kind: Kind, bits: u64) -> Value {
    match kind {
        Kind::Int(format) => {
            let unused = 64 - format.bits;
            if format.signed {
                Value::from_i64(((bits << unused) as i64) >> unused)
            } else {
                Value::from_u64((bits << unused) >> unused)
            }
        }
        Kind::Float(format) => format.decode(bits),
    }
}

/// The encoding of `value` in `kind`: exact if possible, else rounded by `rounding` and, when
/// outside the range, handled by `out_of_range` (no mode: an error).
///
/// Integers are returned as 64-bit two's complement (sign-extended), floats as their bits.
pub(crate) fn encode(
    value: Value,
    kind: Kind,
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
) -> Result<u64, FaultKind> {
    match (value, kind) {
        (Value::Nan, Kind::Float(format)) => {
            format.nan_bits().ok_or(FaultKind::NanNotRepresentable)
        }
        (Value::Nan, Kind::Int(_)) => Err(FaultKind::NanNotRepresentable),
        (Value::Infinity { negative }, Kind::Float(format)) => format
            .infinity_bits(negative)
            .ok_or(FaultKind::InfinityNotRepresentable),
        (Value::Infinity { .. }, Kind::Int(_)) => Err(FaultKind::InfinityNotRepresentable),
        (
            Value::Finite {
                negative,
                significand,
                exponent,
            },
            Kind::Int(format),
        ) => {
            let magnitude = round_to_integer(rounding, negative, significand, exponent);
            encode_integer(format, negative, magnitude, out_of_range)
        }
        (
            Value::Finite {
                negative,
                significand,
                exponent,
            },
            Kind::Float(format),
        ) => encode_float(
            format,
            negative,
            significand,
            exponent,
            rounding,
            out_of_range,
        ),
    }
}

/// The value as a float64, if float64 holds it exactly.
pub(crate) fn exact_f64(value: Value) -> Option<f64> {
    let kind = Kind::Float(FloatFormat::FLOAT64);
    let bits = encode(value, kind, RoundingMode::NearestEven, None).ok()?;
    let back = decode(kind, bits);
    let exact = back == value;
    exact.then(|| f64::from_bits(bits))
}

/// Two's complement bits of a signed 128-bit integer, truncated to 64 bits.
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "two's complement truncation"
)]
pub(crate) const fn twos_complement_bits(x: i128) -> u64 {
    x as u64
}

fn encode_integer(
    format: IntFormat,
    negative: bool,
    magnitude: Magnitude,
    out_of_range: Option<OutOfRangeMode>,
) -> Result<u64, FaultKind> {
    let value = match magnitude {
        Magnitude::Small(m) => i128::try_from(m)
            .ok()
            .map(|m| if negative { -m } else { m }),
        Magnitude::Huge => None,
    };
    if let Some(v) = value
        && (format.min()..=format.max()).contains(&v)
    {
        return Ok(twos_complement_bits(v));
    }
    match out_of_range {
        None => Err(FaultKind::OutOfRange),
        Some(OutOfRangeMode::Clamp) => Ok(twos_complement_bits(if negative {
            format.min()
        } else {
            format.max()
        })),
        Some(OutOfRangeMode::Wrap) => {
            // Wrapping is arithmetic modulo 2^bits: keep the low bits of the two's complement
            // representation, then read them back as signed or unsigned.
            let low = match magnitude {
                Magnitude::Small(m) => {
                    let m = if negative { m.wrapping_neg() } else { m };
                    m & ((1u128 << format.bits) - 1)
                }
                Magnitude::Huge => 0,
            };
            let low = i128::try_from(low).expect("at most 64 bits");
            let wrapped = if format.signed && low > format.max() {
                low - (1i128 << format.bits)
            } else {
                low
            };
            Ok(twos_complement_bits(wrapped))
        }
    }
}

/// Where a rounded value lies relative to the finite range of a float format.
enum Range {
    Inside(RoundedFloat),
    Below,
    Above,
}

fn locate(format: FloatFormat, negative: bool, rounded: RoundedFloat) -> Range {
    if !format.is_signed() {
        // float8_e8m0fnu: powers of two from 2^-bias up; every negative number is below.
        let below_min = compare_magnitudes(
            rounded.significand,
            rounded.exponent,
            1,
            format.min_normal_exponent(),
        ) == Ordering::Less;
        if negative || below_min {
            return Range::Below;
        }
    }
    let (max_significand, max_exponent) = format.max_finite();
    if compare_magnitudes(
        rounded.significand,
        rounded.exponent,
        max_significand,
        max_exponent,
    ) == Ordering::Greater
    {
        return Range::Above;
    }
    Range::Inside(rounded)
}

fn encode_float(
    format: FloatFormat,
    negative: bool,
    significand: u64,
    exponent: i32,
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
) -> Result<u64, FaultKind> {
    let rounded = round_to_float(format, rounding, negative, significand, exponent);
    let range = if rounded.significand == 0 {
        // Zero (exact, or a tiny value rounded to zero) keeps its sign where the format has -0.
        match format.zero_bits(negative && format.has_negative_zero()) {
            Some(bits) => return Ok(bits),
            None => Range::Below,
        }
    } else {
        locate(format, negative, rounded)
    };
    match range {
        Range::Inside(r) => Ok(format.encode_finite(negative, r.significand, r.exponent)),
        Range::Above | Range::Below if out_of_range != Some(OutOfRangeMode::Clamp) => {
            Err(FaultKind::OutOfRange)
        }
        Range::Above => {
            // Clamp: beyond the finite range go to ±Infinity where the format has it.
            Ok(format.infinity_bits(negative).unwrap_or_else(|| {
                let (significand, exponent) = format.max_finite();
                format.encode_finite(negative && format.is_signed(), significand, exponent)
            }))
        }
        // Only float8_e8m0fnu has a range that ends above zero: clamp to its smallest value.
        Range::Below => Ok(format.encode_finite(false, 1, format.min_normal_exponent())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::{NumericType, pow2};

    fn cast(
        x: f64,
        to: NumericType,
        rounding: RoundingMode,
        oor: Option<OutOfRangeMode>,
    ) -> Result<Value, FaultKind> {
        encode(Value::from_f64(x), to.kind(), rounding, oor).map(|bits| decode(to.kind(), bits))
    }

    #[test]
    fn out_of_range_modes_follow_the_spec_examples() {
        let ne = RoundingMode::NearestEven;
        assert_eq!(
            cast(128.0, NumericType::Int8, ne, None),
            Err(FaultKind::OutOfRange)
        );
        assert_eq!(
            cast(128.0, NumericType::Int8, ne, Some(OutOfRangeMode::Clamp)),
            Ok(Value::from_i64(127))
        );
        assert_eq!(
            cast(128.0, NumericType::Int8, ne, Some(OutOfRangeMode::Wrap)),
            Ok(Value::from_i64(-128))
        );
        for (x, y) in [(32768.0, -32768), (32769.0, -32767), (-32769.0, 32767)] {
            assert_eq!(
                cast(x, NumericType::Int16, ne, Some(OutOfRangeMode::Wrap)),
                Ok(Value::from_i64(y))
            );
        }
        assert_eq!(
            cast(1e300, NumericType::Int8, ne, Some(OutOfRangeMode::Wrap)),
            Ok(Value::from_i64(0))
        );
    }

    #[test]
    fn float_targets_clamp_to_infinity_or_their_largest_value() {
        let tz = RoundingMode::TowardsZero;
        let clamp = Some(OutOfRangeMode::Clamp);
        assert_eq!(
            cast(1e300, NumericType::Float32, tz, clamp),
            Ok(Value::Infinity { negative: false })
        );
        assert_eq!(
            cast(1e300, NumericType::Float32, tz, None),
            Err(FaultKind::OutOfRange)
        );
        assert_eq!(
            cast(-8.0, NumericType::Float6E2M3FN, tz, clamp),
            Ok(Value::from_f64(-7.5))
        );
        assert_eq!(
            cast(0.0, NumericType::Float8E8M0FNU, tz, clamp),
            Ok(Value::from_f64(pow2(-127)))
        );
        assert_eq!(
            cast(-4.0, NumericType::Float8E8M0FNU, tz, None),
            Err(FaultKind::OutOfRange)
        );
        assert_eq!(
            cast(65535.0, NumericType::Float16, tz, None),
            Ok(Value::from_f64(65504.0))
        );
    }

    #[test]
    fn zero_keeps_its_sign_where_the_target_has_negative_zero() {
        let ne = RoundingMode::NearestEven;
        let bits = |t: NumericType| encode(Value::from_f64(-0.0), t.kind(), ne, None);
        assert_eq!(bits(NumericType::Float16), Ok(0x8000));
        assert_eq!(bits(NumericType::Float8E4M3FNUZ), Ok(0));
        assert_eq!(bits(NumericType::Int8), Ok(0));
        assert_eq!(
            cast(-1e-300, NumericType::Float32, ne, None).map(|v| v.to_string()),
            Ok("-0".into())
        );
    }
}
