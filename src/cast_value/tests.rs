//! The `cast_value` kernels against the independent model (the `reference` crate): every 8-bit input,
//! and sampled wider inputs, in every rounding and out-of-range mode, on every instruction set,
//! both as an encode (with its guard) and as a decode. The exhaustive 16-bit and the large sampled
//! checks are `#[ignore]`d: `cargo test --release --lib -- --ignored` runs them.

use super::kernel::dispatch::{CastSpec, cast_kernel};
use crate::Direction;
use crate::element::cast_value::ElementCast;
use crate::element::scalar_map::{MapEntry, read_entries};
use crate::engine::lut::SpareBits;
use crate::engine::simd::Isa;
use crate::engine::testing::{ROUNDINGS, apply_each, model_fault};
use crate::numeric::pow2;
use crate::numeric::{NumericType, OutOfRangeMode, RoundingMode};
use zarrs_scale_offset_cast_reference::cast::CastModel;
use zarrs_scale_offset_cast_reference::{RefFault, RefValue, Seeded, decode, element_bytes};

/// The out-of-range modes a target allows.
fn out_of_range_modes(to: NumericType) -> Vec<Option<OutOfRangeMode>> {
    let mut modes = vec![None, Some(OutOfRangeMode::Clamp)];
    if to.is_integer() {
        modes.push(Some(OutOfRangeMode::Wrap));
    }
    modes
}

/// One configuration of a cast to check.
struct Case<'a> {
    from: NumericType,
    to: NumericType,
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
    encode_map: &'a [MapEntry],
    /// Whether to check it as an encode (guarded by the decode without maps) or a decode.
    guarded: bool,
}

/// Casts `inputs` (bits of `from`) with the kernel on every instruction set and with the model;
/// returns how many inputs were checked and panics on the first difference.
fn check(case: &Case<'_>, inputs: &[u64]) -> usize {
    let (from, to) = (case.from, case.to);
    let entries = |map: &[MapEntry]| {
        map.iter()
            .map(|e| {
                (
                    decode(from.name(), e.key_bits),
                    decode(to.name(), e.value_bits),
                )
            })
            .collect::<Vec<_>>()
    };
    let model = CastModel::new(from.name(), to.name(), case.rounding, case.out_of_range)
        .with_maps(entries(case.encode_map), Vec::new());
    let expected: Vec<Result<RefValue, RefFault>> = inputs
        .iter()
        .map(|&bits| {
            let x = decode(from.name(), bits);
            if case.guarded {
                model.encode(x)
            } else {
                model.encode_unchecked(x)
            }
        })
        .collect();
    let forward = ElementCast {
        from,
        to,
        rounding: case.rounding,
        out_of_range: case.out_of_range,
        map: case.encode_map.to_vec(),
    };
    let back = case.guarded.then(|| ElementCast {
        from: to,
        to: from,
        map: Vec::new(),
        ..forward.clone()
    });
    let bytes = element_bytes(inputs, from.size());
    for isa in Isa::available() {
        let kernel = cast_kernel(&CastSpec {
            forward: forward.clone(),
            back: back.clone(),
            isa,
            spare_bits: SpareBits::Refuse,
        });
        let results = apply_each(kernel.as_ref(), &bytes);
        for ((&bits, got), want) in inputs.iter().zip(&results).zip(&expected) {
            let got = got.map(|b| decode(to.name(), b)).map_err(model_fault);
            assert_eq!(
                &got,
                want,
                "{from} {bits:#x} ({:?}) -> {to}, {:?}, {:?}, guarded {}, {isa:?}",
                decode(from.name(), bits),
                case.rounding,
                case.out_of_range,
                case.guarded
            );
        }
    }
    inputs.len()
}

/// Checks every rounding and out-of-range mode from `from` to `to` with `encode_map`, both
/// guarded and not.
fn check_every_mode(
    from: NumericType,
    to: NumericType,
    encode_map: &[MapEntry],
    inputs: &[u64],
) -> usize {
    let mut checked = 0;
    for rounding in ROUNDINGS {
        for out_of_range in out_of_range_modes(to) {
            for guarded in [true, false] {
                let case = Case {
                    from,
                    to,
                    rounding,
                    out_of_range,
                    encode_map,
                    guarded,
                };
                checked += check(&case, inputs);
            }
        }
    }
    checked
}

/// Checks every configuration from `from` to every type, both guarded and not.
fn check_all_targets(from: NumericType, inputs: &[u64]) -> usize {
    NumericType::ALL
        .iter()
        .map(|&to| check_every_mode(from, to, &[], inputs))
        .sum()
}

#[test]
fn every_8_bit_input_casts_like_the_model_to_every_type_in_every_mode() {
    let (mut checked, mut encodings) = (0, 0);
    for &from in NumericType::ALL.iter().filter(|t| t.size() == 1) {
        let inputs: Vec<u64> = (0..256).filter(|&b| from.is_encoding(b)).collect();
        encodings += inputs.len();
        checked += check_all_targets(from, &inputs);
    }
    assert_eq!(encodings, 2488);
    assert_eq!(checked, 2 * encodings * (26 * 5 * 2 + 12 * 5));
}

#[test]
#[ignore = "exhaustive: run in release mode with `cargo test --release --lib -- --ignored`"]
fn exhaustive_every_16_bit_input_casts_like_the_model_to_every_type_in_every_mode() {
    let mut checked = 0;
    for &from in NumericType::ALL.iter().filter(|t| t.size() == 2) {
        let inputs: Vec<u64> = (0..65_536).collect();
        checked += check_all_targets(from, &inputs);
    }
    assert_eq!(checked, 2 * 4 * 65_536 * (26 * 5 * 2 + 12 * 5));
}

/// Inputs of a type of at least 16 bits: the values where casts change behaviour, and `random`
/// seeded random bits.
fn wide_inputs(from: NumericType, seed: u64, random: usize) -> Vec<u64> {
    let mut inputs: Vec<u64> = Vec::new();
    #[expect(clippy::cast_possible_truncation, reason = "the value in the type")]
    let f = |x: f64| -> u64 {
        match from {
            NumericType::Float32 => u64::from((x as f32).to_bits()),
            NumericType::Float16 => u64::from(half::f16::from_f64(x).to_bits()),
            NumericType::BFloat16 => u64::from(half::bf16::from_f64(x).to_bits()),
            _ => x.to_bits(),
        }
    };
    if from.is_integer() {
        for k in 0..64u32 {
            for d in [-2i64, -1, 0, 1, 2] {
                let p = (1i128 << k) + i128::from(d);
                for v in [p, -p] {
                    #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    inputs.push(v as u64);
                }
            }
        }
    } else {
        for k in -160..140 {
            let p = pow2(k);
            for v in [
                p,
                p * 1.5,
                p * 1.25,
                p * 1.75,
                p * (1.0 + pow2(-24)),
                p * (1.0 - pow2(-25)),
            ] {
                inputs.extend([f(v), f(-v)]);
            }
        }
        for k in -300..300 {
            let v = f64::from(k) * 0.5;
            inputs.extend([f(v), f(v + 0.25), f(v.next_up()), f(v.next_down())]);
        }
        // Around the bounds of the integer types, where clamping and range checks decide.
        for bound in [
            127.0,
            255.0,
            32_767.0,
            65_535.0,
            2_147_483_647.0,
            4_294_967_295.0,
        ] {
            for v in [bound, bound + 1.0] {
                for w in [v - 0.5, v, v + 0.5] {
                    inputs.extend([f(w), f(-w), f(w.next_up()), f(w.next_down())]);
                }
            }
        }
        inputs.extend([
            f(0.0),
            f(-0.0),
            f(f64::NAN),
            f(-f64::NAN),
            f(f64::INFINITY),
            f(f64::NEG_INFINITY),
            f(f64::MAX),
            f(f64::MIN_POSITIVE),
            f(5e-324),
        ]);
    }
    let mask = if from.size() == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * from.size())) - 1
    };
    inputs.extend(Seeded(seed).take(random).map(|r| r & mask));
    inputs.iter().map(|b| b & mask).collect()
}

#[test]
#[ignore = "exhaustive: run in release mode with `cargo test --release --lib -- --ignored`"]
fn exhaustive_sampled_32_and_64_bit_inputs_cast_like_the_model_to_every_type_in_every_mode() {
    let mut checked = 0;
    for &from in NumericType::ALL.iter().filter(|t| t.size() >= 4) {
        let inputs = wide_inputs(from, from.size() as u64 * 7919, 20_000);
        checked += check_all_targets(from, &inputs);
    }
    assert!(checked > 2 * 6 * 26 * 10 * 20_000);
}

#[test]
fn a_seeded_sample_of_every_wider_type_pair_casts_like_the_model() {
    // A few inputs per configuration, different for every pair, so that `cargo test` covers every
    // kernel quickly; the ignored tests cover many more.
    let mut checked = 0;
    let mut seed = Seeded(0x5eed);
    for &from in NumericType::ALL.iter().filter(|t| t.size() >= 2) {
        let all = wide_inputs(from, 11, 0);
        for &to in NumericType::ALL {
            for rounding in ROUNDINGS {
                for out_of_range in out_of_range_modes(to) {
                    let inputs: Vec<u64> = (0..24)
                        .map(|_| {
                            all[usize::try_from(seed.next().unwrap() % all.len() as u64).unwrap()]
                        })
                        .collect();
                    for guarded in [true, false] {
                        let case = Case {
                            from,
                            to,
                            rounding,
                            out_of_range,
                            encode_map: &[],
                            guarded,
                        };
                        checked += check(&case, &inputs);
                    }
                }
            }
        }
    }
    assert_eq!(checked, 2 * 24 * 10 * (26 * 5 * 2 + 12 * 5));
}

#[test]
fn scalar_map_entries_win_over_every_other_rule() {
    let maps = [
        (
            NumericType::Float64,
            NumericType::UInt8,
            r#"[["NaN", 0], [300.5, 7], ["-Infinity", 1], [-0.0, 9]]"#,
        ),
        (
            NumericType::Float32,
            NumericType::Int16,
            r#"[["NaN", -1], ["Infinity", 32767], [2.5, 100]]"#,
        ),
        (
            NumericType::Float16,
            NumericType::Float8E4M3FNUZ,
            r#"[["Infinity", 240], [0.1, "NaN"]]"#,
        ),
        (
            NumericType::UInt16,
            NumericType::Float8E8M0FNU,
            r#"[[0, "NaN"], [65535, 1]]"#,
        ),
        (
            NumericType::Int64,
            NumericType::Int8,
            r"[[9223372036854775807, 0], [-9223372036854775808, 1]]",
        ),
        (
            NumericType::UInt8,
            NumericType::Float64,
            r#"[[0, "NaN"], [255, "Infinity"]]"#,
        ),
        (
            NumericType::BFloat16,
            NumericType::Float32,
            r#"[["NaN", 0.0], [1.0, -1.0]]"#,
        ),
        (
            NumericType::Int32,
            NumericType::Float32,
            r#"[[-1, "NaN"], [7, "Infinity"]]"#,
        ),
    ];
    for (from, to, json) in maps {
        let entries: Vec<[zarrs::array::FillValueMetadata; 2]> =
            serde_json::from_str(json).unwrap();
        let map = read_entries(&entries, Direction::Encode, from, to).unwrap();
        let mut inputs = wide_inputs(from, 1, 2000);
        inputs.truncate(1500);
        inputs.extend(map.iter().map(|entry| entry.key_bits));
        check_every_mode(from, to, &map, &inputs);
    }
}

#[test]
fn messages_give_each_type_its_finite_range() {
    use super::message::range_text;
    assert_eq!(range_text(NumericType::UInt8), "[0, 255]");
    assert_eq!(range_text(NumericType::Int16), "[-32768, 32767]");
    assert_eq!(range_text(NumericType::Float16), "[-65504, 65504]");
}
