//! `scale_offset` in float32 and float64: `(x - offset) * scale` and `(x / scale) + offset` in
//! the type's own arithmetic, one vectorised pass per block.
//!
//! The pass also notes whether an element lies beyond a magnitude up to which nothing can
//! overflow (the decode of an encoded element included), or, when decoding with the division's
//! correction, whether its quotient may be inexact ([`Correction::unsure`]); such elements go
//! through the exact element function.

use num_traits::Zero;

use super::division::{Correction, Division};
use super::{parameter, settle_exact};
use crate::Direction;
use crate::element::scale_offset::Parameters;
use crate::engine::simd::{Isa, Vectorized};
use crate::engine::{Slots, Typed, Written};
use crate::numeric::fault::ElementFault;
use crate::numeric::{HwFloat, NumericType};

/// `scale_offset` in float32 or float64 arithmetic.
#[derive(Debug)]
pub(crate) struct FloatKernel<F: HwFloat> {
    t: NumericType,
    direction: Direction,
    parameters: Parameters,
    offset: F,
    scale: F,
    /// A magnitude up to which no operation on an element can overflow, and for encoding not
    /// the decode of its result either (`-1`, which every magnitude exceeds, if there is none).
    safe: F,
    /// The decode's division (unused when encoding).
    division: Division<F>,
    isa: Isa,
}

/// A magnitude up to which `x` cannot make an operation overflow (`max` being the largest finite
/// value): for encoding, `|x - offset| ≤ A` with `A = min(max, max / |scale|) / 2` keeps the
/// product below `max / 2` and the decode of the result (`≈ x - offset`, then `+ offset`) below
/// `max`; for decoding, `|x / scale| + |offset| ≤ max / 2`. Both are halved again to leave
/// ample room for rounding. `None` when the offset alone is too large.
pub(crate) fn safe_magnitude(
    direction: Direction,
    offset: f64,
    scale: f64,
    max: f64,
) -> Option<f64> {
    let (offset, scale) = (offset.abs(), scale.abs());
    let bound = match direction {
        Direction::Encode => ((max / 2.0).min(max / 2.0 / scale) - 2.0 * offset) / 2.0,
        Direction::Decode => ((max / 2.0 - offset) * scale / 2.0).min(max),
    };
    (bound > 0.0).then_some(bound)
}

/// Elements converted at a time in place (see [`FloatKernel::compute_in_place`]).
const IN_PLACE_RUN: usize = 64;

impl<F: HwFloat> FloatKernel<F> {
    /// The kernel of `t` (of storage `F`, float32 or float64) in `direction` with `parameters`,
    /// for loops on `isa`.
    pub(crate) fn new(
        t: NumericType,
        direction: Direction,
        parameters: Parameters,
        isa: Isa,
    ) -> Self {
        let offset = parameter::<F>(t, parameters.offset, F::zero());
        let scale = parameter::<F>(t, parameters.scale, F::one());
        let max = F::max_value().to_f64();
        let safe = safe_magnitude(direction, offset.to_f64(), scale.to_f64(), max)
            .map_or(-F::one(), F::from_f64);
        let division = match direction {
            Direction::Decode => Division::decoding(scale, offset, isa),
            Direction::Encode => Division::new(scale),
        };
        Self {
            t,
            direction,
            parameters,
            offset,
            scale,
            safe,
            division,
            isa,
        }
    }

    /// The arithmetic of the leading elements of `data` where they are, run by run up to the
    /// first run holding an element for the exact path; returns how many elements it converted.
    ///
    /// A run is checked (the sign bits of `safe - |x|`, and of the correction's
    /// [`Correction::unsure`]) while it is in the L1 cache and then converted where it is.
    #[inline(always)]
    fn compute_in_place(&self, data: &mut [F]) -> usize {
        let (offset, scale, division) = (self.offset, self.scale, self.division);
        let beyond = |x: F| (self.safe - x.abs()).encoding();
        match (self.direction, division.correction) {
            (Direction::Encode, _) => in_runs(data, beyond, |x| (x - offset) * scale),
            (Direction::Decode, Some(c)) => in_runs(
                data,
                |x| beyond(x) | c.unsure(x),
                |x| c.quotient(x) + offset,
            ),
            (Direction::Decode, None) => in_runs(data, beyond, |x| division.quotient(x) + offset),
        }
    }

    /// Whether the element needs the exact path.
    fn needs_exact(&self, x: F) -> bool {
        let unsure = |c: Correction<F>| F::sign_bit(c.unsure(x));
        x.abs() > self.safe || self.division.correction.is_some_and(unsure)
    }
}

/// `f` of each element of `input` into `output`, and whether some `check` has its sign bit set.
#[inline(always)]
fn fill_checked<'o, F: HwFloat>(
    input: &[F],
    output: Slots<'o, F>,
    check: impl Fn(F) -> F::Bits,
    f: impl Fn(F) -> F,
) -> (Written<'o, F>, bool) {
    let mut signs = F::Bits::zero();
    let written = output.fill(input, |x| {
        signs |= check(x);
        f(x)
    });
    (written, F::sign_bit(signs))
}

/// Applies `f` to the leading elements of `data` where they are, run by run up to the first run
/// holding an element whose `check` has its sign bit set; returns how many it converted.
#[inline(always)]
fn in_runs<F: HwFloat>(data: &mut [F], check: impl Fn(F) -> F::Bits, f: impl Fn(F) -> F) -> usize {
    let mut done = 0;
    for run in data.chunks_mut(IN_PLACE_RUN) {
        let mut signs = F::Bits::zero();
        for &x in &*run {
            signs |= check(x);
        }
        if F::sign_bit(signs) {
            break;
        }
        for x in run.iter_mut() {
            *x = f(*x);
        }
        done += run.len();
    }
    done
}

/// The arithmetic of a block, and the exact path for each element that needs it.
impl<F: HwFloat> Typed for FloatKernel<F> {
    type In = F;
    type Out = F;

    fn isa(&self) -> Isa {
        self.isa
    }

    #[inline(always)]
    fn block<'a>(&self, input: &[F], output: Slots<'a, F>) -> (Written<'a, F>, bool) {
        let (offset, scale, division) = (self.offset, self.scale, self.division);
        // The sign bits of `safe - |x|`, gathered: set if some `|x| > safe`. NaN is not beyond:
        // its magnitude is a positive NaN, and so is the difference (where the hardware gave it
        // another sign, the block would only take the exact path).
        let beyond = |x: F| (self.safe - x.abs()).encoding();
        let (i, o) = (input, output);
        match (self.direction, division.correction) {
            (Direction::Encode, _) => fill_checked(i, o, beyond, |x| (x - offset) * scale),
            (Direction::Decode, Some(c)) => fill_checked(
                i,
                o,
                |x| beyond(x) | c.unsure(x),
                |x| c.quotient(x) + offset,
            ),
            (Direction::Decode, None) => {
                fill_checked(i, o, beyond, |x| division.quotient(x) + offset)
            }
        }
    }

    fn settle(&self, input: &[F], output: &mut [F]) -> Result<(), ElementFault> {
        let setting = (self.t, self.direction, self.parameters);
        settle_exact(setting, input, output, |x| self.needs_exact(x))
    }

    fn convert_in_place(&self, data: &mut [F]) -> usize {
        self.isa.run(InPlace(self, data))
    }
}

/// The in-place conversion, run for one instruction set.
struct InPlace<'a, F: HwFloat>(&'a FloatKernel<F>, &'a mut [F]);

impl<F: HwFloat> Vectorized for InPlace<'_, F> {
    type Output = usize;

    #[inline(always)]
    fn run(self) -> usize {
        self.0.compute_in_place(self.1)
    }
}

#[cfg(test)]
mod tests;
