//! Errors of both codecs through the public zarrs API: configurations rejected when an array is
//! opened or first used, values that cannot be encoded, fill values that cannot survive.

use serde_json::json;
use zarrs::array::ArrayBytes;
use zarrs::storage::{ReadableStorageTraits, StoreKey, WritableStorageTraits};
use zarrs_scale_offset_cast as _;
use zarrs_scale_offset_cast::{FusedReader, validate_array};

use crate::arrays::{open, span};

#[test]
fn a_zero_scale_is_rejected_when_the_array_is_opened_or_when_its_hex_value_is_known() {
    for scale in [json!(0), json!(0.0), json!(-0.0)] {
        let codecs = json!([{"name": "scale_offset", "configuration": {"scale": scale}}]);
        let error = open(&[4], &[4], "float64", json!(0), codecs).unwrap_err();
        assert!(error.contains("is zero; it must not be"), "{error}");
    }
    // A hex string is a zero only in the data type it is read in.
    let codecs =
        json!([{"name": "scale_offset", "configuration": {"scale": "0x0000000000000000"}}]);
    let (_, array) = open(&[4], &[4], "float64", json!(0), codecs).unwrap();
    let error = validate_array(&array).unwrap_err().to_string();
    assert!(error.contains("is zero; it must not be"), "{error}");
    let error = array
        .store_array_subset(&span(0, 4), vec![1.0f64; 4])
        .unwrap_err()
        .to_string();
    assert!(error.contains("is zero; it must not be"), "{error}");
}

#[test]
fn configuration_errors_that_need_no_data_type_are_rejected_when_opened() {
    let cases = [
        (
            json!([{"name": "scale_offset", "configuration": {"offset": 1, "bogus": 2}}]),
            "bogus",
        ),
        (
            json!([{"name": "scale_offset", "configuration": {"offset": [1, 2]}}]),
            "offset",
        ),
        (
            json!([{"name": "scale_offset", "configuration": {"offset": "5"}}]),
            "offset",
        ),
        (
            json!([{"name": "cast_value", "configuration": {"data_type": "float32", "out_of_range": "wrap"}}]),
            "wrap",
        ),
        (
            json!([{"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "up"}}]),
            "up",
        ),
        (
            json!([{"name": "cast_value", "configuration": {"data_type": "uint8", "out_of_range": null}}]),
            "null",
        ),
        (json!([{"name": "cast_value"}]), "data_type"),
        (
            json!([{"name": "cast_value", "configuration": {"data_type": "bool"}}]),
            "not supported",
        ),
    ];
    for (codecs, needle) in cases {
        let error = open(&[4], &[4], "float64", json!(0), codecs.clone()).unwrap_err();
        assert!(error.contains(needle), "{codecs}: {error}");
    }
}

#[test]
fn data_type_dependent_errors_surface_at_the_first_write_and_in_validation() {
    let cases = [
        (
            "bool",
            json!(false),
            json!([{"name": "scale_offset", "configuration": {"offset": 1}}]),
            "Unsupported data type bool for codec scale_offset",
        ),
        (
            "complex64",
            json!([0.0, 0.0]),
            json!([{"name": "cast_value", "configuration": {"data_type": "float32"}}]),
            "Unsupported data type complex64 for codec cast_value",
        ),
        (
            "uint8",
            json!(0),
            json!([{"name": "scale_offset", "configuration": {"offset": -1}}]),
            "offset -1 is not a valid uint8 value",
        ),
        (
            "int32",
            json!(0),
            json!([{"name": "cast_value", "configuration": {"data_type": "int8", "scalar_map": {"encode": [["NaN", 0]]}}}]),
            "scalar_map.encode[0] key \"NaN\" is not a valid int32 value",
        ),
    ];
    for (data_type, fill, codecs, message) in cases {
        let (store, array) = open(&[4], &[4], data_type, fill, codecs).unwrap();
        let error = validate_array(&array).unwrap_err().to_string();
        assert!(error.contains(message), "{error}");
        // Not the fill value: zarrs stores a chunk of fill values without encoding it.
        let bytes = vec![1u8; 4 * array.data_type().fixed_size().unwrap()];
        let error = array
            .store_chunk(&[0], ArrayBytes::new_flen(bytes))
            .unwrap_err()
            .to_string();
        assert!(error.contains(message), "{error}");
        assert!(
            store
                .get(&StoreKey::new("a/c/0").unwrap())
                .unwrap()
                .is_none()
        );
    }
}

#[test]
fn a_value_that_cannot_be_encoded_fails_the_store_and_leaves_its_chunk_unchanged() {
    let codecs = json!([{"name": "cast_value", "configuration": {"data_type": "uint8"}}]);
    let (store, array) = open(&[8], &[4], "float64", json!(0), codecs).unwrap();
    array.store_array_subset(&span(0, 8), vec![1.0; 8]).unwrap();
    let key = StoreKey::new("a/c/1").unwrap();
    let before = store.get(&key).unwrap().unwrap();
    let error = array
        .store_chunk(&[1], vec![2.0, 300.0, 2.0, f64::NAN])
        .unwrap_err()
        .to_string();
    assert!(error.contains("element 1 of the chunk (300)"), "{error}");
    assert!(
        error.contains("outside the range of uint8 [0, 255]"),
        "{error}"
    );
    assert!(
        error.contains("set out_of_range to \"clamp\" or \"wrap\""),
        "{error}"
    );
    assert_eq!(store.get(&key).unwrap().unwrap(), before);
    // Over several chunks, zarrs encodes and stores each chunk on its own: the chunk holding the
    // bad value is not written.
    let error = array
        .store_array_subset(
            &span(0, 8),
            vec![2.0, 2.0, 2.0, 2.0, f64::NAN, 2.0, 2.0, 2.0],
        )
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("uint8 has no NaN; add an entry for \"NaN\" to scalar_map.encode"),
        "{error}"
    );
    assert_eq!(store.get(&key).unwrap().unwrap(), before);
    let back: Vec<f64> = array.retrieve_array_subset(&span(4, 8)).unwrap();
    assert_eq!(back, [1.0; 4]);
    // A new chunk with a bad value is not created.
    let (store, array) = open(
        &[8],
        &[4],
        "float64",
        json!(0),
        json!([{"name": "cast_value", "configuration": {"data_type": "uint8"}}]),
    )
    .unwrap();
    assert!(array.store_chunk(&[0], vec![-1.0; 4]).is_err());
    assert!(
        store
            .get(&StoreKey::new("a/c/0").unwrap())
            .unwrap()
            .is_none()
    );
}

#[test]
fn a_fill_value_that_cannot_survive_the_round_trip_fails_writes_before_any_chunk_is_touched_and_no_read()
 {
    let codecs = json!([{"name": "cast_value", "configuration": {"data_type": "float32"}}]);
    let (store, array) = open(&[4], &[4], "float64", json!(0.1), codecs).unwrap();
    let message = "does not survive the round trip";
    assert!(
        validate_array(&array)
            .unwrap_err()
            .to_string()
            .contains(message)
    );
    let error = array
        .store_array_subset(&span(0, 4), vec![0.5; 4])
        .unwrap_err()
        .to_string();
    assert!(error.contains(message), "{error}");
    assert!(
        store
            .get(&StoreKey::new("a/c/0").unwrap())
            .unwrap()
            .is_none()
    );
    // Reads take the fill value, so that arrays other implementations wrote with it stay
    // readable: a chunk written by someone else decodes as the specification decodes it.
    store
        .set(
            &StoreKey::new("a/c/0").unwrap(),
            0.25f32.to_le_bytes().repeat(4).into(),
        )
        .unwrap();
    let values = array
        .retrieve_array_subset::<Vec<f64>>(&span(0, 4))
        .unwrap();
    assert_eq!(values, [0.25; 4]);
    let reader = FusedReader::new(&array);
    let values = reader
        .retrieve_array_subset::<Vec<f64>>(&span(0, 4))
        .unwrap();
    assert_eq!(values, [0.25; 4]);
    assert!(reader.is_fused(), "read on the fast path");
}

#[test]
fn a_scale_offset_fill_value_that_cannot_be_encoded_fails_writes_and_no_read() {
    // 0 - 10 is below uint8's range.
    let codecs = json!([{"name": "scale_offset", "configuration": {"offset": 10}}]);
    let (store, array) = open(&[8], &[4], "uint8", json!(0), codecs).unwrap();
    let message = "cannot be encoded";
    let error = validate_array(&array).unwrap_err().to_string();
    assert!(error.contains(message), "{error}");
    let error = array
        .store_array_subset(&span(0, 4), vec![12u8; 4])
        .unwrap_err()
        .to_string();
    assert!(error.contains(message), "{error}");
    let key = StoreKey::new("a/c/0").unwrap();
    assert!(store.get(&key).unwrap().is_none());
    // A chunk written elsewhere decodes (x + 10); the chunk never written reads as the fill value.
    store.set(&key, vec![0u8, 1, 2, 245].into()).unwrap();
    let expected = [10u8, 11, 12, 255, 0, 0, 0, 0];
    assert_eq!(
        array.retrieve_array_subset::<Vec<u8>>(&span(0, 8)).unwrap(),
        expected
    );
    let reader = FusedReader::new(&array);
    assert_eq!(
        reader
            .retrieve_array_subset::<Vec<u8>>(&span(0, 8))
            .unwrap(),
        expected
    );
    assert!(reader.is_fused(), "read on the fast path");
    assert_eq!(
        array.retrieve_array_subset::<Vec<u8>>(&span(2, 6)).unwrap(),
        expected[2..6]
    );
}
