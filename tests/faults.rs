//! Faults the codecs themselves must survive, through the public zarrs API: concurrent writers to
//! distinct chunks (the codecs' shared state and per-thread buffers) lose nothing, and a stored
//! byte that no valid chunk holds is an error, never another value. (Stores that fail, truncated
//! chunks and checksums are zarrs' and the compressors' to catch.)

use std::sync::Arc;

use serde_json::json;
use zarrs::array::{Array, ArrayMetadata};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ReadableStorageTraits, StoreKey, WritableStorageTraits};
use zarrs_scale_offset_cast as _;

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
fn corrupted_bytes_of_a_narrow_type_are_errors_even_without_a_checksum() {
    // int4 elements one to a byte: a byte with spare bits set cannot come from a valid chunk.
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [8], "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "cast_value", "configuration": {"data_type": "int4", "out_of_range": "clamp"}},
                   {"name": "bytes"}],
    }))
    .unwrap();
    let store = Arc::new(MemoryStore::new());
    let array = Array::new_with_metadata(store.clone(), "/", metadata).unwrap();
    array
        .store_chunk(&[0], vec![1.0f32, -2.0, 3.0, 7.0, -8.0, 0.0, 5.0, 6.0])
        .unwrap();
    let key = StoreKey::new("c/0").unwrap();
    let mut stored = store.get(&key).unwrap().unwrap().to_vec();
    stored[3] ^= 0x40;
    store.set(&key, stored.into()).unwrap();
    let error = array
        .retrieve_chunk::<Vec<f32>>(&[0])
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("element 3") && error.contains("int4"),
        "{error}"
    );
}
