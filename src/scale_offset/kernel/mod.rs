//! `scale_offset` kernels.
//!
//! - float32 and float64 run `(x - offset) * scale` and `(x / scale) + offset` in their own
//!   arithmetic ([`float`]);
//! - 16- to 64-bit integers use checked arithmetic in their own width;
//! - float16, bfloat16 and the one-byte types use the exact element function, directly or by
//!   table.
//!
//! A missing `offset` is 0 and a missing `scale` is 1 here, which leaves every value unchanged
//! except `-0 / scale + 0`, which is `+0` as the arithmetic says. (The codec skips the kernels
//! when both are missing.)

pub(crate) mod division;
pub(crate) mod float;
mod fused;

use std::sync::Arc;

use crate::Direction;
use crate::element::scale_offset::{Parameters, element};
use crate::kernel::exact::Exact;
use crate::kernel::lut::{SpareBits, lut};
use crate::kernel::simd::{BlockLoop, Isa};
use crate::kernel::{Kernel, Slots, Typed, Written};
use crate::numeric::fault::ElementFault;
use crate::numeric::{IntStorage, NumericType, RoundingMode, Storage, Value, decode, encode};
use float::FloatKernel;
pub(crate) use fused::fused_decode;

/// The `scale_offset` kernel for `t` in `direction`.
pub(crate) fn scale_offset_kernel(
    t: NumericType,
    direction: Direction,
    parameters: Parameters,
    isa: Isa,
) -> Arc<dyn Kernel> {
    let exact = move |bits| element(t, direction, parameters, bits);
    match t {
        NumericType::Float32 => Arc::new(FloatKernel::<f32>::new(t, direction, parameters, isa)),
        NumericType::Float64 => Arc::new(FloatKernel::<f64>::new(t, direction, parameters, isa)),
        NumericType::Int16 => Arc::new(IntKernel::<i16>::new(t, direction, parameters, isa)),
        NumericType::Int32 => Arc::new(IntKernel::<i32>::new(t, direction, parameters, isa)),
        NumericType::Int64 => Arc::new(IntKernel::<i64>::new(t, direction, parameters, isa)),
        NumericType::UInt16 => Arc::new(IntKernel::<u16>::new(t, direction, parameters, isa)),
        NumericType::UInt32 => Arc::new(IntKernel::<u32>::new(t, direction, parameters, isa)),
        NumericType::UInt64 => Arc::new(IntKernel::<u64>::new(t, direction, parameters, isa)),
        // A decode reads stored elements, whose spare bits any writer may have set.
        _ if t.size() == 1 => {
            let spare = match direction {
                Direction::Encode => SpareBits::Refuse,
                Direction::Decode => SpareBits::Ignore,
            };
            lut(t, 1, spare, exact)
        }
        _ => Arc::new(Exact::new(t, t.size(), Arc::new(exact))),
    }
}

/// A parameter as an element of storage `T` (`identity` when missing).
pub(super) fn parameter<T: Storage>(t: NumericType, value: Option<Value>, identity: T) -> T {
    value.map_or(identity, |v| {
        T::from_bits(
            encode(v, t.kind(), RoundingMode::NearestEven, None)
                .expect("parameters are values of the type"),
        )
    })
}

/// A block through `kernel`'s loop and then, if the loop asks for it, the elements `flagged`
/// picks through the exact element function, reporting the first failure.
pub(super) fn convert_block<'a, K, T>(
    kernel: &K,
    (t, direction, parameters, isa): (NumericType, Direction, Parameters, Isa),
    input: &[T],
    output: Slots<'a, T>,
    flagged: impl Fn(T) -> bool,
) -> Result<Written<'a, T>, ElementFault>
where
    K: BlockLoop<In = T, Out = T, Output = bool>,
    T: Storage,
{
    let (mut written, exact) = isa.run_block(kernel, input, output);
    if !exact {
        return Ok(written);
    }
    for (index, (&x, y)) in input.iter().zip(written.elements().iter_mut()).enumerate() {
        if flagged(x) {
            let bits = x.to_bits();
            *y = T::from_bits(element(t, direction, parameters, bits).map_err(|fault| {
                ElementFault {
                    index,
                    fault,
                    value: decode(t.kind(), bits),
                }
            })?);
        }
    }
    Ok(written)
}

/// `scale_offset` in checked integer arithmetic of the type's own width. (An encoded element
/// always decodes again: `(x - offset) * scale / scale + offset` is `x` exactly.)
#[derive(Debug)]
pub(crate) struct IntKernel<S> {
    t: NumericType,
    direction: Direction,
    parameters: Parameters,
    offset: S,
    scale: S,
    isa: Isa,
}

impl<S: IntStorage> IntKernel<S> {
    pub(crate) fn new(
        t: NumericType,
        direction: Direction,
        parameters: Parameters,
        isa: Isa,
    ) -> Self {
        Self {
            t,
            direction,
            parameters,
            offset: parameter::<S>(t, parameters.offset, S::zero()),
            scale: parameter::<S>(t, parameters.scale, S::one()),
            isa,
        }
    }
}

/// The arithmetic of a block; returns whether an operation failed.
impl<S: IntStorage> BlockLoop for IntKernel<S> {
    type In = S;
    type Out = S;
    type Output = bool;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn block<'a>(&self, input: &[S], output: Slots<'a, S>) -> (Written<'a, S>, bool) {
        let (offset, scale) = (self.offset, self.scale);
        let zero = S::zero();
        let mut failed = false;
        let written = match self.direction {
            Direction::Encode => output.fill(input, |x| {
                let result = x.checked_sub(&offset).and_then(|a| a.checked_mul(&scale));
                failed |= result.is_none();
                result.unwrap_or(zero)
            }),
            Direction::Decode => output.fill(input, |x| {
                // `checked_rem` is `None` only for MIN % -1, whose remainder is 0.
                let exact = x.checked_rem(&scale).is_none_or(|r| r == zero);
                let result = x.checked_div(&scale).and_then(|a| a.checked_add(&offset));
                failed |= !exact | result.is_none();
                result.unwrap_or(zero)
            }),
        };
        (written, failed)
    }
}

impl<S: IntStorage> Typed for IntKernel<S> {
    type In = S;
    type Out = S;

    fn convert<'a>(
        &self,
        input: &[S],
        output: Slots<'a, S>,
    ) -> Result<Written<'a, S>, ElementFault> {
        // The first element that fails is reported; the block fails anyway.
        let setting = (self.t, self.direction, self.parameters, self.isa);
        convert_block(self, setting, input, output, |_| true)
    }
}
