//! The floats the hardware computes with (f32 and f64), and exact rounding to integers.
//!
//! Rounding to an integer uses the classic exact trick: for `|x| < 2^(precision - 1)`,
//! `(|x| + 2^(precision - 1)) - 2^(precision - 1)` rounds `|x|` to an integer, ties to even, in the
//! default IEEE rounding mode; above that every float is already an integer. The other modes
//! adjust that result by one where it lies on the wrong side. Everything is compares and selects,
//! so loops over it vectorise without the SSE4.1 rounding instructions.

use num_traits::{AsPrimitive, Float};

use super::round::Directed;
use super::{FloatFormat, RoundingMode, Storage};

/// f32 or f64.
pub(crate) trait HwFloat:
    Float
    + Storage
    + AsPrimitive<i8>
    + AsPrimitive<i16>
    + AsPrimitive<i32>
    + AsPrimitive<i64>
    + AsPrimitive<u8>
    + AsPrimitive<u16>
    + AsPrimitive<u32>
    + AsPrimitive<u64>
    + AsPrimitive<f32>
    + AsPrimitive<f64>
{
    /// The format.
    const FORMAT: FloatFormat;
    /// `2^(precision - 1)`: from this magnitude up every value is an integer.
    const INTEGRAL: Self;
    /// One half.
    const HALF: Self;
    /// `1.5 × 2^(precision - 1)`: an integral value `|c| < 2^(precision - 2)` added to it gives an
    /// exact sum whose low bits are `c` in two's complement.
    const MAGIC: Self;

    /// The encoding, as an unsigned integer of the same width.
    type Bits: num_traits::PrimInt
        + num_traits::WrappingSub
        + std::ops::BitOrAssign
        + std::fmt::Debug
        + Send
        + Sync
        + 'static;

    /// The encoding (the standard library's `to_bits`).
    fn encoding(self) -> Self::Bits;
    /// Whether the encoding `bits` has its sign bit set.
    fn sign_bit(bits: Self::Bits) -> bool;

    /// The encoding of `|self|` xor that of +Infinity: zero exactly for the infinities (NaN
    /// included among the others), so that the least of a block's is zero exactly when the block
    /// holds one (two integer operations per element).
    #[inline(always)]
    fn infinity_gap(self) -> Self::Bits {
        (self.encoding() & !(-Self::zero()).encoding()) ^ Self::infinity().encoding()
    }

    /// The value as f64 (exact).
    fn to_f64(self) -> f64;
    /// An f64 as this float (exact only for values it holds).
    fn from_f64(x: f64) -> Self;

    /// The next float towards +Infinity (the standard library's `next_up`).
    fn next_up(self) -> Self;
    /// The next float towards -Infinity (the standard library's `next_down`).
    fn next_down(self) -> Self;
}

/// The implementation for one float: its bits type, format and constants.
macro_rules! hw_float {
    ($t:ty, $bits:ty, $format:ident, $integral:expr, $magic:expr) => {
        impl HwFloat for $t {
            type Bits = $bits;
            const FORMAT: FloatFormat = FloatFormat::$format;
            const INTEGRAL: Self = $integral;
            const HALF: Self = 0.5;
            const MAGIC: Self = $magic;

            #[inline]
            fn to_f64(self) -> f64 {
                f64::from(self)
            }

            #[inline]
            #[allow(
                clippy::cast_possible_truncation,
                clippy::unnecessary_cast,
                reason = "callers pass values the type holds; a no-op for f64"
            )]
            fn from_f64(x: f64) -> Self {
                x as $t
            }

            #[inline]
            fn next_up(self) -> Self {
                <$t>::next_up(self)
            }

            #[inline]
            fn next_down(self) -> Self {
                <$t>::next_down(self)
            }

            #[inline]
            fn encoding(self) -> $bits {
                self.to_bits()
            }

            #[inline]
            fn sign_bit(bits: $bits) -> bool {
                bits >> (<$bits>::BITS - 1) != 0
            }
        }
    };
}

hw_float!(f32, u32, FLOAT32, 8_388_608.0, 12_582_912.0);
hw_float!(
    f64,
    u64,
    FLOAT64,
    4_503_599_627_370_496.0,
    6_755_399_441_055_744.0
);

/// `|x|` rounded to an integer, ties to even (NaN and infinities unchanged).
#[inline]
fn magnitude_ties_even<F: HwFloat>(a: F) -> F {
    let t = (a + F::INTEGRAL) - F::INTEGRAL;
    if a < F::INTEGRAL { t } else { a }
}

/// `x` rounded to an integer in `mode`, exactly; NaN and ±Infinity pass through.
///
/// Every mode is a rounding of the magnitude (down or up), and the result carries the sign of `x`
/// (`ceil(-0.5)` is `-0`).
#[inline(always)]
pub(crate) fn round_to_integral<F: HwFloat>(x: F, mode: RoundingMode) -> F {
    match mode {
        RoundingMode::NearestEven => magnitude_ties_even(x.abs()).copysign(x),
        mode => round_to_integral_directed(x, Directed::new(mode)),
    }
}

/// `x` rounded to an integer under a directed mode given as flags (see [`Directed`]), exactly;
/// NaN and ±Infinity pass through. One loop serves all four modes.
#[inline(always)]
pub(crate) fn round_to_integral_directed<F: HwFloat>(x: F, mode: Directed) -> F {
    let a = x.abs();
    let nearest = magnitude_ties_even(a);
    let down = if nearest > a {
        nearest - F::one()
    } else {
        nearest
    };
    let up = if nearest < a {
        nearest + F::one()
    } else {
        nearest
    };
    // a - down is exact: either down = 0, or down ≤ a < down + 1 with down ≥ 1.
    let magnitude = if mode.magnitude_up(x.is_sign_negative(), a - down >= F::HALF) {
        up
    } else {
        down
    };
    magnitude.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::numeric::ROUNDINGS as MODES;

    fn reference(x: f64, mode: RoundingMode) -> f64 {
        match mode {
            RoundingMode::NearestEven => x.round_ties_even(),
            RoundingMode::NearestAway => x.round(),
            RoundingMode::TowardsZero => x.trunc(),
            RoundingMode::TowardsPositive => x.ceil(),
            RoundingMode::TowardsNegative => x.floor(),
        }
    }

    #[test]
    fn rounding_matches_the_standard_library_at_hard_points() {
        let hard = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            2.5,
            -2.5,
            0.499_999_999_999_999_94,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            4_503_599_627_370_497.0,
            9.007_199_254_740_993e15,
            1e300,
            -1e300,
            5e-324,
            -5e-324,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
        ];
        for mode in MODES {
            for x in hard {
                let (got, want) = (round_to_integral(x, mode), reference(x, mode));
                assert_eq!(got.to_bits(), want.to_bits(), "{x} {mode:?}");
                if mode != RoundingMode::NearestEven {
                    let directed = round_to_integral_directed(x, Directed::new(mode));
                    assert_eq!(directed.to_bits(), want.to_bits(), "{x} {mode:?}");
                }
            }
            assert!(round_to_integral(f64::NAN, mode).is_nan());
            assert!(round_to_integral_directed(f64::NAN, Directed::new(mode)).is_nan());
        }
    }

    #[test]
    fn rounding_matches_the_standard_library_for_every_float32_exponent() {
        for mode in MODES {
            for bits in (0..=u32::MAX).step_by(65_521) {
                let x = f32::from_bits(bits);
                if x.is_nan() {
                    continue;
                }
                let want = reference(f64::from(x), mode);
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "integral f32 values are exact"
                )]
                let want = want as f32;
                assert_eq!(
                    round_to_integral(x, mode).to_bits(),
                    want.to_bits(),
                    "{x} {mode:?}"
                );
                if mode != RoundingMode::NearestEven {
                    let directed = round_to_integral_directed(x, Directed::new(mode));
                    assert_eq!(directed.to_bits(), want.to_bits(), "{x} {mode:?}");
                }
            }
        }
    }
}
