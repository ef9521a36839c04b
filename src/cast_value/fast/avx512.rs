//! The float64 → 8- and 16-bit casts on AVX-512 with VBMI, written with intrinsics: the
//! compiler's loop ([`FloatToInt`](super::FloatToInt)) narrows each register of eight 64-bit
//! integers by a narrowing move of two operations on the shuffle port, and rounds by the directed
//! modes with a rounding instruction of two more. Here the conversion to 64-bit integers rounds by
//! its own embedded rounding mode (one operation for every mode; `nearest-away` adds
//! `copysign(1/2 - 2^-53, c)` and truncates, as the compiler's loop does), and eight registers
//! are narrowed at once by two-register byte permutes (seven for 64 bytes, six for 64 words).
//!
//! Clamped, the results are those of the compiler's loop. Without a clamp the range is checked on
//! the rounded integers: a conversion gives `i64::MIN` for NaN, the infinities and magnitudes from
//! `2^63` on, so `wrap` (whose low bits are then exact) is undecided only where the least integer
//! is `i64::MIN`, and no mode where the least or the largest lies outside the target's range: the
//! elements the compiler's loop finds by its thresholds, while `wrap` decides more of them (up to
//! `2^63` rather than `2^51`). The compiler's loop takes the elements after the last whole group
//! of 64.

use std::arch::x86_64::{
    __m512d, __m512i, _MM_FROUND_NO_EXC, _MM_FROUND_TO_NEAREST_INT, _MM_FROUND_TO_NEG_INF,
    _MM_FROUND_TO_POS_INF, _MM_FROUND_TO_ZERO, _mm512_add_pd, _mm512_and_pd, _mm512_castpd_si512,
    _mm512_castsi512_si256, _mm512_cmpgt_epi64_mask, _mm512_cmplt_epi64_mask,
    _mm512_cmpneq_epi64_mask, _mm512_cvt_roundpd_epi64, _mm512_fixupimm_pd, _mm512_inserti64x4,
    _mm512_loadu_pd, _mm512_loadu_si512, _mm512_max_epi64, _mm512_max_pd, _mm512_min_epi64,
    _mm512_min_pd, _mm512_or_pd, _mm512_packs_epi16, _mm512_packs_epi32, _mm512_packus_epi16,
    _mm512_packus_epi32, _mm512_permutex2var_epi8, _mm512_permutex2var_epi32,
    _mm512_permutex2var_epi64, _mm512_permutexvar_epi32, _mm512_permutexvar_epi64,
    _mm512_set_epi64, _mm512_set1_epi64, _mm512_set1_pd, _mm512_setzero_pd, _mm512_setzero_si512,
    _mm512_storeu_si512,
};

use crate::numeric::RoundingMode;

/// What a loop does besides rounding: clamp to `[lo, hi]` (replacing NaN first, or where NaN's
/// replacement is `lo`, by the clamp itself), wrap, or check that the rounded integers lie in
/// `[lo, hi]`.
pub(super) const CLAMP: u8 = 0;
pub(super) const CLAMP_NAN_LOW: u8 = 1;
pub(super) const WRAP: u8 = 2;
pub(super) const RANGE: u8 = 3;

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
    /// Whether the target is signed.
    pub(super) signed: bool,
}

/// How `nearest-away` adds `copysign(1/2 - 2^-53, c)` before truncating: not at all (the other
/// modes), as `1/2 - 2^-53` (a clamp to a range without negative values), or with the sign of
/// `c`.
const NONE: u8 = 0;
const UNSIGNED: u8 = 1;
const SIGNED: u8 = 2;

/// Elements per group: eight registers.
const GROUP: usize = 64;

/// The byte permute that gathers the low `width` bytes of each 64-bit lane of two registers
/// (the first register's lanes, then the second's) into the low `16 × width` bytes.
const fn gather(width: usize) -> [u8; 64] {
    let mut index = [0u8; 64];
    let mut i = 0;
    while i < 16 * width {
        let (lane, byte) = (i / width, i % width);
        // Indices 64 and up select from the second register (all below 128).
        #[expect(clippy::cast_possible_truncation, reason = "below 128")]
        let at = (8 * lane + byte) as u8;
        index[i] = at;
        i += 1;
    }
    index
}

static GATHER_BYTES: [u8; 64] = gather(1);
static GATHER_WORDS: [u8; 64] = gather(2);

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
/// The CPU must support AVX-512 F, BW, DQ and VBMI; `output` must be valid for writes of
/// `input.len() × constants.width` bytes; `lo ≤ hi` are integers within the range of `i64`.
pub(super) unsafe fn convert(
    constants: Constants,
    rounding: RoundingMode,
    input: &[f64],
    output: *mut u8,
) -> (usize, bool) {
    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const ZERO: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
    const UP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
    const DOWN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
    let c = constants;
    // Clamped to a range without negative values, what is rounded is not negative.
    let unsigned = matches!(c.kind, CLAMP | CLAMP_NAN_LOW) && c.lo >= 0.0;
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        match rounding {
            RoundingMode::NearestEven => by_kind::<NEAREST, NONE>(c, input, output),
            RoundingMode::NearestAway if unsigned => by_kind::<ZERO, UNSIGNED>(c, input, output),
            RoundingMode::NearestAway => by_kind::<ZERO, SIGNED>(c, input, output),
            RoundingMode::TowardsZero => by_kind::<ZERO, NONE>(c, input, output),
            RoundingMode::TowardsPositive => by_kind::<UP, NONE>(c, input, output),
            RoundingMode::TowardsNegative => by_kind::<DOWN, NONE>(c, input, output),
        }
    }
}

/// [`convert`] for one rounding: the loop of the kind and width.
///
/// # Safety
/// As for [`convert`].
unsafe fn by_kind<const ROUND: i32, const AWAY: u8>(
    c: Constants,
    input: &[f64],
    output: *mut u8,
) -> (usize, bool) {
    macro_rules! by_width {
        ($kind:expr) => {
            if c.width == 1 {
                groups::<ROUND, AWAY, 1, { $kind }>(c, input, output)
            } else {
                groups::<ROUND, AWAY, 2, { $kind }>(c, input, output)
            }
        };
    }
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        match c.kind {
            CLAMP => by_width!(CLAMP),
            CLAMP_NAN_LOW => by_width!(CLAMP_NAN_LOW),
            WRAP => by_width!(WRAP),
            _ => by_width!(RANGE),
        }
    }
}

/// The tables that narrow eight registers of 64-bit integers to 64 bytes or words.
struct Narrow {
    /// The byte permute that gathers the low bytes or words of two registers.
    gather: __m512i,
    /// The low 16 bytes of two registers, then of two more.
    halves: __m512i,
    /// [`EVENS`], [`BYTE_ORDER`] and [`WORD_ORDER`].
    evens: __m512i,
    byte_order: __m512i,
    word_order: __m512i,
    /// Whether the target is signed (which packs saturate as it does).
    signed: bool,
}

impl Narrow {
    /// The tables for a target of `width` bytes.
    ///
    /// # Safety
    /// The CPU must support AVX-512 F.
    #[target_feature(enable = "avx512f")]
    unsafe fn new(width: usize, signed: bool) -> Self {
        let table = if width == 1 {
            &GATHER_BYTES
        } else {
            &GATHER_WORDS
        };
        // SAFETY: each table holds 64 bytes (unaligned loads).
        let load = |table: *const u8| unsafe { _mm512_loadu_si512(table.cast()) };
        Self {
            gather: load(table.as_ptr()),
            halves: _mm512_set_epi64(0, 0, 0, 0, 9, 8, 1, 0),
            evens: load(EVENS.as_ptr().cast()),
            byte_order: load(BYTE_ORDER.as_ptr().cast()),
            word_order: load(WORD_ORDER.as_ptr().cast()),
            signed,
        }
    }

    /// Stores the low `WIDTH` bytes of the 64 integers of `lanes` from `at` on: for any integers
    /// (`any`, as `wrap` gives them) by byte permutes, for integers within the target's range by
    /// their low doublewords, saturating packs (which leave them unchanged) and one permute that
    /// undoes the packs' interleaving of 128-bit lanes.
    ///
    /// # Safety
    /// The CPU must support AVX-512 F, BW and VBMI; `at` must be valid for writes of
    /// `64 × WIDTH` bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn store<const WIDTH: usize>(&self, any: bool, lanes: &[__m512i; 8], at: *mut u8) {
        let (first, second): (__m512i, Option<__m512i>) = if any {
            let pair = |a: __m512i, b: __m512i| _mm512_permutex2var_epi8(a, self.gather, b);
            let (p0, p1) = (pair(lanes[0], lanes[1]), pair(lanes[2], lanes[3]));
            let (p2, p3) = (pair(lanes[4], lanes[5]), pair(lanes[6], lanes[7]));
            if WIDTH == 1 {
                let q0 = _mm512_permutex2var_epi64(p0, self.halves, p1);
                let q1 = _mm512_permutex2var_epi64(p2, self.halves, p3);
                (
                    _mm512_inserti64x4::<1>(q0, _mm512_castsi512_si256(q1)),
                    None,
                )
            } else {
                let low = _mm512_inserti64x4::<1>(p0, _mm512_castsi512_si256(p1));
                let high = _mm512_inserti64x4::<1>(p2, _mm512_castsi512_si256(p3));
                (low, Some(high))
            }
        } else {
            let low = |a: __m512i, b: __m512i| _mm512_permutex2var_epi32(a, self.evens, b);
            let (d0, d1) = (low(lanes[0], lanes[1]), low(lanes[2], lanes[3]));
            let (d2, d3) = (low(lanes[4], lanes[5]), low(lanes[6], lanes[7]));
            if WIDTH == 1 {
                // Every 8-bit target's values are 16-bit integers.
                let (w0, w1) = (_mm512_packs_epi32(d0, d1), _mm512_packs_epi32(d2, d3));
                let bytes = if self.signed {
                    _mm512_packs_epi16(w0, w1)
                } else {
                    _mm512_packus_epi16(w0, w1)
                };
                (_mm512_permutexvar_epi32(self.byte_order, bytes), None)
            } else {
                let (w0, w1) = if self.signed {
                    (_mm512_packs_epi32(d0, d1), _mm512_packs_epi32(d2, d3))
                } else {
                    (_mm512_packus_epi32(d0, d1), _mm512_packus_epi32(d2, d3))
                };
                let order = |w: __m512i| _mm512_permutexvar_epi64(self.word_order, w);
                (order(w0), Some(order(w1)))
            }
        };
        // SAFETY: the caller's guarantee (unaligned stores).
        unsafe {
            _mm512_storeu_si512(at.cast(), first);
            if let Some(second) = second {
                _mm512_storeu_si512(at.add(64).cast(), second);
            }
        }
    }
}

/// The loop over whole groups.
///
/// # Safety
/// As for [`convert`], with `WIDTH` the constants' width and `KIND` their kind.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vbmi")]
unsafe fn groups<const ROUND: i32, const AWAY: u8, const WIDTH: usize, const KIND: u8>(
    c: Constants,
    input: &[f64],
    output: *mut u8,
) -> (usize, bool) {
    let (lo, hi, nan) = (
        _mm512_set1_pd(c.lo),
        _mm512_set1_pd(c.hi),
        _mm512_set1_pd(c.nan),
    );
    let (sign, half) = (_mm512_set1_pd(-0.0), _mm512_set1_pd(0.5f64.next_down()));
    // SAFETY: the caller's CPU has the instruction sets.
    let narrow = unsafe { Narrow::new(WIDTH, c.signed) };
    // `vfixupimmpd` responses by the class of its operand (four bits per class: QNaN, SNaN, zero,
    // one, -Infinity, +Infinity, negative, positive): NaN to the first operand and everything
    // else kept; the infinities to +Infinity and everything else to the first operand.
    let (nan_to_first, infinity_mark) = (
        _mm512_set1_epi64(0x1111_1100),
        _mm512_set1_epi64(0x0055_0000),
    );
    // Clamped: +Infinity in the lanes where an element was infinite, in four chains (a fixup
    // takes four cycles). Otherwise: the least and largest integers.
    let mut infinite = [_mm512_setzero_pd(); 4];
    let (mut least, mut most) = (_mm512_set1_epi64(i64::MAX), _mm512_set1_epi64(i64::MIN));
    let mut done = 0;
    while done + GROUP <= input.len() {
        let mut lanes = [_mm512_setzero_si512(); 8];
        for (k, lane) in lanes.iter_mut().enumerate() {
            // SAFETY: the group lies within `input` (an unaligned load of eight elements).
            let w: __m512d = unsafe { _mm512_loadu_pd(input.as_ptr().add(done + 8 * k)) };
            let w = if KIND == CLAMP_NAN_LOW {
                w
            } else {
                _mm512_fixupimm_pd::<0>(nan, w, nan_to_first)
            };
            let w = if KIND == CLAMP || KIND == CLAMP_NAN_LOW {
                // +Infinity and -Infinity: no integer holds them.
                infinite[k % 4] = _mm512_fixupimm_pd::<0>(infinite[k % 4], w, infinity_mark);
                // `max` gives its second operand for a NaN `w`: `lo`, NaN's replacement.
                _mm512_min_pd(_mm512_max_pd(w, lo), hi)
            } else {
                w
            };
            let w = match AWAY {
                UNSIGNED => _mm512_add_pd(w, half),
                SIGNED => _mm512_add_pd(w, _mm512_or_pd(_mm512_and_pd(w, sign), half)),
                _ => w,
            };
            *lane = _mm512_cvt_roundpd_epi64::<ROUND>(w);
            if KIND == WRAP || KIND == RANGE {
                least = _mm512_min_epi64(least, *lane);
            }
            if KIND == RANGE {
                most = _mm512_max_epi64(most, *lane);
            }
        }
        // SAFETY: the group's `64 × WIDTH` output bytes lie within `output`; the caller's CPU
        // has the instruction sets.
        unsafe { narrow.store::<WIDTH>(KIND == WRAP, &lanes, output.add(done * WIDTH)) };
        done += GROUP;
    }
    let undecided = match KIND {
        // The conversion's `i64::MIN`: NaN, an infinity or a magnitude from 2^63 on.
        WRAP => _mm512_cmplt_epi64_mask(least, _mm512_set1_epi64(i64::MIN + 1)) != 0,
        RANGE => {
            // The bounds are integers within the range of `i64`.
            #[expect(clippy::cast_possible_truncation, reason = "integers within range")]
            let (lo, hi) = (c.lo as i64, c.hi as i64);
            _mm512_cmplt_epi64_mask(least, _mm512_set1_epi64(lo)) != 0
                || _mm512_cmpgt_epi64_mask(most, _mm512_set1_epi64(hi)) != 0
        }
        _ => {
            let (a, b) = (
                _mm512_or_pd(infinite[0], infinite[1]),
                _mm512_or_pd(infinite[2], infinite[3]),
            );
            _mm512_cmpneq_epi64_mask(
                _mm512_castpd_si512(_mm512_or_pd(a, b)),
                _mm512_setzero_si512(),
            ) != 0
        }
    };
    (done, undecided)
}

#[cfg(test)]
mod tests {
    use std::mem::MaybeUninit;

    use super::super::FloatToInt;
    use crate::cast_value::kernel::FastPath;
    use crate::cast_value::reference_tests::ROUNDINGS;
    use crate::kernel::simd::Isa;
    use crate::numeric::{Bits, IntFormat, Kind, NumericType, OutOfRangeMode, Value, encode};
    use crate::reference::Seeded;

    /// Elements where the casts change behaviour, around the bounds of every 8- and 16-bit
    /// target and at every half-integer step, then small values by eighths, seeded random values
    /// and encodings; no infinity (which would leave a group undecided).
    fn inputs() -> Vec<f64> {
        // Quiet and signalling NaNs of both signs.
        let nans = [
            0x7FF8_0000_0000_0000,
            0xFFF8_0000_0000_0001,
            0x7FF0_0000_0000_0001,
        ];
        let mut inputs = nans.map(f64::from_bits).to_vec();
        inputs.extend([0.0, -0.0, f64::MAX, -f64::MAX, 1e-300, 5e-324]);
        for edge in [
            0.0, 127.0, 128.0, 255.0, 256.0, 32_767.0, 32_768.0, 65_535.0, 65_536.0,
        ] {
            for sign in [1.0, -1.0] {
                for step in -8..=8 {
                    let x = sign * (edge + f64::from(step) / 4.0);
                    inputs.extend([x, x.next_up(), x.next_down()]);
                }
            }
        }
        inputs.extend((-256..256).map(|k| f64::from(k) / 8.0));
        for bits in Seeded(17).take(4000) {
            inputs.push(f64::from_bits(bits));
            #[expect(clippy::cast_precision_loss, reason = "any value will do")]
            inputs.push((bits >> 40) as f64 / 64.0 - 70_000.0);
        }
        inputs.retain(|x| x.is_finite() || x.is_nan());
        inputs
    }

    /// The output and flag of the intrinsics (`true`) or of the compiler's loop for `input`.
    fn run<W: Bits>(
        fast: &FloatToInt<f64, W, f64>,
        input: &[f64],
        intrinsics: bool,
    ) -> (Vec<W>, bool) {
        let isa = Isa::available().into_iter().find(|isa| isa.has_vbmi());
        let isa = isa.expect("checked by the caller");
        let mut output = vec![MaybeUninit::<W>::uninit(); input.len()];
        let undecided = if intrinsics {
            fast.convert_on(isa, input, &mut output)
                .expect("the cast has a loop with intrinsics")
        } else {
            fast.convert(input, &mut output)
        };
        // SAFETY: both paths write every element.
        let output = output.iter().map(|y| unsafe { y.assume_init() }).collect();
        (output, undecided)
    }

    /// Clamped: the intrinsics' output and flag for `input` against the compiler's loop's.
    fn compare<W: Bits>(fast: &FloatToInt<f64, W, f64>, input: &[f64]) -> usize {
        let (want, got) = (run(fast, input, false), run(fast, input, true));
        for (i, (w, g)) in want.0.iter().zip(&got.0).enumerate() {
            assert_eq!(w, g, "element {i}: {}", input[i]);
        }
        assert_eq!(want.1, got.1, "undecided");
        input.len()
    }

    /// Unclamped: the elements the compiler's loop decides give its output and no flag; each
    /// other one, in a group of decided ones, is flagged, or (`wrap`) gives its exact encoding.
    /// Returns how many elements were compared and how many of the second kind were decided.
    fn compare_unclamped<W: Bits>(
        fast: &FloatToInt<f64, W, f64>,
        input: &[f64],
        cast: (
            IntFormat,
            crate::numeric::RoundingMode,
            Option<OutOfRangeMode>,
        ),
    ) -> (usize, usize) {
        let (decided, undecided): (Vec<f64>, Vec<f64>) = input
            .iter()
            .partition(|&&x| !fast.convert(&[x], &mut [MaybeUninit::uninit()]));
        let (want, got) = (run(fast, &decided, false), run(fast, &decided, true));
        if let Some(i) = (0..decided.len()).find(|&i| want.0[i] != got.0[i]) {
            let (x, w, g) = (decided[i], want.0[i], got.0[i]);
            panic!("{cast:?}: {x} gives {g:?}, the compiler's loop {w:?}");
        }
        assert!(!got.1, "{cast:?}: undecided");
        let group: Vec<f64> = decided.iter().copied().cycle().take(64).collect();
        let mut exact = 0;
        for (i, &x) in undecided.iter().enumerate() {
            let (mut g, at) = (group.clone(), i % 64);
            g[at] = x;
            let (output, flagged) = run(fast, &g, true);
            if !flagged {
                let (format, rounding, out_of_range) = cast;
                assert_eq!(out_of_range, Some(OutOfRangeMode::Wrap), "{x} not flagged");
                let bits = encode(
                    Value::from_f64(x),
                    Kind::Int(format),
                    rounding,
                    out_of_range,
                );
                let bits = bits.unwrap_or_else(|e| panic!("{x}: {e:?}"));
                assert_eq!(output[at], W::from_bits(bits), "{x} wrapped, {cast:?}");
                exact += 1;
            }
        }
        (decided.len() + undecided.len(), exact)
    }

    #[test]
    fn the_intrinsics_cast_like_the_compilers_loop() {
        if !Isa::available().iter().any(|isa| isa.has_vbmi()) {
            eprintln!("no AVX-512 VBMI on this CPU: nothing to compare");
            return;
        }
        let mut input = inputs();
        let modes = [
            Some(OutOfRangeMode::Clamp),
            Some(OutOfRangeMode::Wrap),
            None,
        ];
        let (mut checked, mut beyond) = (0, 0);
        for to in [
            NumericType::UInt8,
            NumericType::Int8,
            NumericType::UInt16,
            NumericType::Int16,
            NumericType::Int4,
            NumericType::UInt2,
        ] {
            let format = to.int_format().expect("an integer");
            for (rounding, out_of_range) in
                ROUNDINGS.into_iter().flat_map(|r| modes.map(|m| (r, m)))
            {
                // NaN to the lower bound, to another value, and left undecided.
                for nan in [Some(format.min()), Some(1), None] {
                    // The bits of the value, as a map gives them.
                    let nan = nan.map(|v| i64::try_from(v).expect("16 bits").cast_unsigned());
                    macro_rules! check {
                        ($W:ty) => {{
                            let fast = FloatToInt::<f64, $W, f64>::new(
                                format,
                                rounding,
                                out_of_range,
                                nan,
                            );
                            if out_of_range == Some(OutOfRangeMode::Clamp) {
                                checked += compare(&fast, &input);
                            } else {
                                let cast = (format, rounding, out_of_range);
                                let (n, exact) = compare_unclamped(&fast, &input, cast);
                                checked += n;
                                beyond += exact;
                            }
                        }};
                    }
                    if to.size() == 1 {
                        check!(u8);
                    } else {
                        check!(u16);
                    }
                }
            }
        }
        // Clamped, an infinity anywhere leaves the block undecided.
        for at in [0, 63, 64, 100, input.len() - 1] {
            let saved = input[at];
            input[at] = if at % 2 == 0 {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            let format = NumericType::UInt16.int_format().expect("an integer");
            let (rounding, clamp) = (ROUNDINGS[0], Some(OutOfRangeMode::Clamp));
            compare(
                &FloatToInt::<f64, u16, f64>::new(format, rounding, clamp, Some(0)),
                &input,
            );
            input[at] = saved;
        }
        assert!(
            checked > 6 * 5 * 3 * 3 * 8000,
            "{checked} elements compared"
        );
        // `wrap` decides magnitudes from 2^51 to 2^63 that the compiler's loop leaves undecided.
        assert!(beyond > 0, "no element wrapped beyond the compiler's loop");
        eprintln!("{checked} elements compared, {beyond} wrapped beyond the compiler's loop");
    }
}
