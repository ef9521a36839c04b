//! Both codecs through the zarrs codec API (`encode`/`decode` on `ArrayBytes`, one thread), each
//! next to the streaming floor of its own byte volume, at 65,536 and 16,777,216 elements, with
//! owned input (as zarrs passes most chunks) and borrowed input (as it passes others); and the
//! `scale_offset` → `cast_value` chain next to zarr-cast-value 0.5.1's slice functions plus a
//! plain scale loop.
//!
//! Throughput is in bytes read plus bytes written. The floor is a plain vectorised loop that reads
//! the input and writes the output of the same sizes with nothing in between but an integer move:
//! for owned input in place when the output is not wider, else (and for borrowed input) into a
//! new buffer. `benches/ratios.py` turns criterion's estimates into the README's ratios.

use std::num::NonZeroU64;
use std::sync::Arc;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_main};
use zarrs::array::codec::api::{ArrayToArrayCodecTraits, Codec};
use zarrs::array::{ArrayBytes, CodecOptions, DataType, FillValue, data_type};
use zarrs::metadata::v3::MetadataV3;
use zarrs_scale_offset_cast as _;
use zarrs_scale_offset_cast_benches::{
    bytes, floor, reflectances, scaled, seeded, with_best, with_capacity,
};

const SIZES: [usize; 2] = [65_536, 16_777_216];

fn codec(json: &str) -> Arc<dyn ArrayToArrayCodecTraits> {
    let metadata: MetadataV3 = serde_json::from_str(json).unwrap();
    match Codec::from_metadata(&metadata).unwrap() {
        Codec::ArrayToArray(codec) => codec,
        _ => unreachable!("both codecs are array-to-array"),
    }
}

fn options() -> CodecOptions {
    CodecOptions::default().with_concurrent_target(1)
}

/// The low byte of a random number.
#[expect(clippy::cast_possible_truncation, reason = "the low bits")]
fn low_byte(r: u64) -> u8 {
    r as u8
}

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

const SCALE_OFFSET: &str =
    r#"{"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}}"#;
const F64_TO_U8: &str = r#"{"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "clamp", "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}"#;
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

/// `cast_value(int32 → int16, clamp)` against zarr-cast-value 0.5.1's slice function.
fn i32_to_i16_against_zarr_cast_value(c: &mut Criterion) {
    use zarr_cast_value::{IntToIntConfig, OutOfRangeMode};
    let mut group = c.benchmark_group("versus");
    group.sample_size(10);
    let codec = codec(
        r#"{"name": "cast_value", "configuration": {"data_type": "int16", "out_of_range": "clamp"}}"#,
    );
    let int32 = data_type::int32();
    let fill = FillValue::from(0i32);
    let config = IntToIntConfig {
        map_entries: Vec::new(),
        out_of_range: Some(OutOfRangeMode::Clamp),
    };
    for n in SIZES {
        let shape = [NonZeroU64::new(n as u64).unwrap()];
        group.throughput(Throughput::Bytes((n * 6) as u64));
        #[expect(clippy::cast_possible_truncation, reason = "the low bits")]
        let data: Vec<i32> = seeded(n).map(|r| (r as i32) >> 14).collect();
        group.bench_with_input(
            BenchmarkId::new("i32_to_i16/zarr-cast-value", n),
            &data,
            |b, data| {
                b.iter(|| {
                    let mut out = vec![0i16; n];
                    zarr_cast_value::convert_slice_int_to_int(data, &mut out, &config).unwrap();
                    out
                });
            },
        );
        let input = bytes(&data);
        group.bench_with_input(
            BenchmarkId::new("i32_to_i16/codec", n),
            &input,
            |b, input| {
                b.iter(|| {
                    codec
                        .encode(
                            ArrayBytes::new_flen(input.as_slice()),
                            &shape,
                            &int32,
                            &fill,
                            &options(),
                        )
                        .unwrap()
                        .into_owned()
                });
            },
        );
    }
    group.finish();
}

/// `scale_offset` → `cast_value(uint8)` encode: the codecs against zarr-cast-value 0.5.1's slice
/// function after a plain scale loop (in place, as the data is owned).
fn chain_encode(c: &mut Criterion) {
    use zarr_cast_value::{FloatToIntConfig, MapEntry, OutOfRangeMode, RoundingMode};
    let mut group = c.benchmark_group("chain");
    group.sample_size(10);
    let (scale_offset, cast_value) = (codec(SCALE_OFFSET), codec(F64_TO_U8));
    let float64 = data_type::float64();
    let fill = FillValue::from(f64::NAN);
    let config = FloatToIntConfig {
        map_entries: vec![MapEntry {
            src: f64::NAN,
            tgt: 0u8,
        }],
        rounding: RoundingMode::NearestEven,
        out_of_range: Some(OutOfRangeMode::Clamp),
    };
    for n in SIZES {
        let shape = [NonZeroU64::new(n as u64).unwrap()];
        group.throughput(Throughput::Bytes((n * 9) as u64));
        let data: Vec<f64> = reflectances(n)
            .into_iter()
            .map(|x| x / 0.6 * 2540.0)
            .collect();
        group.bench_with_input(
            BenchmarkId::new("encode/zarr-cast-value", n),
            &data,
            |b, data| {
                b.iter_batched(
                    || data.clone(),
                    |mut data| {
                        with_best(|| {
                            for x in &mut data {
                                *x = (*x + 10.0) * 0.1;
                            }
                        });
                        let mut out = vec![0u8; n];
                        zarr_cast_value::convert_slice_float_to_int(&data, &mut out, &config)
                            .unwrap();
                        out
                    },
                    BatchSize::PerIteration,
                );
            },
        );
        let input = bytes(&data);
        group.bench_with_input(BenchmarkId::new("encode/codecs", n), &input, |b, input| {
            b.iter_batched(
                || ArrayBytes::new_flen(input.clone()),
                |bytes| {
                    let options = options();
                    let scaled = scale_offset
                        .encode(bytes, &shape, &float64, &fill, &options)
                        .unwrap();
                    let encoded_fill = scale_offset.encoded_fill_value(&float64, &fill).unwrap();
                    cast_value
                        .encode(scaled, &shape, &float64, &encoded_fill, &options)
                        .unwrap()
                },
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

/// `cast_value(uint8)` → `scale_offset` decode: the codecs against zarr-cast-value 0.5.1's slice
/// function followed by a plain scale loop in place, writing to a buffer allocated as the codecs
/// allocate theirs.
fn chain_decode(c: &mut Criterion) {
    use zarr_cast_value::{IntToFloatConfig, MapEntry, RoundingMode};
    let mut group = c.benchmark_group("chain");
    group.sample_size(10);
    let (scale_offset, cast_value) = (codec(SCALE_OFFSET), codec(F64_TO_U8));
    let float64 = data_type::float64();
    let fill = FillValue::from(f64::NAN);
    let config = IntToFloatConfig {
        map_entries: vec![MapEntry {
            src: 0u8,
            tgt: f64::NAN,
        }],
        rounding: RoundingMode::NearestEven,
        out_of_range: None,
    };
    for n in SIZES {
        let shape = [NonZeroU64::new(n as u64).unwrap()];
        group.throughput(Throughput::Bytes((n * 9) as u64));
        let stored: Vec<u8> = seeded(n).map(low_byte).collect();
        group.bench_with_input(
            BenchmarkId::new("decode/zarr-cast-value", n),
            &stored,
            |b, stored| {
                b.iter(|| {
                    let mut buffer = with_capacity(n * 8);
                    buffer.resize(n * 8, 0);
                    let values: &mut [f64] = bytemuck::cast_slice_mut(&mut buffer);
                    zarr_cast_value::convert_slice_int_to_float(stored, values, &config).unwrap();
                    with_best(|| {
                        for x in values.iter_mut() {
                            *x = *x / 0.1 + -10.0;
                        }
                    });
                    buffer
                });
            },
        );
        group.bench_with_input(
            BenchmarkId::new("decode/codecs", n),
            &stored,
            |b, stored| {
                b.iter_batched(
                    || ArrayBytes::new_flen(stored.clone()),
                    |bytes| {
                        let options = options();
                        let encoded_fill =
                            scale_offset.encoded_fill_value(&float64, &fill).unwrap();
                        let scaled = cast_value
                            .decode(bytes, &shape, &float64, &encoded_fill, &options)
                            .unwrap();
                        scale_offset
                            .decode(scaled, &shape, &float64, &fill, &options)
                            .unwrap()
                    },
                    BatchSize::PerIteration,
                );
            },
        );
    }
    group.finish();
}

/// Every benchmark group.
fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    scale_offset(&mut criterion);
    cast_value(&mut criterion);
    i32_to_i16_against_zarr_cast_value(&mut criterion);
    chain_encode(&mut criterion);
    chain_decode(&mut criterion);
}

criterion_main!(benches);
