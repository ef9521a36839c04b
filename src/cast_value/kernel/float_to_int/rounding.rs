//! Rounding in the float `C`: the range of values a mode rounds into a target, and the rounding
//! modes as constants, one loop each.

use crate::numeric::{HwFloat, RoundingMode};

/// The smallest and largest values of `C` that `mode` rounds into `[lo, hi]` (integers of at most
/// 32 bits, so `lo - 1`, `hi + 1` and the half-way points are exact in `C`).
pub(super) fn rounding_thresholds<C: HwFloat>(mode: RoundingMode, lo: C, hi: C) -> (C, C) {
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

/// The rounding modes as constants, so that each gets a loop of its own with its own rounding
/// instruction.
pub(super) const NEAREST_EVEN: u8 = 0;
pub(super) const NEAREST_AWAY: u8 = 1;
pub(super) const TOWARDS_ZERO: u8 = 2;
pub(super) const TOWARDS_POSITIVE: u8 = 3;
pub(super) const TOWARDS_NEGATIVE: u8 = 4;

/// `c` rounded to an integral value by `MODE` (`nearest-even` is left to the addition of `M`).
#[inline(always)]
pub(super) fn round<const MODE: u8, C: HwFloat>(c: C) -> C {
    match MODE {
        NEAREST_AWAY => c.round(),
        TOWARDS_ZERO => c.trunc(),
        TOWARDS_POSITIVE => c.ceil(),
        TOWARDS_NEGATIVE => c.floor(),
        _ => c,
    }
}
