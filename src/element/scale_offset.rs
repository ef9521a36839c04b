//! The `scale_offset` arithmetic of one element, exactly as the specification defines it: in the
//! arithmetic of the data type, each operation rounded to the type, every intermediate and final
//! value required to be representable.
//!
//! - Integers compute exactly (in `i128`) and check the type's range after each operation; decoding
//!   also requires the division by the scale to be exact.
//! - float64 computes in float64. The other float types compute each operation in float64 and
//!   round the result to the type (nearest-even). That is the correctly rounded result of the
//!   operation in the type itself: float64 has more than `2p + 2` significand bits for every other
//!   format (`p` ≤ 24), so the double rounding is innocuous for +, -, × and ÷.
//! - A finite operation whose result is beyond the finite range is an error; operations on
//!   infinities and NaN follow IEEE 754.

use crate::error::Direction;
use crate::numeric::fault::{Fault, FaultKind};
use crate::numeric::{
    FloatFormat, IntFormat, Kind, NumericType, RoundingMode, Value, decode, encode, exact_f64,
};

/// `offset` and `scale`, read for the codec's data type. `None` is the identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Parameters {
    /// The value subtracted when encoding.
    pub(crate) offset: Option<Value>,
    /// The value multiplied by when encoding.
    pub(crate) scale: Option<Value>,
}

impl Parameters {
    /// Whether the codec does nothing (no arithmetic at all, so -0 stays -0).
    pub(crate) const fn is_identity(&self) -> bool {
        self.offset.is_none() && self.scale.is_none()
    }
}

/// `(x - offset) * scale`.
pub(crate) fn encode_element(
    kind: Kind,
    parameters: Parameters,
    x: Value,
) -> Result<Value, FaultKind> {
    let a = step(kind, x, Op::Subtract, parameters.offset)?;
    step(kind, a, Op::Multiply, parameters.scale)
}

/// `(x / scale) + offset`.
pub(crate) fn decode_element(
    kind: Kind,
    parameters: Parameters,
    x: Value,
) -> Result<Value, FaultKind> {
    let a = step(kind, x, Op::Divide, parameters.scale)?;
    match (kind, parameters.offset) {
        // `+ 0` where the type has a zero: a missing offset is the additive identity, and with a
        // scale present the sum is computed (-0 + 0 is +0).
        (Kind::Float(format), None)
            if parameters.scale.is_some() && format.zero_bits(false).is_some() =>
        {
            step(kind, a, Op::Add, Some(Value::from_f64(0.0)))
        }
        (_, offset) => step(kind, a, Op::Add, offset),
    }
}

/// The four operations of the codec.
#[derive(Clone, Copy)]
enum Op {
    Subtract,
    Multiply,
    Divide,
    Add,
}

/// `x op parameter` in the arithmetic of `kind` (`x` itself for a missing parameter): integers
/// exactly, within the type's range and, for a division, without remainder.
fn step(kind: Kind, x: Value, op: Op, parameter: Option<Value>) -> Result<Value, FaultKind> {
    let Some(p) = parameter else {
        return Ok(x);
    };
    match kind {
        Kind::Int(format) => {
            let (x, p) = (integer(x), integer(p));
            let result = match op {
                Op::Subtract => x.checked_sub(p),
                Op::Multiply => x.checked_mul(p),
                Op::Divide if x % p != 0 => return Err(FaultKind::NotExact),
                Op::Divide => Some(x / p),
                Op::Add => x.checked_add(p),
            };
            result
                .and_then(|r| in_range(format, r))
                .map(integer_value)
                .ok_or(FaultKind::OutOfRange)
        }
        Kind::Float(format) => {
            let f = match op {
                Op::Subtract => |a: f64, b: f64| a - b,
                Op::Multiply => |a: f64, b: f64| a * b,
                Op::Divide => |a: f64, b: f64| a / b,
                Op::Add => |a: f64, b: f64| a + b,
            };
            float_op(format, float(x), float(p), f).map(Value::from_f64)
        }
    }
}

/// One operation in the arithmetic of `format`.
fn float_op(
    format: FloatFormat,
    a: f64,
    b: f64,
    op: impl Fn(f64, f64) -> f64,
) -> Result<f64, FaultKind> {
    let r = op(a, b);
    if r.is_infinite() && a.is_finite() && b.is_finite() {
        return Err(FaultKind::OutOfRange);
    }
    if format == FloatFormat::FLOAT64 {
        return Ok(r);
    }
    let kind = Kind::Float(format);
    let bits = encode(Value::from_f64(r), kind, RoundingMode::NearestEven, None)?;
    Ok(exact_f64(decode(kind, bits)).expect("every float format widens exactly to float64"))
}

fn float(v: Value) -> f64 {
    exact_f64(v).expect("every float element widens exactly to float64")
}

fn integer(v: Value) -> i128 {
    match v {
        Value::Finite {
            negative,
            significand,
            exponent: 0,
        } => {
            let m = i128::from(significand);
            if negative { -m } else { m }
        }
        other => unreachable!("integer elements have exponent 0: {other:?}"),
    }
}

fn in_range(format: IntFormat, x: i128) -> Option<i128> {
    (format.min()..=format.max()).contains(&x).then_some(x)
}

fn integer_value(x: i128) -> Value {
    let magnitude = u64::try_from(x.unsigned_abs()).expect("within a 64-bit range");
    Value::Finite {
        negative: x < 0,
        significand: magnitude,
        exponent: 0,
    }
}

/// The exact result of one element of `t` (bits to bits); when encoding, the result must also
/// decode again.
///
/// # Errors
/// Returns why the element has no representable result.
pub(crate) fn element(
    t: NumericType,
    direction: Direction,
    parameters: Parameters,
    bits: u64,
) -> Result<u64, Fault> {
    let x = decode(t.kind(), bits);
    let y = match direction {
        Direction::Encode => encode_element(t.kind(), parameters, x),
        Direction::Decode => decode_element(t.kind(), parameters, x),
    }?;
    if direction == Direction::Encode
        && let Err(kind) = decode_element(t.kind(), parameters, y)
    {
        return Err(Fault {
            kind,
            encoded: Some(y),
        });
    }
    Ok(encode(y, t.kind(), RoundingMode::NearestEven, None)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::NumericType;

    fn params(offset: Option<f64>, scale: Option<f64>) -> Parameters {
        Parameters {
            offset: offset.map(Value::from_f64),
            scale: scale.map(Value::from_f64),
        }
    }

    #[test]
    fn float32_computes_each_operation_in_float32() {
        // (1 - -2^-24) rounds to 1 in float32; times 3 is 3 (not 3 + 3 × 2^-24).
        let p = params(Some(-5.960_464_477_539_063e-8), Some(3.0));
        let kind = NumericType::Float32.kind();
        assert_eq!(
            encode_element(kind, p, Value::from_f64(1.0)),
            Ok(Value::from_f64(3.0))
        );
    }

    #[test]
    fn a_finite_value_overflowing_is_an_error() {
        let kind = NumericType::Float32.kind();
        let p = params(None, Some(2.0));
        assert_eq!(
            encode_element(kind, p, Value::from_f64(3e38)),
            Err(FaultKind::OutOfRange)
        );
        let kind = NumericType::Float8E4M3.kind();
        let p = params(Some(1.0), Some(3.0));
        assert_eq!(
            encode_element(kind, p, Value::from_f64(80.0)),
            Ok(Value::from_f64(240.0))
        );
        assert_eq!(
            encode_element(kind, p, Value::from_f64(88.0)),
            Err(FaultKind::OutOfRange)
        );
    }

    #[test]
    fn integer_decoding_is_exact_and_checks_intermediates() {
        let kind = NumericType::Int8.kind();
        let p = Parameters {
            offset: Some(Value::from_i64(-1)),
            scale: Some(Value::from_i64(-1)),
        };
        assert_eq!(
            decode_element(kind, p, Value::from_i64(-128)),
            Err(FaultKind::OutOfRange)
        );
        let p = Parameters {
            offset: None,
            scale: Some(Value::from_i64(2)),
        };
        assert_eq!(
            decode_element(kind, p, Value::from_i64(3)),
            Err(FaultKind::NotExact)
        );
    }

    #[test]
    fn decoding_with_a_scale_and_no_offset_adds_zero() {
        let kind = NumericType::Float32.kind();
        let p = params(None, Some(2.0));
        assert_eq!(
            decode_element(kind, p, Value::from_f64(-0.0)),
            Ok(Value::from_f64(0.0))
        );
        let e8m0 = NumericType::Float8E8M0FNU.kind();
        assert_eq!(
            decode_element(e8m0, p, Value::from_f64(4.0)),
            Ok(Value::from_f64(2.0))
        );
    }
}
