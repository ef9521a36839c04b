//! The reference `scale_offset`: `(x - offset) * scale` and `(x / scale) + offset` in the
//! arithmetic of the data type, every intermediate and final value required to be representable;
//! an encode whose result the decode rejects is [`RefFault::Unreadable`].

use super::cast::Reference;
use super::{RefFault, RefValue, RoundingMode, Type, describe};

#[derive(Clone, Copy)]
enum Op {
    Sub,
    Mul,
    Div,
    Add,
}

impl Op {
    fn f64(self, a: f64, b: f64) -> f64 {
        match self {
            Self::Sub => a - b,
            Self::Mul => a * b,
            Self::Div => a / b,
            Self::Add => a + b,
        }
    }

    fn f32(self, a: f32, b: f32) -> f32 {
        match self {
            Self::Sub => a - b,
            Self::Mul => a * b,
            Self::Div => a / b,
            Self::Add => a + b,
        }
    }
}

fn to_f64(v: RefValue) -> f64 {
    match v {
        RefValue::Float(v) => v,
        RefValue::Nan => f64::NAN,
        RefValue::Inf(negative) => {
            if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        RefValue::Int(_) => unreachable!(),
    }
}

fn from_f64(v: f64) -> RefValue {
    if v.is_nan() {
        RefValue::Nan
    } else if v.is_infinite() {
        RefValue::Inf(v < 0.0)
    } else {
        RefValue::Float(v)
    }
}

/// The reference `scale_offset` of one data type with its parameters.
pub struct ScaleOffsetModel {
    name: &'static str,
    rounder: Reference,
    offset: Option<RefValue>,
    scale: Option<RefValue>,
}

impl ScaleOffsetModel {
    /// The model for `name` with `offset` and `scale` (values of the type; `None` is the identity).
    pub fn new(name: &'static str, offset: Option<RefValue>, scale: Option<RefValue>) -> Self {
        Self {
            name,
            rounder: Reference::new(name),
            offset,
            scale,
        }
    }

    /// The encode of `x`, which must decode again.
    pub fn encode(&self, x: RefValue) -> Result<RefValue, RefFault> {
        if self.offset.is_none() && self.scale.is_none() {
            return Ok(x);
        }
        let y = self.compute(true, x)?;
        self.compute(false, y).map_err(|_| RefFault::Unreadable)?;
        Ok(y)
    }

    /// The encode of `x`, without requiring its decode to succeed.
    pub fn encode_unchecked(&self, x: RefValue) -> Result<RefValue, RefFault> {
        if self.offset.is_none() && self.scale.is_none() {
            return Ok(x);
        }
        self.compute(true, x)
    }

    /// The decode of `x`.
    pub fn decode(&self, x: RefValue) -> Result<RefValue, RefFault> {
        if self.offset.is_none() && self.scale.is_none() {
            return Ok(x);
        }
        self.compute(false, x)
    }

    fn compute(&self, encode: bool, x: RefValue) -> Result<RefValue, RefFault> {
        let (offset, scale) = (self.offset, self.scale);
        if let RefValue::Int(x) = x {
            let int = |v: Option<RefValue>| {
                v.map(|v| {
                    if let RefValue::Int(i) = v {
                        i
                    } else {
                        unreachable!()
                    }
                })
            };
            let (offset, scale) = (int(offset), int(scale));
            let Type::Int { bits, signed } = describe(self.name) else {
                unreachable!()
            };
            let (lo, hi) = crate::int_range(bits, signed);
            let check = |v: i128| {
                if (lo..=hi).contains(&v) {
                    Ok(v)
                } else {
                    Err(RefFault::OutOfRange)
                }
            };
            let result = if encode {
                let a = check(offset.map_or(x, |o| x - o))?;
                let product = scale.map_or(Some(a), |s| a.checked_mul(s));
                check(product.ok_or(RefFault::OutOfRange)?)?
            } else {
                let a = match scale {
                    Some(s) if x % s != 0 => return Err(RefFault::NotExact),
                    Some(s) => check(x / s)?,
                    None => x,
                };
                check(offset.map_or(a, |o| a + o))?
            };
            return Ok(RefValue::Int(result));
        }
        // One operation in the arithmetic of the type; a finite operation must not overflow.
        #[expect(clippy::cast_possible_truncation, reason = "float32 arithmetic")]
        let apply = |a: f64, b: f64, op: Op| -> Result<f64, RefFault> {
            let r = match self.name {
                "float32" => f64::from(op.f32(a as f32, b as f32)),
                "float64" => op.f64(a, b),
                _ => to_f64(self.rounder.cast(
                    from_f64(op.f64(a, b)),
                    RoundingMode::NearestEven,
                    None,
                )?),
            };
            if r.is_infinite() && a.is_finite() && b.is_finite() {
                return Err(RefFault::OutOfRange);
            }
            Ok(r)
        };
        let x = to_f64(x);
        let has_zero = self.name != "float8_e8m0fnu";
        let result = if encode {
            let a = offset.map_or(Ok(x), |o| apply(x, to_f64(o), Op::Sub))?;
            scale.map_or(Ok(a), |s| apply(a, to_f64(s), Op::Mul))?
        } else {
            let a = scale.map_or(Ok(x), |s| apply(x, to_f64(s), Op::Div))?;
            match offset {
                Some(o) => apply(a, to_f64(o), Op::Add)?,
                // A missing offset adds zero where the type has one (-0 + 0 is +0).
                None if scale.is_some() && has_zero => apply(a, 0.0, Op::Add)?,
                None => a,
            }
        };
        Ok(from_f64(result))
    }
}
