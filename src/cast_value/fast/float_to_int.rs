//! Fast path: float32 and float64 (and float16/bfloat16, widened to float32 first) to any integer
//! type.
//!
//! For targets of up to 32 bits ([`FloatToInt`]), everything happens in one float `C` that holds
//! the element and the target's bounds exactly (float32 for targets of up to 16 bits from float32,
//! float64 otherwise):
//! - NaN is replaced first: by the `scalar_map` output for NaN, else by +Infinity, which the range
//!   check leaves undecided;
//! - the element is clamped to the bounds (rounding is monotonic and the bounds are integers, so
//!   clamping before rounding gives the same result; when wrapping, to the magnitude up to which
//!   wrapping is exact);
//! - the directed modes and `nearest-away` round with the hardware's rounding to an integral value;
//!   then adding `M = 1.5 × 2^(p - 1)` (`p` the precision of `C`) to a value below `2^(p - 2)`
//!   rounds it to an integer, ties to even (the sum lies where `C` steps by one), and the low bits
//!   of the sum are that integer in two's complement;
//! - those low bits are also the value modulo `2^bits`, which is `wrap` (sign-extended for targets
//!   narrower than their byte);
//! - whether an element is decided is a comparison with thresholds computed once, gathered for the
//!   block as the sign bits of two differences (no per-element flags).
//!
//! Each rounding mode, with and without sign extension, has a loop of its own.
//!
//! The 64-bit targets ([`FloatToInt64`]) round with the branch-free [`round_to_integral`] and
//! convert with the saturating `as` (which is the clamp), wrapping through `i64`. A `scalar_map`
//! entry for NaN is applied in the same loop. What is left (NaN and infinities without a map
//! entry, values out of range without a mode, values too large to wrap this way) goes to the
//! exact path.

use std::mem::MaybeUninit;

use num_traits::{AsPrimitive, Zero};

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
    /// When wrapping into a target narrower than `W` (int4, say): how to sign-extend its bits.
    /// (The low bits of the sum are already the wrapped value of a target as wide as `W`.)
    wrap: Option<Wrap<W>>,
    /// What NaN is replaced by before anything else: the `scalar_map` output for NaN as a value
    /// of `C` (integers of at most 32 bits are exact in it), or +Infinity, which is undecided.
    nan: C,
    /// Elements are clamped to `[lo, hi]` before rounding: the target's bounds, or when wrapping
    /// the magnitude up to which wrapping is exact.
    lo: C,
    hi: C,
    /// Elements outside `[below, above]` are undecided.
    below: C,
    above: C,
    source: std::marker::PhantomData<fn() -> F>,
}

/// The rounding modes as constants, so that each gets a loop of its own with its own rounding
/// instruction.
const NEAREST_EVEN: u8 = 0;
const NEAREST_AWAY: u8 = 1;
const TOWARDS_ZERO: u8 = 2;
const TOWARDS_POSITIVE: u8 = 3;
const TOWARDS_NEGATIVE: u8 = 4;

/// `c` rounded to an integral value by `MODE` (`nearest-even` is left to the addition of `M`).
#[expect(
    clippy::inline_always,
    reason = "inlined into each instruction set's copy of the loop"
)]
#[inline(always)]
fn round<const MODE: u8, C: HwFloat>(c: C) -> C {
    match MODE {
        NEAREST_AWAY => c.round(),
        TOWARDS_ZERO => c.trunc(),
        TOWARDS_POSITIVE => c.ceil(),
        TOWARDS_NEGATIVE => c.floor(),
        _ => c,
    }
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
        // Wrapping is exact below this magnitude.
        let limit = C::MAGIC / (C::one() + C::one() + C::one());
        let ((below, above), (lo, hi)) = match out_of_range {
            Some(OutOfRangeMode::Wrap) => ((-limit, limit.next_down()), (-limit, limit)),
            // With `clamp`, only the infinities; without a mode, the values that do not round
            // into the range.
            Some(OutOfRangeMode::Clamp) => ((C::min_value(), C::max_value()), (lo, hi)),
            None => (rounding_thresholds(rounding, lo, hi), (lo, hi)),
        };
        // `w - below` must not be -0 for a decided `w` (-0 - +0 is -0; -0 - -0 is +0).
        let below = if below == C::zero() {
            -C::zero()
        } else {
            below
        };
        Self {
            rounding,
            wrap: (out_of_range == Some(OutOfRangeMode::Wrap)
                && usize::try_from(to.bits).is_ok_and(|bits| bits < 8 * size_of::<W>()))
            .then(|| Wrap::new(to.bits, to.signed)),
            nan: nan.map_or_else(C::infinity, |bits| {
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
            source: std::marker::PhantomData,
        }
    }

    /// The loop, for the rounding mode `MODE`, with or without wrapping (`WRAP`), both constants
    /// so that each gets a loop of its own.
    ///
    /// It holds no run-time condition on elements: NaN is replaced first, then every element is
    /// clamped, rounded and converted, and the block is undecided if an element lies outside
    /// `[below, above]`.
    #[expect(
        clippy::inline_always,
        reason = "called with a constant mode, which must fold into one loop per mode"
    )]
    #[inline(always)]
    fn run<const WRAP: bool, const MODE: u8>(
        &self,
        input: &[F],
        output: &mut [MaybeUninit<W>],
    ) -> bool
    where
        F: AsPrimitive<C>,
    {
        let (lo, hi, nan, below, above) = (self.lo, self.hi, self.nan, self.below, self.above);
        let wrap = self.wrap.unwrap_or(Wrap::new(32, false));
        // The sign bits of `w - below` and `above - w`, gathered: set if some element lies outside
        // `[below, above]` (the sign of a difference is exact; infinities included).
        let mut signs = C::Bits::zero();
        for (&x, y) in input.iter().zip(output.iter_mut()) {
            let w: C = x.as_();
            // NaN is replaced first, so that nothing below sees it.
            let w = if w.is_nan() { nan } else { w };
            signs |= (w - below).encoding() | (above - w).encoding();
            // Clamped by selects, rounded, and converted: adding `M` rounds to nearest-even and
            // leaves the integer in the low bits of the sum's encoding.
            let c = if w > lo { w } else { lo };
            let c = if c < hi { c } else { hi };
            let c = round::<MODE, C>(c);
            let bits = W::from_bits(Storage::to_bits(c + C::MAGIC));
            y.write(if WRAP { wrap.apply(bits) } else { bits });
        }
        C::sign_bit(signs)
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
        match (self.wrap.is_some(), self.rounding) {
            (false, RoundingMode::NearestEven) => self.run::<false, NEAREST_EVEN>(input, output),
            (false, RoundingMode::NearestAway) => self.run::<false, NEAREST_AWAY>(input, output),
            (false, RoundingMode::TowardsZero) => self.run::<false, TOWARDS_ZERO>(input, output),
            (false, RoundingMode::TowardsPositive) => {
                self.run::<false, TOWARDS_POSITIVE>(input, output)
            }
            (false, RoundingMode::TowardsNegative) => {
                self.run::<false, TOWARDS_NEGATIVE>(input, output)
            }
            (true, RoundingMode::NearestEven) => self.run::<true, NEAREST_EVEN>(input, output),
            (true, RoundingMode::NearestAway) => self.run::<true, NEAREST_AWAY>(input, output),
            (true, RoundingMode::TowardsZero) => self.run::<true, TOWARDS_ZERO>(input, output),
            (true, RoundingMode::TowardsPositive) => {
                self.run::<true, TOWARDS_POSITIVE>(input, output)
            }
            (true, RoundingMode::TowardsNegative) => {
                self.run::<true, TOWARDS_NEGATIVE>(input, output)
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::NumericType;

    /// The fast path's output and whether it left the block undecided.
    fn convert(fast: &FloatToInt<f64, u8, f64>, input: &[f64]) -> (Vec<u8>, bool) {
        let mut output = vec![MaybeUninit::uninit(); input.len()];
        let undecided = fast.convert(input, &mut output);
        // SAFETY: the fast path writes every output element.
        let output = output.iter().map(|y| unsafe { y.assume_init() }).collect();
        (output, undecided)
    }

    #[test]
    fn only_what_the_fast_path_cannot_decide_is_left_undecided() {
        let uint8 = NumericType::UInt8.int_format().unwrap();
        let floor = FloatToInt::new(uint8, RoundingMode::TowardsNegative, None, None);
        // Both zeros and the edges of the range are decided; -0 minus a +0 threshold is -0.
        assert_eq!(
            convert(&floor, &[-0.0, 0.0, 255.9]),
            (vec![0, 0, 255], false)
        );
        assert!(convert(&floor, &[-0.0, 256.0]).1);
        assert!(convert(&floor, &[-f64::MIN_POSITIVE]).1);
        // NaN is undecided without a map entry, and takes the entry's value with one.
        let clamp = Some(OutOfRangeMode::Clamp);
        let unmapped = FloatToInt::new(uint8, RoundingMode::NearestEven, clamp, None);
        assert!(convert(&unmapped, &[1.0, f64::NAN]).1);
        let mapped = FloatToInt::new(uint8, RoundingMode::NearestEven, clamp, Some(7));
        assert_eq!(
            convert(&mapped, &[-f64::NAN, 2.5, 1e300, -3.0]),
            (vec![7, 2, 255, 0], false)
        );
        // Clamping leaves the infinities undecided (no integer holds them).
        assert!(convert(&mapped, &[f64::INFINITY]).1);
        assert!(convert(&mapped, &[f64::NEG_INFINITY]).1);
    }
}
