//! Fast path: 8- to 64-bit integers to float32 and float64.
//!
//! The hardware conversion rounds to nearest, ties to even, which is the `nearest-even` result.
//! For the other modes it is used where it is exact (magnitudes up to `2^precision`); larger
//! values are flagged for the exact path. No integer exceeds the float32 range.

use std::marker::PhantomData;

use num_traits::AsPrimitive;

use super::kernel::FastPath;
use crate::numeric::{Element, HwFloat, IntElement, MapInput, RoundingMode};

/// An integer → float fast path.
#[derive(Debug)]
pub(crate) struct IntToFloat<S: IntElement, D> {
    rounding: RoundingMode,
    /// `-2^precision`, or the source's minimum if that is larger.
    lo: S::Storage,
    /// `2^precision`, or the source's maximum if that is smaller.
    hi: S::Storage,
    types: PhantomData<fn() -> D>,
}

impl<S: IntElement, D: Element<Storage: HwFloat>> IntToFloat<S, D> {
    pub(crate) fn new(rounding: RoundingMode) -> Self {
        let exact = 1i128 << <D::Storage as HwFloat>::FORMAT.precision();
        Self {
            rounding,
            lo: S::from_i128_clamped(-exact),
            hi: S::from_i128_clamped(exact),
            types: PhantomData,
        }
    }
}

impl<S, D> FastPath for IntToFloat<S, D>
where
    S: IntElement + MapInput,
    D: Element<Storage: HwFloat>,
    S::Storage: AsPrimitive<D::Storage>,
{
    type From = S;
    type To = D;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn convert(&self, input: &[S::Storage], output: &mut [D::Storage]) -> bool {
        for (&x, y) in input.iter().zip(output.iter_mut()) {
            *y = x.as_();
        }
        if self.rounding == RoundingMode::NearestEven {
            return false;
        }
        let (lo, hi) = (self.lo, self.hi);
        let mut outside = false;
        for &x in input {
            outside |= x < lo;
            outside |= x > hi;
        }
        outside
    }
}
