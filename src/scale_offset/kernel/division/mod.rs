//! The division by the scale of a float32 or float64 decode, `x / scale` rounded to nearest.
//!
//! float64 takes the hardware division. float32 multiplies in float64 by the float64 reciprocal
//! `y = RN64(1 / scale)` and rounds the product to float32. That is exact for every pair: the
//! product is within `2^-52` (relative) of `x / scale`, while a quotient of two 24-bit
//! significands is at least `2^-49` away from every midpoint between float32 values
//! (`|A·2^s − (2M+1)·B| ≥ 1` for the integer significands; a quotient is never a midpoint).
//! Subnormal quotients only widen the gap.
//!
//! Both are correctly rounded, so a decode checks its results for an overflow rather than its
//! input, and only where the largest element could overflow. NaN passes through as the hardware
//! passes a NaN operand, so a NaN element decodes as it would by division.

use crate::numeric::{FloatFormat, HwFloat};

/// `x / scale` rounded to nearest.
pub(crate) trait Quotient<F: HwFloat>:
    Copy + Send + Sync + std::fmt::Debug + 'static
{
    /// The quotient.
    fn quotient(self, x: F) -> F;

    /// Whether a decode by this quotient, `(d / scale) + offset` for a finite `|d| ≤ largest`,
    /// can overflow. The quotient and the sum are monotonic in `|d|`, so the largest result is
    /// that of `largest`: where it is finite, no result needs a check (an infinite or NaN `d`
    /// gives what the exact path gives).
    fn may_overflow(self, largest: F, offset: F) -> bool {
        !(self.quotient(largest).abs() + offset.abs()).is_finite()
    }
}

/// The hardware division.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hardware<F> {
    scale: F,
}

impl<F: HwFloat> Quotient<F> for Hardware<F> {
    #[inline(always)]
    fn quotient(self, x: F) -> F {
        x / self.scale
    }
}

/// float32 through the float64 reciprocal.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Widened {
    reciprocal: f64,
}

impl<F: HwFloat> Quotient<F> for Widened {
    #[inline(always)]
    fn quotient(self, x: F) -> F {
        F::from_f64(x.to_f64() * self.reciprocal)
    }
}

/// How a decode divides by its scale: the hardware division for float64, the widened product for
/// float32.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Division<F: HwFloat> {
    Hardware(Hardware<F>),
    Widened(Widened),
}

impl<F: HwFloat> Division<F> {
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

#[cfg(test)]
mod tests;
