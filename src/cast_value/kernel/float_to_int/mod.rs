//! Fast path: float32 and float64 (and float16/bfloat16, widened to float32 first) to integer
//! targets of up to 32 bits (64-bit targets: [`FloatToInt64`](super::FloatToInt64)).
//!
//! Everything happens in one float `C` that holds the element and the target's bounds exactly
//! (float32 for targets of up to 16 bits from float32, float64 otherwise). Each loop has no
//! run-time condition on elements, and as few operations per element as its configuration
//! allows:
//! - `clamp` clamps the element to the target's bounds (rounding is monotonic and the bounds are
//!   integers, so clamping before rounding gives the same result); only the infinities are
//!   undecided, found as a zero least [`HwFloat::infinity_gap`];
//! - without a mode, and with `wrap`, elements need no clamp: those that do not round into the
//!   range (or, when wrapping, lie beyond the magnitude up to which wrapping is exact) are
//!   undecided, found as the sign bits of `w - below` and `above - w`;
//! - NaN is replaced first, by the `scalar_map` output for NaN, or by +Infinity, which is
//!   undecided; where the map sends NaN to the lower bound of a clamp, the clamp replaces it
//!   (`if w > lo { w } else { lo }` is `lo` for NaN) and the replacement costs nothing;
//! - adding `M = 1.5 × 2^(p - 1)` (`p` the precision of `C`) to a value below `2^(p - 2)` rounds
//!   it to an integer, ties to even (the sum lies where `C` steps by one), and the low bits of the
//!   sum are that integer in two's complement, which is also `wrap` (targets narrower than their
//!   byte are sign-extended after the loop); the directed modes and `nearest-away` first round to
//!   an integral value with the hardware's rounding instruction;
//! - the undecided elements are gathered for the block as sign bits or a least value (no
//!   per-element flags).

use num_traits::{AsPrimitive, Zero};

use rounding::{
    NEAREST_AWAY, NEAREST_EVEN, TOWARDS_NEGATIVE, TOWARDS_POSITIVE, TOWARDS_ZERO, round,
    rounding_thresholds,
};

use crate::cast_value::kernel::FastPath;
use crate::engine::{Slots, Written};
use crate::numeric::{
    Bits, FloatInput, HwFloat, IntFormat, Kind, OutOfRangeMode, RoundingMode, Storage, Value, Wrap,
    encode,
};

/// The float nearest `value` towards zero.
pub(super) fn towards_zero<F: HwFloat>(value: Value) -> F {
    let bits = encode(
        value,
        Kind::Float(F::FORMAT),
        RoundingMode::TowardsZero,
        None,
    )
    .expect("integer bounds are within the float range");
    F::from_bits(bits)
}

pub(super) fn integer_value(x: i128) -> Value {
    i64::try_from(x).map_or_else(
        |_| Value::from_u64(u64::try_from(x).unwrap_or(u64::MAX)),
        Value::from_i64,
    )
}

/// A float → integer fast path for targets of up to 32 bits, written as bits `W` and computed in
/// the float `C`.
#[derive(Clone, Debug)]
pub(crate) struct FloatToInt<F, W, C> {
    rounding: RoundingMode,
    /// The kind: [`CLAMP`], [`CLAMP_NAN_LOW`], [`WRAP`] or [`RANGE`].
    kind: u8,
    /// When wrapping into a target narrower than `W` (int4, say): how to sign-extend its bits.
    /// (The low bits of the sum are already the wrapped value of a target as wide as `W`.)
    wrap: Option<Wrap<W>>,
    /// What NaN is replaced by before anything else: the `scalar_map` output for NaN as a value
    /// of `C` (integers of at most 32 bits are exact in it), or +Infinity, which is undecided.
    nan: C,
    /// With `clamp`, elements are clamped to `[lo, hi]`, the target's bounds, before rounding.
    lo: C,
    hi: C,
    /// Otherwise, elements outside `[below, above]` are undecided.
    below: C,
    above: C,
    source: std::marker::PhantomData<fn() -> F>,
}

/// The kinds of configuration, by what a loop does besides rounding: clamp (replacing NaN first),
/// clamp where the clamp also replaces NaN (the map sends it to the lower bound), wrap, or check
/// the range (no mode). The loop checks the bounds `[below, above]` for both of the last two (for
/// `wrap`, the magnitude up to which its wrapping is exact), so `WRAP` runs `RANGE`'s loop.
const CLAMP: u8 = 0;
const CLAMP_NAN_LOW: u8 = 1;
const WRAP: u8 = 2;
const RANGE: u8 = 3;

/// Whether a kind clamps.
const fn clamps(kind: u8) -> bool {
    kind == CLAMP || kind == CLAMP_NAN_LOW
}

impl<F: FloatInput, W: Bits, C: HwFloat> FloatToInt<F, W, C> {
    pub(crate) fn new(
        to: IntFormat,
        rounding: RoundingMode,
        out_of_range: Option<OutOfRangeMode>,
        nan: Option<u64>,
    ) -> Self {
        assert!(to.bits <= 32, "targets of up to 32 bits");
        let lo: C = towards_zero(integer_value(to.min()));
        let hi: C = towards_zero(integer_value(to.max()));
        // Wrapping is exact below this magnitude.
        let limit = C::MAGIC / (C::one() + C::one() + C::one());
        let (below, above) = match out_of_range {
            Some(OutOfRangeMode::Wrap) => (-limit, limit.next_down()),
            Some(OutOfRangeMode::Clamp) => (C::min_value(), C::max_value()),
            None => rounding_thresholds(rounding, lo, hi),
        };
        // `w - below` must not be -0 for a decided `w` (-0 - +0 is -0; -0 - -0 is +0).
        let below = if below == C::zero() {
            -C::zero()
        } else {
            below
        };
        let nan = nan.map_or_else(C::infinity, |bits| {
            // The target's bits, sign-extended for signed targets.
            let unused = 64 - to.bits;
            let value = if to.signed {
                (i128::from(bits.cast_signed() << unused)) >> unused
            } else {
                i128::from((bits << unused) >> unused)
            };
            towards_zero(integer_value(value))
        });
        let kind = match out_of_range {
            Some(OutOfRangeMode::Clamp) if nan == lo => CLAMP_NAN_LOW,
            Some(OutOfRangeMode::Clamp) => CLAMP,
            Some(OutOfRangeMode::Wrap) => WRAP,
            None => RANGE,
        };
        Self {
            rounding,
            kind,
            wrap: (kind == WRAP
                && usize::try_from(to.bits).is_ok_and(|bits| bits < 8 * size_of::<W>()))
            .then(|| Wrap::new(to.bits, to.signed)),
            nan,
            lo,
            hi,
            below,
            above,
            source: std::marker::PhantomData,
        }
    }

    /// The loop for the kind `KIND` and the rounding mode `MODE`, both constants so that each
    /// pair gets a loop of its own; returns whether an element is undecided.
    #[inline(always)]
    fn run<'a, const KIND: u8, const MODE: u8>(
        &self,
        input: &[F],
        output: Slots<'a, W>,
    ) -> (Written<'a, W>, bool)
    where
        F: AsPrimitive<C>,
    {
        let (lo, hi, nan, below, above) = (self.lo, self.hi, self.nan, self.below, self.above);
        // Sign bits, gathered: set if some element is undecided (the sign of a difference is
        // exact; infinities included).
        let mut signs = C::Bits::zero();
        // Clamped, only the infinities are undecided: the least `infinity_gap` of the block is
        // zero exactly when it holds one.
        let mut least = C::zero().infinity_gap();
        let written = output.fill(input, |x| {
            let w: C = x.as_();
            let bits = if clamps(KIND) {
                let w = if KIND == CLAMP {
                    if w.is_nan() { nan } else { w }
                } else {
                    w
                };
                least = least.min(w.infinity_gap());
                // Rounding is monotonic and the bounds are integers, so clamping first gives
                // the same result; `max` takes NaN to `lo`. Adding `M` rounds to nearest-even and
                // leaves the integer in the low bits of the sum's encoding.
                let c = if w > lo { w } else { lo };
                let c = if c < hi { c } else { hi };
                Storage::to_bits(round::<MODE, C>(c) + C::MAGIC)
            } else {
                let w = if w.is_nan() { nan } else { w };
                signs |= (w - below).encoding() | (above - w).encoding();
                Storage::to_bits(round::<MODE, C>(w) + C::MAGIC)
            };
            W::from_bits(bits)
        });
        (written, C::sign_bit(signs) || least == C::Bits::zero())
    }

    /// The loop of this configuration's kind for the rounding mode `MODE`.
    #[inline(always)]
    fn run_kind<'a, const MODE: u8>(
        &self,
        input: &[F],
        output: Slots<'a, W>,
    ) -> (Written<'a, W>, bool)
    where
        F: AsPrimitive<C>,
    {
        match self.kind {
            CLAMP_NAN_LOW => self.run::<CLAMP_NAN_LOW, MODE>(input, output),
            CLAMP => self.run::<CLAMP, MODE>(input, output),
            _ => self.run::<RANGE, MODE>(input, output),
        }
    }
}

impl<F, W, C> FastPath for FloatToInt<F, W, C>
where
    F: FloatInput + AsPrimitive<C>,
    W: Bits,
    C: HwFloat,
{
    type In = F;
    type Out = W;

    #[inline(always)]
    fn convert<'a>(&self, input: &[F], output: Slots<'a, W>) -> (Written<'a, W>, bool) {
        let (mut written, undecided) = match self.rounding {
            RoundingMode::NearestEven => self.run_kind::<NEAREST_EVEN>(input, output),
            RoundingMode::NearestAway => self.run_kind::<NEAREST_AWAY>(input, output),
            RoundingMode::TowardsZero => self.run_kind::<TOWARDS_ZERO>(input, output),
            RoundingMode::TowardsPositive => self.run_kind::<TOWARDS_POSITIVE>(input, output),
            RoundingMode::TowardsNegative => self.run_kind::<TOWARDS_NEGATIVE>(input, output),
        };
        self.sign_extend(written.elements());
        (written, undecided)
    }
}

impl<F, W: Bits, C> FloatToInt<F, W, C> {
    /// Sign-extends the wrapped bits of a target narrower than `W`, once every element is written.
    #[inline(always)]
    fn sign_extend(&self, output: &mut [W]) {
        if let Some(wrap) = self.wrap {
            for y in output {
                *y = wrap.apply(*y);
            }
        }
    }
}

mod rounding;
#[cfg(test)]
mod tests;
