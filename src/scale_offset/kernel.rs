//! `scale_offset` kernels.
//!
//! - float32 and float64 run `(x - offset) * scale` and `(x / scale) + offset` in their own
//!   hardware arithmetic (no fused multiply-add, no reciprocal), one vectorisable pass that also
//!   notes whether an element lies beyond a magnitude up to which nothing can overflow (the
//!   decode of an encoded element included); such elements go through the exact element
//!   function;
//! - 16- to 64-bit integers use checked arithmetic in their own width;
//! - float16, bfloat16 and the one-byte types use the exact element function, directly or by
//!   table.
//!
//! A missing `offset` is 0 and a missing `scale` is 1 here, which leaves every value unchanged
//! except `-0 / scale + 0`, which is `+0` as the arithmetic says. (The codec skips the kernels
//! when both are missing.)

use std::mem::MaybeUninit;
use std::sync::Arc;

use num_traits::Zero;

use super::arithmetic::{Parameters, decode_element, encode_element};
use crate::Direction;
use crate::fault::{ElementFault, Fault};
use crate::kernel::exact::Exact;
use crate::kernel::lut::lut;
use crate::kernel::simd::{Isa, Vectorized};
use crate::kernel::{Kernel, Typed, assume_init};
use crate::numeric::{
    HwFloat, IntStorage, NumericType, RoundingMode, Storage, Value, decode, encode,
};

/// The exact result of one element of `t` (bits to bits); when encoding, the result must also
/// decode again.
///
/// # Errors
/// Returns why the element has no representable result.
pub(crate) fn element(
    t: NumericType,
    direction: Direction,
    parameters: Parameters,
    bits: u64,
) -> Result<u64, Fault> {
    let x = decode(t.kind(), bits);
    let y = match direction {
        Direction::Encode => encode_element(t.kind(), parameters, x),
        Direction::Decode => decode_element(t.kind(), parameters, x),
    }?;
    if direction == Direction::Encode
        && let Err(kind) = decode_element(t.kind(), parameters, y)
    {
        return Err(Fault {
            kind,
            encoded: Some(y),
        });
    }
    Ok(encode(y, t.kind(), RoundingMode::NearestEven, None)?)
}

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
        _ if t.size() == 1 => lut(t, 1, exact),
        _ => Arc::new(Exact::new(t, t.size(), Arc::new(exact))),
    }
}

/// A parameter as an element of storage `T` (`identity` when missing).
fn parameter<T: Storage>(t: NumericType, value: Option<Value>, identity: T) -> T {
    value.map_or(identity, |v| {
        T::from_bits(
            encode(v, t.kind(), RoundingMode::NearestEven, None)
                .expect("parameters are values of the type"),
        )
    })
}

/// Converts the elements whose flag (from the fast loop) is set through the exact element
/// function, reporting the first failure.
fn settle<T: Storage>(
    t: NumericType,
    direction: Direction,
    parameters: Parameters,
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

/// `scale_offset` in float32 or float64 arithmetic.
#[derive(Debug)]
pub(crate) struct FloatKernel<F> {
    t: NumericType,
    direction: Direction,
    parameters: Parameters,
    offset: F,
    scale: F,
    /// A magnitude up to which no operation on an element can overflow, and for encoding not
    /// the decode of its result either (`-1`, which every magnitude exceeds, if there is none).
    safe: F,
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
        let safe = safe_magnitude(direction, offset.to_f64(), scale.to_f64(), max)
            .map_or(-F::one(), F::from_f64);
        Self {
            t,
            direction,
            parameters,
            offset,
            scale,
            safe,
            isa,
        }
    }

    /// The arithmetic of a block; returns whether an element lies beyond the safe magnitude.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn compute(&self, input: &[F], output: &mut [MaybeUninit<F>]) -> bool {
        let (offset, scale, safe) = (self.offset, self.scale, self.safe);
        // The sign bits of `safe - |x|`, gathered: set if some `|x| > safe`. NaN is not beyond:
        // its magnitude is a positive NaN, and so is the difference (where the hardware gave it
        // another sign, the block would only take the exact path).
        let mut signs = F::Bits::zero();
        match self.direction {
            Direction::Encode => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    y.write((x - offset) * scale);
                    signs |= (safe - x.abs()).encoding();
                }
            }
            Direction::Decode => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    y.write(x / scale + offset);
                    signs |= (safe - x.abs()).encoding();
                }
            }
        }
        F::sign_bit(signs)
    }

    /// The arithmetic of the leading elements of `data` where they are: runs of
    /// [`IN_PLACE_RUN`] holding no element beyond the safe magnitude, then groups of
    /// [`IN_PLACE_GROUP`] up to the first group holding one; returns how many elements it
    /// converted.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn compute_in_place(&self, data: &mut [F]) -> usize {
        let (offset, scale, safe) = (self.offset, self.scale, self.safe);
        // Most runs hold no element beyond the safe magnitude: one pass over a run says so (the
        // sign bits of `safe - |x|`, as in `compute`) while it is in the L1 cache, and the whole
        // run is converted at once.
        let mut start = 0;
        for run in data.chunks_mut(IN_PLACE_RUN) {
            let mut signs = F::Bits::zero();
            for &x in &*run {
                signs |= (safe - x.abs()).encoding();
            }
            if F::sign_bit(signs) {
                break;
            }
            match self.direction {
                Direction::Encode => run.iter_mut().for_each(|x| *x = (*x - offset) * scale),
                Direction::Decode => run.iter_mut().for_each(|x| *x = *x / scale + offset),
            }
            start += run.len();
        }
        let data = &mut data[start..];
        let mut done = start;
        for group in data.chunks_exact_mut(IN_PLACE_GROUP) {
            if group.iter().fold(false, |any, &x| any | (x.abs() > safe)) {
                break;
            }
            match self.direction {
                Direction::Encode => group.iter_mut().for_each(|x| *x = (*x - offset) * scale),
                Direction::Decode => group.iter_mut().for_each(|x| *x = *x / scale + offset),
            }
            done += IN_PLACE_GROUP;
        }
        done
    }
}

/// Elements checked and converted together in place: a few vectors' worth, so that the loop is
/// vectorised and stops soon after an element it cannot take.
const IN_PLACE_GROUP: usize = 16;

/// Elements checked in one pass and then converted in another where none is beyond the safe
/// magnitude (a multiple of [`IN_PLACE_GROUP`], small enough to stay in the L1 cache in between).
const IN_PLACE_RUN: usize = 64;

/// The loops of a kernel, run for one instruction set.
enum Loop<'a, K, T> {
    Compute(&'a K, &'a [T], &'a mut [MaybeUninit<T>]),
    InPlace(&'a K, &'a mut [T]),
}

impl<F: HwFloat> Vectorized for Loop<'_, FloatKernel<F>, F> {
    type Output = usize;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn run(self) -> usize {
        match self {
            Self::Compute(kernel, input, output) => usize::from(kernel.compute(input, output)),
            Self::InPlace(kernel, data) => kernel.compute_in_place(data),
        }
    }
}

// SAFETY: the arithmetic writes every output element, with a value.
unsafe impl<F: HwFloat> Typed for FloatKernel<F> {
    type In = F;
    type Out = F;

    fn convert(&self, input: &[F], output: &mut [MaybeUninit<F>]) -> Result<(), ElementFault> {
        let beyond = self.isa.run(Loop::Compute(self, input, &mut *output)) != 0;
        // SAFETY: the arithmetic wrote every element.
        let output = unsafe { assume_init(output) };
        if beyond {
            let safe = self.safe;
            settle(
                self.t,
                self.direction,
                self.parameters,
                input,
                output,
                |x| x.abs() > safe,
            )?;
        }
        Ok(())
    }

    fn convert_in_place(&self, data: &mut [F]) -> usize {
        self.isa.run(Loop::InPlace(self, data))
    }
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

    /// The arithmetic of a block; returns whether an operation failed.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn compute(&self, input: &[S], output: &mut [MaybeUninit<S>]) -> bool {
        let (offset, scale) = (self.offset, self.scale);
        let zero = S::zero();
        let mut failed = false;
        match self.direction {
            Direction::Encode => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    let result = x.checked_sub(&offset).and_then(|a| a.checked_mul(&scale));
                    y.write(result.unwrap_or(zero));
                    failed |= result.is_none();
                }
            }
            Direction::Decode => {
                for (&x, y) in input.iter().zip(output.iter_mut()) {
                    // `checked_rem` is `None` only for MIN % -1, whose remainder is 0.
                    let exact = x.checked_rem(&scale).is_none_or(|r| r == zero);
                    let result = x.checked_div(&scale).and_then(|a| a.checked_add(&offset));
                    y.write(result.unwrap_or(zero));
                    failed |= !exact | result.is_none();
                }
            }
        }
        failed
    }
}

impl<S: IntStorage> Vectorized for Loop<'_, IntKernel<S>, S> {
    type Output = usize;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn run(self) -> usize {
        match self {
            Self::Compute(kernel, input, output) => usize::from(kernel.compute(input, output)),
            Self::InPlace(..) => 0,
        }
    }
}

// SAFETY: the arithmetic writes every output element, with a value.
unsafe impl<S: IntStorage> Typed for IntKernel<S> {
    type In = S;
    type Out = S;

    fn convert(&self, input: &[S], output: &mut [MaybeUninit<S>]) -> Result<(), ElementFault> {
        let failed = self.isa.run(Loop::Compute(self, input, &mut *output)) != 0;
        // SAFETY: the arithmetic wrote every element.
        let output = unsafe { assume_init(output) };
        if failed {
            // The first element that fails is reported; the block fails anyway.
            settle(
                self.t,
                self.direction,
                self.parameters,
                input,
                output,
                |_| true,
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "kernel_tests.rs"]
mod tests;
