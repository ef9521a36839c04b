use std::mem::MaybeUninit;

use num_traits::AsPrimitive;

use crate::cast_value::kernel::FastPath;
use crate::cast_value::kernel::float_to_int::FloatToInt;
use crate::engine::Slots;
use crate::engine::simd::Isa;
use crate::engine::testing::ROUNDINGS;
use crate::numeric::pow2;
use crate::numeric::{
    Bits, FloatInput, HwFloat, IntFormat, Kind, NumericType, OutOfRangeMode, RoundingMode, Value,
    encode,
};
use zarrs_scale_offset_cast_reference::Seeded;

/// Elements where the casts change behaviour, around the bounds of every 8- and 16-bit target
/// and of the 32- and 64-bit integers, and at every half-integer step, then small values by
/// eighths; no infinity (which would leave a group undecided).
fn edges() -> Vec<f64> {
    // Quiet and signalling NaNs of both signs.
    let nans = [
        0x7FF8_0000_0000_0000,
        0xFFF8_0000_0000_0001,
        0x7FF0_0000_0000_0001,
    ];
    let mut inputs = nans.map(f64::from_bits).to_vec();
    inputs.extend([0.0, -0.0, f64::MAX, -f64::MAX, 1e-300, 5e-324]);
    // The bounds of the conversions' integers (whose low doublewords the clamps without a lower
    // `max` narrow), and their neighbours.
    for exponent in [31, 32, 63, 64] {
        let edge = pow2(exponent);
        for x in [edge, -edge] {
            inputs.extend([x, x.next_up(), x.next_down()]);
        }
    }
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
    inputs
}

/// [`edges`], then seeded random values and encodings.
fn inputs() -> Vec<f64> {
    let mut inputs = edges();
    for bits in Seeded(17).take(4000) {
        inputs.push(f64::from_bits(bits));
        #[expect(clippy::cast_precision_loss, reason = "any value will do")]
        inputs.push((bits >> 40) as f64 / 64.0 - 70_000.0);
    }
    inputs.retain(|x| x.is_finite() || x.is_nan());
    inputs
}

/// The test inputs in float32 that are finite or NaN: each float64 input rounded to float32, and
/// the float32 neighbours of the edges.
fn inputs32() -> Vec<f32> {
    #[expect(clippy::cast_possible_truncation, reason = "rounding to float32")]
    let mut inputs: Vec<f32> = edges()
        .into_iter()
        .flat_map(|x| [x as f32, (x as f32).next_up(), (x as f32).next_down()])
        .chain(inputs().into_iter().map(|x| x as f32))
        .collect();
    inputs.retain(|x| x.is_finite() || x.is_nan());
    inputs
}

/// The output and flag of the intrinsics (`true`) or of the compiler's loop for `input`.
fn run<F, W: Bits>(fast: &FloatToInt<F, W, F>, input: &[F], intrinsics: bool) -> (Vec<W>, bool)
where
    F: FloatInput + HwFloat + AsPrimitive<F> + Into<f64> + std::fmt::Display,
{
    let isa = Isa::available().into_iter().find(|isa| isa.is_avx512());
    let isa = isa.expect("checked by the test");
    let mut output = vec![MaybeUninit::<W>::uninit(); input.len()];
    let slots = Slots::new(&mut output);
    let (written, undecided) = if intrinsics {
        let fast = fast.clone().on(isa);
        assert!(fast.intrinsics, "the cast has a loop with intrinsics");
        fast.convert(input, slots)
    } else {
        fast.convert_loop(input, slots)
    };
    (written.into_elements().to_vec(), undecided)
}

/// Clamped: the intrinsics' output and flag for `input` against the compiler's loop's.
fn compare<F, W: Bits>(fast: &FloatToInt<F, W, F>, input: &[F]) -> usize
where
    F: FloatInput + HwFloat + AsPrimitive<F> + Into<f64> + std::fmt::Display,
{
    let (want, got) = (run(fast, input, false), run(fast, input, true));
    for (i, (w, g)) in want.0.iter().zip(&got.0).enumerate() {
        assert_eq!(w, g, "element {i}: {}", input[i]);
    }
    assert_eq!(want.1, got.1, "undecided");
    input.len()
}

/// The cast a fast path was made for.
type Cast = (IntFormat, RoundingMode, Option<OutOfRangeMode>);

/// Unclamped: the elements the compiler's loop decides give its output and no flag; each
/// other one, in a group of decided ones, is flagged, or (`wrap`) gives its exact encoding.
/// Returns how many elements were compared and how many of the second kind were decided.
fn compare_unclamped<F, W: Bits>(
    fast: &FloatToInt<F, W, F>,
    input: &[F],
    cast: Cast,
) -> (usize, usize)
where
    F: FloatInput + HwFloat + AsPrimitive<F> + Into<f64> + std::fmt::Display,
{
    let (decided, undecided): (Vec<F>, Vec<F>) = input.iter().partition(|&&x| {
        !fast
            .convert(&[x], Slots::new(&mut [MaybeUninit::uninit()]))
            .1
    });
    let (want, got) = (run(fast, &decided, false), run(fast, &decided, true));
    if let Some(i) = (0..decided.len()).find(|&i| want.0[i] != got.0[i]) {
        let (x, w, g) = (decided[i], want.0[i], got.0[i]);
        panic!("{cast:?}: {x} gives {g:?}, the compiler's loop {w:?}");
    }
    assert!(!got.1, "{cast:?}: undecided");
    let group: Vec<F> = decided.iter().copied().cycle().take(64).collect();
    let mut exact = 0;
    for (i, &x) in undecided.iter().enumerate() {
        let (mut g, at) = (group.clone(), i % 64);
        g[at] = x;
        let (output, flagged) = run(fast, &g, true);
        if !flagged {
            let (format, rounding, out_of_range) = cast;
            assert_eq!(out_of_range, Some(OutOfRangeMode::Wrap), "{x} not flagged");
            let value = Value::from_f64(x.into());
            let bits = encode(value, Kind::Int(format), rounding, out_of_range);
            let bits = bits.unwrap_or_else(|e| panic!("{x}: {e:?}"));
            assert_eq!(output[at], W::from_bits(bits), "{x} wrapped, {cast:?}");
            exact += 1;
        }
    }
    (decided.len() + undecided.len(), exact)
}

/// Every 8- and 16-bit target, rounding, out-of-range mode and NaN replacement from `F`;
/// returns how many elements were compared and how many `wrap` decided beyond the compiler's
/// loop.
fn compare_every_cast<F>(input: Vec<F>) -> (usize, usize)
where
    F: FloatInput + HwFloat + AsPrimitive<F> + Into<f64> + std::fmt::Display,
{
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
        for (rounding, out_of_range) in ROUNDINGS.into_iter().flat_map(|r| modes.map(|m| (r, m))) {
            // NaN to the lower bound, to another value, and left undecided.
            for nan in [Some(format.min()), Some(1), None] {
                // The bits of the value, as a map gives them.
                let nan = nan.map(|v| i64::try_from(v).expect("16 bits").cast_unsigned());
                macro_rules! check {
                    ($W:ty) => {{
                        let fast = FloatToInt::<F, $W, F>::new(format, rounding, out_of_range, nan);
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
    let mut input = input;
    for at in [0, 63, 64, 100, input.len() - 1] {
        let saved = input[at];
        input[at] = if at % 2 == 0 {
            F::infinity()
        } else {
            F::neg_infinity()
        };
        let format = NumericType::UInt16.int_format().expect("an integer");
        let (rounding, clamp) = (ROUNDINGS[0], Some(OutOfRangeMode::Clamp));
        compare(
            &FloatToInt::<F, u16, F>::new(format, rounding, clamp, Some(0)),
            &input,
        );
        input[at] = saved;
    }
    (checked, beyond)
}

#[test]
#[cfg_attr(
    not(avx512_host),
    ignore = "the CPU that built the tests has no AVX-512: run with --ignored on one that has"
)]
#[cfg_attr(miri, ignore = "Miri runs no AVX-512 intrinsics")]
fn the_intrinsics_cast_like_the_compilers_loop() {
    assert!(
        Isa::available().iter().any(|isa| isa.is_avx512()),
        "this CPU has no AVX-512 (F, VL, DQ, BW): the intrinsics cannot run here"
    );
    let (checked, beyond) = compare_every_cast(inputs());
    assert!(
        checked > 6 * 5 * 3 * 3 * 8000,
        "{checked} float64 elements compared"
    );
    // `wrap` decides magnitudes from 2^51 to 2^63 that the compiler's loop leaves undecided.
    assert!(beyond > 0, "no element wrapped beyond the compiler's loop");
    eprintln!("{checked} float64 elements compared, {beyond} wrapped beyond the compiler's loop");
    let (checked, _) = compare_every_cast(inputs32());
    assert!(
        checked > 6 * 5 * 3 * 3 * 7000,
        "{checked} float32 elements compared"
    );
    eprintln!("{checked} float32 elements compared");
}
