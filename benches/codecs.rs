//! Both codecs through the zarrs codec API (`encode`/`decode` on `ArrayBytes`, one thread), each
//! next to the streaming floor of its own byte volume, at 65,536 and 16,777,216 elements; and the
//! `scale_offset` → `cast_value` chain next to zarr-cast-value 0.5.1's slice functions plus a
//! plain scale loop.
//!
//! Throughput is in bytes read plus bytes written. Codec inputs are owned, as zarrs passes them.
//! The floor is a plain vectorised loop that reads the input and writes the output of the same
//! sizes with nothing in between but an integer move, in place when the output is not wider, else
//! into a new buffer. `benches/ratios.py` turns criterion's estimates into the ratios the README
//! reports.

use std::num::NonZeroU64;
use std::sync::Arc;

use bytemuck::Pod;
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_main};
use num_traits::AsPrimitive;
use zarrs::array::codec::api::{ArrayToArrayCodecTraits, Codec};
use zarrs::array::{ArrayBytes, CodecOptions, DataType, FillValue, data_type};
use zarrs::metadata::v3::MetadataV3;
use zarrs_scale_offset_cast as _;

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

/// A seeded generator (splitmix64).
fn seeded(n: usize) -> impl Iterator<Item = u64> {
    let mut state = 0x5eed_u64;
    (0..n).map(move |_| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    })
}

/// Reflectance-like float64 values in [0, 2540], one in 64 NaN.
#[expect(clippy::cast_precision_loss, reason = "random fractions")]
fn reflectances(n: usize) -> Vec<f64> {
    seeded(n)
        .map(|r| {
            if r % 64 == 0 {
                f64::NAN
            } else {
                (r >> 11) as f64 / (1u64 << 53) as f64 * 2540.0
            }
        })
        .collect()
}

/// The same after `scale_offset` (offset -10, scale 0.1): in [1, 255], one in 64 NaN.
fn scaled(n: usize) -> Vec<f64> {
    reflectances(n)
        .into_iter()
        .map(|x| (x + 10.0) * 0.1)
        .collect()
}

/// The low byte of a random number.
#[expect(clippy::cast_possible_truncation, reason = "the low bits")]
fn low_byte(r: u64) -> u8 {
    r as u8
}

/// The low 32 bits of a random number.
#[expect(clippy::cast_possible_truncation, reason = "the low bits")]
fn low_word(r: u64) -> i32 {
    r as i32
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

fn bytes<T: Pod>(values: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(values).to_vec()
}

/// Streams `input` into `output`, one truncating or widening move per element.
fn floor_loop<I: Pod + AsPrimitive<O>, O: Pod>(input: &[u8], output: &mut [u8]) {
    let input: &[I] = bytemuck::cast_slice(input);
    let output: &mut [O] = bytemuck::cast_slice_mut(output);
    for (x, y) in input.iter().zip(output.iter_mut()) {
        *y = x.as_();
    }
}

/// Streams `data` through the CPU in place, one exclusive or per element (with a key the compiler
/// cannot see is zero).
fn floor_in_place<T: Pod + std::ops::BitXor<Output = T>>(data: &mut [u8], key: T) {
    for x in bytemuck::cast_slice_mut::<u8, T>(data) {
        *x = *x ^ key;
    }
}

/// A new buffer of `len` zero bytes, offered transparent huge pages on Linux when large, as the
/// codecs' output buffers are.
fn zeroed(len: usize) -> Vec<u8> {
    let mut buffer = vec![0u8; len];
    #[cfg(target_os = "linux")]
    if len >= 4 << 20 {
        let skip = buffer.as_ptr().align_offset(4096);
        let whole_pages = (len - skip) / 4096 * 4096;
        // SAFETY: the page-aligned range lies within `buffer`; the advice changes no contents.
        unsafe {
            libc::madvise(
                buffer[skip..].as_mut_ptr().cast(),
                whole_pages,
                libc::MADV_HUGEPAGE,
            )
        };
    }
    buffer
}

/// Runs `body` compiled for the best vector instructions the CPU has (AVX-512 or AVX2), as the
/// codecs' kernels are.
fn with_best<R>(body: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        #[target_feature(enable = "avx2,avx512f,avx512vl,avx512dq,avx512bw")]
        fn avx512<R>(body: impl FnOnce() -> R) -> R {
            body()
        }
        #[target_feature(enable = "avx2")]
        fn avx2<R>(body: impl FnOnce() -> R) -> R {
            body()
        }
        if has!("avx2")
            && has!("avx512f")
            && has!("avx512vl")
            && has!("avx512dq")
            && has!("avx512bw")
        {
            // SAFETY: the CPU has these features.
            return unsafe { avx512(body) };
        }
        if has!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { avx2(body) };
        }
    }
    body()
}

/// The streaming floor of a pass: a plain loop that reads the input and writes the output, with
/// nothing in between but an integer move, with the buffer handling the zarrs API allows: in
/// place when the output is not wider (when narrowing, blocks in order, the first ones through a
/// copy on the stack, as their output overlaps their own input), else into a new buffer.
fn floor_pass<I, O>(mut buffer: Vec<u8>) -> Vec<u8>
where
    I: Pod + AsPrimitive<O> + std::ops::BitXor<Output = I>,
    O: Pod,
{
    const BLOCK: usize = 1024;
    let (in_size, out_size) = (size_of::<I>(), size_of::<O>());
    let n = buffer.len() / in_size;
    if out_size > in_size {
        let mut output = zeroed(n * out_size);
        with_best(|| floor_loop::<I, O>(&buffer, &mut output));
        return output;
    }
    if out_size == in_size {
        let key = std::hint::black_box(I::zeroed());
        with_best(|| floor_in_place(&mut buffer, key));
        return buffer;
    }
    let mut staged = [I::zeroed(); BLOCK];
    with_best(|| {
        let mut start = 0;
        while start < n {
            let len = BLOCK.min(n - start);
            let (head, tail) = buffer.split_at_mut(start * in_size);
            let end = (start + len) * out_size;
            if end <= head.len() {
                floor_loop::<I, O>(&tail[..len * in_size], &mut head[start * out_size..end]);
            } else {
                let block = &mut staged[..len];
                bytemuck::cast_slice_mut(block).copy_from_slice(&tail[..len * in_size]);
                floor_loop::<I, O>(
                    bytemuck::cast_slice(block),
                    &mut buffer[start * out_size..end],
                );
            }
            start += len;
        }
    });
    buffer.truncate(n * out_size);
    buffer
}

fn floor(in_size: usize, out_size: usize) -> fn(Vec<u8>) -> Vec<u8> {
    match (in_size, out_size) {
        (8, 8) => floor_pass::<u64, u64>,
        (8, 4) => floor_pass::<u64, u32>,
        (8, 1) => floor_pass::<u64, u8>,
        (4, 4) => floor_pass::<u32, u32>,
        (4, 2) => floor_pass::<u32, u16>,
        (1, 8) => floor_pass::<u8, u64>,
        (1, 1) => floor_pass::<u8, u8>,
        other => unreachable!("no floor for {other:?}"),
    }
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
        let floor = floor(pass.in_size, pass.out_size);
        group.bench_with_input(
            BenchmarkId::new(format!("{}/floor", pass.id), n),
            &input,
            |b, input| {
                b.iter_batched(|| input.clone(), floor, BatchSize::PerIteration);
            },
        );
        group.bench_with_input(
            BenchmarkId::new(format!("{}/codec", pass.id), n),
            &input,
            |b, input| {
                b.iter_batched(
                    || ArrayBytes::new_flen(input.clone()),
                    |bytes| {
                        let options = options();
                        let fill = &pass.fill_value;
                        if pass.decode {
                            codec
                                .decode(bytes, &shape, &data_type, fill, &options)
                                .unwrap()
                        } else {
                            codec
                                .encode(bytes, &shape, &data_type, fill, &options)
                                .unwrap()
                        }
                    },
                    BatchSize::PerIteration,
                );
            },
        );
    }
    group.finish();
}

const SCALE_OFFSET: &str =
    r#"{"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}}"#;
const F64_TO_U8: &str = r#"{"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "clamp", "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}"#;

fn scale_offset(c: &mut Criterion) {
    let f32_data = |n| bytes(&reflectances_f32(n));
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
            input: f32_data,
            in_size: 4,
            out_size: 4,
        },
        Pass {
            id: "decode/f32",
            codec: SCALE_OFFSET,
            decode: true,
            data_type: data_type::float32,
            fill_value: FillValue::from(f32::NAN),
            input: f32_data,
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
            input: |n| bytes(&seeded(n).map(|r| low_word(r) >> 14).collect::<Vec<_>>()),
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
        let data = reflectances(n);
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
/// function followed by a plain scale loop in place, writing to a plain new buffer and to one
/// allocated as the codecs allocate theirs.
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
                b.iter_batched(
                    || stored.clone(),
                    |stored| {
                        let mut values = vec![0f64; n];
                        zarr_cast_value::convert_slice_int_to_float(&stored, &mut values, &config)
                            .unwrap();
                        with_best(|| {
                            for x in &mut values {
                                *x = *x / 0.1 + -10.0;
                            }
                        });
                        values
                    },
                    BatchSize::PerIteration,
                );
            },
        );
        // The same with the output buffer the codecs allocate, to show what the allocation gains.
        group.bench_with_input(
            BenchmarkId::new("decode/zarr-cast-value-huge-pages", n),
            &stored,
            |b, stored| {
                b.iter_batched(
                    || stored.clone(),
                    |stored| {
                        let mut buffer = zeroed(n * 8);
                        let values: &mut [f64] = bytemuck::cast_slice_mut(&mut buffer);
                        zarr_cast_value::convert_slice_int_to_float(&stored, values, &config)
                            .unwrap();
                        with_best(|| {
                            for x in values.iter_mut() {
                                *x = *x / 0.1 + -10.0;
                            }
                        });
                        buffer
                    },
                    BatchSize::PerIteration,
                );
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
    chain_encode(&mut criterion);
    chain_decode(&mut criterion);
}

criterion_main!(benches);
