//! Exact values of elements.
//!
//! Every element of every supported data type is NaN, ±Infinity or a dyadic rational
//! `±significand × 2^exponent` with a significand of at most 64 bits (int64/uint64 need 64,
//! float64 needs 53). [`Value`] holds that exactly, so conversions between any two types can be
//! decided without a lossy intermediate.

use std::cmp::Ordering;
use std::fmt;

/// The exact value of an element.
///
/// Equality is equality of values, the sign of zero included: `1 × 2^1 == 2 × 2^0`, `-0 != +0`.
#[derive(Clone, Copy, Debug, Eq)]
pub(crate) enum Value {
    /// Not a number (any payload).
    Nan,
    /// ±Infinity.
    Infinity {
        /// Whether this is -Infinity.
        negative: bool,
    },
    /// `(-1)^negative × significand × 2^exponent`; a zero keeps its sign.
    Finite {
        /// Whether the sign is negative.
        negative: bool,
        /// The significand.
        significand: u64,
        /// The power of two scaling the significand.
        exponent: i32,
    },
}

impl Value {
    /// Zero with a sign.
    pub(crate) const fn zero(negative: bool) -> Self {
        Self::Finite {
            negative,
            significand: 0,
            exponent: 0,
        }
    }

    /// The value of a signed integer.
    pub(crate) const fn from_i64(x: i64) -> Self {
        Self::Finite {
            negative: x < 0,
            significand: x.unsigned_abs(),
            exponent: 0,
        }
    }

    /// The value of an unsigned integer.
    pub(crate) const fn from_u64(x: u64) -> Self {
        Self::Finite {
            negative: false,
            significand: x,
            exponent: 0,
        }
    }

    /// The exact value of a float64.
    pub(crate) fn from_f64(x: f64) -> Self {
        super::float_format::FloatFormat::FLOAT64.decode(x.to_bits())
    }

    /// Whether this is NaN.
    pub(crate) const fn is_nan(self) -> bool {
        matches!(self, Self::Nan)
    }

    /// Whether this is a zero of either sign.
    pub(crate) const fn is_zero(self) -> bool {
        matches!(self, Self::Finite { significand: 0, .. })
    }

    /// The same value with the smallest significand (odd, or zero with exponent 0).
    #[must_use]
    pub(crate) const fn normalized(self) -> Self {
        match self {
            Self::Finite {
                negative,
                significand,
                exponent,
            } => {
                if significand == 0 {
                    Self::zero(negative)
                } else {
                    let tz = significand.trailing_zeros();
                    #[expect(clippy::cast_possible_wrap, reason = "at most 63")]
                    Self::Finite {
                        negative,
                        significand: significand >> tz,
                        exponent: exponent + tz as i32,
                    }
                }
            }
            other => other,
        }
    }

    /// Numeric equality as IEEE 754 defines it for the comparison of values, except that NaN
    /// equals NaN: -0 equals +0, and finite values compare by their exact value.
    pub(crate) fn same_number(self, other: Self) -> bool {
        match (self.normalized(), other.normalized()) {
            (Self::Nan, Self::Nan)
            | (Self::Finite { significand: 0, .. }, Self::Finite { significand: 0, .. }) => true,
            (Self::Infinity { negative: a }, Self::Infinity { negative: b }) => a == b,
            (a, b) => a == b,
        }
    }
}

impl Value {
    /// The order of two values on the extended real line (-0 and +0 equal), or `None` if either
    /// is NaN.
    pub(crate) fn compare(self, other: Self) -> Option<Ordering> {
        // Negative values first, and among them the larger magnitude first.
        let key = |v: Self| match v {
            Self::Nan => None,
            Self::Infinity { negative } => Some((if negative { 0 } else { 4 }, 0, 0)),
            Self::Finite { significand: 0, .. } => Some((2, 0, 0)),
            Self::Finite {
                negative,
                significand,
                exponent,
            } => Some((if negative { 1 } else { 3 }, significand, exponent)),
        };
        let ((class_a, sa, ea), (class_b, sb, eb)) = (key(self)?, key(other)?);
        Some(match class_a.cmp(&class_b) {
            Ordering::Equal if class_a == 1 => compare_magnitudes(sb, eb, sa, ea),
            Ordering::Equal if class_a == 3 => compare_magnitudes(sa, ea, sb, eb),
            other => other,
        })
    }
}

/// Compares `a × 2^ea` with `b × 2^eb` for non-negative significands.
pub(crate) fn compare_magnitudes(a: u64, ea: i32, b: u64, eb: i32) -> Ordering {
    match (a == 0, b == 0) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        (false, false) => {}
    }
    let top = |s: u64, e: i32| i64::from(e) + i64::from(64 - s.leading_zeros());
    match top(a, ea).cmp(&top(b, eb)) {
        Ordering::Equal => {
            // Equal leading bit positions: the exponents differ by less than 64.
            let (a, b) = if ea >= eb {
                (u128::from(a) << (ea - eb), u128::from(b))
            } else {
                (u128::from(a), u128::from(b) << (eb - ea))
            };
            a.cmp(&b)
        }
        other => other,
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self.normalized(), other.normalized()) {
            (Self::Nan, Self::Nan) => true,
            (Self::Infinity { negative: a }, Self::Infinity { negative: b }) => a == b,
            (
                Self::Finite {
                    negative: a,
                    significand: sa,
                    exponent: ea,
                },
                Self::Finite {
                    negative: b,
                    significand: sb,
                    exponent: eb,
                },
            ) => a == b && sa == sb && ea == eb,
            _ => false,
        }
    }
}

impl fmt::Display for Value {
    /// Writes the value as a Zarr V3 JSON scalar would spell it: `NaN`, `Infinity`, `-Infinity`,
    /// an integer, or the shortest decimal that reads back as the same float64.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Nan => f.write_str("NaN"),
            Self::Infinity { negative: true } => f.write_str("-Infinity"),
            Self::Infinity { negative: false } => f.write_str("Infinity"),
            Self::Finite { negative, .. } => {
                let Self::Finite {
                    significand,
                    exponent,
                    ..
                } = self.normalized()
                else {
                    unreachable!()
                };
                let sign = if negative { "-" } else { "" };
                if significand == 0 {
                    return write!(f, "{sign}0");
                }
                if (0..64).contains(&exponent)
                    && u128::from(significand).leading_zeros() >= exponent.unsigned_abs()
                {
                    return write!(f, "{sign}{}", u128::from(significand) << exponent);
                }
                match super::exact_f64(*self) {
                    Some(x) => write!(f, "{x:?}"),
                    None => write!(f, "{sign}{significand}*2^{exponent}"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_as_json_scalars() {
        assert_eq!(Value::from_f64(300.0).to_string(), "300");
        assert_eq!(Value::from_f64(-0.5).to_string(), "-0.5");
        assert_eq!(Value::from_f64(-0.0).to_string(), "-0");
        assert_eq!(Value::from_f64(1e300).to_string(), "1e300");
        assert_eq!(Value::from_f64(f64::NAN).to_string(), "NaN");
        assert_eq!(
            Value::from_u64(u64::MAX).to_string(),
            "18446744073709551615"
        );
        assert_eq!(
            Value::from_i64(i64::MIN).to_string(),
            "-9223372036854775808"
        );
        assert_eq!(Value::from_f64(5e-324).to_string(), "5e-324");
    }

    #[test]
    fn same_number_ignores_the_sign_of_zero_and_nan_payloads() {
        assert!(Value::from_f64(0.0).same_number(Value::from_f64(-0.0)));
        assert!(Value::Nan.same_number(Value::Nan));
        assert!(Value::from_f64(2.0).same_number(Value::from_u64(2)));
        assert!(!Value::from_f64(2.5).same_number(Value::from_u64(2)));
    }

    #[test]
    fn values_order_on_the_extended_real_line() {
        let order = [
            Value::Infinity { negative: true },
            Value::from_f64(-3.0),
            Value::from_f64(-0.5),
            Value::from_f64(-0.0),
            Value::from_u64(1),
            Value::from_f64(1.5),
            Value::Infinity { negative: false },
        ];
        for pair in order.windows(2) {
            assert_eq!(pair[0].compare(pair[1]), Some(Ordering::Less), "{pair:?}");
            assert_eq!(
                pair[1].compare(pair[0]),
                Some(Ordering::Greater),
                "{pair:?}"
            );
        }
        assert_eq!(
            Value::from_f64(0.0).compare(Value::from_f64(-0.0)),
            Some(Ordering::Equal)
        );
        assert_eq!(Value::Nan.compare(Value::from_u64(1)), None);
    }

    #[test]
    fn magnitudes_compare_exactly() {
        assert_eq!(compare_magnitudes(3, 0, 6, -1), Ordering::Equal);
        assert_eq!(compare_magnitudes(u64::MAX, 0, 1, 64), Ordering::Less);
        assert_eq!(compare_magnitudes(1, -1074, 0, 0), Ordering::Greater);
    }
}
