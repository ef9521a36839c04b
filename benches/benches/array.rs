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
//!
//! `window_write/{inside,outside}/{rewrite,partial}`: a 512 x 512 window (rows and columns
//! 300..812) written into the existing array in shards of 1024² holding inner chunks of 256², the
//! codecs inside the sharding codec (as zarr-python writes them) or outside it; `rewrite` with
//! zarrs' default options (the shard is read, updated and written whole), `partial` with
//! `with_experimental_partial_encoding` (only the inner chunks the window touches are encoded,
//! through the codecs' partial encoders where the codecs are outside the shards). The shard file is
//! restored before each write, outside the timing.

use std::sync::Arc;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_main};
use zarrs::array::{Array, ArrayMetadata, ArraySubset, CodecOptions};
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast::FusedReader;
use zarrs_scale_offset_cast_benches::minimal;
use zarrs_scale_offset_cast_benches::reflectance::{
    ELEMENTS, Layout, SIZE, arrays, hand_encode, reflectance_codecs, retrieve_into, whole,
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

/// The reflectance array in shards of 1024² of inner chunks of 256², the codecs inside the
/// sharding codec or outside it, written with `data`.
fn sharded(directory: &std::path::Path, outside: bool, data: &[f64]) -> Array<FilesystemStore> {
    let codecs: Vec<serde_json::Value> = reflectance_codecs()
        .iter()
        .map(|codec| {
            let options = zarrs::array::codec::api::CodecMetadataOptions::default();
            let name = codec.name(zarrs::plugin::ZarrVersion::V3).unwrap();
            let configuration = codec
                .configuration(zarrs::plugin::ZarrVersion::V3, &options)
                .unwrap();
            serde_json::json!({"name": name, "configuration": configuration})
        })
        .collect();
    let bytes = serde_json::json!({"name": "bytes", "configuration": {"endian": "little"}});
    let inner = if outside {
        vec![bytes.clone()]
    } else {
        [codecs.clone(), vec![bytes.clone()]].concat()
    };
    let sharding = serde_json::json!({"name": "sharding_indexed", "configuration": {
        "chunk_shape": [256, 256], "codecs": inner,
        "index_codecs": [bytes, {"name": "crc32c"}], "index_location": "end",
    }});
    let chain = if outside {
        [codecs, vec![sharding]].concat()
    } else {
        vec![sharding]
    };
    let metadata: ArrayMetadata = serde_json::from_value(serde_json::json!({
        "zarr_format": 3, "node_type": "array", "shape": [SIZE, SIZE], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1024, 1024]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN", "codecs": chain,
    }))
    .unwrap();
    let store = Arc::new(FilesystemStore::new(directory).unwrap());
    let array = Array::new_with_metadata(store, "/", metadata).unwrap();
    array.store_metadata().unwrap();
    array
        .store_array_subset_opt(&whole(), data, &options())
        .unwrap();
    array
}

fn window_writes(c: &mut Criterion, data: &[f64]) {
    let mut group = c.benchmark_group("array");
    group.sample_size(10);
    group.throughput(Throughput::Elements(512 * 512));
    let window = ArraySubset::new_with_ranges(&[300..812, 300..812]);
    let values: Vec<f64> = data[..512 * 512].iter().map(|x| x + 0.0001).collect();
    for outside in [false, true] {
        let directory = tempfile::tempdir().unwrap();
        let array = sharded(directory.path(), outside, data);
        let shard = directory.path().join("c/0/0");
        let saved = directory.path().join("saved");
        std::fs::copy(&shard, &saved).unwrap();
        let place = if outside { "outside" } else { "inside" };
        for (name, options) in [
            ("rewrite", options()),
            (
                "partial",
                options().with_experimental_partial_encoding(true),
            ),
        ] {
            group.bench_function(
                BenchmarkId::new("window_write", format!("{place}/{name}")),
                |b| {
                    b.iter_batched(
                        || std::fs::copy(&saved, &shard).unwrap(),
                        |_| {
                            array
                                .store_array_subset_opt(&window, values.as_slice(), &options)
                                .unwrap();
                        },
                        BatchSize::PerIteration,
                    );
                },
            );
            // The window reads back as written (also where a filter skipped the bench).
            std::fs::copy(&saved, &shard).unwrap();
            array
                .store_array_subset_opt(&window, values.as_slice(), &options)
                .unwrap();
            let back: Vec<f64> = array.retrieve_array_subset(&window).unwrap();
            assert!(
                back.iter()
                    .zip(&values)
                    .all(|(a, b)| (a - b).abs() < 1e-4 || a.is_nan())
            );
        }
    }
    group.finish();
}

fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    window_writes(&mut criterion, &reflectances(ELEMENTS));
}

criterion_main!(benches);
