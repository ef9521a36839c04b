//! Fast path: float16, bfloat16, float32 and float64 to any integer type.
//!
//! The element is widened exactly to f32 or f64, rounded to an integral float in the rounding mode
//! (exact), and compared with the target's bounds held exactly as floats of the same width (the
//! upper bound is the largest float not above the integer maximum, so the comparison is exact for
//! integral values). In range it converts exactly; out of range it is clamped, or wrapped through
//! a 64-bit integer when its magnitude is below 2^63. NaN, infinities, values without a mode and
//! huge values to wrap are flagged for the exact path.

use num_traits::{AsPrimitive, Float};

use super::kernel::FastPath;
use crate::numeric::{
    FloatElement, HwFloat, IntElement, Kind, MapInput, OutOfRangeMode, RoundingMode, Value, encode,
    round_to_integral,
};

/// A float → integer fast path.
#[derive(Debug)]
pub(crate) struct FloatToInt<S: FloatElement, D: IntElement> {
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
    /// The smallest integer of `D`, exactly.
    lo: S::Wide,
    /// The largest float not above the largest integer of `D`.
    hi: S::Wide,
    /// 2^63.
    two_63: S::Wide,
    /// The smallest and largest integers of `D`, for clamping.
    min: D::Storage,
    max: D::Storage,
}

/// The float nearest `value` towards zero.
pub(crate) fn wide_towards_zero<F: HwFloat>(value: Value) -> F {
    let bits = encode(
        value,
        Kind::Float(F::FORMAT),
        RoundingMode::TowardsZero,
        None,
    )
    .expect("integer bounds are within the float range");
    F::from_bits(bits)
}

impl<S: FloatElement, D: IntElement> FloatToInt<S, D> {
    pub(crate) fn new(rounding: RoundingMode, out_of_range: Option<OutOfRangeMode>) -> Self {
        let bound = |x: i128| {
            i64::try_from(x).map_or_else(
                |_| Value::from_u64(u64::try_from(x).unwrap_or(u64::MAX)),
                Value::from_i64,
            )
        };
        Self {
            rounding,
            out_of_range,
            lo: wide_towards_zero(bound(D::FORMAT.min())),
            hi: wide_towards_zero(bound(D::FORMAT.max())),
            two_63: wide_towards_zero(Value::from_u64(1 << 63)),
            min: D::from_i128_clamped(D::FORMAT.min()),
            max: D::from_i128_clamped(D::FORMAT.max()),
        }
    }
}

impl<S, D> FloatToInt<S, D>
where
    S: FloatElement + MapInput,
    D: IntElement,
    S::Wide: AsPrimitive<D::Storage>,
{
    #[expect(
        clippy::inline_always,
        reason = "called with a constant mode, which must fold into one loop per mode"
    )]
    #[inline(always)]
    fn run(
        &self,
        mode: RoundingMode,
        input: &[S::Storage],
        output: &mut [D::Storage],
        flags: &mut [u8],
    ) -> bool {
        let (lo, hi, two_63) = (self.lo, self.hi, self.two_63);
        let items = input.iter().zip(output.iter_mut()).zip(flags.iter_mut());
        let mut any = false;
        match self.out_of_range {
            None => {
                for ((&x, y), flag) in items {
                    let r = round_to_integral(S::widen(x), mode);
                    let inside = r >= lo && r <= hi;
                    *y = r.as_();
                    *flag = u8::from(!inside);
                    any |= !inside;
                }
            }
            Some(OutOfRangeMode::Clamp) => {
                for ((&x, y), flag) in items {
                    let w = S::widen(x);
                    let r = round_to_integral(w, mode);
                    *y = if r > hi {
                        self.max
                    } else if r < lo {
                        self.min
                    } else {
                        r.as_()
                    };
                    let exact_path = !w.is_finite();
                    *flag = u8::from(exact_path);
                    any |= exact_path;
                }
            }
            Some(OutOfRangeMode::Wrap) => {
                for ((&x, y), flag) in items {
                    let w = S::widen(x);
                    let r = round_to_integral(w, mode);
                    let inside = r >= lo && r <= hi;
                    // Below 2^63 in magnitude, wrapping is the low bits of the i64 value.
                    let wrapped = D::wrap(AsPrimitive::<i64>::as_(r));
                    *y = if inside { r.as_() } else { wrapped };
                    let exact_path = !(inside || r.abs() < two_63);
                    *flag = u8::from(exact_path);
                    any |= exact_path;
                }
            }
        }
        any
    }
}

impl<S, D> FastPath for FloatToInt<S, D>
where
    S: FloatElement + MapInput,
    D: IntElement,
    S::Wide: AsPrimitive<D::Storage>,
{
    type From = S;
    type To = D;

    fn convert(&self, input: &[S::Storage], output: &mut [D::Storage], flags: &mut [u8]) -> bool {
        match self.rounding {
            RoundingMode::NearestEven => self.run(RoundingMode::NearestEven, input, output, flags),
            RoundingMode::NearestAway => self.run(RoundingMode::NearestAway, input, output, flags),
            RoundingMode::TowardsZero => self.run(RoundingMode::TowardsZero, input, output, flags),
            RoundingMode::TowardsPositive => {
                self.run(RoundingMode::TowardsPositive, input, output, flags)
            }
            RoundingMode::TowardsNegative => {
                self.run(RoundingMode::TowardsNegative, input, output, flags)
            }
        }
    }
}
