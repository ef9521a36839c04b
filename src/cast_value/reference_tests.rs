//! The `cast_value` kernels against the independent exact reference: exhaustive over every 8- and
//! 16-bit input, sampled (seeded) for wider inputs, in every rounding and out-of-range mode.

use super::scalar_map::{MapEntry, read_entries};
use crate::Direction;
use crate::dispatch::cast_kernel;
use crate::numeric::{NumericType, OutOfRangeMode, RoundingMode};
use crate::reference::{RefValue, Reference, decode};
use crate::simd::Isa;

const ROUNDINGS: [RoundingMode; 5] = [
    RoundingMode::NearestEven,
    RoundingMode::NearestAway,
    RoundingMode::TowardsZero,
    RoundingMode::TowardsPositive,
    RoundingMode::TowardsNegative,
];

/// The native-endian bytes of elements given by their bits.
pub(crate) fn element_bytes(bits: &[u64], size: usize) -> Vec<u8> {
    bits.iter()
        .flat_map(|b| {
            let bytes = b.to_ne_bytes();
            if cfg!(target_endian = "little") {
                bytes[..size].to_vec()
            } else {
                bytes[8 - size..].to_vec()
            }
        })
        .collect()
}

/// A seeded generator (splitmix64).
pub(crate) struct Seeded(pub(crate) u64);

impl Iterator for Seeded {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Some(z ^ (z >> 31))
    }
}

/// Casts `inputs` (bits of `from`) with the kernel, on every instruction set, and with the
/// reference; returns how many inputs were checked and panics on the first difference.
fn check(
    from: NumericType,
    to: NumericType,
    inputs: &[u64],
    rounding: RoundingMode,
    oor: Option<OutOfRangeMode>,
    map: &[MapEntry],
) -> usize {
    let reference = Reference::new(to.name());
    let expected: Vec<_> = inputs
        .iter()
        .map(|&bits| {
            let x = decode(from.name(), bits);
            // Keys match numerically: NaN matches NaN, -0 matches +0.
            #[expect(clippy::float_cmp, reason = "exact numeric equality")]
            let matches_key = |key: RefValue| match (key, x) {
                (RefValue::Float(a), RefValue::Float(b)) => a == b,
                (key, x) => key == x,
            };
            let mapped = map
                .iter()
                .find(|entry| matches_key(decode(from.name(), entry.key_bits)))
                .map(|entry| decode(to.name(), entry.value_bits));
            mapped.map_or_else(|| reference.cast(x, rounding, oor), Ok)
        })
        .collect();
    let bytes = element_bytes(inputs, from.size());
    for isa in Isa::available() {
        let results = cast_kernel(from, to, map, rounding, oor, isa).apply_each(&bytes);
        for ((&bits, got), want) in inputs.iter().zip(&results).zip(&expected) {
            let got = got.map(|b| decode(to.name(), b));
            assert_eq!(
                &got,
                want,
                "{from} {bits:#x} ({:?}) -> {to}, {rounding:?}, {oor:?}, {isa:?}",
                decode(from.name(), bits)
            );
        }
    }
    inputs.len()
}

fn out_of_range_modes(to: NumericType) -> Vec<Option<OutOfRangeMode>> {
    let mut modes = vec![None, Some(OutOfRangeMode::Clamp)];
    if to.is_integer() {
        modes.push(Some(OutOfRangeMode::Wrap));
    }
    modes
}

#[test]
fn every_8_bit_input_casts_like_the_reference_to_every_type_in_every_mode() {
    let mut checked = 0;
    for &from in NumericType::ALL.iter().filter(|t| t.size() == 1) {
        let inputs: Vec<u64> = (0..256).collect();
        for &to in NumericType::ALL {
            for rounding in ROUNDINGS {
                for oor in out_of_range_modes(to) {
                    checked += check(from, to, &inputs, rounding, oor, &[]);
                }
            }
        }
    }
    assert_eq!(checked, 16 * 256 * (26 * 5 * 2 + 12 * 5));
}

#[test]
fn every_16_bit_input_casts_like_the_reference_to_every_type_in_every_mode() {
    let mut checked = 0;
    for &from in NumericType::ALL.iter().filter(|t| t.size() == 2) {
        let inputs: Vec<u64> = (0..65_536).collect();
        for &to in NumericType::ALL {
            for rounding in ROUNDINGS {
                for oor in out_of_range_modes(to) {
                    checked += check(from, to, &inputs, rounding, oor, &[]);
                }
            }
        }
    }
    assert_eq!(checked, 4 * 65_536 * (26 * 5 * 2 + 12 * 5));
}

/// Inputs of a wide type: the values where casts change behaviour, and seeded random bits.
fn wide_inputs(from: NumericType, seed: u64) -> Vec<u64> {
    let mut inputs: Vec<u64> = Vec::new();
    let f = |x: f64| -> u64 {
        if from == NumericType::Float32 {
            #[expect(clippy::cast_possible_truncation)]
            u64::from((x as f32).to_bits())
        } else {
            x.to_bits()
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
            let p = 2f64.powi(k);
            for v in [
                p,
                p * 1.5,
                p * 1.25,
                p * 1.75,
                p * (1.0 + 2f64.powi(-24)),
                p * (1.0 - 2f64.powi(-25)),
            ] {
                inputs.extend([f(v), f(-v)]);
            }
        }
        for k in -300..300 {
            let v = f64::from(k) * 0.5;
            inputs.extend([f(v), f(v + 0.25), f(v.next_up()), f(v.next_down())]);
        }
        inputs.extend([
            f(0.0),
            f(-0.0),
            f(f64::NAN),
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
    inputs.extend(Seeded(seed).take(20_000).map(|r| r & mask));
    inputs.iter().map(|b| b & mask).collect()
}

#[test]
fn sampled_32_and_64_bit_inputs_cast_like_the_reference_to_every_type_in_every_mode() {
    let mut checked = 0;
    for &from in NumericType::ALL.iter().filter(|t| t.size() >= 4) {
        let inputs = wide_inputs(from, from.size() as u64 * 7919);
        for &to in NumericType::ALL {
            for rounding in ROUNDINGS {
                for oor in out_of_range_modes(to) {
                    checked += check(from, to, &inputs, rounding, oor, &[]);
                }
            }
        }
    }
    assert!(checked > 6 * 26 * 10 * 20_000);
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
    ];
    for (from, to, json) in maps {
        let entries: Vec<[zarrs::array::FillValueMetadata; 2]> =
            serde_json::from_str(json).unwrap();
        let map = read_entries(&entries, Direction::Encode, from, to).unwrap();
        let mut inputs = wide_inputs(from, 1)
            .into_iter()
            .take(4000)
            .collect::<Vec<_>>();
        inputs.extend(map.iter().map(|entry| entry.key_bits));
        for rounding in ROUNDINGS {
            for oor in out_of_range_modes(to) {
                check(from, to, &inputs, rounding, oor, &map);
            }
        }
    }
}
