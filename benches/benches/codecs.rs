//! Both codecs through the zarrs codec API (`encode`/`decode` on `ArrayBytes`, one thread), each
//! next to the streaming floor of its own byte volume, at 65,536 and 16,777,216 elements, with
//! owned input (as zarrs passes most chunks) and borrowed input (as it passes others). The
//! comparison with zarr-cast-value is in `versus.rs`.
//!
//! Throughput is in bytes read plus bytes written. The floor is a plain vectorised loop that reads
//! the input and writes the output of the same sizes with nothing in between but an integer move:
//! for owned input in place when the output is not wider, else (and for borrowed input) into a
//! new buffer. `benches/ratios.py` turns criterion's estimates into the README's ratios.

use std::num::NonZeroU64;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_main};
use zarrs::array::{ArrayBytes, DataType, FillValue, data_type};
use zarrs_scale_offset_cast as _;
use zarrs_scale_offset_cast_benches::{
    F64_TO_U8, SCALE_OFFSET, SIZES, bytes, codec, floor, low_byte, options, reflectances, scaled,
    seeded,
};

/// Values of float32 data in [0, 65535), in hundredths.
#[expect(clippy::cast_precision_loss, reason = "below 2^23")]
fn hundredths(n: usize) -> Vec<f32> {
    seeded(n).map(|r| (r % 6_553_500) as f32 / 100.0).collect()
}

/// `reflectances` as float32.
#[expect(clippy::cast_possible_truncation, reason = "rounding to float32")]
fn reflectances_f32(n: usize) -> Vec<f32> {
    reflectances(n).into_iter().map(|x| x as f32).collect()
}

/// One codec pass to measure.
struct Pass {
    /// `<direction>/<types>/<configuration>`.
    id: &'static str,
    codec: &'static str,
    decode: bool,
    data_type: fn() -> DataType,
    fill_value: FillValue,
    /// The codec's input elements, as bytes.
    input: fn(usize) -> Vec<u8>,
    in_size: usize,
    out_size: usize,
}

fn bench_pass(c: &mut Criterion, group: &str, pass: &Pass) {
    let mut group = c.benchmark_group(group);
    group.sample_size(10);
    let codec = codec(pass.codec);
    let data_type = (pass.data_type)();
    for n in SIZES {
        let shape = [NonZeroU64::new(n as u64).unwrap()];
        let input = (pass.input)(n);
        group.throughput(Throughput::Bytes(
            (n * (pass.in_size + pass.out_size)) as u64,
        ));
        for owned in [true, false] {
            let kind = if owned { "owned" } else { "borrowed" };
            let floor = floor(pass.in_size, pass.out_size, owned);
            group.bench_with_input(
                BenchmarkId::new(format!("{}/{kind}/floor", pass.id), n),
                &input,
                |b, input| {
                    b.iter_batched(
                        || if owned { input.clone() } else { Vec::new() },
                        |buffer| floor(input, buffer),
                        BatchSize::PerIteration,
                    );
                },
            );
            group.bench_with_input(
                BenchmarkId::new(format!("{}/{kind}/codec", pass.id), n),
                &input,
                |b, input| {
                    b.iter_batched(
                        || {
                            if owned {
                                ArrayBytes::new_flen(input.clone())
                            } else {
                                ArrayBytes::new_flen(input.as_slice())
                            }
                        },
                        |bytes| {
                            let options = options();
                            let fill = &pass.fill_value;
                            let result = if pass.decode {
                                codec.decode(bytes, &shape, &data_type, fill, &options)
                            } else {
                                codec.encode(bytes, &shape, &data_type, fill, &options)
                            };
                            result.unwrap().into_owned()
                        },
                        BatchSize::PerIteration,
                    );
                },
            );
        }
    }
    group.finish();
}

const SCALE_ONLY: &str = r#"{"name": "scale_offset", "configuration": {"scale": 0.1}}"#;

const F64_TO_U16: &str = r#"{"name": "cast_value", "configuration": {"data_type": "uint16", "rounding": "nearest-even", "out_of_range": "clamp", "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}"#;

fn scale_offset(c: &mut Criterion) {
    let passes = [
        Pass {
            id: "encode/f64",
            codec: SCALE_OFFSET,
            decode: false,
            data_type: data_type::float64,
            fill_value: FillValue::from(f64::NAN),
            input: |n| bytes(&reflectances(n)),
            in_size: 8,
            out_size: 8,
        },
        Pass {
            id: "decode/f64",
            codec: SCALE_OFFSET,
            decode: true,
            data_type: data_type::float64,
            fill_value: FillValue::from(f64::NAN),
            input: |n| bytes(&scaled(n)),
            in_size: 8,
            out_size: 8,
        },
        Pass {
            id: "encode/f32",
            codec: SCALE_OFFSET,
            decode: false,
            data_type: data_type::float32,
            fill_value: FillValue::from(f32::NAN),
            input: |n| bytes(&reflectances_f32(n)),
            in_size: 4,
            out_size: 4,
        },
        Pass {
            id: "decode/f32",
            codec: SCALE_OFFSET,
            decode: true,
            data_type: data_type::float32,
            fill_value: FillValue::from(f32::NAN),
            input: |n| bytes(&reflectances_f32(n)),
            in_size: 4,
            out_size: 4,
        },
        // A scale no finite element's decode can overflow with, as in the reflectance chain.
        Pass {
            id: "decode/f32/scale_10000",
            codec: r#"{"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}}"#,
            decode: true,
            data_type: data_type::float32,
            fill_value: FillValue::from(f32::NAN),
            input: |n| bytes(&hundredths(n)),
            in_size: 4,
            out_size: 4,
        },
        // Without an offset: the decodes whose scale alone decides whether a result can overflow.
        Pass {
            id: "decode/f64/scale_only",
            codec: SCALE_ONLY,
            decode: true,
            data_type: data_type::float64,
            fill_value: FillValue::from(f64::NAN),
            input: |n| bytes(&scaled(n)),
            in_size: 8,
            out_size: 8,
        },
        Pass {
            id: "decode/f32/scale_only",
            codec: SCALE_ONLY,
            decode: true,
            data_type: data_type::float32,
            fill_value: FillValue::from(f32::NAN),
            input: |n| bytes(&reflectances_f32(n)),
            in_size: 4,
            out_size: 4,
        },
    ];
    for pass in &passes {
        bench_pass(c, "scale_offset", pass);
    }
}

fn cast_f64_to_u8(rounding: &str, out_of_range: &str) -> &'static str {
    let json = format!(
        r#"{{"name": "cast_value", "configuration": {{"data_type": "uint8", "rounding": "{rounding}", "out_of_range": "{out_of_range}", "scalar_map": {{"encode": [["NaN", 0]]}}}}}}"#
    );
    Box::leak(json.into_boxed_str())
}

#[expect(clippy::too_many_lines, reason = "a table of passes")]
fn cast_value(c: &mut Criterion) {
    let mut passes = vec![
        Pass {
            id: "encode/f64_to_u8/nearest-even_clamp_map",
            codec: F64_TO_U8,
            decode: false,
            data_type: data_type::float64,
            fill_value: FillValue::from(f64::NAN),
            input: |n| bytes(&scaled(n)),
            in_size: 8,
            out_size: 1,
        },
        Pass {
            id: "decode/u8_to_f64/map",
            codec: F64_TO_U8,
            decode: true,
            data_type: data_type::float64,
            fill_value: FillValue::from(f64::NAN),
            input: |n| seeded(n).map(low_byte).collect(),
            in_size: 1,
            out_size: 8,
        },
        Pass {
            id: "encode/f64_to_u16/nearest-even_clamp_map",
            codec: F64_TO_U16,
            decode: false,
            data_type: data_type::float64,
            fill_value: FillValue::from(f64::NAN),
            input: |n| bytes(&scaled(n).into_iter().map(|x| x * 200.0).collect::<Vec<_>>()),
            in_size: 8,
            out_size: 2,
        },
        Pass {
            id: "decode/u16_to_f64/map",
            codec: F64_TO_U16,
            decode: true,
            data_type: data_type::float64,
            fill_value: FillValue::from(f64::NAN),
            #[expect(clippy::cast_possible_truncation, reason = "the low bits")]
            input: |n| bytes(&seeded(n).map(|r| r as u16).collect::<Vec<_>>()),
            in_size: 2,
            out_size: 8,
        },
        Pass {
            id: "encode/f32_to_u16/nearest-even",
            codec: r#"{"name": "cast_value", "configuration": {"data_type": "uint16"}}"#,
            decode: false,
            data_type: data_type::float32,
            fill_value: FillValue::from(0.0f32),
            input: |n| bytes(&hundredths(n)),
            in_size: 4,
            out_size: 2,
        },
        Pass {
            id: "encode/i32_to_i16/clamp",
            codec: r#"{"name": "cast_value", "configuration": {"data_type": "int16", "out_of_range": "clamp"}}"#,
            decode: false,
            data_type: data_type::int32,
            fill_value: FillValue::from(0i32),
            #[expect(clippy::cast_possible_truncation, reason = "the low bits")]
            input: |n| bytes(&seeded(n).map(|r| (r as i32) >> 14).collect::<Vec<_>>()),
            in_size: 4,
            out_size: 2,
        },
        Pass {
            id: "encode/f64_to_f32/nearest-even",
            codec: r#"{"name": "cast_value", "configuration": {"data_type": "float32"}}"#,
            decode: false,
            data_type: data_type::float64,
            fill_value: FillValue::from(f64::NAN),
            input: |n| bytes(&reflectances(n)),
            in_size: 8,
            out_size: 4,
        },
    ];
    for (rounding, out_of_range, id) in [
        (
            "towards-zero",
            "clamp",
            "encode/f64_to_u8/towards-zero_clamp_map",
        ),
        (
            "towards-positive",
            "clamp",
            "encode/f64_to_u8/towards-positive_clamp_map",
        ),
        (
            "towards-negative",
            "clamp",
            "encode/f64_to_u8/towards-negative_clamp_map",
        ),
        (
            "nearest-away",
            "clamp",
            "encode/f64_to_u8/nearest-away_clamp_map",
        ),
        (
            "nearest-even",
            "wrap",
            "encode/f64_to_u8/nearest-even_wrap_map",
        ),
    ] {
        passes.push(Pass {
            id,
            codec: cast_f64_to_u8(rounding, out_of_range),
            decode: false,
            data_type: data_type::float64,
            fill_value: FillValue::from(0.0f64),
            input: |n| bytes(&scaled(n)),
            in_size: 8,
            out_size: 1,
        });
    }
    for pass in &passes {
        bench_pass(c, "cast_value", pass);
    }
}

/// Every benchmark group.
fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    scale_offset(&mut criterion);
    cast_value(&mut criterion);
}

criterion_main!(benches);
