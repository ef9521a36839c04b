//! The crate's public API as a program uses it: typed constructors, errors a program can match,
//! explicit registration, and the checks of `validate_array`.

use std::num::NonZeroU64;
use std::sync::Arc;

use serde_json::json;
use zarrs::array::codec::api::{
    ArrayCodecTraits, Codec, CodecError, CodecMetadataOptions, CodecTraits,
};
use zarrs::array::concurrency::concurrency_chunks_and_codec;
use zarrs::array::{
    Array, ArrayBuilder, ArrayBytes, ArrayMetadata, CodecOptions, FillValue, data_type,
};
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::ZarrVersion;
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ReadableStorageTraits, StoreKey};
use zarrs_scale_offset_cast::scale_offset::ScaleOffsetCodecConfigurationV1;
use zarrs_scale_offset_cast::{
    CastValueCodec, CastValueError, CastValueOutOfRangeMode, CastValueRoundingMode, Direction,
    ElementErrorKind, Error, ScaleOffsetCodec, ScaleOffsetError, validate_array,
};

fn reflectance_array(store: Arc<MemoryStore>) -> Array<MemoryStore> {
    ArrayBuilder::new(vec![4, 4], vec![2, 2], data_type::float64(), f64::NAN)
        .array_to_array_codecs(vec![
            Arc::new(ScaleOffsetCodec::new(-0.1, 10000).unwrap()),
            Arc::new(
                CastValueCodec::builder(data_type::uint16())
                    .out_of_range(CastValueOutOfRangeMode::Clamp)
                    .map(f64::NAN, 0u16)
                    .build()
                    .unwrap(),
            ),
        ])
        .build(store, "/reflectance")
        .unwrap()
}

#[test]
fn typed_constructors_build_the_chain_zarr_python_writes() {
    let store = Arc::new(MemoryStore::new());
    let array = reflectance_array(store.clone());
    validate_array(&array).unwrap();
    array.store_metadata().unwrap();
    let written: serde_json::Value = serde_json::from_slice(
        &store
            .get(&StoreKey::new("reflectance/zarr.json").unwrap())
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        written["codecs"][0],
        json!({"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}})
    );
    assert_eq!(
        written["codecs"][1],
        json!({"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}})
    );
    let values = vec![0.0, 0.1234, f64::NAN, 0.5, 6.4535, -0.2, 1.0, 0.33333];
    array.store_array_subset(&[0..2, 0..4], values).unwrap();
    let back: Vec<f64> = array.retrieve_array_subset(&[0..2, 0..4]).unwrap();
    // Steps of 1e-4; NaN kept; clamped to [-0.1, 6.4535], where -0.1 is the stored 0 that the map
    // reads as NaN (the sentinel must lie outside the data's range).
    let expected = [0.0, 0.1234, f64::NAN, 0.5, 6.4535, f64::NAN, 1.0, 0.3333];
    for (got, want) in back.iter().zip(expected) {
        assert!(
            (got.is_nan() && want.is_nan()) || (got - want).abs() < 1e-12,
            "{got} {want}"
        );
    }
}

#[test]
fn zarrs_reads_many_chunks_one_per_thread_as_without_the_codecs() {
    // zarrs' split of a 16-chunk read on 16 threads, from the chain's recommended concurrency:
    // with the two codecs, as for the stored uint16 array without them, 16 chunks at once, each
    // on one thread (not 4 at once, 4 threads each).
    let store = Arc::new(MemoryStore::new());
    let with_codecs = ArrayBuilder::new(
        vec![4096, 4096],
        vec![1024, 1024],
        data_type::float64(),
        f64::NAN,
    )
    .array_to_array_codecs(
        reflectance_array(store.clone())
            .codecs()
            .array_to_array_codecs()
            .to_vec(),
    )
    .build(store.clone(), "/with")
    .unwrap();
    let stored = ArrayBuilder::new(
        vec![4096, 4096],
        vec![1024, 1024],
        data_type::uint16(),
        0u16,
    )
    .build(store, "/stored")
    .unwrap();
    let chunk = [NonZeroU64::new(1024).unwrap(); 2];
    for array in [&with_codecs, &stored] {
        let recommended = array
            .codecs()
            .recommended_concurrency(&chunk, array.data_type())
            .unwrap();
        let (chunks, options) =
            concurrency_chunks_and_codec(16, 16, &CodecOptions::default(), &recommended);
        assert_eq!((chunks, options.concurrent_target()), (16, 1));
    }
}

#[test]
fn builders_write_every_setting_and_reject_invalid_ones() {
    let mut builder = CastValueCodec::builder(data_type::int8());
    builder
        .rounding(CastValueRoundingMode::TowardsZero)
        .out_of_range(CastValueOutOfRangeMode::Wrap)
        .encode_entry(f32::INFINITY, 127i8)
        .decode_entry(-128i8, f32::NEG_INFINITY);
    let configuration = serde_json::to_value(builder.configuration().unwrap()).unwrap();
    assert_eq!(
        configuration,
        json!({"data_type": "int8", "rounding": "towards-zero", "out_of_range": "wrap",
            "scalar_map": {"encode": [["Infinity", 127]], "decode": [[-128, "-Infinity"]]}})
    );
    let codec = builder.build().unwrap();
    // Every field reads back from the codec, and the metadata it writes is the configuration.
    assert_eq!(codec.data_type(), &data_type::int8());
    assert_eq!(codec.rounding(), CastValueRoundingMode::TowardsZero);
    assert_eq!(codec.out_of_range(), Some(CastValueOutOfRangeMode::Wrap));
    let map = codec.scalar_map().unwrap();
    assert_eq!(json!(map.encode), json!([["Infinity", 127]]));
    assert_eq!(json!(map.decode), json!([[-128, "-Infinity"]]));
    let written = codec
        .configuration(ZarrVersion::V3, &CodecMetadataOptions::default())
        .unwrap();
    assert_eq!(json!(written), configuration);
    // Defaults: nearest-even rounding, no out-of-range mode, no map.
    let plain = CastValueCodec::builder(data_type::uint16())
        .build()
        .unwrap();
    assert_eq!(plain.rounding(), CastValueRoundingMode::NearestEven);
    assert_eq!(plain.out_of_range(), None);
    assert!(plain.scalar_map().is_none());
    let codec = ScaleOffsetCodec::new(-0.1, 10000).unwrap();
    assert_eq!(json!(codec.offset()), json!(-0.1));
    assert_eq!(json!(codec.scale()), json!(10000));
    let identity = ScaleOffsetCodec::new_with_configuration(
        &ScaleOffsetCodecConfigurationV1::default().into(),
    )
    .unwrap();
    assert_eq!((identity.offset(), identity.scale()), (None, None));
    let error = CastValueCodec::builder(data_type::float32())
        .out_of_range(CastValueOutOfRangeMode::Wrap)
        .build()
        .unwrap_err();
    assert!(
        matches!(error, CastValueError::InvalidConfiguration(_)),
        "{error}"
    );
    let error = CastValueCodec::builder(data_type::bool())
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("bool"), "{error}");
    assert!(matches!(
        ScaleOffsetCodec::new(1, 0).unwrap_err(),
        ScaleOffsetError::ZeroScale { .. }
    ));
    assert!(matches!(
        ScaleOffsetCodec::new(f64::NAN, 1).unwrap_err(),
        ScaleOffsetError::NonFinite {
            field: "offset",
            ..
        }
    ));
}

#[test]
fn a_program_can_match_the_error_of_an_element_that_did_not_fit() {
    let store = Arc::new(MemoryStore::new());
    let array = reflectance_array(store);
    // 7 is beyond the clamped range only for an int8 target: use a cast without a mode instead.
    let strict = ArrayBuilder::new(vec![3], vec![3], data_type::float64(), 0.0f64)
        .array_to_array_codecs(vec![Arc::new(
            CastValueCodec::builder(data_type::uint8()).build().unwrap(),
        )])
        .build(Arc::new(MemoryStore::new()), "/strict")
        .unwrap();
    let error = strict.store_chunk(&[0], vec![1.0, 256.0, 3.0]).unwrap_err();
    match Error::find(&error) {
        Some(Error::CastValue(CastValueError::Element {
            direction,
            index,
            value,
            kind,
            ..
        })) => {
            assert_eq!(*direction, Direction::Encode);
            assert_eq!(*index, 1);
            assert_eq!(value, "256");
            assert_eq!(*kind, ElementErrorKind::OutOfRange);
        }
        other => panic!("{error}: {other:?}"),
    }
    // A configuration error is another variant.
    let error = array.store_chunk(&[0, 0], vec![0.0; 3]).unwrap_err();
    assert!(Error::find(&error).is_none(), "{error}");
    let scaled = ArrayBuilder::new(vec![2], vec![2], data_type::int8(), 0i8)
        .array_to_array_codecs(vec![Arc::new(ScaleOffsetCodec::new(0, 100).unwrap())])
        .build(Arc::new(MemoryStore::new()), "/scaled")
        .unwrap();
    let error = scaled.store_chunk(&[0], vec![1i8, 2]).unwrap_err();
    assert!(matches!(
        Error::find(&error),
        Some(Error::ScaleOffset(ScaleOffsetError::Element {
            index: 1,
            kind: ElementErrorKind::OutOfRange,
            ..
        }))
    ));
}

#[test]
fn errors_of_direct_codec_calls_are_typed_too() {
    let metadata: MetadataV3 = serde_json::from_value(
        json!({"name": "cast_value", "configuration": {"data_type": "uint8"}}),
    )
    .unwrap();
    let Codec::ArrayToArray(codec) = Codec::from_metadata(&metadata).unwrap() else {
        panic!("an array-to-array codec");
    };
    let shape = [NonZeroU64::new(3).unwrap()];
    let float32 = data_type::float32();
    let options = CodecOptions::default();
    // Bytes that do not hold the elements of the shape.
    let error = codec
        .encode(
            ArrayBytes::new_flen(vec![0u8; 11]),
            &shape,
            &float32,
            &FillValue::from(0f32),
            &options,
        )
        .unwrap_err();
    assert!(matches!(
        Error::find(&error),
        Some(Error::CastValue(CastValueError::InvalidInput(_)))
    ));
    // A fill value of the wrong size.
    let error = codec
        .decode(
            ArrayBytes::new_flen(vec![0u8; 3]),
            &shape,
            &float32,
            &FillValue::from(0f64),
            &options,
        )
        .unwrap_err();
    assert!(
        error.to_string().contains("fill value has 8 bytes"),
        "{error}"
    );
    // ... also for the encoded representation, of both codecs (3 bytes for a float64).
    let scale_offset: Arc<dyn zarrs::array::codec::api::ArrayToArrayCodecTraits> =
        Arc::new(ScaleOffsetCodec::new(-0.1, 10000).unwrap());
    for codec in [&codec, &scale_offset] {
        let error = codec
            .encoded_representation(&shape, &data_type::float64(), &FillValue::new(vec![0u8; 3]))
            .unwrap_err();
        assert!(
            error.to_string().contains("fill value has 3 bytes"),
            "{error}"
        );
    }
    // An unsupported data type is zarrs' own error.
    let error = codec.encoded_data_type(&data_type::bool()).unwrap_err();
    assert!(
        matches!(error, CodecError::UnsupportedDataType(..)),
        "{error}"
    );
    // Both codecs recommend one thread per chunk at any size, as zarrs' element-wise codecs do,
    // so that zarrs decodes more chunks at once rather than splitting few; on a data type they
    // do not take, zarrs' own error.
    for codec in [&codec, &scale_offset] {
        for shape in [[4096, 4096], [u64::MAX, 4]] {
            let shape = shape.map(|d| NonZeroU64::new(d).unwrap());
            let concurrency = codec.recommended_concurrency(&shape, &float32).unwrap();
            assert_eq!((concurrency.min(), concurrency.max()), (1, 1));
        }
        let error = codec
            .recommended_concurrency(&shape, &data_type::bool())
            .unwrap_err();
        assert!(
            matches!(error, CodecError::UnsupportedDataType(..)),
            "{error}"
        );
    }
}

#[test]
fn register_makes_both_codecs_known_by_name() {
    assert_eq!(
        zarrs_scale_offset_cast::register(),
        ["scale_offset", "cast_value"]
    );
    assert_eq!(
        zarrs_scale_offset_cast::register(),
        ["scale_offset", "cast_value"]
    );
    for name in ["scale_offset", "cast_value"] {
        let metadata: MetadataV3 = serde_json::from_value(
            json!({"name": name, "configuration": if name == "cast_value" { json!({"data_type": "uint8"}) } else { json!({}) }}),
        )
        .unwrap();
        assert!(matches!(
            Codec::from_metadata(&metadata),
            Ok(Codec::ArrayToArray(_))
        ));
    }
}

fn open_with_fill(data_type: &str, fill: &serde_json::Value) -> Array<MemoryStore> {
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill,
        "codecs": [{"name": "cast_value", "configuration": {"data_type": "float32"}},
                   {"name": "bytes", "configuration": {"endian": "little"}}],
    }))
    .unwrap();
    Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata).unwrap()
}

#[test]
fn validate_array_checks_the_fill_value_json_strictly() {
    // zarrs reads "0x+c00" as 0x0c00; the fill value grammar has no sign in hex.
    let array = open_with_fill("float16", &json!("0x+c00"));
    let error = validate_array(&array).unwrap_err();
    assert!(
        matches!(Error::find(&error), Some(Error::FillValue { .. })),
        "{error}"
    );
    validate_array(&open_with_fill("float16", &json!("0x3c00"))).unwrap();
    validate_array(&open_with_fill("float16", &json!(1.5))).unwrap();
    // Without zarrs' microfloat feature, a number for a small float is read as its bits; with it
    // (some crate in the build may turn it on), as its value.
    let array = open_with_fill("float8_e4m3", &json!(1));
    if let Err(error) = validate_array(&array) {
        assert!(error.to_string().contains("\"0x38\""), "{error}");
        assert_eq!(array.fill_value().as_ne_bytes(), [0x01]);
    } else {
        assert_eq!(array.fill_value().as_ne_bytes(), [0x38]);
    }
}

#[test]
fn errors_from_inside_a_shard_are_typed_too() {
    // The codecs inside `sharding_indexed`: zarrs wraps the inner chunk's error once more.
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [8], "data_type": "int32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4],
            "codecs": [
                {"name": "cast_value", "configuration": {"data_type": "int8"}},
                {"name": "bytes", "configuration": {"endian": "little"}}
            ],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]
        }}]
    }))
    .unwrap();
    let array = Array::new_with_metadata(Arc::new(MemoryStore::new()), "/s", metadata).unwrap();
    let error = array
        .store_chunk(&[0], vec![1i32, 2, 3, 4, 5, 300, 7, 8])
        .unwrap_err();
    match Error::find(&error) {
        Some(Error::CastValue(CastValueError::Element {
            index, value, kind, ..
        })) => {
            // Element 1 of the second inner chunk.
            assert_eq!(
                (*index, value.as_str(), *kind),
                (1, "300", ElementErrorKind::OutOfRange)
            );
        }
        other => panic!("{error}: {other:?}"),
    }
}
