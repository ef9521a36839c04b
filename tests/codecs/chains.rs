//! Chains of several codecs, decided as a whole by `validate_array`: a chain in which a later codec
//! can store what an earlier codec cannot decode is rejected, naming the value, both codecs and
//! what to change; through a `CheckedArray`, a write is refused only where the whole chain could
//! not read it back.

use std::sync::Arc;

use crate::arrays::span;

use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayBytes, ArrayMetadata};
use zarrs::storage::store::MemoryStore;
use zarrs_scale_offset_cast::{CheckedArray, ElementErrorKind, Error, validate_array};

/// A one-chunk array of `len` elements with `codecs` and then `bytes`.
fn open(data_type: &str, fill: &Json, codecs: &Json, len: u64) -> Array<MemoryStore> {
    let mut codecs = codecs.as_array().unwrap().clone();
    codecs.push(json!({"name": "bytes", "configuration": {"endian": "little"}}));
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [len], "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [len]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill, "codecs": codecs,
    }))
    .unwrap();
    Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata).unwrap()
}

/// A chain a later codec of which can store what an earlier codec cannot decode: the data type,
/// the codecs, an element whose write shows it, the kind of the failure and the advice given.
type Unreadable = (
    &'static str,
    Json,
    ArrayBytes<'static>,
    ElementErrorKind,
    &'static str,
);

/// The chains of [`chains_that_can_store_what_an_earlier_codec_cannot_decode_are_rejected`].
fn unreadable_chains() -> Vec<Unreadable> {
    vec![
        // Clamped into float16, 100000 becomes +Infinity, which no int32 holds.
        (
            "int32",
            json!([
                {"name": "cast_value", "configuration": {"data_type": "float32"}},
                {"name": "cast_value", "configuration": {"data_type": "float16", "out_of_range": "clamp"}},
            ]),
            ArrayBytes::new_flen(bytemuck::cast_slice(&[100_000i32]).to_vec()),
            ElementErrorKind::InfinityNotRepresentable,
            "add a scalar_map \"decode\" entry for",
        ),
        // Wrapped into uint8, -500 becomes 255 (-250 scaled), whose decode leaves float16.
        (
            "float16",
            json!([
                {"name": "scale_offset", "configuration": {"scale": 0.002}},
                {"name": "cast_value", "configuration": {"data_type": "uint8", "out_of_range": "wrap"}},
            ]),
            ArrayBytes::new_flen(bytemuck::cast_slice(&[half::f16::from_f64(-500.0)]).to_vec()),
            ElementErrorKind::OutOfRange,
            "leave out_of_range out of codec 2",
        ),
        // Rounded away from zero, 65504 × 0.015 becomes 983, which decodes beyond float16.
        (
            "float16",
            json!([
                {"name": "scale_offset", "configuration": {"scale": 0.015}},
                {"name": "cast_value", "configuration": {"data_type": "int16", "rounding": "nearest-away"}},
            ]),
            ArrayBytes::new_flen(bytemuck::cast_slice(&[half::f16::MAX]).to_vec()),
            ElementErrorKind::OutOfRange,
            "choose an offset and scale for codec 1",
        ),
        // Clamped into int8, 200 becomes 127, which the scale 2 does not divide.
        (
            "int16",
            json!([
                {"name": "scale_offset", "configuration": {"scale": 2}},
                {"name": "cast_value", "configuration": {"data_type": "int8", "out_of_range": "clamp"}},
            ]),
            ArrayBytes::new_flen(bytemuck::cast_slice(&[100i16]).to_vec()),
            ElementErrorKind::NotExact,
            "choose a scale for codec 1",
        ),
        // Mapped on decode, a stored 5 becomes -1.0, which no uint32 holds.
        (
            "uint32",
            json!([
                {"name": "cast_value", "configuration": {"data_type": "float32"}},
                {"name": "cast_value", "configuration": {"data_type": "uint32", "scalar_map": {"decode": [[5, -1.0]]}}},
            ]),
            ArrayBytes::new_flen(bytemuck::cast_slice(&[5u32]).to_vec()),
            ElementErrorKind::OutOfRange,
            "set out_of_range to \"clamp\" in codec 1",
        ),
        // Wrapped into int32, 3000000000 (stored as a float32) becomes -1294967296, which no
        // uint32 holds.
        (
            "uint32",
            json!([
                {"name": "cast_value", "configuration": {"data_type": "float32"}},
                {"name": "cast_value", "configuration": {"data_type": "int32", "out_of_range": "wrap"}},
            ]),
            ArrayBytes::new_flen(bytemuck::cast_slice(&[3_000_000_000u32]).to_vec()),
            ElementErrorKind::OutOfRange,
            "leave out_of_range out of codec 2",
        ),
        // Rounded to bfloat16, 4290000000 becomes 2^32, which no uint32 holds; the encode's map
        // entry for the greatest uint32 does not keep the values below it from rounding there.
        (
            "uint32",
            json!([
                {"name": "cast_value", "configuration": {"data_type": "float32",
                    "scalar_map": {"encode": [[4_294_967_295u32, 1.0]]}}},
                {"name": "cast_value", "configuration": {"data_type": "bfloat16"}},
            ]),
            ArrayBytes::new_flen(bytemuck::cast_slice(&[4_290_000_000u32]).to_vec()),
            ElementErrorKind::OutOfRange,
            "set out_of_range to \"clamp\" in codec 1",
        ),
    ]
}

#[test]
fn chains_that_can_store_what_an_earlier_codec_cannot_decode_are_rejected() {
    let cases = unreadable_chains();
    let count = cases.len();
    for (data_type, codecs, element, kind, advice) in cases {
        let array = open(data_type, &json!(0), &codecs, 1);
        let error = validate_array(&array).unwrap_err();
        let Some(Error::ChainUnreadable {
            codec,
            origin,
            kind: found,
            ..
        }) = Error::find(&error)
        else {
            panic!("{codecs}: {error}");
        };
        assert!(codec.contains("codec 1 of the chain"), "{error}");
        assert!(
            origin.contains("cast_value") && origin.contains("codec 2"),
            "{error}"
        );
        assert_eq!(*found, kind, "{error}");
        assert!(error.to_string().contains(advice), "{error}");
        // Checked codec by codec, the write succeeds and cannot be read back: the danger is real.
        let unchecked = open(data_type, &json!(0), &codecs, 1);
        unchecked.store_chunk(&[0], element).unwrap();
        assert!(
            unchecked
                .retrieve_chunk::<ArrayBytes<'static>>(&[0])
                .is_err(),
            "{codecs}"
        );
    }
    println!("{count} chains rejected, each write shown unreadable");
}

#[test]
fn the_remedies_the_errors_name_make_the_chains_acceptable() {
    for (data_type, codecs) in [
        (
            "int32",
            json!([
                {"name": "cast_value", "configuration": {"data_type": "float32",
                    "scalar_map": {"decode": [["Infinity", 2_147_483_647], ["-Infinity", -2_147_483_648]]}}},
                {"name": "cast_value", "configuration": {"data_type": "float16", "out_of_range": "clamp"}},
            ]),
        ),
        (
            "float16",
            json!([
                {"name": "scale_offset", "configuration": {"scale": 0.002}},
                {"name": "cast_value", "configuration": {"data_type": "uint8"}},
            ]),
        ),
        (
            "int16",
            json!([
                {"name": "scale_offset", "configuration": {"scale": 2}},
                {"name": "cast_value", "configuration": {"data_type": "int8"}},
            ]),
        ),
    ] {
        validate_array(&open(data_type, &json!(0), &codecs, 1))
            .unwrap_or_else(|e| panic!("{codecs}: {e}"));
    }
}

#[test]
fn an_accepted_chain_refuses_a_write_only_where_the_whole_chain_could_not_read_it() {
    // int8 127 becomes float8_e4m3 128, which the first cast cannot decode into int8. Clamped
    // into float4_e2m1fn it is stored as 6, which the chain reads back: only a check codec by
    // codec refuses it.
    let clamped = json!([
        {"name": "cast_value", "configuration": {"data_type": "float8_e4m3"}},
        {"name": "cast_value", "configuration": {"data_type": "float4_e2m1fn", "out_of_range": "clamp"}},
    ]);
    let values = ArrayBytes::new_flen(bytemuck::cast_slice(&[127i8, 100, -128]).to_vec());
    let unchecked = open("int8", &json!(0), &clamped, 3);
    let error = unchecked.store_chunk(&[0], values.clone()).unwrap_err();
    assert!(
        error.to_string().contains("element 0 of the chunk (127)"),
        "{error}"
    );
    let array = CheckedArray::new(&open("int8", &json!(0), &clamped, 3)).unwrap();
    array.store_chunk(&[0], values.clone()).unwrap();
    let read: Vec<i8> = array.retrieve_chunk(&[0]).unwrap();
    assert_eq!(read, [6, 6, -6]);
    // Where the codec after it keeps 128 (float16 holds it), the chain cannot read it back: the
    // write is refused, naming the element and what it becomes.
    let exact = json!([
        {"name": "cast_value", "configuration": {"data_type": "float8_e4m3"}},
        {"name": "cast_value", "configuration": {"data_type": "float16"}},
    ]);
    let array = CheckedArray::new(&open("int8", &json!(0), &exact, 3)).unwrap();
    let error = array.store_chunk(&[0], values).unwrap_err();
    let Some(Error::CastValue(zarrs_scale_offset_cast::CastValueError::Element {
        index,
        encoded,
        kind,
        ..
    })) = Error::find(&error)
    else {
        panic!("{error}");
    };
    assert_eq!(
        (*index, encoded.as_deref(), *kind),
        (0, Some("128"), ElementErrorKind::OutOfRange)
    );
}

#[test]
fn an_element_error_of_an_accepted_chain_names_the_value_written_to_the_array() {
    // 1e9 (a typo for 1e-9) becomes 10000000001000 after scale_offset, which uint16 cannot hold.
    let codecs = json!([
        {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
        {"name": "cast_value", "configuration": {"data_type": "uint16"}},
    ]);
    let values = ArrayBytes::new_flen(bytemuck::cast_slice(&[0.25f64, 1e9, 0.5]).to_vec());
    let written = |array: &Array<MemoryStore>| {
        let error = array.store_chunk(&[0], values.clone()).unwrap_err();
        let Some(Error::CastValue(zarrs_scale_offset_cast::CastValueError::Element {
            index,
            value,
            written,
            kind,
            ..
        })) = Error::find(&error)
        else {
            panic!("{error}");
        };
        assert_eq!(
            (*index, value.as_str(), *kind),
            (1, "10000000001000", ElementErrorKind::OutOfRange)
        );
        (written.clone(), error.to_string())
    };
    // Through the array as opened, the codec does not know the codecs before it.
    let (unchecked, message) = written(&open("float64", &json!(0.0), &codecs, 3));
    assert_eq!(unchecked, None, "{message}");
    let array = CheckedArray::new(&open("float64", &json!(0.0), &codecs, 3)).unwrap();
    let (checked, message) = written(&array);
    assert_eq!(checked.as_deref(), Some("1000000000"));
    assert!(
        message.contains(
            "element 1 of the chunk (10000000001000, written to the array as 1000000000)"
        ),
        "{message}"
    );
    // An error of the first codec names the value as it is.
    let first = json!([
        {"name": "scale_offset", "configuration": {"scale": 10}},
        {"name": "cast_value", "configuration": {"data_type": "int32"}},
    ]);
    let array = CheckedArray::new(&open("int16", &json!(0), &first, 2)).unwrap();
    let error = array
        .store_chunk(
            &[0],
            ArrayBytes::new_flen(bytemuck::cast_slice(&[1i16, 5000]).to_vec()),
        )
        .unwrap_err();
    let Some(Error::ScaleOffset(zarrs_scale_offset_cast::ScaleOffsetError::Element {
        index,
        written,
        ..
    })) = Error::find(&error)
    else {
        panic!("{error}");
    };
    assert_eq!((*index, written.as_deref()), (1, None), "{error}");
}

/// The clamped chain of the test above: int8 127 becomes `float8_e4m3` 128, which the first cast
/// cannot decode, and `float4_e2m1fn` 6 after the clamp, which the chain reads back as 6.
fn clamped_chain() -> Json {
    json!([
        {"name": "cast_value", "configuration": {"data_type": "float8_e4m3"}},
        {"name": "cast_value", "configuration": {"data_type": "float4_e2m1fn", "out_of_range": "clamp"}},
    ])
}

#[test]
fn an_array_writes_the_same_whatever_checks_ran_on_its_codecs_before() {
    let values = || ArrayBytes::new_flen(bytemuck::cast_slice(&[127i8, 100, -128]).to_vec());
    let array = open("int8", &json!(0), &clamped_chain(), 3);
    let refusal = |array: &Array<MemoryStore>| {
        array
            .store_chunk(&[0], values())
            .expect_err("the first cast refuses 127 on its own")
            .to_string()
    };
    let before = refusal(&array);
    assert!(before.contains("element 0 of the chunk (127)"), "{before}");
    // Every check, and a checked array that shares nothing but the store, then the same write
    // through the array and through another one built with the same codec instances.
    validate_array(&array).unwrap();
    let checked = CheckedArray::new(&array).unwrap();
    checked.store_chunk(&[0], values()).unwrap();
    let sharing = array
        .builder()
        .build(Arc::new(MemoryStore::new()), "/")
        .unwrap();
    assert!(Arc::ptr_eq(
        &sharing.codecs().array_to_array_codecs()[0],
        &array.codecs().array_to_array_codecs()[0]
    ));
    validate_array(&sharing).unwrap();
    let _ = CheckedArray::new(&sharing).unwrap();
    assert_eq!(refusal(&array), before);
    assert_eq!(refusal(&sharing), before);
    // The checked array's codecs are its own: they do not leak into the array it came from.
    assert!(!Arc::ptr_eq(
        &checked.codecs().array_to_array_codecs()[0],
        &array.codecs().array_to_array_codecs()[0]
    ));
    let read: Vec<i8> = array.retrieve_chunk(&[0]).unwrap();
    assert_eq!(read, [6, 6, -6]);
}

#[test]
fn a_checked_array_checks_the_codecs_inside_shards_against_the_whole_chain() {
    let mut inner = clamped_chain().as_array().unwrap().clone();
    inner.push(json!({"name": "bytes", "configuration": {"endian": "little"}}));
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [6], "data_type": "int8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [6]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [3], "codecs": inner,
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        }}],
    }))
    .unwrap();
    let array = Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata).unwrap();
    let values = vec![1i8, 127, 2, -128, 3, 100];
    let error = array
        .store_array_subset(&span(0, 6), values.clone())
        .unwrap_err();
    let Some(Error::CastValue(zarrs_scale_offset_cast::CastValueError::Element { index, .. })) =
        Error::find(&error)
    else {
        panic!("{error}");
    };
    assert_eq!(*index, 1, "{error}");
    let checked = CheckedArray::new(&array).unwrap();
    checked.store_array_subset(&span(0, 6), values).unwrap();
    let read: Vec<i8> = array.retrieve_array_subset(&span(0, 6)).unwrap();
    assert_eq!(read, [1, 6, 2, -6, 3, 6]);
}
