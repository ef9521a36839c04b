//! The crate's data-safety rules through the public zarrs API: configurations that destroy every
//! value are rejected, a write never stores what its own decode rejects, sub-byte elements with
//! spare bits set are errors, and malformed scalars are rejected (the fill value's rules:
//! `tests/fill_value_safety.rs`).

use crate::arrays::{open_1d, scale_offset};
use serde_json::json;
use zarrs::array::{Array, ArrayBytes};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ReadableStorageTraits, StoreKey, WritableStorageTraits};
use zarrs_scale_offset_cast::validate_array;

#[test]
fn a_nan_or_infinite_scale_or_offset_is_rejected_when_the_array_is_opened() {
    for configuration in [
        json!({"scale": "NaN"}),
        json!({"scale": "Infinity"}),
        json!({"scale": "-Infinity"}),
        json!({"offset": "Infinity"}),
        json!({"offset": "NaN", "scale": 2}),
    ] {
        let error = open_1d("float64", &json!(0), &scale_offset(&configuration), 4, 4)
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
        let (_, array) = open_1d(data_type, &fill, &scale_offset(&configuration), 4, 4).unwrap();
        let error = validate_array(&array).unwrap_err().to_string();
        assert!(
            error.contains("zero") || error.contains("not finite"),
            "{data_type} {configuration}: {error}"
        );
    }
    // float8_e8m0fnu has no zero: "0x00" is 2^-127, a valid scale.
    let (_, array) = open_1d(
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
        let (store, array) = open_1d(data_type, &json!(0), &codecs, 2, 2).unwrap();
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
    let (_, array) = open_1d("int32", &json!(0), &codecs, 2, 2).unwrap();
    array.store_chunk(&[0], vec![5i32, i32::MAX]).unwrap();
    let back: Vec<i32> = array.retrieve_chunk(&[0]).unwrap();
    assert_eq!(back, [5, i32::MAX]);
    // A scalar_map entry for Infinity on decode.
    let codecs = json!([{"name": "cast_value", "configuration": {"data_type": "float16", "out_of_range": "clamp",
        "scalar_map": {"decode": [["Infinity", 2_147_483_647], ["-Infinity", -2_147_483_648]]}}}]);
    let (_, array) = open_1d("int32", &json!(0), &codecs, 2, 2).unwrap();
    array.store_chunk(&[0], vec![-70000i32, 70000]).unwrap();
    let back: Vec<i32> = array.retrieve_chunk(&[0]).unwrap();
    assert_eq!(back, [i32::MIN, i32::MAX]);
}

#[test]
fn sub_byte_elements_with_spare_bits_set_are_errors_naming_the_element() {
    let codecs = json!([{"name": "cast_value", "configuration": {"data_type": "int8"}}]);
    let (_, array) = open_1d("int4", &json!(0), &codecs, 4, 4).unwrap();
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
    let (store, array) = open_1d("uint4", &json!(0), &codecs, 2, 2).unwrap();
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

#[test]
fn malformed_scalars_are_rejected_wherever_they_appear() {
    for configuration in [
        json!({"offset": "0x+f"}),
        json!({"scale": "0x 3ff0000000000000"}),
        json!({"scale": "0x3ff00000000000000"}),
        json!({"offset": " NaN"}),
    ] {
        let opened = open_1d("float64", &json!(0), &scale_offset(&configuration), 4, 4);
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
    let (_, array) = open_1d(
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
        let opened = open_1d("float64", &json!(0), &codecs, 4, 4);
        let error = rejection(opened);
        assert!(
            error.contains("cast_value") && error.contains("scalar_map"),
            "{map}: {error}"
        );
    }
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
