//! Fast path: float32 and float64 (and float16/bfloat16, widened to float32 first) to float32 and
//! float64.
//!
//! Widening (and the identity) is exact: NaN stays NaN, infinities and signed zeros are kept.
//! Narrowing float64 → float32 uses the hardware conversion, which rounds to nearest, ties to
//! even; the directed modes then step one unit in the last place where the nearest result lies on
//! the wrong side, and `nearest-away` where the input was an exact tie. The steps are bit
//! increments (they cross binades and subnormals correctly), and the tie test is exact because
//! differences of neighbouring floats are exact in float64. A result beyond the float32 range is
//! left to the exact path, which applies the out-of-range mode.

use std::marker::PhantomData;

use num_traits::AsPrimitive;

use crate::cast_value::kernel::FastPath;
use crate::engine::{Slots, Written};
use crate::numeric::{Directed, FloatInput, HwFloat, RoundingMode};

/// A float → float fast path.
#[derive(Debug)]
pub(crate) struct FloatToFloat<F, G> {
    rounding: RoundingMode,
    types: PhantomData<fn() -> (F, G)>,
}

impl<F, G> FloatToFloat<F, G> {
    pub(crate) fn new(rounding: RoundingMode) -> Self {
        Self {
            rounding,
            types: PhantomData,
        }
    }
}

/// `w` rounded to `G` by a directed mode (or to nearest, ties to even, for `None`).
#[expect(
    clippy::needless_bitwise_bool,
    reason = "no branches in a loop meant to vectorise"
)]
#[inline(always)]
fn narrow<F, G>(w: F, mode: Option<Directed>) -> G
where
    F: HwFloat + AsPrimitive<G>,
    G: HwFloat + AsPrimitive<F>,
{
    let r: G = w.as_();
    let Some(mode) = mode else {
        return r;
    };
    let back: F = r.as_();
    let (step_up, step_down) = (r.next_up(), r.next_down());
    let towards_zero = if r > G::zero() { step_down } else { step_up };
    let other = if back < w { step_up } else { step_down };
    let other_back: F = other.as_();
    let tie = w - back == other_back - w;
    if mode.towards_zero & (back.abs() > w.abs()) {
        towards_zero
    } else if mode.towards_positive & (back < w) {
        step_up
    } else if mode.towards_negative & (back > w) {
        step_down
    } else if mode.nearest_away & tie & (back.abs() < w.abs()) {
        other
    } else {
        r
    }
}

impl<F, G> FastPath for FloatToFloat<F, G>
where
    F: FloatInput + AsPrimitive<G>,
    G: HwFloat + AsPrimitive<F>,
{
    type In = F;
    type Out = G;

    #[inline(always)]
    fn convert<'a>(&self, input: &[F], output: Slots<'a, G>) -> (Written<'a, G>, bool) {
        if size_of::<G>() >= size_of::<F>() {
            // Exact: every value of the source is a value of the target.
            return (output.fill(input, AsPrimitive::as_), false);
        }
        match self.rounding {
            RoundingMode::NearestEven => narrow_all(None, input, output),
            mode => narrow_all(Some(Directed::new(mode)), input, output),
        }
    }
}

/// Narrows every element; returns whether any is left undecided.
#[inline(always)]
fn narrow_all<'a, F, G>(
    mode: Option<Directed>,
    input: &[F],
    output: Slots<'a, G>,
) -> (Written<'a, G>, bool)
where
    F: HwFloat + AsPrimitive<G>,
    G: HwFloat + AsPrimitive<F>,
{
    let mut undecided = false;
    let written = output.fill(input, |w| {
        let nearest: G = w.as_();
        let r: G = narrow(w, mode);
        // Beyond the finite range, or next to it where the nearest result already overflowed.
        undecided |= w.is_finite() & !(r.is_finite() & nearest.is_finite());
        r
    });
    (written, undecided)
}
