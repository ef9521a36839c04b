//! This crate's codecs against zarr-cast-value 0.5.1 on the same data, one thread: `cast_value`
//! int32 → int16 with clamp, and the float64 → `scale_offset` → `cast_value(uint8)` chain both ways
//! (zarr-cast-value's slice functions plus a plain scale loop). `python3 ratios.py` prints the ratios.

use std::num::NonZeroU64;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_main};
use zarrs::array::{ArrayBytes, FillValue, data_type};
use zarrs_scale_offset_cast as _;
use zarrs_scale_offset_cast_benches::{
    F64_TO_U8, SCALE_OFFSET, SIZES, bytes, codec, low_byte, options, reflectances, seeded,
    with_best, with_capacity,
};

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
    i32_to_i16_against_zarr_cast_value(&mut criterion);
    chain_encode(&mut criterion);
    chain_decode(&mut criterion);
}

criterion_main!(benches);
