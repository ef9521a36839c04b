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
use crate::numeric::{Element, FloatElement, HwFloat, MapInput, RoundingMode};

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
                    r.next_down()
                } else {
                    r.next_up()
                };
                if back.abs() > w.abs() { toward_zero } else { r }
            }
            RoundingMode::TowardsPositive => {
                if back < w {
                    r.next_up()
                } else {
                    r
                }
            }
            RoundingMode::TowardsNegative => {
                if back > w {
                    r.next_down()
                } else {
                    r
                }
            }
            RoundingMode::NearestAway => {
                let other = if back < w { r.next_up() } else { r.next_down() };
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

    /// Whether the element needs the exact path: beyond the finite range, or next to it where
    /// the nearest result already overflowed.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn undecided(w: S::Wide, r: D::Storage) -> bool {
        let nearest: D::Storage = w.as_();
        w.is_finite() && !(r.is_finite() && nearest.is_finite())
    }

    #[expect(
        clippy::inline_always,
        reason = "called with a constant mode, which must fold into one loop per mode"
    )]
    #[inline(always)]
    fn run(mode: RoundingMode, input: &[S::Storage], output: &mut [D::Storage]) -> bool {
        let mut any = false;
        for (&x, y) in input.iter().zip(output.iter_mut()) {
            let w = S::widen(x);
            let r = Self::narrow(w, mode);
            *y = r;
            any |= Self::undecided(w, r);
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

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn convert(&self, input: &[S::Storage], output: &mut [D::Storage]) -> bool {
        if !Self::NARROWING {
            // Exact: every value of the source is a value of the target.
            for (&x, y) in input.iter().zip(output.iter_mut()) {
                *y = S::widen(x).as_();
            }
            return false;
        }
        match self.rounding {
            RoundingMode::NearestEven => Self::run(RoundingMode::NearestEven, input, output),
            RoundingMode::NearestAway => Self::run(RoundingMode::NearestAway, input, output),
            RoundingMode::TowardsZero => Self::run(RoundingMode::TowardsZero, input, output),
            RoundingMode::TowardsPositive => {
                Self::run(RoundingMode::TowardsPositive, input, output)
            }
            RoundingMode::TowardsNegative => {
                Self::run(RoundingMode::TowardsNegative, input, output)
            }
        }
    }
}
