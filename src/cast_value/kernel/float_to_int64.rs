//! Fast path: float32 and float64 (and float16/bfloat16, widened to float32 first) to 64-bit
//! integers.
//!
//! Rounds with the branch-free [`round_to_integral`] and converts with the saturating `as` (which
//! is the clamp), wrapping through `i64`. A `scalar_map` entry for NaN is applied in the same
//! loop. What is left (NaN and infinities without a map entry, values out of range without a
//! mode, values too large to wrap this way) goes to the exact path.

use num_traits::AsPrimitive;

use super::float_to_int::{integer_value, towards_zero};
use crate::cast_value::kernel::FastPath;
use crate::engine::{Slots, Written};
use crate::numeric::{
    Directed, FloatInput, IntFormat, IntStorage, OutOfRangeMode, RoundingMode, Value,
    round_to_integral, round_to_integral_directed,
};

/// A float → 64-bit integer fast path.
#[derive(Debug)]
pub(crate) struct FloatToInt64<F, D> {
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
    nan: Option<D>,
    /// The bounds as floats (the upper one the largest not above the maximum), and 2^63.
    lo: F,
    hi: F,
    two_63: F,
}

impl<F: FloatInput, D: IntStorage> FloatToInt64<F, D> {
    pub(crate) fn new(
        to: IntFormat,
        rounding: RoundingMode,
        out_of_range: Option<OutOfRangeMode>,
        nan: Option<u64>,
    ) -> Self {
        Self {
            rounding,
            out_of_range,
            nan: nan.map(D::from_bits),
            lo: towards_zero(integer_value(to.min())),
            hi: towards_zero(integer_value(to.max())),
            two_63: towards_zero(Value::from_u64(1 << 63)),
        }
    }

    #[inline(always)]
    fn run<'a>(
        &self,
        mode: Option<Directed>,
        input: &[F],
        output: Slots<'a, D>,
    ) -> (Written<'a, D>, bool)
    where
        F: AsPrimitive<D> + AsPrimitive<i64>,
        i64: AsPrimitive<D>,
    {
        let (lo, hi, two_63) = (self.lo, self.hi, self.two_63);
        let nan = self.nan.unwrap_or_default();
        let round = |w: F| match mode {
            None => round_to_integral(w, RoundingMode::NearestEven),
            Some(mode) => round_to_integral_directed(w, mode),
        };
        let (mut outside, mut any_nan) = (false, false);
        let written = if self.out_of_range == Some(OutOfRangeMode::Wrap) {
            output.fill(input, |w| {
                let r = round(w);
                let inside = r >= lo && r <= hi;
                let wrapped: D = AsPrimitive::<i64>::as_(r).as_();
                let value = if inside { r.as_() } else { wrapped };
                let is_nan = w.is_nan();
                outside |= !inside & (r.abs() >= two_63);
                any_nan |= is_nan;
                if is_nan { nan } else { value }
            })
        } else {
            // The saturating conversion is the clamp; without a mode, values outside the range
            // after rounding are undecided, with `clamp` only the infinities.
            let (below, above) = match self.out_of_range {
                Some(_) => (F::min_value(), F::max_value()),
                None => (lo, hi),
            };
            output.fill(input, |w| {
                let r = round(w);
                let is_nan = w.is_nan();
                outside |= r < below;
                outside |= r > above;
                any_nan |= is_nan;
                if is_nan { nan } else { r.as_() }
            })
        };
        (written, outside || (any_nan && self.nan.is_none()))
    }
}

impl<F, D> FastPath for FloatToInt64<F, D>
where
    F: FloatInput + AsPrimitive<D> + AsPrimitive<i64>,
    D: IntStorage,
    i64: AsPrimitive<D>,
{
    type In = F;
    type Out = D;

    #[inline(always)]
    fn convert<'a>(&self, input: &[F], output: Slots<'a, D>) -> (Written<'a, D>, bool) {
        match self.rounding {
            RoundingMode::NearestEven => self.run(None, input, output),
            mode => self.run(Some(Directed::new(mode)), input, output),
        }
    }
}
