//! The clamped float64 → 8- and 16-bit casts on AVX-512 with VBMI, written with intrinsics: the
//! compiler's loop ([`FloatToInt`](super::FloatToInt)) narrows each register of eight 64-bit
//! integers by a narrowing move of two operations on the shuffle port, and rounds by the directed
//! modes with a rounding instruction of two more. Here the conversion rounds by its own embedded
//! rounding mode (one operation for every mode; `nearest-away` adds `copysign(1/2 - 2^-53, c)`
//! and truncates, as the compiler's loop does), and eight registers are narrowed at once by two-
//! register byte permutes (seven for 64 bytes, six for 64 words). The results are those of the
//! compiler's loop, which takes the elements after the last whole group of 64.

use std::arch::x86_64::{
    __m512d, __m512i, _CMP_UNORD_Q, _MM_FROUND_NO_EXC, _MM_FROUND_TO_NEAREST_INT,
    _MM_FROUND_TO_NEG_INF, _MM_FROUND_TO_POS_INF, _MM_FROUND_TO_ZERO, _mm512_add_pd, _mm512_and_pd,
    _mm512_castsi512_si256, _mm512_cmp_pd_mask, _mm512_cvt_roundpd_epi64, _mm512_fpclass_pd_mask,
    _mm512_inserti64x4, _mm512_loadu_pd, _mm512_loadu_si512, _mm512_mask_mov_pd, _mm512_max_pd,
    _mm512_min_pd, _mm512_or_pd, _mm512_permutex2var_epi8, _mm512_permutex2var_epi64,
    _mm512_set_epi64, _mm512_set1_pd, _mm512_setzero_si512, _mm512_storeu_si512,
};

use crate::numeric::RoundingMode;

/// The constants of a clamped loop.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clamp {
    /// The target's bounds.
    pub(super) lo: f64,
    pub(super) hi: f64,
    /// What NaN is replaced by (+Infinity where it is undecided).
    pub(super) nan: f64,
    /// Whether that is `lo`, which the clamp then gives NaN by itself.
    pub(super) nan_low: bool,
    /// The target's bytes per element: 1 or 2.
    pub(super) width: usize,
}

/// How `nearest-away` adds `copysign(1/2 - 2^-53, c)` before truncating: not at all (the other
/// modes), as `1/2 - 2^-53` (a target without negative values), or with the sign of `c`.
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

/// Converts the whole groups of 64 elements of `input`, writing `width` bytes per element from
/// `output` on; returns how many elements it converted and whether one of them is undecided.
///
/// # Safety
/// The CPU must support AVX-512 F, BW, DQ and VBMI; `output` must be valid for writes of
/// `input.len() × clamp.width` bytes; `lo ≤ hi` are integers within the range of `i64`.
pub(super) unsafe fn convert(
    clamp: Clamp,
    rounding: RoundingMode,
    input: &[f64],
    output: *mut u8,
) -> (usize, bool) {
    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const ZERO: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
    const UP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
    const DOWN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        match rounding {
            RoundingMode::NearestEven => by_kind::<NEAREST, NONE>(clamp, input, output),
            RoundingMode::NearestAway if clamp.lo >= 0.0 => {
                by_kind::<ZERO, UNSIGNED>(clamp, input, output)
            }
            RoundingMode::NearestAway => by_kind::<ZERO, SIGNED>(clamp, input, output),
            RoundingMode::TowardsZero => by_kind::<ZERO, NONE>(clamp, input, output),
            RoundingMode::TowardsPositive => by_kind::<UP, NONE>(clamp, input, output),
            RoundingMode::TowardsNegative => by_kind::<DOWN, NONE>(clamp, input, output),
        }
    }
}

/// [`convert`] for one rounding: the loop of the clamp's width and NaN replacement.
///
/// # Safety
/// As for [`convert`].
unsafe fn by_kind<const ROUND: i32, const AWAY: u8>(
    clamp: Clamp,
    input: &[f64],
    output: *mut u8,
) -> (usize, bool) {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        match (clamp.width, clamp.nan_low) {
            (1, true) => groups::<ROUND, AWAY, 1, true>(clamp, input, output),
            (1, false) => groups::<ROUND, AWAY, 1, false>(clamp, input, output),
            (_, true) => groups::<ROUND, AWAY, 2, true>(clamp, input, output),
            (_, false) => groups::<ROUND, AWAY, 2, false>(clamp, input, output),
        }
    }
}

/// The loop over whole groups.
///
/// # Safety
/// As for [`convert`], with `WIDTH` the clamp's width.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vbmi")]
unsafe fn groups<const ROUND: i32, const AWAY: u8, const WIDTH: usize, const NAN_LOW: bool>(
    clamp: Clamp,
    input: &[f64],
    output: *mut u8,
) -> (usize, bool) {
    let (lo, hi, nan) = (
        _mm512_set1_pd(clamp.lo),
        _mm512_set1_pd(clamp.hi),
        _mm512_set1_pd(clamp.nan),
    );
    let (sign, half) = (_mm512_set1_pd(-0.0), _mm512_set1_pd(0.5f64.next_down()));
    let table = if WIDTH == 1 {
        &GATHER_BYTES
    } else {
        &GATHER_WORDS
    };
    // SAFETY: the table holds 64 bytes (an unaligned load).
    let gather = unsafe { _mm512_loadu_si512(table.as_ptr().cast()) };
    // The low 16 bytes of two registers, then of two more.
    let halves = _mm512_set_epi64(0, 0, 0, 0, 9, 8, 1, 0);
    let mut infinite = 0u8;
    let mut done = 0;
    while done + GROUP <= input.len() {
        let mut lanes = [_mm512_setzero_si512(); 8];
        for (k, lane) in lanes.iter_mut().enumerate() {
            // SAFETY: the group lies within `input` (an unaligned load of eight elements).
            let w: __m512d = unsafe { _mm512_loadu_pd(input.as_ptr().add(done + 8 * k)) };
            let w = if NAN_LOW {
                w
            } else {
                _mm512_mask_mov_pd(w, _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(w, w), nan)
            };
            // +Infinity and -Infinity: no integer holds them.
            infinite |= _mm512_fpclass_pd_mask::<0x18>(w);
            // `max` gives its second operand for a NaN `w`: `lo`, NaN's replacement.
            let c = _mm512_min_pd(_mm512_max_pd(w, lo), hi);
            let c = match AWAY {
                UNSIGNED => _mm512_add_pd(c, half),
                SIGNED => _mm512_add_pd(c, _mm512_or_pd(_mm512_and_pd(c, sign), half)),
                _ => c,
            };
            *lane = _mm512_cvt_roundpd_epi64::<ROUND>(c);
        }
        let pair = |a: __m512i, b: __m512i| _mm512_permutex2var_epi8(a, gather, b);
        let (p0, p1) = (pair(lanes[0], lanes[1]), pair(lanes[2], lanes[3]));
        let (p2, p3) = (pair(lanes[4], lanes[5]), pair(lanes[6], lanes[7]));
        // SAFETY: the group's output bytes lie within `output` (unaligned stores).
        unsafe {
            let at = output.add(done * WIDTH);
            if WIDTH == 1 {
                let q0 = _mm512_permutex2var_epi64(p0, halves, p1);
                let q1 = _mm512_permutex2var_epi64(p2, halves, p3);
                let bytes = _mm512_inserti64x4::<1>(q0, _mm512_castsi512_si256(q1));
                _mm512_storeu_si512(at.cast(), bytes);
            } else {
                let low = _mm512_inserti64x4::<1>(p0, _mm512_castsi512_si256(p1));
                let high = _mm512_inserti64x4::<1>(p2, _mm512_castsi512_si256(p3));
                _mm512_storeu_si512(at.cast(), low);
                _mm512_storeu_si512(at.add(64).cast(), high);
            }
        }
        done += GROUP;
    }
    (done, infinite != 0)
}

#[cfg(test)]
mod tests {
    use std::mem::MaybeUninit;

    use super::super::FloatToInt;
    use crate::cast_value::kernel::FastPath;
    use crate::cast_value::reference_tests::ROUNDINGS;
    use crate::kernel::simd::Isa;
    use crate::numeric::{Bits, NumericType, OutOfRangeMode, RoundingMode};
    use crate::reference::Seeded;

    /// Elements where the casts change behaviour, around the bounds of every 8- and 16-bit
    /// target and at every half-integer step, then seeded random values and encodings; no
    /// infinity (which would leave a group undecided).
    fn inputs() -> Vec<f64> {
        let mut inputs = vec![f64::NAN, -f64::NAN, 0.0, -0.0, f64::MAX, -f64::MAX, 1e-300];
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
        for bits in Seeded(17).take(4000) {
            inputs.push(f64::from_bits(bits));
            #[expect(clippy::cast_precision_loss, reason = "any value will do")]
            inputs.push((bits >> 40) as f64 / 64.0 - 70_000.0);
        }
        inputs.retain(|x| x.is_finite() || x.is_nan());
        inputs
    }

    /// The intrinsics' output and flag for `input` against the compiler's loop's.
    fn compare<W: Bits>(fast: &FloatToInt<f64, W, f64>, input: &[f64]) -> usize {
        let isa = Isa::available().into_iter().find(|isa| isa.has_vbmi());
        let isa = isa.expect("checked by the caller");
        let run = |intrinsics: bool| {
            let mut output = vec![MaybeUninit::<W>::uninit(); input.len()];
            let undecided = if intrinsics {
                fast.convert_on(isa, input, &mut output)
                    .expect("the clamp has a loop with intrinsics")
            } else {
                fast.convert(input, &mut output)
            };
            // SAFETY: both paths write every element.
            let output: Vec<W> = output.iter().map(|y| unsafe { y.assume_init() }).collect();
            (output, undecided)
        };
        let (want, got) = (run(false), run(true));
        for (i, (w, g)) in want.0.iter().zip(&got.0).enumerate() {
            assert_eq!(w, g, "element {i}: {}", input[i]);
        }
        assert_eq!(want.1, got.1, "undecided");
        input.len()
    }

    #[test]
    fn the_intrinsics_cast_like_the_compilers_loop() {
        if !Isa::available().iter().any(|isa| isa.has_vbmi()) {
            eprintln!("no AVX-512 VBMI on this CPU: nothing to compare");
            return;
        }
        let mut input = inputs();
        let clamp = Some(OutOfRangeMode::Clamp);
        let mut checked = 0;
        for to in [
            NumericType::UInt8,
            NumericType::Int8,
            NumericType::UInt16,
            NumericType::Int16,
            NumericType::Int4,
            NumericType::UInt2,
        ] {
            let format = to.int_format().expect("an integer");
            for rounding in ROUNDINGS {
                // NaN to the lower bound, to another value, and left undecided.
                for nan in [Some(format.min()), Some(1), None] {
                    // The bits of the value, as a map gives them.
                    let nan = nan.map(|v| i64::try_from(v).expect("16 bits").cast_unsigned());
                    if to.size() == 1 {
                        let fast = FloatToInt::<f64, u8, f64>::new(format, rounding, clamp, nan);
                        checked += compare(&fast, &input);
                    } else {
                        let fast = FloatToInt::<f64, u16, f64>::new(format, rounding, clamp, nan);
                        checked += compare(&fast, &input);
                    }
                }
            }
        }
        // An infinity anywhere leaves the block undecided.
        for at in [0, 63, 64, 100, input.len() - 1] {
            let saved = input[at];
            input[at] = if at % 2 == 0 {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            let format = NumericType::UInt16.int_format().expect("an integer");
            let fast =
                FloatToInt::<f64, u16, f64>::new(format, RoundingMode::NearestEven, clamp, Some(0));
            compare(&fast, &input);
            input[at] = saved;
        }
        assert!(checked > 6 * 5 * 3 * 8000, "{checked} elements compared");
        eprintln!("{checked} elements compared");
    }
}
