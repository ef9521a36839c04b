//! Random valid configurations of both codecs and random data through the zarrs `Array` API: the
//! write and the read never panic; a write through a single codec reads back; an element equal to
//! the fill value reads back as the fill value; a lossless configuration returns every element
//! exactly.

#![no_main]

use std::sync::Arc;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayBytes, ArrayMetadata, ArraySubset, CodecOptions};
use zarrs::storage::store::MemoryStore;
use zarrs_scale_offset_cast as _;

/// `(name, bytes, value bits, integer, signed)`.
const TYPES: [(&str, usize, u32, bool, bool); 26] = [
    ("int2", 1, 2, true, true),
    ("int4", 1, 4, true, true),
    ("int8", 1, 8, true, true),
    ("int16", 2, 16, true, true),
    ("int32", 4, 32, true, true),
    ("int64", 8, 64, true, true),
    ("uint2", 1, 2, true, false),
    ("uint4", 1, 4, true, false),
    ("uint8", 1, 8, true, false),
    ("uint16", 2, 16, true, false),
    ("uint32", 4, 32, true, false),
    ("uint64", 8, 64, true, false),
    ("float4_e2m1fn", 1, 4, false, true),
    ("float6_e2m3fn", 1, 6, false, true),
    ("float6_e3m2fn", 1, 6, false, true),
    ("float8_e3m4", 1, 8, false, true),
    ("float8_e4m3", 1, 8, false, true),
    ("float8_e4m3b11fnuz", 1, 8, false, true),
    ("float8_e4m3fnuz", 1, 8, false, true),
    ("float8_e5m2", 1, 8, false, true),
    ("float8_e5m2fnuz", 1, 8, false, true),
    ("float8_e8m0fnu", 1, 8, false, false),
    ("bfloat16", 2, 16, false, true),
    ("float16", 2, 16, false, true),
    ("float32", 4, 32, false, true),
    ("float64", 8, 64, false, true),
];

/// Casts that hold every value of their input (and the identity).
const WIDENING: [(&str, &[&str]); 10] = [
    ("int8", &["int16", "int32", "int64", "float16", "float32", "float64"]),
    ("uint8", &["uint16", "uint32", "uint64", "int16", "int32", "int64", "float16", "float32", "float64"]),
    ("int16", &["int32", "int64", "float32", "float64"]),
    ("uint16", &["uint32", "uint64", "int32", "int64", "float32", "float64"]),
    ("int32", &["int64", "float64"]),
    ("uint32", &["uint64", "int64", "float64"]),
    ("float16", &["float32", "float64"]),
    ("bfloat16", &["float32", "float64"]),
    ("float32", &["float64"]),
    ("float8_e4m3", &["float16", "bfloat16", "float32", "float64"]),
];

#[derive(Arbitrary, Debug)]
struct Input {
    from: u8,
    to: u8,
    scale_offset: Option<(Option<u64>, Option<u64>)>,
    cast: bool,
    rounding: u8,
    out_of_range: u8,
    encode_map: Vec<(u64, u64)>,
    decode_map: Vec<(u64, u64)>,
    fill: u64,
    shape: (u8, u8),
    chunk: (u8, u8),
    transpose: bool,
    shard: bool,
    data: Vec<u64>,
}

/// The bits of an encoding of the type (spare bits cleared, or sign-extended).
fn encoding(t: (&str, usize, u32, bool, bool), bits: u64) -> u64 {
    let (_, size, value_bits, integer, signed) = t;
    let width = 8 * size as u32;
    let low = if value_bits >= 64 { bits } else { bits & ((1u64 << value_bits) - 1) };
    let extended = if integer && signed && value_bits < width && (low >> (value_bits - 1)) & 1 == 1 {
        low | (((1u64 << (width - value_bits)) - 1) << value_bits)
    } else {
        low
    };
    if width >= 64 { extended } else { extended & ((1u64 << width) - 1) }
}

/// A scalar's JSON: integers as numbers, floats as hex.
fn scalar(t: (&str, usize, u32, bool, bool), bits: u64) -> Json {
    let (_, size, value_bits, integer, signed) = t;
    let bits = encoding(t, bits);
    if integer {
        if signed {
            let shift = 64 - value_bits;
            json!(((bits << shift) as i64) >> shift)
        } else {
            json!(bits)
        }
    } else {
        json!(format!("0x{bits:0width$x}", width = 2 * size))
    }
}

fn same(t: (&str, usize, u32, bool, bool), a: u64, b: u64) -> bool {
    let (name, ..) = t;
    let nan = |bits: u64| match name {
        "float64" => f64::from_bits(bits).is_nan(),
        "float32" => f32::from_bits(bits as u32).is_nan(),
        "float16" => (bits & 0x7c00) == 0x7c00 && bits & 0x3ff != 0,
        "bfloat16" => (bits & 0x7f80) == 0x7f80 && bits & 0x7f != 0,
        "float8_e3m4" => (bits & 0x70) == 0x70 && bits & 0x0f != 0,
        "float8_e4m3" => (bits & 0x78) == 0x78 && bits & 0x07 != 0,
        "float8_e5m2" => (bits & 0x7c) == 0x7c && bits & 0x03 != 0,
        "float8_e4m3b11fnuz" | "float8_e4m3fnuz" | "float8_e5m2fnuz" => bits & 0xff == 0x80,
        "float8_e8m0fnu" => bits & 0xff == 0xff,
        _ => false,
    };
    a == b || (nan(a) && nan(b))
}

fuzz_target!(|input: Input| {
    let from = TYPES[usize::from(input.from) % TYPES.len()];
    let to = TYPES[usize::from(input.to) % TYPES.len()];
    let mut codecs = Vec::new();
    if let Some((offset, scale)) = input.scale_offset {
        let mut configuration = serde_json::Map::new();
        if let Some(offset) = offset {
            configuration.insert("offset".into(), scalar(from, offset));
        }
        if let Some(scale) = scale {
            configuration.insert("scale".into(), scalar(from, scale));
        }
        codecs.push(json!({"name": "scale_offset", "configuration": configuration}));
    }
    let stored = if input.cast || codecs.is_empty() {
        let rounding = ["nearest-even", "nearest-away", "towards-zero", "towards-positive", "towards-negative"]
            [usize::from(input.rounding) % 5];
        let mut configuration = json!({"data_type": to.0, "rounding": rounding});
        match input.out_of_range % 3 {
            1 => configuration["out_of_range"] = json!("clamp"),
            2 if to.3 => configuration["out_of_range"] = json!("wrap"),
            _ => {}
        }
        let entries = |map: &[(u64, u64)], key: (&str, usize, u32, bool, bool), value: (&str, usize, u32, bool, bool)| {
            map.iter().take(3).map(|&(k, v)| json!([scalar(key, k), scalar(value, v)])).collect::<Vec<_>>()
        };
        configuration["scalar_map"] = json!({
            "encode": entries(&input.encode_map, from, to),
            "decode": entries(&input.decode_map, to, from),
        });
        codecs.push(json!({"name": "cast_value", "configuration": configuration}));
        to
    } else {
        from
    };
    let single = codecs.len() == 1;
    let lossless = input.scale_offset.is_none()
        && input.encode_map.is_empty()
        && input.decode_map.is_empty()
        && (from.0 == to.0 || WIDENING.iter().any(|(f, tos)| *f == from.0 && tos.contains(&to.0)));
    if input.transpose {
        codecs.insert(0, json!({"name": "transpose", "configuration": {"order": [1, 0]}}));
    }
    let bytes_codec = if stored.1 == 1 { json!({"name": "bytes"}) } else { json!({"name": "bytes", "configuration": {"endian": "little"}}) };
    let shape = [u64::from(input.shape.0 % 6) + 1, u64::from(input.shape.1 % 6) + 1];
    let chunk = [u64::from(input.chunk.0 % 4) + 1, u64::from(input.chunk.1 % 4) + 1];
    if input.shard {
        codecs.push(json!({"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 1],
            "codecs": [bytes_codec], "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}));
    } else {
        codecs.push(bytes_codec);
    }
    let metadata = json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": from.0,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": scalar(from, input.fill), "codecs": codecs,
    });
    let Ok(metadata) = serde_json::from_value::<ArrayMetadata>(metadata) else {
        return;
    };
    let Ok(array) = Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata) else {
        return;
    };
    let count = (shape[0] * shape[1]) as usize;
    let fill = encoding(from, input.fill);
    let elements: Vec<u64> = (0..count)
        .map(|i| input.data.get(i).map_or(fill, |&bits| encoding(from, bits)))
        .collect();
    let bytes: Vec<u8> = elements.iter().flat_map(|b| b.to_le_bytes()[..from.1].to_vec()).collect();
    let whole = ArraySubset::new_with_shape(shape.to_vec());
    let options = CodecOptions::default().with_store_empty_chunks(true);
    if array.store_array_subset_opt(&whole, ArrayBytes::new_flen(bytes), &options).is_err() {
        return;
    }
    let read = array.retrieve_array_subset::<ArrayBytes<'static>>(&whole);
    if single {
        assert!(read.is_ok(), "a write through one codec does not read back: {read:?}");
    }
    let Ok(read) = read else {
        return;
    };
    let read = read.into_fixed().unwrap();
    for (i, (element, &written)) in read.chunks_exact(from.1).zip(&elements).enumerate() {
        let mut wide = [0u8; 8];
        wide[..from.1].copy_from_slice(element);
        let got = u64::from_le_bytes(wide);
        if same(from, written, fill) {
            assert!(same(from, got, fill), "element {i} equal to the fill value reads as {got:#x}");
        }
        if lossless {
            assert!(same(from, got, written), "lossless: element {i} {written:#x} reads as {got:#x}");
        }
    }
});
