//! Fast path: 8- to 64-bit integers to float32 and float64.
//!
//! The hardware conversion rounds to nearest, ties to even, which is the `nearest-even` result.
//! For the other modes it is used where it is exact (magnitudes up to `2^precision`); larger
//! values are left to the exact path. So are, when encoding, the inputs whose output would lie
//! beyond the input range (int32 2147483647 rounds to 2^31 in float32, which no int32 holds):
//! the exact path's guard decides them. No integer exceeds the float32 range. One `scalar_map`
//! entry (such as `0 → NaN`) is applied in the same loop.

use std::marker::PhantomData;

use num_traits::AsPrimitive;

use crate::cast_value::kernel::FastPath;
use crate::engine::{Slots, Written};
use crate::numeric::{HwFloat, IntStorage, RoundingMode};

/// An integer → float fast path.
#[derive(Debug)]
pub(crate) struct IntToFloat<S, F> {
    /// The inputs the conversion decides; `None` for all.
    decided: Option<(S, S)>,
    /// A `scalar_map` entry applied in the same loop: the key and its output. Without one, an
    /// entry mapping 0 to its own conversion, which changes nothing.
    entry: (S, F),
    types: PhantomData<fn() -> F>,
}

impl<S: IntStorage, F: HwFloat> IntToFloat<S, F> {
    /// `safe`: the inputs whose output the decode accepts (see
    /// [`int_to_float_safe_range`](crate::element::cast_value::int_to_float_safe_range));
    /// `entry`: a `scalar_map` entry to apply, as the bits of its key and of its output.
    pub(crate) fn new(
        rounding: RoundingMode,
        safe: Option<(i128, i128)>,
        entry: Option<(u64, u64)>,
    ) -> Self
    where
        S: AsPrimitive<F>,
    {
        let exact = 1i128 << F::FORMAT.precision();
        let (mut lo, mut hi) = (i128::MIN, i128::MAX);
        if rounding != RoundingMode::NearestEven {
            (lo, hi) = (-exact, exact);
        }
        if let Some((safe_lo, safe_hi)) = safe {
            (lo, hi) = (lo.max(safe_lo), hi.min(safe_hi));
        }
        let (lo, hi) = (S::from_i128_clamped(lo), S::from_i128_clamped(hi));
        let decided = (lo != S::min_value() || hi != S::max_value()).then_some((lo, hi));
        let entry = entry.map_or((S::zero(), S::zero().as_()), |(key, value)| {
            (S::from_bits(key), F::from_bits(value))
        });
        Self {
            decided,
            entry,
            types: PhantomData,
        }
    }
}

impl<S, F> FastPath for IntToFloat<S, F>
where
    S: IntStorage + AsPrimitive<F>,
    F: HwFloat,
{
    type In = S;
    type Out = F;

    #[inline(always)]
    fn convert<'a>(&self, input: &[S], output: Slots<'a, F>) -> (Written<'a, F>, bool) {
        let (key, mapped) = self.entry;
        let written = output.fill(input, |x| if x == key { mapped } else { x.as_() });
        let Some((lo, hi)) = self.decided else {
            return (written, false);
        };
        let mut outside = false;
        for &x in input {
            outside |= x < lo;
            outside |= x > hi;
        }
        (written, outside)
    }
}
