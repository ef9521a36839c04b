//! `FusedReader::with_shard_index_cache`: a reader that keeps the shards' indexes reads each
//! index from the store once, later windows of the same shard with one request each, and reads
//! exactly what zarrs reads; shards that did not exist are looked for again.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use zarrs::array::{Array, ArrayMetadata, ArraySubset};
use zarrs::storage::byte_range::ByteRangeIterator;
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{MaybeBytesIterator, ReadableStorageTraits, StorageError, StoreKey};
use zarrs_scale_offset_cast::FusedReader;

/// A memory store that counts the reads made of it (each `get` or range request).
#[derive(Debug)]
struct Counted {
    inner: Arc<MemoryStore>,
    reads: AtomicUsize,
}

impl Counted {
    /// The reads made since the last call.
    fn take(&self) -> usize {
        self.reads.swap(0, Ordering::SeqCst)
    }
}

impl ReadableStorageTraits for Counted {
    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        self.inner.get_partial_many(key, byte_ranges)
    }

    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        self.inner.size_key(key)
    }

    fn supports_get_partial(&self) -> bool {
        true
    }
}

/// A float64 array of 16 x 16 in shards of 8 x 8 holding inner chunks of 4 x 4, the crate's
/// codecs inside the shards (as zarr-python writes them), gzip-compressed, index at the end.
fn metadata() -> ArrayMetadata {
    serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [16, 16], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8, 8]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
        "codecs": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4, 4],
            "codecs": [
                {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
                {"name": "cast_value", "configuration": {"data_type": "uint16",
                    "out_of_range": "clamp",
                    "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
                {"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "gzip", "configuration": {"level": 1}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "crc32c"}],
            "index_location": "end"}}]
    }))
    .unwrap()
}

fn values(ranges: &[std::ops::Range<u64>], base: f64) -> Vec<f64> {
    let subset = ArraySubset::new_with_ranges(ranges);
    (0..subset.num_elements())
        .map(|i| base + f64::from(u32::try_from(i % 97).unwrap()) * 1e-4)
        .collect()
}

/// `subset` read by `reader` and by zarrs through `array`, bit for bit the same.
fn same_as_zarrs(reader: &FusedReader<'_, Counted>, array: &Array<MemoryStore>, subset: &[u64; 4]) {
    let subset = ArraySubset::new_with_ranges(&[subset[0]..subset[1], subset[2]..subset[3]]);
    let expected: Vec<f64> = array.retrieve_array_subset(&subset).unwrap();
    let got: Vec<f64> = reader.retrieve_array_subset(&subset).unwrap();
    let bits = |values: &[f64]| values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&expected), "{subset:?}");
}

#[test]
fn kept_indexes_save_a_request_per_window_and_read_what_zarrs_reads() {
    let memory = Arc::new(MemoryStore::new());
    let writer = Array::new_with_metadata(memory.clone(), "/", metadata()).unwrap();
    writer.store_metadata().unwrap();
    // Shard (0, 0) written; shard (0, 1) and the lower shards never.
    writer
        .store_array_subset(&[0..8, 0..8], values(&[0..8, 0..8], 0.25))
        .unwrap();
    let counted = Arc::new(Counted {
        inner: memory.clone(),
        reads: AtomicUsize::new(0),
    });
    let array = Array::open(counted.clone(), "/").unwrap();
    counted.take();
    let plain = FusedReader::new(&array);
    let keeping = FusedReader::new(&array).with_shard_index_cache();
    assert!(keeping.is_fused());
    // Windows inside one inner chunk of shard (0, 0): the index and the inner chunk each time
    // without the cache; with it, the index the first time only.
    let windows = [[1, 3, 1, 3], [5, 7, 0, 4], [4, 8, 4, 8]];
    for window in windows {
        same_as_zarrs(&plain, &writer, &window);
        assert_eq!(counted.take(), 2, "without the cache, {window:?}");
    }
    for (n, window) in windows.into_iter().enumerate() {
        same_as_zarrs(&keeping, &writer, &window);
        let expected = if n == 0 { 2 } else { 1 };
        assert_eq!(counted.take(), expected, "with the cache, {window:?}");
    }
    // A window across two inner chunks: two ranges, no index.
    same_as_zarrs(&keeping, &writer, &[2, 6, 1, 3]);
    assert_eq!(counted.take(), 2);
    // A shard that does not exist is looked for on every read, so that once written it reads
    // as written.
    for _ in 0..2 {
        same_as_zarrs(&keeping, &writer, &[1, 3, 9, 11]);
        assert_eq!(counted.take(), 1, "an absent shard");
    }
    writer
        .store_array_subset(&[0..8, 8..16], values(&[0..8, 8..16], 0.5))
        .unwrap();
    same_as_zarrs(&keeping, &writer, &[1, 3, 9, 11]);
    assert_eq!(counted.take(), 2, "the new shard's index and inner chunk");
    same_as_zarrs(&keeping, &writer, &[5, 7, 13, 15]);
    assert_eq!(counted.take(), 1, "the new shard's index kept");
    // A read covering whole shards reads them whole, one request each, cache or not.
    same_as_zarrs(&keeping, &writer, &[0, 8, 0, 16]);
    assert_eq!(counted.take(), 2);
}
