//! Seeded random data of every pair of data types through the whole zarrs codec chain —
//! `scale_offset`, `cast_value`, `transpose`, `sharding_indexed` with a compressor inside — in a
//! memory store and a filesystem store, checked element by element against the independent
//! reference (a unit test, to reach the reference).

use std::sync::Arc;

use serde_json::json;
use zarrs::array::{Array, ArrayBytes, ArrayMetadata, ArraySubset};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::ReadableWritableStorageTraits;
use zarrs::storage::store::MemoryStore;

use crate::Direction;
use crate::cast_value::reference_tests::{Seeded, element_bytes};
use crate::error::FaultKind;
use crate::numeric::{NumericType, OutOfRangeMode, RoundingMode, parse_scalar};
use crate::reference::{RefValue, Reference, decode};
use crate::scale_offset::reference_tests::reference as scale_offset_reference;

const SHAPE: [u64; 2] = [6, 10];
const ROUNDINGS: [(RoundingMode, &str); 5] = [
    (RoundingMode::NearestEven, "nearest-even"),
    (RoundingMode::NearestAway, "nearest-away"),
    (RoundingMode::TowardsZero, "towards-zero"),
    (RoundingMode::TowardsPositive, "towards-positive"),
    (RoundingMode::TowardsNegative, "towards-negative"),
];

/// `offset` and `scale` for a source type: ones that keep moderate values in range.
fn scale_offset_json(t: NumericType) -> serde_json::Value {
    match t {
        NumericType::Float8E8M0FNU => json!({"scale": 2}),
        NumericType::Int8 | NumericType::Int16 | NumericType::Int32 | NumericType::Int64 => {
            json!({"offset": 1})
        }
        t if t.is_integer() => json!({"offset": 0}),
        _ => json!({"offset": 0.5, "scale": 2}),
    }
}

/// Moderate values of `t` (bits): finite, within ±64 (±1 for the floats of 8 bits and less), so
/// that `scale_offset` keeps them in range.
fn moderate_inputs(t: NumericType, seed: u64) -> Vec<u64> {
    let limit = if t.size() == 1 && !t.is_integer() {
        1.0
    } else {
        64.0
    };
    let acceptable = |bits: u64| match decode(t.name(), bits) {
        RefValue::Float(v) => v.abs() <= limit,
        RefValue::Int(i) => i.abs() <= 64,
        _ => false,
    };
    let mask = if t.size() == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * t.size())) - 1
    };
    let candidates: Box<dyn Iterator<Item = u64>> = match t {
        NumericType::Float32 => Box::new(Seeded(seed).map(|r| {
            #[expect(clippy::cast_precision_loss)]
            let x = ((r % 128_001) as f32 - 64_000.0) / 1000.0;
            u64::from(x.to_bits())
        })),
        NumericType::Float64 => Box::new(Seeded(seed).map(|r| {
            #[expect(clippy::cast_precision_loss)]
            let x = ((r % 1_280_001) as f64 - 640_000.0) / 10_000.0;
            x.to_bits()
        })),
        t if t.size() >= 4 => {
            Box::new(Seeded(seed).map(move |r| (r % 129).wrapping_sub(64) & mask))
        }
        _ => Box::new(Seeded(seed).map(move |r| r & mask)),
    };
    let count = usize::try_from(SHAPE[0] * SHAPE[1]).unwrap();
    candidates.filter(|&b| acceptable(b)).take(count).collect()
}

/// What reading back should give: every element, or the first failure of the write or the read.
enum Expected {
    WriteFails,
    ReadFails,
    Values(Vec<RefValue>),
}

fn expected(
    from: NumericType,
    to: NumericType,
    inputs: &[u64],
    rounding: RoundingMode,
    oor: OutOfRangeMode,
) -> Expected {
    let (offset, scale) = {
        let json = scale_offset_json(from);
        let read = |key: &str| {
            json.get(key).map(|v| {
                decode(
                    from.name(),
                    parse_scalar(from, &serde_json::from_value(v.clone()).unwrap(), false).unwrap(),
                )
            })
        };
        (read("offset"), read("scale"))
    };
    let (rounder_from, rounder_to) = (Reference::new(from.name()), Reference::new(to.name()));
    let mut encoded = Vec::new();
    for &bits in inputs {
        let x = decode(from.name(), bits);
        let step = scale_offset_reference(from, &rounder_from, Direction::Encode, offset, scale, x)
            .and_then(|y| rounder_to.cast(y, rounding, Some(oor)));
        match step {
            Ok(y) => encoded.push(y),
            Err(_) => return Expected::WriteFails,
        }
    }
    let mut decoded = Vec::new();
    for y in encoded {
        let step: Result<RefValue, FaultKind> =
            rounder_from.cast(y, rounding, Some(oor)).and_then(|z| {
                scale_offset_reference(from, &rounder_from, Direction::Decode, offset, scale, z)
            });
        match step {
            Ok(z) => decoded.push(z),
            Err(_) => return Expected::ReadFails,
        }
    }
    Expected::Values(decoded)
}

/// A fill value that `scale_offset` encodes as 1, which every data type holds, so that it survives
/// every cast; hex bits for the small floats, whose JSON numbers zarrs reads by feature.
fn fill_value(t: NumericType) -> serde_json::Value {
    let value = match t {
        NumericType::Float8E8M0FNU => json!(0.5),
        NumericType::Int8 | NumericType::Int16 | NumericType::Int32 | NumericType::Int64 => {
            json!(2)
        }
        t if t.is_integer() => json!(1),
        _ => json!(1.0),
    };
    if t.size() == 1 && !t.is_integer() {
        let bits = parse_scalar(t, &serde_json::from_value(value).unwrap(), false).unwrap();
        json!(format!("0x{bits:02x}"))
    } else {
        value
    }
}

fn array_metadata(from: NumericType, to: NumericType, rounding: &str, oor: &str) -> ArrayMetadata {
    let endian = if to.size() == 1 {
        json!({})
    } else {
        json!({"endian": "little"})
    };
    serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": SHAPE, "data_type": from.name(),
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 6]}},
        "chunk_key_encoding": {"name": "default"},
        "fill_value": fill_value(from),
        "codecs": [
            {"name": "scale_offset", "configuration": scale_offset_json(from)},
            {"name": "cast_value", "configuration": {"data_type": to.name(), "rounding": rounding, "out_of_range": oor}},
            {"name": "transpose", "configuration": {"order": [1, 0]}},
            {"name": "sharding_indexed", "configuration": {
                "chunk_shape": [3, 2],
                "codecs": [{"name": "bytes", "configuration": endian}, {"name": "zstd", "configuration": {"level": 1, "checksum": false}}],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
            }},
        ],
    }))
    .unwrap()
}

fn round_trip<S: ReadableWritableStorageTraits + ?Sized + 'static>(
    store: Arc<S>,
    from: NumericType,
    to: NumericType,
    pair: usize,
) -> usize {
    let (rounding, rounding_name) = ROUNDINGS[pair % ROUNDINGS.len()];
    let (oor, oor_name) = if to.is_integer() && pair.is_multiple_of(3) {
        (OutOfRangeMode::Wrap, "wrap")
    } else {
        (OutOfRangeMode::Clamp, "clamp")
    };
    let inputs = moderate_inputs(from, pair as u64 + 1);
    let whole = ArraySubset::new_with_shape(SHAPE.to_vec());
    let array = Array::new_with_metadata(
        store,
        "/a",
        array_metadata(from, to, rounding_name, oor_name),
    )
    .unwrap();
    let context = format!("{from} -> {to} ({rounding_name}, {oor_name})");
    let bytes = ArrayBytes::new_flen(element_bytes(&inputs, from.size()));
    let written = array.store_array_subset(&whole, bytes);
    match expected(from, to, &inputs, rounding, oor) {
        Expected::WriteFails => {
            assert!(written.is_err(), "{context}: the write should fail");
            0
        }
        Expected::ReadFails => {
            written.unwrap_or_else(|e| panic!("{context}: {e}"));
            assert!(
                array
                    .retrieve_array_subset::<ArrayBytes<'static>>(&whole)
                    .is_err(),
                "{context}: the read should fail"
            );
            0
        }
        Expected::Values(values) => {
            written.unwrap_or_else(|e| panic!("{context}: {e}"));
            let read = array
                .retrieve_array_subset::<ArrayBytes<'static>>(&whole)
                .unwrap_or_else(|e| panic!("{context}: {e}"));
            let read = read.into_fixed().unwrap();
            for (i, (element, want)) in read.chunks_exact(from.size()).zip(&values).enumerate() {
                let got = decode(from.name(), crate::numeric::element_bits(element));
                assert_eq!(
                    got,
                    *want,
                    "{context}: element {i} of {:?}",
                    decode(from.name(), inputs[i])
                );
            }
            values.len()
        }
    }
}

#[test]
fn random_data_of_every_type_pair_round_trips_through_the_whole_codec_chain() {
    let directory = tempfile::tempdir().unwrap();
    let mut pairs = 0;
    let mut checked = 0;
    for (i, &from) in NumericType::ALL.iter().enumerate() {
        for (j, &to) in NumericType::ALL.iter().enumerate() {
            let pair = i * NumericType::ALL.len() + j;
            checked += round_trip(Arc::new(MemoryStore::new()), from, to, pair);
            let folder = directory.path().join(pair.to_string());
            checked += round_trip(
                Arc::new(FilesystemStore::new(&folder).unwrap()),
                from,
                to,
                pair,
            );
            pairs += 1;
        }
    }
    println!("{pairs} type pairs, {checked} elements compared");
    assert_eq!(pairs, 26 * 26);
    // Most pairs hold their moderate values: the elements compared, not only failures.
    assert!(checked > pairs * 60, "{checked} elements compared");
}
