//! Fast path: 16- to 64-bit integers to any integer type.
//!
//! The target's bounds are held in the source type (intersected with the source range), so the
//! range test, the clamp and the exact conversion all happen in the source type; the result is
//! written as the target's bits (`W`, an unsigned type of the target's width: int4 sits in a byte
//! as a sign-extended value, whose low byte truncation gives). Wrapping keeps the low bits (two's
//! complement truncation, sign-extended for targets narrower than their byte).

use num_traits::AsPrimitive;

use crate::cast_value::kernel::FastPath;
use crate::engine::{Slots, Written};
use crate::numeric::{Bits, IntFormat, IntStorage, OutOfRangeMode, Wrap};

/// An integer → integer fast path.
#[derive(Debug)]
pub(crate) struct IntToInt<S, W> {
    out_of_range: Option<OutOfRangeMode>,
    /// The target's smallest value, or the source's if that is larger.
    lo: S,
    /// The target's largest value, or the source's if that is smaller.
    hi: S,
    wrap: Wrap<W>,
}

impl<S: IntStorage, W: Bits> IntToInt<S, W> {
    pub(crate) fn new(to: IntFormat, out_of_range: Option<OutOfRangeMode>) -> Self {
        Self {
            out_of_range,
            lo: S::from_i128_clamped(to.min()),
            hi: S::from_i128_clamped(to.max()),
            wrap: Wrap::new(to.bits, to.signed),
        }
    }
}

impl<S, W> FastPath for IntToInt<S, W>
where
    S: IntStorage + AsPrimitive<W>,
    W: Bits,
{
    type In = S;
    type Out = W;

    #[inline(always)]
    fn convert<'a>(&self, input: &[S], output: Slots<'a, W>) -> (Written<'a, W>, bool) {
        let (lo, hi) = (self.lo, self.hi);
        match self.out_of_range {
            None => {
                let mut any = false;
                let written = output.fill(input, |x| {
                    any |= x < lo || x > hi;
                    x.as_()
                });
                (written, any)
            }
            Some(OutOfRangeMode::Clamp) => {
                // Bounds that are the whole signed or unsigned range of `W` are constants, so that
                // the clamp becomes the hardware's saturating narrowing.
                let bits = 8 * size_of::<W>();
                let signed = (
                    S::from_i128_clamped(-(1 << (bits - 1))),
                    S::from_i128_clamped((1 << (bits - 1)) - 1),
                );
                let unsigned = (S::zero(), S::from_i128_clamped((1 << bits) - 1));
                let written = if (lo, hi) == signed {
                    clamp(input, output, signed)
                } else if (lo, hi) == unsigned {
                    clamp(input, output, unsigned)
                } else {
                    clamp(input, output, (lo, hi))
                };
                (written, false)
            }
            Some(OutOfRangeMode::Wrap) => {
                let wrap = self.wrap;
                (output.fill(input, |x| wrap.apply(x.as_())), false)
            }
        }
    }
}

/// Clamps every element to `bounds` and keeps its low bits.
#[inline(always)]
fn clamp<'a, S, W>(input: &[S], output: Slots<'a, W>, (lo, hi): (S, S)) -> Written<'a, W>
where
    S: IntStorage + AsPrimitive<W>,
    W: Bits,
{
    output.fill(input, |x| x.max(lo).min(hi).as_())
}
