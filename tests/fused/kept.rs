//! `FusedReader::with_shard_index_cache`: a reader that keeps the shards' indexes reads each
//! index from the store once, later windows of the same shard with one request each, and reads
//! exactly what zarrs reads; shards that did not exist are looked for again. Of an inner chunk
//! compressed by Blosc and read whole once, later windows fetch only the blocks they need. Any
//! reader fetches of a large Blosc-compressed inner chunk only its front where a window needs its
//! first rows, and what lies past the front where the window's blocks end further on.

use std::sync::Arc;

use crate::counted::{Counted, Take, requests, shard_index};
use crate::support::{assert_path, sharded_metadata};
use serde_json::{Value, json};
use zarrs::array::CodecOptions;
use zarrs::array::{Array, ArrayMetadata, ArraySubset};
use zarrs::storage::ReadableStorageTraits;
use zarrs::storage::store::MemoryStore;
use zarrs_scale_offset_cast::{Fallback, FusedReader, ReadReport, Unfused};
use zarrs_scale_offset_cast_reference::{Seeded, model_seed_label};

fn values(ranges: &[std::ops::Range<u64>], base: f64) -> Vec<f64> {
    let subset = ArraySubset::new_with_ranges(ranges);
    (0..subset.num_elements())
        .map(|i| base + f64::from(u32::try_from(i % 97).unwrap()) * 1e-4)
        .collect()
}

/// `subset` read by `reader` and by zarrs through `array`, bit for bit the same, every chunk on
/// the fused path.
fn same_as_zarrs(reader: &FusedReader<'_, Counted>, array: &Array<MemoryStore>, subset: &[u64; 4]) {
    let subset = ArraySubset::new_with_ranges(&[subset[0]..subset[1], subset[2]..subset[3]]);
    let expected: Vec<f64> = array.retrieve_array_subset(&subset).unwrap();
    let mut got = vec![0f64; expected.len()];
    let report = reader
        .retrieve_array_subset_into_opt(&subset, &mut got, &CodecOptions::default())
        .unwrap();
    assert_path(&report, &subset, &[], "kept");
    let bits = |values: &[f64]| values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&expected), "{subset:?}");
}

#[test]
fn kept_indexes_save_a_request_per_window_and_read_what_zarrs_reads() {
    let memory = Arc::new(MemoryStore::new());
    let writer = Array::new_with_metadata(memory.clone(), "/", gzip_metadata()).unwrap();
    writer.store_metadata().unwrap();
    // Shard (0, 0) written; shard (0, 1) and the lower shards never.
    writer
        .store_array_subset(&[0..8, 0..8], values(&[0..8, 0..8], 0.25))
        .unwrap();
    let counted = Arc::new(Counted::new(memory.clone()));
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
    // A window across two inner chunks (the first and the third of the shard): two ranges, no
    // index; one range where zarrs stored them end to end (it writes inner chunks in the order
    // they were encoded).
    same_as_zarrs(&keeping, &writer, &[2, 6, 1, 3]);
    let shard = memory.get(&array.chunk_key(&[0, 0])).unwrap().unwrap();
    let index = shard_index(&shard, 4);
    assert_eq!(counted.take(), requests(vec![index[0], index[2]]));
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

#[test]
fn fetched_shard_indexes_leave_one_request_per_window() {
    let memory = Arc::new(MemoryStore::new());
    let writer = Array::new_with_metadata(memory.clone(), "/", gzip_metadata()).unwrap();
    writer.store_metadata().unwrap();
    // Shards (0, 0), (0, 1) and (1, 1) written; shard (1, 0) never.
    for (rows, columns) in [(0..8, 0..8), (0..8, 8..16), (8..16, 8..16)] {
        let region = [rows, columns];
        writer
            .store_array_subset(&region, values(&region, 0.75))
            .unwrap();
    }
    let counted = Arc::new(Counted::new(memory));
    let array = Array::open(counted.clone(), "/").unwrap();
    counted.take();
    let keeping = FusedReader::new(&array).with_shard_index_cache();
    // Every shard's index in one round of four requests, the absent shard's among them.
    let report = keeping.fetch_shard_indexes(&array.subset_all()).unwrap();
    assert_eq!((report.requests, report.rounds), (4, 1));
    assert_eq!(counted.take(), 4);
    // Then a window of any written shard costs one request (its inner chunk), no index.
    for window in [[1, 3, 1, 3], [5, 7, 9, 11], [12, 14, 12, 14], [3, 5, 6, 10]] {
        same_as_zarrs(&keeping, &writer, &window);
        let inner = 1 + usize::from(window[2] < 8 && window[3] > 8);
        assert_eq!(counted.take(), inner, "{window:?}");
    }
    // The absent shard is looked for again, by a window and by a fetch of the indexes.
    same_as_zarrs(&keeping, &writer, &[9, 11, 1, 3]);
    assert_eq!(counted.take(), 1);
    let report = keeping.fetch_shard_indexes(&[0..16, 0..16]).unwrap();
    assert_eq!((report.requests, counted.take()), (1, 1));
    // Part of the array: the shards it meets; a reader keeping no indexes fetches none.
    let fresh = FusedReader::new(&array).with_shard_index_cache();
    assert_eq!(
        fresh.fetch_shard_indexes(&[6..7, 7..9]).unwrap().requests,
        2
    );
    assert_eq!(counted.take(), 2);
    let plain = FusedReader::new(&array);
    assert_eq!(
        plain.fetch_shard_indexes(&[0..16, 0..16]).unwrap(),
        ReadReport::default()
    );
    assert_eq!(counted.take(), 0);
    // A chain the reader does not fuse: no request, and the report says why.
    let mut transposed = serde_json::to_value(gzip_metadata()).unwrap();
    let transpose = json!({"name": "transpose", "configuration": {"order": [1, 0]}});
    transposed["codecs"]
        .as_array_mut()
        .unwrap()
        .insert(0, transpose);
    let transposed = Array::new_with_metadata(
        counted.clone(),
        "/",
        serde_json::from_value(transposed).unwrap(),
    )
    .unwrap();
    let unfused = FusedReader::new(&transposed).with_shard_index_cache();
    let report = unfused.fetch_shard_indexes(&[0..16, 0..16]).unwrap();
    let reason = Fallback::Unfused(Unfused::OtherCodec("transpose".into()));
    assert_eq!(
        (report.through_zarrs, report.requests),
        (vec![(reason, 4)], 0)
    );
    assert_eq!(counted.take(), 0);
    let one_dimension = ArraySubset::new_with_ranges(std::slice::from_ref(&(0..16)));
    let error = keeping.fetch_shard_indexes(&one_dimension).unwrap_err();
    assert!(
        matches!(error, zarrs::array::ArrayError::InvalidArraySubset(..)),
        "{error}"
    );
}

/// The array of [`sharded_metadata`] of 16 x 16 in shards of 8 x 8 holding inner chunks of
/// 4 x 4, gzip-compressed.
fn gzip_metadata() -> ArrayMetadata {
    let gzip = json!({"name": "gzip", "configuration": {"level": 1}});
    sharded_metadata(&[16, 16], &[8, 8], &[4, 4], &gzip)
}

/// Blosc in blocks of `block_size` bytes with `shuffle` of elements of `type_size` bytes.
fn blosc(block_size: u64, shuffle: &str, type_size: u64) -> Value {
    json!({"name": "blosc", "configuration": {"cname": "zstd", "clevel": 3,
        "shuffle": shuffle, "typesize": type_size, "blocksize": block_size}})
}

/// Values for `n` elements, every 41st NaN.
fn varied(n: u64) -> Vec<f64> {
    (0..n)
        .map(|i| {
            if i % 41 == 40 {
                f64::NAN
            } else {
                f64::from(u32::try_from(i * 7919 % 60_000).unwrap()) * 1e-4
            }
        })
        .collect()
}

#[test]
fn kept_blosc_blocks_fetch_only_what_a_window_needs() {
    let memory = Arc::new(MemoryStore::new());
    let metadata = sharded_metadata(
        &[128, 128],
        &[64, 128],
        &[64, 64],
        &blosc(1024, "shuffle", 2),
    );
    let writer = Array::new_with_metadata(memory.clone(), "/", metadata).unwrap();
    writer.store_metadata().unwrap();
    writer
        .store_array_subset(&[0..128, 0..128], varied(128 * 128))
        .unwrap();
    let counted = Arc::new(Counted::new(memory.clone()));
    let array = Array::open(counted.clone(), "/").unwrap();
    let keeping = FusedReader::new(&array).with_shard_index_cache();
    counted.take();
    // The first window of inner chunk (0, 0): its index, then the whole chunk.
    same_as_zarrs(&keeping, &writer, &[3, 9, 5, 40]);
    let (reads, first) = counted.take_bytes();
    assert_eq!(reads, 2);
    // Later windows of the chunk: the blocks holding their rows (a block is 8 rows of 64), one
    // request, fewer bytes.
    for window in [
        [3, 9, 5, 40],
        [40, 44, 0, 64],
        [63, 64, 63, 64],
        [0, 1, 0, 1],
    ] {
        same_as_zarrs(&keeping, &writer, &window);
        let (reads, bytes) = counted.take_bytes();
        assert_eq!(reads, 1, "{window:?}");
        assert!(
            bytes * 3 < first,
            "{window:?}: {bytes} bytes of the chunk's {first}"
        );
    }
    // Most of the chunk: the whole chunk again.
    same_as_zarrs(&keeping, &writer, &[0, 40, 0, 64]);
    let (reads, bytes) = counted.take_bytes();
    assert_eq!((reads, bytes), (1, first - 2 * 8 * 2 - 4));
    // Another inner chunk of the same shard: the index is kept, the chunk read whole first.
    same_as_zarrs(&keeping, &writer, &[10, 12, 70, 72]);
    let (reads, bytes) = counted.take_bytes();
    assert_eq!(reads, 1);
    assert!(bytes * 3 > first, "{bytes}");
    same_as_zarrs(&keeping, &writer, &[10, 12, 70, 72]);
    let (_, blocks) = counted.take_bytes();
    assert!(blocks * 3 < bytes, "{blocks} of {bytes}");
    // A new reader, and a window needing both inner chunks of the lower shard: the shard whole,
    // one request; its index and the chunks' block tables are kept from it, so that a later
    // window of one chunk fetches its blocks alone.
    let keeping = FusedReader::new(&array).with_shard_index_cache();
    same_as_zarrs(&keeping, &writer, &[70, 80, 60, 70]);
    let (reads, shard) = counted.take_bytes();
    assert_eq!(reads, 1);
    assert!(shard > 2 * bytes, "{shard}");
    same_as_zarrs(&keeping, &writer, &[70, 72, 100, 102]);
    let (reads, blocks) = counted.take_bytes();
    assert_eq!(reads, 1);
    assert!(blocks * 3 < bytes, "{blocks} of {bytes}");
}

#[test]
fn random_windows_of_blosc_blocks_read_what_zarrs_reads() {
    // The same cases on every run, unless `MODEL_SEED` asks for fresh ones.
    let mut random = Seeded::for_test(0xb105_c0b1_0c45_0031);
    let mut below = |n: u64| random.below(n);
    let (mut windows, mut by_blocks) = (0, 0);
    for case in 0..12 {
        let inner: Vec<u64> = (0..2).map(|_| 8 + below(40)).collect();
        let shard: Vec<u64> = inner.iter().map(|&n| n * (1 + below(2))).collect();
        let shape: Vec<u64> = shard.iter().map(|&n| 1 + below(n * 2)).collect();
        let shuffle = ["noshuffle", "shuffle", "bitshuffle"][usize::try_from(case % 3).unwrap()];
        let block_size = [64, 256, 1024][usize::try_from(below(3)).unwrap()];
        // Blosc's element size as zarr-python sets it (2), or another: a part of a chunk whose
        // elements do not start at Blosc's element boundaries is not fetched by blocks.
        let type_size = [2, 2, 1, 4][usize::try_from(below(4)).unwrap()];
        let metadata = sharded_metadata(
            &shape,
            &shard,
            &inner,
            &blosc(block_size, shuffle, type_size),
        );
        let memory = Arc::new(MemoryStore::new());
        let writer = Array::new_with_metadata(memory.clone(), "/", metadata).unwrap();
        writer.store_metadata().unwrap();
        let whole = ArraySubset::new_with_shape(shape.clone());
        writer
            .store_array_subset(&whole, varied(whole.num_elements()))
            .unwrap();
        // The values as zarrs reads them from the same array compressed by zstd: its reads of
        // Blosc chunks whose type size (4) does not divide the chunk's bytes can fail
        // (`InvalidByteRangeError`, zarrs 0.23.14).
        let zstd = json!({"name": "zstd", "configuration": {"level": 1, "checksum": false}});
        let twin = Array::new_with_metadata(
            Arc::new(MemoryStore::new()),
            "/",
            sharded_metadata(&shape, &shard, &inner, &zstd),
        )
        .unwrap();
        twin.store_array_subset(&whole, varied(whole.num_elements()))
            .unwrap();
        let all: Vec<f64> = twin.retrieve_array_subset(&whole).unwrap();
        let counted = Arc::new(Counted::new(memory));
        let array = Array::open(counted.clone(), "/").unwrap();
        let plain = FusedReader::new(&array);
        let keeping = FusedReader::new(&array).with_shard_index_cache();
        let context = format!(
            "{shape:?} in {shard:?} of {inner:?}, {shuffle} of {type_size} B, blocks of {block_size} B"
        );
        let per_shard: u64 = shard.iter().zip(&inner).map(|(s, i)| s / i).product();
        let index_bytes = usize::try_from(per_shard * 16 + 4).unwrap();
        for _ in 0..8 {
            let start: Vec<u64> = shape.iter().map(|&n| below(n)).collect();
            let end: Vec<u64> = start
                .iter()
                .zip(&shape)
                .map(|(&s, &n)| s + 1 + below((n - s).min(12)))
                .collect();
            let subset = ArraySubset::new_with_ranges(&[start[0]..end[0], start[1]..end[1]]);
            let shards: usize = (0..2)
                .map(|d| {
                    usize::try_from((end[d] - 1) / shard[d] - start[d] / shard[d] + 1).unwrap()
                })
                .product();
            let (from, to) = (
                usize::try_from(start[1]).unwrap(),
                usize::try_from(end[1]).unwrap(),
            );
            let row = |row: u64| usize::try_from(row * shape[1]).unwrap();
            let expected: Vec<f64> = (start[0]..end[0])
                .flat_map(|r| all[row(r) + from..row(r) + to].to_vec())
                .collect();
            let bits = |values: &[f64]| values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            // Without the cache: the indexes and the whole inner chunks.
            counted.take();
            let mut got = vec![0f64; expected.len()];
            let report = plain
                .retrieve_array_subset_into_opt(&subset, &mut got, &CodecOptions::default())
                .unwrap();
            assert_path(&report, &subset, &[], &context);
            assert_eq!(bits(&got), bits(&expected), "{context} {subset:?}");
            let whole = counted.take_bytes().1 - shards * index_bytes;
            // Three times through the keeping reader: the later reads take the block tables the
            // first kept, on one thread and on four.
            for (n, threads) in [1, 1, 4].into_iter().enumerate() {
                let options = CodecOptions::default().with_concurrent_target(threads);
                let got: Vec<f64> = keeping
                    .retrieve_array_subset_opt(&subset, &options)
                    .unwrap();
                assert_eq!(bits(&got), bits(&expected), "{context} {subset:?}");
                let (_, bytes) = counted.take_bytes();
                if n == 1 {
                    assert!(
                        bytes <= whole,
                        "{context} {subset:?}: {bytes} bytes of {whole}"
                    );
                    by_blocks += usize::from(bytes < whole);
                }
            }
            windows += 1;
        }
    }
    println!(
        "{}: {windows} windows read three times, {by_blocks} of them by blocks",
        model_seed_label()
    );
    assert_eq!(windows, 96);
    assert!(
        by_blocks * 4 > windows,
        "{by_blocks} of {windows} windows read by blocks"
    );
}

#[test]
fn windows_of_large_blosc_chunks_fetch_the_front_they_need() {
    // One shard of three inner chunks of 1024 x 512 (Blosc's blocks: 128 rows): the first of
    // values of 12 random bits, the second of those in its first 400 rows and of one value below
    // them (which compress to almost nothing), the third of 16 random bits, which Blosc stores
    // without compression.
    let (shape, inner) = ([3072u64, 512], [1024u64, 512]);
    let metadata = sharded_metadata(&shape, &shape, &inner, &blosc(0, "bitshuffle", 2));
    let memory = Arc::new(MemoryStore::new());
    let writer = Array::new_with_metadata(memory.clone(), "/", metadata).unwrap();
    writer.store_metadata().unwrap();
    let mut random = Seeded::for_test(0xf207_0000_b105);
    let mut all: Vec<f64> = (0..shape[0] * shape[1])
        .map(|i| {
            let bits = if i < 2048 * 512 { 4096 } else { 60_000 };
            f64::from(u32::try_from(random.below(bits)).unwrap()) * 1e-4
        })
        .collect();
    let at = |row: u64| usize::try_from(row * shape[1]).unwrap();
    all[at(1024 + 400)..at(2048)].fill(0.5);
    writer.store_array_subset(&[0..3072, 0..512], all).unwrap();
    let shard = memory.get(&writer.chunk_key(&[0, 0])).unwrap().unwrap();
    let sizes: Vec<usize> = shard_index(&shard, 3)
        .iter()
        .map(|&(_, size)| usize::try_from(size).unwrap())
        .collect();
    let index_bytes = 3 * 16 + 4;
    let counted = Arc::new(Counted::new(memory.clone()));
    let array = Array::open(counted.clone(), "/").unwrap();
    let plain = FusedReader::new(&array);
    counted.take();
    // Rows near the top of the first chunk: its index, then the chunk's front alone.
    same_as_zarrs(&plain, &writer, &[10, 60, 0, 512]);
    let (reads, front) = counted.take_bytes();
    assert_eq!(reads, 2);
    assert!(
        front - index_bytes < sizes[0] * 3 / 4,
        "{front} of {sizes:?}"
    );
    // Rows near its foot: the whole chunk.
    same_as_zarrs(&plain, &writer, &[900, 1000, 100, 300]);
    assert_eq!(counted.take_bytes(), (2, index_bytes + sizes[0]));
    // Rows of the second chunk whose blocks lie past the front the mean ratio gives (the blocks
    // after them take little room): the blocks from the front's end on, a request more, and
    // still not all of the chunk.
    same_as_zarrs(&plain, &writer, &[1024 + 300, 1024 + 340, 0, 512]);
    let (reads, bytes) = counted.take_bytes();
    assert_eq!(reads, 3);
    assert!(bytes - index_bytes < sizes[1], "{bytes} of {sizes:?}");
    // Rows of the third chunk, which Blosc stored without compression (no block table): its
    // front, then the rest of it.
    same_as_zarrs(&plain, &writer, &[2048 + 100, 2048 + 140, 7, 300]);
    assert_eq!(counted.take_bytes(), (3, index_bytes + sizes[2]));
    same_as_zarrs(&plain, &writer, &[2048 + 300, 2048 + 302, 0, 512]);
    same_as_zarrs(&plain, &writer, &[2048 + 1, 2048 + 400, 0, 512]);
    counted.take();
    // A reader keeping indexes keeps the block table the front held: a later window of the
    // chunk fetches its blocks alone.
    let keeping = FusedReader::new(&array).with_shard_index_cache();
    same_as_zarrs(&keeping, &writer, &[10, 60, 0, 512]);
    assert_eq!(counted.take_bytes(), (2, front));
    same_as_zarrs(&keeping, &writer, &[300, 310, 5, 6]);
    let (reads, blocks) = counted.take_bytes();
    assert_eq!(reads, 1);
    assert!(blocks * 2 < front, "{blocks} of {front}");
    println!("inner chunks of {sizes:?} bytes; a front of {front}, blocks of {blocks}");
}

#[test]
fn random_windows_of_large_blosc_chunks_read_what_zarrs_reads() {
    // The same cases on every run, unless `MODEL_SEED` asks for fresh ones.
    let mut random = Seeded::for_test(0xf207_0000_0a11);
    let (mut windows, mut fronts, mut more) = (0, 0, 0);
    for case in 0..4 {
        let inner = [512 + random.below(512), 512 + random.below(256)];
        // Two inner chunks to a shard (a window of a shard's only inner chunk fetches the shard).
        let shard = [inner[0] * 2, inner[1]];
        let shape = [shard[0] + random.below(shard[0]), shard[1]];
        let cname = ["zstd", "lz4"][usize::try_from(case % 2).unwrap()];
        let shuffle = ["bitshuffle", "shuffle"][usize::try_from(random.below(2)).unwrap()];
        // Blocks as c-blosc chooses them (32 to 256 KiB at these levels), or set.
        let blocksize =
            [0, 16 << 10, 32 << 10, 64 << 10][usize::try_from(random.below(4)).unwrap()];
        let compressor = json!({"name": "blosc", "configuration": {"cname": cname,
            "clevel": 1 + random.below(5), "shuffle": shuffle, "typesize": 2,
            "blocksize": blocksize}});
        let metadata = sharded_metadata(&shape, &shard, &inner, &compressor);
        let memory = Arc::new(MemoryStore::new());
        let writer = Array::new_with_metadata(memory.clone(), "/", metadata).unwrap();
        writer.store_metadata().unwrap();
        // Random values of 12 to 16 bits, one value in a band of up to a quarter of the rows of
        // each inner chunk (which compresses to almost nothing), every 41st NaN.
        let bits = 1 << (12 + random.below(5));
        let band_start = random.below(inner[0]);
        let band = band_start..(band_start + random.below(inner[0] / 4)).min(inner[0]);
        let values: Vec<f64> = (0..shape[0] * shape[1])
            .map(|i| match (i % 41, (i / shape[1]) % inner[0]) {
                (40, _) => f64::NAN,
                (_, row) if band.contains(&row) => 0.5,
                _ => f64::from(u32::try_from(random.below(bits)).unwrap()) * 1e-4,
            })
            .collect();
        writer
            .store_array_subset(&[0..shape[0], 0..shape[1]], values)
            .unwrap();
        let counted = Arc::new(Counted::new(memory.clone()));
        let array = Array::open(counted.clone(), "/").unwrap();
        let plain = FusedReader::new(&array);
        let context = format!("{shape:?} in {shard:?} of {inner:?}, {compressor}");
        let per_shard = usize::try_from(shard[0] / inner[0]).unwrap();
        for _ in 0..12 {
            // Up to a third of the rows of one inner chunk, from its top half the time.
            let chunk_row = random.below(shape[0].div_ceil(inner[0])) * inner[0];
            let rows = (shape[0] - chunk_row).min(inner[0]);
            let start = if random.below(2) == 0 {
                0
            } else {
                random.below(rows)
            };
            let end = start + 1 + random.below((rows - start).min(rows.div_ceil(3)));
            let column = random.below(shape[1]);
            let columns = column..column + 1 + random.below(shape[1] - column);
            let subset = [chunk_row + start..chunk_row + end, columns];
            let expected: Vec<f64> = writer.retrieve_array_subset(&subset).unwrap();
            counted.take();
            let got: Vec<f64> = plain.retrieve_array_subset(&subset).unwrap();
            let bits = |values: &[f64]| values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&expected), "{context} {subset:?}");
            // The index, then the inner chunk whole or in part.
            let (reads, bytes) = counted.take_bytes();
            more += usize::from(reads > 2);
            let key = writer.chunk_key(&[subset[0].start / shard[0], 0]);
            let index = shard_index(&memory.get(&key).unwrap().unwrap(), per_shard);
            let position = usize::try_from(subset[0].start % shard[0] / inner[0]).unwrap();
            let stored = usize::try_from(index[position].1).unwrap() + per_shard * 16 + 4;
            assert!(bytes <= stored, "{context} {subset:?}: {bytes} of {stored}");
            fronts += usize::from(bytes < stored);
            windows += 1;
        }
    }
    let seed = model_seed_label();
    println!(
        "large Blosc chunks, {seed}: {windows} windows, {fronts} fetched in part, {more} of them \
         in two requests"
    );
    assert_eq!(windows, 48);
    assert!(fronts >= 8, "{fronts} windows fetched in part");
}

/// A reader keeps at most the bytes it is given: the indexes of the shards kept longest ago go
/// first, and are read again; with no room it keeps none.
#[test]
fn kept_indexes_stay_within_their_bound_the_earliest_kept_going_first() {
    // 16 shards of 2 x 2 inner chunks of 2 x 2, each holding something.
    let gzip = json!({"name": "gzip", "configuration": {"level": 1}});
    let memory = Arc::new(MemoryStore::new());
    let metadata = sharded_metadata(&[16, 16], &[4, 4], &[2, 2], &gzip);
    let writer = Array::new_with_metadata(memory.clone(), "/", metadata.clone()).unwrap();
    writer
        .store_array_subset(&[0..16, 0..16], values(&[0..16, 0..16], 0.25))
        .unwrap();
    let counted = Arc::new(Counted::new(memory));
    let array = Array::new_with_metadata(counted.clone(), "/", metadata).unwrap();
    // A window in the first inner chunk of each shard, one shard after the other.
    let window = |shard: u64| {
        [
            shard / 4 * 4,
            shard / 4 * 4 + 1,
            shard % 4 * 4,
            shard % 4 * 4 + 1,
        ]
    };
    // Room for a few shards' indexes (each takes well over 64 bytes, well under 256).
    let bounded = FusedReader::new(&array).with_shard_index_cache_limit(1024);
    let none = FusedReader::new(&array).with_shard_index_cache_limit(0);
    for shard in 0..10 {
        same_as_zarrs(&bounded, &writer, &window(shard));
        same_as_zarrs(&none, &writer, &window(shard));
        assert_eq!(
            counted.take(),
            4,
            "shard {shard}: the index and the chunk, twice"
        );
    }
    // The last shard read is kept; the first went; a reader without room keeps nothing.
    for (reader, shard, requests) in [(&bounded, 9, 1), (&bounded, 0, 2), (&none, 9, 2)] {
        same_as_zarrs(reader, &writer, &window(shard));
        assert_eq!(counted.take(), requests, "shard {shard}");
    }
}
