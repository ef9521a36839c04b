//! Fast path: float16, bfloat16, float32 and float64 to any integer type.
//!
//! For targets of up to 32 bits, everything happens in one float `C` that holds the element and
//! the target's bounds exactly (the element's own f32 or f64 where the bounds fit below `2^22` or
//! `2^51`, f64 otherwise):
//! - with `clamp` or no out-of-range mode, the element is clamped to the bounds first (rounding
//!   is monotonic and the bounds are integers, so clamping before rounding gives the same result);
//! - adding `M = 1.5 × 2^(p - 1)` (`p` the precision of `C`) to a value below `2^(p - 2)` rounds it
//!   to an integer, ties to even (the sum lies where `C` steps by one), and the low bits of the sum
//!   are that integer in two's complement; the other rounding modes adjust it by one where the
//!   nearest-even integer lies on the wrong side of the value;
//! - those low bits are also the value modulo `2^bits`, which is `wrap`;
//! - whether a value is in range after rounding is a comparison with thresholds computed once per
//!   mode (for `towards-negative`, `lo ≤ x < hi + 1`).
//!
//! The 64-bit targets round with the branch-free [`round_to_integral`] and convert with the
//! saturating `as` (which is the clamp), wrapping through `i64`. A `scalar_map` entry for NaN is
//! applied in the same loop. What is left (NaN and infinities without a map entry, values out of
//! range without a mode, values too large to wrap this way) goes to the exact path.

use num_traits::{AsPrimitive, Float};

use super::kernel::FastPath;
use crate::numeric::{
    FloatElement, HwFloat, IntElement, Kind, MapInput, OutOfRangeMode, RoundingMode, Storage,
    Value, encode, round_to_integral,
};

/// A float → integer fast path.
#[derive(Debug)]
pub(crate) struct FloatToInt<S: FloatElement, D: IntElement> {
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
    /// The output for NaN, when `scalar_map` has an entry for it.
    nan: Option<D::Storage>,
    /// The target's bounds, exactly (as f64: every bound of a target up to 32 bits is exact).
    lo: f64,
    hi: f64,
    /// For 64-bit targets: the bounds as the element's float (the upper one the largest not above
    /// the maximum), and 2^63.
    wide_lo: S::Wide,
    wide_hi: S::Wide,
    two_63: S::Wide,
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

fn integer_value(x: i128) -> Value {
    i64::try_from(x).map_or_else(
        |_| Value::from_u64(u64::try_from(x).unwrap_or(u64::MAX)),
        Value::from_i64,
    )
}

/// The smallest and largest values of `C` that `mode` rounds into `[lo, hi]` (integers of at most
/// 32 bits, so `lo - 1`, `hi + 1` and the half-way points are exact in `C`).
fn rounding_thresholds<C: HwFloat>(mode: RoundingMode, lo: C, hi: C) -> (C, C) {
    let (one, half) = (C::one(), C::HALF);
    let even = |x: C| (x * half).fract() == C::zero();
    match mode {
        RoundingMode::TowardsNegative => (lo, (hi + one).next_down()),
        RoundingMode::TowardsPositive => ((lo - one).next_up(), hi),
        RoundingMode::TowardsZero => ((lo - one).next_up(), (hi + one).next_down()),
        // Ties go away from zero: lo - 0.5 rounds to lo - 1 when lo ≤ 0, and to lo when lo > 0.
        RoundingMode::NearestAway => (
            if lo > C::zero() {
                lo - half
            } else {
                (lo - half).next_up()
            },
            if hi < C::zero() {
                hi + half
            } else {
                (hi + half).next_down()
            },
        ),
        RoundingMode::NearestEven => (
            if even(lo) {
                lo - half
            } else {
                (lo - half).next_up()
            },
            if even(hi) {
                hi + half
            } else {
                (hi + half).next_down()
            },
        ),
    }
}

impl<S: FloatElement, D: IntElement> FloatToInt<S, D> {
    /// Whether the target takes the low-bits path.
    const LOW_BITS: bool = D::FORMAT.bits <= 32;
    /// Whether that path can run in the element's own float.
    const NATIVE: bool = D::FORMAT.bits + 2 <= <S::Wide as HwFloat>::FORMAT.precision();

    pub(crate) fn new(
        rounding: RoundingMode,
        out_of_range: Option<OutOfRangeMode>,
        nan: Option<u64>,
    ) -> Self {
        let (min, max) = (
            integer_value(D::FORMAT.min()),
            integer_value(D::FORMAT.max()),
        );
        Self {
            rounding,
            out_of_range,
            nan: nan.map(D::Storage::from_bits),
            lo: wide_towards_zero(min),
            hi: wide_towards_zero(max),
            wide_lo: wide_towards_zero(min),
            wide_hi: wide_towards_zero(max),
            two_63: wide_towards_zero(Value::from_u64(1 << 63)),
        }
    }
}

/// The step from the nearest-even integer `n` of `c` to `c` rounded in `mode`: -1, 0 or 1.
#[expect(
    clippy::inline_always,
    reason = "inlined into each instruction set's copy of the loop"
)]
#[inline(always)]
fn adjustment<C: HwFloat>(mode: RoundingMode, c: C, n: C) -> u64 {
    let (zero, one) = (C::zero(), 1u64);
    let down = one.wrapping_neg();
    match mode {
        RoundingMode::NearestEven => 0,
        RoundingMode::TowardsNegative => {
            if n > c {
                down
            } else {
                0
            }
        }
        RoundingMode::TowardsPositive => u64::from(n < c),
        RoundingMode::TowardsZero => {
            if c > zero && n > c {
                down
            } else {
                u64::from(c < zero && n < c)
            }
        }
        RoundingMode::NearestAway => {
            // A tie (c - n is exact) rounded to even towards zero goes the other way.
            let tie_towards_zero = (c - n).abs() == C::HALF && n.abs() < c.abs();
            match (tie_towards_zero, c > zero) {
                (false, _) => 0,
                (true, true) => one,
                (true, false) => down,
            }
        }
    }
}

impl<S, D> FloatToInt<S, D>
where
    S: FloatElement + MapInput,
    D: IntElement,
    S::Wide: AsPrimitive<D::Storage>,
{
    /// The low-bits path in the float `C`.
    ///
    /// The loops hold no run-time condition: every element is converted and NaN replaced by the
    /// `scalar_map` output (or 0, undecided then); what is undecided is the elements outside
    /// `[undecided_below, undecided_above]` (ordered comparisons, so never NaN), plus NaN when
    /// the map has no entry for it.
    #[expect(
        clippy::inline_always,
        reason = "called with a constant mode, which must fold into one loop per mode"
    )]
    #[inline(always)]
    fn low_bits<C: HwFloat>(
        &self,
        mode: RoundingMode,
        input: &[S::Storage],
        output: &mut [D::Storage],
    ) -> bool {
        let (lo, hi) = (C::from_f64(self.lo), C::from_f64(self.hi));
        let nan = self.nan.unwrap_or_default();
        let items = input.iter().zip(output.iter_mut());
        let (mut outside, mut any_nan) = (false, false);
        // The integer nearest `c` in `mode`, as the low bits of a float's encoding.
        let integer = |c: C| {
            let sum = c + C::MAGIC;
            Storage::to_bits(sum).wrapping_add(adjustment(mode, c, sum - C::MAGIC))
        };
        if let Some(OutOfRangeMode::Wrap) = self.out_of_range {
            // Below this magnitude, adding M is exact.
            let limit = C::MAGIC / (C::one() + C::one() + C::one());
            for (&x, y) in items {
                let w: C = S::widen(x).convert();
                let small = w.abs() < limit;
                let wrapped = D::wrap(integer(if small { w } else { C::zero() }).cast_signed());
                let is_nan = w.is_nan();
                *y = if is_nan { nan } else { wrapped };
                outside |= w.abs() >= limit;
                any_nan |= is_nan;
            }
        } else {
            // With `clamp`, only the infinities; without a mode, the values that do not round
            // into the range.
            let (below, above) = match self.out_of_range {
                Some(_) => (C::min_value(), C::max_value()),
                None => rounding_thresholds(mode, lo, hi),
            };
            for (&x, y) in items {
                let w: C = S::widen(x).convert();
                // Clamped by selects, which also send NaN to `lo`.
                let c = if w > lo { w } else { lo };
                let c = if c < hi { c } else { hi };
                let converted = D::Storage::from_bits(integer(c));
                let is_nan = w.is_nan();
                *y = if is_nan { nan } else { converted };
                outside |= w < below;
                outside |= w > above;
                any_nan |= is_nan;
            }
        }
        outside || (any_nan && self.nan.is_none())
    }

    /// The path for 64-bit targets.
    #[expect(
        clippy::inline_always,
        reason = "called with a constant mode, which must fold into one loop per mode"
    )]
    #[inline(always)]
    fn wide(&self, mode: RoundingMode, input: &[S::Storage], output: &mut [D::Storage]) -> bool {
        let (lo, hi, two_63) = (self.wide_lo, self.wide_hi, self.two_63);
        let nan = self.nan.unwrap_or_default();
        let (mut outside, mut any_nan) = (false, false);
        let items = input.iter().zip(output.iter_mut());
        match self.out_of_range {
            None | Some(OutOfRangeMode::Clamp) => {
                // The saturating conversion is the clamp; without a mode, values outside the
                // range after rounding are undecided, with `clamp` only the infinities.
                let (below, above) = match self.out_of_range {
                    Some(_) => (S::Wide::min_value(), S::Wide::max_value()),
                    None => (lo, hi),
                };
                for (&x, y) in items {
                    let w = S::widen(x);
                    let r = round_to_integral(w, mode);
                    let is_nan = w.is_nan();
                    *y = if is_nan { nan } else { r.as_() };
                    outside |= r < below;
                    outside |= r > above;
                    any_nan |= is_nan;
                }
            }
            Some(OutOfRangeMode::Wrap) => {
                for (&x, y) in items {
                    let w = S::widen(x);
                    let r = round_to_integral(w, mode);
                    let inside = r >= lo && r <= hi;
                    let value = if inside {
                        r.as_()
                    } else {
                        D::wrap(AsPrimitive::<i64>::as_(r))
                    };
                    let is_nan = w.is_nan();
                    *y = if is_nan { nan } else { value };
                    outside |= !inside & (r.abs() >= two_63);
                    any_nan |= is_nan;
                }
            }
        }
        outside || (any_nan && self.nan.is_none())
    }

    #[expect(
        clippy::inline_always,
        reason = "called with a constant mode, which must fold into one loop per mode"
    )]
    #[inline(always)]
    fn run(&self, mode: RoundingMode, input: &[S::Storage], output: &mut [D::Storage]) -> bool {
        if Self::NATIVE {
            self.low_bits::<S::Wide>(mode, input, output)
        } else if Self::LOW_BITS {
            self.low_bits::<f64>(mode, input, output)
        } else {
            self.wide(mode, input, output)
        }
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

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn convert(&self, input: &[S::Storage], output: &mut [D::Storage]) -> bool {
        match self.rounding {
            RoundingMode::NearestEven => self.run(RoundingMode::NearestEven, input, output),
            RoundingMode::NearestAway => self.run(RoundingMode::NearestAway, input, output),
            RoundingMode::TowardsZero => self.run(RoundingMode::TowardsZero, input, output),
            RoundingMode::TowardsPositive => self.run(RoundingMode::TowardsPositive, input, output),
            RoundingMode::TowardsNegative => self.run(RoundingMode::TowardsNegative, input, output),
        }
    }
}
