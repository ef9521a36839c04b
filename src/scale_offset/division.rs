//! The division by the scale of a float32 or float64 decode, `x / scale` rounded to nearest,
//! computed without the hardware division where a product is as exact and several times faster.
//!
//! - float32 multiplies in float64 by the float64 reciprocal `y = RN64(1 / scale)` and rounds the
//!   product to float32. That is exact for every pair: the product is within `2^-52` (relative)
//!   of `x / scale`, while a quotient of two 24-bit significands is at least `2^-49` away from
//!   every midpoint between float32 values (`|A·2^s − (2M+1)·B| ≥ 1` for the integer
//!   significands; a quotient is never a midpoint). Subnormal quotients only widen the gap.
//! - float64 has no wider type: it takes Markstein's correction of the product with the
//!   reciprocal, `q = x·y`, `r = fma(q, −scale, x)`, `q' = fma(r, y, q)`, and then checks `q'`
//!   exactly. With `R = x − scale·q'` and `g` the smaller gap between `q'` and its neighbours,
//!   `q'` is the rounded quotient if `|R| ≤ |scale|·g/2`: no quotient lies on a midpoint, and
//!   where `|R|` is that bound, `q'` is faithful and `R`, the remainder of a faithful quotient,
//!   has at most 53 significant bits. The check computes `R·S` by a fused multiply-add, `S` a
//!   power of two that keeps it in the normal range (so that it is exact there whatever the
//!   exponent of `R`), and compares it with the bound times `S`: `2^e'·|scale|·2^-53·S`, with
//!   `2^e'` the exponent of `q'·(1 − 2^-53)` (one less at a power of two, where the gap below is
//!   half the gap above), an exact float64 in `[2^-1022, 2^1024)`. For a subnormal or zero `q'`
//!   the bound is 0, and `R·S` rounds to 0 only if `R` is 0. Elements that fail the check go to
//!   the exact element function; by Markstein's theorem, none but those near the bottom of the
//!   range do. For a scale beyond `2^±50` or an offset of -0 (where the sign of a zero quotient
//!   would show), the hardware division runs instead.
//! - Both types need no check at all where the offset is not too small: with `p` the precision,
//!   `e_min` the least normal exponent and `|scale|` in `[2^-B, 2^B]` (`B` 20 for float32, 50
//!   for float64), an offset of magnitude at least `2^(e_min + 2p + 2B + 8)` (`2^-30`, `2^-808`).
//!   They take the reciprocal in two parts, `h = RN(1 / scale)` and `l = RN(1 / scale − h)`
//!   (through the exact `fma(−scale, h, 1)`), and then `q = RN(x·h + RN(x·l))`,
//!   `r = fma(q, −scale, x)`, `q' = fma(r, h, q)`. `x·h + RN(x·l)` is within `2^(2−2p)`
//!   (relative) of `x / scale`, so `q` is faithful; `r`, the remainder of a faithful quotient,
//!   is then exact, and by Markstein's theorem (`h` being the rounded reciprocal) `q'` is the
//!   rounded quotient. That holds for `|x| ≥ 2^(e_min + p + B + 3)`, where every step stays in
//!   the normal range. Below that, `|q'|` and the rounded quotient are both under
//!   `2^(e_min + p + 2B + 6)`, less than a quarter of the offset's unit in the last place, so
//!   adding the offset gives the offset either way.
//!
//! The corrections need a fused multiply-add in hardware, which the portable build may lack;
//! there, float64 takes the hardware division. A decode checks its input against the magnitude up
//! to which nothing overflows anyway, and sends larger elements and infinities to the exact path.
//!
//! NaN passes through every step as the hardware passes a NaN operand (no step negates one), so
//! a NaN element decodes as it would by division.

use num_traits::Zero;

use crate::kernel::simd::Isa;
use crate::numeric::{FloatFormat, HwFloat};

/// `x / scale`, exactly where its flag bits have a clear sign bit, for `x` up to the decode's
/// safe magnitude ([`safe_magnitude`](super::float::safe_magnitude); the kernels send larger
/// elements to the exact path anyway), but for the sign of a zero quotient and, for
/// [`Compensated`], quotients that the decode's offset absorbs: what the decode's addition of
/// its offset gives is exact.
pub(crate) trait Quotient<F: HwFloat>: Copy {
    /// Whether the quotient is `x / scale` rounded to nearest for every `x`, infinities and the
    /// largest magnitudes included (its flag bits are then zero): a decode by it then needs no
    /// check of its input, as an overflow shows in its result.
    const CORRECTLY_ROUNDED: bool;
    /// Whether the flag bits may be set: if not, a decode checks only its input's magnitude, and
    /// can do so before it computes anything.
    const FLAGS: bool;

    /// The quotient, and bits whose sign bit is set if it may be inexact.
    fn quotient(self, x: F) -> (F, F::Bits);
}

/// The hardware division.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hardware<F> {
    scale: F,
}

impl<F: HwFloat> Quotient<F> for Hardware<F> {
    const CORRECTLY_ROUNDED: bool = true;
    const FLAGS: bool = false;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
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
    const FLAGS: bool = false;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn quotient(self, x: F) -> (F, F::Bits) {
        (F::from_f64(x.to_f64() * self.reciprocal), F::Bits::zero())
    }
}

/// float64 by Markstein's correction, checked. The residuals are computed scaled by a power of
/// two `S ≥ 8` that keeps them in the normal range, where the remainder of a faithful quotient is
/// exact whatever its exponent.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Corrected<F: HwFloat> {
    reciprocal: F,
    /// `S`.
    unit: F,
    /// `reciprocal / S`.
    reciprocal_unit: F,
    /// `-scale·S`.
    negated: F,
    /// `1 - 2^-p`.
    below_one: F,
    /// `|scale|·2^-p·S`, in `[1, 2)`.
    bound: F,
}

impl<F: HwFloat> Quotient<F> for Corrected<F> {
    const CORRECTLY_ROUNDED: bool = false;
    const FLAGS: bool = true;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn quotient(self, x: F) -> (F, F::Bits) {
        let scaled = x * self.unit;
        let q = x * self.reciprocal;
        let r = q.mul_add(self.negated, scaled);
        let q = r.mul_add(self.reciprocal_unit, q);
        // |R|·S against the bound times S: the sign of the difference.
        let exponent = F::from_encoding((q * self.below_one).encoding() & F::EXPONENT);
        let remainder = q.mul_add(self.negated, scaled);
        let over = exponent * self.bound - remainder.abs();
        (q, over.encoding())
    }
}

/// Markstein's correction of the product with the reciprocal in two parts, for a decode whose
/// offset absorbs the quotients of the least magnitudes. Not correctly rounded there, nor for
/// infinities, which the decode's check of its input sends to the exact path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Compensated<F> {
    /// `h = RN(1 / scale)`.
    high: F,
    /// `l = RN(1 / scale − h)`.
    low: F,
    /// `-scale`.
    negated: F,
}

impl<F: HwFloat> Quotient<F> for Compensated<F> {
    const CORRECTLY_ROUNDED: bool = false;
    const FLAGS: bool = false;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn quotient(self, x: F) -> (F, F::Bits) {
        let q = x.mul_add(self.high, x * self.low);
        let r = q.mul_add(self.negated, x);
        (r.mul_add(self.high, q), F::Bits::zero())
    }
}

impl<F: HwFloat> Compensated<F> {
    /// The correction for `scale` and `offset`, if it applies (see the module's documentation).
    fn new(scale: F, offset: F) -> Option<Self> {
        let format = F::FORMAT;
        let precision = i32::try_from(format.mantissa_bits).expect("small") + 1;
        let least_exponent = 1 - format.bias;
        let range = if format == FloatFormat::FLOAT32 {
            20
        } else {
            50
        };
        let least_offset = 2f64.powi(least_exponent + 2 * precision + 2 * range + 8);
        let magnitude = scale.abs().to_f64();
        let applies = (2f64.powi(-range)..=2f64.powi(range)).contains(&magnitude)
            && offset.abs().to_f64() >= least_offset;
        applies.then(|| {
            let high = F::one() / scale;
            Self {
                high,
                low: (-scale).mul_add(high, F::one()) / scale,
                negated: -scale,
            }
        })
    }
}

/// The division of a loop bound by the memory it writes rather than by its arithmetic (the
/// fused read, whose float64 output streams into a large buffer): there the divider runs
/// alongside the other operations, and a correction's extra operations cost more than they
/// save (the fused read of the reflectance benchmark took 10-13 % longer with the checked one on
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

    /// Whether a decode by this division, `(d / scale) + offset` for a finite `|d| ≤ largest`, can
    /// overflow. The quotient and the sum are monotonic in `|d|`, so the largest result is that
    /// of `largest`: where it is finite, the results need no check (an infinite or NaN `d` gives
    /// what the exact path gives).
    pub(crate) fn may_overflow(self, largest: F, offset: F) -> bool {
        let quotient = match self {
            Self::Hardware(q) => q.quotient(largest).0,
            Self::Widened(q) => q.quotient(largest).0,
        };
        !(quotient.abs() + offset.abs()).is_finite()
    }

    /// Runs `body` with this division's quotient.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    pub(crate) fn with<W: WithQuotient<F>>(self, body: W) -> W::Output {
        match self {
            Self::Hardware(q) => body.run(q),
            Self::Widened(q) => body.run(q),
        }
    }
}

/// How a kernel divides by its scale.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Division<F: HwFloat> {
    Streaming(Streaming<F>),
    Corrected(Corrected<F>),
    Compensated(Compensated<F>),
}

/// A loop to run with the quotient of a [`Division`].
pub(crate) trait WithQuotient<F: HwFloat> {
    /// What the loop gives.
    type Output;
    /// Runs the loop with `quotient`.
    fn run<Q: Quotient<F>>(self, quotient: Q) -> Self::Output;
}

impl<F: HwFloat> Division<F> {
    /// The division by `scale` of a decode that then adds `offset`, for loops on `isa`.
    pub(crate) fn new(scale: F, offset: F, isa: Isa) -> Self {
        if !isa.has_fma() {
            return Self::Streaming(Streaming::new(scale));
        }
        if let Some(compensated) = Compensated::new(scale, offset) {
            return Self::Compensated(compensated);
        }
        let precision = F::FORMAT.mantissa_bits + 1;
        let magnitude = scale.abs().to_f64();
        let eligible = F::FORMAT == FloatFormat::FLOAT64
            && (2f64.powi(-50)..=2f64.powi(50)).contains(&magnitude)
            && !(offset.is_zero() && offset.is_sign_negative());
        if !eligible {
            return Self::Streaming(Streaming::new(scale));
        }
        let unit = F::from_f64(2f64.powi(-i32::try_from(precision).expect("small")));
        let bound = scale.abs() * unit;
        // S: the power of two that takes `bound` into [1, 2).
        let s = F::one() / F::from_encoding(bound.encoding() & F::EXPONENT);
        let reciprocal = F::one() / scale;
        Self::Corrected(Corrected {
            reciprocal,
            unit: s,
            reciprocal_unit: reciprocal / s,
            negated: -scale * s,
            below_one: F::one() - unit,
            bound: bound * s,
        })
    }

    /// The largest magnitude this division takes (where `x·S` stays finite), or `None` if it takes
    /// every finite one.
    pub(crate) fn limit(self) -> Option<F> {
        match self {
            Self::Corrected(c) => Some(F::max_value() / c.unit / (F::one() + F::one())),
            _ => None,
        }
    }

    /// Whether a decode by this division, `(d / scale) + offset` for a finite `|d| ≤ largest`, can
    /// overflow ([`Streaming::may_overflow`]). Always `true` for a quotient that is not correctly
    /// rounded, whose loop checks every element anyway.
    pub(crate) fn may_overflow(self, largest: F, offset: F) -> bool {
        match self {
            Self::Streaming(s) => s.may_overflow(largest, offset),
            Self::Corrected(_) | Self::Compensated(_) => true,
        }
    }

    /// Whether the decode of `x` by the fast quotient is known to be exact (one element, outside
    /// the loops).
    pub(crate) fn is_exact(self, x: F) -> bool {
        match self {
            Self::Corrected(q) => !F::sign_bit(q.quotient(x).1),
            Self::Streaming(_) | Self::Compensated(_) => true,
        }
    }

    /// Whether the quotient is correctly rounded for every element.
    #[cfg(test)]
    pub(crate) fn is_correctly_rounded(self) -> bool {
        matches!(self, Self::Streaming(_))
    }

    /// Runs `body` with this division's quotient.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    pub(crate) fn with<W: WithQuotient<F>>(self, body: W) -> W::Output {
        match self {
            Self::Streaming(s) => s.with(body),
            Self::Corrected(q) => body.run(q),
            Self::Compensated(q) => body.run(q),
        }
    }
}

#[cfg(test)]
#[path = "division_tests.rs"]
mod tests;
