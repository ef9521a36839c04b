//! `scale_offset` kernels.
//!
//! - float32 and float64 run `(x - offset) * scale` and `(x / scale) + offset` in their own
//!   hardware arithmetic (no fused multiply-add, no reciprocal), one vectorisable pass that also
//!   notes whether a finite operation overflowed;
//! - 16- to 64-bit integers use checked arithmetic in their own width;
//! - float16 and bfloat16 use the exact element arithmetic;
//! - one-byte types use a table (see [`lut`](crate::lut)).
//!
//! A missing `offset` is 0 and a missing `scale` is 1 here, which leaves every value unchanged
//! except `-0 / scale + 0`, which is `+0` as the arithmetic says. (The codec skips the kernels
//! when both are missing.)

use std::marker::PhantomData;

use num_traits::{CheckedAdd, CheckedDiv, CheckedMul, CheckedRem, CheckedSub, Float, One, Zero};

use super::arithmetic::{Parameters, decode_element, encode_element};
use crate::Direction;
use crate::chunk::BlockKernel;
use crate::error::{ElementFault, FaultKind};
use crate::numeric::{Element, HwFloat, IntElement, RoundingMode, Value};
use crate::simd::{Isa, Vectorized};

/// The arithmetic of a block, for a kernel with a `compute` method.
struct Compute<'a, K, T> {
    kernel: &'a K,
    input: &'a [T],
    output: &'a mut [T],
}

impl<E: Element<Storage: HwFloat>> Vectorized for Compute<'_, FloatKernel<E>, E::Storage> {
    type Output = bool;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn run(self) -> bool {
        self.kernel.compute(self.input, self.output)
    }
}

impl<E: IntElement> Vectorized for Compute<'_, IntKernel<E>, E::Storage> {
    type Output = bool;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn run(self) -> bool {
        self.kernel.compute(self.input, self.output)
    }
}

/// The exact result of one element.
fn exact<E: Element>(
    direction: Direction,
    parameters: Parameters,
    x: E::Storage,
) -> Result<E::Storage, FaultKind> {
    let value = E::value(x);
    let result = match direction {
        Direction::Encode => encode_element(E::KIND, parameters, value),
        Direction::Decode => decode_element(E::KIND, parameters, value),
    }?;
    E::from_value(result, RoundingMode::NearestEven, None)
}

/// The first element of `input` without a representable result.
fn first_fault<E: Element>(
    direction: Direction,
    parameters: Parameters,
    input: &[E::Storage],
) -> Result<(), ElementFault> {
    for (index, &x) in input.iter().enumerate() {
        exact::<E>(direction, parameters, x).map_err(|kind| ElementFault {
            index,
            kind,
            value: E::value(x),
        })?;
    }
    Ok(())
}

fn parameter<E: Element>(value: Option<Value>, identity: E::Storage) -> E::Storage {
    value.map_or(identity, |v| {
        E::from_value(v, RoundingMode::NearestEven, None)
            .expect("parameters are values of the type")
    })
}

/// `scale_offset` in float32 or float64 arithmetic.
#[derive(Debug)]
pub(crate) struct FloatKernel<E: Element> {
    direction: Direction,
    parameters: Parameters,
    offset: E::Storage,
    scale: E::Storage,
    /// A magnitude up to which no operation on an element can overflow, if there is one.
    safe: Option<E::Storage>,
    isa: Isa,
}

/// A magnitude up to which `x`, finite, cannot make an operation overflow (`max` being the
/// largest finite value): half of the bound that keeps every intermediate below `max / 2`, which
/// leaves ample room for rounding, and finite. `None` for an infinite or NaN parameter, or when the offset
/// alone is too large.
fn safe_magnitude(direction: Direction, offset: f64, scale: f64, max: f64) -> Option<f64> {
    if !(offset.is_finite() && scale.is_finite()) {
        return None;
    }
    let (offset, scale, half) = (offset.abs(), scale.abs(), max / 2.0);
    let bound = match direction {
        // |x - offset| ≤ |x| + |offset| ≤ max / 2, and that times |scale| ≤ max / 2.
        Direction::Encode => half.min(half / scale) - offset,
        // |x / scale| + |offset| ≤ max / 2.
        Direction::Decode => (half - offset) * scale,
    };
    (bound > 0.0).then_some(bound.min(max) / 2.0)
}

impl<E: Element<Storage: HwFloat>> FloatKernel<E> {
    pub(crate) fn new(direction: Direction, parameters: Parameters, isa: Isa) -> Self {
        let offset = parameter::<E>(parameters.offset, E::Storage::zero());
        let scale = parameter::<E>(parameters.scale, E::Storage::one());
        let max = E::Storage::max_value().to_f64();
        Self {
            direction,
            parameters,
            offset,
            scale,
            safe: safe_magnitude(direction, offset.to_f64(), scale.to_f64(), max)
                .map(E::Storage::from_f64),
            isa,
        }
    }

    /// The arithmetic of the leading elements of `data` where they are, in groups of
    /// [`IN_PLACE_GROUP`], up to the first group holding an element of magnitude above `safe`
    /// (where an operation might overflow); returns how many elements it converted.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn compute_in_place(&self, data: &mut [E::Storage], safe: E::Storage) -> usize {
        let (offset, scale) = (self.offset, self.scale);
        match self.direction {
            Direction::Encode => in_place_groups(data, safe, |x| (x - offset) * scale),
            Direction::Decode => in_place_groups(data, safe, |x| x / scale + offset),
        }
    }

    /// The arithmetic of a block; returns whether a finite operation may have overflowed.
    ///
    /// With a finite offset and scale (the usual case), an operation on finite values overflowed
    /// exactly when the element is finite and the result is not (an infinite intermediate stays
    /// infinite, as the scale is not zero). The loop notes only whether any result is infinite;
    /// [`Self::overflowed`] then looks at the element too. With an infinite or NaN parameter, an
    /// overflowed intermediate can end as NaN, so every block is checked element by element.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn compute(&self, input: &[E::Storage], output: &mut [E::Storage]) -> bool {
        let (offset, scale) = (self.offset, self.scale);
        let infinity = E::Storage::infinity();
        let mut overflow = false;
        match self.direction {
            Direction::Encode => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    let b = (x - offset) * scale;
                    *y = b;
                    overflow |= b.abs() == infinity;
                }
            }
            Direction::Decode => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    let b = x / scale + offset;
                    *y = b;
                    overflow |= b.abs() == infinity;
                }
            }
        }
        overflow || !(offset.is_finite() && scale.is_finite())
    }

    /// Whether a finite operation overflowed, given the outputs of [`Self::compute`].
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn overflowed(&self, input: &[E::Storage], output: &[E::Storage]) -> bool {
        if !(self.offset.is_finite() && self.scale.is_finite()) {
            // An infinite parameter: decided element by element.
            return true;
        }
        let infinity = E::Storage::infinity();
        input.iter().zip(output).fold(false, |any, (&x, &y)| {
            any | ((x.abs() != infinity) & (y.abs() == infinity))
        })
    }
}

/// Elements checked and converted together by [`FloatKernel::compute_in_place`]: a few vectors'
/// worth, so that the loop is vectorised and stops soon after an element it cannot take.
const IN_PLACE_GROUP: usize = 16;

/// Applies `operation` to the leading groups of `data` whose elements all have a magnitude of at
/// most `safe` (NaN included); returns how many elements it converted.
#[expect(
    clippy::inline_always,
    reason = "inlined into each instruction set's copy of the loop"
)]
#[inline(always)]
fn in_place_groups<T: HwFloat>(data: &mut [T], safe: T, operation: impl Fn(T) -> T) -> usize {
    let mut done = 0;
    for group in data.chunks_exact_mut(IN_PLACE_GROUP) {
        if group.iter().fold(false, |any, &x| any | (x.abs() > safe)) {
            break;
        }
        for x in group {
            *x = operation(*x);
        }
        done += IN_PLACE_GROUP;
    }
    done
}

/// The arithmetic of a block in place.
struct InPlace<'a, K, T> {
    kernel: &'a K,
    data: &'a mut [T],
    safe: T,
}

impl<E: Element<Storage: HwFloat>> Vectorized for InPlace<'_, FloatKernel<E>, E::Storage> {
    type Output = usize;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn run(self) -> usize {
        self.kernel.compute_in_place(self.data, self.safe)
    }
}

/// The overflow check of a block.
struct Overflowed<'a, K, T> {
    kernel: &'a K,
    input: &'a [T],
    output: &'a [T],
}

impl<E: Element<Storage: HwFloat>> Vectorized for Overflowed<'_, FloatKernel<E>, E::Storage> {
    type Output = bool;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn run(self) -> bool {
        self.kernel.overflowed(self.input, self.output)
    }
}

impl<E: Element<Storage: HwFloat>> BlockKernel for FloatKernel<E> {
    type In = E::Storage;
    type Out = E::Storage;

    fn convert(&self, input: &[E::Storage], output: &mut [E::Storage]) -> Result<(), ElementFault> {
        let infinite = self.isa.run(Compute {
            kernel: self,
            input,
            output: &mut *output,
        });
        if infinite
            && self.isa.run(Overflowed {
                kernel: self,
                input,
                output,
            })
        {
            first_fault::<E>(self.direction, self.parameters, input)?;
        }
        Ok(())
    }

    fn convert_in_place(&self, data: &mut [E::Storage]) -> usize {
        self.safe.map_or(0, |safe| {
            self.isa.run(InPlace {
                kernel: self,
                data,
                safe,
            })
        })
    }
}

/// `scale_offset` in checked integer arithmetic of the type's own width.
#[derive(Debug)]
pub(crate) struct IntKernel<E: Element> {
    direction: Direction,
    parameters: Parameters,
    offset: E::Storage,
    scale: E::Storage,
    isa: Isa,
}

impl<E: IntElement> IntKernel<E> {
    pub(crate) fn new(direction: Direction, parameters: Parameters, isa: Isa) -> Self {
        Self {
            direction,
            parameters,
            offset: parameter::<E>(parameters.offset, E::Storage::zero()),
            scale: parameter::<E>(parameters.scale, E::Storage::one()),
            isa,
        }
    }

    /// The arithmetic of a block; returns whether an operation failed.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn compute(&self, input: &[E::Storage], output: &mut [E::Storage]) -> bool {
        let (offset, scale) = (self.offset, self.scale);
        let zero = E::Storage::zero();
        let mut failed = false;
        match self.direction {
            Direction::Encode => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    let result = x.checked_sub(&offset).and_then(|a| a.checked_mul(&scale));
                    *y = result.unwrap_or(zero);
                    failed |= result.is_none();
                }
            }
            Direction::Decode => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    // `checked_rem` is `None` only for MIN % -1, whose remainder is 0.
                    let exact = x.checked_rem(&scale).is_none_or(|r| r == zero);
                    let result = x.checked_div(&scale).and_then(|a| a.checked_add(&offset));
                    *y = result.unwrap_or(zero);
                    failed |= !exact | result.is_none();
                }
            }
        }
        failed
    }
}

impl<E: IntElement> BlockKernel for IntKernel<E> {
    type In = E::Storage;
    type Out = E::Storage;

    fn convert(&self, input: &[E::Storage], output: &mut [E::Storage]) -> Result<(), ElementFault> {
        let failed = self.isa.run(Compute {
            kernel: self,
            input,
            output,
        });
        if failed {
            first_fault::<E>(self.direction, self.parameters, input)?;
        }
        Ok(())
    }
}

/// `scale_offset` through the exact element arithmetic (float16 and bfloat16).
#[derive(Debug)]
pub(crate) struct ExactKernel<E> {
    direction: Direction,
    parameters: Parameters,
    element: PhantomData<fn() -> E>,
}

impl<E: Element> ExactKernel<E> {
    pub(crate) fn new(direction: Direction, parameters: Parameters) -> Self {
        Self {
            direction,
            parameters,
            element: PhantomData,
        }
    }
}

impl<E: Element> BlockKernel for ExactKernel<E> {
    type In = E::Storage;
    type Out = E::Storage;

    fn convert(&self, input: &[E::Storage], output: &mut [E::Storage]) -> Result<(), ElementFault> {
        for (index, (&x, y)) in input.iter().zip(output.iter_mut()).enumerate() {
            *y = exact::<E>(self.direction, self.parameters, x).map_err(|kind| ElementFault {
                index,
                kind,
                value: E::value(x),
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::element::Float64;

    fn bits(values: &[f64]) -> Vec<u64> {
        values.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn in_place_converts_up_to_the_first_group_that_might_overflow() {
        let parameters = Parameters {
            offset: Some(Value::from_f64(-10.0)),
            scale: Some(Value::from_f64(0.1)),
        };
        for isa in Isa::available() {
            for direction in [Direction::Encode, Direction::Decode] {
                let kernel = FloatKernel::<Float64>::new(direction, parameters, isa);
                // 40 elements: two groups and a partial one, all within the safe magnitude.
                let small: Vec<f64> = [1.5, f64::NAN, -0.0, -3e300, 1e-310]
                    .into_iter()
                    .cycle()
                    .take(40)
                    .collect();
                let mut expected = vec![0.0; 40];
                kernel.convert(&small, &mut expected).unwrap();
                let mut data = small.clone();
                assert_eq!(
                    kernel.convert_in_place(&mut data),
                    32,
                    "{direction} {isa:?}"
                );
                assert_eq!(
                    bits(&data[..32]),
                    bits(&expected[..32]),
                    "{direction} {isa:?}"
                );
                assert_eq!(bits(&data[32..]), bits(&small[32..]));

                // A value that might overflow stops the conversion before its group.
                for (position, large) in [(20, f64::MAX), (3, f64::INFINITY), (31, -f64::MAX)] {
                    let mut input = small.clone();
                    input[position] = large;
                    let mut data = input.clone();
                    let done = kernel.convert_in_place(&mut data);
                    assert_eq!(done, position / 16 * 16, "{direction} {isa:?}");
                    assert_eq!(bits(&data[..done]), bits(&expected[..done]));
                    assert_eq!(bits(&data[done..]), bits(&input[done..]));
                }
            }
        }
    }

    #[test]
    fn the_safe_magnitude_keeps_every_intermediate_finite() {
        let max = f64::MAX;
        for (offset, scale) in [(-10.0, 0.1), (1e300, 1e-300), (0.0, 1e300), (-1e307, 7.0)] {
            for direction in [Direction::Encode, Direction::Decode] {
                let Some(safe) = safe_magnitude(direction, offset, scale, max) else {
                    continue;
                };
                for x in [safe, -safe] {
                    let result = match direction {
                        Direction::Encode => (x - offset) * scale,
                        Direction::Decode => x / scale + offset,
                    };
                    assert!(result.is_finite(), "{direction} {x} {offset} {scale}");
                }
            }
        }
        assert_eq!(
            safe_magnitude(Direction::Encode, f64::INFINITY, 1.0, max),
            None
        );
        assert_eq!(safe_magnitude(Direction::Decode, max, 1.0, max), None);
    }
}
