//! The registers of the AVX-512 loop: eight float64 elements converted to 64-bit integers, or
//! sixteen float32 elements converted to 32-bit integers, and the operations the loop takes on
//! them. Every method is inlined into the loop, which enables the instruction sets.

use std::arch::x86_64::{
    __m512, __m512d, __m512i, _mm512_add_pd, _mm512_add_ps, _mm512_and_pd, _mm512_and_ps,
    _mm512_castpd_si512, _mm512_castps_si512, _mm512_cmpgt_epi32_mask, _mm512_cmpgt_epi64_mask,
    _mm512_cmplt_epi32_mask, _mm512_cmplt_epi64_mask, _mm512_cvt_roundpd_epi64,
    _mm512_cvt_roundpd_epu64, _mm512_cvt_roundps_epi32, _mm512_fixupimm_pd, _mm512_fixupimm_ps,
    _mm512_loadu_pd, _mm512_loadu_ps, _mm512_max_epi32, _mm512_max_epi64, _mm512_max_pd,
    _mm512_max_ps, _mm512_min_epi32, _mm512_min_epi64, _mm512_min_pd, _mm512_min_ps, _mm512_or_pd,
    _mm512_or_ps, _mm512_permutex2var_epi32, _mm512_set1_epi32, _mm512_set1_epi64, _mm512_set1_pd,
    _mm512_set1_ps, _mm512_test_epi32_mask,
};

/// A register of float elements.
///
/// # Safety
/// The methods are `unsafe` for one reason: the CPU must support AVX-512 F, BW and DQ (`load`
/// also needs its pointer to be valid for reads of a register's elements).
pub(crate) trait Register: Copy {
    /// The element.
    type Element: Copy;
    /// Registers per group of 64 elements.
    const COUNT: usize;
    /// The indefinite integer of a conversion (the least integer).
    const INDEFINITE: i64;
    /// `1/2 - ulp/4`: the largest value below 1/2.
    const BELOW_HALF: f64;
    /// Whether [`Register::convert_floored`] keeps the negative integers of 32 bits as well as
    /// the others (float32), or only those not negative (float64).
    const FLOORS_SIGNED: bool;

    /// A register of the elements from `at` on (an unaligned load).
    unsafe fn load(at: *const Self::Element) -> Self;
    /// `x` in every lane (rounded to the element's format: the loop's constants are exact in it).
    unsafe fn splat(x: f64) -> Self;
    /// `vfixupimm`: each lane of `b` replaced as `table` says for its class, by `a`'s lane or
    /// kept (the table of 64-bit lanes is the same for 32-bit lanes: it fits in 32 bits).
    unsafe fn fixup(a: Self, b: Self, table: __m512i) -> Self;
    /// `min(max(self, lo), hi)`: `lo` for NaN.
    unsafe fn clamp(self, lo: Self, hi: Self) -> Self;
    /// `min(self, hi)`: NaN for NaN.
    unsafe fn below(self, hi: Self) -> Self;
    /// `self + (self & sign | half)`, or `self + half` where `sign` is `None`.
    unsafe fn away(self, sign: Option<Self>, half: Self) -> Self;
    /// The lanes converted to integers by the rounding `ROUND`: the integer's indefinite value
    /// (its least) for NaN, the infinities and what lies beyond its range.
    unsafe fn convert<const ROUND: i32>(self) -> __m512i;
    /// The lanes converted to integers by the rounding `ROUND` for a clamp whose low side the
    /// saturating packs take: the low doubleword of each integer is the rounded lane where that
    /// lies in `[0, 2^31)` (`[-2^31, 2^31)` where [`Register::FLOORS_SIGNED`]), and below those
    /// values (and for NaN) a negative doubleword less than all of them: `-1` from float64 (the
    /// unsigned conversion's indefinite integer), at most the rounded lane from float32.
    unsafe fn convert_floored<const ROUND: i32>(self) -> __m512i;
    /// The least (`MOST` false) or largest integers of `a` and `b`, lane by lane.
    unsafe fn extreme<const MOST: bool>(a: __m512i, b: __m512i) -> __m512i;
    /// The least (`MOST` false) or largest integer, in every lane.
    unsafe fn splat_extreme<const MOST: bool>() -> __m512i;
    /// Whether a lane of `least` is below `bound` or a lane of `most` above it.
    unsafe fn beyond(least: __m512i, most: __m512i, lo: i64, hi: i64) -> bool;
    /// Whether a lane is not zero.
    unsafe fn nonzero(self) -> bool;
    /// The low 32 bits of the integers of a group's registers, sixteen to a register, in order.
    unsafe fn doublewords(lanes: &[__m512i; 8], evens: __m512i) -> [__m512i; 4];
}

impl Register for __m512d {
    type Element = f64;
    const COUNT: usize = 8;
    const INDEFINITE: i64 = i64::MIN;
    const BELOW_HALF: f64 = 0.5 - f64::EPSILON / 4.0;
    const FLOORS_SIGNED: bool = false;

    #[inline(always)]
    unsafe fn load(at: *const f64) -> Self {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_loadu_pd(at) }
    }

    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_set1_pd(x) }
    }

    #[inline(always)]
    unsafe fn fixup(a: Self, b: Self, table: __m512i) -> Self {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_fixupimm_pd::<0>(a, b, table) }
    }

    #[inline(always)]
    unsafe fn clamp(self, lo: Self, hi: Self) -> Self {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_min_pd(_mm512_max_pd(self, lo), hi) }
    }

    #[inline(always)]
    unsafe fn below(self, hi: Self) -> Self {
        // SAFETY: the caller's guarantees (`min` gives its second operand for NaN).
        unsafe { _mm512_min_pd(hi, self) }
    }

    #[inline(always)]
    unsafe fn away(self, sign: Option<Self>, half: Self) -> Self {
        // SAFETY: the caller's guarantees.
        unsafe {
            let step = sign.map_or(half, |sign| _mm512_or_pd(_mm512_and_pd(self, sign), half));
            _mm512_add_pd(self, step)
        }
    }

    #[inline(always)]
    unsafe fn convert<const ROUND: i32>(self) -> __m512i {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_cvt_roundpd_epi64::<ROUND>(self) }
    }

    #[inline(always)]
    unsafe fn convert_floored<const ROUND: i32>(self) -> __m512i {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_cvt_roundpd_epu64::<ROUND>(self) }
    }

    #[inline(always)]
    unsafe fn extreme<const MOST: bool>(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the caller's guarantees.
        unsafe {
            if MOST {
                _mm512_max_epi64(a, b)
            } else {
                _mm512_min_epi64(a, b)
            }
        }
    }

    #[inline(always)]
    unsafe fn splat_extreme<const MOST: bool>() -> __m512i {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_set1_epi64(if MOST { i64::MAX } else { i64::MIN }) }
    }

    #[inline(always)]
    unsafe fn beyond(least: __m512i, most: __m512i, lo: i64, hi: i64) -> bool {
        // SAFETY: the caller's guarantees.
        unsafe {
            _mm512_cmplt_epi64_mask(least, _mm512_set1_epi64(lo)) != 0
                || _mm512_cmpgt_epi64_mask(most, _mm512_set1_epi64(hi)) != 0
        }
    }

    #[inline(always)]
    unsafe fn nonzero(self) -> bool {
        // SAFETY: the caller's guarantees.
        unsafe {
            let bits = _mm512_castpd_si512(self);
            _mm512_test_epi32_mask(bits, bits) != 0
        }
    }

    #[inline(always)]
    unsafe fn doublewords(lanes: &[__m512i; 8], evens: __m512i) -> [__m512i; 4] {
        // SAFETY: the caller's guarantees.
        let low = |a, b| unsafe { _mm512_permutex2var_epi32(a, evens, b) };
        [
            low(lanes[0], lanes[1]),
            low(lanes[2], lanes[3]),
            low(lanes[4], lanes[5]),
            low(lanes[6], lanes[7]),
        ]
    }
}

impl Register for __m512 {
    type Element = f32;
    const COUNT: usize = 4;
    const INDEFINITE: i64 = i32::MIN as i64;
    const BELOW_HALF: f64 = 0.5 - f32::EPSILON as f64 / 4.0;
    const FLOORS_SIGNED: bool = true;

    #[inline(always)]
    unsafe fn load(at: *const f32) -> Self {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_loadu_ps(at) }
    }

    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        #[expect(clippy::cast_possible_truncation, reason = "exact in float32")]
        // SAFETY: the caller's guarantees.
        unsafe {
            _mm512_set1_ps(x as f32)
        }
    }

    #[inline(always)]
    unsafe fn fixup(a: Self, b: Self, table: __m512i) -> Self {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_fixupimm_ps::<0>(a, b, table) }
    }

    #[inline(always)]
    unsafe fn clamp(self, lo: Self, hi: Self) -> Self {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_min_ps(_mm512_max_ps(self, lo), hi) }
    }

    #[inline(always)]
    unsafe fn below(self, hi: Self) -> Self {
        // SAFETY: the caller's guarantees (`min` gives its second operand for NaN).
        unsafe { _mm512_min_ps(hi, self) }
    }

    #[inline(always)]
    unsafe fn away(self, sign: Option<Self>, half: Self) -> Self {
        // SAFETY: the caller's guarantees.
        unsafe {
            let step = sign.map_or(half, |sign| _mm512_or_ps(_mm512_and_ps(self, sign), half));
            _mm512_add_ps(self, step)
        }
    }

    #[inline(always)]
    unsafe fn convert<const ROUND: i32>(self) -> __m512i {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_cvt_roundps_epi32::<ROUND>(self) }
    }

    #[inline(always)]
    unsafe fn convert_floored<const ROUND: i32>(self) -> __m512i {
        // SAFETY: the caller's guarantees (the indefinite integer is the least).
        unsafe { _mm512_cvt_roundps_epi32::<ROUND>(self) }
    }

    #[inline(always)]
    unsafe fn extreme<const MOST: bool>(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the caller's guarantees.
        unsafe {
            if MOST {
                _mm512_max_epi32(a, b)
            } else {
                _mm512_min_epi32(a, b)
            }
        }
    }

    #[inline(always)]
    unsafe fn splat_extreme<const MOST: bool>() -> __m512i {
        // SAFETY: the caller's guarantees.
        unsafe { _mm512_set1_epi32(if MOST { i32::MAX } else { i32::MIN }) }
    }

    #[inline(always)]
    unsafe fn beyond(least: __m512i, most: __m512i, lo: i64, hi: i64) -> bool {
        // Bounds beyond 32 bits hold every 32-bit integer.
        let clip = |x: i64| i32::try_from(x).unwrap_or(if x < 0 { i32::MIN } else { i32::MAX });
        // SAFETY: the caller's guarantees.
        unsafe {
            _mm512_cmplt_epi32_mask(least, _mm512_set1_epi32(clip(lo))) != 0
                || _mm512_cmpgt_epi32_mask(most, _mm512_set1_epi32(clip(hi))) != 0
        }
    }

    #[inline(always)]
    unsafe fn nonzero(self) -> bool {
        // SAFETY: the caller's guarantees.
        unsafe {
            let bits = _mm512_castps_si512(self);
            _mm512_test_epi32_mask(bits, bits) != 0
        }
    }

    #[inline(always)]
    unsafe fn doublewords(lanes: &[__m512i; 8], _: __m512i) -> [__m512i; 4] {
        [lanes[0], lanes[1], lanes[2], lanes[3]]
    }
}
