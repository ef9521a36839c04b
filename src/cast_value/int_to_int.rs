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

    fn convert(&self, input: &[S::Storage], output: &mut [D::Storage], flags: &mut [u8]) -> bool {
        let (lo, hi) = (self.lo, self.hi);
        let items = input.iter().zip(output.iter_mut()).zip(flags.iter_mut());
        let mut any = false;
        match self.out_of_range {
            None => {
                for ((&x, y), flag) in items {
                    let inside = x >= lo && x <= hi;
                    *y = x.as_();
                    *flag = u8::from(!inside);
                    any |= !inside;
                }
            }
            Some(OutOfRangeMode::Clamp) => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    *y = x.max(lo).min(hi).as_();
                }
            }
            Some(OutOfRangeMode::Wrap) => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    *y = D::wrap(x.as_());
                }
            }
        }
        any
    }
}
