//! The fused read path gives exactly what zarrs' own path gives: for every zarr-python fixture
//! (whole and in subsets across chunk boundaries), for random regular and rectangular chunk grids
//! of one to four dimensions, and for arrays with missing and partly written chunks, edge chunks,
//! big-endian chunks, compressors, sharding (read through zarrs), and elements that fail to
//! decode (the same error); into a buffer and into a new vector, on one thread and on several.

use std::path::PathBuf;
use std::sync::Arc;

mod common;

use common::fused::{compare, random_box, subsets};
use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayMetadata, ArraySubset};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ReadableStorageTraits, StoreKey, WritableStorageTraits};
use zarrs_scale_offset_cast::FusedReader;
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
        for subset in subsets(&shape, &chunk) {
            fused += usize::from(compare(&array, &subset, id));
            reads += 1;
        }
        arrays += 1;
    }
    println!("fused read: {arrays} arrays, {reads} reads, {fused} through the fused path");
    assert_eq!(arrays, 44);
    // Sharded and transposed arrays go through zarrs; most others are fused.
    assert!(fused > reads / 2, "{fused} of {reads} fused");
}

/// A 2-D float64 array with `codecs` (then `bytes` in `endian`, then `compressors`).
fn array(codecs: &Json, endian: &str, compressors: &Json, fill: &Json) -> Array<MemoryStore> {
    let mut codecs = codecs.as_array().unwrap().clone();
    codecs.push(json!({"name": "bytes", "configuration": {"endian": endian}}));
    codecs.extend(compressors.as_array().unwrap().iter().cloned());
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [37, 23], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8, 6]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill, "codecs": codecs,
    }))
    .unwrap();
    Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata).unwrap()
}

fn reflectance_codecs() -> Json {
    json!([
        {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
        {"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}
    ])
}

#[expect(clippy::cast_precision_loss, reason = "small indices")]
fn values(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            if i % 17 == 3 {
                f64::NAN
            } else {
                (i % 500) as f64 / 1000.0
            }
        })
        .collect()
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
                assert!(compare(&array, &subset, endian));
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 4 * 2 * 7);
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
        assert!(compare(
            &array,
            &ArraySubset::new_with_ranges(&ranges),
            "rectangular"
        ));
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
            assert!(compare(
                &array,
                &subset,
                &format!("{shape:?} {:?}", array.chunk_grid())
            ));
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
        assert!(compare(&sharded, &subset, "sharded"));
    }
    for subset in subsets(&[37, 23], &[8, 6]) {
        assert!(!compare(&transposed, &subset, "transposed"));
    }
}

#[test]
fn an_element_that_fails_to_decode_gives_the_error_zarrs_gives() {
    // Stored int16 values decode to int8 through cast_value: 300 is out of range.
    let (store, array) = int8_stored_as_int16(&[4, 4], &[2, 4], 0);
    array
        .store_array_subset(&[0..2, 0..4], vec![1i8, 2, 3, 4, 5, 6, 7, 8])
        .unwrap();
    let chunk: Vec<u8> = [10i16, 20, 300, 40, 50, 60, 70, 80]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    store
        .set(&StoreKey::new("c/1/0").unwrap(), chunk.into())
        .unwrap();
    for subset in subsets(&[4, 4], &[2, 4]) {
        compare(&array, &subset, "int16 -> int8");
    }
    let reader = FusedReader::new(&array);
    let mut out = vec![0i8; 16];
    let error = reader
        .retrieve_array_subset_into(&ArraySubset::new_with_ranges(&[0..4, 0..4]), &mut out)
        .unwrap_err()
        .to_string();
    assert!(error.contains("element 2 of the chunk (300)"), "{error}");
}

#[test]
fn outputs_that_do_not_match_the_subset_or_the_element_type_are_errors() {
    let array = array(&reflectance_codecs(), "little", &json!([]), &json!("NaN"));
    let reader = FusedReader::new(&array);
    let subset = ArraySubset::new_with_ranges(&[0..2, 0..2]);
    assert!(
        reader
            .retrieve_array_subset_into(&subset, &mut [0f64; 3])
            .is_err()
    );
    // Elements of another type, even of the same size, as zarrs' typed reads refuse them.
    for error in [
        reader
            .retrieve_array_subset_into(&subset, &mut [0f32; 4])
            .unwrap_err(),
        reader
            .retrieve_array_subset_into(&subset, &mut [0u64; 4])
            .unwrap_err(),
        reader
            .retrieve_array_subset_into(&subset, &mut [0i64; 4])
            .unwrap_err(),
    ] {
        assert!(
            matches!(error, zarrs::array::ArrayError::ElementError(_)),
            "{error}"
        );
    }
    assert!(
        reader
            .retrieve_array_subset_into(&[0..2, 0..2], &mut [0f64; 4])
            .is_ok()
    );
    assert!(
        reader
            .retrieve_array_subset_into(
                &ArraySubset::new_with_start_shape(vec![0], vec![2]).unwrap(),
                &mut [0f64; 2]
            )
            .is_err()
    );
}

#[test]
fn a_chunk_file_of_the_wrong_size_is_an_error_in_both() {
    let array = array(&reflectance_codecs(), "little", &json!([]), &json!("NaN"));
    array
        .store_array_subset(&[0..37, 0..23], vec![0.5f64; 37 * 23])
        .unwrap();
    let key = array.chunk_key(&[0, 0]);
    let stored = array.storage().get(&key).unwrap().unwrap();
    for bytes in [
        stored[..stored.len() - 2].to_vec(),
        [stored.to_vec(), vec![0, 0]].concat(),
    ] {
        array.storage().set(&key, bytes.into()).unwrap();
        // Whole chunks are errors; zarrs reads the parts of a chunk it needs, which a longer
        // file holds: the fused path answers as zarrs does.
        let whole = ArraySubset::new_with_ranges(&[0..8, 0..6]);
        assert!(array.retrieve_array_subset::<Vec<f64>>(&whole).is_err());
        for subset in [
            whole,
            ArraySubset::new_with_ranges(&[0..8, 0..8]),
            ArraySubset::new_with_ranges(&[2..3, 1..5]),
        ] {
            compare(&array, &subset, "a chunk file of the wrong size");
        }
    }
}

#[test]
fn subsets_beyond_the_array_read_as_zarrs_reads_them() {
    let array = array(&reflectance_codecs(), "little", &json!([]), &json!("NaN"));
    let values: Vec<f64> = (0..37 * 23).map(|i| f64::from(i) * 1e-4).collect();
    array.store_array_subset(&[0..37, 0..23], values).unwrap();
    let reader = FusedReader::new(&array);
    for subset in [
        ArraySubset::new_with_ranges(&[34..42, 20..26]),
        ArraySubset::new_with_ranges(&[37..39, 0..2]),
        ArraySubset::new_with_ranges(&[0..40, 0..30]),
    ] {
        let expected: Result<Vec<f64>, _> = array.retrieve_array_subset(&subset);
        let mut got = vec![0f64; usize::try_from(subset.num_elements()).unwrap()];
        let read = reader.retrieve_array_subset_into(&subset, &mut got);
        match expected {
            Ok(expected) => {
                read.unwrap();
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&expected), "{subset:?}");
            }
            Err(expected) => assert_eq!(read.unwrap_err().to_string(), expected.to_string()),
        }
    }
}

#[test]
fn blocks_with_elements_beyond_the_safe_magnitude_decode_exactly_or_fail_as_zarrs_does() {
    // With scale 1e-305, stored values above about 450 decode beyond the magnitude the fused loop
    // takes; 1797 still decodes (to about 1.797e308), 1798 overflows.
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [2, 6], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1, 6]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [
            {"name": "scale_offset", "configuration": {"scale": 1e-305}},
            {"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp"}},
            {"name": "bytes", "configuration": {"endian": "little"}}
        ],
    }))
    .unwrap();
    let store = Arc::new(MemoryStore::new());
    let array = Array::new_with_metadata(store.clone(), "/", metadata).unwrap();
    for (key, values) in [
        ("c/0/0", [1u16, 100, 450, 500, 1000, 1797]),
        ("c/1/0", [1, 2, 3, 1798, 5, 6]),
    ] {
        let chunk: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
        store
            .set(&StoreKey::new(key).unwrap(), chunk.into())
            .unwrap();
    }
    assert!(FusedReader::new(&array).is_fused());
    compare(
        &array,
        &ArraySubset::new_with_ranges(&[0..1, 0..6]),
        "beyond the safe magnitude",
    );
    compare(
        &array,
        &ArraySubset::new_with_ranges(&[0..2, 0..6]),
        "overflowing",
    );
    let first_row: Vec<f64> = array.retrieve_array_subset(&[0..1, 0..6]).unwrap();
    assert!(first_row[5] > 1.79e308 && first_row[5].is_finite());
}

#[test]
fn a_scalar_map_value_whose_decode_overflows_fails_as_zarrs_does() {
    // `x / 0.5 - 0.1` cannot overflow for a stored uint16, but it does for a mapped float32 MAX
    // (`None`: an error); 2^126 still decodes, and the infinities and NaN decode to themselves.
    for (value, decoded) in [
        (json!(f64::from(f32::MAX)), None),
        (json!(2f64.powi(126)), Some(2f32.powi(127))),
        (json!("Infinity"), Some(f32::INFINITY)),
        (json!("-Infinity"), Some(f32::NEG_INFINITY)),
        (json!("NaN"), Some(f32::NAN)),
    ] {
        let metadata: ArrayMetadata = serde_json::from_value(json!({
            "zarr_format": 3, "node_type": "array", "shape": [40], "data_type": "float32",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [40]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": -0.1,
            "codecs": [
                {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 0.5}},
                {"name": "cast_value", "configuration": {"data_type": "uint16",
                    "out_of_range": "clamp", "scalar_map": {"decode": [[7, value]]}}},
                {"name": "bytes", "configuration": {"endian": "little"}}
            ],
        }))
        .unwrap();
        let store = Arc::new(MemoryStore::new());
        let array = Array::new_with_metadata(store.clone(), "/", metadata).unwrap();
        // The mapped key 7 at element 5, multiples of 1000 elsewhere.
        let stored: Vec<u16> = (0..40).map(|i| if i == 5 { 7 } else { i * 1000 }).collect();
        let chunk: Vec<u8> = stored.iter().flat_map(|x| x.to_le_bytes()).collect();
        store
            .set(&StoreKey::new("c/0").unwrap(), chunk.into())
            .unwrap();
        let whole = ArraySubset::new_with_shape(vec![40]);
        assert!(compare(&array, &whole, &value.to_string()), "{value}");
        let mut out = vec![0f32; 40];
        let read = FusedReader::new(&array).retrieve_array_subset_into(&whole, &mut out);
        match decoded {
            None => assert!(read.is_err(), "{value}"),
            Some(want) => {
                read.unwrap();
                assert_eq!(out[5].to_bits(), want.to_bits(), "{value}");
                assert_eq!(out[6].to_bits(), (12_000f32 - 0.1).to_bits(), "{value}");
            }
        }
    }
}

#[test]
fn large_chunks_split_over_threads_read_the_same_and_fail_the_same() {
    // Chunks of 307,200 elements: on several threads each is decoded in parts. One element of the
    // second chunk (int16 300) does not fit int8, deep inside a later part.
    let (store, array) = int8_stored_as_int16(&[1100, 600], &[512, 600], -1);
    let values: Vec<i8> = (0..1024 * 600).map(|i| (i % 251) as i8).collect();
    array
        .store_array_subset(&[0..1024, 0..600], values)
        .unwrap();
    let whole = ArraySubset::new_with_ranges(&[0..1100, 0..600]);
    assert!(compare(&array, &whole, "large chunks"));
    let rows = ArraySubset::new_with_ranges(&[100..700, 3..597]);
    assert!(compare(&array, &rows, "large chunks, a subset"));
    let mut chunk: Vec<i16> = (0..512 * 600).map(|i| (i % 100) as i16).collect();
    chunk[400 * 600 + 17] = 300;
    let bytes: Vec<u8> = chunk.iter().flat_map(|x| x.to_le_bytes()).collect();
    store
        .set(&StoreKey::new("c/1/0").unwrap(), bytes.into())
        .unwrap();
    assert!(compare(
        &array,
        &whole,
        "large chunks, one element out of range"
    ));
    let fine = ArraySubset::new_with_ranges(&[512..900, 0..600]);
    assert!(compare(&array, &fine, "large chunks, the element not read"));
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
    let bits = |a: &[f64]| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(got.as_slice().unwrap()),
        bits(expected.as_slice().unwrap())
    );
    let wrong = reader.retrieve_array_subset::<ndarray::Array3<f64>>(&[1..7, 2..5]);
    assert!(wrong.unwrap_err().to_string().contains("3 dimensions"));
}

/// An int8 array stored as `[cast_value(int16), bytes]` in memory, and its store.
fn int8_stored_as_int16(
    shape: &[u64],
    chunk: &[u64],
    fill: i8,
) -> (Arc<MemoryStore>, Array<MemoryStore>) {
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": "int8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill,
        "codecs": [
            {"name": "cast_value", "configuration": {"data_type": "int16"}},
            {"name": "bytes", "configuration": {"endian": "little"}}
        ],
    }))
    .unwrap();
    let store = Arc::new(MemoryStore::new());
    let array = Array::new_with_metadata(store.clone(), "/", metadata).unwrap();
    (store, array)
}
