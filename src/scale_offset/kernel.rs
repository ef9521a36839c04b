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
}

impl<E: Element<Storage: HwFloat>> FloatKernel<E> {
    pub(crate) fn new(direction: Direction, parameters: Parameters) -> Self {
        Self {
            direction,
            parameters,
            offset: parameter::<E>(parameters.offset, E::Storage::zero()),
            scale: parameter::<E>(parameters.scale, E::Storage::one()),
        }
    }
}

impl<E: Element<Storage: HwFloat>> BlockKernel for FloatKernel<E> {
    type In = E::Storage;
    type Out = E::Storage;

    fn convert(&self, input: &[E::Storage], output: &mut [E::Storage]) -> Result<(), ElementFault> {
        let (offset, scale) = (self.offset, self.scale);
        // An operation with an infinite operand may give an infinity; a finite one must not.
        let (offset_finite, scale_finite) = (offset.is_finite(), scale.is_finite());
        let mut overflow = false;
        match self.direction {
            Direction::Encode => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    let a = x - offset;
                    let b = a * scale;
                    *y = b;
                    overflow |= (offset_finite & a.is_infinite() & x.is_finite())
                        | (scale_finite & b.is_infinite() & a.is_finite());
                }
            }
            Direction::Decode => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    let a = x / scale;
                    let b = a + offset;
                    *y = b;
                    overflow |= (scale_finite & a.is_infinite() & x.is_finite())
                        | (offset_finite & b.is_infinite() & a.is_finite());
                }
            }
        }
        if overflow {
            first_fault::<E>(self.direction, self.parameters, input)?;
        }
        Ok(())
    }
}

/// `scale_offset` in checked integer arithmetic of the type's own width.
#[derive(Debug)]
pub(crate) struct IntKernel<E: Element> {
    direction: Direction,
    parameters: Parameters,
    offset: E::Storage,
    scale: E::Storage,
}

impl<E: IntElement> IntKernel<E> {
    pub(crate) fn new(direction: Direction, parameters: Parameters) -> Self {
        Self {
            direction,
            parameters,
            offset: parameter::<E>(parameters.offset, E::Storage::zero()),
            scale: parameter::<E>(parameters.scale, E::Storage::one()),
        }
    }
}

impl<E: IntElement> BlockKernel for IntKernel<E> {
    type In = E::Storage;
    type Out = E::Storage;

    fn convert(&self, input: &[E::Storage], output: &mut [E::Storage]) -> Result<(), ElementFault> {
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
