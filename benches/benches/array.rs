//! The reflectance chain end to end through the zarrs `Array` API, one thread, on a filesystem
//! store in the page cache: a 4096 x 4096 float64 array stored as `[scale_offset(offset -0.1,
//! scale 10000), cast_value(uint16, NaN <-> 0, clamp), bytes]`, in chunks of 1024 x 1024 and of
//! 256 x 256. Arrays are created and written before the timed part.
//!
//! Each measurement has its baselines in the same run:
//! - `hand`: the same uint16 chunks in an array without these codecs, converted by a plain loop;
//! - `minimal`: a minimal one-pass codec (`benches/src/minimal.rs`) in the same chain, the ceiling
//!   of any array-to-array codec through zarrs;
//! - reads into a fresh `Vec<f64>` (`read_vec`) and into a buffer the caller reuses (`read_into`,
//!   where the crate's own fused path, `FusedReader`, is measured too); writes (`write`).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_main};
use zarrs::array::CodecOptions;
use zarrs_scale_offset_cast::FusedReader;
use zarrs_scale_offset_cast_benches::minimal;
use zarrs_scale_offset_cast_benches::reflectance::{
    ELEMENTS, Layout, arrays, hand_encode, retrieve_into, whole,
};
use zarrs_scale_offset_cast_benches::reflectances;

fn options() -> CodecOptions {
    CodecOptions::default().with_concurrent_target(1)
}

fn bench(c: &mut Criterion) {
    let data = reflectances(ELEMENTS);
    let mut group = c.benchmark_group("array");
    group.sample_size(10);
    group.throughput(Throughput::Elements(ELEMENTS as u64));
    for chunk in [1024u64, 256] {
        let arrays = arrays(Layout::Chunks(chunk), &data);
        let subset = whole();
        // A fresh Vec<f64> per read.
        group.bench_function(BenchmarkId::new("read_vec/codecs", chunk), |b| {
            b.iter(|| {
                arrays
                    .codecs
                    .retrieve_array_subset_opt::<Vec<f64>>(&subset, &options())
                    .unwrap()
            });
        });
        group.bench_function(BenchmarkId::new("read_vec/minimal", chunk), |b| {
            b.iter(|| {
                arrays
                    .minimal
                    .retrieve_array_subset_opt::<Vec<f64>>(&subset, &options())
                    .unwrap()
            });
        });
        group.bench_function(BenchmarkId::new("read_vec/hand", chunk), |b| {
            b.iter(|| {
                let stored: Vec<u16> = arrays
                    .hand
                    .retrieve_array_subset_opt(&subset, &options())
                    .unwrap();
                stored
                    .iter()
                    .map(|&x| minimal::decode(x))
                    .collect::<Vec<f64>>()
            });
        });
        // Into buffers the caller reuses.
        let mut output = vec![0f64; ELEMENTS];
        let mut stored = vec![0u16; ELEMENTS];
        group.bench_function(BenchmarkId::new("read_into/codecs", chunk), |b| {
            b.iter(|| {
                retrieve_into(
                    &arrays.codecs,
                    bytemuck::cast_slice_mut(&mut output),
                    8,
                    &options(),
                )
            });
        });
        group.bench_function(BenchmarkId::new("read_into/minimal", chunk), |b| {
            b.iter(|| {
                retrieve_into(
                    &arrays.minimal,
                    bytemuck::cast_slice_mut(&mut output),
                    8,
                    &options(),
                )
            });
        });
        let reader = FusedReader::new(&arrays.codecs);
        assert!(reader.is_fused());
        group.bench_function(BenchmarkId::new("read_into/fused", chunk), |b| {
            b.iter(|| {
                reader
                    .retrieve_array_subset_into_opt(&subset, &mut output, &options())
                    .unwrap()
            });
        });
        group.bench_function(BenchmarkId::new("read_into/hand", chunk), |b| {
            b.iter(|| {
                retrieve_into(
                    &arrays.hand,
                    bytemuck::cast_slice_mut(&mut stored),
                    2,
                    &options(),
                );
                for (x, y) in stored.iter().zip(output.iter_mut()) {
                    *y = minimal::decode(*x);
                }
            });
        });
        // Writes of the whole array.
        group.bench_function(BenchmarkId::new("write/codecs", chunk), |b| {
            b.iter(|| {
                arrays
                    .codecs
                    .store_array_subset_opt(&subset, data.as_slice(), &options())
                    .unwrap()
            });
        });
        group.bench_function(BenchmarkId::new("write/minimal", chunk), |b| {
            b.iter(|| {
                arrays
                    .minimal
                    .store_array_subset_opt(&subset, data.as_slice(), &options())
                    .unwrap()
            });
        });
        group.bench_function(BenchmarkId::new("write/hand", chunk), |b| {
            b.iter(|| {
                arrays
                    .hand
                    .store_array_subset_opt(&subset, hand_encode(&data), &options())
                    .unwrap()
            });
        });
    }
    group.finish();
}

fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
}

criterion_main!(benches);
