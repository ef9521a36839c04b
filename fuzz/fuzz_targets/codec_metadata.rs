//! Arbitrary codec metadata, data type, shape, fill value and bytes through the codec traits, as
//! another crate building its own pipeline would call them: nothing panics, and an encode that
//! succeeds decodes again with the same codec.
//!
//! An input is the codec metadata as JSON text, a newline, then bytes: the data type (an index
//! into `TYPES`), the concurrency, the number of dimensions and one byte per dimension, the length
//! of the fill value and its bytes, and the chunk's bytes (so that seeds can be written by hand).

#![no_main]

use std::num::NonZeroU64;

use libfuzzer_sys::fuzz_target;
use zarrs::array::codec::api::Codec;
use zarrs::array::{ArrayBytes, CodecOptions, DataType, FillValue};
use zarrs::metadata::v3::MetadataV3;
use zarrs_scale_offset_cast as _;

#[rustfmt::skip]
const TYPES: [&str; 30] = [
    "int2", "int4", "int8", "int16", "int32", "int64", "uint2", "uint4", "uint8", "uint16",
    "uint32", "uint64", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4",
    "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
    "float8_e8m0fnu", "bfloat16", "float16", "float32", "float64", "bool", "complex64", "string",
    "uint64",
];

/// Takes the next byte (0 when none is left).
fn take(bytes: &mut &[u8]) -> u8 {
    let (first, rest) = bytes.split_first().unwrap_or((&0, &[]));
    *bytes = rest;
    *first
}

fuzz_target!(|input: &[u8]| {
    let split = input
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(input.len());
    let (json, mut rest) = (&input[..split], input.get(split + 1..).unwrap_or(&[]));
    let Ok(metadata) = serde_json::from_slice::<MetadataV3>(json) else {
        return;
    };
    let Ok(Codec::ArrayToArray(codec)) = Codec::from_metadata(&metadata) else {
        return;
    };
    let name = TYPES[usize::from(take(&mut rest)) % TYPES.len()];
    let Ok(data_type) = DataType::from_metadata(&MetadataV3::new(name)) else {
        return;
    };
    let concurrency = usize::from(take(&mut rest) % 4) + 1;
    let dimensions = take(&mut rest) % 4;
    // A dimension byte of 255 stands for a huge extent, so that element counts can overflow.
    let shape: Vec<NonZeroU64> = (0..dimensions)
        .filter_map(|_| match take(&mut rest) {
            255 => NonZeroU64::new(u64::MAX / 3),
            d => NonZeroU64::new(u64::from(d)),
        })
        .collect();
    let fill_len = usize::from(take(&mut rest) % 10).min(rest.len());
    let fill = FillValue::new(rest[..fill_len].to_vec());
    let rest = &rest[fill_len..];
    let options = CodecOptions::default().with_concurrent_target(concurrency);
    let _ = codec.encoded_data_type(&data_type);
    let _ = codec.encoded_fill_value(&data_type, &fill);
    let _ = codec.recommended_concurrency(&shape, &data_type);
    let bytes = ArrayBytes::new_flen(rest.to_vec());
    let _ = codec.decode(bytes.clone(), &shape, &data_type, &fill, &options);
    if let Ok(encoded) = codec.encode(bytes, &shape, &data_type, &fill, &options) {
        let decoded = codec.decode(encoded, &shape, &data_type, &fill, &options);
        assert!(
            decoded.is_ok(),
            "{metadata:?} {name}: an encoded chunk does not decode: {decoded:?}"
        );
    }
});
