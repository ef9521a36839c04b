//! The synchronous and the asynchronous read make the same requests for the same read (the same
//! keys and byte ranges, in as many rounds) and report the same: windows inside one chunk, across
//! chunks and shards, whole reads and reads beyond the array, of chunked and sharded arrays,
//! uncompressed, compressed and in large Blosc inner chunks (fetched by their fronts), through
//! fresh readers and readers that keep shard indexes.

use std::sync::{Arc, Mutex};

use futures::executor::block_on;
use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayMetadata, ArraySubset, CodecOptions};
use zarrs::storage::byte_range::{ByteRange, ByteRangeIterator};
use zarrs::storage::store::{AsyncMemoryStore, MemoryStore};
use zarrs::storage::{
    AsyncMaybeBytesIterator, AsyncReadableStorageTraits, AsyncWritableStorageTraits,
    ListableStorageTraits, MaybeBytes, MaybeBytesIterator, ReadableStorageTraits, StorageError,
    StoreKey,
};
use zarrs_scale_offset_cast::FusedReader;
use zarrs_scale_offset_cast_reference::Seeded;

use crate::support::{reflectance_codecs, sharded_metadata, values};

/// A store that records each request made of it: the key and the byte range (none: the whole
/// value).
struct Recording<S> {
    inner: S,
    requests: Mutex<Vec<(String, Option<ByteRange>)>>,
}

impl<S> Recording<S> {
    fn new(inner: S) -> Self {
        Self {
            inner,
            requests: Mutex::default(),
        }
    }

    fn record(&self, key: &StoreKey, range: Option<ByteRange>) {
        self.requests
            .lock()
            .unwrap()
            .push((key.as_str().to_string(), range));
    }

    /// The requests made since the last call, sorted.
    fn take(&self) -> Vec<(String, Option<ByteRange>)> {
        let mut requests = std::mem::take(&mut *self.requests.lock().unwrap());
        requests.sort_by_key(|(key, range)| (key.clone(), format!("{range:?}")));
        requests
    }
}

impl ReadableStorageTraits for Recording<MemoryStore> {
    fn get(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        self.record(key, None);
        self.inner.get(key)
    }

    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        let ranges: Vec<ByteRange> = byte_ranges.collect();
        for &range in &ranges {
            self.record(key, Some(range));
        }
        self.inner
            .get_partial_many(key, Box::new(ranges.into_iter()))
    }

    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        self.inner.size_key(key)
    }

    fn supports_get_partial(&self) -> bool {
        true
    }
}

#[async_trait::async_trait]
impl AsyncReadableStorageTraits for Recording<AsyncMemoryStore> {
    async fn get(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        self.record(key, None);
        self.inner.get(key).await
    }

    async fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<AsyncMaybeBytesIterator<'a>, StorageError> {
        let ranges: Vec<ByteRange> = byte_ranges.collect();
        for &range in &ranges {
            self.record(key, Some(range));
        }
        self.inner
            .get_partial_many(key, Box::new(ranges.into_iter()))
            .await
    }

    async fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        self.inner.size_key(key).await
    }

    fn supports_get_partial(&self) -> bool {
        true
    }
}

/// A float64 array of `shape` in chunks of `chunk` stored as uint16, then `compressors`.
fn chunked(shape: &[u64], chunk: &[u64], compressors: &Json) -> ArrayMetadata {
    let mut codecs = reflectance_codecs().as_array().unwrap().clone();
    codecs.push(json!({"name": "bytes", "configuration": {"endian": "little"}}));
    codecs.extend(compressors.as_array().unwrap().iter().cloned());
    serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN", "codecs": codecs,
    }))
    .unwrap()
}

/// The layouts read: a name, the metadata and the values written.
fn layouts(random: &mut Seeded) -> Vec<(&'static str, ArrayMetadata, Vec<f64>)> {
    let zstd = json!({"name": "zstd", "configuration": {"level": 1, "checksum": false}});
    let gzip = json!([{"name": "gzip", "configuration": {"level": 1}}]);
    // Blocks of 256 KiB, eight to an inner chunk: windows of its first rows fetch its front, and
    // where the rows below compress to almost nothing, the rest of their blocks after it.
    let blosc = json!({"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5,
        "shuffle": "bitshuffle", "typesize": 2, "blocksize": 0}});
    // 12 random bits in the first 1000 rows, one value below.
    let uneven = (0..4096 * 512)
        .map(|i| {
            if i < 1000 * 512 {
                random.below(4096)
            } else {
                5000
            }
        })
        .map(|i| f64::from(u32::try_from(i).unwrap()) * 1e-4)
        .collect();
    let small = || values(100 * 90);
    vec![
        (
            "chunks",
            chunked(&[100, 90], &[32, 24], &json!([])),
            small(),
        ),
        (
            "gzip chunks",
            chunked(&[100, 90], &[32, 24], &gzip),
            small(),
        ),
        (
            "shards",
            sharded_metadata(&[100, 90], &[64, 48], &[32, 24], &Json::Null),
            small(),
        ),
        (
            "zstd shards",
            sharded_metadata(&[100, 90], &[64, 48], &[32, 24], &zstd),
            small(),
        ),
        (
            "blosc shards",
            sharded_metadata(&[4096, 512], &[4096, 512], &[2048, 512], &blosc),
            uneven,
        ),
    ]
}

/// The array of `metadata` with `data` written, in a synchronous and an asynchronous store that
/// record the requests made of them.
fn written(
    metadata: &ArrayMetadata,
    data: Vec<f64>,
) -> (
    Arc<Recording<MemoryStore>>,
    Arc<Recording<AsyncMemoryStore>>,
) {
    let memory = MemoryStore::new();
    let writer = Array::new_with_metadata(Arc::new(memory), "/", metadata.clone()).unwrap();
    let shape = writer.shape().to_vec();
    writer
        .store_array_subset(&[0..shape[0], 0..shape[1]], data)
        .unwrap();
    let (memory, asynchronous) = (writer.storage(), AsyncMemoryStore::new());
    let copy = MemoryStore::new();
    for key in memory.list().unwrap() {
        let value = memory.get(&key).unwrap().unwrap();
        block_on(asynchronous.set(&key, value.clone())).unwrap();
        zarrs::storage::WritableStorageTraits::set(&copy, &key, value).unwrap();
    }
    (
        Arc::new(Recording::new(copy)),
        Arc::new(Recording::new(asynchronous)),
    )
}

#[test]
fn synchronous_and_asynchronous_reads_make_the_same_requests() {
    let mut random = Seeded::for_test(0x5eed_a57c_5a3e);
    let (mut reads, mut rounds, mut fetched) = (0, 0, 0);
    for (name, metadata, data) in layouts(&mut random) {
        let (sync_store, async_store) = written(&metadata, data);
        let sync_array = Array::new_with_metadata(sync_store.clone(), "/", metadata.clone());
        let async_array = Array::new_with_metadata(async_store.clone(), "/", metadata);
        let (sync_array, async_array) = (sync_array.unwrap(), async_array.unwrap());
        let shape = sync_array.shape().to_vec();
        let mut windows: Vec<[std::ops::Range<u64>; 2]> = vec![
            [0..shape[0], 0..shape[1]],
            [3..9, 5..11],
            [10..70, 20..60],
            [shape[0] - 3..shape[0] + 5, 1..4],
            [5..5, 0..3],
            [260..300, 0..shape[1]],
        ];
        windows.extend((0..6).map(|_| {
            let (rows, columns) = (
                1 + random.below(shape[0] / 2),
                1 + random.below(shape[1] / 2),
            );
            let (row, column) = (
                random.below(shape[0] - rows),
                random.below(shape[1] - columns),
            );
            [row..row + rows, column..column + columns]
        }));
        for keeping in [false, true] {
            let (mut sync_reader, mut async_reader) = (
                FusedReader::new(&sync_array),
                FusedReader::new(&async_array),
            );
            if keeping {
                sync_reader = sync_reader.with_shard_index_cache();
                async_reader = async_reader.with_shard_index_cache();
                // The indexes of the upper half's shards fetched first, as a tile server does.
                let upper = [0..shape[0] / 2, 0..shape[1]];
                let sync_report = sync_reader.fetch_shard_indexes(&upper).unwrap();
                let async_report = block_on(async_reader.async_fetch_shard_indexes(&upper));
                assert_eq!(sync_store.take(), async_store.take(), "{name}: indexes");
                assert_eq!(sync_report, async_report.unwrap(), "{name}: index reports");
                fetched += sync_report.requests;
            }
            // Each window twice: a keeping reader reads differently the second time.
            for window in windows.iter().chain(windows.iter()) {
                let subset = ArraySubset::new_with_ranges(window);
                let elements = usize::try_from(subset.num_elements()).unwrap();
                let options = CodecOptions::default().with_concurrent_target(3);
                let (mut sync_values, mut async_values) =
                    (vec![0f64; elements], vec![0f64; elements]);
                let sync_report =
                    sync_reader.retrieve_array_subset_into_opt(&subset, &mut sync_values, &options);
                let async_read = async_reader.async_retrieve_array_subset_into_opt(
                    &subset,
                    &mut async_values,
                    &options,
                );
                let (sync_report, async_report) =
                    (sync_report.unwrap(), block_on(async_read).unwrap());
                let context = format!("{name}, keeping {keeping}, {window:?}");
                assert_eq!(sync_store.take(), async_store.take(), "{context}: requests");
                assert_eq!(sync_report, async_report, "{context}: reports");
                let bits = |values: &[f64]| values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&sync_values), bits(&async_values), "{context}: values");
                let fused = sync_report.through_zarrs.is_empty() || elements == 0;
                assert!(fused, "{context}: {sync_report:?}");
                (reads, rounds) = (reads + 1, rounds.max(sync_report.rounds));
            }
        }
    }
    println!(
        "{reads} reads and the fetches of {fetched} shard indexes made the same requests \
         synchronously and asynchronously, up to {rounds} rounds"
    );
    assert_eq!(reads, 5 * 2 * 2 * 12);
    assert!(fetched > 0, "no sharded layout");
    assert_eq!(
        rounds, 3,
        "fronts, then the rest of the blocks, after the indexes"
    );
}
