//! Arbitrary codec metadata, data type, shape, fill value and bytes through the codec traits, as
//! another crate building its own pipeline would call them: nothing panics, and an encode that
//! succeeds decodes again with the same codec.

#![no_main]

use std::num::NonZeroU64;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use zarrs::array::codec::api::{ArrayCodecTraits, Codec};
use zarrs::array::{ArrayBytes, CodecOptions, DataType, FillValue};
use zarrs::metadata::v3::MetadataV3;
use zarrs_scale_offset_cast as _;

const TYPES: [&str; 30] = [
    "int2", "int4", "int8", "int16", "int32", "int64", "uint2", "uint4", "uint8", "uint16",
    "uint32", "uint64", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4",
    "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
    "float8_e8m0fnu", "bfloat16", "float16", "float32", "float64", "bool", "complex64", "string",
    "uint64",
];

#[derive(Arbitrary, Debug)]
struct Input {
    /// The codec metadata, as JSON text (often invalid).
    metadata: String,
    data_type: u8,
    shape: Vec<u64>,
    fill: Vec<u8>,
    bytes: Vec<u8>,
    concurrency: u8,
}

fuzz_target!(|input: Input| {
    let Ok(metadata) = serde_json::from_str::<MetadataV3>(&input.metadata) else {
        return;
    };
    let Ok(Codec::ArrayToArray(codec)) = Codec::from_metadata(&metadata) else {
        return;
    };
    let name = TYPES[usize::from(input.data_type) % TYPES.len()];
    let Ok(data_type) = DataType::from_metadata(&MetadataV3::new(name)) else {
        return;
    };
    let shape: Vec<NonZeroU64> = input.shape.iter().take(4).filter_map(|&d| NonZeroU64::new(d)).collect();
    let fill = FillValue::new(input.fill.clone());
    let options = CodecOptions::default().with_concurrent_target(usize::from(input.concurrency % 4) + 1);
    let _ = codec.encoded_data_type(&data_type);
    let _ = codec.encoded_fill_value(&data_type, &fill);
    let _ = codec.recommended_concurrency(&shape, &data_type);
    let bytes = ArrayBytes::new_flen(input.bytes.clone());
    let _ = codec.decode(bytes.clone(), &shape, &data_type, &fill, &options);
    if let Ok(encoded) = codec.encode(bytes, &shape, &data_type, &fill, &options) {
        let decoded = codec.decode(encoded, &shape, &data_type, &fill, &options);
        assert!(decoded.is_ok(), "{metadata:?} {name}: an encoded chunk does not decode: {decoded:?}");
    }
});
