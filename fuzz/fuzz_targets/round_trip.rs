//! Random chains of one to three codecs (outside or inside shards, after a transpose) and random
//! data through the zarrs `Array` API, written in part: nothing panics; a read of any part gives
//! the same bits as the whole read, and `FusedReader` gives the same bits as zarrs (or fails
//! where zarrs fails); on a chain `validate_array` accepts, a write that succeeds (through the
//! array as opened or a `CheckedArray`) reads back,
//! every element outside the part written is the fill value, an element equal to the fill value
//! reads as it, and a lossless cast returns every element exactly.

#![no_main]

use std::sync::Arc;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayBytes, ArrayMetadata, ArraySubset, CodecOptions};
use zarrs::storage::store::MemoryStore;
use zarrs_scale_offset_cast::{CheckedArray, FusedReader, validate_array};

/// `(name, bytes, value bits, integer, signed)`.
const TYPES: [Type; 26] = [
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
    (
        "int8",
        &["int16", "int32", "int64", "float16", "float32", "float64"],
    ),
    (
        "uint8",
        &[
            "uint16", "uint32", "uint64", "int16", "int32", "int64", "float16", "float32",
            "float64",
        ],
    ),
    ("int16", &["int32", "int64", "float32", "float64"]),
    (
        "uint16",
        &["uint32", "uint64", "int32", "int64", "float32", "float64"],
    ),
    ("int32", &["int64", "float64"]),
    ("uint32", &["uint64", "int64", "float64"]),
    ("float16", &["float32", "float64"]),
    ("bfloat16", &["float32", "float64"]),
    ("float32", &["float64"]),
    (
        "float8_e4m3",
        &["float16", "bfloat16", "float32", "float64"],
    ),
];

/// One codec of the chain.
#[derive(Arbitrary, Debug)]
struct Codec {
    /// `scale_offset` on the current type, else `cast_value` to `to`.
    scale_offset: bool,
    offset: Option<u64>,
    scale: Option<u64>,
    to: u8,
    rounding: u8,
    out_of_range: u8,
    encode_map: Vec<(u64, u64)>,
    decode_map: Vec<(u64, u64)>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    from: u8,
    codecs: Vec<Codec>,
    fill: u64,
    shape: (u8, u8),
    chunk: (u8, u8),
    transpose: bool,
    /// Sharding, with the codecs outside (1) or inside (2) the shards (`shard % 3`); the stored
    /// elements big-endian (`shard / 3` odd); the inner chunks compressed by gzip (`shard / 6`
    /// odd).
    shard: u8,
    /// For sharding: the inner chunks (whole rows of the shard, or single elements), the index at
    /// the start, crc32c on the index.
    inner_rows: bool,
    index_at_start: bool,
    index_crc32c: bool,
    /// Whether the write goes through a `CheckedArray` (where the chain is accepted).
    validate: bool,
    /// The part written (rows and columns from, lengths), and a part read.
    written: (u8, u8, u8, u8),
    read: (u8, u8, u8, u8),
    data: Vec<u64>,
}

type Type = (&'static str, usize, u32, bool, bool);

/// The codec's JSON and the type it encodes to.
fn codec_json(codec: &Codec, from: Type) -> (Json, Type) {
    if codec.scale_offset {
        let mut configuration = serde_json::Map::new();
        if let Some(offset) = codec.offset {
            configuration.insert("offset".into(), scalar(from, offset));
        }
        if let Some(scale) = codec.scale {
            configuration.insert("scale".into(), scalar(from, scale));
        }
        return (
            json!({"name": "scale_offset", "configuration": configuration}),
            from,
        );
    }
    let to = TYPES[usize::from(codec.to) % TYPES.len()];
    let rounding = [
        "nearest-even",
        "nearest-away",
        "towards-zero",
        "towards-positive",
        "towards-negative",
    ][usize::from(codec.rounding) % 5];
    let mut configuration = json!({"data_type": to.0, "rounding": rounding});
    match codec.out_of_range % 3 {
        1 => configuration["out_of_range"] = json!("clamp"),
        2 if to.3 => configuration["out_of_range"] = json!("wrap"),
        _ => {}
    }
    let entries = |map: &[(u64, u64)], key: Type, value: Type| {
        map.iter()
            .take(3)
            .map(|&(k, v)| json!([scalar(key, k), scalar(value, v)]))
            .collect::<Vec<_>>()
    };
    configuration["scalar_map"] = json!({
        "encode": entries(&codec.encode_map, from, to),
        "decode": entries(&codec.decode_map, to, from),
    });
    (
        json!({"name": "cast_value", "configuration": configuration}),
        to,
    )
}

/// A window of a `shape` array from the fuzzer's bytes, of no element along a side where its
/// byte is 0.
fn window(shape: [u64; 2], (r, c, h, w): (u8, u8, u8, u8)) -> ArraySubset {
    let (r, c) = (u64::from(r) % shape[0], u64::from(c) % shape[1]);
    let (h, w) = (
        u64::from(h) % (shape[0] - r + 1),
        u64::from(w) % (shape[1] - c + 1),
    );
    ArraySubset::new_with_ranges(&[r..r + h, c..c + w])
}

/// A region of a `shape` array from the fuzzer's bytes.
fn region(shape: [u64; 2], (r, c, h, w): (u8, u8, u8, u8)) -> ArraySubset {
    let (r, c) = (u64::from(r) % shape[0], u64::from(c) % shape[1]);
    let (h, w) = (
        1 + u64::from(h) % (shape[0] - r),
        1 + u64::from(w) % (shape[1] - c),
    );
    ArraySubset::new_with_ranges(&[r..r + h, c..c + w])
}

/// The elements of `subset` in a read of the whole `shape` array.
fn elements_of(whole: &[u8], size: usize, shape: [u64; 2], subset: &ArraySubset) -> Vec<u8> {
    let (start, sub) = (subset.start(), subset.shape());
    let mut out = Vec::new();
    for row in start[0]..start[0] + sub[0] {
        let i = (row * shape[1] + start[1]) as usize;
        out.extend_from_slice(&whole[i * size..(i + sub[1] as usize) * size]);
    }
    out
}

/// The bits of an encoding of the type (spare bits cleared, or sign-extended).
fn encoding(t: Type, bits: u64) -> u64 {
    let (_, size, value_bits, integer, signed) = t;
    let width = 8 * size as u32;
    let low = if value_bits >= 64 {
        bits
    } else {
        bits & ((1u64 << value_bits) - 1)
    };
    let extended = if integer && signed && value_bits < width && (low >> (value_bits - 1)) & 1 == 1
    {
        low | (((1u64 << (width - value_bits)) - 1) << value_bits)
    } else {
        low
    };
    if width >= 64 {
        extended
    } else {
        extended & ((1u64 << width) - 1)
    }
}

/// A scalar's JSON: integers as numbers, floats as hex.
fn scalar(t: Type, bits: u64) -> Json {
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

/// `subset` read through `FusedReader` into a buffer of a pattern no read writes, as bytes; `None`
/// for the data types without an element type of their own.
fn fused_read(
    array: &Array<MemoryStore>,
    name: &str,
    subset: &ArraySubset,
) -> Option<Result<Vec<u8>, String>> {
    fn read<T: zarrs::array::Element + bytemuck::Pod>(
        array: &Array<MemoryStore>,
        subset: &ArraySubset,
    ) -> Result<Vec<u8>, String> {
        let unwritten = || {
            let mut out = vec![T::zeroed(); subset.num_elements() as usize];
            bytemuck::cast_slice_mut::<T, u8>(&mut out).fill(0xAA);
            out
        };
        let mut out = unwritten();
        let result = FusedReader::new(array)
            .retrieve_array_subset_into(subset, &mut out)
            .map_err(|e| e.to_string());
        // A reader keeping the shards' indexes reads the same, the second time from them.
        let keeping = FusedReader::new(array).with_shard_index_cache();
        for _ in 0..2 {
            let mut again = unwritten();
            let kept = keeping.retrieve_array_subset_into(subset, &mut again);
            assert_eq!(
                kept.is_ok(),
                result.is_ok(),
                "kept indexes {subset:?}: {kept:?}"
            );
            if kept.is_ok() {
                assert_eq!(
                    bytemuck::cast_slice::<T, u8>(&again),
                    bytemuck::cast_slice::<T, u8>(&out),
                    "kept indexes {subset:?}"
                );
            }
        }
        result?;
        Ok(bytemuck::cast_slice(&out).to_vec())
    }
    Some(match name {
        "int8" => read::<i8>(array, subset),
        "int16" => read::<i16>(array, subset),
        "int32" => read::<i32>(array, subset),
        "int64" => read::<i64>(array, subset),
        "uint8" => read::<u8>(array, subset),
        "uint16" => read::<u16>(array, subset),
        "uint32" => read::<u32>(array, subset),
        "uint64" => read::<u64>(array, subset),
        "float32" => read::<f32>(array, subset),
        "float64" => read::<f64>(array, subset),
        _ => return None,
    })
}

fn same(t: Type, a: u64, b: u64) -> bool {
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
    let mut codecs = Vec::new();
    let mut stored = from;
    for codec in input.codecs.iter().take(3) {
        let (json, to) = codec_json(codec, stored);
        codecs.push(json);
        stored = to;
    }
    if codecs.is_empty() {
        return;
    }
    let lossless = input.codecs.len() == 1
        && input.codecs.iter().all(|c| {
            let to = TYPES[usize::from(c.to) % TYPES.len()];
            !c.scale_offset
                && c.encode_map.is_empty()
                && c.decode_map.is_empty()
                && (from.0 == to.0
                    || WIDENING
                        .iter()
                        .any(|(f, tos)| *f == from.0 && tos.contains(&to.0)))
        });
    if input.transpose {
        codecs.insert(
            0,
            json!({"name": "transpose", "configuration": {"order": [1, 0]}}),
        );
    }
    let endian = if (input.shard / 3) % 2 == 1 {
        "big"
    } else {
        "little"
    };
    let bytes_codec = if stored.1 == 1 {
        json!({"name": "bytes"})
    } else {
        json!({"name": "bytes", "configuration": {"endian": endian}})
    };
    let shape = [
        u64::from(input.shape.0 % 6) + 1,
        u64::from(input.shape.1 % 6) + 1,
    ];
    let chunk = [
        u64::from(input.chunk.0 % 4) + 1,
        u64::from(input.chunk.1 % 4) + 1,
    ];
    let inner_chunk = if input.inner_rows {
        [1, chunk[1]]
    } else {
        [1, 1]
    };
    let mut index_codecs = vec![json!({"name": "bytes", "configuration": {"endian": "little"}})];
    if input.index_crc32c {
        index_codecs.push(json!({"name": "crc32c"}));
    }
    let location = if input.index_at_start { "start" } else { "end" };
    let sharding = |inner: Vec<Json>| {
        json!({"name": "sharding_indexed", "configuration": {"chunk_shape": inner_chunk,
            "codecs": inner, "index_codecs": index_codecs, "index_location": location}})
    };
    let mut stored_codecs = vec![bytes_codec.clone()];
    if (input.shard / 6) % 2 == 1 {
        stored_codecs.push(json!({"name": "gzip", "configuration": {"level": 1}}));
    }
    match input.shard % 3 {
        1 => codecs.push(sharding(stored_codecs)),
        2 => {
            let mut inner = std::mem::take(&mut codecs);
            inner.extend(stored_codecs);
            codecs.push(sharding(inner));
        }
        _ => codecs.push(bytes_codec),
    }
    let metadata = json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": from.0,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": scalar(from, input.fill), "codecs": codecs,
    });
    if std::env::var_os("ROUND_TRIP_PRINT").is_some() {
        // The array of a failing input, to reproduce it outside the fuzzer.
        eprintln!(
            "{metadata:#}\nwritten {:?} of {shape:?}: {:?}",
            input.written, input.data
        );
    }
    let Ok(metadata) = serde_json::from_value::<ArrayMetadata>(metadata) else {
        return;
    };
    let Ok(array) = Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata) else {
        return;
    };
    // Accepted chains read back whatever they write, through the array as opened and through a
    // CheckedArray (whose writes are checked against the whole chain); the others are only
    // written and read.
    let accepted = validate_array(&array).is_ok();
    let checked = CheckedArray::new(&array);
    assert_eq!(
        accepted,
        checked.is_ok(),
        "validate_array and CheckedArray::new decide alike"
    );
    let checked = checked.ok().filter(|_| input.validate);
    let array: &Array<MemoryStore> = checked.as_deref().unwrap_or(&array);
    let written = region(shape, input.written);
    let count = written.num_elements() as usize;
    let fill = encoding(from, input.fill);
    let elements: Vec<u64> = (0..count)
        .map(|i| input.data.get(i).map_or(fill, |&bits| encoding(from, bits)))
        .collect();
    let bytes: Vec<u8> = elements
        .iter()
        .flat_map(|b| b.to_le_bytes()[..from.1].to_vec())
        .collect();
    let whole = ArraySubset::new_with_shape(shape.to_vec());
    let options = CodecOptions::default().with_store_empty_chunks(true);
    let stored = array.store_array_subset_opt(&written, ArrayBytes::new_flen(bytes), &options);
    let read = array.retrieve_array_subset::<ArrayBytes<'static>>(&whole);
    if accepted && stored.is_ok() {
        assert!(
            read.is_ok(),
            "an accepted chain wrote what it cannot read back: {read:?}"
        );
    }
    let part = window(shape, input.read);
    // The fused read path gives zarrs' bits, or fails where zarrs fails.
    for subset in [&whole, &part] {
        let zarrs = array.retrieve_array_subset::<ArrayBytes<'static>>(subset);
        if let Some(fused) = fused_read(array, from.0, subset) {
            match (zarrs, fused) {
                (Ok(zarrs), Ok(fused)) => {
                    assert_eq!(
                        zarrs.into_fixed().unwrap().as_ref(),
                        fused.as_slice(),
                        "FusedReader {subset:?}"
                    );
                }
                (Err(_), Err(_)) => {}
                (zarrs, fused) => panic!(
                    "{subset:?}: zarrs {:?}, FusedReader {:?}",
                    zarrs.map(|_| ()),
                    fused.map(|_| ())
                ),
            }
        }
    }
    let Ok(read) = read else {
        return;
    };
    let read = read.into_fixed().unwrap();
    // Every read path gives the same bits for the same element.
    if let Ok(bytes) = array.retrieve_array_subset::<ArrayBytes<'static>>(&part) {
        assert_eq!(
            bytes.into_fixed().unwrap().as_ref(),
            elements_of(&read, from.1, shape, &part),
            "{part:?}"
        );
    }
    if !(accepted && stored.is_ok()) {
        return;
    }
    let in_written = |row: u64, column: u64| {
        let (start, sub) = (written.start(), written.shape());
        (start[0]..start[0] + sub[0]).contains(&row)
            && (start[1]..start[1] + sub[1]).contains(&column)
    };
    let mut next = elements.iter();
    for (i, element) in read.chunks_exact(from.1).enumerate() {
        let mut wide = [0u8; 8];
        wide[..from.1].copy_from_slice(element);
        let got = u64::from_le_bytes(wide);
        let (row, column) = (i as u64 / shape[1], i as u64 % shape[1]);
        if !in_written(row, column) {
            // Never written, or filled in by zarrs: the fill value, which the chain returns.
            assert!(
                same(from, got, fill),
                "element {i} outside the write reads as {got:#x}"
            );
            continue;
        }
        let written = *next.next().unwrap();
        if same(from, written, fill) {
            assert!(
                same(from, got, fill),
                "element {i} equal to the fill value reads as {got:#x}"
            );
        }
        if lossless {
            assert!(
                same(from, got, written),
                "lossless: element {i} {written:#x} reads as {got:#x}"
            );
        }
    }
});
