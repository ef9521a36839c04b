//! An independent exact reference for the kernels (tests only).
//!
//! It shares no code with the crate's numeric model: element encodings are decoded from the data
//! type definitions with `half` and plain formulas, integers are rounded with the standard
//! library's `round_ties_even`/`round`/`trunc`/`ceil`/`floor` (exact on floats), and float targets
//! are rounded by locating the value between the two neighbouring values of the target, found by
//! listing every encoding of formats up to 16 bits or by stepping with `next_up`/`next_down` for
//! float32 and float64, and comparing exactly.

use std::cmp::Ordering;

use crate::error::FaultKind;
use crate::numeric::{OutOfRangeMode, RoundingMode};

/// A value: integers exactly as `i128`, floats exactly as `f64` (every float type widens to it).
#[derive(Clone, Copy, Debug)]
pub(crate) enum RefValue {
    Nan,
    Inf(bool),
    Int(i128),
    Float(f64),
}

impl PartialEq for RefValue {
    fn eq(&self, other: &Self) -> bool {
        match (*self, *other) {
            (Self::Nan, Self::Nan) => true,
            (Self::Inf(a), Self::Inf(b)) => a == b,
            (Self::Int(a), Self::Int(b)) => a == b,
            (Self::Float(a), Self::Float(b)) => {
                a == b && a.is_sign_negative() == b.is_sign_negative()
            }
            _ => false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Special {
    Ieee,
    Finite,
    Fnuz,
    E8M0,
}

#[derive(Clone, Copy, Debug)]
enum Type {
    Int {
        bits: u32,
        signed: bool,
    },
    /// float16/bfloat16/float32/float64, decoded by `half` and the standard library.
    Std {
        bits: u32,
    },
    Small {
        ebits: u32,
        mbits: u32,
        bias: i32,
        special: Special,
    },
}

fn describe(name: &str) -> Type {
    let small = |ebits, mbits, bias, special| Type::Small {
        ebits,
        mbits,
        bias,
        special,
    };
    match name {
        "int2" => Type::Int {
            bits: 2,
            signed: true,
        },
        "int4" => Type::Int {
            bits: 4,
            signed: true,
        },
        "int8" => Type::Int {
            bits: 8,
            signed: true,
        },
        "int16" => Type::Int {
            bits: 16,
            signed: true,
        },
        "int32" => Type::Int {
            bits: 32,
            signed: true,
        },
        "int64" => Type::Int {
            bits: 64,
            signed: true,
        },
        "uint2" => Type::Int {
            bits: 2,
            signed: false,
        },
        "uint4" => Type::Int {
            bits: 4,
            signed: false,
        },
        "uint8" => Type::Int {
            bits: 8,
            signed: false,
        },
        "uint16" => Type::Int {
            bits: 16,
            signed: false,
        },
        "uint32" => Type::Int {
            bits: 32,
            signed: false,
        },
        "uint64" => Type::Int {
            bits: 64,
            signed: false,
        },
        "float16" | "bfloat16" => Type::Std { bits: 16 },
        "float32" => Type::Std { bits: 32 },
        "float64" => Type::Std { bits: 64 },
        "float4_e2m1fn" => small(2, 1, 1, Special::Finite),
        "float6_e2m3fn" => small(2, 3, 1, Special::Finite),
        "float6_e3m2fn" => small(3, 2, 3, Special::Finite),
        "float8_e3m4" => small(3, 4, 3, Special::Ieee),
        "float8_e4m3" => small(4, 3, 7, Special::Ieee),
        "float8_e4m3b11fnuz" => small(4, 3, 11, Special::Fnuz),
        "float8_e4m3fnuz" => small(4, 3, 8, Special::Fnuz),
        "float8_e5m2" => small(5, 2, 15, Special::Ieee),
        "float8_e5m2fnuz" => small(5, 2, 16, Special::Fnuz),
        "float8_e8m0fnu" => small(8, 0, 127, Special::E8M0),
        other => panic!("not a numeric type: {other}"),
    }
}

fn float(x: f64) -> RefValue {
    if x.is_nan() {
        RefValue::Nan
    } else if x.is_infinite() {
        RefValue::Inf(x < 0.0)
    } else {
        RefValue::Float(x)
    }
}

/// The value of an encoding of `name` (in the low bits of `bits`).
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    reason = "bit fields"
)]
pub(crate) fn decode(name: &str, bits: u64) -> RefValue {
    match describe(name) {
        Type::Int { bits: n, signed } => {
            let low = bits & (u64::MAX >> (64 - n));
            if signed && low >> (n - 1) == 1 {
                RefValue::Int(i128::from(low) - (1i128 << n))
            } else {
                RefValue::Int(i128::from(low))
            }
        }
        Type::Std { .. } => float(match name {
            "float16" => half::f16::from_bits(bits as u16).to_f64(),
            "bfloat16" => half::bf16::from_bits(bits as u16).to_f64(),
            "float32" => f64::from(f32::from_bits(bits as u32)),
            _ => f64::from_bits(bits),
        }),
        Type::Small {
            ebits,
            mbits,
            bias,
            special,
        } => {
            if special == Special::E8M0 {
                let e = bits & 0xff;
                return if e == 0xff {
                    RefValue::Nan
                } else {
                    RefValue::Float(2f64.powi(e as i32 - bias))
                };
            }
            let total = 1 + ebits + mbits;
            let bits = bits & ((1 << total) - 1);
            let negative = bits >> (total - 1) == 1;
            let exponent = ((bits >> mbits) & ((1 << ebits) - 1)) as i32;
            let mantissa = f64::from(u32::try_from(bits & ((1 << mbits) - 1)).unwrap());
            if special == Special::Fnuz && bits == 1 << (total - 1) {
                return RefValue::Nan;
            }
            if special == Special::Ieee && exponent == (1 << ebits) - 1 {
                return if mantissa == 0.0 {
                    RefValue::Inf(negative)
                } else {
                    RefValue::Nan
                };
            }
            let magnitude = if exponent == 0 {
                mantissa * 2f64.powi(1 - bias - mbits as i32)
            } else {
                (mantissa + 2f64.powi(mbits as i32)) * 2f64.powi(exponent - bias - mbits as i32)
            };
            RefValue::Float(if negative { -magnitude } else { magnitude })
        }
    }
}

/// Compares an exact value (`Int` or `Float`) with a float.
#[expect(
    clippy::cast_possible_truncation,
    clippy::float_cmp,
    reason = "exact comparisons"
)]
fn compare(a: RefValue, b: f64) -> Ordering {
    match a {
        RefValue::Float(x) => x.partial_cmp(&b).unwrap(),
        RefValue::Int(i) => {
            if b.abs() >= 2f64.powi(126) {
                return if b > 0.0 {
                    Ordering::Less
                } else {
                    Ordering::Greater
                };
            }
            let floor = b.floor();
            match i.cmp(&(floor as i128)) {
                Ordering::Equal if floor != b => Ordering::Less,
                other => other,
            }
        }
        _ => unreachable!(),
    }
}

fn is_negative(x: RefValue) -> bool {
    match x {
        RefValue::Int(i) => i < 0,
        RefValue::Float(v) => v.is_sign_negative(),
        RefValue::Inf(n) => n,
        RefValue::Nan => false,
    }
}

/// One step to the next float.
type StepFn = fn(f64) -> f64;

/// A value of a float type, or the value one step beyond its range (`beyond`).
#[derive(Clone, Copy, Debug)]
struct Point {
    value: f64,
    /// Whether the last bit of its encoding is set (for ties to even).
    odd: bool,
    beyond: bool,
}

/// Reference casts into one data type.
pub(crate) struct Reference {
    to: &'static str,
    /// Every finite value of a float type up to 16 bits, and the points beyond its range.
    grid: Option<Vec<Point>>,
}

impl Reference {
    pub(crate) fn new(to: &'static str) -> Self {
        let bits = match describe(to) {
            Type::Std { bits: 16 } => Some(16),
            Type::Small {
                ebits,
                mbits,
                special,
                ..
            } => Some(ebits + mbits + u32::from(special != Special::E8M0)),
            _ => None,
        };
        let grid = bits.map(|bits| {
            let mut points: Vec<Point> = (0..1u64 << bits)
                .filter_map(|b| match decode(to, b) {
                    RefValue::Float(v) if v != 0.0 || b == 0 => Some(Point {
                        value: v,
                        odd: b & 1 == 1,
                        beyond: false,
                    }),
                    _ => None,
                })
                .collect();
            points.sort_by(|a, b| a.value.partial_cmp(&b.value).unwrap());
            let (max, previous) = (
                points[points.len() - 1].value,
                points[points.len() - 2].value,
            );
            let e8m0 = matches!(
                describe(to),
                Type::Small {
                    special: Special::E8M0,
                    ..
                }
            );
            // One step above the largest value with an unbounded exponent.
            let top = if e8m0 {
                2.0 * max
            } else {
                max + (max - previous)
            };
            points.push(Point {
                value: top,
                odd: false,
                beyond: true,
            });
            if e8m0 {
                let min = points[0].value;
                points.insert(
                    0,
                    Point {
                        value: min / 2.0,
                        odd: false,
                        beyond: true,
                    },
                );
            } else {
                points.insert(
                    0,
                    Point {
                        value: -top,
                        odd: false,
                        beyond: true,
                    },
                );
            }
            points
        });
        Self { to, grid }
    }

    /// The neighbours `lo ≤ x ≤ hi` of a finite `x`, or `None` beyond the points one step outside
    /// the range.
    #[expect(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
    fn neighbours(&self, x: RefValue) -> Option<(Point, Point)> {
        if let Some(points) = &self.grid {
            let i = points.partition_point(|p| compare(x, p.value) == Ordering::Greater);
            if i == points.len() || compare(x, points[0].value) == Ordering::Less {
                return None;
            }
            let hi = points[i];
            let lo = if compare(x, hi.value) == Ordering::Equal {
                hi
            } else {
                points[i - 1]
            };
            return Some((lo, hi));
        }
        let single = self.to == "float32";
        let point = |value: f64| Point {
            value,
            odd: if single {
                (value as f32).to_bits() & 1 == 1
            } else {
                value.to_bits() & 1 == 1
            },
            beyond: false,
        };
        if single {
            let top = 2f64.powi(128);
            let max = f64::from(f32::MAX);
            let magnitude = match x {
                RefValue::Float(v) => v.abs(),
                RefValue::Int(i) => i.unsigned_abs() as f64,
                _ => unreachable!(),
            };
            if magnitude >= top {
                return None;
            }
            if magnitude > max {
                let beyond = Point {
                    value: top,
                    odd: false,
                    beyond: true,
                };
                let max = Point {
                    value: max,
                    odd: true,
                    beyond: false,
                };
                return Some(if is_negative(x) {
                    (
                        Point {
                            value: -top,
                            ..beyond
                        },
                        Point {
                            value: -max.value,
                            ..max
                        },
                    )
                } else {
                    (max, beyond)
                });
            }
        }
        let start = match x {
            RefValue::Float(v) if single => f64::from(v as f32),
            RefValue::Float(v) => v,
            RefValue::Int(i) if single => f64::from(i as f32),
            RefValue::Int(i) => i as f64,
            _ => unreachable!(),
        };
        let (up, down): (StepFn, StepFn) = if single {
            (
                |v| f64::from((v as f32).next_up()),
                |v| f64::from((v as f32).next_down()),
            )
        } else {
            (f64::next_up, f64::next_down)
        };
        let (mut lo, mut hi) = (start, start);
        while compare(x, lo) == Ordering::Less {
            lo = down(lo);
        }
        while compare(x, hi) == Ordering::Greater {
            hi = up(hi);
        }
        Some((point(lo), point(hi)))
    }

    /// Whether `x` lies closer to `hi` than to `lo` (`Greater`), closer to `lo` (`Less`), or halfway.
    #[expect(clippy::cast_possible_truncation)]
    fn side(x: RefValue, lo: f64, hi: f64) -> Ordering {
        if let RefValue::Int(i) = x
            && lo.fract() == 0.0
            && hi.fract() == 0.0
            && hi.abs() < 2f64.powi(120)
        {
            return (2 * i).cmp(&(lo as i128 + hi as i128));
        }
        // Neighbours of float types up to 32 bits add exactly in float64.
        compare(x, f64::midpoint(lo, hi))
    }

    /// The reference cast of `x` to this data type.
    pub(crate) fn cast(
        &self,
        x: RefValue,
        rounding: RoundingMode,
        oor: Option<OutOfRangeMode>,
    ) -> Result<RefValue, FaultKind> {
        let target = describe(self.to);
        let (has_nan, has_inf, has_negative_zero, e8m0) = match target {
            Type::Int { .. } => (false, false, false, false),
            Type::Std { .. } => (true, true, true, false),
            Type::Small { special, .. } => (
                special != Special::Finite,
                special == Special::Ieee,
                matches!(special, Special::Ieee | Special::Finite),
                special == Special::E8M0,
            ),
        };
        match x {
            RefValue::Nan => {
                return if has_nan {
                    Ok(RefValue::Nan)
                } else {
                    Err(FaultKind::NanNotRepresentable)
                };
            }
            RefValue::Inf(n) => {
                return if has_inf {
                    Ok(RefValue::Inf(n))
                } else {
                    Err(FaultKind::InfinityNotRepresentable)
                };
            }
            _ => {}
        }
        if let Type::Int { bits, signed } = target {
            return Ok(RefValue::Int(to_int(x, bits, signed, rounding, oor)?));
        }
        let out_of_range = |below: bool| match oor {
            Some(OutOfRangeMode::Clamp) if e8m0 => {
                let points = self.grid.as_ref().unwrap();
                Ok(RefValue::Float(if below {
                    points[1].value
                } else {
                    points[points.len() - 2].value
                }))
            }
            Some(OutOfRangeMode::Clamp) if has_inf => Ok(RefValue::Inf(is_negative(x))),
            Some(OutOfRangeMode::Clamp) => {
                let points = self.grid.as_ref().unwrap();
                let max = points[points.len() - 2].value;
                Ok(RefValue::Float(if is_negative(x) { -max } else { max }))
            }
            _ => Err(FaultKind::OutOfRange),
        };
        if e8m0 && compare(x, 0.0) != Ordering::Greater {
            return out_of_range(true);
        }
        let Some((lo, hi)) = self.neighbours(x) else {
            return out_of_range(e8m0 && compare(x, 1.0) == Ordering::Less);
        };
        let exact = compare(x, lo.value) == Ordering::Equal;
        let positive = compare(x, 0.0) == Ordering::Greater;
        let (towards_zero, away) = if positive { (lo, hi) } else { (hi, lo) };
        let chosen = if exact {
            lo
        } else {
            match rounding {
                RoundingMode::TowardsZero => towards_zero,
                RoundingMode::TowardsPositive => hi,
                RoundingMode::TowardsNegative => lo,
                RoundingMode::NearestEven | RoundingMode::NearestAway => {
                    match Self::side(x, lo.value, hi.value) {
                        Ordering::Less => lo,
                        Ordering::Greater => hi,
                        // A tie: to the even encoding, or away from zero (also the convention for the
                        // one-bit significand of float8_e8m0fnu, as in ml_dtypes).
                        Ordering::Equal if rounding == RoundingMode::NearestAway || e8m0 => away,
                        Ordering::Equal => {
                            if lo.odd {
                                hi
                            } else {
                                lo
                            }
                        }
                    }
                }
            }
        };
        if chosen.beyond {
            return out_of_range(e8m0 && chosen.value < 1.0);
        }
        Ok(RefValue::Float(if chosen.value != 0.0 {
            chosen.value
        } else if has_negative_zero && is_negative(x) {
            -0.0
        } else {
            0.0
        }))
    }
}

/// The reference cast to an integer type.
#[expect(clippy::cast_possible_truncation)]
fn to_int(
    x: RefValue,
    bits: u32,
    signed: bool,
    rounding: RoundingMode,
    oor: Option<OutOfRangeMode>,
) -> Result<i128, FaultKind> {
    let (min, max) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let rounded = match x {
        RefValue::Int(i) => RefValue::Int(i),
        RefValue::Float(v) => RefValue::Float(match rounding {
            RoundingMode::NearestEven => v.round_ties_even(),
            RoundingMode::NearestAway => v.round(),
            RoundingMode::TowardsZero => v.trunc(),
            RoundingMode::TowardsPositive => v.ceil(),
            RoundingMode::TowardsNegative => v.floor(),
        }),
        _ => unreachable!(),
    };
    let value = match rounded {
        RefValue::Int(i) => Some(i),
        RefValue::Float(v) if v.abs() < 2f64.powi(126) => Some(v as i128),
        _ => None,
    };
    if let Some(v) = value
        && (min..=max).contains(&v)
    {
        return Ok(v);
    }
    match oor {
        None => Err(FaultKind::OutOfRange),
        Some(OutOfRangeMode::Clamp) => Ok(if is_negative(rounded) { min } else { max }),
        Some(OutOfRangeMode::Wrap) => {
            let modulus = 1i128 << bits;
            let low = match (value, rounded) {
                (Some(v), _) => v.rem_euclid(modulus),
                // Huge floats: the remainder modulo a power of two is exact in float64.
                (None, RefValue::Float(v)) => v.rem_euclid(2f64.powi(bits.cast_signed())) as i128,
                _ => unreachable!(),
            };
            Ok(if signed && low > max {
                low - modulus
            } else {
                low
            })
        }
    }
}
