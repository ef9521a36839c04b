//! The float64 and float32 → 8- and 16-bit casts on AVX-512, written with intrinsics: the
//! compiler's loop ([`FloatToInt`](super::FloatToInt)) narrows each register of integers by a
//! narrowing move of two operations on the shuffle port, and rounds by the directed modes with a
//! rounding instruction of two more. Here the conversion to integers (64-bit from float64, 32-bit
//! from float32) rounds by its own embedded rounding mode (one operation for every mode;
//! `nearest-away` adds `copysign(1/2 - ulp/4, c)` and truncates, as the compiler's loop does),
//! one fixup operation replaces NaN and another marks the infinities, and a group of 64 elements
//! is narrowed at once by the low doublewords of its integers and saturating packs.
//!
//! Clamped, the results are those of the compiler's loop. Where the conversion keeps the target's
//! least value (float32's signed 32-bit integers, float64's unsigned 64-bit ones for targets
//! without negative values), the clamp's low side costs no operation of its own: the conversion
//! gives what lies below it (and NaN, where the map sends NaN to the least value) an integer no
//! greater than the least, which the saturating packs raise to it. Without a clamp the range is
//! checked on the rounded integers: a conversion gives the integer's least value for NaN, the infinities and
//! magnitudes beyond its range, so `wrap` (whose low bits are then exact) is undecided only where
//! the least integer is that value, and no mode where the least or the largest lies outside the
//! target's range: the elements the compiler's loop finds by its thresholds, while `wrap` decides
//! more of them from float64 (up to `2^63` rather than `2^51`). The compiler's loop takes the
//! elements after the last whole group of 64.

use std::arch::x86_64::{
    __m512i, _MM_FROUND_NO_EXC, _MM_FROUND_TO_NEAREST_INT, _MM_FROUND_TO_NEG_INF,
    _MM_FROUND_TO_POS_INF, _MM_FROUND_TO_ZERO, _mm512_and_si512, _mm512_loadu_si512,
    _mm512_max_epi8, _mm512_max_epi16, _mm512_max_epu8, _mm512_max_epu16, _mm512_packs_epi16,
    _mm512_packs_epi32, _mm512_packus_epi16, _mm512_packus_epi32, _mm512_permutexvar_epi32,
    _mm512_permutexvar_epi64, _mm512_set1_epi8, _mm512_set1_epi16, _mm512_set1_epi32,
    _mm512_setzero_si512, _mm512_storeu_si512,
};

use register::Register;

use super::clamps;
use super::{CLAMP, CLAMP_NAN_LOW, RANGE, WRAP};
use crate::numeric::RoundingMode;

mod register;

/// The constants of a loop.
#[derive(Clone, Copy, Debug)]
pub(super) struct Constants {
    /// [`CLAMP`], [`CLAMP_NAN_LOW`], [`WRAP`] or [`RANGE`].
    pub(super) kind: u8,
    /// The target's bounds.
    pub(super) lo: f64,
    pub(super) hi: f64,
    /// What NaN is replaced by (+Infinity where it is undecided).
    pub(super) nan: f64,
    /// The target's bytes per element: 1 or 2.
    pub(super) width: usize,
}

/// How `nearest-away` adds `copysign(1/2 - 2^-53, c)` before truncating: not at all (the other
/// modes), as `1/2 - 2^-53` (a clamp to a range without negative values), or with the sign of
/// `c`.
const NONE: u8 = 0;
const UNSIGNED: u8 = 1;
const SIGNED: u8 = 2;

/// Elements per group: eight registers of float64, four of float32.
const GROUP: usize = 64;

/// The low doublewords of the 64-bit lanes of two registers (`vpermt2d`).
static EVENS: [i32; 16] = [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30];
/// Two packs of four registers of doublewords leave element groups of four in the order
/// `4 × (j % 4) + j / 4` (as doublewords of bytes); this permute takes them back.
static BYTE_ORDER: [i32; 16] = [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15];
/// One pack of two registers of doublewords leaves element groups of four (quadwords of words)
/// in the order 0, 4, 1, 5, 2, 6, 3, 7; this permute takes them back.
static WORD_ORDER: [i64; 8] = [0, 2, 4, 6, 1, 3, 5, 7];

/// Converts the whole groups of 64 elements of `input`, writing `width` bytes per element from
/// `output` on; returns how many elements it converted and whether one of them is undecided.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and DQ; `output` must be valid for writes of
/// `input.len() × constants.width` bytes; `lo ≤ hi` are integers of at most 16 bits.
pub(super) unsafe fn convert<R: Register>(
    constants: Constants,
    rounding: RoundingMode,
    input: &[R::Element],
    output: *mut u8,
) -> (usize, bool) {
    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const ZERO: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
    const UP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
    const DOWN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
    let c = constants;
    // Clamped to a range without negative values, what is rounded is not negative.
    let unsigned = clamps(c.kind) && c.lo >= 0.0;
    // Whether the conversion keeps the target's least value (see [`groups`]).
    let packed = R::FLOORS_SIGNED || unsigned;
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        match rounding {
            RoundingMode::NearestEven => by_packing::<R, NEAREST, NONE>(c, packed, input, output),
            RoundingMode::NearestAway if unsigned => {
                by_kind::<R, ZERO, UNSIGNED, true>(c, input, output)
            }
            RoundingMode::NearestAway => by_packing::<R, ZERO, SIGNED>(c, packed, input, output),
            RoundingMode::TowardsZero => by_packing::<R, ZERO, NONE>(c, packed, input, output),
            RoundingMode::TowardsPositive => by_packing::<R, UP, NONE>(c, packed, input, output),
            RoundingMode::TowardsNegative => by_packing::<R, DOWN, NONE>(c, packed, input, output),
        }
    }
}

/// [`convert`] for one rounding: the loops with and without `PACKED`.
///
/// # Safety
/// As for [`by_kind`], with `packed` only where the conversion keeps the target's least value.
unsafe fn by_packing<R: Register, const ROUND: i32, const AWAY: u8>(
    c: Constants,
    packed: bool,
    input: &[R::Element],
    output: *mut u8,
) -> (usize, bool) {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        if packed {
            by_kind::<R, ROUND, AWAY, true>(c, input, output)
        } else {
            by_kind::<R, ROUND, AWAY, false>(c, input, output)
        }
    }
}

/// [`convert`] for one rounding: the loop of the kind. With `PACKED` a clamp leaves its low side
/// to the conversion and the packs (see [`groups`]).
///
/// # Safety
/// As for [`convert`]; with `PACKED`, [`Register::convert_floored`] keeps the target's least
/// value.
unsafe fn by_kind<R: Register, const ROUND: i32, const AWAY: u8, const PACKED: bool>(
    c: Constants,
    input: &[R::Element],
    output: *mut u8,
) -> (usize, bool) {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        match c.kind {
            CLAMP => groups::<R, ROUND, AWAY, CLAMP, PACKED>(c, input, output),
            CLAMP_NAN_LOW => groups::<R, ROUND, AWAY, CLAMP_NAN_LOW, PACKED>(c, input, output),
            WRAP => groups::<R, ROUND, AWAY, WRAP, false>(c, input, output),
            _ => groups::<R, ROUND, AWAY, RANGE, false>(c, input, output),
        }
    }
}

/// The tables that narrow a group's integers to 64 bytes or words.
struct Narrow {
    /// [`EVENS`], [`BYTE_ORDER`] and [`WORD_ORDER`].
    evens: __m512i,
    byte_order: __m512i,
    word_order: __m512i,
    /// Whether the target is signed (which packs saturate as it does).
    signed: bool,
    /// The target's least value in every byte or word, where the packs take a clamp's low side
    /// and it lies above the least value they saturate to (int4's -8, say).
    floor: Option<__m512i>,
}

impl Narrow {
    /// The tables for a target whose least value is `lo`, of `width` bytes; `packed` when the
    /// packs take a clamp's low side.
    ///
    /// # Safety
    /// The CPU must support AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn new(lo: f64, width: usize, packed: bool) -> Self {
        // SAFETY: each table holds 64 bytes (unaligned loads).
        let load = |table: *const u8| unsafe { _mm512_loadu_si512(table.cast()) };
        let signed = lo < 0.0;
        let least = match (signed, width) {
            (false, _) => 0.0,
            (true, 1) => f64::from(i8::MIN),
            (true, _) => f64::from(i16::MIN),
        };
        #[expect(
            clippy::cast_possible_truncation,
            reason = "an integer of at most 16 bits"
        )]
        let floor = (packed && lo > least).then(|| {
            if width == 1 {
                _mm512_set1_epi8(lo as i8)
            } else {
                _mm512_set1_epi16(lo as i16)
            }
        });
        Self {
            evens: load(EVENS.as_ptr().cast()),
            byte_order: load(BYTE_ORDER.as_ptr().cast()),
            word_order: load(WORD_ORDER.as_ptr().cast()),
            signed,
            floor,
        }
    }

    /// `bytes` (`width` 1) or words raised to the target's least value.
    #[inline]
    #[target_feature(enable = "avx512bw")]
    fn raise(&self, width: usize, values: __m512i) -> __m512i {
        match (self.floor, self.signed, width) {
            (None, ..) => values,
            (Some(floor), true, 1) => _mm512_max_epi8(values, floor),
            (Some(floor), false, 1) => _mm512_max_epu8(values, floor),
            (Some(floor), true, _) => _mm512_max_epi16(values, floor),
            (Some(floor), false, _) => _mm512_max_epu16(values, floor),
        }
    }

    /// Stores the low `width` bytes (1 or 2) of the group's 64 integers, sixteen to a register in
    /// `words`, from `at` on: by saturating packs (which leave integers within the target's range
    /// unchanged, raise those below it to its least value, with the floor's maximum after them,
    /// and, once masked to their low bytes, keep `any` integers, as `wrap` gives them) and one
    /// permute that undoes the packs' interleaving of 128-bit lanes.
    ///
    /// # Safety
    /// The CPU must support AVX-512 F and BW; `at` must be valid for writes of `64 × width`
    /// bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn store(&self, width: usize, any: bool, words: [__m512i; 4], at: *mut u8) {
        let [d0, d1, d2, d3] = words;
        let [d0, d1, d2, d3] = if any {
            let mask = _mm512_set1_epi32(if width == 1 { 0xFF } else { 0xFFFF });
            let low = |d| _mm512_and_si512(d, mask);
            [low(d0), low(d1), low(d2), low(d3)]
        } else {
            [d0, d1, d2, d3]
        };
        let signed = self.signed && !any;
        // SAFETY: the caller's guarantee (unaligned stores).
        unsafe {
            if width == 1 {
                // Every 8-bit target's values are 16-bit integers.
                let (w0, w1) = (_mm512_packs_epi32(d0, d1), _mm512_packs_epi32(d2, d3));
                let bytes = if signed {
                    _mm512_packs_epi16(w0, w1)
                } else {
                    _mm512_packus_epi16(w0, w1)
                };
                let bytes = self.raise(1, bytes);
                let bytes = _mm512_permutexvar_epi32(self.byte_order, bytes);
                _mm512_storeu_si512(at.cast(), bytes);
            } else {
                let (w0, w1) = if signed {
                    (_mm512_packs_epi32(d0, d1), _mm512_packs_epi32(d2, d3))
                } else {
                    (_mm512_packus_epi32(d0, d1), _mm512_packus_epi32(d2, d3))
                };
                let (w0, w1) = (self.raise(2, w0), self.raise(2, w1));
                _mm512_storeu_si512(at.cast(), _mm512_permutexvar_epi64(self.word_order, w0));
                let high = _mm512_permutexvar_epi64(self.word_order, w1);
                _mm512_storeu_si512(at.add(64).cast(), high);
            }
        }
    }
}

/// The loop over whole groups. A clamp takes the high side as a `min` in floating point and the
/// low side either as a `max` too or, with `PACKED`, by the conversion (which gives, below the
/// range and for NaN, an integer no greater than the target's least value) and the saturating
/// packs: one operation less per register.
///
/// # Safety
/// As for [`by_kind`], with `KIND` the constants' kind.
#[target_feature(enable = "avx512f,avx512bw,avx512dq")]
unsafe fn groups<
    R: Register,
    const ROUND: i32,
    const AWAY: u8,
    const KIND: u8,
    const PACKED: bool,
>(
    c: Constants,
    input: &[R::Element],
    output: *mut u8,
) -> (usize, bool) {
    // `vfixupimm` responses by the class of its operand (four bits per class: QNaN, SNaN, zero,
    // one, -Infinity, +Infinity, negative, positive): NaN to the first operand and everything
    // else kept; the infinities to +Infinity and everything else to the first operand.
    let (nan_to_first, infinity_mark) = (
        _mm512_set1_epi32(0x1111_1100),
        _mm512_set1_epi32(0x0055_0000),
    );
    // The constants, each splat written out (an array's `map` would cost every copy of this loop
    // instantiations of its own).
    // SAFETY: the caller's CPU has the instruction sets (here and for every method of `R` and
    // `Narrow` below).
    let (lo, hi, nan, sign, half, zero) = unsafe {
        (
            R::splat(c.lo),
            R::splat(c.hi),
            R::splat(c.nan),
            R::splat(-0.0),
            R::splat(R::BELOW_HALF),
            R::splat(0.0),
        )
    };
    // Clamped: +Infinity in the lanes where an element was infinite, in four chains (a fixup
    // takes four cycles). Otherwise: the least and largest integers.
    // SAFETY: as above.
    let (narrow, mut least, mut most) = unsafe {
        (
            Narrow::new(c.lo, c.width, PACKED),
            R::splat_extreme::<true>(),
            R::splat_extreme::<false>(),
        )
    };
    let mut infinite = [zero; 4];
    let mut done = 0;
    while done + GROUP <= input.len() {
        let mut lanes = [_mm512_setzero_si512(); 8];
        for (k, lane) in lanes.iter_mut().enumerate().take(R::COUNT) {
            let per = GROUP / R::COUNT;
            // SAFETY: the group lies within `input`; the caller's CPU has the instruction sets.
            unsafe {
                let w = R::load(input.as_ptr().add(done + per * k));
                let w = if KIND == CLAMP_NAN_LOW {
                    w
                } else {
                    R::fixup(nan, w, nan_to_first)
                };
                let w = if clamps(KIND) {
                    // +Infinity and -Infinity: no integer holds them.
                    infinite[k % 4] = R::fixup(infinite[k % 4], w, infinity_mark);
                    if PACKED {
                        w.below(hi)
                    } else {
                        // `max` gives its second operand for a NaN `w`: `lo`, NaN's replacement.
                        w.clamp(lo, hi)
                    }
                } else {
                    w
                };
                let w = match AWAY {
                    UNSIGNED => w.away(None, half),
                    SIGNED => w.away(Some(sign), half),
                    _ => w,
                };
                *lane = if PACKED {
                    w.convert_floored::<ROUND>()
                } else {
                    w.convert::<ROUND>()
                };
                if KIND == WRAP || KIND == RANGE {
                    least = R::extreme::<false>(least, *lane);
                }
                if KIND == RANGE {
                    most = R::extreme::<true>(most, *lane);
                }
            }
        }
        // SAFETY: the group's `64 × width` output bytes lie within `output`; the caller's CPU
        // has the instruction sets.
        unsafe {
            let words = R::doublewords(&lanes, narrow.evens);
            narrow.store(c.width, KIND == WRAP, words, output.add(done * c.width));
        }
        done += GROUP;
    }
    // SAFETY: the caller's CPU has the instruction sets.
    let undecided = unsafe {
        match KIND {
            // The conversion's indefinite integer: NaN, an infinity or a magnitude beyond range.
            WRAP => R::beyond(least, most, R::INDEFINITE + 1, i64::MAX),
            #[expect(
                clippy::cast_possible_truncation,
                reason = "integers of at most 16 bits"
            )]
            RANGE => R::beyond(least, most, c.lo as i64, c.hi as i64),
            _ => infinite.into_iter().any(|x| x.nonzero()),
        }
    };
    (done, undecided)
}

#[cfg(test)]
mod tests;
