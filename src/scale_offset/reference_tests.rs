//! The `scale_offset` kernels against an independent reference: exhaustive over every 8- and
//! 16-bit input, sampled (seeded) for wider inputs, for several offsets and scales.
//!
//! The reference computes integers in `i128`, float32 in float32 and float64 in float64 hardware
//! arithmetic, and the other float types in float64 rounded to the type by the reference's own
//! nearest-even rounding (innocuous double rounding: float64 has more than `2p + 2` bits).

use crate::Direction;
use crate::cast_value::reference_tests::{Seeded, element_bytes};
use crate::dispatch::scale_offset_kernel;
use crate::error::FaultKind;
use crate::numeric::{NumericType, RoundingMode, decode as value_of, parse_scalar};
use crate::reference::{RefValue, Reference, decode};
use crate::simd::Isa;

use super::arithmetic::Parameters;

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

/// The range of an integer type.
fn int_range(t: NumericType) -> (i128, i128) {
    match t {
        NumericType::Int2 => (-2, 1),
        NumericType::Int4 => (-8, 7),
        NumericType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        NumericType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        NumericType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        NumericType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        NumericType::UInt2 => (0, 3),
        NumericType::UInt4 => (0, 15),
        NumericType::UInt8 => (0, u8::MAX.into()),
        NumericType::UInt16 => (0, u16::MAX.into()),
        NumericType::UInt32 => (0, u32::MAX.into()),
        NumericType::UInt64 => (0, u64::MAX.into()),
        other => panic!("{other} is not an integer type"),
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

/// `(x - offset) * scale` or `(x / scale) + offset` by the reference.
pub(crate) fn reference(
    t: NumericType,
    rounder: &Reference,
    direction: Direction,
    offset: Option<RefValue>,
    scale: Option<RefValue>,
    x: RefValue,
) -> Result<RefValue, FaultKind> {
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
        let (lo, hi) = int_range(t);
        let check = |v: i128| {
            if (lo..=hi).contains(&v) {
                Ok(v)
            } else {
                Err(FaultKind::OutOfRange)
            }
        };
        let result = match direction {
            Direction::Encode => {
                let a = check(offset.map_or(x, |o| x - o))?;
                check(scale.map_or(a, |s| a * s))?
            }
            Direction::Decode => {
                let a = match scale {
                    Some(s) if x % s != 0 => return Err(FaultKind::NotExact),
                    Some(s) => check(x / s)?,
                    None => x,
                };
                check(offset.map_or(a, |o| a + o))?
            }
        };
        return Ok(RefValue::Int(result));
    }
    // One operation in the arithmetic of the type; a finite operation must not overflow.
    #[expect(clippy::cast_possible_truncation)]
    let apply = |a: f64, b: f64, op: Op| -> Result<f64, FaultKind> {
        let r = match t {
            NumericType::Float32 => f64::from(op.f32(a as f32, b as f32)),
            NumericType::Float64 => op.f64(a, b),
            _ => to_f64(rounder.cast(from_f64(op.f64(a, b)), RoundingMode::NearestEven, None)?),
        };
        if r.is_infinite() && a.is_finite() && b.is_finite() {
            return Err(FaultKind::OutOfRange);
        }
        Ok(r)
    };
    let x = to_f64(x);
    let has_zero = t != NumericType::Float8E8M0FNU;
    let result = match direction {
        Direction::Encode => {
            let a = offset.map_or(Ok(x), |o| apply(x, to_f64(o), Op::Sub))?;
            scale.map_or(Ok(a), |s| apply(a, to_f64(s), Op::Mul))?
        }
        Direction::Decode => {
            let a = scale.map_or(Ok(x), |s| apply(x, to_f64(s), Op::Div))?;
            match offset {
                Some(o) => apply(a, to_f64(o), Op::Add)?,
                // A missing offset adds zero where the type has one (-0 + 0 is +0).
                None if scale.is_some() && has_zero => apply(a, 0.0, Op::Add)?,
                None => a,
            }
        }
    };
    Ok(from_f64(result))
}

/// Runs both directions over `inputs` and panics on the first difference with the reference.
fn check(t: NumericType, offset: Option<&str>, scale: Option<&str>, inputs: &[u64]) -> usize {
    let read = |json: Option<&str>| {
        json.map(|json| parse_scalar(t, &serde_json::from_str(json).unwrap(), false).unwrap())
    };
    let (offset_bits, scale_bits) = (read(offset), read(scale));
    let parameters = Parameters {
        offset: offset_bits.map(|b| value_of(t.kind(), b)),
        scale: scale_bits.map(|b| value_of(t.kind(), b)),
    };
    let rounder = Reference::new(t.name());
    let reference_offset = offset_bits.map(|b| decode(t.name(), b));
    let reference_scale = scale_bits.map(|b| decode(t.name(), b));
    let bytes = element_bytes(inputs, t.size());
    for direction in [Direction::Encode, Direction::Decode] {
        let expected: Vec<_> = inputs
            .iter()
            .map(|&bits| {
                reference(
                    t,
                    &rounder,
                    direction,
                    reference_offset,
                    reference_scale,
                    decode(t.name(), bits),
                )
            })
            .collect();
        for isa in Isa::available() {
            let results = scale_offset_kernel(t, direction, parameters, isa).apply_each(&bytes);
            for ((&bits, got), want) in inputs.iter().zip(&results).zip(&expected) {
                let got = got.map(|b| decode(t.name(), b));
                assert_eq!(
                    &got, want,
                    "{t} {direction} {bits:#x}, offset {offset:?}, scale {scale:?}, {isa:?}"
                );
            }
        }
    }
    2 * inputs.len()
}

/// Offsets and scales for a type: typical, one-sided, negative, and extreme ones.
fn parameter_sets(t: NumericType) -> Vec<(Option<&'static str>, Option<&'static str>)> {
    match t {
        NumericType::Int2 => vec![
            (Some("1"), None),
            (None, Some("-1")),
            (Some("-1"), Some("1")),
        ],
        NumericType::UInt2 => vec![(Some("1"), None), (Some("2"), Some("3"))],
        NumericType::Int4 => vec![
            (Some("2"), Some("2")),
            (None, Some("-3")),
            (Some("-8"), None),
        ],
        NumericType::UInt4 => vec![(Some("3"), None), (Some("1"), Some("5"))],
        NumericType::Int8 | NumericType::Int16 | NumericType::Int32 | NumericType::Int64 => vec![
            (Some("1"), Some("2")),
            (Some("-1"), Some("-1")),
            (Some("100"), Some("3")),
            (None, Some("-2")),
            (Some("-128"), None),
        ],
        NumericType::UInt8 | NumericType::UInt16 | NumericType::UInt32 | NumericType::UInt64 => {
            vec![
                (Some("10"), Some("2")),
                (Some("200"), None),
                (None, Some("7")),
            ]
        }
        NumericType::Float8E8M0FNU => vec![
            (None, Some("2")),
            (Some("1"), None),
            (Some("0.5"), Some("4")),
            (Some("\"NaN\""), None),
        ],
        NumericType::Float4E2M1FN | NumericType::Float6E2M3FN | NumericType::Float6E3M2FN => {
            vec![
                (Some("1"), Some("2")),
                (None, Some("0.5")),
                (Some("-1.5"), Some("-3")),
            ]
        }
        NumericType::Float8E3M4
        | NumericType::Float8E4M3
        | NumericType::Float8E4M3B11FNUZ
        | NumericType::Float8E4M3FNUZ
        | NumericType::Float8E5M2
        | NumericType::Float8E5M2FNUZ => vec![
            (Some("-2"), Some("0.5")),
            (Some("1"), Some("3")),
            (None, Some("2")),
            (None, Some("-1")),
            (Some("1.5"), None),
            (Some("0.25"), Some("\"NaN\"")),
        ],
        _ => vec![
            (Some("-10"), Some("0.1")),
            (Some("5"), Some("0.1")),
            (None, Some("2")),
            (None, Some("-1")),
            (Some("1.5"), None),
            (Some("\"Infinity\""), Some("0.5")),
            (Some("0.25"), Some("\"NaN\"")),
            (Some("1e4"), Some("3")),
        ],
    }
}

#[test]
fn every_8_and_16_bit_input_scales_like_the_reference() {
    let mut checked = 0;
    for &t in NumericType::ALL.iter().filter(|t| t.size() <= 2) {
        let inputs: Vec<u64> = (0..1u64 << (8 * t.size())).collect();
        for (offset, scale) in parameter_sets(t) {
            checked += check(t, offset, scale, &inputs);
        }
    }
    assert!(checked > 4 * 65_536 * 2 * 3);
}

#[test]
fn sampled_32_and_64_bit_inputs_scale_like_the_reference() {
    let mut checked = 0;
    for &t in NumericType::ALL.iter().filter(|t| t.size() >= 4) {
        let mask = if t.size() == 8 {
            u64::MAX
        } else {
            u64::from(u32::MAX)
        };
        let mut inputs: Vec<u64> = Seeded(t.size() as u64)
            .take(50_000)
            .map(|r| r & mask)
            .collect();
        // Small values, where offsets and scales matter most.
        inputs.extend(Seeded(3).take(50_000).map(|r| {
            let small = (r % 20_001).cast_signed() - 10_000;
            #[expect(clippy::cast_precision_loss, clippy::cast_sign_loss)]
            match t {
                NumericType::Float32 => u64::from((small as f32 / 8.0).to_bits()),
                NumericType::Float64 => (small as f64 / 7.0).to_bits(),
                _ => small as u64 & mask,
            }
        }));
        for (offset, scale) in parameter_sets(t) {
            checked += check(t, offset, scale, &inputs);
        }
    }
    assert!(checked > 6 * 100_000 * 2 * 3);
}
