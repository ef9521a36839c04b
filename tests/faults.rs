//! A fault battery through the public zarrs API: a store that fails on write leaves the previous
//! chunk byte for byte; concurrent writers to distinct chunks lose nothing; a truncated or
//! corrupted stored chunk gives an error, never other values.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use zarrs::array::{Array, ArrayMetadata, ArraySubset};
use zarrs::storage::byte_range::ByteRangeIterator;
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{
    Bytes, MaybeBytesIterator, OffsetBytesIterator, ReadableStorageTraits, StorageError, StoreKey,
    StorePrefix, WritableStorageTraits,
};
use zarrs_scale_offset_cast as _;

/// A memory store whose writes fail while `failing` is set.
#[derive(Default)]
struct FailingStore {
    inner: MemoryStore,
    failing: AtomicBool,
}

impl FailingStore {
    fn check(&self) -> Result<(), StorageError> {
        if self.failing.load(Ordering::SeqCst) {
            Err(std::io::Error::other("the disk is full").into())
        } else {
            Ok(())
        }
    }
}

impl ReadableStorageTraits for FailingStore {
    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        self.inner.get_partial_many(key, byte_ranges)
    }
    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        self.inner.size_key(key)
    }
    fn supports_get_partial(&self) -> bool {
        self.inner.supports_get_partial()
    }
}

impl WritableStorageTraits for FailingStore {
    fn set(&self, key: &StoreKey, value: Bytes) -> Result<(), StorageError> {
        self.check()?;
        self.inner.set(key, value)
    }
    fn set_partial_many(
        &self,
        key: &StoreKey,
        offset_values: OffsetBytesIterator,
    ) -> Result<(), StorageError> {
        self.check()?;
        self.inner.set_partial_many(key, offset_values)
    }
    fn erase(&self, key: &StoreKey) -> Result<(), StorageError> {
        self.check()?;
        self.inner.erase(key)
    }
    fn erase_prefix(&self, prefix: &StorePrefix) -> Result<(), StorageError> {
        self.check()?;
        self.inner.erase_prefix(prefix)
    }
    fn supports_set_partial(&self) -> bool {
        self.inner.supports_set_partial()
    }
}

fn metadata(compressors: &serde_json::Value) -> ArrayMetadata {
    let mut codecs = vec![
        json!({"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}}),
        json!({"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}),
        json!({"name": "bytes", "configuration": {"endian": "little"}}),
    ];
    codecs.extend(compressors.as_array().unwrap().iter().cloned());
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
fn a_write_the_store_fails_leaves_the_previous_chunk_byte_for_byte() {
    let store = Arc::new(FailingStore::default());
    let array = Array::new_with_metadata(store.clone(), "/", metadata(&json!([]))).unwrap();
    array.store_chunk(&[1, 2], values(1, 256)).unwrap();
    let key = StoreKey::new("c/1/2").unwrap();
    let before = store.get(&key).unwrap().unwrap();
    store.failing.store(true, Ordering::SeqCst);
    let error = array.store_chunk(&[1, 2], values(2, 256)).unwrap_err();
    assert!(error.to_string().contains("the disk is full"), "{error}");
    let error = array
        .store_array_subset(
            &ArraySubset::new_with_ranges(&[16..20, 32..40]),
            values(3, 32),
        )
        .unwrap_err();
    assert!(error.to_string().contains("the disk is full"), "{error}");
    store.failing.store(false, Ordering::SeqCst);
    assert_eq!(store.get(&key).unwrap().unwrap(), before);
    let back: Vec<f64> = array.retrieve_chunk(&[1, 2]).unwrap();
    let expected: Vec<f64> = values(1, 256)
        .iter()
        .map(|x| (x * 10000.0).round() / 10000.0)
        .collect();
    for (got, want) in back.iter().zip(&expected) {
        assert!((got - want).abs() < 1e-12, "{got} {want}");
    }
}

#[test]
fn concurrent_writers_to_distinct_chunks_lose_nothing() {
    let store = Arc::new(MemoryStore::new());
    let array = Arc::new(Array::new_with_metadata(store, "/", metadata(&json!([]))).unwrap());
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
fn truncated_and_corrupted_chunks_are_errors_not_other_values() {
    for (compressors, checked) in [
        (json!([]), false),
        (json!([{"name": "crc32c"}]), true),
        (
            json!([{"name": "zstd", "configuration": {"level": 1, "checksum": true}}]),
            true,
        ),
        (
            json!([{"name": "gzip", "configuration": {"level": 1}}]),
            true,
        ),
    ] {
        let store = Arc::new(MemoryStore::new());
        let array = Array::new_with_metadata(store.clone(), "/", metadata(&compressors)).unwrap();
        array.store_chunk(&[0, 0], values(7, 256)).unwrap();
        let key = StoreKey::new("c/0/0").unwrap();
        let stored = store.get(&key).unwrap().unwrap().to_vec();
        // Truncated by one byte, and by half.
        for len in [stored.len() - 1, stored.len() / 2] {
            store.set(&key, stored[..len].to_vec().into()).unwrap();
            let read = array.retrieve_chunk::<Vec<f64>>(&[0, 0]);
            assert!(
                read.is_err(),
                "{compressors}: {len} of {} bytes read as values",
                stored.len()
            );
        }
        // A flipped bit in the middle: detected wherever a checksum or the compressed format
        // covers it.
        if checked {
            let mut corrupted = stored.clone();
            let middle = corrupted.len() / 2;
            corrupted[middle] ^= 0x10;
            store.set(&key, corrupted.into()).unwrap();
            let read = array.retrieve_chunk::<Vec<f64>>(&[0, 0]);
            assert!(
                read.is_err(),
                "{compressors}: a corrupted chunk read as values"
            );
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
