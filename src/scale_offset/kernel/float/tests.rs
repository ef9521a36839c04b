//! The float kernels: in-place conversion, the safe magnitude, and the guard of the encode.

use super::*;
use crate::element::scale_offset::element;
use crate::numeric::fault::FaultKind;
use crate::numeric::{Value, pow2};

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|x| x.to_bits()).collect()
}

fn parameters(offset: f64, scale: f64) -> Parameters {
    Parameters {
        offset: Some(Value::from_f64(offset)),
        scale: Some(Value::from_f64(scale)),
    }
}

#[test]
fn in_place_converts_everything_or_up_to_the_first_run_that_needs_the_exact_path() {
    let t = NumericType::Float64;
    for isa in Isa::available() {
        for direction in [Direction::Encode, Direction::Decode] {
            let kernel = FloatKernel::<f64>::new(t, direction, parameters(-10.0, 0.1), isa);
            // 200 elements (three runs and a partial one), none needing the exact path: all of
            // them are converted.
            let small: Vec<f64> = [1.5, f64::NAN, -0.0, -3e200, 1e-200, 7.0]
                .into_iter()
                .cycle()
                .take(200)
                .collect();
            let mut expected = vec![0.0; 200];
            Typed::convert_typed(&kernel, &small, &mut expected).unwrap();
            let mut data = small.clone();
            assert_eq!(
                Typed::convert_in_place(&kernel, &mut data),
                200,
                "{direction} {isa:?}"
            );
            assert_eq!(bits(&data), bits(&expected));

            // A value that might overflow stops the conversion before its run.
            for (position, large) in [(70, f64::MAX), (3, f64::INFINITY), (199, -f64::MAX)] {
                let mut input = small.clone();
                input[position] = large;
                let mut data = input.clone();
                let done = Typed::convert_in_place(&kernel, &mut data);
                assert_eq!(done, position / 64 * 64, "{direction} {isa:?}");
                assert_eq!(bits(&data[..done]), bits(&expected[..done]));
                assert_eq!(bits(&data[done..]), bits(&input[done..]));
            }
        }
    }
}

#[test]
fn the_safe_magnitude_keeps_every_intermediate_and_the_round_trip_finite() {
    let max = f64::MAX;
    for (offset, scale) in [(-10.0, 0.1), (1e300, 1e-300), (0.0, 1e300), (-1e307, 7.0)] {
        for direction in [Direction::Encode, Direction::Decode] {
            let Some(safe) = safe_magnitude(direction, offset, scale, max) else {
                continue;
            };
            for x in [safe, -safe] {
                let result = match direction {
                    Direction::Encode => {
                        let y = (x - offset) * scale;
                        assert!(y.is_finite());
                        y / scale + offset
                    }
                    Direction::Decode => x / scale + offset,
                };
                assert!(result.is_finite(), "{direction} {x} {offset} {scale}");
            }
        }
    }
    assert_eq!(safe_magnitude(Direction::Decode, max, 1.0, max), None);
}

#[test]
fn an_encode_whose_result_overflows_on_decode_is_refused() {
    // The largest float64 encodes, but its decode rounds up past the largest float64.
    let t = NumericType::Float64;
    let (offset, scale) = (8.349_094_068_381_648e299, 0.737_175_692_374_300_4);
    let p = parameters(offset, scale);
    let x = f64::MAX;
    let y = (x - offset) * scale;
    assert!(y.is_finite() && (y / scale + offset).is_infinite());
    let fault = element(t, Direction::Encode, p, x.to_bits()).unwrap_err();
    assert_eq!(fault.kind, FaultKind::OutOfRange);
    assert_eq!(fault.encoded, Some(Value::from_f64(y)));
    for isa in Isa::available() {
        let kernel = FloatKernel::<f64>::new(t, Direction::Encode, p, isa);
        let mut output = [0.0; 3];
        let error = Typed::convert_typed(&kernel, &[1.0, 2.0, x], &mut output).unwrap_err();
        assert_eq!(error.index, 2);
        assert_eq!(error.fault.encoded, Some(Value::from_f64(y)));
    }
}

#[test]
fn a_decode_that_overflows_is_refused_and_the_largest_that_does_not_is_exact() {
    // float32 and float64 decodes whose quotient or sum overflows, next to elements just below,
    // in blocks long enough for the vector loops.
    fn check<F: HwFloat>(t: NumericType, largest: F) {
        let p = parameters(-10.0, 0.1);
        for isa in Isa::available() {
            let kernel = FloatKernel::<F>::new(t, Direction::Decode, p, isa);
            // `largest / 0.1` overflows; a tenth of it does not (nor does its sum).
            let tenth = largest / F::from_f64(10.5);
            let mut input = vec![F::one(); 100];
            input[40] = tenth;
            input[41] = -tenth;
            input[42] = F::infinity();
            let mut output = vec![F::zero(); 100];
            Typed::convert_typed(&kernel, &input, &mut output).unwrap();
            for (i, (x, y)) in input.iter().zip(&output).enumerate() {
                let want = element(t, Direction::Decode, p, x.to_bits()).unwrap();
                assert_eq!(y.to_bits(), want, "{t} {isa:?} element {i}");
            }
            for (position, x) in [(70, largest), (3, -largest)] {
                let mut input = input.clone();
                input[position] = x;
                let error = Typed::convert_typed(&kernel, &input, &mut output).unwrap_err();
                assert_eq!(error.index, position, "{t} {isa:?}");
                assert_eq!(error.fault.kind, FaultKind::OutOfRange);
            }
        }
    }
    check(NumericType::Float32, f32::MAX);
    check(NumericType::Float64, f64::MAX);
}

#[test]
fn a_decode_may_overflow_exactly_where_the_exact_decode_of_the_largest_does() {
    // `may_overflow` (which lets the fused decode skip its check of the results) against the
    // exact decode of ±largest (whose results are the extreme ones), for scales and offsets on
    // both sides of the edge where the sum rounds to infinity; and the kernel's results for the
    // extremes, the infinities and NaN against the exact element function, into new memory and
    // in place (where the run holding them is left to the exact path).
    fn check<F: HwFloat>(t: NumericType, half_ulp_of_largest: f64) -> [usize; 2] {
        let (largest, n) = (F::max_value(), [1.0f64.next_up(), 1.0f64.next_down()]);
        let scales = [1.0, -1.0, n[0], n[1], 0.5, 2.0, 1e4, -1e4, 0.1, 1e-30];
        let h = half_ulp_of_largest;
        let offsets = [0.0, -0.1, 1.0, h, -h, h.next_down(), 1e30];
        let mut seen = [0; 2];
        for (scale, offset) in scales.into_iter().flat_map(|s| offsets.map(|o| (s, o))) {
            let p = parameters(offset, F::from_f64(scale).to_f64());
            let exact = |x: F| element(t, Direction::Decode, p, x.to_bits());
            let overflows = exact(largest).is_err() || exact(-largest).is_err();
            let division = Division::new(F::from_f64(scale));
            let may = division.may_overflow(largest, F::from_f64(offset));
            assert_eq!(may, overflows, "{scale} {offset}");
            seen[usize::from(overflows)] += 1;
            let mut input = vec![F::one(); 64];
            let inf = F::infinity();
            let extremes = [largest, -largest, inf, -inf, F::nan()];
            input[..5].copy_from_slice(&extremes);
            for isa in Isa::available() {
                let case = format!("{t} {isa:?} scale {scale} offset {offset}");
                let kernel = FloatKernel::<F>::new(t, Direction::Decode, p, isa);
                let mut output = vec![F::zero(); 64];
                match Typed::convert_typed(&kernel, &input, &mut output) {
                    Err(_) => assert!(overflows, "{case}"),
                    Ok(()) => {
                        for (&x, y) in input.iter().zip(&output) {
                            assert_eq!(y.to_bits(), exact(x).unwrap(), "{case} element {x:?}");
                        }
                    }
                }
                assert_eq!(kernel.convert_in_place(&mut input.clone()), 0, "{case}");
            }
        }
        seen
    }
    // Half the gap between the largest finite value and the next power of two.
    let [unchecked, checked] = check::<f32>(NumericType::Float32, pow2(103));
    assert!(unchecked >= 20 && checked >= 20, "{unchecked} {checked}");
    let [unchecked, checked] = check::<f64>(NumericType::Float64, pow2(970));
    assert!(unchecked >= 4 && checked >= 4, "{unchecked} {checked}");
}
