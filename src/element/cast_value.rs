//! The `cast_value` procedure for one element, decided on exact values, and the guard that keeps
//! an encode from writing what its own decode would reject.
//!
//! [Procedure](https://github.com/zarr-developers/zarr-extensions/tree/main/codecs/cast_value):
//! step 1, an explicit `scalar_map` entry; step 2, the exact value if the target holds it; step 3,
//! the value rounded by `rounding` and, outside the target range, handled by `out_of_range`.
//!
//! Data safety (crate policy "unreadable"): an encode whose output could not be decoded with the
//! same configuration fails, naming what the element became. The kernels prove most type pairs
//! safe from the types alone; the guard decides the rest element by element.

use super::scalar_map::{MapEntry, lookup};
use crate::numeric::fault::{Fault, FaultKind};
use crate::numeric::{NumericType, OutOfRangeMode, RoundingMode, Value, decode, encode};

/// One direction of a cast: the procedure from `from` to `to`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ElementCast {
    /// The input type.
    pub(crate) from: NumericType,
    /// The output type.
    pub(crate) to: NumericType,
    /// The rounding mode.
    pub(crate) rounding: RoundingMode,
    /// The out-of-range mode.
    pub(crate) out_of_range: Option<OutOfRangeMode>,
    /// The `scalar_map` entries of this direction.
    pub(crate) map: Vec<MapEntry>,
}

impl ElementCast {
    /// The output bits for the value `x`.
    ///
    /// # Errors
    /// Returns why no output is acceptable.
    pub(crate) fn cast(&self, x: Value) -> Result<u64, FaultKind> {
        match lookup(&self.map, x) {
            Some(bits) => Ok(bits),
            None => self.cast_unmapped(x),
        }
    }

    /// [`Self::cast`] without the `scalar_map`: steps 2 and 3 of the procedure.
    ///
    /// # Errors
    /// Returns why no output is acceptable.
    pub(crate) fn cast_unmapped(&self, x: Value) -> Result<u64, FaultKind> {
        encode(x, self.to.kind(), self.rounding, self.out_of_range)
    }
}

/// A cast whose output, when `back` is set (encoding), must be accepted by `back` (the decode of
/// the same configuration).
#[derive(Clone, Debug)]
pub(crate) struct CheckedCast {
    /// The cast.
    pub(crate) forward: ElementCast,
    /// The cast back, for encoding.
    pub(crate) back: Option<ElementCast>,
}

impl CheckedCast {
    /// The output bits for an input element's bits (of `forward.from`, which may be a wider type
    /// holding the same value as the codec's input type).
    ///
    /// # Errors
    /// Returns why no output is acceptable, or why the output could not be decoded.
    pub(crate) fn element(&self, bits: u64) -> Result<u64, Fault> {
        let x = decode(self.forward.from.kind(), bits);
        let y = self.forward.cast(x)?;
        if let Some(back) = &self.back {
            let encoded = decode(self.forward.to.kind(), y);
            if let Err(kind) = back.cast(encoded) {
                return Err(Fault {
                    kind,
                    encoded: Some(encoded),
                });
            }
        }
        Ok(y)
    }
}

/// For an integer input of range `[min, max]` cast to a float, the inputs whose output lies within
/// `[min, max]` as a value (so that decoding never leaves the input range): `(lo, hi)`, or `None`
/// when every input qualifies. Outputs beyond the range (an integer rounded up past its maximum,
/// such as int32 2147483647 to float32 2^31) are left to the guard.
pub(crate) fn int_to_float_safe_range(cast: &ElementCast) -> Option<(i128, i128)> {
    let crate::numeric::Kind::Int(format) = cast.from.kind() else {
        return None;
    };
    let (min, max) = (format.min(), format.max());
    let value = |x: i128| {
        if x < 0 {
            Value::from_i64(i64::try_from(x).expect("a 64-bit integer"))
        } else {
            Value::from_u64(u64::try_from(x).expect("a 64-bit integer"))
        }
    };
    // Whether x's output, as a value, lies within [min, max].
    let within = |x: i128| {
        cast.cast_unmapped(value(x)).is_ok_and(|bits| {
            let y = decode(cast.to.kind(), bits);
            encode(y, cast.from.kind(), RoundingMode::TowardsZero, None).is_ok()
        })
    };
    if within(min) && within(max) {
        return None;
    }
    // The output is monotonic in the input, so each end is found by bisection.
    let hi = bisect(0.max(min), max, &within);
    let lo = -bisect(-(0.min(max)), -min, &|x| within(-x));
    Some((lo, hi))
}

/// The largest `x` in `[from, to]` with `ok(x)`, where `ok` holds from `from` up to some point.
fn bisect(from: i128, to: i128, ok: &dyn Fn(i128) -> bool) -> i128 {
    let (mut good, mut bad) = (from, to);
    if ok(bad) {
        return bad;
    }
    while bad - good > 1 {
        let middle = good + (bad - good) / 2;
        if ok(middle) {
            good = middle;
        } else {
            bad = middle;
        }
    }
    good
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cast(from: NumericType, to: NumericType, rounding: RoundingMode) -> ElementCast {
        ElementCast {
            from,
            to,
            rounding,
            out_of_range: None,
            map: Vec::new(),
        }
    }

    #[test]
    fn int32_to_float32_is_safe_below_the_values_that_round_to_two_to_the_31() {
        let ne = cast(
            NumericType::Int32,
            NumericType::Float32,
            RoundingMode::NearestEven,
        );
        assert_eq!(
            int_to_float_safe_range(&ne),
            Some((i128::from(i32::MIN), 2_147_483_583))
        );
        let tz = cast(
            NumericType::Int32,
            NumericType::Float32,
            RoundingMode::TowardsZero,
        );
        assert_eq!(int_to_float_safe_range(&tz), None);
        let widening = cast(
            NumericType::Int16,
            NumericType::Float32,
            RoundingMode::NearestEven,
        );
        assert_eq!(int_to_float_safe_range(&widening), None);
    }

    #[test]
    fn an_encode_whose_output_cannot_be_decoded_names_what_it_became() {
        let forward = cast(
            NumericType::Int8,
            NumericType::Float8E4M3,
            RoundingMode::NearestEven,
        );
        let back = cast(
            NumericType::Float8E4M3,
            NumericType::Int8,
            RoundingMode::NearestEven,
        );
        let checked = CheckedCast {
            forward,
            back: Some(back),
        };
        assert!(checked.element(100).is_ok());
        let fault = checked.element(127).unwrap_err();
        assert_eq!(fault.kind, FaultKind::OutOfRange);
        assert_eq!(fault.encoded, Some(Value::from_u64(128)));
    }
}
