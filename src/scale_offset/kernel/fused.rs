//! One loop for the most common chain's decode: stored integers cast to float32 or float64 (with
//! at most one `scalar_map` entry, such as `0 → NaN`) and then `(x / scale) + offset`, as a
//! hand-written loop would do it, with the correctly rounded
//! [`Division::new`](crate::scale_offset::kernel::division::Division::new), not the codec's
//! correction, whose checks cost more than they save in a loop bound by the memory it writes.
//!
//! It is used only where it gives exactly what the two codecs give one after the other: the
//! integer type converts exactly to the float (so the cast is the hardware conversion), and a
//! block holding an element whose decode overflows goes through the codecs' own kernels instead.

use std::sync::Arc;

use num_traits::{AsPrimitive, Zero};

use super::division::Division;
use crate::element::cast_value::ElementCast;
use crate::element::scale_offset::Parameters;
use crate::engine::simd::Isa;
use crate::engine::{Kernel, Slots, Typed, Written};
use crate::numeric::fault::ElementFault;
use crate::numeric::{HwFloat, IntStorage, NumericType, RoundingMode, Value, encode};

/// The fused decode from integers `S` to floats `F`.
#[derive(Debug)]
struct FusedDecode<S, F: HwFloat> {
    /// The `scalar_map` entry, if any.
    entry: Option<(S, F)>,
    division: Division<F>,
    offset: F,
    /// Whether the decode of some dividend can overflow (see [`Division::may_overflow`]).
    overflows: bool,
    fallback: Arc<dyn Kernel>,
    isa: Isa,
}

/// The block loop: one loop with the `scalar_map` entry and one without.
impl<S, F> Typed for FusedDecode<S, F>
where
    S: IntStorage + AsPrimitive<F>,
    F: HwFloat,
{
    type In = S;
    type Out = F;

    fn isa(&self) -> Isa {
        self.isa
    }

    #[inline(always)]
    fn block<'a>(&self, input: &[S], output: Slots<'a, F>) -> (Written<'a, F>, bool) {
        let setting = (self.offset, self.overflows);
        match self.entry {
            Some((key, value)) => {
                let dividend = |x: S| if x == key { value } else { x.as_() };
                decode_block(self.division, dividend, setting, input, output)
            }
            None => decode_block(self.division, |x: S| x.as_(), setting, input, output),
        }
    }

    /// The block again, through the codecs' own kernels.
    fn settle(&self, input: &[S], output: &mut [F]) -> Result<(), ElementFault> {
        let output: &mut [u8] = bytemuck::cast_slice_mut(output);
        self.fallback
            .convert_init(bytemuck::cast_slice(input), output)
    }
}

/// The decode of a block by `division`: `(d / scale) + offset` for the dividend `d = dividend(x)`
/// of each element `x` (a stored integer converted to the float, with at most one `scalar_map`
/// entry applied); returns whether some result is infinite, where some may be (`overflows`):
/// where the decode overflowed (and where `d` was infinite), the block then goes through the
/// codecs' own kernels.
#[inline(always)]
fn decode_block<'o, S: Copy, F: HwFloat>(
    division: Division<F>,
    dividend: impl Fn(S) -> F,
    (offset, overflows): (F, bool),
    input: &[S],
    output: Slots<'o, F>,
) -> (Written<'o, F>, bool) {
    if !overflows {
        let written = output.fill(input, |x| division.quotient(dividend(x)) + offset);
        return (written, false);
    }
    // The least `infinity_gap` of the results, zero exactly when one is infinite.
    let mut least = F::zero().infinity_gap();
    let written = output.fill(input, |x| {
        let decoded = division.quotient(dividend(x)) + offset;
        least = least.min(decoded.infinity_gap());
        decoded
    });
    (written, least == F::Bits::zero())
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
    let isa = Isa::best();
    // The largest finite dividend: an integer of the stored type, or the entry's value.
    let integers: [F; 2] = [S::min_value().as_(), S::max_value().as_()];
    let largest = entry
        .map(|(_, value)| value)
        .into_iter()
        .chain(integers)
        .filter(|d| d.is_finite())
        .fold(F::zero(), |largest, d| largest.max(d.abs()));
    let division = Division::new(scale);
    Some(Arc::new(FusedDecode::<S, F> {
        entry,
        division,
        offset,
        overflows: division.may_overflow(largest, offset),
        fallback: Arc::clone(fallback),
        isa,
    }))
}
