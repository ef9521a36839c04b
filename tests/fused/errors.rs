//! Where the fused read path fails, it fails as zarrs' own path does: an element that fails to
//! decode (the same error), outputs that do not match the subset or the element type, chunk files
//! of the wrong size, elements beyond the kernels' safe magnitudes and `scalar_map` values whose
//! decode overflows, on one thread and split over several.

use std::sync::Arc;

use crate::support::{array, compare, int8_stored_as_int16, reflectance_codecs, subsets};
use serde_json::json;
use zarrs::array::{Array, ArrayMetadata, ArraySubset};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ReadableStorageTraits, StoreKey, WritableStorageTraits};
use zarrs_scale_offset_cast::{Fallback, FusedReader};

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
        compare(&array, &subset, "int16 -> int8", &[Fallback::Element]);
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
            compare(
                &array,
                &subset,
                "a chunk file of the wrong size",
                &[Fallback::StoredBytes],
            );
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
    let safe = ArraySubset::new_with_ranges(&[0..1, 0..6]);
    compare(&array, &safe, "beyond the safe magnitude", &[]).unwrap();
    let overflowing = ArraySubset::new_with_ranges(&[0..2, 0..6]);
    assert!(compare(&array, &overflowing, "overflowing", &[Fallback::Element]).is_none());
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
        compare(&array, &whole, &value.to_string(), &[Fallback::Element]);
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
    compare(&array, &whole, "large chunks", &[]).unwrap();
    let rows = ArraySubset::new_with_ranges(&[100..700, 3..597]);
    compare(&array, &rows, "large chunks, a subset", &[]).unwrap();
    let mut chunk: Vec<i16> = (0..512 * 600).map(|i| (i % 100) as i16).collect();
    chunk[400 * 600 + 17] = 300;
    let bytes: Vec<u8> = chunk.iter().flat_map(|x| x.to_le_bytes()).collect();
    store
        .set(&StoreKey::new("c/1/0").unwrap(), bytes.into())
        .unwrap();
    let failed = compare(
        &array,
        &whole,
        "one element out of range",
        &[Fallback::Element],
    );
    assert!(failed.is_none(), "{failed:?}");
    let fine = ArraySubset::new_with_ranges(&[512..900, 0..600]);
    compare(&array, &fine, "large chunks, the element not read", &[]).unwrap();
}
