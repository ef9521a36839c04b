//! The division by the scale of a float32 or float64 decode, `x / scale` rounded to nearest.
//!
//! - Where the loops run with hardware fused multiply-adds, `|scale|` lies in `[2^-B, 2^B]` (`B`
//!   20 for float32, 50 for float64) and the offset is not -0 (where the sign of a zero quotient
//!   would show), a decode takes Markstein's correction of a product with the reciprocal in two
//!   parts, `h = RN(1 / scale)` and `l = RN(1 / scale − h)` (through the exact
//!   `fma(−scale, h, 1)`): `q = RN(x·h + RN(x·l))`, `r = fma(q, −scale, x)`, `q' = fma(r, h, q)`.
//!   With `p` the precision, `x·h + RN(x·l)` is within `2^(2−2p)` (relative) of `x / scale`, so
//!   `q` is faithful; `r`, the remainder of a faithful quotient, is then exact, and by Markstein's
//!   theorem (`h` being the rounded reciprocal) `q'` is the rounded quotient. That holds for
//!   `|x| ≥ 2^(e_min + p + B + 3)`, `e_min` the least normal exponent (`2^-79` for float32,
//!   `2^-916` for float64): there the remainder is a multiple of a unit no finer than the
//!   subnormals' (so `r` is exact), `q'` is normal, and `RN(x·l)`, even where it is subnormal,
//!   errs by less than `2^(−2p)·|x / scale|`. Smaller nonzero magnitudes take the exact path
//!   ([`Correction::unsure`]), as in every decode do those beyond its safe magnitude. It
//!   is a product and three fused multiply-adds where float64's hardware division takes 8 to 16
//!   cycles a vector.
//! - Otherwise float64 takes the hardware division, and float32 multiplies in float64 by the
//!   float64 reciprocal `y = RN64(1 / scale)` and rounds the product to float32. That is exact
//!   for every pair: the product is within `2^-52` (relative) of `x / scale`, while a quotient of
//!   two 24-bit significands is at least `2^-49` away from every midpoint between float32 values
//!   (`|A·2^s − (2M+1)·B| ≥ 1` for the integer significands; a quotient is never a midpoint).
//!   Subnormal quotients only widen the gap. Both are correctly rounded, so the fused read checks
//!   its results for an overflow, and only where the largest dividend could overflow
//!   ([`Division::may_overflow`]); the codec's decode checks its input against a safe magnitude.
//!
//! NaN passes through every step as the hardware passes a NaN operand (no step negates one), so
//! a NaN element decodes as it would by division.

use num_traits::WrappingSub;

use crate::engine::simd::Isa;
use crate::numeric::{FloatFormat, HwFloat, pow2};

/// `x / scale` rounded to nearest, with the decode's correction where it applies.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Division<F: HwFloat> {
    scale: F,
    /// `RN64(1 / scale)`, which float32 multiplies by.
    reciprocal: f64,
    /// Markstein's correction, which the decode loops take in place of [`Division::quotient`].
    pub(crate) correction: Option<Correction<F>>,
}

impl<F: HwFloat> Division<F> {
    /// The correctly rounded division by `scale`: the hardware division for float64, the product
    /// with the float64 reciprocal for float32, settled by `F` where the loops are compiled.
    pub(crate) fn new(scale: F) -> Self {
        Self {
            scale,
            reciprocal: 1.0 / scale.to_f64(),
            correction: None,
        }
    }

    /// The division of a decode that adds `offset`, for loops on `isa`: with the correction where
    /// it applies (the decode sends elements beyond its safe magnitude to the exact path anyway).
    pub(crate) fn decoding(scale: F, offset: F, isa: Isa) -> Self {
        let (range, least) = bounds::<F>();
        let applies = isa.has_fma()
            && (pow2(-range)..=pow2(range)).contains(&scale.abs().to_f64())
            && !(offset.is_zero() && offset.is_sign_negative());
        let high = F::one() / scale;
        let correction = applies.then(|| Correction {
            high,
            low: (-scale).mul_add(high, F::one()) / scale,
            negated: -scale,
            least: F::from_f64(least).encoding(),
        });
        Self {
            correction,
            ..Self::new(scale)
        }
    }

    /// The rounded quotient.
    #[inline(always)]
    pub(crate) fn quotient(self, x: F) -> F {
        if F::FORMAT == FloatFormat::FLOAT32 {
            F::from_f64(x.to_f64() * self.reciprocal)
        } else {
            x / self.scale
        }
    }

    /// Whether a decode by this division, `(d / scale) + offset` for a finite `|d| ≤ largest`,
    /// can overflow. The quotient and the sum are monotonic in `|d|`, so the largest result is
    /// that of `largest`: where it is finite, no result needs a check (an infinite or NaN `d`
    /// gives what the exact path gives).
    pub(crate) fn may_overflow(self, largest: F, offset: F) -> bool {
        !(self.quotient(largest).abs() + offset.abs()).is_finite()
    }
}

/// For `F`: `B`, and `2^(e_min + p + B + 3)`, the least magnitude whose quotient the correction
/// computes exactly.
pub(crate) fn bounds<F: HwFloat>() -> (i32, f64) {
    let precision = i32::try_from(F::FORMAT.mantissa_bits).expect("small") + 1;
    let range = if F::FORMAT == FloatFormat::FLOAT32 {
        20
    } else {
        50
    };
    (range, pow2(1 - F::FORMAT.bias + precision + range + 3))
}

/// Markstein's correction of the product with the reciprocal in two parts (see the module's
/// documentation): the rounded quotient wherever [`Correction::unsure`] has a clear sign bit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Correction<F: HwFloat> {
    /// `h = RN(1 / scale)`.
    high: F,
    /// `l = RN(1 / scale − h)`.
    low: F,
    /// `-scale`.
    negated: F,
    /// The encoding of the least magnitude whose quotient is exact.
    least: F::Bits,
}

impl<F: HwFloat> Correction<F> {
    /// `q'`, the rounded quotient where `x` is not [`unsure`](Self::unsure) and within the
    /// decode's safe magnitude.
    #[inline(always)]
    pub(crate) fn quotient(self, x: F) -> F {
        let q = x.mul_add(self.high, x * self.low);
        let r = q.mul_add(self.negated, x);
        r.mul_add(self.high, q)
    }

    /// Bits whose sign bit is set where the quotient of `x` may be inexact though `x` is within
    /// the decode's safe magnitude: a nonzero magnitude below the least (the decode's own check
    /// takes the larger magnitudes and the infinities; NaN is neither).
    #[inline(always)]
    pub(crate) fn unsure(self, x: F) -> F::Bits {
        let magnitude = x.abs().encoding();
        // Both negative below `least` and not zero (the magnitude's encoding has a clear sign
        // bit, so adding the largest positive encoding sets it unless it is zero).
        magnitude.wrapping_sub(&self.least) & (magnitude + !(-F::zero()).encoding())
    }
}

#[cfg(test)]
mod tests;
