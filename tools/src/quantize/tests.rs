//! The planner's guarantee, checked through the codecs themselves: exhaustively for every value
//! of float16 and bfloat16 in planned ranges, on runs of consecutive float32 values, and on random
//! float64 ranges.
#![expect(
    clippy::float_cmp,
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    clippy::cast_possible_wrap,
    reason = "exact comparisons and conversions of small test values"
)]

use std::num::NonZeroU64;

use half::{bf16, f16};
use zarrs::array::{ArrayBytes, CodecOptions, DataType, FillValue, data_type};

use super::{DataRange, Plan, PlanError, Precision, plan};

/// A small deterministic generator (`SplitMix64`).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn to_bytes(data_type: &DataType, values: &[f64]) -> Vec<u8> {
    let name = data_type.name_v3().unwrap().to_string();
    values
        .iter()
        .flat_map(|&x| match name.as_str() {
            "float64" => x.to_ne_bytes().to_vec(),
            "float32" => (x as f32).to_ne_bytes().to_vec(),
            "float16" => f16::from_f64(x).to_ne_bytes().to_vec(),
            "bfloat16" => bf16::from_f64(x).to_ne_bytes().to_vec(),
            _ => unreachable!(),
        })
        .collect()
}

/// Encodes and decodes `values` (values of the plan's data type) through the plan's codecs.
fn round_trip(plan: &Plan, values: &[f64]) -> Vec<f64> {
    let codecs = plan.codecs().unwrap();
    let shape = [NonZeroU64::new(values.len() as u64).unwrap()];
    let options = CodecOptions::default();
    let mut types = vec![plan.data_type.clone()];
    // The offset always comes back unchanged: it is stored as 0.
    let mut fills = vec![FillValue::new(to_bytes(&plan.data_type, &[plan.offset]))];
    for codec in &codecs {
        let (t, f) = (types.last().unwrap().clone(), fills.last().unwrap().clone());
        types.push(codec.encoded_data_type(&t).unwrap());
        fills.push(codec.encoded_fill_value(&t, &f).unwrap());
    }
    let mut bytes = ArrayBytes::new_flen(to_bytes(&plan.data_type, values));
    for (i, codec) in codecs.iter().enumerate() {
        bytes = codec
            .encode(bytes, &shape, &types[i], &fills[i], &options)
            .unwrap_or_else(|e| panic!("{plan:?}: {e}"))
            .into_owned();
    }
    for (i, codec) in codecs.iter().enumerate().rev() {
        bytes = codec
            .decode(bytes, &shape, &types[i], &fills[i], &options)
            .unwrap()
            .into_owned();
    }
    super::to_f64(&plan.data_type, &bytes).unwrap()
}

/// Checks the guarantee for `values` (values of the plan's data type within its range).
fn check(plan: &Plan, requested: f64, values: &[f64]) -> usize {
    assert!(plan.max_error <= requested, "{plan:?} over {requested}");
    let decoded = round_trip(plan, values);
    for (&x, &z) in values.iter().zip(&decoded) {
        if x.is_nan() {
            assert!(z.is_nan(), "{plan:?}: NaN read as {z}");
        } else if x.is_infinite() {
            assert_eq!(x, z, "{plan:?}");
        } else {
            assert!(
                (z - x).abs() <= plan.max_error,
                "{plan:?}: {x} read as {z}, error {} over {}",
                (z - x).abs(),
                plan.max_error
            );
        }
    }
    values.len()
}

/// Every finite value of a 16-bit float format within `[min, max]`, and NaN and the infinities.
fn every_16_bit(decode: impl Fn(u16) -> f64, min: f64, max: f64) -> Vec<f64> {
    let mut values: Vec<f64> = (0..=u16::MAX)
        .map(decode)
        .filter(|x| (min..=max).contains(x))
        .collect();
    values.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
    values
}

fn special() -> DataRange {
    DataRange {
        nan: true,
        positive_infinity: true,
        negative_infinity: true,
        ..DataRange::default()
    }
}

#[test]
fn every_16_bit_value_in_range_decodes_within_the_bound() {
    let mut rng = Rng(0x5eed);
    let mut checked = 0;
    for (data_type, decode) in [
        (
            data_type::float16(),
            (|b| f64::from(f16::from_bits(b))) as fn(u16) -> f64,
        ),
        (data_type::bfloat16(), |b| f64::from(bf16::from_bits(b))),
    ] {
        for case in 0..24 {
            let scale_of_range = 10f64.powi((rng.next() % 9) as i32 - 4);
            let a = (rng.unit() - 0.5) * 2.0 * scale_of_range;
            let b = a + rng.unit() * scale_of_range;
            let range = special().union(DataRange::new(a, b));
            let requested = (b - a).max(scale_of_range) * 10f64.powf(-rng.unit() * 3.0 - 0.3);
            let fill = match case % 3 {
                0 => None,
                1 => Some(f64::NAN),
                _ => Some(a),
            };
            match plan(&data_type, &range, Precision::MaxError(requested), fill) {
                Ok(plan) => {
                    let values = every_16_bit(decode, plan.range.0, plan.range.1);
                    checked += check(&plan, requested, &values);
                }
                Err(PlanError::BelowPrecision { .. } | PlanError::TooManyCodes(..)) => {}
                Err(error) => panic!("{error}"),
            }
        }
    }
    println!("checked {checked} values");
    assert!(checked > 100_000, "only {checked} values checked");
}

#[test]
fn runs_of_float32_values_decode_within_the_bound() {
    let mut rng = Rng(0xf32);
    let mut checked = 0;
    for _ in 0..16 {
        let start = (rng.unit() - 0.5) * 10f64.powi((rng.next() % 13) as i32 - 6);
        let start = f64::from(start as f32);
        // 2^16 consecutive float32 values from `start`, and their range.
        let mut x = start as f32;
        let values: Vec<f64> = (0..1 << 16)
            .map(|_| {
                let v = f64::from(x);
                x = x.next_up();
                v
            })
            .collect();
        let (min, max) = (values[0], *values.last().unwrap());
        let width = (max - min).max(f64::MIN_POSITIVE);
        let requested = width * 10f64.powf(-rng.unit() * 4.0 - 1.0);
        let range = DataRange::new(min, max);
        if let Ok(plan) = plan(
            &data_type::float32(),
            &range,
            Precision::MaxError(requested),
            None,
        ) {
            checked += check(&plan, requested, &values);
        }
    }
    println!("checked {checked} values");
    assert!(checked >= 8 << 16, "only {checked} values checked");
}

#[test]
fn random_float64_values_decode_within_the_bound() {
    let seed = std::env::var("QUANTIZE_SEED").map_or(0x64, |s| s.parse().unwrap());
    let mut rng = Rng(seed);
    let mut checked = 0;
    for _ in 0..200 {
        let magnitude = 10f64.powi((rng.next() % 40) as i32 - 20);
        let a = (rng.unit() - 0.5) * 2.0 * magnitude;
        let b = a + rng.unit() * magnitude;
        let digits = (rng.next() % 12) as u32 + 1;
        let fill = if rng.next().is_multiple_of(2) {
            Some(f64::NAN)
        } else {
            None
        };
        let range = DataRange::new(a, b);
        let Ok(plan) = plan(
            &data_type::float64(),
            &range,
            Precision::SignificantDigits(digits),
            fill,
        ) else {
            continue;
        };
        let (lo, hi) = plan.range;
        let mut values = vec![lo, hi, lo.next_up(), hi.next_down()];
        values.extend(plan.nan.map(|_| f64::NAN));
        values.extend(
            (0..500)
                .map(|_| lo + (hi - lo) * rng.unit())
                .map(|x| x.clamp(lo, hi)),
        );
        let requested = match Precision::SignificantDigits(digits) {
            Precision::SignificantDigits(d) => {
                0.5 * 10f64.powi(lo.abs().max(hi.abs()).log10().floor() as i32 - d as i32 + 1)
            }
            Precision::MaxError(e) => e,
        };
        checked += check(&plan, requested, &values);
    }
    println!("checked {checked} values");
    assert!(checked > 50_000, "only {checked} values checked");
}

#[test]
fn the_plan_is_the_smallest_type_with_reserved_codes_at_its_top() {
    let mut range = DataRange::new(0.0, 1.2);
    range.nan = true;
    let p = plan(
        &data_type::float64(),
        &range,
        Precision::MaxError(1e-4),
        None,
    )
    .unwrap();
    assert_eq!(p.storage, data_type::uint16());
    assert_eq!((p.offset, p.scale, p.codes), (0.0, 10_000.0, (0, 12_000)));
    assert_eq!((p.nan, p.positive_infinity), (Some(65_535), None));
    // 255 codes and NaN fit in uint8; 256 and NaN do not.
    let p = plan(
        &data_type::float64(),
        &DataRange::new(0.0, 25.4),
        Precision::MaxError(0.051),
        Some(f64::NAN),
    )
    .unwrap();
    assert_eq!(
        (p.storage.clone(), p.codes, p.nan),
        (data_type::uint8(), (0, 254), Some(255))
    );
    let p = plan(
        &data_type::float64(),
        &DataRange::new(0.0, 25.5),
        Precision::MaxError(0.051),
        Some(f64::NAN),
    )
    .unwrap();
    assert_eq!(p.storage, data_type::uint16());
    // A finite fill value is the offset, and comes back bit for bit.
    let p = plan(
        &data_type::float64(),
        &DataRange::new(-3.0, 40.0),
        Precision::MaxError(0.01),
        Some(0.1),
    )
    .unwrap();
    assert_eq!(p.offset, 0.1);
    assert_eq!(p.storage, data_type::int16());
    assert_eq!(round_trip(&p, &[0.1])[0].to_bits(), 0.1f64.to_bits());
    // Three significant digits of 273.15 allow an error of 0.5, which needs steps of 0.5 (with
    // steps of 1 the rounding of float32 would add to the 0.5 of the steps).
    let p = plan(
        &data_type::float32(),
        &DataRange::new(250.0, 273.15),
        Precision::SignificantDigits(3),
        None,
    )
    .unwrap();
    assert!(
        p.max_error <= 0.5 && p.scale == 2.0 && p.offset == 250.0,
        "{p:?}"
    );
}

#[test]
fn impossible_requests_are_errors() {
    let range = DataRange::new(1.0, 2.0);
    let f64_type = data_type::float64();
    assert!(matches!(
        plan(&data_type::int32(), &range, Precision::MaxError(0.1), None),
        Err(PlanError::UnsupportedDataType(_))
    ));
    for bad in [
        Precision::MaxError(0.0),
        Precision::MaxError(f64::NAN),
        Precision::SignificantDigits(0),
    ] {
        assert!(matches!(
            plan(&f64_type, &range, bad, None),
            Err(PlanError::InvalidPrecision(_))
        ));
    }
    assert!(matches!(
        plan(&f64_type, &range, Precision::MaxError(1e-17), None),
        Err(PlanError::BelowPrecision { .. })
    ));
    assert!(matches!(
        plan(
            &data_type::float16(),
            &DataRange::new(0.0, 1000.0),
            Precision::MaxError(0.01),
            None
        ),
        Err(PlanError::BelowPrecision { .. } | PlanError::TooManyCodes(..))
    ));
    assert!(matches!(
        plan(&f64_type, &range, Precision::MaxError(0.1), Some(-0.0)),
        Err(PlanError::FillValue(_))
    ));
}
