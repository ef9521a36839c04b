//! The division by the scale of a float32 or float64 decode, `x / scale` rounded to nearest.
//!
//! float64 takes the hardware division. float32 multiplies in float64 by the float64 reciprocal
//! `y = RN64(1 / scale)` and rounds the product to float32. That is exact for every pair: the
//! product is within `2^-52` (relative) of `x / scale`, while a quotient of two 24-bit
//! significands is at least `2^-49` away from every midpoint between float32 values
//! (`|A·2^s − (2M+1)·B| ≥ 1` for the integer significands; a quotient is never a midpoint).
//! Subnormal quotients only widen the gap.
//!
//! Both are correctly rounded, so a decode needs a check for an overflow only where the largest
//! element could overflow: a decode into new memory then checks its results, one in place (which
//! overwrites its input) the input against a safe magnitude. NaN passes through as the hardware
//! passes a NaN operand, so a NaN element decodes as it would by division.

use crate::numeric::{FloatFormat, HwFloat};

/// `x / scale` rounded to nearest: the hardware division for float64, the product with the
/// float64 reciprocal for float32. Which one is a property of `F`, settled when the loops are
/// compiled.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Division<F> {
    scale: F,
    /// `RN64(1 / scale)`, which float32 multiplies by.
    reciprocal: f64,
}

impl<F: HwFloat> Division<F> {
    /// The division by `scale`.
    pub(crate) fn new(scale: F) -> Self {
        Self {
            scale,
            reciprocal: 1.0 / scale.to_f64(),
        }
    }

    /// The quotient.
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

#[cfg(test)]
mod tests;
