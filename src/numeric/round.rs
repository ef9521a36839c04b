//! Exact rounding of a finite value to an integer or to a float format.
//!
//! Both work on the magnitude `significand × 2^exponent` with plain integer arithmetic: the value
//! is cut at a power-of-two quantum and the discarded part decides the increment, as the
//! rounding direction requires. Nothing passes through a lossy intermediate.

use super::float_format::FloatFormat;

pub(crate) use zarrs_metadata_ext::codec::cast_value::CastValueRoundingMode as RoundingMode;

/// A rounding mode other than nearest-even, as flags a loop can test without branching: the fast
/// kernels keep one loop for `nearest-even` (the default) and one for the four others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "one flag per mode, tested as masks"
)]
pub(crate) struct Directed {
    /// `towards-negative`.
    pub(crate) towards_negative: bool,
    /// `towards-positive`.
    pub(crate) towards_positive: bool,
    /// `towards-zero`.
    pub(crate) towards_zero: bool,
    /// `nearest-away`.
    pub(crate) nearest_away: bool,
}

impl Directed {
    /// The flags of `mode` (all clear for `nearest-even`).
    pub(crate) fn new(mode: RoundingMode) -> Self {
        Self {
            towards_negative: mode == RoundingMode::TowardsNegative,
            towards_positive: mode == RoundingMode::TowardsPositive,
            towards_zero: mode == RoundingMode::TowardsZero,
            nearest_away: mode == RoundingMode::NearestAway,
        }
    }

    /// Whether a value of sign `negative` whose magnitude is not a representable result rounds its
    /// magnitude up (else down) under a directed mode; `nearest-away` rounds up from a remainder of
    /// at least half (`at_least_half`).
    #[expect(
        clippy::needless_bitwise_bool,
        reason = "no branches in a loop meant to vectorise"
    )]
    #[inline(always)]
    pub(crate) fn magnitude_up(self, negative: bool, at_least_half: bool) -> bool {
        (self.towards_positive & !negative)
            | (self.towards_negative & negative)
            | (self.nearest_away & at_least_half)
    }
}

/// Whether to add one quantum to a truncated magnitude.
///
/// `kept` is the truncated magnitude in quanta; `remainder` is the discarded part and `half` half a
/// quantum, both in the same units.
#[inline]
pub(crate) fn round_up(
    mode: RoundingMode,
    negative: bool,
    kept_is_odd: bool,
    remainder: u128,
    half: u128,
) -> bool {
    match mode {
        RoundingMode::NearestEven => remainder > half || (remainder == half && kept_is_odd),
        RoundingMode::NearestAway => remainder >= half,
        RoundingMode::TowardsZero => false,
        RoundingMode::TowardsPositive => !negative && remainder != 0,
        RoundingMode::TowardsNegative => negative && remainder != 0,
    }
}

/// Rounds the magnitude `significand × 2^exponent` to a multiple of `2^quantum`, where
/// `quantum > exponent`, and returns the number of quanta and whether rounding was inexact.
fn round_to_quantum(
    mode: RoundingMode,
    negative: bool,
    significand: u64,
    exponent: i32,
    quantum: i32,
) -> (u128, bool) {
    let shift = quantum.abs_diff(exponent);
    let significand = u128::from(significand);
    if shift > 65 {
        // The whole significand is below a quarter quantum: only the direction matters.
        let up = round_up(mode, negative, false, significand, u128::MAX);
        return (u128::from(up), significand != 0);
    }
    let kept = significand >> shift;
    let remainder = significand & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    let up = round_up(mode, negative, kept & 1 == 1, remainder, half);
    (kept + u128::from(up), remainder != 0)
}

/// The magnitude of an integer that rounding produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Magnitude {
    /// Below `2^128`.
    Small(u128),
    /// At least `2^128`, and a multiple of `2^64` (so it wraps to zero in every integer type).
    Huge,
}

/// Rounds `±significand × 2^exponent` to an integer.
pub(crate) fn round_to_integer(
    mode: RoundingMode,
    negative: bool,
    significand: u64,
    exponent: i32,
) -> Magnitude {
    if significand == 0 {
        return Magnitude::Small(0);
    }
    if exponent >= 0 {
        let bits = 64 - significand.leading_zeros();
        if exponent.unsigned_abs() + bits > 128 {
            // significand × 2^exponent ≥ 2^128 with exponent ≥ 65: a multiple of 2^64.
            Magnitude::Huge
        } else {
            Magnitude::Small(u128::from(significand) << exponent)
        }
    } else {
        Magnitude::Small(round_to_quantum(mode, negative, significand, exponent, 0).0)
    }
}

/// A magnitude rounded to a float format: `significand × 2^exponent` with `significand` below
/// `2^precision` (or zero); `exponent` is the quantum of the value in the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RoundedFloat {
    /// The rounded significand.
    pub(crate) significand: u64,
    /// The quantum exponent.
    pub(crate) exponent: i32,
    /// Whether rounding changed the value.
    pub(crate) inexact: bool,
}

/// Rounds `±significand × 2^exponent` to the precision of `format`, with an unbounded exponent
/// range above (the caller checks the largest finite value) and the format's subnormal quantum
/// below.
#[expect(clippy::cast_possible_wrap, reason = "bit counts are at most 64")]
pub(crate) fn round_to_float(
    format: FloatFormat,
    mode: RoundingMode,
    negative: bool,
    significand: u64,
    exponent: i32,
) -> RoundedFloat {
    if significand == 0 {
        return RoundedFloat {
            significand: 0,
            exponent: format.min_normal_exponent() - format.mantissa_bits as i32,
            inexact: false,
        };
    }
    let precision = format.precision() as i32;
    let bits = 64 - significand.leading_zeros() as i32;
    // The value lies in [2^top, 2^(top + 1)).
    let top = exponent + bits - 1;
    let quantum = if format.has_subnormals() {
        top.max(format.min_normal_exponent()) - (precision - 1)
    } else {
        top - (precision - 1)
    };
    if quantum <= exponent {
        return RoundedFloat {
            significand: significand << (exponent - quantum),
            exponent: quantum,
            inexact: false,
        };
    }
    let (kept, inexact) = round_to_quantum(mode, negative, significand, exponent, quantum);
    // A carry into the next binade gives exactly 2^precision: renormalise.
    let (kept, quantum) = if kept >> precision != 0 {
        (kept >> 1, quantum + 1)
    } else {
        (kept, quantum)
    };
    #[expect(clippy::cast_possible_truncation, reason = "below 2^precision ≤ 2^53")]
    RoundedFloat {
        significand: kept as u64,
        exponent: quantum,
        inexact,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::numeric::ROUNDINGS as MODES;

    fn to_int(mode: RoundingMode, x: f64) -> i128 {
        let super::super::value::Value::Finite {
            negative,
            significand,
            exponent,
        } = super::super::value::Value::from_f64(x)
        else {
            panic!()
        };
        let Magnitude::Small(m) = round_to_integer(mode, negative, significand, exponent) else {
            panic!()
        };
        let m = i128::try_from(m).unwrap();
        if negative { -m } else { m }
    }

    #[test]
    fn ties_follow_each_rounding_mode() {
        let inputs = [2.5, -2.5, 0.5, -0.5, 1.5, 2.4, -2.6];
        let expected: [[i128; 7]; 5] = [
            [2, -2, 0, 0, 2, 2, -3],
            [3, -3, 1, -1, 2, 2, -3],
            [2, -2, 0, 0, 1, 2, -2],
            [3, -2, 1, 0, 2, 3, -2],
            [2, -3, 0, -1, 1, 2, -3],
        ];
        for (mode, row) in MODES.iter().zip(expected) {
            let got: Vec<i128> = inputs.iter().map(|&x| to_int(*mode, x)).collect();
            assert_eq!(got, row, "{mode:?}");
        }
    }

    #[test]
    fn float_rounding_carries_into_the_next_binade() {
        // 2047.5 to float16 (11 bits): a tie between 2047 and 2048; even is 2048 = 1024 × 2^1.
        let r = round_to_float(
            FloatFormat::FLOAT16,
            RoundingMode::NearestEven,
            false,
            4095,
            -1,
        );
        assert_eq!((r.significand, r.exponent, r.inexact), (1024, 1, true));
        // 2^-25 is half the smallest float16 subnormal: a tie with zero.
        let r = round_to_float(
            FloatFormat::FLOAT16,
            RoundingMode::NearestEven,
            false,
            1,
            -25,
        );
        assert_eq!((r.significand, r.inexact), (0, true));
        let r = round_to_float(
            FloatFormat::FLOAT16,
            RoundingMode::NearestAway,
            false,
            1,
            -25,
        );
        assert_eq!((r.significand, r.exponent), (1, -24));
        // Far below the smallest subnormal, only directed rounding away from zero leaves zero.
        let r = round_to_float(
            FloatFormat::FLOAT16,
            RoundingMode::TowardsNegative,
            true,
            1,
            -1074,
        );
        assert_eq!((r.significand, r.exponent), (1, -24));
    }
}
