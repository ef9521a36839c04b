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

use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_main};
use unsafe_cell_slice::UnsafeCellSlice;
use zarrs::array::codec::api::ArrayToArrayCodecTraits;
use zarrs::array::{
    Array, ArrayBuilder, ArrayBytesDecodeIntoTarget, ArrayBytesFixedDisjointView, ArraySubset,
    CodecOptions, data_type,
};
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast::cast_value::CastValueCodecConfiguration;
use zarrs_scale_offset_cast::scale_offset::ScaleOffsetCodecConfiguration;
use zarrs_scale_offset_cast::{CastValueCodec, FusedReader, ScaleOffsetCodec};
use zarrs_scale_offset_cast_benches::minimal::{self, Minimal};
use zarrs_scale_offset_cast_benches::reflectances;

const SIZE: u64 = 4096;
const ELEMENTS: usize = (SIZE * SIZE) as usize;

fn options() -> CodecOptions {
    CodecOptions::default().with_concurrent_target(1)
}

fn whole() -> ArraySubset {
    ArraySubset::new_with_shape(vec![SIZE, SIZE])
}

/// The three arrays of one chunk size, written with the same data.
struct Arrays {
    codecs: Array<FilesystemStore>,
    minimal: Array<FilesystemStore>,
    hand: Array<FilesystemStore>,
    _directory: tempfile::TempDir,
}

fn reflectance_codecs() -> Vec<Arc<dyn ArrayToArrayCodecTraits>> {
    let scale_offset: ScaleOffsetCodecConfiguration =
        serde_json::from_str(r#"{"offset": -0.1, "scale": 10000}"#).unwrap();
    let cast_value: CastValueCodecConfiguration = serde_json::from_str(
        r#"{"data_type": "uint16", "out_of_range": "clamp", "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}"#,
    )
    .unwrap();
    vec![
        Arc::new(ScaleOffsetCodec::new_with_configuration(&scale_offset).unwrap()),
        Arc::new(CastValueCodec::new_with_configuration(&cast_value).unwrap()),
    ]
}

fn arrays(chunk: u64, data: &[f64]) -> Arrays {
    let directory = tempfile::tempdir().unwrap();
    let store = Arc::new(FilesystemStore::new(directory.path()).unwrap());
    let float64 = |codecs: Vec<Arc<dyn ArrayToArrayCodecTraits>>, path: &str| {
        ArrayBuilder::new(
            vec![SIZE, SIZE],
            vec![chunk, chunk],
            data_type::float64(),
            f64::NAN,
        )
        .array_to_array_codecs(codecs)
        .build(store.clone(), path)
        .unwrap()
    };
    let codecs = float64(reflectance_codecs(), "/codecs");
    let minimal = float64(vec![Arc::new(Minimal)], "/minimal");
    let hand = ArrayBuilder::new(
        vec![SIZE, SIZE],
        vec![chunk, chunk],
        data_type::uint16(),
        0u16,
    )
    .build(store.clone(), "/hand")
    .unwrap();
    codecs
        .store_array_subset_opt(&whole(), data, &options())
        .unwrap();
    minimal
        .store_array_subset_opt(&whole(), data, &options())
        .unwrap();
    hand.store_array_subset_opt(&whole(), hand_encode(data), &options())
        .unwrap();
    Arrays {
        codecs,
        minimal,
        hand,
        _directory: directory,
    }
}

/// The plain loop a user would write to store reflectances as uint16.
fn hand_encode(data: &[f64]) -> Vec<u16> {
    data.iter().map(|&x| minimal::encode(x)).collect()
}

/// Reads the whole array into `output` through zarrs' `retrieve_array_subset_into`.
fn retrieve_into(array: &Array<FilesystemStore>, output: &mut [u8], size: usize) {
    let shape = [SIZE, SIZE];
    let cells = UnsafeCellSlice::new(output);
    // SAFETY: the only view of `output`, which outlives it.
    let mut view =
        unsafe { ArrayBytesFixedDisjointView::new(cells, size, &shape, whole()) }.unwrap();
    array
        .retrieve_array_subset_into_opt(
            &whole(),
            ArrayBytesDecodeIntoTarget::Fixed(&mut view),
            &options(),
        )
        .unwrap();
}

fn bench(c: &mut Criterion) {
    let data = reflectances(ELEMENTS);
    let mut group = c.benchmark_group("array");
    group.sample_size(10);
    group.throughput(Throughput::Elements(ELEMENTS as u64));
    for chunk in [1024u64, 256] {
        let arrays = arrays(chunk, &data);
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
            b.iter(|| retrieve_into(&arrays.codecs, bytemuck::cast_slice_mut(&mut output), 8));
        });
        group.bench_function(BenchmarkId::new("read_into/minimal", chunk), |b| {
            b.iter(|| retrieve_into(&arrays.minimal, bytemuck::cast_slice_mut(&mut output), 8));
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
                retrieve_into(&arrays.hand, bytemuck::cast_slice_mut(&mut stored), 2);
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
