//! Faults the codecs themselves must survive, through the public zarrs API: concurrent writers to
//! distinct chunks (the codecs' shared state and per-thread buffers) lose nothing, and stored
//! sub-byte elements read the same whatever their spare bits hold. (Stores that fail, truncated
//! chunks and checksums are zarrs' and the compressors' to catch.)

use std::sync::Arc;

use serde_json::json;
use zarrs::array::{Array, ArrayBytes, ArrayMetadata};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{StoreKey, WritableStorageTraits};
use zarrs_scale_offset_cast::FusedReader;

fn metadata() -> ArrayMetadata {
    let codecs = vec![
        json!({"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}}),
        json!({"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}),
        json!({"name": "bytes", "configuration": {"endian": "little"}}),
    ];
    serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [64, 64], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [16, 16]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN", "codecs": codecs,
    }))
    .unwrap()
}

#[expect(clippy::cast_precision_loss, reason = "small indices")]
fn values(seed: usize, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((seed * 131 + i) % 6000) as f64 / 10000.0)
        .collect()
}

#[test]
fn concurrent_writers_to_distinct_chunks_lose_nothing() {
    let store = Arc::new(MemoryStore::new());
    let array = Arc::new(Array::new_with_metadata(store, "/", metadata()).unwrap());
    std::thread::scope(|scope| {
        for writer in 0..4u64 {
            let array = Arc::clone(&array);
            scope.spawn(move || {
                for row in 0..4u64 {
                    let chunk = [row, writer];
                    let seed = usize::try_from(row * 4 + writer).unwrap();
                    array.store_chunk(&chunk, values(seed, 256)).unwrap();
                }
            });
        }
    });
    for row in 0..4u64 {
        for writer in 0..4u64 {
            let seed = usize::try_from(row * 4 + writer).unwrap();
            let back: Vec<f64> = array.retrieve_chunk(&[row, writer]).unwrap();
            for (got, want) in back.iter().zip(values(seed, 256)) {
                assert!(
                    (got - want).abs() <= 5.0001e-5,
                    "chunk {row},{writer}: {got} {want}"
                );
            }
        }
    }
}

#[test]
fn spare_bits_of_stored_narrow_elements_are_ignored() {
    // The sub-byte data types are stored one to a byte with the upper bits arbitrary (their
    // specifications: ignored by the `bytes` codec): whatever another writer left there, a read
    // gives the value of the low bits, through zarrs and through FusedReader.
    let cast = |to: &str| json!({"name": "cast_value", "configuration": {"data_type": to, "out_of_range": "clamp"}});
    let chains = [
        ("float32", 4, true, cast("int4")),
        ("float32", 4, false, cast("uint4")),
        ("float32", 2, true, cast("int2")),
        ("float32", 2, false, cast("uint2")),
        ("float32", 4, false, cast("float4_e2m1fn")),
        ("float32", 6, false, cast("float6_e3m2fn")),
        // Even values only: the decode divides by 2.
        (
            "int4",
            4,
            true,
            json!({"name": "scale_offset", "configuration": {"offset": 2, "scale": 2}}),
        ),
    ];
    let mut differing = 0;
    for (data_type, bits, signed, codec) in chains {
        let step = if data_type == "int4" { 2 } else { 1 };
        let metadata: ArrayMetadata = serde_json::from_value(json!({
            "zarr_format": 3, "node_type": "array", "shape": [64], "data_type": data_type,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [64]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
            "codecs": [codec, {"name": "bytes"}],
        }))
        .unwrap();
        let store = Arc::new(MemoryStore::new());
        let array = Array::new_with_metadata(store.clone(), "/", metadata).unwrap();
        let key = StoreKey::new("c/0").unwrap();
        let whole = array.subset_all();
        // Every pattern of the value bits (repeated), as zarrs holds them (spare bits clear, or
        // copies of the sign bit), and with spare bits of every kind.
        let low: Vec<u8> = (0..64u8).map(|i| (i * step) % (1 << bits)).collect();
        let clean: Vec<u8> = low
            .iter()
            .map(|&b| {
                let negative = signed && b >> (bits - 1) == 1;
                if negative { b | (0xffu8 << bits) } else { b }
            })
            .collect();
        let noisy: Vec<u8> = low
            .iter()
            .zip(0u8..)
            .map(|(&b, i)| b | (i.wrapping_mul(37).wrapping_add(11) << bits))
            .collect();
        differing += clean.iter().zip(&noisy).filter(|(a, b)| a != b).count();
        let mut reads = Vec::new();
        for stored in [&clean, &noisy] {
            store.set(&key, stored.clone().into()).unwrap();
            let zarrs: ArrayBytes = array.retrieve_array_subset(&whole).unwrap();
            let zarrs = zarrs.into_fixed().unwrap().into_owned();
            if data_type == "float32" {
                let fused: Vec<f32> = FusedReader::new(&array)
                    .retrieve_array_subset(&whole)
                    .unwrap();
                assert_eq!(bytemuck::cast_slice::<f32, u8>(&fused), zarrs.as_slice());
            }
            reads.push(zarrs);
        }
        assert_eq!(
            reads[0], reads[1],
            "{data_type} through {bits}-bit elements"
        );
    }
    assert!(
        differing > 300,
        "{differing} bytes with spare bits of their own"
    );
}
