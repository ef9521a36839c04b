//! Sharded arrays through the fused read path give exactly what zarrs' own path gives: the
//! crate's codecs inside the sharding codec (as zarr-python writes them) and outside it, index at
//! the start or the end, with or without crc32c, inner chunks in either byte order, compressed
//! inner chunks, missing inner chunks and shards, edge shards, subsets within one inner chunk,
//! across shards and beyond the array; and corrupt shards fail as zarrs' reads fail.

use std::sync::Arc;

use crate::support::{Errors, compare_with, random_box};
use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayMetadata, ArraySubset};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{
    ListableStorageTraits, ReadableStorageTraits, StoreKey, WritableStorageTraits,
};
use zarrs_scale_offset_cast::{Fallback, FusedReader, Unfused};
use zarrs_scale_offset_cast_reference::{Seeded, model_seed_label};

fn reflectance_codecs() -> [Json; 2] {
    [
        json!({"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}}),
        json!({"name": "cast_value", "configuration": {"data_type": "uint16",
            "out_of_range": "clamp", "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}),
    ]
}

/// How a sharded array is laid out.
#[derive(Clone, Debug)]
struct Layout {
    shape: Vec<u64>,
    shard: Vec<u64>,
    inner: Vec<u64>,
    /// The crate's codecs inside the sharding codec (zarr-python's `filters=`), else outside.
    codecs_inside: bool,
    index_at_start: bool,
    index_crc32c: bool,
    /// The inner chunks' byte order (`bytes`' `endian`).
    endian: &'static str,
    compressors: Json,
    fill: Json,
}

impl Layout {
    fn metadata(&self) -> ArrayMetadata {
        let [scale_offset, cast_value] = reflectance_codecs();
        let mut inner = vec![json!({"name": "bytes", "configuration": {"endian": self.endian}})];
        inner.extend(self.compressors.as_array().unwrap().iter().cloned());
        let mut index = vec![json!({"name": "bytes", "configuration": {"endian": "little"}})];
        if self.index_crc32c {
            index.push(json!({"name": "crc32c"}));
        }
        let mut outer = Vec::new();
        if self.codecs_inside {
            inner.splice(0..0, [scale_offset, cast_value]);
        } else {
            outer.extend([scale_offset, cast_value]);
        }
        outer.push(json!({"name": "sharding_indexed", "configuration": {
            "chunk_shape": self.inner, "codecs": inner, "index_codecs": index,
            "index_location": if self.index_at_start { "start" } else { "end" }}}));
        serde_json::from_value(json!({
            "zarr_format": 3, "node_type": "array", "shape": self.shape, "data_type": "float64",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": self.shard}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": self.fill, "codecs": outer,
        }))
        .unwrap()
    }

    fn array(&self) -> (Arc<MemoryStore>, Array<MemoryStore>) {
        let store = Arc::new(MemoryStore::new());
        let array = Array::new_with_metadata(store.clone(), "/", self.metadata()).unwrap();
        (store, array)
    }
}

/// Reflectances with runs of NaN, so that some inner chunks hold only the fill value (zarrs
/// does not store them).
#[expect(clippy::cast_precision_loss, reason = "small indices")]
fn values(n: usize, nan_from: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            if i >= nan_from || i % 13 == 5 {
                f64::NAN
            } else {
                (i % 700) as f64 / 1000.0
            }
        })
        .collect()
}

#[test]
fn random_sharded_arrays_read_the_same() {
    // The same cases on every run, unless `MODEL_SEED` asks for fresh ones.
    let mut random = Seeded::for_test(0x5eed_5a4d_ed00_0031);
    let mut below = |n: u64| random.below(n);
    let (mut arrays, mut reads) = (0, 0);
    let compressors = [
        json!([]),
        json!([{"name": "zstd", "configuration": {"level": 1, "checksum": false}}]),
        json!([{"name": "gzip", "configuration": {"level": 1}}, {"name": "crc32c"}]),
    ];
    for case in 0..48 {
        let dims = 1 + usize::try_from(below(3)).unwrap();
        let inner: Vec<u64> = (0..dims).map(|_| 1 + below(4)).collect();
        let shard: Vec<u64> = inner.iter().map(|&c| c * (1 + below(3))).collect();
        let shape: Vec<u64> = shard.iter().map(|&s| 1 + below(s * 3)).collect();
        let layout = Layout {
            shape: shape.clone(),
            shard,
            inner,
            codecs_inside: case % 2 == 0,
            index_at_start: below(2) == 0,
            index_crc32c: below(2) == 0,
            endian: ["little", "big"][usize::try_from(below(2)).unwrap()],
            compressors: compressors[usize::try_from(below(3)).unwrap()].clone(),
            // A NaN with a payload is stored as 0 and reads back as the plain NaN: the elements
            // of missing inner chunks then differ from the array's fill value where the codecs
            // are outside.
            fill: [
                json!(0.5),
                json!("NaN"),
                json!("NaN"),
                json!("0x7ff4000000000001"),
            ][usize::try_from(below(4)).unwrap()]
            .clone(),
        };
        let (store, array) = layout.array();
        assert!(FusedReader::new(&array).is_fused(), "{layout:?}");
        let mut random_box = |extent: &[u64]| random_box(&mut below, extent);
        // A random box written (its last part NaN), one shard removed again.
        let written = random_box(&shape);
        let elements = usize::try_from(written.num_elements()).unwrap();
        array
            .store_array_subset(&written, values(elements, elements * 2 / 3))
            .unwrap();
        let keys = store.list().unwrap();
        let removed = usize::try_from(random_box(&[keys.len() as u64 + 1]).start()[0]).unwrap();
        if keys.len() > 2 && removed < keys.len() && keys[removed].as_str() != "zarr.json" {
            store.erase(&keys[removed]).unwrap();
        }
        arrays += 1;
        // Subsets within the array, the whole array, and subsets reaching beyond it.
        let beyond: Vec<u64> = shape.iter().map(|&n| n + 2).collect();
        let mut subsets: Vec<ArraySubset> = (0..4).map(|_| random_box(&shape)).collect();
        subsets.push(ArraySubset::new_with_shape(shape.clone()));
        subsets.push(random_box(&beyond));
        for subset in subsets {
            let context = format!("{layout:?}");
            compare_with(&array, &subset, &context, Errors::Same, &[]).unwrap();
            reads += 1;
        }
    }
    let seed = model_seed_label();
    println!("random sharded arrays, {seed}: {arrays} arrays, {reads} subsets read every way");
    assert_eq!(reads, 48 * 6);
}

/// A 2-D sharded array of 12 x 12 in shards of 6 x 6 and inner chunks of 3 x 3 compressed by
/// `compressors`, written whole but for one inner chunk of NaN.
fn written(
    index_at_start: bool,
    index_crc32c: bool,
    compressors: &Json,
) -> (Arc<MemoryStore>, Array<MemoryStore>) {
    let layout = Layout {
        shape: vec![12, 12],
        shard: vec![6, 6],
        inner: vec![3, 3],
        codecs_inside: true,
        index_at_start,
        index_crc32c,
        endian: "little",
        compressors: compressors.clone(),
        fill: json!("NaN"),
    };
    let (store, array) = layout.array();
    let mut data = values(144, 144);
    for row in 3..6 {
        data[row * 12..row * 12 + 3].fill(f64::NAN);
    }
    array.store_array_subset(&[0..12, 0..12], data).unwrap();
    (store, array)
}

/// Subsets of the first shard: whole, one inner chunk, across inner chunks, across shards.
fn shard_subsets() -> Vec<ArraySubset> {
    [
        [0..6, 0..6],
        [1..2, 1..3],
        [2..5, 1..4],
        [4..8, 4..8],
        [0..12, 0..12],
    ]
    .iter()
    .map(|ranges| ArraySubset::new_with_ranges(ranges))
    .collect()
}

/// The layout of the arrays [`compare_partly_written`] reads: 12 x 12 in shards of 6 x 6 and
/// inner chunks of 3 x 3, uncompressed, the index at the end with crc32c.
fn partly_written(codecs_inside: bool, fill: Json) -> Layout {
    Layout {
        shape: vec![12, 12],
        shard: vec![6, 6],
        inner: vec![3, 3],
        codecs_inside,
        index_at_start: false,
        index_crc32c: true,
        endian: "little",
        compressors: json!([]),
        fill,
    }
}

/// Compares reads of a 12 x 12 array whose inner chunk (0, 0) of shard (0, 0) alone is written
/// (on the fused path, as zarrs reads them): whole, one shard, across inner chunks, and in the
/// shard that does not exist. Returns how many.
fn compare_partly_written(array: &Array<MemoryStore>, context: &str) -> usize {
    let subsets = [[0..12, 0..12], [0..6, 0..6], [2..5, 2..5], [4..5, 7..8]];
    for subset in &subsets {
        let subset = ArraySubset::new_with_ranges(subset);
        compare_with(array, &subset, context, Errors::Same, &[]).unwrap();
    }
    subsets.len()
}

#[test]
fn missing_inner_chunks_read_as_the_inner_fill_value_decoded() {
    // With the codecs outside the sharding codec, a missing inner chunk of a shard that exists
    // holds the sharding codec's fill value (the array's, encoded), and reads as that decoded:
    // here the plain NaN (stored as 0), not the array's NaN with a payload. A shard that does
    // not exist reads as the array's fill value.
    let mut cases = 0;
    for codecs_inside in [false, true] {
        let layout = Layout {
            endian: if codecs_inside { "big" } else { "little" },
            ..partly_written(codecs_inside, json!("0x7ff4000000000001"))
        };
        let (_, array) = layout.array();
        // Inner chunk (0, 0) of shard (0, 0) only; shard (0, 1) and the lower shards absent.
        array
            .store_array_subset(&[0..3, 0..3], vec![0.25; 9])
            .unwrap();
        cases += compare_partly_written(&array, &format!("{layout:?}"));
        let got: Vec<f64> = FusedReader::new(&array)
            .retrieve_array_subset(&[4..5, 4..11])
            .unwrap();
        let bits: Vec<u64> = got.iter().map(|x| x.to_bits()).collect();
        // A missing inner chunk of shard (0, 0), then shard (0, 1), which does not exist.
        let inner = if codecs_inside {
            0x7ff4_0000_0000_0001
        } else {
            f64::NAN.to_bits()
        };
        assert_eq!(
            bits,
            [&[inner; 2][..], &[0x7ff4_0000_0000_0001; 5]].concat()
        );
    }
    assert_eq!(cases, 8);
}

#[test]
fn a_fill_value_that_does_not_survive_reads_as_zarrs_reads_it() {
    // -0.1 encodes to 0, which decodes to NaN: writes refuse it, but arrays written elsewhere
    // with it read. With the codecs outside the sharding codec a missing inner chunk holds the
    // encoded fill value (0) and reads as NaN; inside, and for a missing shard, it reads as -0.1.
    let mut cases = 0;
    for codecs_inside in [false, true] {
        let (store, writer) = partly_written(codecs_inside, json!("NaN")).array();
        // Inner chunk (0, 0) of shard (0, 0) only.
        writer
            .store_array_subset(&[0..3, 0..3], vec![0.25; 9])
            .unwrap();
        let reading = partly_written(codecs_inside, json!(-0.1));
        let array = Array::new_with_metadata(store, "/", reading.metadata()).unwrap();
        assert!(array.store_array_subset(&[0..1, 0..1], vec![0.5]).is_err());
        cases += compare_partly_written(&array, &format!("{reading:?}"));
        let got: Vec<f64> = FusedReader::new(&array)
            .retrieve_array_subset(&[2..3, 2..9])
            .unwrap();
        let inner = if codecs_inside { -0.1 } else { f64::NAN };
        // 0.25 is stored as 3500 and decoded as 3500 / 10000 - 0.1.
        let expected = [
            3500.0 / 10000.0 - 0.1,
            inner,
            inner,
            inner,
            -0.1,
            -0.1,
            -0.1,
        ];
        let bits = |values: &[f64]| values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&expected), "{reading:?}");
    }
    assert_eq!(cases, 8);
}

#[test]
fn corrupt_shards_fail_as_zarrs_fails() {
    let key = StoreKey::new("c/0/0").unwrap();
    let mut cases = 0;
    // Uncompressed inner chunks, and compressed ones (a read needing every inner chunk of a
    // shard then fetches it whole; Blosc's are decoded in part where a read needs few elements).
    let zstd = json!([{"name": "zstd", "configuration": {"level": 1, "checksum": false}}]);
    let blosc = json!([{"name": "blosc", "configuration": {
        "cname": "zstd", "clevel": 5, "shuffle": "shuffle", "typesize": 2, "blocksize": 0}}]);
    for (index_at_start, index_crc32c) in
        [(false, false), (false, true), (true, false), (true, true)]
    {
        for compressors in [json!([]), zstd.clone(), blosc.clone()] {
            let (store, array) = written(index_at_start, index_crc32c, &compressors);
            let stored = store.get(&key).unwrap().unwrap().to_vec();
            // 4 inner chunks of 16 bytes each, two numbers of 8 bytes, and a crc32c.
            let index_len = 4 * 16 + if index_crc32c { 4 } else { 0 };
            let index_at = if index_at_start {
                0
            } else {
                stored.len() - index_len
            };
            let mut flipped = stored.clone();
            flipped[index_at + 3] ^= 0x40;
            let mut beyond = stored.clone();
            // The first inner chunk's offset far beyond the shard.
            beyond[index_at + 6] = 0x7f;
            let mut short = stored.clone();
            // The first inner chunk's size two bytes short.
            let size_at = index_at + 8;
            let size = u64::from_le_bytes(short[size_at..size_at + 8].try_into().unwrap());
            short[size_at..size_at + 8].copy_from_slice(&(size - 2).to_le_bytes());
            // The second half of the first inner chunk's stored bytes flipped.
            let mut garbled = stored.clone();
            let offset = u64::from_le_bytes(stored[index_at..index_at + 8].try_into().unwrap());
            let (offset, size) = (
                usize::try_from(offset).unwrap(),
                usize::try_from(size).unwrap(),
            );
            for byte in &mut garbled[offset + size / 2..offset + size] {
                *byte ^= 0x55;
            }
            for (what, bytes) in [
                ("a flipped index bit", flipped),
                ("an offset beyond the shard", beyond),
                ("an inner chunk two bytes short", short),
                ("an inner chunk's stored bytes garbled", garbled),
                ("a shard shorter than its index", stored[..10].to_vec()),
                ("an empty shard", Vec::new()),
            ] {
                let shorter_than_index = bytes.len() < index_len;
                store.set(&key, bytes.into()).unwrap();
                for subset in shard_subsets() {
                    // zarrs' own read of a part of a shard shorter than an index at its end
                    // panics in MemoryStore (a suffix range longer than the value); reads that
                    // cover the shard read it whole.
                    if shorter_than_index && !index_at_start && subset.start() != [0, 0] {
                        continue;
                    }
                    let context = format!(
                        "{what}, index at start {index_at_start}, crc32c {index_crc32c}, {compressors}"
                    );
                    // zarrs reads the shard, or the inner chunk, and reports what it finds.
                    let corrupt = [
                        Fallback::ShardIndex,
                        Fallback::ChunkEntry,
                        Fallback::StoredBytes,
                        Fallback::Store,
                    ];
                    compare_with(&array, &subset, &context, Errors::SameKind, &corrupt);
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 3 * (4 * 6 * 5 - 2 * 2 * 3));
}

#[test]
fn missing_inner_chunks_and_shards_read_as_the_fill_value() {
    for fill in [json!("NaN"), json!(0.0)] {
        let layout = Layout {
            shape: vec![10, 10],
            shard: vec![4, 4],
            inner: vec![2, 2],
            codecs_inside: false,
            index_at_start: false,
            index_crc32c: true,
            endian: "big",
            compressors: json!([]),
            fill: fill.clone(),
        };
        let (store, array) = layout.array();
        // One element of one inner chunk written: the other inner chunks of its shard are
        // missing, and so are the other shards.
        array
            .store_array_subset(&[5..6, 5..6], vec![0.125])
            .unwrap();
        assert_eq!(store.list().unwrap().len(), 1, "one shard");
        let reader = FusedReader::new(&array);
        let values: Vec<f64> = reader.retrieve_array_subset(&[0..10, 0..10]).unwrap();
        let fill_bits = match &fill {
            Json::String(_) => f64::NAN.to_bits(),
            number => number.as_f64().unwrap().to_bits(),
        };
        for (i, value) in values.iter().enumerate() {
            let want = if i == 55 {
                0.125f64.to_bits()
            } else {
                fill_bits
            };
            assert_eq!(value.to_bits(), want, "element {i}, fill {fill}");
        }
        for subset in shard_subsets() {
            compare_with(&array, &subset, "missing", Errors::Same, &[]).unwrap();
        }
    }
}

#[test]
fn nested_sharding_and_other_inner_codecs_go_through_zarrs_with_the_same_results() {
    let [scale_offset, cast_value] = reflectance_codecs();
    let bytes = json!({"name": "bytes", "configuration": {"endian": "little"}});
    let nested = json!({"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2],
        "codecs": [bytes], "index_codecs": [bytes]}});
    let transpose = json!({"name": "transpose", "configuration": {"order": [1, 0]}});
    for inner in [
        json!([scale_offset, cast_value, nested]),
        json!([transpose, scale_offset, cast_value, bytes]),
    ] {
        let metadata: ArrayMetadata = serde_json::from_value(json!({
            "zarr_format": 3, "node_type": "array", "shape": [12, 12], "data_type": "float64",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8, 8]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
            "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 4],
                "codecs": inner, "index_codecs": [bytes]}}],
        }))
        .unwrap();
        let array = Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata).unwrap();
        array
            .store_array_subset(&[0..10, 0..12], values(120, 100))
            .unwrap();
        // Why: nested sharding (the inner chunks' array-to-bytes codec), or transpose.
        let reason = FusedReader::new(&array)
            .unfused()
            .cloned()
            .expect("not fused");
        assert!(
            matches!(&reason, Unfused::Layout(_) | Unfused::OtherCodec(_)),
            "{reason:?}"
        );
        for subset in shard_subsets() {
            let through = [Fallback::Unfused(reason.clone())];
            compare_with(&array, &subset, "through zarrs", Errors::Same, &through).unwrap();
        }
    }
}
