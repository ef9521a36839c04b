//! Fast path: 16- to 64-bit integers to any integer type.
//!
//! The target's bounds are held in the source type (intersected with the source range), so the
//! range test, the clamp and the exact conversion all happen in the source type. Wrapping keeps
//! the low bits (two's complement truncation, sign-extended for signed targets).

use std::marker::PhantomData;

use num_traits::AsPrimitive;

use super::kernel::FastPath;
use crate::numeric::{IntElement, MapInput, OutOfRangeMode};

/// An integer → integer fast path.
#[derive(Debug)]
pub(crate) struct IntToInt<S: IntElement, D> {
    out_of_range: Option<OutOfRangeMode>,
    /// The target's smallest value, or the source's if that is larger.
    lo: S::Storage,
    /// The target's largest value, or the source's if that is smaller.
    hi: S::Storage,
    types: PhantomData<fn() -> D>,
}

impl<S: IntElement, D: IntElement> IntToInt<S, D> {
    pub(crate) fn new(out_of_range: Option<OutOfRangeMode>) -> Self {
        Self {
            out_of_range,
            lo: S::from_i128_clamped(D::FORMAT.min()),
            hi: S::from_i128_clamped(D::FORMAT.max()),
            types: PhantomData,
        }
    }
}

impl<S, D> FastPath for IntToInt<S, D>
where
    S: IntElement + MapInput,
    D: IntElement,
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
        let (lo, hi) = (self.lo, self.hi);
        let items = input.iter().zip(output.iter_mut());
        match self.out_of_range {
            None => {
                let mut any = false;
                for (&x, y) in items {
                    *y = x.as_();
                    any |= x < lo || x > hi;
                }
                any
            }
            Some(OutOfRangeMode::Clamp) => {
                for (&x, y) in items {
                    *y = x.max(lo).min(hi).as_();
                }
                false
            }
            Some(OutOfRangeMode::Wrap) => {
                for (&x, y) in items {
                    *y = D::wrap(x.as_());
                }
                false
            }
        }
    }
}
