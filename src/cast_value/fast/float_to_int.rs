//! Fast path: float32 and float64 (and float16/bfloat16, widened to float32 first) to any integer
//! type.
//!
//! For targets of up to 32 bits ([`FloatToInt`]), everything happens in one float `C` that holds
//! the element and the target's bounds exactly (float32 for targets of up to 16 bits from float32,
//! float64 otherwise):
//! - with `clamp` or no out-of-range mode, the element is clamped to the bounds first (rounding
//!   is monotonic and the bounds are integers, so clamping before rounding gives the same result);
//! - adding `M = 1.5 × 2^(p - 1)` (`p` the precision of `C`) to a value below `2^(p - 2)` rounds it
//!   to an integer, ties to even (the sum lies where `C` steps by one), and the low bits of the sum
//!   are that integer in two's complement; the other rounding modes adjust it by one where the
//!   nearest-even integer lies on the wrong side of the value;
//! - those low bits are also the value modulo `2^bits`, which is `wrap` (sign-extended for targets
//!   narrower than their byte);
//! - whether a value is in range after rounding is a comparison with thresholds computed once.
//!
//! The 64-bit targets ([`FloatToInt64`]) round with the branch-free [`round_to_integral`] and
//! convert with the saturating `as` (which is the clamp), wrapping through `i64`. A `scalar_map`
//! entry for NaN is applied in the same loop. What is left (NaN and infinities without a map
//! entry, values out of range without a mode, values too large to wrap this way) goes to the
//! exact path. `nearest-even` has a loop of its own; the four other modes share one that reads the
//! mode as flags.

use std::mem::MaybeUninit;

use num_traits::AsPrimitive;

use crate::cast_value::kernel::FastPath;
use crate::numeric::{
    Bits, Directed, FloatInput, HwFloat, IntFormat, IntStorage, Kind, OutOfRangeMode, RoundingMode,
    Storage, Value, Wrap, encode, round_to_integral, round_to_integral_directed,
};

/// The float nearest `value` towards zero.
fn towards_zero<F: HwFloat>(value: Value) -> F {
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

/// A float → integer fast path for targets of up to 32 bits, written as bits `W` and computed in
/// the float `C`.
#[derive(Debug)]
pub(crate) struct FloatToInt<F, W, C> {
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
    /// The output for NaN, when `scalar_map` has an entry for it, as a value of `C` (integers of
    /// at most 32 bits are exact in it), so that NaN is replaced before the conversion.
    nan: Option<C>,
    /// The target's bounds, exactly.
    lo: C,
    hi: C,
    /// Elements outside `[below, above]` are undecided.
    below: C,
    above: C,
    wrap: Wrap<W>,
    source: std::marker::PhantomData<fn() -> F>,
}

impl<F: FloatInput, W: Bits, C: HwFloat> FloatToInt<F, W, C> {
    pub(crate) fn new(
        to: IntFormat,
        rounding: RoundingMode,
        out_of_range: Option<OutOfRangeMode>,
        nan: Option<u64>,
    ) -> Self {
        let lo: C = towards_zero(integer_value(to.min()));
        let hi: C = towards_zero(integer_value(to.max()));
        let (below, above) = match out_of_range {
            // Wrapping is exact below this magnitude.
            Some(OutOfRangeMode::Wrap) => {
                let limit = C::MAGIC / (C::one() + C::one() + C::one());
                (-limit, limit.next_down())
            }
            // With `clamp`, only the infinities; without a mode, the values that do not round
            // into the range.
            Some(OutOfRangeMode::Clamp) => (C::min_value(), C::max_value()),
            None => rounding_thresholds(rounding, lo, hi),
        };
        Self {
            rounding,
            out_of_range,
            nan: nan.map(|bits| {
                // The target's bits, sign-extended for signed targets.
                let unused = 64 - to.bits;
                let value = if to.signed {
                    (i128::from(bits.cast_signed() << unused)) >> unused
                } else {
                    i128::from((bits << unused) >> unused)
                };
                towards_zero(integer_value(value))
            }),
            lo,
            hi,
            below,
            above,
            wrap: Wrap::new(to.bits, to.signed),
            source: std::marker::PhantomData,
        }
    }

    /// The loop, for `nearest-even` (`mode` `None`) or a directed mode, with or without
    /// wrapping (`WRAP`, a constant so that each gets a loop of its own).
    ///
    /// It holds no run-time condition on elements: every element is converted and NaN replaced by
    /// the `scalar_map` output (or 0, undecided then); what is undecided is the elements outside
    /// `[below, above]` (ordered comparisons, so never NaN), plus NaN when the map has no entry.
    #[expect(
        clippy::inline_always,
        reason = "called with a constant mode, which must fold into one loop per mode"
    )]
    #[inline(always)]
    fn run<const WRAP: bool, const SYMMETRIC: bool>(
        &self,
        mode: Option<Directed>,
        input: &[F],
        output: &mut [MaybeUninit<W>],
    ) -> bool
    where
        F: AsPrimitive<C>,
    {
        let (lo, hi, below, above) = (self.lo, self.hi, self.below, self.above);
        let nan = self.nan.unwrap_or_else(C::zero);
        let wrap = self.wrap;
        let (mut outside, mut any_nan) = (false, false);
        // The integer `c` rounds to, as the low bits of a float's encoding: adding `M` rounds to
        // nearest-even; a directed mode rounds first (exactly, to an integral float).
        let integer = |c: C| {
            let c = match mode {
                None => c,
                Some(mode) => round_to_integral_directed(c, mode),
            };
            Storage::to_bits(c + C::MAGIC)
        };
        for (&x, y) in input.iter().zip(output.iter_mut()) {
            let w: C = x.as_();
            let is_nan = w.is_nan();
            let c = if WRAP {
                // Exact up to `above`; larger magnitudes are undecided.
                if w.abs() <= above { w } else { C::zero() }
            } else {
                // Clamped by selects (NaN goes to `lo`, and is replaced next).
                let c = if w > lo { w } else { lo };
                if c < hi { c } else { hi }
            };
            // NaN is replaced before the conversion, in the float lanes.
            let c = if is_nan { nan } else { c };
            let bits = W::from_bits(integer(c));
            y.write(if WRAP { wrap.apply(bits) } else { bits });
            // Symmetric bounds (wrapping, and clamping, where only the infinities are left
            // undecided) need one comparison per element.
            if SYMMETRIC {
                outside |= w.abs() > above;
            } else {
                outside |= w < below;
                outside |= w > above;
            }
            any_nan |= is_nan;
        }
        outside || (any_nan && self.nan.is_none())
    }
}

// SAFETY: every output element is written, with a value.
unsafe impl<F, W, C> FastPath for FloatToInt<F, W, C>
where
    F: FloatInput + AsPrimitive<C>,
    W: Bits,
    C: HwFloat,
{
    type In = F;
    type Out = W;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn convert(&self, input: &[F], output: &mut [MaybeUninit<W>]) -> bool {
        let directed = Some(Directed::new(self.rounding));
        match (self.rounding, self.out_of_range) {
            (RoundingMode::NearestEven, None) => self.run::<false, false>(None, input, output),
            (RoundingMode::NearestEven, Some(OutOfRangeMode::Clamp)) => {
                self.run::<false, true>(None, input, output)
            }
            (RoundingMode::NearestEven, Some(OutOfRangeMode::Wrap)) => {
                self.run::<true, true>(None, input, output)
            }
            (_, None) => self.run::<false, false>(directed, input, output),
            (_, Some(OutOfRangeMode::Clamp)) => self.run::<false, true>(directed, input, output),
            (_, Some(OutOfRangeMode::Wrap)) => self.run::<true, true>(directed, input, output),
        }
    }
}

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

    #[expect(
        clippy::inline_always,
        reason = "called with a constant mode, which must fold into one loop per mode"
    )]
    #[inline(always)]
    fn run(&self, mode: Option<Directed>, input: &[F], output: &mut [MaybeUninit<D>]) -> bool
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
        let items = input.iter().zip(output.iter_mut());
        if self.out_of_range == Some(OutOfRangeMode::Wrap) {
            for (&w, y) in items {
                let r = round(w);
                let inside = r >= lo && r <= hi;
                let wrapped: D = AsPrimitive::<i64>::as_(r).as_();
                let value = if inside { r.as_() } else { wrapped };
                let is_nan = w.is_nan();
                y.write(if is_nan { nan } else { value });
                outside |= !inside & (r.abs() >= two_63);
                any_nan |= is_nan;
            }
        } else {
            // The saturating conversion is the clamp; without a mode, values outside the range
            // after rounding are undecided, with `clamp` only the infinities.
            let (below, above) = match self.out_of_range {
                Some(_) => (F::min_value(), F::max_value()),
                None => (lo, hi),
            };
            for (&w, y) in items {
                let r = round(w);
                let is_nan = w.is_nan();
                y.write(if is_nan { nan } else { r.as_() });
                outside |= r < below;
                outside |= r > above;
                any_nan |= is_nan;
            }
        }
        outside || (any_nan && self.nan.is_none())
    }
}

// SAFETY: every output element is written, with a value.
unsafe impl<F, D> FastPath for FloatToInt64<F, D>
where
    F: FloatInput + AsPrimitive<D> + AsPrimitive<i64>,
    D: IntStorage,
    i64: AsPrimitive<D>,
{
    type In = F;
    type Out = D;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn convert(&self, input: &[F], output: &mut [MaybeUninit<D>]) -> bool {
        match self.rounding {
            RoundingMode::NearestEven => self.run(None, input, output),
            mode => self.run(Some(Directed::new(mode)), input, output),
        }
    }
}
