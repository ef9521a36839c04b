//! The one place where a pair of data types becomes a `cast_value` kernel.
//!
//! A kernel is chosen when the codec is bound to its data types and kept; the per-element loops
//! never look at a data type. Fast paths are generic over storage only: integer targets by their
//! width (bounds and wrapping are run-time values), float16 and bfloat16 inputs widened to
//! float32 on the way in, so that one instantiation serves many pairs.

use std::sync::Arc;

use num_traits::AsPrimitive;

use super::float_to_float::FloatToFloat;
use super::float_to_int::FloatToInt;
use super::float_to_int64::FloatToInt64;
use super::int_to_float::IntToFloat;
use super::int_to_int::IntToInt;
use super::{CastKernel, FastPath};
use crate::element::cast_value::{CheckedCast, ElementCast, int_to_float_safe_range};
use crate::element::scalar_map::{MapEntry, ScalarMap};
use crate::engine::exact::Exact;
use crate::engine::lut::{SpareBits, lut};
use crate::engine::simd::Isa;
use crate::engine::{Composed, Kernel, Slots, Typed, Written};
use crate::numeric::fault::ElementFault;
use crate::numeric::{FloatInput, IntFormat, IntStorage, Kind, NumericType, decode};

/// Runs `$body` with `$S` the Rust type that stores `$t`, among the listed types.
macro_rules! with_storage {
    ($t:expr, $S:ident => $body:expr, $($variant:ident: $ty:ty),+) => {
        match $t {
            $(NumericType::$variant => {
                type $S = $ty;
                $body
            })+
            other => unreachable!("{other} has no storage of its own here"),
        }
    };
}

/// Runs `$body` with `$S` the storage of the integer type `$t`.
macro_rules! with_int_storage {
    ($t:expr, $S:ident => $body:expr) => {
        with_storage!($t, $S => $body, Int8: i8, Int16: i16, Int32: i32, Int64: i64,
            UInt8: u8, UInt16: u16, UInt32: u32, UInt64: u64)
    };
}

/// Runs `$body` with `$F` the hardware float `$t` (float32 or float64).
macro_rules! with_float_storage {
    ($t:expr, $F:ident => $body:expr) => {
        with_storage!($t, $F => $body, Float32: f32, Float64: f64)
    };
}

/// A cast to build: the procedure of one direction, and for encoding the decode it must satisfy.
#[derive(Clone, Debug)]
pub(crate) struct CastSpec {
    /// The cast.
    pub(crate) forward: ElementCast,
    /// The decode of the same configuration, for encoding.
    pub(crate) back: Option<ElementCast>,
    /// The instruction set of the loops.
    pub(crate) isa: Isa,
    /// What the cast makes of one-byte inputs with spare bits set: refused for a write (an
    /// encode), ignored for a read (a decode of stored elements).
    pub(crate) spare_bits: SpareBits,
}

impl CastSpec {
    /// Whether the decode rejects a `scalar_map` entry's mapped value.
    fn poisoned(&self, entry: &MapEntry) -> bool {
        self.back.as_ref().is_some_and(|back| {
            back.cast(decode(self.forward.to.kind(), entry.value_bits))
                .is_err()
        })
    }

    /// The exact path, reading elements held as `storage`.
    fn checked(&self, storage: NumericType) -> CheckedCast {
        CheckedCast {
            forward: ElementCast {
                from: storage,
                ..self.forward.clone()
            },
            back: self.back.clone(),
        }
    }
}

/// The `cast_value` kernel for `spec`.
pub(crate) fn cast_kernel(spec: &CastSpec) -> Arc<dyn Kernel> {
    let (from, to) = (spec.forward.from, spec.forward.to);
    // One-byte inputs go by table, except int8 and uint8 into float32 and float64: a conversion
    // instruction and the map's compare/select beat a table lookup per element.
    let hardware_target = matches!(to, NumericType::Float32 | NumericType::Float64);
    let byte_to_float = matches!(from, NumericType::Int8 | NumericType::UInt8) && hardware_target;
    if from.size() == 1 && !byte_to_float {
        let checked = spec.checked(from);
        return lut(from, to.size(), spec.spare_bits, move |bits| {
            checked.element(bits)
        });
    }
    if !(to.is_integer() || hardware_target) {
        // float16, bfloat16 and the small floats: the exact element function.
        let checked = spec.checked(from);
        return Arc::new(Exact::new(
            from,
            to.size(),
            Arc::new(move |bits| checked.element(bits)),
        ));
    }
    match from {
        NumericType::Float16 | NumericType::BFloat16 => Arc::new(Composed::new(
            Arc::new(Widen16 {
                bfloat16: from == NumericType::BFloat16,
            }),
            storage_kernel(spec, NumericType::Float32),
        )),
        _ => storage_kernel(spec, from),
    }
}

/// The kernel for elements held as the hardware type `storage`.
fn storage_kernel(spec: &CastSpec, storage: NumericType) -> Arc<dyn Kernel> {
    let to = spec.forward.to;
    match (storage.is_integer(), to.kind()) {
        (false, Kind::Int(format)) => {
            with_float_storage!(storage, F => float_to_int::<F>(spec, storage, format))
        }
        // One-byte integers go by table (`cast_kernel`).
        (true, Kind::Int(format)) => with_storage!(storage, S => int_to_int::<S>(spec, format),
            Int16: i16, Int32: i32, Int64: i64, UInt16: u16, UInt32: u32, UInt64: u64),
        (false, Kind::Float(_)) => with_float_storage!(storage, F => {
            with_float_storage!(to, G => build(FloatToFloat::<F, G>::new(spec.forward.rounding), spec, storage, &spec.forward.map))
        }),
        (true, Kind::Float(_)) => with_int_storage!(storage, S => {
            let safe = spec.back.as_ref().and(int_to_float_safe_range(&spec.forward));
            // The fast path applies the first entry the decode accepts; the map, the others.
            let fused = spec.forward.map.iter().find(|entry| !spec.poisoned(entry));
            let others = others(&spec.forward.map, fused);
            let entry = fused.map(|entry| (entry.key_bits, entry.value_bits));
            with_float_storage!(to, G => build(IntToFloat::<S, G>::new(spec.forward.rounding, safe, entry), spec, storage, &others))
        }),
    }
}

/// The entries of `map` other than `applied` (which the fast path applies itself).
fn others(map: &[MapEntry], applied: Option<&MapEntry>) -> Vec<MapEntry> {
    map.iter()
        .filter(|&entry| Some(entry) != applied)
        .copied()
        .collect()
}

/// A complete cast around the fast path `fast`, with the `scalar_map` entries `map`.
fn build<P: FastPath>(
    fast: P,
    spec: &CastSpec,
    storage: NumericType,
    map: &[MapEntry],
) -> Arc<dyn Kernel> {
    let map = ScalarMap::new(map, storage, &|entry| spec.poisoned(entry));
    Arc::new(CastKernel::new(fast, map, spec.checked(storage), spec.isa))
}

fn int_to_int<S: IntStorage>(spec: &CastSpec, format: IntFormat) -> Arc<dyn Kernel> {
    let oor = spec.forward.out_of_range;
    let map = &spec.forward.map;
    let storage = spec.forward.from;
    match spec.forward.to.size() {
        1 => build(IntToInt::<S, u8>::new(format, oor), spec, storage, map),
        2 => build(IntToInt::<S, u16>::new(format, oor), spec, storage, map),
        4 => build(IntToInt::<S, u32>::new(format, oor), spec, storage, map),
        _ => build(IntToInt::<S, u64>::new(format, oor), spec, storage, map),
    }
}

fn float_to_int<F>(spec: &CastSpec, storage: NumericType, format: IntFormat) -> Arc<dyn Kernel>
where
    F: FloatInput + AsPrimitive<f64> + AsPrimitive<i64> + AsPrimitive<u64>,
{
    let (rounding, mut oor) = (spec.forward.rounding, spec.forward.out_of_range);
    // Wrapping a float16 into a target whose range exceeds float16's gives values its decode
    // rejects: with a guard, the elements that wrap go to the exact path.
    let exceeds_float16 = format.max() > 65_504 || format.min() < -65_504;
    if spec.back.is_some()
        && spec
            .back
            .as_ref()
            .is_some_and(|back| back.to == NumericType::Float16)
        && oor == Some(crate::numeric::OutOfRangeMode::Wrap)
        && exceeds_float16
    {
        oor = None;
    }
    // The fast path applies a NaN entry itself (NaN keys are unique once read), unless the
    // decode rejects its value.
    let nan_entry = spec
        .forward
        .map
        .iter()
        .find(|entry| entry.key.is_nan() && !spec.poisoned(entry));
    let nan = nan_entry.map(|entry| entry.value_bits);
    let others = others(&spec.forward.map, nan_entry);
    // Targets of up to 16 bits are computed in the element's own float (float32 holds them and
    // their bounds exactly), 32-bit targets in float64.
    match spec.forward.to.size() {
        1 => build(
            FloatToInt::<F, u8, F>::new(format, rounding, oor, nan),
            spec,
            storage,
            &others,
        ),
        2 => build(
            FloatToInt::<F, u16, F>::new(format, rounding, oor, nan),
            spec,
            storage,
            &others,
        ),
        4 => build(
            FloatToInt::<F, u32, f64>::new(format, rounding, oor, nan),
            spec,
            storage,
            &others,
        ),
        _ if format.signed => build(
            FloatToInt64::<F, i64>::new(format, rounding, oor, nan),
            spec,
            storage,
            &others,
        ),
        _ => build(
            FloatToInt64::<F, u64>::new(format, rounding, oor, nan),
            spec,
            storage,
            &others,
        ),
    }
}

/// float16 or bfloat16 widened to float32 (exact).
#[derive(Debug)]
struct Widen16 {
    bfloat16: bool,
}

impl Typed for Widen16 {
    type In = u16;
    type Out = f32;

    fn isa(&self) -> Isa {
        Isa::PORTABLE
    }

    fn block<'a>(&self, input: &[u16], output: Slots<'a, f32>) -> (Written<'a, f32>, bool) {
        let written = if self.bfloat16 {
            // bfloat16 is the upper half of a float32.
            output.fill(input, |x| f32::from_bits(u32::from(x) << 16))
        } else {
            output.fill(input, |x| half::f16::from_bits(x).to_f32())
        };
        (written, false)
    }

    fn settle(&self, _input: &[u16], _output: &mut [f32]) -> Result<(), ElementFault> {
        Ok(())
    }
}
