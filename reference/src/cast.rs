//! Reference casts: the `cast_value` procedure's steps 2 and 3 (exact values, rounding and the
//! out-of-range modes) into each data type.

use std::cmp::Ordering;
use std::sync::{Arc, Mutex};

mod model;

pub use model::CastModel;

use super::{
    OutOfRangeMode, RefFault, RefValue, RoundingMode, Special, Type, compare, decode, describe,
    is_negative, pow2,
};

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

/// The values of a small float type, shared between models.
type Grid = Arc<Vec<Point>>;

/// Reference casts into one data type.
pub struct Reference {
    to: &'static str,
    /// Every finite value of a float type up to 16 bits, and the points beyond its range.
    grid: Option<Grid>,
}

impl Reference {
    pub fn new(to: &'static str) -> Self {
        // Grids are built once per type and shared.
        static GRIDS: Mutex<Vec<(&'static str, Option<Grid>)>> = Mutex::new(Vec::new());
        let mut grids = GRIDS.lock().unwrap();
        if let Some((_, grid)) = grids.iter().find(|(name, _)| *name == to) {
            return Self {
                to,
                grid: grid.clone(),
            };
        }
        let grid = Self::grid(to).map(Arc::new);
        grids.push((to, grid.clone()));
        Self { to, grid }
    }

    /// Every finite value of a float type up to 16 bits, and the points beyond its range.
    fn grid(to: &'static str) -> Option<Vec<Point>> {
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
        bits.map(|bits| {
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
        })
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
            let top = pow2(128);
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
            && hi.abs() < pow2(120)
        {
            return (2 * i).cmp(&(lo as i128 + hi as i128));
        }
        // Neighbours of float types up to 32 bits add exactly in float64.
        compare(x, f64::midpoint(lo, hi))
    }

    /// The reference cast of `x` to this data type.
    pub fn cast(
        &self,
        x: RefValue,
        rounding: RoundingMode,
        oor: Option<OutOfRangeMode>,
    ) -> Result<RefValue, RefFault> {
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
                    Err(RefFault::Nan)
                };
            }
            RefValue::Inf(n) => {
                return if has_inf {
                    Ok(RefValue::Inf(n))
                } else {
                    Err(RefFault::Infinity)
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
            _ => Err(RefFault::OutOfRange),
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
) -> Result<i128, RefFault> {
    let (min, max) = crate::int_range(bits, signed);
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
        RefValue::Float(v) if v.abs() < pow2(126) => Some(v as i128),
        _ => None,
    };
    if let Some(v) = value
        && (min..=max).contains(&v)
    {
        return Ok(v);
    }
    match oor {
        None => Err(RefFault::OutOfRange),
        Some(OutOfRangeMode::Clamp) => Ok(if is_negative(rounded) { min } else { max }),
        Some(OutOfRangeMode::Wrap) => {
            let modulus = 1i128 << bits;
            let low = match (value, rounded) {
                (Some(v), _) => v.rem_euclid(modulus),
                // Huge floats: the remainder modulo a power of two is exact in float64.
                (None, RefValue::Float(v)) => v.rem_euclid(pow2(bits.cast_signed())) as i128,
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
