//! Fast path: float16, bfloat16, float32 and float64 to float32 and float64.
//!
//! Widening (and the identity) is exact: NaN stays NaN, infinities and signed zeros are kept.
//! Narrowing float64 → float32 uses the hardware conversion, which rounds to nearest, ties to
//! even; the directed modes then step one unit in the last place where the nearest result lies on
//! the wrong side, and `nearest-away` where the input was an exact tie. The steps are bit
//! increments (they cross binades and subnormals correctly), and the tie test is exact because
//! differences of neighbouring floats are exact in float64. A result beyond the float32 range is
//! flagged for the exact path, which applies the out-of-range mode.

use std::marker::PhantomData;

use num_traits::{AsPrimitive, Float, Zero};

use super::kernel::FastPath;
use crate::numeric::{Element, FloatElement, HwFloat, MapInput, RoundingMode, Storage};

/// A float → float fast path.
#[derive(Debug)]
pub(crate) struct FloatToFloat<S, D> {
    rounding: RoundingMode,
    types: PhantomData<fn() -> (S, D)>,
}

impl<S, D> FloatToFloat<S, D> {
    pub(crate) fn new(rounding: RoundingMode) -> Self {
        Self {
            rounding,
            types: PhantomData,
        }
    }
}

/// The next float towards +Infinity (`r` finite).
#[inline]
fn next_up<F: HwFloat>(r: F) -> F {
    let bits = Storage::to_bits(r);
    if r > F::zero() {
        F::from_bits(bits + 1)
    } else if r < F::zero() {
        F::from_bits(bits - 1)
    } else {
        F::from_bits(1)
    }
}

/// The next float towards -Infinity (`r` finite).
#[inline]
fn next_down<F: HwFloat>(r: F) -> F {
    -next_up(-r)
}

impl<S, D> FloatToFloat<S, D>
where
    S: FloatElement + MapInput,
    D: Element<Storage: HwFloat>,
    S::Wide: AsPrimitive<D::Storage>,
    D::Storage: AsPrimitive<S::Wide>,
{
    /// Whether the target is narrower than the source's float.
    const NARROWING: bool = size_of::<D::Storage>() < size_of::<S::Wide>();

    /// `w` rounded to the target in `mode`.
    #[expect(
        clippy::inline_always,
        reason = "called with a constant mode, which must fold into one loop per mode"
    )]
    #[inline(always)]
    fn narrow(w: S::Wide, mode: RoundingMode) -> D::Storage {
        let r: D::Storage = w.as_();
        let back: S::Wide = r.as_();
        match mode {
            RoundingMode::NearestEven => r,
            RoundingMode::TowardsZero => {
                let toward_zero = if r > D::Storage::zero() {
                    next_down(r)
                } else {
                    next_up(r)
                };
                if back.abs() > w.abs() { toward_zero } else { r }
            }
            RoundingMode::TowardsPositive => {
                if back < w {
                    next_up(r)
                } else {
                    r
                }
            }
            RoundingMode::TowardsNegative => {
                if back > w {
                    next_down(r)
                } else {
                    r
                }
            }
            RoundingMode::NearestAway => {
                let other = if back < w { next_up(r) } else { next_down(r) };
                let other_back: S::Wide = other.as_();
                let tie = w - back == other_back - w;
                if tie && back.abs() < w.abs() {
                    other
                } else {
                    r
                }
            }
        }
    }

    #[expect(
        clippy::inline_always,
        reason = "called with a constant mode, which must fold into one loop per mode"
    )]
    #[inline(always)]
    fn run(
        mode: RoundingMode,
        input: &[S::Storage],
        output: &mut [D::Storage],
        flags: &mut [u8],
    ) -> bool {
        let mut any = false;
        for ((&x, y), flag) in input.iter().zip(output.iter_mut()).zip(flags.iter_mut()) {
            let w = S::widen(x);
            let r = Self::narrow(w, mode);
            // Beyond the finite range, or next to it where the nearest result already
            // overflowed: the exact path decides.
            let nearest: D::Storage = w.as_();
            let overflow = w.is_finite() && !(r.is_finite() && nearest.is_finite());
            *y = r;
            *flag = u8::from(overflow);
            any |= overflow;
        }
        any
    }
}

impl<S, D> FastPath for FloatToFloat<S, D>
where
    S: FloatElement + MapInput,
    D: Element<Storage: HwFloat>,
    S::Wide: AsPrimitive<D::Storage>,
    D::Storage: AsPrimitive<S::Wide>,
{
    type From = S;
    type To = D;

    fn convert(&self, input: &[S::Storage], output: &mut [D::Storage], flags: &mut [u8]) -> bool {
        if !Self::NARROWING {
            // Exact: every value of the source is a value of the target.
            for (&x, y) in input.iter().zip(output.iter_mut()) {
                *y = S::widen(x).as_();
            }
            return false;
        }
        match self.rounding {
            RoundingMode::NearestEven => Self::run(RoundingMode::NearestEven, input, output, flags),
            RoundingMode::NearestAway => Self::run(RoundingMode::NearestAway, input, output, flags),
            RoundingMode::TowardsZero => Self::run(RoundingMode::TowardsZero, input, output, flags),
            RoundingMode::TowardsPositive => {
                Self::run(RoundingMode::TowardsPositive, input, output, flags)
            }
            RoundingMode::TowardsNegative => {
                Self::run(RoundingMode::TowardsNegative, input, output, flags)
            }
        }
    }
}
