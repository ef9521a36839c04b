//! `scale_offset` in float32 and float64: `(x - offset) * scale` and `(x / scale) + offset` in
//! the type's own arithmetic, one vectorised pass per block.
//!
//! The pass also notes whether an element lies beyond a magnitude up to which nothing can
//! overflow (the decode of an encoded element included) and, when decoding, whether the
//! quotient might be inexact (see [`division`](super::division)); such elements go through the
//! exact element function.

use num_traits::Zero;

use super::division::{Division, Quotient, WithQuotient};
use super::{convert_block, parameter};
use crate::Direction;
use crate::element::scale_offset::Parameters;
use crate::kernel::simd::{BlockLoop, Isa, Vectorized};
use crate::kernel::{Slots, Typed, Written};
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
    division: Division<F>,
    /// Whether the decode of some finite element can overflow (see [`Division::may_overflow`]).
    overflows: bool,
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
    pub(crate) fn new(
        t: NumericType,
        direction: Direction,
        parameters: Parameters,
        isa: Isa,
    ) -> Self {
        let offset = parameter::<F>(t, parameters.offset, F::zero());
        let scale = parameter::<F>(t, parameters.scale, F::one());
        let max = F::max_value().to_f64();
        let division = Division::new(scale, offset, isa);
        let safe = safe_magnitude(direction, offset.to_f64(), scale.to_f64(), max)
            .map_or(-F::one(), F::from_f64);
        Self {
            t,
            direction,
            parameters,
            offset,
            scale,
            safe,
            division,
            overflows: division.may_overflow(F::max_value(), offset),
            isa,
        }
    }

    /// The arithmetic of the leading elements of `data` where they are, run by run up to the
    /// first run holding an element for the exact path; returns how many elements it converted.
    ///
    /// A run is checked (the sign bits of `safe - |x|`, and a decode's quotient flags) while it
    /// is in the L1 cache and then converted where it is; a decode that needs no check converts
    /// everything at once ([`InPlaceDecode`]).
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn compute_in_place(&self, data: &mut [F]) -> usize {
        let (offset, scale, safe) = (self.offset, self.scale, self.safe);
        match self.direction {
            Direction::Encode => in_runs(
                data,
                |x| (safe - x.abs()).encoding(),
                |x| (x - offset) * scale,
            ),
            Direction::Decode => self.division.with(InPlaceDecode {
                data,
                offset,
                safe,
                overflows: self.overflows,
            }),
        }
    }

    /// Whether the element needs the exact path.
    fn needs_exact(&self, x: F) -> bool {
        x.abs() > self.safe || (self.direction == Direction::Decode && !self.division.is_exact(x))
    }
}

/// What the decode loop divides for each input element: the element itself, or (in the fused
/// read) a stored integer converted to the float, with at most one `scalar_map` entry applied.
pub(crate) trait Dividend<S, F>: Copy {
    /// The dividend of `x`.
    fn of(self, x: S) -> F;
}

/// The element itself.
#[derive(Clone, Copy)]
struct Itself;

impl<F: HwFloat> Dividend<F, F> for Itself {
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn of(self, x: F) -> F {
        x
    }
}

/// The decode of a block with one way of dividing: `(d / scale) + offset` for the dividend `d`
/// of each element; returns whether some `|d|` exceeds `safe` or some quotient may be inexact,
/// or with a correctly rounded quotient, whether some result is infinite (unless `overflows` is
/// false: then no result needs a check).
pub(crate) struct Decode<'i, 'o, S, F, D> {
    pub(crate) dividend: D,
    pub(crate) offset: F,
    pub(crate) safe: F,
    /// Whether some dividend's decode can overflow ([`Division::may_overflow`]).
    pub(crate) overflows: bool,
    pub(crate) input: &'i [S],
    pub(crate) output: Slots<'o, F>,
}

impl<'o, S: Copy, F: HwFloat, D: Dividend<S, F>> WithQuotient<F> for Decode<'_, 'o, S, F, D> {
    type Output = (Written<'o, F>, bool);

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn run<Q: Quotient<F>>(self, quotient: Q) -> Self::Output {
        let (dividend, offset, safe) = (self.dividend, self.offset, self.safe);
        if Q::CORRECTLY_ROUNDED && !self.overflows {
            let written = self
                .output
                .fill(self.input, |x| quotient.quotient(dividend.of(x)).0 + offset);
            return (written, false);
        }
        // The sign bits of `safe - |d|` and of the quotient's flags, gathered. NaN is not beyond:
        // its magnitude is a positive NaN, and so is the difference.
        let mut signs = F::Bits::zero();
        // With a correctly rounded quotient, the least `infinity_gap` of the results instead,
        // zero exactly when one is infinite: where the decode overflowed (and where `d` was
        // infinite). Every such element lies beyond `safe`, where the exact path takes it.
        let mut least = F::zero().infinity_gap();
        let written = self.output.fill(self.input, |x| {
            let d = dividend.of(x);
            let (q, unsure) = quotient.quotient(d);
            let decoded = q + offset;
            if Q::CORRECTLY_ROUNDED {
                least = least.min(decoded.infinity_gap());
            } else {
                signs |= unsure | (safe - d.abs()).encoding();
            }
            decoded
        });
        (written, F::sign_bit(signs) || least == F::Bits::zero())
    }
}

/// Applies `f` to the leading elements of `data` where they are, run by run up to the first run
/// holding an element whose `check` has its sign bit set; returns how many it converted.
#[expect(
    clippy::inline_always,
    reason = "inlined into each instruction set's copy of the loop"
)]
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

/// The decode of the leading elements of `data` where they are; gives how many it converted. A
/// correctly rounded quotient with parameters that let no finite element overflow needs no check;
/// the others check a run's input (its magnitude against `safe`, and the quotient's flags, which
/// depend on the input alone) before they decode it.
struct InPlaceDecode<'a, F> {
    data: &'a mut [F],
    offset: F,
    safe: F,
    overflows: bool,
}

impl<F: HwFloat> WithQuotient<F> for InPlaceDecode<'_, F> {
    type Output = usize;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn run<Q: Quotient<F>>(self, quotient: Q) -> usize {
        let (offset, safe) = (self.offset, self.safe);
        if Q::CORRECTLY_ROUNDED && !self.overflows {
            for x in &mut *self.data {
                *x = quotient.quotient(*x).0 + offset;
            }
            return self.data.len();
        }
        in_runs(
            self.data,
            |x| quotient.quotient(x).1 | (safe - x.abs()).encoding(),
            |x| quotient.quotient(x).0 + offset,
        )
    }
}

/// The arithmetic of a block; returns whether an element needs the exact path.
impl<F: HwFloat> BlockLoop for FloatKernel<F> {
    type In = F;
    type Out = F;
    type Output = bool;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn block<'a>(&self, input: &[F], output: Slots<'a, F>) -> (Written<'a, F>, bool) {
        let (offset, scale, safe) = (self.offset, self.scale, self.safe);
        match self.direction {
            Direction::Encode => {
                // The sign bits of `safe - |x|`, gathered: set if some `|x| > safe`. NaN is not
                // beyond: its magnitude is a positive NaN, and so is the difference (where the
                // hardware gave it another sign, the block would only take the exact path).
                let mut signs = F::Bits::zero();
                let written = output.fill(input, |x| {
                    signs |= (safe - x.abs()).encoding();
                    (x - offset) * scale
                });
                (written, F::sign_bit(signs))
            }
            Direction::Decode => self.division.with(Decode {
                dividend: Itself,
                offset,
                safe,
                overflows: self.overflows,
                input,
                output,
            }),
        }
    }
}

/// The in-place conversion, run for one instruction set.
struct InPlace<'a, F: HwFloat>(&'a FloatKernel<F>, &'a mut [F]);

impl<F: HwFloat> Vectorized for InPlace<'_, F> {
    type Output = usize;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn run(self) -> usize {
        self.0.compute_in_place(self.1)
    }
}

impl<F: HwFloat> Typed for FloatKernel<F> {
    type In = F;
    type Out = F;

    fn convert<'a>(
        &self,
        input: &[F],
        output: Slots<'a, F>,
    ) -> Result<Written<'a, F>, ElementFault> {
        let setting = (self.t, self.direction, self.parameters, self.isa);
        convert_block(self, setting, input, output, |x| self.needs_exact(x))
    }

    fn convert_in_place(&self, data: &mut [F]) -> usize {
        self.isa.run(InPlace(self, data))
    }
}

#[cfg(test)]
mod tests;
