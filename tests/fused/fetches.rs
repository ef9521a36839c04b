//! What the fused read fetches from the store: of a chunk stored uncompressed (the `bytes` codec
//! alone), chunked or as the inner chunks of shards, only its elements from the first to the last
//! a read needs, one range request per chunk, as zarrs' partial decoders fetch no more than the
//! elements they need; a shard of compressed inner chunks that a read needs every one of, whole in
//! one request, as zarr-python fetches it; the ranges of inner chunks that follow each other in
//! their shard (at most 4 KiB apart) in one request for them all; and it reads what zarrs reads.

use std::collections::HashMap;
use std::sync::Arc;

use crate::counted::{Counted, Take, requests, requests_and_bytes, shard_index};
use serde_json::json;
use zarrs::array::{Array, ArrayMetadata, ArraySubset};
use zarrs::storage::ReadableStorageTraits;
use zarrs::storage::store::MemoryStore;
use zarrs_scale_offset_cast::FusedReader;
use zarrs_scale_offset_cast_reference::{Seeded, model_seed_label};

const SHAPE: [u64; 2] = [200, 150];
const CHUNK: [u64; 2] = [64, 48];
const SHARD: [u64; 2] = [128, 96];
/// Rows written; the chunks below them are never stored.
const WRITTEN: u64 = 192;
/// A shard's index: two uint64 for each of its 2 x 2 inner chunks, and the crc32c.
const INDEX_BYTES: usize = 2 * 2 * 16 + 4;

/// The array's metadata: chunked or sharded, with `compressors` after `bytes`.
fn metadata(sharded: bool, compressors: &[serde_json::Value]) -> ArrayMetadata {
    let mut codecs = vec![
        json!({"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}}),
        json!({"name": "cast_value", "configuration": {"data_type": "uint16",
            "out_of_range": "clamp", "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}),
        json!({"name": "bytes", "configuration": {"endian": "little"}}),
    ];
    codecs.extend(compressors.iter().cloned());
    let grid = if sharded {
        codecs = vec![json!({"name": "sharding_indexed", "configuration": {
            "chunk_shape": CHUNK, "codecs": codecs, "index_location": "end",
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "crc32c"}]}})];
        SHARD
    } else {
        CHUNK
    };
    serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": SHAPE, "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": grid}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN", "codecs": codecs,
    }))
    .unwrap()
}

/// The stored chunks `window` touches (on the grid of `CHUNK`), each with the first element the
/// read needs and how many from there to the last (in the chunk's C order).
fn spans(window: &ArraySubset) -> Vec<([u64; 2], u64, u64)> {
    let (start, end) = (window.start(), window.end_exc());
    let mut spans = Vec::new();
    for row in start[0] / CHUNK[0]..end[0].div_ceil(CHUNK[0]) {
        for column in start[1] / CHUNK[1]..end[1].div_ceil(CHUNK[1]) {
            let origin = [row * CHUNK[0], column * CHUNK[1]];
            if origin[0] >= WRITTEN {
                continue;
            }
            // The window's first and last element within this chunk, as (row, column).
            let first: Vec<u64> = (0..2)
                .map(|d| start[d].max(origin[d]) - origin[d])
                .collect();
            let last: Vec<u64> = (0..2)
                .map(|d| end[d].min(origin[d] + CHUNK[d]) - 1 - origin[d])
                .collect();
            let (first, last) = (first[0] * CHUNK[1] + first[1], last[0] * CHUNK[1] + last[1]);
            spans.push(([row, column], first, last - first + 1));
        }
    }
    spans
}

/// The position of the inner chunk at `chunk` in its shard's index.
fn position(chunk: [u64; 2]) -> usize {
    let per_shard = [SHARD[0] / CHUNK[0], SHARD[1] / CHUNK[1]];
    usize::try_from((chunk[0] % per_shard[0]) * per_shard[1] + chunk[1] % per_shard[1]).unwrap()
}

/// The shard holding the inner chunk at `chunk`.
fn shard_of(chunk: [u64; 2]) -> [u64; 2] {
    [
        chunk[0] / (SHARD[0] / CHUNK[0]),
        chunk[1] / (SHARD[1] / CHUNK[1]),
    ]
}

/// The chunks of a grid of `chunk` that `window` touches.
fn touched(window: &ArraySubset, chunk: [u64; 2]) -> usize {
    let (start, end) = (window.start(), window.end_exc());
    (0..2)
        .map(|d| usize::try_from(end[d].div_ceil(chunk[d]) - start[d] / chunk[d]).unwrap())
        .product()
}

#[test]
fn windows_of_uncompressed_chunks_fetch_only_the_elements_they_span() {
    let mut random = Seeded::for_test(0x5eed_0000_0e1e);
    let (mut windows, mut merged) = (0, 0);
    for sharded in [false, true] {
        let memory = Arc::new(MemoryStore::new());
        let array = Array::new_with_metadata(memory.clone(), "/", metadata(sharded, &[])).unwrap();
        let values: Vec<f64> = (0..WRITTEN * SHAPE[1])
            .map(|i| {
                if i % 31 == 7 {
                    f64::NAN
                } else {
                    f64::from(u32::try_from(i % 900).unwrap()) * 1e-3
                }
            })
            .collect();
        array
            .store_array_subset(&[0..WRITTEN, 0..SHAPE[1]], values)
            .unwrap();
        let counted = Arc::new(Counted::new(memory.clone()));
        let through =
            Array::new_with_metadata(counted.clone(), "/", metadata(sharded, &[])).unwrap();
        let reader = FusedReader::new(&through);
        assert!(reader.is_fused());
        // Windows whose spans in two inner chunks lie end to end (the first's reaches its last
        // element, the next one's starts at its first), then random ones.
        let fixed = [
            [0..64, 0..96],
            [64..128, 40..96],
            [60..70, 0..150],
            [10..64, 47..49],
        ];
        let random_windows = (0..40).map(|_| {
            // At most 100 rows: never a whole shard, which is fetched whole.
            let rows = 1 + random.below(100);
            let columns = 1 + random.below(SHAPE[1]);
            let row = random.below(SHAPE[0] - rows + 1);
            let column = random.below(SHAPE[1] - columns + 1);
            [row..row + rows, column..column + columns]
        });
        for ranges in fixed.into_iter().chain(random_windows) {
            let window = ArraySubset::new_with_ranges(&ranges);
            counted.take();
            let got: Vec<f64> = reader.retrieve_array_subset(&window).unwrap();
            let (reads, bytes) = counted.take_bytes();
            let expected: Vec<f64> = array.retrieve_array_subset(&window).unwrap();
            assert!(
                got.iter()
                    .map(|x| x.to_bits())
                    .eq(expected.iter().map(|x| x.to_bits())),
                "sharded {sharded}, {window:?}: the values differ from zarrs'"
            );
            let spans = spans(&window);
            let (expected_reads, expected_bytes) = if sharded {
                // Every shard touched exists (rows 128.. are written in part): its index, then
                // the stored inner chunks' spans, one request for those that follow each other.
                let shards = touched(&window, SHARD);
                let mut ranges: HashMap<[u64; 2], Vec<(u64, u64)>> = HashMap::new();
                for &(chunk, first, elements) in &spans {
                    let shard = shard_of(chunk);
                    let stored = memory.get(&through.chunk_key(&shard)).unwrap().unwrap();
                    let (offset, _) = shard_index(&stored, 4)[position(chunk)];
                    ranges
                        .entry(shard)
                        .or_default()
                        .push((offset + 2 * first, 2 * elements));
                }
                let (chunk_reads, chunk_bytes) = ranges
                    .into_values()
                    .map(requests_and_bytes)
                    .fold((0, 0), |(r, b), (reads, bytes)| (r + reads, b + bytes));
                merged += spans.len() - chunk_reads;
                let chunk_bytes = usize::try_from(chunk_bytes).unwrap();
                (shards + chunk_reads, shards * INDEX_BYTES + chunk_bytes)
            } else {
                // Every chunk touched is asked for, its span alone; those never stored answer
                // nothing.
                let span_bytes: u64 = spans.iter().map(|&(_, _, elements)| 2 * elements).sum();
                (
                    touched(&window, CHUNK),
                    usize::try_from(span_bytes).unwrap(),
                )
            };
            assert_eq!(
                (reads, bytes),
                (expected_reads, expected_bytes),
                "sharded {sharded}, {window:?}: requests and bytes"
            );
            windows += 1;
        }
    }
    let seed = model_seed_label();
    println!(
        "uncompressed chunks, {seed}: {windows} windows, each fetching its elements (and gaps of at most 4 KiB between \
         those of a shard); \
         {merged} requests saved by spans fetched together"
    );
    assert_eq!(windows, 88);
    assert!(merged >= 2, "{merged} requests saved");
}

/// Whether `window` needs every inner chunk of the shard at `shard` within the array (reaches
/// into its first and its last along each dimension).
fn needs_every_inner_chunk(window: &ArraySubset, shard: [u64; 2]) -> bool {
    (0..2).all(|d| {
        let start = shard[d] * SHARD[d];
        let within = (start + SHARD[d]).min(SHAPE[d]);
        let last = start + (within - start - 1) / CHUNK[d] * CHUNK[d];
        window.start()[d] < start + CHUNK[d] && window.end_exc()[d] > last
    })
}

#[test]
fn shards_of_compressed_inner_chunks_a_window_needs_whole_are_fetched_whole() {
    let mut random = Seeded::for_test(0x5eed_0000_5ad0);
    let gzip = [json!({"name": "gzip", "configuration": {"level": 1}})];
    let memory = Arc::new(MemoryStore::new());
    let array = Array::new_with_metadata(memory.clone(), "/", metadata(true, &gzip)).unwrap();
    let values: Vec<f64> = (0..WRITTEN * SHAPE[1])
        .map(|i| f64::from(u32::try_from(i % 900).unwrap()) * 1e-3)
        .collect();
    array
        .store_array_subset(&[0..WRITTEN, 0..SHAPE[1]], values)
        .unwrap();
    let counted = Arc::new(Counted::new(memory.clone()));
    let through = Array::new_with_metadata(counted.clone(), "/", metadata(true, &gzip)).unwrap();
    let plain = FusedReader::new(&through);
    let (mut windows, mut whole_shards) = (0, 0);
    for _ in 0..60 {
        let rows = 1 + random.below(SHAPE[0]);
        let columns = 1 + random.below(SHAPE[1]);
        let row = random.below(SHAPE[0] - rows + 1);
        let column = random.below(SHAPE[1] - columns + 1);
        let window = ArraySubset::new_with_ranges(&[row..row + rows, column..column + columns]);
        let expected: Vec<f64> = array.retrieve_array_subset(&window).unwrap();
        let bits = |values: &[f64]| values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        // Per shard touched: the whole shard where the window needs each of its inner chunks,
        // else its index and each stored inner chunk touched (rows from 192 on are not stored).
        let (mut reads, mut indexed_reads, mut bytes, mut all_whole) = (0, 0, 0, true);
        for shard_row in row / SHARD[0]..=(row + rows - 1) / SHARD[0] {
            for shard_column in column / SHARD[1]..=(column + columns - 1) / SHARD[1] {
                let shard = [shard_row, shard_column];
                let region = ArraySubset::new_with_start_shape(
                    vec![shard_row * SHARD[0], shard_column * SHARD[1]],
                    SHARD.to_vec(),
                )
                .unwrap();
                let part = region.overlap(&window).unwrap();
                // The stored inner chunks touched, one request for those end to end.
                let key = through.chunk_key(&shard);
                let index = shard_index(&memory.get(&key).unwrap().unwrap(), 4);
                let ranges: Vec<(u64, u64)> = spans(&part)
                    .into_iter()
                    .map(|(chunk, _, _)| index[position(chunk)])
                    .collect();
                let stored = requests(ranges);
                indexed_reads += stored;
                if needs_every_inner_chunk(&window, shard) {
                    reads += 1;
                    bytes += memory.get(&key).unwrap().unwrap().len();
                    whole_shards += 1;
                } else {
                    reads += 1 + stored;
                    all_whole = false;
                }
            }
        }
        // Without the cache, and twice through a reader keeping indexes, which keeps those of
        // the shards it reads whole too: its second read fetches inner chunks alone.
        let keeping = FusedReader::new(&through).with_shard_index_cache();
        for (reader, expected_reads, indexed) in [
            (&plain, reads, false),
            (&keeping, reads, false),
            (&keeping, indexed_reads, true),
        ] {
            counted.take();
            let got: Vec<f64> = reader.retrieve_array_subset(&window).unwrap();
            assert_eq!(
                bits(&got),
                bits(&expected),
                "{window:?}: the values differ from zarrs'"
            );
            let (got_reads, got_bytes) = counted.take_bytes();
            assert_eq!(got_reads, expected_reads, "{window:?}: requests");
            if all_whole && !indexed {
                assert_eq!(got_bytes, bytes, "{window:?}: bytes");
            }
        }
        windows += 1;
    }
    let seed = model_seed_label();
    println!("compressed shards, {seed}: {windows} windows, {whole_shards} shards read whole");
    assert_eq!(windows, 60);
    assert!(whole_shards >= 10, "{whole_shards} shards read whole");
}
