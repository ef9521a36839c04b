//! The division by the scale of a float32 or float64 decode, `x / scale` rounded to nearest,
//! computed without the hardware division where products are as exact and several times faster.
//!
//! - Where the hardware has fused multiply-adds, and `|scale|` lies in `[2^-B, 2^B]` (`B` 20 for
//!   float32, 50 for float64) and the offset is not -0 (where the sign of a zero quotient would
//!   show), both types take Markstein's correction of a product with the reciprocal in two parts,
//!   `h = RN(1 / scale)` and `l = RN(1 / scale − h)` (through the exact `fma(−scale, h, 1)`):
//!   `q = RN(x·h + RN(x·l))`, `r = fma(q, −scale, x)`, `q' = fma(r, h, q)`. With `p` the
//!   precision, `x·h + RN(x·l)` is within `2^(2−2p)` (relative) of `x / scale`, so `q` is
//!   faithful; `r`, the remainder of a faithful quotient, is then exact, and by Markstein's
//!   theorem (`h` being the rounded reciprocal) `q'` is the rounded quotient. That holds for
//!   `|x| ≥ 2^(e_min + p + B + 3)`, `e_min` the least normal exponent (`2^-79` for float32,
//!   `2^-916` for float64): there the remainder is a multiple of a unit no finer than the
//!   subnormals' (so `r` is exact), `q'` is normal, and `RN(x·l)`, even where it is subnormal,
//!   errs by less than `2^(−2p)·|x / scale|`. Below that, `|q'|` and the rounded quotient are
//!   both under `2^(e_min + p + 2B + 6)`: an offset of magnitude at least
//!   `2^(e_min + 2p + 2B + 8)` (`2^-30`, `2^-808`) is more than four times their unit in the last
//!   place, and adding it gives the offset either way. With a smaller offset, nonzero elements
//!   below that magnitude take the exact path (two integer operations on the magnitude's
//!   encoding per element find them).
//! - Otherwise float32 multiplies in float64 by the float64 reciprocal `y = RN64(1 / scale)` and
//!   rounds the product to float32. That is exact for every pair: the product is within `2^-52`
//!   (relative) of `x / scale`, while a quotient of two 24-bit significands is at least `2^-49`
//!   away from every midpoint between float32 values (`|A·2^s − (2M+1)·B| ≥ 1` for the integer
//!   significands; a quotient is never a midpoint). Subnormal quotients only widen the gap.
//!   float64 takes the hardware division.
//!
//! A decode by the correction checks its input against the magnitude up to which nothing
//! overflows, and sends larger elements and infinities to the exact path; one by a correctly
//! rounded quotient checks its results for an overflow instead. NaN passes through every step as
//! the hardware passes a NaN operand (no step negates one), so a NaN element decodes as it would
//! by division.

use num_traits::Zero;

use crate::engine::simd::Isa;
use crate::numeric::{FloatFormat, HwFloat, pow2};

/// `x / scale`, exactly where its flag bits have a clear sign bit, for `x` up to the decode's
/// safe magnitude ([`safe_magnitude`](super::float::safe_magnitude); the kernels send larger
/// elements to the exact path anyway), but for the sign of a zero quotient and quotients that
/// the decode's offset absorbs: what the decode's addition of its offset (other than -0) gives
/// is exact. The flags depend on `x` alone, so that a decode can check a run before it computes
/// it.
pub(crate) trait Quotient<F: HwFloat>:
    Copy + Send + Sync + std::fmt::Debug + 'static
{
    /// Whether the quotient is `x / scale` rounded to nearest for every `x`, infinities and the
    /// largest magnitudes included (its flag bits are then zero): a decode by it then needs no
    /// check of its input, as an overflow shows in its result.
    const CORRECTLY_ROUNDED: bool;

    /// The quotient, and bits whose sign bit is set if it may be inexact.
    fn quotient(self, x: F) -> (F, F::Bits);

    /// Whether the decode of `x` by this quotient is known to be exact (one element, outside
    /// the loops).
    fn is_exact(self, x: F) -> bool {
        !F::sign_bit(self.quotient(x).1)
    }

    /// Whether a decode by this quotient, `(d / scale) + offset` for a finite `|d| ≤ largest`,
    /// can overflow. The quotient and the sum are monotonic in `|d|`, so the largest result is
    /// that of `largest`: where it is finite, a correctly rounded quotient's results need no
    /// check (an infinite or NaN `d` gives what the exact path gives). Always `true` for the
    /// correction, whose loop checks every element anyway.
    fn may_overflow(self, largest: F, offset: F) -> bool {
        !Self::CORRECTLY_ROUNDED || !(self.quotient(largest).0.abs() + offset.abs()).is_finite()
    }
}

/// The hardware division.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hardware<F> {
    scale: F,
}

impl<F> Hardware<F> {
    /// The division by `scale`.
    pub(crate) fn new(scale: F) -> Self {
        Self { scale }
    }
}

impl<F: HwFloat> Quotient<F> for Hardware<F> {
    const CORRECTLY_ROUNDED: bool = true;

    #[inline(always)]
    fn quotient(self, x: F) -> (F, F::Bits) {
        (x / self.scale, F::Bits::zero())
    }
}

/// float32 through the float64 reciprocal.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Widened {
    reciprocal: f64,
}

impl<F: HwFloat> Quotient<F> for Widened {
    const CORRECTLY_ROUNDED: bool = true;

    #[inline(always)]
    fn quotient(self, x: F) -> (F, F::Bits) {
        (F::from_f64(x.to_f64() * self.reciprocal), F::Bits::zero())
    }
}

/// Markstein's correction of the product with the reciprocal in two parts. With `SMALL`, it
/// flags the nonzero magnitudes below those it computes exactly; without, the decode's offset
/// absorbs their quotients. Not correctly rounded there, nor for infinities, which the decode's
/// check of its input sends to the exact path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Compensated<F: HwFloat, const SMALL: bool> {
    /// `h = RN(1 / scale)`.
    high: F,
    /// `l = RN(1 / scale − h)`.
    low: F,
    /// `-scale`.
    negated: F,
    /// The encoding of the least magnitude whose quotient is exact.
    least: F::Bits,
}

impl<F: HwFloat, const SMALL: bool> Quotient<F> for Compensated<F, SMALL> {
    const CORRECTLY_ROUNDED: bool = false;

    #[inline(always)]
    fn quotient(self, x: F) -> (F, F::Bits) {
        let q = x.mul_add(self.high, x * self.low);
        let r = q.mul_add(self.negated, x);
        let q = r.mul_add(self.high, q);
        if !SMALL {
            return (q, F::Bits::zero());
        }
        // Below `least` and not zero: both differences negative (the magnitude's encoding has a
        // clear sign bit, so adding the largest positive encoding sets it unless it is zero).
        let magnitude = x.abs().encoding();
        let positive = !(-F::zero()).encoding();
        let below = num_traits::WrappingSub::wrapping_sub(&magnitude, &self.least);
        (q, below & (magnitude + positive))
    }
}

impl<F: HwFloat, const SMALL: bool> Compensated<F, SMALL> {
    fn new(scale: F) -> Self {
        let high = F::one() / scale;
        Self {
            high,
            low: (-scale).mul_add(high, F::one()) / scale,
            negated: -scale,
            least: F::from_f64(Bounds::of::<F>().least).encoding(),
        }
    }
}

/// Where the correction applies, for one float type (see the module's documentation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    /// `B`: the correction takes scales of magnitude in `[2^-B, 2^B]`.
    pub(crate) range: i32,
    /// `2^(e_min + p + B + 3)`: the least magnitude whose quotient it computes exactly.
    pub(crate) least: f64,
    /// `2^(e_min + 2p + 2B + 8)`: the least offset magnitude that absorbs the quotients of smaller
    /// magnitudes.
    pub(crate) absorbing: f64,
}

impl Bounds {
    /// The bounds for `F`.
    pub(crate) fn of<F: HwFloat>() -> Self {
        let format = F::FORMAT;
        let precision = i32::try_from(format.mantissa_bits).expect("small") + 1;
        let least_exponent = 1 - format.bias;
        let range = if format == FloatFormat::FLOAT32 {
            20
        } else {
            50
        };
        Self {
            range,
            least: pow2(least_exponent + precision + range + 3),
            absorbing: pow2(least_exponent + 2 * precision + 2 * range + 8),
        }
    }

    /// Whether the correction takes `scale`.
    fn takes(self, scale: f64) -> bool {
        (pow2(-self.range)..=pow2(self.range)).contains(&scale.abs())
    }
}

/// The division of a loop bound by the memory it writes rather than by its arithmetic (the
/// fused read, whose float64 output streams into a large buffer): there the divider runs
/// alongside the other operations, and a correction's extra operations cost more than they
/// save (the fused read of the reflectance benchmark took 10-13 % longer with a checked one on
/// an Intel Xeon). The hardware division for float64, the widened product for float32; both
/// correctly rounded.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Streaming<F: HwFloat> {
    Hardware(Hardware<F>),
    Widened(Widened),
}

impl<F: HwFloat> Streaming<F> {
    /// The division by `scale`.
    pub(crate) fn new(scale: F) -> Self {
        if F::FORMAT == FloatFormat::FLOAT32 {
            Self::Widened(Widened {
                reciprocal: 1.0 / scale.to_f64(),
            })
        } else {
            Self::Hardware(Hardware { scale })
        }
    }
}

/// How a kernel divides by its scale.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Division<F: HwFloat> {
    Streaming(Streaming<F>),
    /// The correction, with an offset that absorbs the quotients of the least magnitudes.
    Compensated(Compensated<F, false>),
    /// The correction, sending the least magnitudes to the exact path.
    CompensatedSmall(Compensated<F, true>),
}

impl<F: HwFloat> Division<F> {
    /// The division by `scale` of a decode that then adds `offset`, for loops on `isa`.
    pub(crate) fn new(scale: F, offset: F, isa: Isa) -> Self {
        let bounds = Bounds::of::<F>();
        let applies = isa.has_fma()
            && bounds.takes(scale.to_f64())
            && !(offset.is_zero() && offset.is_sign_negative());
        if !applies {
            Self::Streaming(Streaming::new(scale))
        } else if offset.abs().to_f64() >= bounds.absorbing {
            Self::Compensated(Compensated::new(scale))
        } else {
            Self::CompensatedSmall(Compensated::new(scale))
        }
    }

    /// [`Quotient::is_exact`] of this division.
    #[cfg(test)]
    pub(crate) fn is_exact(self, x: F) -> bool {
        match self {
            Self::Streaming(Streaming::Hardware(q)) => q.is_exact(x),
            Self::Streaming(Streaming::Widened(q)) => q.is_exact(x),
            Self::Compensated(q) => q.is_exact(x),
            Self::CompensatedSmall(q) => q.is_exact(x),
        }
    }
}

#[cfg(test)]
mod tests;
