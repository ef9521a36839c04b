//! One loop for the most common chain's decode: stored integers cast to float32 or float64 (with
//! at most one `scalar_map` entry, such as `0 → NaN`) and then `(x / scale) + offset`, as a
//! hand-written loop would do it (the division as
//! [`Streaming`](crate::scale_offset::kernel::division::Streaming) chooses it).
//!
//! It is used only where it gives exactly what the two codecs give one after the other: the
//! integer type converts exactly to the float (so the cast is the hardware conversion), and a
//! block holding an element beyond the magnitude up to which the arithmetic cannot overflow, or
//! whose quotient may be inexact, goes through the codecs' own kernels instead.

use std::sync::Arc;

use num_traits::AsPrimitive;

use super::division::Streaming;
use super::float::{Decode, Dividend, safe_magnitude};
use crate::Direction;
use crate::element::cast_value::ElementCast;
use crate::element::scale_offset::Parameters;
use crate::kernel::simd::{BlockLoop, Isa};
use crate::kernel::{Kernel, Slots, Typed, Written};
use crate::numeric::fault::ElementFault;
use crate::numeric::{HwFloat, IntStorage, NumericType, RoundingMode, Value, encode};

/// The fused decode from integers `S` to floats `F`.
#[derive(Debug)]
struct FusedDecode<S, F: HwFloat> {
    /// The `scalar_map` entry, if any.
    entry: Option<(S, F)>,
    division: Streaming<F>,
    offset: F,
    /// Elements of a larger magnitude go through `fallback`.
    safe: F,
    /// Whether the decode of some dividend can overflow (see [`Streaming::may_overflow`]).
    overflows: bool,
    fallback: Arc<dyn Kernel>,
    isa: Isa,
}

/// A stored integer converted to the float.
#[derive(Clone, Copy)]
struct Converted;

impl<S: AsPrimitive<F>, F: HwFloat> Dividend<S, F> for Converted {
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn of(self, x: S) -> F {
        x.as_()
    }
}

/// A stored integer converted to the float, or the `scalar_map` entry's value for its key.
#[derive(Clone, Copy)]
struct Mapped<S, F> {
    key: S,
    value: F,
}

impl<S: IntStorage + AsPrimitive<F>, F: HwFloat> Dividend<S, F> for Mapped<S, F> {
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn of(self, x: S) -> F {
        if x == self.key { self.value } else { x.as_() }
    }
}

/// The block loop: one loop with the `scalar_map` entry and one without.
impl<S, F> BlockLoop for FusedDecode<S, F>
where
    S: IntStorage + AsPrimitive<F>,
    F: HwFloat,
{
    type In = S;
    type Out = F;
    type Output = bool;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn block<'a>(&self, input: &[S], output: Slots<'a, F>) -> (Written<'a, F>, bool) {
        let (offset, safe, overflows) = (self.offset, self.safe, self.overflows);
        match self.entry {
            Some((key, value)) => self.division.with(Decode {
                dividend: Mapped { key, value },
                offset,
                safe,
                overflows,
                input,
                output,
            }),
            None => self.division.with(Decode {
                dividend: Converted,
                offset,
                safe,
                overflows,
                input,
                output,
            }),
        }
    }
}

impl<S, F> Typed for FusedDecode<S, F>
where
    S: IntStorage + AsPrimitive<F>,
    F: HwFloat,
{
    type In = S;
    type Out = F;

    fn convert<'a>(
        &self,
        input: &[S],
        output: Slots<'a, F>,
    ) -> Result<Written<'a, F>, ElementFault> {
        let (mut written, beyond) = self.isa.run_block(self, input, output);
        if beyond {
            // The block again, through the codecs' own kernels.
            let output: &mut [u8] = bytemuck::cast_slice_mut(written.elements());
            self.fallback
                .convert_init(bytemuck::cast_slice(input), output)?;
        }
        Ok(written)
    }
}

/// The fused decode of `[scale_offset, cast_value]` where it applies: `cast` is the cast's decode
/// (from its integer target to the float type), `parameters` the `scale_offset` parameters of that
/// float type, and `fallback` the two codecs' kernels one after the other.
pub(crate) fn fused_decode(
    cast: &ElementCast,
    parameters: Parameters,
    fallback: &Arc<dyn Kernel>,
) -> Option<Arc<dyn Kernel>> {
    let (stored, float) = (cast.from, cast.to);
    if cast.map.len() > 1 || !stored.is_integer() {
        return None;
    }
    // The integers must convert to the float exactly, so that the cast is the hardware
    // conversion whatever the rounding mode.
    let precision = match float {
        NumericType::Float32 => 24,
        NumericType::Float64 => 53,
        _ => return None,
    };
    if stored.bits() > precision || stored.size() > 4 {
        return None;
    }
    macro_rules! with_stored {
        ($F:ty) => {
            match stored {
                NumericType::Int8 => build::<i8, $F>(cast, parameters, fallback),
                NumericType::UInt8 => build::<u8, $F>(cast, parameters, fallback),
                NumericType::Int16 => build::<i16, $F>(cast, parameters, fallback),
                NumericType::UInt16 => build::<u16, $F>(cast, parameters, fallback),
                NumericType::Int32 => build::<i32, $F>(cast, parameters, fallback),
                NumericType::UInt32 => build::<u32, $F>(cast, parameters, fallback),
                _ => None,
            }
        };
    }
    match float {
        NumericType::Float32 => with_stored!(f32),
        _ => with_stored!(f64),
    }
}

fn build<S, F>(
    cast: &ElementCast,
    parameters: Parameters,
    fallback: &Arc<dyn Kernel>,
) -> Option<Arc<dyn Kernel>>
where
    S: IntStorage + AsPrimitive<F>,
    F: HwFloat,
{
    let bits = |value: Value, t: NumericType| {
        encode(value, t.kind(), RoundingMode::NearestEven, None).ok()
    };
    let entry = cast
        .map
        .first()
        .map(|entry| (S::from_bits(entry.key_bits), F::from_bits(entry.value_bits)));
    let parameter = |value: Option<Value>, identity: F| match value {
        Some(v) => bits(v, cast.to).map(F::from_bits),
        None => Some(identity),
    };
    let offset = parameter(parameters.offset, F::zero())?;
    let scale = parameter(parameters.scale, F::one())?;
    let safe = safe_magnitude(
        Direction::Decode,
        offset.to_f64(),
        scale.to_f64(),
        F::max_value().to_f64(),
    )?;
    let isa = Isa::best();
    let division = Streaming::new(scale);
    let safe = F::from_f64(safe);
    // The largest finite dividend: an integer of the stored type, or the entry's value.
    let integers: [F; 2] = [S::min_value().as_(), S::max_value().as_()];
    let largest = entry
        .map(|(_, value)| value)
        .into_iter()
        .chain(integers)
        .filter(|d| d.is_finite())
        .fold(F::zero(), |largest, d| largest.max(d.abs()));
    Some(Arc::new(FusedDecode::<S, F> {
        entry,
        division,
        offset,
        safe,
        overflows: division.may_overflow(largest, offset),
        fallback: Arc::clone(fallback),
        isa,
    }))
}
