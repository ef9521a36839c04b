//! The fused read path gives exactly what zarrs' own path gives: for every zarr-python fixture
//! (whole and in subsets across chunk boundaries), for random regular and rectangular chunk grids
//! of one to four dimensions, and for arrays with missing and partly written chunks, edge chunks,
//! big-endian chunks, compressors and sharding (read through zarrs); into a buffer and into a new
//! vector, on one thread and on several. Errors: `tests/fused_read_errors.rs`.

use std::path::PathBuf;
use std::sync::Arc;

use crate::support::{
    array, assert_path, compare, random_box, reflectance_codecs, subsets, values,
};
use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayMetadata, ArraySubset, CodecOptions};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::store::MemoryStore;
use zarrs_scale_offset_cast::{Fallback, FusedReader, Unfused};
use zarrs_scale_offset_cast_reference::{Seeded, model_seed_label};

#[test]
fn every_zarr_python_fixture_reads_the_same_through_the_fused_path() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/interop");
    let manifest: Json =
        serde_json::from_str(&std::fs::read_to_string(root.join("manifest.json")).unwrap())
            .unwrap();
    let (mut arrays, mut reads, mut fused) = (0, 0, 0);
    for case in manifest["cases"].as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        let store =
            Arc::new(FilesystemStore::new(root.join(case["path"].as_str().unwrap())).unwrap());
        let array = Array::open(store, "/").unwrap();
        let shape = array.shape().to_vec();
        let chunk: Vec<u64> = case["chunk_shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        // Fused, unless the reader says why not.
        let unfused = FusedReader::new(&array).unfused().cloned();
        let through: Vec<Fallback> = unfused.map(Fallback::Unfused).into_iter().collect();
        for subset in subsets(&shape, &chunk) {
            compare(&array, &subset, id, &through);
            fused += usize::from(through.is_empty());
            reads += 1;
        }
        arrays += 1;
    }
    println!("fused read: {arrays} arrays, {reads} reads, {fused} through the fused path");
    assert_eq!(arrays, 44);
    // Sharded and transposed arrays go through zarrs; most others are fused.
    assert!(fused > reads / 2, "{fused} of {reads} fused");
}

#[test]
fn missing_partial_and_edge_chunks_read_the_same_in_both_endiannesses_and_compressed() {
    let mut checked = 0;
    for (endian, compressors) in [
        ("little", json!([])),
        ("big", json!([])),
        (
            "little",
            json!([{"name": "zstd", "configuration": {"level": 1, "checksum": false}}]),
        ),
        (
            "big",
            json!([{"name": "gzip", "configuration": {"level": 1}}, {"name": "crc32c"}]),
        ),
    ] {
        for fill in [json!("NaN"), json!(0.5)] {
            let array = array(&reflectance_codecs(), endian, &compressors, &fill);
            // Chunks written whole, written in part, and never written.
            array
                .store_array_subset(&[0..16, 0..12], values(16 * 12))
                .unwrap();
            array
                .store_array_subset(&[18..21, 7..20], values(3 * 13))
                .unwrap();
            array
                .store_array_subset(&[30..37, 18..23], values(7 * 5))
                .unwrap();
            for subset in subsets(&[37, 23], &[8, 6]).into_iter().chain([
                ArraySubset::new_with_ranges(&[3..35, 5..22]),
                ArraySubset::new_with_ranges(&[17..22, 0..23]),
                ArraySubset::new_with_ranges(&[8..16, 0..23]),
            ]) {
                compare(&array, &subset, endian, &[]).unwrap();
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 4 * 2 * 8);
}

#[test]
fn parts_of_blosc_chunks_read_the_same_whatever_blosc_counts_as_an_element() {
    // Blosc decodes a part of a chunk from a multiple of its own element size (its `typesize`)
    // on; where that does not divide the stored elements' size, the part is read another way.
    // The values read are those zarrs reads from the same array compressed by zstd.
    let metadata = |compressor: Json| -> ArrayMetadata {
        let mut codecs = reflectance_codecs().as_array().unwrap().clone();
        codecs.push(json!({"name": "bytes", "configuration": {"endian": "little"}}));
        codecs.push(compressor);
        serde_json::from_value(json!({
            "zarr_format": 3, "node_type": "array", "shape": [64, 61], "data_type": "float64",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [32, 61]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN", "codecs": codecs,
        }))
        .unwrap()
    };
    let zstd = json!({"name": "zstd", "configuration": {"level": 1, "checksum": false}});
    let twin = Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata(zstd)).unwrap();
    twin.store_array_subset(&[0..64, 0..61], values(64 * 61))
        .unwrap();
    let mut checked = 0;
    for type_size in [1, 2, 4, 8] {
        for shuffle in ["noshuffle", "shuffle", "bitshuffle"] {
            let blosc = json!({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                "shuffle": shuffle, "typesize": type_size, "blocksize": 256}});
            let array =
                Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata(blosc))
                    .unwrap();
            array
                .store_array_subset(&[0..64, 0..61], values(64 * 61))
                .unwrap();
            let reader = FusedReader::new(&array);
            // Windows of a few rows (a part of a chunk) from an element at an even and at an
            // odd position of their chunk, of an even and of an odd count of elements.
            for window in [
                [3..5, 1..60],
                [3..5, 2..59],
                [10..11, 7..9],
                [40..44, 31..60],
            ] {
                let expected: Vec<f64> = twin.retrieve_array_subset(&window).unwrap();
                let mut got = vec![0f64; expected.len()];
                let report = reader
                    .retrieve_array_subset_into_opt(&window, &mut got, &CodecOptions::default())
                    .unwrap();
                let subset = ArraySubset::new_with_ranges(&window);
                assert_path(&report, &subset, &[], &format!("{type_size} {shuffle}"));
                assert_eq!(
                    bits(&got),
                    bits(&expected),
                    "{type_size} {shuffle} {window:?}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 4 * 3 * 4);
}

#[test]
fn chunks_of_unequal_sizes_and_single_layers_read_the_same() {
    // A 3-D array on a rectangular grid: chunks of 1, 3 and 2 layers, of 4, 1, 7 and 5 rows, and
    // of 6 and 8 columns; partly written.
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [6, 17, 14], "data_type": "float64",
        "chunk_grid": {"name": "rectangular",
            "configuration": {"chunk_shape": [[1, 3, 2], [4, 1, 7, 5], [6, 8]]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
        "codecs": [reflectance_codecs()[0], reflectance_codecs()[1],
            {"name": "bytes", "configuration": {"endian": "little"}}],
    }))
    .unwrap();
    let array = Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata).unwrap();
    array
        .store_array_subset(&[0..5, 0..17, 0..14], values(5 * 17 * 14))
        .unwrap();
    let mut checked = 0;
    for ranges in [
        [0..6, 0..17, 0..14],
        [1..2, 0..17, 0..14],
        [2..3, 3..16, 2..13],
        [2..3, 4..5, 0..14],
        [3..4, 4..5, 5..7],
        [4..5, 9..10, 13..14],
        [0..6, 5..6, 0..14],
        [1..5, 2..13, 5..9],
    ] {
        compare(
            &array,
            &ArraySubset::new_with_ranges(&ranges),
            "rectangular",
            &[],
        )
        .unwrap();
        checked += 1;
    }
    assert_eq!(checked, 8);
}

#[test]
fn random_grids_and_subsets_of_one_to_four_dimensions_read_the_same() {
    // The same cases on every run, unless `MODEL_SEED` asks for fresh ones.
    let mut random = Seeded::for_test(0x2545_f491_4f6c_dd1d);
    let mut below = |n: u64| random.below(n);
    let (mut arrays, mut reads) = (0, 0);
    for _ in 0..60 {
        let dims = 1 + usize::try_from(below(4)).unwrap();
        let largest = if dims > 2 { 6 } else { 14 };
        let shape: Vec<u64> = (0..dims).map(|_| 1 + below(largest)).collect();
        let grid = if below(2) == 0 {
            let chunk: Vec<u64> = shape.iter().map(|&n| 1 + below(n + 1)).collect();
            json!({"name": "regular", "configuration": {"chunk_shape": chunk}})
        } else {
            let mut sizes = Vec::new();
            for &n in &shape {
                let mut along = Vec::new();
                let mut left = n;
                while left > 0 {
                    along.push(1 + below(left));
                    left -= along.last().unwrap();
                }
                sizes.push(along);
            }
            json!({"name": "rectangular", "configuration": {"chunk_shape": sizes}})
        };
        let metadata: ArrayMetadata = serde_json::from_value(json!({
            "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": "float64",
            "chunk_grid": grid, "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
            "codecs": [reflectance_codecs()[0], reflectance_codecs()[1],
                {"name": "bytes", "configuration": {"endian": "little"}}],
        }))
        .unwrap();
        let array = Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata).unwrap();
        // A random box written; the chunks outside it are never written.
        let mut random_box = |extent: &[u64]| random_box(&mut below, extent);
        let written = random_box(&shape);
        let elements = usize::try_from(written.num_elements()).unwrap();
        array
            .store_array_subset(&written, values(elements))
            .unwrap();
        arrays += 1;
        for _ in 0..5 {
            let subset = random_box(&shape);
            let context = format!("{shape:?} {:?}", array.chunk_grid());
            compare(&array, &subset, &context, &[]).unwrap();
            reads += 1;
        }
    }
    let seed = model_seed_label();
    println!("random grids, {seed}: {arrays} arrays, {reads} subsets read every way");
    assert_eq!(reads, 300);
}

#[test]
fn other_chains_go_through_zarrs_with_the_same_results() {
    let sharded: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [20, 20], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [10, 10]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
        "codecs": [
            reflectance_codecs()[0], reflectance_codecs()[1],
            {"name": "sharding_indexed", "configuration": {"chunk_shape": [5, 5],
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}
        ],
    }))
    .unwrap();
    let sharded = Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", sharded).unwrap();
    sharded
        .store_array_subset(&[0..12, 0..20], values(240))
        .unwrap();
    let transposed = array(
        &json!([{"name": "transpose", "configuration": {"order": [1, 0]}}, reflectance_codecs()[0], reflectance_codecs()[1]]),
        "little",
        &json!([]),
        &json!("NaN"),
    );
    transposed
        .store_array_subset(&[0..37, 0..23], values(37 * 23))
        .unwrap();
    for subset in subsets(&[20, 20], &[10, 10]) {
        compare(&sharded, &subset, "sharded", &[]).unwrap();
    }
    for subset in subsets(&[37, 23], &[8, 6]) {
        let transpose = Fallback::Unfused(Unfused::OtherCodec("transpose".into()));
        compare(&transposed, &subset, "transposed", &[transpose]).unwrap();
    }
}

/// A read through zarrs into a new vector large enough to be faulted in on several threads first
/// (over 4 MiB), with chunks missing: the same elements as zarrs' own read on any thread count.
#[test]
fn large_reads_through_zarrs_into_new_vectors_read_the_same_on_several_threads() {
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [1030, 520], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [256, 256]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
        "codecs": [
            {"name": "transpose", "configuration": {"order": [1, 0]}},
            reflectance_codecs()[0], reflectance_codecs()[1],
            {"name": "bytes", "configuration": {"endian": "little"}}
        ],
    }))
    .unwrap();
    let array = Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata).unwrap();
    // Rows 0..700 written, the chunks below them missing.
    array
        .store_array_subset(&[0..700, 0..520], values(700 * 520))
        .unwrap();
    let whole = ArraySubset::new_with_ranges(&[0..1030, 0..520]);
    let expected: Vec<f64> = array.retrieve_array_subset(&whole).unwrap();
    let reader = FusedReader::new(&array);
    assert!(!reader.is_fused());
    for threads in [1, 2, 3, 8] {
        let options = CodecOptions::default().with_concurrent_target(threads);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let got: Vec<f64> = pool
            .install(|| reader.retrieve_array_subset_opt(&whole, &options))
            .unwrap();
        assert!(bits(&got) == bits(&expected), "{threads} threads");
    }
    assert!(expected[..700 * 520].iter().any(|v| !v.is_nan()));
    assert!(expected[700 * 520..].iter().all(|v| v.is_nan()));
}

#[test]
fn subsets_beyond_the_array_read_as_zarrs_reads_them() {
    let array = array(&reflectance_codecs(), "little", &json!([]), &json!("NaN"));
    let values: Vec<f64> = (0..37 * 23).map(|i| f64::from(i) * 1e-4).collect();
    array.store_array_subset(&[0..37, 0..23], values).unwrap();
    // Empty ones too, within and beyond the array.
    for ranges in [
        [34..42, 20..26],
        [37..39, 0..2],
        [0..40, 0..30],
        [40..40, 0..2],
        [3..9, 30..30],
    ] {
        compare(
            &array,
            &ArraySubset::new_with_ranges(&ranges),
            "beyond the array",
            &[],
        );
    }
}

#[cfg(feature = "ndarray")]
#[test]
fn reads_into_ndarray_arrays_have_the_subsets_shape() {
    let array = array(&reflectance_codecs(), "little", &json!([]), &json!("NaN"));
    array
        .store_array_subset(&[0..37, 0..23], values(37 * 23))
        .unwrap();
    let expected: ndarray::ArrayD<f64> = array.retrieve_array_subset(&[1..7, 2..5]).unwrap();
    let reader = FusedReader::new(&array);
    let got: ndarray::Array2<f64> = reader.retrieve_array_subset(&[1..7, 2..5]).unwrap();
    assert_eq!(got.shape(), &[6, 3]);
    assert_eq!(
        bits(got.as_slice().unwrap()),
        bits(expected.as_slice().unwrap())
    );
    let wrong = reader.retrieve_array_subset::<ndarray::Array3<f64>>(&[1..7, 2..5]);
    assert!(wrong.unwrap_err().to_string().contains("3 dimensions"));
}

/// The bits of `values`, so that NaNs compare too.
fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|x| x.to_bits()).collect()
}
