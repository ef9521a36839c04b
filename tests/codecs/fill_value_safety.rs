//! The fill value's data-safety rules through the public zarrs API: a fill value that does not
//! come back from the chain is reported and refuses writes (never reads), one the whole chain
//! returns is taken although one codec changes it, and the rules hold inside shards.

use std::sync::Arc;

use crate::arrays::{open_1d, scale_offset, span};
use serde_json::json;
use zarrs::array::{Array, ArrayBytes, ArrayMetadata};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ReadableStorageTraits, StoreKey, WritableStorageTraits};
use zarrs_scale_offset_cast::{CheckedArray, Error, validate_array};

/// The bits of `values`.
fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn a_fill_value_that_does_not_come_back_is_reported_and_refuses_every_write_but_no_read() {
    for (data_type, fill, codecs, becomes) in [
        (
            "float64",
            json!(0.1),
            scale_offset(&json!({"scale": 3})),
            "0.10000000000000002",
        ),
        (
            "float64",
            json!(-0.0),
            json!([{"name": "cast_value", "configuration": {"data_type": "int32"}}]),
            "0",
        ),
        (
            "float32",
            json!(0.1),
            scale_offset(&json!({"offset": 0.5, "scale": 10})),
            "0.099999994",
        ),
    ] {
        let (store, array) = open_1d(data_type, &fill, &codecs, 8, 4).unwrap();
        let error = validate_array(&array).unwrap_err();
        let Some(Error::FillValueChanges {
            fill_value,
            becomes: became,
            survivor,
            ..
        }) = Error::find(&error)
        else {
            panic!("{fill} {codecs}: {error}");
        };
        assert_eq!(
            (fill_value.as_str(), became.as_str()),
            (fill.to_string().trim_end_matches(".0"), becomes),
            "{error}"
        );
        assert_eq!(survivor.as_deref(), Some(becomes), "{error}");
        // The first write is refused, also of a whole chunk without the fill value.
        let values = if data_type == "float64" {
            ArrayBytes::new_flen(bytemuck::cast_slice(&[1.0f64, 2.0, 3.0, 4.0]).to_vec())
        } else {
            ArrayBytes::new_flen(bytemuck::cast_slice(&[1.0f32, 2.0, 3.0, 4.0]).to_vec())
        };
        let error = array.store_chunk(&[0], values).unwrap_err();
        assert!(
            matches!(Error::find(&error), Some(Error::FillValueChanges { .. })),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .contains(&format!("use the fill value {becomes}")),
            "{error}"
        );
        assert!(store.get(&StoreKey::new("c/0").unwrap()).unwrap().is_none());
        // Reading is not refused.
        let read: ArrayBytes<'static> = array.retrieve_array_subset(&span(2, 6)).unwrap();
        assert_eq!(
            read.into_fixed().unwrap().len(),
            4 * array.data_type().fixed_size().unwrap()
        );
    }
}

#[test]
fn with_a_fill_value_that_comes_back_edge_chunks_and_partial_rewrites_are_written() {
    // -0.1 encodes to 0 and comes back as -0.1; the array ends inside its last chunk.
    let codecs = json!([
        {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
        {"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp"}},
    ]);
    let (_, array) = open_1d("float64", &json!(-0.1), &codecs, 10, 4).unwrap();
    validate_array(&array).unwrap();
    array
        .store_array_subset(&span(8, 10), vec![0.25, 0.5])
        .unwrap();
    array
        .store_array_subset(&span(1, 3), vec![0.125, 0.375])
        .unwrap();
    array.store_array_subset(&span(2, 3), vec![0.75]).unwrap();
    let read: Vec<f64> = array.retrieve_array_subset(&span(0, 10)).unwrap();
    // Each element as the specification computes it: rounded to a step of 1e-4.
    let q = |x: f64| ((x + 0.1) * 10000.0).round_ties_even() / 10000.0 + -0.1;
    assert_eq!(
        bits(&read),
        bits(&[
            -0.1,
            q(0.125),
            q(0.75),
            -0.1,
            -0.1,
            -0.1,
            -0.1,
            -0.1,
            q(0.25),
            q(0.5)
        ])
    );
}

#[test]
fn a_fill_value_the_whole_chain_returns_is_taken_although_one_codec_changes_it() {
    // scale_offset alone turns float64 0.8999999761581421 (float32 0.9) into 0.899999976158142,
    // which the cast back to float32 rounds to 0.9 again.
    let codecs = json!([
        {"name": "cast_value", "configuration": {"data_type": "float64"}},
        {"name": "scale_offset", "configuration": {"scale": 0.333_333_333_333_333_3}},
    ]);
    let fill = json!(0.9);
    // Checked codec by codec (the array as opened), scale_offset refuses the write.
    let (_, unchecked) = open_1d("float32", &fill, &codecs, 10, 4).unwrap();
    let error = unchecked
        .store_array_subset(&span(0, 2), vec![1.0f32, 2.0])
        .unwrap_err();
    let Some(Error::FillValueChanges { through, .. }) = Error::find(&error) else {
        panic!("{error}");
    };
    assert_eq!(through, "scale_offset");
    // A CheckedArray decides for the whole chain, which returns the fill value.
    let (_, array) = open_1d("float32", &fill, &codecs, 10, 4).unwrap();
    let array = CheckedArray::new(&array).unwrap();
    array
        .store_array_subset(&span(1, 3), vec![1.0f32, 2.0])
        .unwrap();
    array
        .store_array_subset(&span(8, 10), vec![3.0f32, 4.0])
        .unwrap();
    let read: Vec<f32> = array.retrieve_array_subset(&span(0, 10)).unwrap();
    let expected = [0.9f32, 1.0, 2.0, 0.9, 0.9, 0.9, 0.9, 0.9, 3.0, 4.0];
    assert_eq!(
        read.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        expected.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn an_element_that_becomes_the_fill_value_inside_the_chain_is_written() {
    // 1.0001 becomes float16 1.0, the fill value entering scale_offset; the chain returns 1.0.
    let codecs = json!([
        {"name": "cast_value", "configuration": {"data_type": "float16"}},
        {"name": "scale_offset", "configuration": {"offset": 0.1, "scale": 3}},
    ]);
    let (_, array) = open_1d("float64", &json!(1.0), &codecs, 4, 4).unwrap();
    array
        .store_array_subset(&span(0, 4), vec![1.0001, 2.5, 1.0, -3.0])
        .unwrap();
    let read: Vec<f64> = array.retrieve_array_subset(&span(0, 4)).unwrap();
    assert_eq!(read, [1.0, 2.5, 1.0, -3.0]);
}

#[test]
fn the_fill_value_rule_holds_inside_shards_and_arrays_written_elsewhere_stay_readable() {
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [8], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": -0.0,
        "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4],
            "codecs": [{"name": "cast_value", "configuration": {"data_type": "int32"}},
                       {"name": "bytes", "configuration": {"endian": "little"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}],
    }))
    .unwrap();
    let store = Arc::new(MemoryStore::new());
    let array = Array::new_with_metadata(store.clone(), "/", metadata).unwrap();
    let error = validate_array(&array).unwrap_err();
    assert!(
        matches!(Error::find(&error), Some(Error::FillValueChanges { .. })),
        "{error}"
    );
    let error = array
        .store_array_subset(&span(1, 3), vec![1.0f64, 2.0])
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("fill value -0 comes back from cast_value as 0"),
        "{error}"
    );
    // A shard another implementation wrote, holding -0.0 stored as 0, reads as +0.0; the
    // subchunk it left out reads as the fill value, -0.0, whole or in part.
    let mut shard: Vec<u8> = [0i32, 7, 0, 0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    for (offset, size) in [(0u64, 16u64), (u64::MAX, u64::MAX)] {
        shard.extend(offset.to_le_bytes());
        shard.extend(size.to_le_bytes());
    }
    store
        .set(&StoreKey::new("c/0").unwrap(), shard.into())
        .unwrap();
    let values: Vec<f64> = array.retrieve_array_subset(&span(0, 8)).unwrap();
    assert_eq!(
        bits(&values),
        bits(&[0.0, 7.0, 0.0, 0.0, -0.0, -0.0, -0.0, -0.0])
    );
    let part: Vec<f64> = array.retrieve_array_subset(&span(5, 6)).unwrap();
    assert_eq!(bits(&part), bits(&[-0.0]));
}
