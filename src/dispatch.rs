//! The one place where data types become kernels.
//!
//! A kernel is chosen when a codec is bound to its data types and kept; the per-element loops
//! never look at a data type.

use std::sync::Arc;

use num_traits::AsPrimitive;

use crate::Direction;
use crate::cast_value::kernel::{CastKernel, ExactOnly, FastPath};
use crate::cast_value::scalar_map::{MapEntry, ScalarMap, lookup};
use crate::cast_value::{FloatToFloat, FloatToInt, IntToFloat, IntToInt};
use crate::chunk::ChunkKernel;
use crate::error::FaultKind;
use crate::lut::Lut;
use crate::numeric::element;
use crate::numeric::{
    Element, FloatElement, HwFloat, IntElement, IntFormat, Kind, MapInput, NumericType,
    OutOfRangeMode, RoundingMode, Value, encode, with_element,
};
use crate::scale_offset::arithmetic::{Parameters, decode_element, encode_element};
use crate::scale_offset::kernel::{ExactKernel, FloatKernel, IntKernel};
use crate::simd::Isa;

/// Expands to `Some(kernel)` when `$from`/`$to` are among the listed source/target types.
macro_rules! pair_kernel {
    ($from:expr, $to:expr, $make:ident $args:tt, [$($S:ident),*], $targets:tt) => {
        match $from {
            $(NumericType::$S => pair_kernel!(@row $S, $to, $make $args, $targets),)*
            _ => None,
        }
    };
    (@row $S:ident, $to:expr, $make:ident ($arg:expr), [$($D:ident),*]) => {
        match $to {
            $(NumericType::$D => Some($make::<element::$S, element::$D>($arg)),)*
            _ => None,
        }
    };
}

/// A table-driven kernel for a one-byte input type, tabulating `element`.
pub(crate) fn lut_kernel(
    from: NumericType,
    to: NumericType,
    element: impl Fn(Value) -> Result<u64, FaultKind>,
) -> Arc<dyn ChunkKernel> {
    let signed = matches!(from.kind(), Kind::Int(IntFormat { signed: true, .. }));
    with_element!(to, D => {
        if signed {
            Arc::new(Lut::<i8, <D as Element>::Storage>::build(from, element)) as Arc<dyn ChunkKernel>
        } else {
            Arc::new(Lut::<u8, <D as Element>::Storage>::build(from, element))
        }
    })
}

/// The `cast_value` kernel from `from` to `to`.
pub(crate) fn cast_kernel(
    from: NumericType,
    to: NumericType,
    map: &[MapEntry],
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
    isa: Isa,
) -> Arc<dyn ChunkKernel> {
    // One-byte inputs go by table, except int8 and uint8 into float32 and float64: a conversion
    // instruction and the map's compare/select beat a table lookup per element.
    let byte_to_float = matches!(from, NumericType::Int8 | NumericType::UInt8)
        && matches!(to, NumericType::Float32 | NumericType::Float64);
    if from.size() == 1 && !byte_to_float {
        return lut_kernel(from, to, |value| match lookup(map, value) {
            Some(bits) => Ok(bits),
            None => encode(value, to.kind(), rounding, out_of_range),
        });
    }
    let args = (map, rounding, out_of_range, isa);
    pair_kernel!(
        from,
        to,
        float_to_int(args),
        [Float16, BFloat16, Float32, Float64],
        [
            Int2, Int4, Int8, Int16, Int32, Int64, UInt2, UInt4, UInt8, UInt16, UInt32, UInt64
        ]
    )
    .or_else(|| {
        pair_kernel!(
            from,
            to,
            int_to_int(args),
            [Int16, Int32, Int64, UInt16, UInt32, UInt64],
            [
                Int2, Int4, Int8, Int16, Int32, Int64, UInt2, UInt4, UInt8, UInt16, UInt32, UInt64
            ]
        )
    })
    .or_else(|| {
        pair_kernel!(
            from,
            to,
            int_to_float(args),
            [Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64],
            [Float32, Float64]
        )
    })
    .or_else(|| {
        pair_kernel!(
            from,
            to,
            float_to_float(args),
            [Float16, BFloat16, Float32, Float64],
            [Float32, Float64]
        )
    })
    .or_else(|| {
        pair_kernel!(
            from,
            to,
            exact_only(args),
            [
                Int16, Int32, Int64, UInt16, UInt32, UInt64, Float16, BFloat16, Float32, Float64
            ],
            [
                Float4E2M1FN,
                Float6E2M3FN,
                Float6E3M2FN,
                Float8E3M4,
                Float8E4M3,
                Float8E4M3B11FNUZ,
                Float8E4M3FNUZ,
                Float8E5M2,
                Float8E5M2FNUZ,
                Float8E8M0FNU,
                BFloat16,
                Float16
            ]
        )
    })
    .expect("every pair of supported data types has a kernel")
}

/// The configuration of a cast: `(scalar_map entries, rounding, out_of_range, instruction set)`.
type Args<'a> = (&'a [MapEntry], RoundingMode, Option<OutOfRangeMode>, Isa);

/// The complete cast around the fast path `fast`, with the `scalar_map` entries `map`.
fn cast<P: FastPath>(fast: P, (map, rounding, oor, isa): Args<'_>) -> Arc<dyn ChunkKernel> {
    Arc::new(CastKernel::new(
        fast,
        ScalarMap::new(map),
        rounding,
        oor,
        isa,
    ))
}

fn float_to_int<S, D>((map, rounding, oor, isa): Args<'_>) -> Arc<dyn ChunkKernel>
where
    S: FloatElement + MapInput,
    D: IntElement,
    S::Wide: AsPrimitive<D::Storage>,
{
    // The fast path applies a NaN entry itself (NaN keys are unique once read).
    let nan = map
        .iter()
        .find(|entry| entry.key.is_nan())
        .map(|entry| entry.value_bits);
    let others: Vec<MapEntry> = map
        .iter()
        .filter(|entry| !entry.key.is_nan())
        .copied()
        .collect();
    cast(
        FloatToInt::<S, D>::new(rounding, oor, nan),
        (&others, rounding, oor, isa),
    )
}

fn int_to_int<S, D>(args: Args<'_>) -> Arc<dyn ChunkKernel>
where
    S: IntElement + MapInput,
    D: IntElement,
    S::Storage: AsPrimitive<D::Storage>,
{
    cast(IntToInt::<S, D>::new(args.2), args)
}

fn int_to_float<S, D>(args: Args<'_>) -> Arc<dyn ChunkKernel>
where
    S: IntElement + MapInput,
    D: Element<Storage: HwFloat>,
    S::Storage: AsPrimitive<D::Storage>,
{
    cast(IntToFloat::<S, D>::new(args.1), args)
}

fn float_to_float<S, D>(args: Args<'_>) -> Arc<dyn ChunkKernel>
where
    S: FloatElement + MapInput,
    D: Element<Storage: HwFloat>,
    S::Wide: AsPrimitive<D::Storage>,
    D::Storage: AsPrimitive<S::Wide>,
{
    cast(FloatToFloat::<S, D>::new(args.1), args)
}

fn exact_only<S: MapInput, D: Element>(args: Args<'_>) -> Arc<dyn ChunkKernel> {
    cast(ExactOnly::<S, D>::new(), args)
}

/// The `scale_offset` kernel for `data_type` in `direction`.
pub(crate) fn scale_offset_kernel(
    data_type: NumericType,
    direction: Direction,
    parameters: Parameters,
    isa: Isa,
) -> Arc<dyn ChunkKernel> {
    if data_type.size() == 1 {
        return lut_kernel(data_type, data_type, |value| {
            let result = match direction {
                Direction::Encode => encode_element(data_type.kind(), parameters, value),
                Direction::Decode => decode_element(data_type.kind(), parameters, value),
            }?;
            encode(result, data_type.kind(), RoundingMode::NearestEven, None)
        });
    }
    match data_type {
        NumericType::Float32 => Arc::new(FloatKernel::<element::Float32>::new(
            direction, parameters, isa,
        )),
        NumericType::Float64 => Arc::new(FloatKernel::<element::Float64>::new(
            direction, parameters, isa,
        )),
        NumericType::Float16 => {
            Arc::new(ExactKernel::<element::Float16>::new(direction, parameters))
        }
        NumericType::BFloat16 => {
            Arc::new(ExactKernel::<element::BFloat16>::new(direction, parameters))
        }
        NumericType::Int16 => {
            Arc::new(IntKernel::<element::Int16>::new(direction, parameters, isa))
        }
        NumericType::Int32 => {
            Arc::new(IntKernel::<element::Int32>::new(direction, parameters, isa))
        }
        NumericType::Int64 => {
            Arc::new(IntKernel::<element::Int64>::new(direction, parameters, isa))
        }
        NumericType::UInt16 => Arc::new(IntKernel::<element::UInt16>::new(
            direction, parameters, isa,
        )),
        NumericType::UInt32 => Arc::new(IntKernel::<element::UInt32>::new(
            direction, parameters, isa,
        )),
        NumericType::UInt64 => Arc::new(IntKernel::<element::UInt64>::new(
            direction, parameters, isa,
        )),
        one_byte => unreachable!("{one_byte} is tabulated"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_of_supported_types_has_a_kernel() {
        for &from in NumericType::ALL {
            for &to in NumericType::ALL {
                let kernel =
                    cast_kernel(from, to, &[], RoundingMode::NearestEven, None, Isa::best());
                let input = vec![0u8; from.size() * 3];
                // float8_e8m0fnu has no zero: its zero bytes are 2^-127, out of range elsewhere.
                if let Ok(output) = kernel.apply(input.into(), 1) {
                    assert_eq!(output.len(), to.size() * 3, "{from} -> {to}");
                }
            }
        }
    }
}
