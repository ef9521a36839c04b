//! The codecs through zarrs' asynchronous API (feature `async`): writes and reads through an
//! asynchronous store, and partial reads of chunks never written that give the fill value
//! itself, as the synchronous reads do, also where the codecs do not return it bit for bit; and
//! `FusedReader`'s reads from an asynchronous store, the same as zarrs' own.

use std::sync::Arc;

use crate::counted::{Take, requests, shard_index};
use crate::support::{assert_path, sharded_metadata};
use futures::executor::block_on;
use serde_json::json;
use zarrs::array::{Array, ArrayMetadata, ArraySubset, CodecOptions};
use zarrs::storage::storage_adapter::performance_metrics::PerformanceMetricsStorageAdapter;
use zarrs::storage::store::AsyncMemoryStore;
use zarrs::storage::{AsyncReadableStorageTraits, AsyncWritableStorageTraits};
use zarrs_scale_offset_cast::{FusedReader, validate_array};
use zarrs_scale_offset_cast_reference::Seeded;

fn metadata(fill: &serde_json::Value) -> ArrayMetadata {
    serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [6, 10], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill,
        "codecs": [
            {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 3}},
            {"name": "bytes", "configuration": {"endian": "little"}}
        ],
    }))
    .unwrap()
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn asynchronous_reads_and_writes_give_what_the_synchronous_ones_give() {
    block_on(async {
        let store = Arc::new(AsyncMemoryStore::new());
        // -0.1 encodes to 0 and comes back; 0.1 comes back as 0.10000000000000003.
        let writer = Array::new_with_metadata(store.clone(), "/a", metadata(&json!(-0.1))).unwrap();
        validate_array(&writer).unwrap();
        writer.async_store_metadata().await.unwrap();
        let values: Vec<f64> = (0..12).map(|i| f64::from(i) * 0.25).collect();
        writer
            .async_store_array_subset(&[1..4, 2..6], values.clone())
            .await
            .unwrap();
        let back: Vec<f64> = writer
            .async_retrieve_array_subset(&[1..4, 2..6])
            .await
            .unwrap();
        let expected: Vec<f64> = values
            .iter()
            .map(|&x| (x + 0.1) * 3.0 / 3.0 + -0.1)
            .collect();
        assert_eq!(bits(&back), bits(&expected));
        // Written elsewhere with the fill value 0.1, which does not come back: the chunks never
        // written read as 0.1, whole or in part; the written ones decode.
        let array = Array::new_with_metadata(store, "/a", metadata(&json!(0.1))).unwrap();
        for subset in [[4..6, 0..10], [5..6, 9..10], [0..2, 8..9]] {
            let subset = ArraySubset::new_with_ranges(&subset);
            let read: Vec<f64> = array.async_retrieve_array_subset(&subset).await.unwrap();
            assert_eq!(bits(&read), bits(&vec![0.1; read.len()]), "{subset:?}");
        }
        let read: Vec<f64> = array
            .async_retrieve_array_subset(&[2..3, 3..5])
            .await
            .unwrap();
        assert_eq!(bits(&read), bits(&expected[5..7]));
    });
}

/// Reads `ranges` through zarrs and through `reader` (into a buffer filled with a pattern no read
/// writes, and into a new vector on four threads): the same bits.
async fn read_the_same(
    array: &Array<AsyncMemoryStore>,
    reader: &FusedReader<'_, AsyncMemoryStore>,
    ranges: &[std::ops::Range<u64>],
    context: &str,
) {
    let subset = ArraySubset::new_with_ranges(ranges);
    let expected: Vec<f64> = array.async_retrieve_array_subset(&subset).await.unwrap();
    let mut into = vec![f64::from_bits(0xAAAA_AAAA_AAAA_AAAA); expected.len()];
    let report = reader
        .async_retrieve_array_subset_into_opt(&subset, &mut into, &CodecOptions::default())
        .await
        .unwrap();
    // Every chunk on the fused path.
    assert_path(&report, &subset, &[], context);
    let parallel = CodecOptions::default().with_concurrent_target(4);
    let fresh: Vec<f64> = reader
        .async_retrieve_array_subset_opt(&subset, &parallel)
        .await
        .unwrap();
    assert_eq!(bits(&into), bits(&expected), "{context} {subset:?}");
    assert_eq!(bits(&fresh), bits(&expected), "{context} {subset:?}");
}

#[test]
fn fused_reads_from_an_asynchronous_store_give_what_zarrs_gives() {
    block_on(async {
        let store = Arc::new(AsyncMemoryStore::new());
        let metadata = |fill: serde_json::Value| -> ArrayMetadata {
            serde_json::from_value(json!({
                "zarr_format": 3, "node_type": "array", "shape": [300, 70], "data_type": "float64",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [64, 32]}},
                "chunk_key_encoding": {"name": "default"}, "fill_value": fill,
                "codecs": [
                    {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
                    {"name": "cast_value", "configuration": {"data_type": "uint16",
                        "out_of_range": "clamp",
                        "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
                    {"name": "bytes", "configuration": {"endian": "little"}}
                ],
            }))
            .unwrap()
        };
        let array = Array::new_with_metadata(store.clone(), "/r", metadata(json!("NaN"))).unwrap();
        validate_array(&array).unwrap();
        // Every chunk but those of the last rows, with NaN and values beyond the clamp.
        let values: Vec<f64> = (0..256 * 70)
            .map(|i| match i % 97 {
                0 => f64::NAN,
                1 => 9.0,
                k => f64::from(k) * 0.0123 - 0.05,
            })
            .collect();
        array
            .async_store_array_subset(&[0..256, 0..70], values)
            .await
            .unwrap();
        let reader = FusedReader::new(&array);
        assert!(reader.is_fused());
        let mut runs = 0;
        for subset in [
            [0..300, 0..70],
            [63..129, 31..33],
            [250..300, 0..70],
            [5..6, 69..70],
        ] {
            read_the_same(&array, &reader, &subset, "").await;
            runs += 1;
        }
        // The same chunks with the fill value -0.1, which encodes to 0 and so decodes to NaN:
        // writes refuse it, reads take it (chunks never written read as -0.1), on the fast path.
        let other = Array::new_with_metadata(store, "/r", metadata(json!(-0.1))).unwrap();
        assert!(validate_array(&other).is_err());
        let other_reader = FusedReader::new(&other);
        for subset in [[0..300, 0..70], [250..300, 60..70]] {
            read_the_same(&other, &other_reader, &subset, "fill -0.1").await;
            runs += 1;
        }
        assert!(other_reader.is_fused());
        let corner: Vec<f64> = other_reader
            .async_retrieve_array_subset(&[299..300, 69..70])
            .await
            .unwrap();
        assert_eq!(bits(&corner), bits(&[-0.1]));
        println!("{runs} subsets read the same through the asynchronous fused path");
        // A stored 1 decodes to -0.0999 with these parameters; a stored element the decode
        // rejects is not possible here, so a chunk of the wrong size stands for a chunk that
        // fails: the same error as zarrs'.
        array
            .storage()
            .set(&array.chunk_key(&[0, 0]), vec![1u8; 3].into())
            .await
            .unwrap();
        let subset = ArraySubset::new_with_ranges(&[0..10, 0..10]);
        let expected = array
            .async_retrieve_array_subset::<Vec<f64>>(&subset)
            .await
            .unwrap_err();
        let got = reader
            .async_retrieve_array_subset::<Vec<f64>>(&subset)
            .await
            .unwrap_err();
        assert_eq!(got.to_string(), expected.to_string());
    });
}

#[test]
fn fused_reads_of_sharded_arrays_from_an_asynchronous_store_give_what_zarrs_gives() {
    block_on(async {
        let mut runs = 0;
        let zstd = json!({"name": "zstd", "configuration": {"level": 1, "checksum": false}});
        // Blosc in blocks of 256 bytes (eight to an inner chunk of 32 x 32): the kept reader's
        // later windows fetch blocks alone.
        let blosc = json!({"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5,
            "shuffle": "shuffle", "typesize": 2, "blocksize": 256}});
        // No compressor: parts of inner chunks are fetched by their elements.
        let none = json!(null);
        for (location, inside, compressor, inner_shape) in [
            ("end", true, &zstd, [16, 16]),
            ("start", false, &zstd, [16, 16]),
            ("end", true, &blosc, [32, 32]),
            ("end", true, &none, [32, 32]),
        ] {
            let so =
                json!({"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}});
            let cv = json!({"name": "cast_value", "configuration": {"data_type": "uint16",
                "out_of_range": "clamp",
                "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}});
            let bytes = json!({"name": "bytes", "configuration": {"endian": "little"}});
            let compressor: Vec<_> = Some(compressor.clone())
                .filter(|c| !c.is_null())
                .into_iter()
                .collect();
            let (outer, inner) = if inside {
                (vec![], [vec![so, cv, bytes.clone()], compressor].concat())
            } else {
                (vec![so, cv], [vec![bytes.clone()], compressor].concat())
            };
            let mut codecs = outer;
            codecs.push(json!({"name": "sharding_indexed", "configuration": {
                "chunk_shape": inner_shape, "codecs": inner, "index_location": location,
                "index_codecs": [bytes, {"name": "crc32c"}]}}));
            let metadata: ArrayMetadata = serde_json::from_value(json!({
                "zarr_format": 3, "node_type": "array", "shape": [150, 70], "data_type": "float64",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [64, 32]}},
                "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN", "codecs": codecs,
            }))
            .unwrap();
            let array = Array::new_with_metadata(Arc::new(AsyncMemoryStore::new()), "/s", metadata)
                .unwrap();
            // Rows 0..100 written, with a block of NaN (inner chunks never stored); the shards
            // of rows 128.. never written.
            let values: Vec<f64> = (0..100 * 70)
                .map(|i| {
                    if (i / 70) % 40 < 16 && i % 70 < 16 {
                        f64::NAN
                    } else {
                        f64::from(i % 97) * 0.01
                    }
                })
                .collect();
            array
                .async_store_array_subset(&[0..100, 0..70], values)
                .await
                .unwrap();
            let reader = FusedReader::new(&array);
            assert!(reader.is_fused());
            // The same reads by a reader keeping the shards' indexes, twice (the second from the
            // kept indexes).
            let keeping = FusedReader::new(&array).with_shard_index_cache();
            // The whole array; windows within one inner chunk, across shards, beyond the array;
            // one needing every inner chunk of shard (0, 0), which is then fetched whole.
            for subset in [
                [0..150, 0..70],
                [3..9, 40..47],
                [60..70, 30..34],
                [140..155, 60..75],
                [10..60, 5..20],
            ] {
                read_the_same(&array, &reader, &subset, location).await;
                for _ in 0..2 {
                    read_the_same(&array, &keeping, &subset, location).await;
                }
                runs += 1;
            }
            // A shard whose index fails its checksum: an error of the kind zarrs gives.
            let key = array.chunk_key(&[0, 0]);
            let mut shard = array.storage().get(&key).await.unwrap().unwrap().to_vec();
            let at = if location == "start" {
                2
            } else {
                shard.len() - 2
            };
            shard[at] ^= 1;
            array.storage().set(&key, shard.into()).await.unwrap();
            for subset in [[0..64, 0..32], [1..3, 1..3], [10..60, 5..20]] {
                let subset = ArraySubset::new_with_ranges(&subset);
                let expected = array
                    .async_retrieve_array_subset::<Vec<f64>>(&subset)
                    .await
                    .unwrap_err();
                let got = reader
                    .async_retrieve_array_subset::<Vec<f64>>(&subset)
                    .await
                    .unwrap_err();
                assert_eq!(
                    std::mem::discriminant(&got),
                    std::mem::discriminant(&expected),
                    "{got} / {expected}"
                );
                runs += 1;
            }
        }
        println!("{runs} sharded reads the same through the asynchronous fused path");
        assert_eq!(runs, 32);
    });
}

/// The asynchronous fused read fetches what the synchronous one fetches: a shard's index, then
/// one range for each run of the window's inner chunks stored end to end in the shard; with the
/// index kept, those ranges alone.
/// A store that counts the requests made of an asynchronous memory store.
type Counter = PerformanceMetricsStorageAdapter<AsyncMemoryStore>;

/// The array of `metadata` in a new memory store, with `values` written over its `shape`, and the
/// same array through a store that counts the requests made of it.
async fn written(
    metadata: ArrayMetadata,
    shape: [u64; 2],
    values: Vec<f64>,
) -> (Array<AsyncMemoryStore>, Arc<Counter>, Array<Counter>) {
    let memory = Arc::new(AsyncMemoryStore::new());
    let array = Array::new_with_metadata(memory.clone(), "/", metadata.clone()).unwrap();
    array
        .async_store_array_subset(&[0..shape[0], 0..shape[1]], values)
        .await
        .unwrap();
    let counted = Arc::new(PerformanceMetricsStorageAdapter::new(memory));
    let through = Array::new_with_metadata(counted.clone(), "/", metadata).unwrap();
    (array, counted, through)
}

#[test]
fn asynchronous_fused_reads_fetch_inner_chunks_stored_end_to_end_together() {
    block_on(async {
        // One shard of 4 x 4 inner chunks of 8 x 8, compressed.
        let gzip = json!({"name": "gzip", "configuration": {"level": 1}});
        let metadata = sharded_metadata(&[32, 32], &[32, 32], &[8, 8], &gzip);
        let values: Vec<f64> = (0..32 * 32).map(|i| f64::from(i % 61) * 0.01).collect();
        let (array, counted, through) = written(metadata, [32, 32], values).await;
        let key = through.chunk_key(&[0, 0]);
        let index = shard_index(&array.storage().get(&key).await.unwrap().unwrap(), 16);
        let plain = FusedReader::new(&through);
        let mut saved = 0;
        // A row of inner chunks, a block of four, a column, most of the shard: none reaches
        // every inner chunk (those are read whole).
        for ranges in [[0..8, 0..32], [4..12, 4..12], [0..32, 4..6], [9..30, 1..31]] {
            let window = ArraySubset::new_with_ranges(&ranges);
            let chunks: Vec<(u64, u64)> = (ranges[0].start / 8..ranges[0].end.div_ceil(8))
                .flat_map(|row| {
                    (ranges[1].start / 8..ranges[1].end.div_ceil(8)).map(move |c| (row, c))
                })
                .map(|(row, column)| index[usize::try_from(row * 4 + column).unwrap()])
                .collect();
            let (touched, expected) = (chunks.len(), requests(chunks));
            saved += touched - expected;
            let zarrs: Vec<f64> = array.async_retrieve_array_subset(&window).await.unwrap();
            // A reader keeping the index: it reads it with the first window only.
            let keeping = FusedReader::new(&through).with_shard_index_cache();
            counted.take();
            for (reader, reads) in [
                (&plain, 1 + expected),
                (&keeping, 1 + expected),
                (&keeping, expected),
            ] {
                let got: Vec<f64> = reader.async_retrieve_array_subset(&window).await.unwrap();
                assert_eq!(bits(&got), bits(&zarrs), "{window:?}");
                assert_eq!(counted.take(), reads, "{window:?}: requests");
            }
        }
        // zarrs writes the inner chunks of a shard one after the other: some touched lie end to
        // end.
        println!("4 windows, {saved} requests saved by inner chunks fetched together");
        assert!(saved >= 4, "{saved} requests saved");
    });
}

#[test]
fn asynchronous_fused_reads_of_large_blosc_chunks_fetch_the_front_they_need() {
    block_on(async {
        // One shard of two inner chunks of 2048 x 512 (Blosc's blocks: 256 rows): the first of
        // values of 12 random bits in its first 1000 rows and of one value below them, the
        // second of 16 random bits (which Blosc stores without compression).
        let blosc = json!({"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5,
            "shuffle": "bitshuffle", "typesize": 2, "blocksize": 0}});
        let metadata = sharded_metadata(&[4096, 512], &[4096, 512], &[2048, 512], &blosc);
        let mut random = Seeded::for_test(0xa5c0_f207_b105);
        let values: Vec<f64> = (0..4096 * 512)
            .map(|i| match i / 512 {
                1000..2048 => 0.5,
                row => {
                    let bits = if row < 2048 { 4096 } else { 60_000 };
                    f64::from(u32::try_from(random.below(bits)).unwrap()) * 1e-4
                }
            })
            .collect();
        let (array, counted, through) = written(metadata, [4096, 512], values).await;
        let reader = FusedReader::new(&through);
        counted.take();
        // The index, then: the front holding the rows' blocks; the front and the blocks past it
        // (those below compress to almost nothing, so the mean ratio puts them too early); the
        // whole chunk; the front and then the rest of the chunk Blosc stored without compression
        // (twice).
        for (ranges, reads) in [
            ([10..60, 0..512], 2),
            ([260..300, 0..512], 3),
            ([1800..2000, 100..300], 2),
            ([2148..2188, 7..300], 3),
            ([2078..2648, 0..512], 3),
        ] {
            let window = ArraySubset::new_with_ranges(&ranges);
            let zarrs: Vec<f64> = array.async_retrieve_array_subset(&window).await.unwrap();
            let got: Vec<f64> = reader.async_retrieve_array_subset(&window).await.unwrap();
            assert_eq!(bits(&got), bits(&zarrs), "{window:?}");
            assert_eq!(counted.take(), reads, "{window:?}: requests");
        }
    });
}

#[test]
fn asynchronous_fused_reads_of_blosc_chunks_whose_type_size_does_not_divide_them_read_as_written() {
    block_on(async {
        // Inner chunks of 7 x 5 uint16 (70 bytes) under Blosc with a type size of 4, compressed
        // and stored as they are: each chunk's last element is the two bytes no whole item holds
        // (zarrs 0.23.14's own asynchronous read fails on each window below: its Blosc partial
        // decoder gives whole items only).
        let mut runs = 0;
        for (cname, clevel) in [("lz4", 5), ("zstd", 0)] {
            let blosc = json!({"name": "blosc", "configuration": {"cname": cname,
                "clevel": clevel, "shuffle": "noshuffle", "typesize": 4, "blocksize": 0}});
            let metadata = sharded_metadata(&[20, 13], &[14, 10], &[7, 5], &blosc);
            // Codes 1 to 89, decoded: they read back bit for bit.
            let values: Vec<f64> = (0..20 * 13)
                .map(|i| f64::from(i % 89 + 1) / 10000.0 - 0.1)
                .collect();
            let (array, _, _) = written(metadata, [20, 13], values.clone()).await;
            let fresh = FusedReader::new(&array);
            assert!(fresh.is_fused());
            let keeping = FusedReader::new(&array).with_shard_index_cache();
            // The whole array; the last element of an inner chunk; a window across inner chunks
            // and shards holding the last elements of several; an edge shard's inner chunks.
            for ranges in [
                [0..20, 0..13],
                [6..7, 4..5],
                [5..16, 3..12],
                [14..20, 10..13],
            ] {
                let window = ArraySubset::new_with_ranges(&ranges);
                let expected: Vec<f64> = window
                    .indices()
                    .iter()
                    .map(|at| values[usize::try_from(at[0] * 13 + at[1]).unwrap()])
                    .collect();
                for reader in [&fresh, &keeping, &keeping] {
                    let got: Vec<f64> = reader.async_retrieve_array_subset(&window).await.unwrap();
                    assert_eq!(bits(&got), bits(&expected), "{cname} {window:?}");
                    runs += 1;
                }
            }
        }
        println!("{runs} reads of Blosc chunks whose type size does not divide them, as written");
        assert_eq!(runs, 24);
    });
}

/// Subsets with no element along a dimension read as zarrs reads them, synchronously and
/// asynchronously, through a chain the reader fuses and one it does not (`bytes` big-endian and
/// zstd alone: nothing to fuse), within the array and beyond it.
#[test]
fn empty_subsets_read_as_zarrs_reads_them_on_every_path() {
    block_on(async {
        let bytes = json!({"name": "bytes", "configuration": {"endian": "big"}});
        let zstd = json!({"name": "zstd", "configuration": {"level": 1, "checksum": false}});
        let scale_offset =
            json!({"name": "scale_offset", "configuration": {"offset": 1, "scale": 2}});
        let mut cases = 0;
        for codecs in [json!([bytes, zstd]), json!([scale_offset, bytes, zstd])] {
            let metadata: ArrayMetadata = serde_json::from_value(json!({
                "zarr_format": 3, "node_type": "array", "shape": [4, 1, 1], "data_type": "float64",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 1, 1]}},
                "chunk_key_encoding": {"name": "default"}, "fill_value": 0.5, "codecs": codecs,
            }))
            .unwrap();
            let store = Arc::new(AsyncMemoryStore::new());
            let array = Array::new_with_metadata(store, "/", metadata).unwrap();
            array
                .async_store_array_subset(&[0..4, 0..1, 0..1], vec![1.0, 2.0, 3.0, 4.0])
                .await
                .unwrap();
            let reader = FusedReader::new(&array);
            for ranges in [
                [3..4, 0..1, 0..0],
                [0..0, 0..1, 0..1],
                [2..4, 1..1, 0..1],
                [9..9, 0..1, 0..1],
            ] {
                let subset = ArraySubset::new_with_ranges(&ranges);
                let zarrs = array.async_retrieve_array_subset::<Vec<f64>>(&subset).await;
                let mut into: Vec<f64> = Vec::new();
                let fused = reader
                    .async_retrieve_array_subset_into_opt(
                        &subset,
                        &mut into,
                        &CodecOptions::default(),
                    )
                    .await;
                let fresh = reader
                    .async_retrieve_array_subset::<Vec<f64>>(&subset)
                    .await;
                match (zarrs, fused, fresh) {
                    (Ok(zarrs), Ok(report), Ok(fresh)) => {
                        assert!(zarrs.is_empty() && fresh.is_empty(), "{ranges:?}");
                        assert_path(&report, &subset, &[], "empty");
                    }
                    (Err(zarrs), Err(fused), Err(fresh)) => {
                        assert_eq!(fused.to_string(), zarrs.to_string(), "{ranges:?}");
                        assert_eq!(fresh.to_string(), zarrs.to_string(), "{ranges:?}");
                    }
                    (zarrs, fused, fresh) => panic!("{ranges:?}: {zarrs:?}, {fused:?}, {fresh:?}"),
                }
                cases += 1;
            }
        }
        assert_eq!(cases, 8);
    });
}
