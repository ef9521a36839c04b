//! The `scale_offset` kernels against the independent model (the `reference` crate): every 8-bit
//! input, and sampled wider inputs, for several offsets and scales, on every instruction set. The
//! exhaustive 16-bit and the large sampled checks are `#[ignore]`d: `cargo test --release --lib --
//! --ignored` runs them.

use super::kernel::scale_offset_kernel;
use crate::Direction;
use crate::element::scale_offset::Parameters;
use crate::engine::simd::Isa;
use crate::engine::testing::apply_each;
use crate::engine::testing::model_fault;
use crate::numeric::{NumericType, decode as value_of, parse_scalar};
use zarrs_scale_offset_cast_reference::scale_offset::ScaleOffsetModel;
use zarrs_scale_offset_cast_reference::{Seeded, decode, element_bytes};

/// Runs both directions over `inputs` and panics on the first difference with the model.
fn check(t: NumericType, offset: Option<&str>, scale: Option<&str>, inputs: &[u64]) -> usize {
    let read = |json: Option<&str>| {
        json.map(|json| parse_scalar(t, &serde_json::from_str(json).unwrap(), false).unwrap())
    };
    let (offset_bits, scale_bits) = (read(offset), read(scale));
    let parameters = Parameters {
        offset: offset_bits.map(|b| value_of(t.kind(), b)),
        scale: scale_bits.map(|b| value_of(t.kind(), b)),
    };
    let model = ScaleOffsetModel::new(
        t.name(),
        offset_bits.map(|b| decode(t.name(), b)),
        scale_bits.map(|b| decode(t.name(), b)),
    );
    let bytes = element_bytes(inputs, t.size());
    for direction in [Direction::Encode, Direction::Decode] {
        let expected: Vec<_> = inputs
            .iter()
            .map(|&bits| {
                let x = decode(t.name(), bits);
                match direction {
                    Direction::Encode => model.encode(x),
                    Direction::Decode => model.decode(x),
                }
            })
            .collect();
        for isa in Isa::available() {
            let kernel = scale_offset_kernel(t, direction, parameters, isa);
            let results = apply_each(kernel.as_ref(), &bytes);
            for ((&bits, got), want) in inputs.iter().zip(&results).zip(&expected) {
                let got = got.map(|b| decode(t.name(), b)).map_err(model_fault);
                assert_eq!(
                    &got, want,
                    "{t} {direction} {bits:#x}, offset {offset:?}, scale {scale:?}, {isa:?}"
                );
            }
        }
    }
    2 * inputs.len()
}

/// Offsets and scales for a type: typical, one-sided, negative, and extreme ones.
fn parameter_sets(t: NumericType) -> Vec<(Option<&'static str>, Option<&'static str>)> {
    match t {
        NumericType::Int2 => vec![
            (Some("1"), None),
            (None, Some("-1")),
            (Some("-1"), Some("1")),
        ],
        NumericType::UInt2 => vec![(Some("1"), None), (Some("2"), Some("3"))],
        NumericType::Int4 => vec![
            (Some("2"), Some("2")),
            (None, Some("-3")),
            (Some("-8"), None),
        ],
        NumericType::UInt4 => vec![(Some("3"), None), (Some("1"), Some("5"))],
        NumericType::Int8 | NumericType::Int16 | NumericType::Int32 | NumericType::Int64 => vec![
            (Some("1"), Some("2")),
            (Some("-1"), Some("-1")),
            (Some("100"), Some("3")),
            (None, Some("-2")),
            (Some("-128"), None),
        ],
        NumericType::UInt8 | NumericType::UInt16 | NumericType::UInt32 | NumericType::UInt64 => {
            vec![
                (Some("10"), Some("2")),
                (Some("200"), None),
                (None, Some("7")),
            ]
        }
        NumericType::Float8E8M0FNU => vec![
            (None, Some("2")),
            (Some("1"), None),
            (Some("0.5"), Some("4")),
            (None, Some("\"0x00\"")),
        ],
        NumericType::Float4E2M1FN | NumericType::Float6E2M3FN | NumericType::Float6E3M2FN => {
            vec![
                (Some("1"), Some("2")),
                (None, Some("0.5")),
                (Some("-1.5"), Some("-3")),
            ]
        }
        NumericType::Float8E3M4
        | NumericType::Float8E4M3
        | NumericType::Float8E4M3B11FNUZ
        | NumericType::Float8E4M3FNUZ
        | NumericType::Float8E5M2
        | NumericType::Float8E5M2FNUZ => vec![
            (Some("-2"), Some("0.5")),
            (Some("1"), Some("3")),
            (None, Some("2")),
            (None, Some("-1")),
            (Some("1.5"), None),
        ],
        NumericType::Float16 => vec![
            (Some("-10"), Some("0.1")),
            (Some("5"), Some("0.1")),
            (None, Some("2")),
            (None, Some("-1")),
            (Some("1.5"), None),
            (Some("1e4"), Some("3")),
            (None, Some("0.001")),
            (Some("-30000"), Some("2")),
        ],
        _ => vec![
            (Some("-10"), Some("0.1")),
            (Some("5"), Some("0.1")),
            (None, Some("2")),
            (None, Some("-1")),
            (Some("1.5"), None),
            (Some("1e4"), Some("3")),
            (None, Some("1e-30")),
            (Some("-1e30"), Some("7")),
            // Scales and offsets around the limits of the decode's correction (see `division`).
            (Some("-0.0"), Some("0.1")),
            (None, Some("1.9999999999999998")),
            (Some("3"), Some("-1e20")),
        ],
    }
}

#[test]
fn every_8_bit_input_scales_like_the_model() {
    let mut checked = 0;
    for &t in NumericType::ALL.iter().filter(|t| t.size() == 1) {
        let inputs: Vec<u64> = (0..256).filter(|&b| t.is_encoding(b)).collect();
        for (offset, scale) in parameter_sets(t) {
            checked += check(t, offset, scale, &inputs);
        }
    }
    assert!(checked > 2 * 2488 * 3);
}

#[test]
#[ignore = "exhaustive: run in release mode with `cargo test --release --lib -- --ignored`"]
fn exhaustive_every_16_bit_input_scales_like_the_model() {
    let mut checked = 0;
    for &t in NumericType::ALL.iter().filter(|t| t.size() == 2) {
        let inputs: Vec<u64> = (0..65_536).collect();
        for (offset, scale) in parameter_sets(t) {
            checked += check(t, offset, scale, &inputs);
        }
    }
    assert!(checked > 4 * 65_536 * 2 * 3);
}

/// Seeded inputs of a type of at least 32 bits: random bits, and small values, where offsets and
/// scales matter most.
fn wide_inputs(t: NumericType, count: usize) -> Vec<u64> {
    let mask = if t.size() == 8 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    };
    let mut inputs: Vec<u64> = Seeded(t.size() as u64)
        .take(count)
        .map(|r| r & mask)
        .collect();
    inputs.extend(Seeded(3).take(count).map(|r| {
        let small = (r % 20_001).cast_signed() - 10_000;
        #[expect(clippy::cast_precision_loss, clippy::cast_sign_loss)]
        match t {
            NumericType::Float32 => u64::from((small as f32 / 8.0).to_bits()),
            NumericType::Float64 => (small as f64 / 7.0).to_bits(),
            _ => small as u64 & mask,
        }
    }));
    // The edges of the range.
    let max = if t == NumericType::Float32 {
        u64::from(f32::MAX.to_bits())
    } else if t == NumericType::Float64 {
        f64::MAX.to_bits()
    } else {
        mask >> 1
    };
    inputs.extend([max, max - 1, max - 1000, max | (1 << (8 * t.size() - 1))]);
    inputs
}

/// Checks `count` seeded inputs of every type of at least 32 bits with every parameter set.
fn check_wide(count: usize) -> usize {
    let mut checked = 0;
    for &t in NumericType::ALL.iter().filter(|t| t.size() >= 4) {
        let inputs = wide_inputs(t, count);
        for (offset, scale) in parameter_sets(t) {
            checked += check(t, offset, scale, &inputs);
        }
    }
    checked
}

#[test]
fn a_seeded_sample_of_32_and_64_bit_inputs_scales_like_the_model() {
    assert!(check_wide(300) > 6 * 600 * 2 * 3);
}

#[test]
#[ignore = "exhaustive: run in release mode with `cargo test --release --lib -- --ignored`"]
fn exhaustive_sampled_32_and_64_bit_inputs_scale_like_the_model() {
    assert!(check_wide(50_000) > 6 * 100_000 * 2 * 3);
}
