//! The crate's data-safety rules through the public zarrs API: configurations that destroy every
//! value are rejected, a write never stores what its own decode rejects, a fill value that does
//! not come back from the chain is reported and refuses writes (never reads), sub-byte elements
//! with spare bits set are errors, and malformed scalars are rejected.

use std::sync::Arc;

use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayBytes, ArrayMetadata, ArraySubset};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ReadableStorageTraits, StoreKey, WritableStorageTraits};
use zarrs_scale_offset_cast::{Error, validate_array};

/// A one-dimensional array of `len` elements in chunks of `chunk`, with `codecs` then `bytes`.
fn open(
    data_type: &str,
    fill: &Json,
    codecs: &Json,
    len: u64,
    chunk: u64,
) -> Result<(Arc<MemoryStore>, Array<MemoryStore>), String> {
    let mut codecs = codecs.as_array().unwrap().clone();
    codecs.push(json!({"name": "bytes", "configuration": {"endian": "little"}}));
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [len], "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [chunk]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill, "codecs": codecs,
    }))
    .map_err(|e| e.to_string())?;
    let store = Arc::new(MemoryStore::new());
    let array =
        Array::new_with_metadata(store.clone(), "/", metadata).map_err(|e| e.to_string())?;
    Ok((store, array))
}

/// The elements `start..end` of a one-dimensional array.
fn span(start: u64, end: u64) -> ArraySubset {
    ArraySubset::new_with_start_shape(vec![start], vec![end - start]).unwrap()
}

fn scale_offset(configuration: &Json) -> Json {
    json!([{"name": "scale_offset", "configuration": configuration}])
}

#[test]
fn a_nan_or_infinite_scale_or_offset_is_rejected_when_the_array_is_opened() {
    for configuration in [
        json!({"scale": "NaN"}),
        json!({"scale": "Infinity"}),
        json!({"scale": "-Infinity"}),
        json!({"offset": "Infinity"}),
        json!({"offset": "NaN", "scale": 2}),
    ] {
        let error = open("float64", &json!(0), &scale_offset(&configuration), 4, 4)
            .err()
            .unwrap_or_else(|| panic!("{configuration} accepted"));
        assert!(
            error.contains("scale_offset") && error.contains("is not finite"),
            "{error}"
        );
    }
}

#[test]
fn zero_and_non_finite_hex_parameters_are_judged_by_their_value_in_the_data_type() {
    // Rejected once the data type is known: zero, -0, NaN and infinite encodings.
    for (data_type, configuration) in [
        ("float64", json!({"scale": "0x0000000000000000"})),
        ("float64", json!({"scale": "0x8000000000000000"})),
        ("float32", json!({"scale": "0x7f800000"})),
        ("float32", json!({"offset": "0x7fc00001"})),
        ("float16", json!({"offset": "0xfc00"})),
        ("float8_e8m0fnu", json!({"scale": "0xff"})),
    ] {
        // float8_e8m0fnu has no zero: its fill value is 1 (0x7f).
        let fill = if data_type == "float8_e8m0fnu" {
            json!("0x7f")
        } else {
            json!(0)
        };
        let (_, array) = open(data_type, &fill, &scale_offset(&configuration), 4, 4).unwrap();
        let error = validate_array(&array).unwrap_err().to_string();
        assert!(
            error.contains("zero") || error.contains("not finite"),
            "{data_type} {configuration}: {error}"
        );
    }
    // float8_e8m0fnu has no zero: "0x00" is 2^-127, a valid scale.
    let (_, array) = open(
        "float8_e8m0fnu",
        &json!("0x7f"),
        &scale_offset(&json!({"scale": "0x00"})),
        4,
        4,
    )
    .unwrap();
    validate_array(&array).unwrap();
}

#[test]
fn a_write_whose_chunk_could_not_be_read_back_is_refused() {
    let cases = [
        // 127 rounds to 128 in float8_e4m3, which no int8 holds.
        (
            "int8",
            json!({"data_type": "float8_e4m3"}),
            json!([1, 127]),
            "128",
        ),
        // 2147483647 rounds to 2^31 in float32.
        (
            "int32",
            json!({"data_type": "float32"}),
            json!([5, 2_147_483_647]),
            "2147483648",
        ),
        // clamp sends 70000 to Infinity in float16, which no integer holds.
        (
            "int32",
            json!({"data_type": "float16", "out_of_range": "clamp"}),
            json!([5, 70000]),
            "Infinity",
        ),
        // 9223372036854775807 rounds to 2^63 in float64.
        (
            "int64",
            json!({"data_type": "float64"}),
            json!([5, 9_223_372_036_854_775_807_i64]),
            "9223372036854775808",
        ),
    ];
    for (data_type, cast, values, became) in cases {
        let codecs = json!([{"name": "cast_value", "configuration": cast}]);
        let (store, array) = open(data_type, &json!(0), &codecs, 2, 2).unwrap();
        let bytes: Vec<u8> = values
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|v| {
                let v = v.as_i64().unwrap();
                match data_type {
                    "int8" => i8::try_from(v).unwrap().to_ne_bytes().to_vec(),
                    "int32" => i32::try_from(v).unwrap().to_ne_bytes().to_vec(),
                    _ => v.to_ne_bytes().to_vec(),
                }
            })
            .collect();
        let error = array
            .store_chunk(&[0], ArrayBytes::new_flen(bytes))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("element 1") && error.contains(&format!("becomes {became}")),
            "{data_type} {cast}: {error}"
        );
        assert!(error.contains("could never be read"), "{error}");
        assert!(store.get(&StoreKey::new("c/0").unwrap()).unwrap().is_none());
    }
}

#[test]
fn the_same_casts_succeed_when_their_decode_takes_the_result_back() {
    // With clamp on decode, 2^31 reads back as 2147483647.
    let codecs = json!([{"name": "cast_value", "configuration": {"data_type": "float32", "out_of_range": "clamp"}}]);
    let (_, array) = open("int32", &json!(0), &codecs, 2, 2).unwrap();
    array.store_chunk(&[0], vec![5i32, i32::MAX]).unwrap();
    let back: Vec<i32> = array.retrieve_chunk(&[0]).unwrap();
    assert_eq!(back, [5, i32::MAX]);
    // A scalar_map entry for Infinity on decode.
    let codecs = json!([{"name": "cast_value", "configuration": {"data_type": "float16", "out_of_range": "clamp",
        "scalar_map": {"decode": [["Infinity", 2_147_483_647], ["-Infinity", -2_147_483_648]]}}}]);
    let (_, array) = open("int32", &json!(0), &codecs, 2, 2).unwrap();
    array.store_chunk(&[0], vec![-70000i32, 70000]).unwrap();
    let back: Vec<i32> = array.retrieve_chunk(&[0]).unwrap();
    assert_eq!(back, [i32::MIN, i32::MAX]);
}

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
        let (store, array) = open(data_type, &fill, &codecs, 8, 4).unwrap();
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
    let (_, array) = open("float64", &json!(-0.1), &codecs, 10, 4).unwrap();
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
    // Checked codec by codec (without validate_array), scale_offset refuses the write.
    let (_, unchecked) = open("float32", &fill, &codecs, 10, 4).unwrap();
    let error = unchecked
        .store_array_subset(&span(0, 2), vec![1.0f32, 2.0])
        .unwrap_err();
    let Some(Error::FillValueChanges { through, .. }) = Error::find(&error) else {
        panic!("{error}");
    };
    assert_eq!(through, "scale_offset");
    // validate_array decides for the whole chain, which returns the fill value.
    let (_, array) = open("float32", &fill, &codecs, 10, 4).unwrap();
    validate_array(&array).unwrap();
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
    let (_, array) = open("float64", &json!(1.0), &codecs, 4, 4).unwrap();
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

#[test]
fn sub_byte_elements_with_spare_bits_set_are_errors_naming_the_element() {
    let codecs = json!([{"name": "cast_value", "configuration": {"data_type": "int8"}}]);
    let (_, array) = open("int4", &json!(0), &codecs, 4, 4).unwrap();
    let error = array
        .store_chunk(&[0], ArrayBytes::new_flen(vec![0xf8u8, 7, 100, 0]))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("element 2") && error.contains("0x64") && error.contains("int4"),
        "{error}"
    );
    array
        .store_chunk(&[0], ArrayBytes::new_flen(vec![0xf8u8, 7, 1, 0]))
        .unwrap();
    // Decoded values outside a sub-byte target are errors too.
    let codecs = json!([{"name": "cast_value", "configuration": {"data_type": "int16"}}]);
    let (store, array) = open("uint4", &json!(0), &codecs, 2, 2).unwrap();
    let chunk: Vec<u8> = [3i16, 16].iter().flat_map(|x| x.to_le_bytes()).collect();
    store
        .set(&StoreKey::new("c/0").unwrap(), chunk.into())
        .unwrap();
    let error = array
        .retrieve_chunk::<ArrayBytes<'static>>(&[0])
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("element 1 of the chunk (16)") && error.contains("uint4"),
        "{error}"
    );
}

/// The message of the error that refused an array: when it was opened, or else by
/// `validate_array`.
fn rejection<S, E: std::fmt::Display>(opened: Result<(S, Array<MemoryStore>), E>) -> String {
    match opened {
        Err(error) => error.to_string(),
        Ok((_, array)) => validate_array(&array)
            .expect_err("a malformed scalar is refused")
            .to_string(),
    }
}

#[test]
fn malformed_scalars_are_rejected_wherever_they_appear() {
    for configuration in [
        json!({"offset": "0x+f"}),
        json!({"scale": "0x 3ff0000000000000"}),
        json!({"scale": "0x3ff00000000000000"}),
        json!({"offset": " NaN"}),
    ] {
        let opened = open("float64", &json!(0), &scale_offset(&configuration), 4, 4);
        let error = rejection(opened);
        let field = configuration
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        let scalar = configuration[&field].as_str().unwrap();
        assert!(
            error.contains("scale_offset") && error.contains(&field) && error.contains(scalar),
            "{configuration}: {error}"
        );
    }
    // An int64 scale beyond the 64-bit range reaches the crate as a float.
    let (_, array) = open(
        "int64",
        &json!(0),
        &scale_offset(&json!({"scale": -9_223_372_036_854_775_809.0_f64})),
        4,
        4,
    )
    .unwrap();
    let error = validate_array(&array).unwrap_err().to_string();
    assert!(error.contains("not exactly an integer"), "{error}");
    // scalar_map keys and values.
    for map in [
        json!({"encode": [["0x+f", 0]]}),
        json!({"encode": [["NaN", 1.5]]}),
        json!({"decode": [[0, "0x7ff"]]}),
    ] {
        let codecs = json!([{"name": "cast_value", "configuration": {"data_type": "uint8", "scalar_map": map}}]);
        let opened = open("float64", &json!(0), &codecs, 4, 4);
        let error = rejection(opened);
        assert!(
            error.contains("cast_value") && error.contains("scalar_map"),
            "{map}: {error}"
        );
    }
}
