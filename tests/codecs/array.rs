//! Both codecs through the public zarrs API: opening, writing, reading and metadata (errors in
//! `tests/array_errors.rs`).

use std::sync::Arc;

use serde_json::json;
use zarrs::array::{Array, ArrayBuilder, ArrayBytes, ArrayMetadata, CodecOptions, data_type};
use zarrs::metadata::Configuration;
use zarrs::storage::store::MemoryStore;
use zarrs_scale_offset_cast::cast_value::CastValueCodecConfiguration;
use zarrs_scale_offset_cast::scale_offset::ScaleOffsetCodecConfiguration;
use zarrs_scale_offset_cast::{CastValueCodec, ScaleOffsetCodec, validate_array};

use crate::arrays::{NAN_TO_UINT8, open, span, stored_metadata};

#[test]
fn float64_stored_as_uint8_reads_back_within_half_a_step_with_nan_kept() {
    let (_, array) = open(
        &[10, 10],
        &[4, 4],
        "float64",
        json!("NaN"),
        serde_json::from_str(NAN_TO_UINT8).unwrap(),
    )
    .unwrap();
    let data: Vec<f64> = (0..100)
        .map(|i| {
            if i % 7 == 0 {
                f64::NAN
            } else {
                f64::from(i) * 25.4
            }
        })
        .collect();
    array
        .store_array_subset(&[0..10, 0..10], data.clone())
        .unwrap();
    let back: Vec<f64> = array.retrieve_array_subset(&[0..10, 0..10]).unwrap();
    for (x, y) in data.iter().zip(&back) {
        assert!(
            x.is_nan() == y.is_nan() && (x.is_nan() || (x - y).abs() <= 5.0 + 1e-9),
            "{x} -> {y}"
        );
    }
    // A subset across chunk boundaries decodes to the same values.
    let subset: Vec<f64> = array.retrieve_array_subset(&[3..7, 2..9]).unwrap();
    let back = &back;
    let expected: Vec<f64> = (3..7)
        .flat_map(|i| (2..9).map(move |j| back[i * 10 + j]))
        .collect();
    assert_eq!(subset.len(), expected.len());
    assert!(
        subset
            .iter()
            .zip(&expected)
            .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()))
    );
}

#[test]
fn metadata_keeps_the_codec_configurations_exactly_as_given() {
    let codecs = json!([
        {"name": "scale_offset", "configuration": {"offset": "0x3ff0000000000000", "scale": 0.5}},
        {"name": "scale_offset", "configuration": {}},
        {"name": "cast_value", "configuration": {"data_type": {"name": "uint8"}, "out_of_range": "clamp",
            "scalar_map": {"encode": [["+Infinity", 255], [0.0, 1], ["NaN", 0]], "decode": [[0, "NaN"]]}}}
    ]);
    let (store, array) = open(&[4], &[4], "float64", json!("NaN"), codecs.clone()).unwrap();
    array.store_metadata().unwrap();
    let written = &stored_metadata(&store)["codecs"];
    assert_eq!(written[0], codecs[0]);
    assert_eq!(written[1], json!({"name": "scale_offset"}));
    assert_eq!(written[2], codecs[2]);
    // zarrs keeps metadata as read: `{"name": "scale_offset"}` without a configuration comes back
    // as the shorthand "scale_offset" when an opened array writes its metadata again.
    let reopened = Array::open(store.clone(), "/a").unwrap();
    reopened.store_metadata().unwrap();
    let rewritten = &stored_metadata(&store)["codecs"];
    assert_eq!((&rewritten[0], &rewritten[2]), (&codecs[0], &codecs[2]));
    assert_eq!(rewritten[1], json!("scale_offset"));
}

#[test]
fn codecs_built_in_code_write_their_configuration() {
    let scale_offset: ScaleOffsetCodecConfiguration =
        serde_json::from_str(r#"{"offset": -10, "scale": 0.1}"#).unwrap();
    let cast_value: CastValueCodecConfiguration =
        serde_json::from_str(r#"{"data_type": "uint8", "out_of_range": "clamp"}"#).unwrap();
    let store = Arc::new(MemoryStore::new());
    let array = ArrayBuilder::new(vec![8], vec![4], data_type::float64(), 0.0f64)
        .array_to_array_codecs(vec![
            Arc::new(ScaleOffsetCodec::new_with_configuration(&scale_offset).unwrap()),
            Arc::new(CastValueCodec::new_with_configuration(&cast_value).unwrap()),
        ])
        .build(store.clone(), "/a")
        .unwrap();
    array.store_metadata().unwrap();
    let codecs = &stored_metadata(&store)["codecs"];
    assert_eq!(
        codecs[0],
        json!({"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}})
    );
    assert_eq!(
        codecs[1],
        json!({"name": "cast_value", "configuration": {"data_type": "uint8", "out_of_range": "clamp"}})
    );
    array
        .store_array_subset(
            &span(0, 8),
            vec![-10.0, 0.0, 1.0, 2540.0, 5000.0, -50.0, 12.34, 99.0],
        )
        .unwrap();
    let back: Vec<f64> = array.retrieve_array_subset(&span(0, 8)).unwrap();
    // Steps of 10 (scale 0.1), clamped to [-10, 2540].
    assert_eq!(back, [-10.0, 0.0, 0.0, 2540.0, 2540.0, -10.0, 10.0, 100.0]);
}

/// Chains whose encoding of a zero fill value fails, which zarrs uses as a stand-in to plan
/// concurrency: multi-chunk operations, with and without sharding, must work anyway.
#[test]
fn multi_chunk_and_sharded_operations_work_where_a_zero_fill_value_cannot_be_encoded() {
    let cases = [
        (
            "uint16",
            json!(1000),
            json!([{"name": "scale_offset", "configuration": {"offset": 1000}}, {"name": "cast_value", "configuration": {"data_type": "uint8"}}]),
            1000.0,
            1200.0,
        ),
        (
            "int8",
            json!(-100),
            json!([{"name": "scale_offset", "configuration": {"offset": -100, "scale": 2}}]),
            -100.0,
            -50.0,
        ),
        (
            "float32",
            json!(1.0),
            json!([{"name": "cast_value", "configuration": {"data_type": "float8_e8m0fnu"}}]),
            1.0,
            64.0,
        ),
        (
            "float64",
            json!("NaN"),
            serde_json::from_str(NAN_TO_UINT8).unwrap(),
            0.0,
            2540.0,
        ),
    ];
    for (data_type, fill, codecs, low, high) in cases {
        for sharded in [false, true] {
            let codecs = if sharded {
                json!([{"name": "sharding_indexed", "configuration": {
                    "chunk_shape": [2, 2],
                    "codecs": codecs.as_array().unwrap().iter().cloned().chain([json!({"name": "bytes", "configuration": {"endian": "little"}})]).collect::<Vec<_>>(),
                    "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]
                }}])
            } else {
                codecs.clone()
            };
            let (_, array) = if sharded {
                // The sharding codec is the array-to-bytes codec itself.
                let metadata = json!({
                    "zarr_format": 3, "node_type": "array", "shape": [6, 6], "data_type": data_type,
                    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
                    "chunk_key_encoding": {"name": "default"}, "fill_value": fill, "codecs": codecs,
                });
                let store = Arc::new(MemoryStore::new());
                let metadata: ArrayMetadata = serde_json::from_value(metadata).unwrap();
                let array = Array::new_with_metadata(store.clone(), "/a", metadata).unwrap();
                (store, array)
            } else {
                open(&[6, 6], &[4, 4], data_type, fill.clone(), codecs).unwrap()
            };
            validate_array(&array).unwrap();
            let values: Vec<f64> = (0..36)
                .map(|i| if i % 2 == 0 { low } else { high })
                .collect();
            let bytes = to_element_bytes(data_type, &values);
            let subset = bytes_subset(&bytes, 6, 5);
            array
                .store_array_subset(&[0..6, 0..5], ArrayBytes::new_flen(subset.clone()))
                .unwrap();
            let back = array
                .retrieve_array_subset::<ArrayBytes<'static>>(&[0..6, 0..5])
                .unwrap();
            assert_eq!(
                back.into_fixed().unwrap().as_ref(),
                subset.as_slice(),
                "{data_type} sharded={sharded}"
            );
        }
    }
}

fn to_element_bytes(data_type: &str, values: &[f64]) -> Vec<u8> {
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "exact test values"
    )]
    values
        .iter()
        .flat_map(|&v| match data_type {
            "uint16" => (v as u16).to_ne_bytes().to_vec(),
            "int8" => (v as i8).to_ne_bytes().to_vec(),
            "float32" => (v as f32).to_ne_bytes().to_vec(),
            _ => v.to_ne_bytes().to_vec(),
        })
        .collect()
}

/// The bytes of the first `columns` columns of a row-major `rows × 6` array.
fn bytes_subset(bytes: &[u8], rows: usize, columns: usize) -> Vec<u8> {
    let size = bytes.len() / 36;
    (0..rows)
        .flat_map(|r| bytes[(r * 6) * size..(r * 6 + columns) * size].to_vec())
        .collect()
}

#[test]
fn large_chunks_convert_the_same_on_several_threads() {
    let codecs = serde_json::from_str(NAN_TO_UINT8).unwrap();
    let (_, array) = open(&[1 << 20], &[1 << 20], "float64", json!("NaN"), codecs).unwrap();
    let data: Vec<f64> = (0..1 << 20).map(|i| f64::from(i % 2541)).collect();
    for threads in [1, 2] {
        let options = CodecOptions::default().with_concurrent_target(threads);
        array
            .store_array_subset_opt(&span(0, 1 << 20), data.clone(), &options)
            .unwrap();
        let back: Vec<f64> = array
            .retrieve_array_subset_opt(&span(0, 1 << 20), &options)
            .unwrap();
        assert!(
            data.iter().zip(&back).all(|(x, y)| (x - y).abs() <= 5.0),
            "{threads} threads"
        );
    }
}

#[test]
fn the_configuration_type_round_trips_through_json() {
    let json = r#"{"offset":"NaN","scale":2}"#;
    let configuration: ScaleOffsetCodecConfiguration = serde_json::from_str(json).unwrap();
    assert_eq!(serde_json::to_string(&configuration).unwrap(), json);
    let configuration: Configuration = configuration.into();
    assert_eq!(configuration.len(), 2);
}
