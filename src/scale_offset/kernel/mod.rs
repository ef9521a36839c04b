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
use crate::engine::exact::Exact;
use crate::engine::lut::{SpareBits, lut};
use crate::engine::simd::Isa;
use crate::engine::{Kernel, Slots, Typed, Written};
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

/// Settles a block of a `scale_offset` kernel: each element `flagged` goes through the exact
/// element function of `t`, `direction` and `parameters`.
///
/// # Errors
/// Returns the first element whose exact result is an error.
pub(super) fn settle_exact<T: Storage>(
    (t, direction, parameters): (NumericType, Direction, Parameters),
    input: &[T],
    output: &mut [T],
    flagged: impl Fn(T) -> bool,
) -> Result<(), ElementFault> {
    for (index, (&x, y)) in input.iter().zip(output.iter_mut()).enumerate() {
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
    Ok(())
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

/// The arithmetic of a block; each element of a block where an operation failed through the exact
/// element function (the first that fails is reported).
impl<S: IntStorage> Typed for IntKernel<S> {
    type In = S;
    type Out = S;

    fn isa(&self) -> Isa {
        self.isa
    }

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

    fn settle(&self, input: &[S], output: &mut [S]) -> Result<(), ElementFault> {
        settle_exact(
            (self.t, self.direction, self.parameters),
            input,
            output,
            |_| true,
        )
    }
}
