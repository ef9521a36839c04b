//! Reads through `FusedReader` compared with zarrs' own reads of the same subsets, each held to the
//! path it is expected to take.

use std::sync::Arc;

use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayBytes, ArrayError, ArrayMetadata, ArraySubset, CodecOptions};
use zarrs::storage::ReadableStorageTraits;
use zarrs::storage::store::MemoryStore;
use zarrs_scale_offset_cast::{Fallback, FusedReader, ReadReport};

/// The byte every output is filled with before a read: no read writes a whole element of it
/// into these tests' arrays, so an element a read leaves unwritten shows.
pub(crate) const UNWRITTEN: u8 = 0xAA;

/// How errors must agree.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Errors {
    /// The same message.
    Same,
    /// The same kind of [`ArrayError`] (zarrs' reads of a whole shard and of a part of it word
    /// some errors differently).
    SameKind,
}

/// Reads `subset` both ways and compares the bytes, or the errors' messages, and holds the read
/// to its path: where the subset has elements, chunks go through zarrs only for the reasons of
/// `through` (none: every chunk read on the fused path); an empty one goes through zarrs as a
/// whole. Returns what the read did, where it succeeded.
pub(crate) fn compare<S: ?Sized + ReadableStorageTraits + 'static>(
    array: &Array<S>,
    subset: &ArraySubset,
    context: &str,
    through: &[Fallback],
) -> Option<ReadReport> {
    compare_with(array, subset, context, Errors::Same, through)
}

/// [`compare`], with errors agreeing as `errors` says.
pub(crate) fn compare_with<S: ?Sized + ReadableStorageTraits + 'static>(
    array: &Array<S>,
    subset: &ArraySubset,
    context: &str,
    errors: Errors,
    through: &[Fallback],
) -> Option<ReadReport> {
    let reader = FusedReader::new(array);
    let expected: Result<ArrayBytes<'static>, _> = array.retrieve_array_subset(subset);
    let elements = usize::try_from(subset.num_elements()).unwrap();
    let data_type = array.data_type().name_v3().unwrap();
    let got = read_typed(&reader, data_type.as_ref(), subset, elements, errors);
    match (expected, got) {
        (Ok(expected), Ok((got, report))) => {
            let expected = expected.into_fixed().unwrap();
            assert!(
                got == expected.as_ref(),
                "{context} {subset:?}: the bytes differ"
            );
            assert_path(&report, subset, through, context);
            Some(report)
        }
        (Err(expected), Err(got)) => {
            same_error(&expected, &got, errors, context);
            None
        }
        (expected, got) => panic!(
            "{context} {subset:?}: zarrs gave {:?}, the fused path {:?}",
            expected.map(|_| ()),
            got.map(|_| ())
        ),
    }
}

/// Holds `report`, of a read of `subset`, to its path: chunks through zarrs only for the reasons
/// of `through`, and an empty subset through zarrs as a whole.
pub(crate) fn assert_path(
    report: &ReadReport,
    subset: &ArraySubset,
    through: &[Fallback],
    context: &str,
) {
    if subset.num_elements() == 0 {
        assert_eq!(
            report.through_zarrs,
            [(Fallback::EmptySubset, 0)],
            "{context} {subset:?}"
        );
        return;
    }
    for (reason, chunks) in &report.through_zarrs {
        assert!(
            through.contains(reason),
            "{context} {subset:?}: {chunks} chunks through zarrs for {reason:?}, expected only {through:?} ({report:?})"
        );
    }
}

fn same_error(expected: &ArrayError, got: &ArrayError, errors: Errors, context: &str) {
    match errors {
        Errors::Same => assert_eq!(got.to_string(), expected.to_string(), "{context}"),
        Errors::SameKind => assert_eq!(
            std::mem::discriminant(got),
            std::mem::discriminant(expected),
            "{context}: zarrs: {expected}; the fused path: {got}"
        ),
    }
}

/// Reads `subset` through `reader` into elements of the array's own element type, as bytes:
/// into a buffer on one thread and on four, and into a new vector, which must agree; and what the
/// first read did.
fn read_typed<S: ?Sized + ReadableStorageTraits + 'static>(
    reader: &FusedReader<'_, S>,
    data_type: &str,
    subset: &ArraySubset,
    elements: usize,
    errors: Errors,
) -> Result<(Vec<u8>, ReadReport), ArrayError> {
    fn read<
        T: zarrs::array::ElementOwned + bytemuck::Pod,
        S: ?Sized + ReadableStorageTraits + 'static,
    >(
        reader: &FusedReader<'_, S>,
        subset: &ArraySubset,
        elements: usize,
        errors: Errors,
    ) -> Result<(Vec<u8>, ReadReport), ArrayError> {
        let prefilled = || {
            let mut out = vec![T::zeroed(); elements];
            bytemuck::cast_slice_mut::<T, u8>(&mut out).fill(UNWRITTEN);
            out
        };
        let mut out = prefilled();
        let one = CodecOptions::default().with_concurrent_target(1);
        let into = reader
            .retrieve_array_subset_into_opt(subset, &mut out, &one)
            .map(|report| (bytemuck::cast_slice::<T, u8>(&out).to_vec(), report));
        // On several threads (chunks at once, and the pieces of large chunks), into a buffer
        // and into a new vector: the same bytes, or the same error.
        let parallel = CodecOptions::default().with_concurrent_target(4);
        let mut out = prefilled();
        let into_parallel = reader
            .retrieve_array_subset_into_opt(subset, &mut out, &parallel)
            .map(|_| bytemuck::cast_slice::<T, u8>(&out).to_vec());
        let vec = reader
            .retrieve_array_subset_opt::<Vec<T>>(subset, &parallel)
            .map(|values| bytemuck::cast_slice::<T, u8>(&values).to_vec());
        for (other, path) in [
            (&into_parallel, "into, 4 threads"),
            (&vec, "Vec, 4 threads"),
        ] {
            match (&into, other) {
                (Ok((a, _)), Ok(b)) => assert!(a == b, "{path} {subset:?}"),
                (Err(a), Err(b)) => same_error(a, b, errors, path),
                _ => panic!("{path} {subset:?}: one read failed, the other did not"),
            }
        }
        into
    }
    match data_type {
        "float64" => read::<f64, S>(reader, subset, elements, errors),
        "float32" => read::<f32, S>(reader, subset, elements, errors),
        "float16" => read::<half::f16, S>(reader, subset, elements, errors),
        "int8" => read::<i8, S>(reader, subset, elements, errors),
        "uint8" => read::<u8, S>(reader, subset, elements, errors),
        "int16" => read::<i16, S>(reader, subset, elements, errors),
        "uint16" => read::<u16, S>(reader, subset, elements, errors),
        "int32" => read::<i32, S>(reader, subset, elements, errors),
        "uint32" => read::<u32, S>(reader, subset, elements, errors),
        "int64" => read::<i64, S>(reader, subset, elements, errors),
        "uint64" => read::<u64, S>(reader, subset, elements, errors),
        other => panic!("no element type for {other}"),
    }
}

/// The whole array and subsets that cross chunk boundaries.
pub(crate) fn subsets(shape: &[u64], chunk: &[u64]) -> Vec<ArraySubset> {
    let mut ranges: Vec<Vec<std::ops::Range<u64>>> = vec![shape.iter().map(|&n| 0..n).collect()];
    ranges.push(
        shape
            .iter()
            .zip(chunk)
            .map(|(&n, &c)| {
                if c < n {
                    c.saturating_sub(1)..(c + 2).min(n)
                } else {
                    0..n
                }
            })
            .collect(),
    );
    ranges.push(shape.iter().map(|&n| (n / 3)..(n - n / 4)).collect());
    ranges.push(shape.iter().map(|&n| (n - 1)..n).collect());
    // Empty: no element along the last dimension.
    ranges.push(
        shape
            .iter()
            .enumerate()
            .map(|(d, &n)| {
                if d + 1 == shape.len() {
                    n / 2..n / 2
                } else {
                    0..n
                }
            })
            .collect(),
    );
    ranges
        .iter()
        .map(|r| ArraySubset::new_with_ranges(r))
        .collect()
}

/// A random box within `extent`, from `below(n)`, a random number below `n`: one in eight has no
/// element along one dimension, the others at least one along each.
pub(crate) fn random_box(below: &mut impl FnMut(u64) -> u64, extent: &[u64]) -> ArraySubset {
    let empty = (below(8) == 0).then(|| below(extent.len() as u64));
    let ranges: Vec<std::ops::Range<u64>> = (0..extent.len() as u64)
        .zip(extent)
        .map(|(d, &n)| {
            let start = below(n + u64::from(empty == Some(d)));
            let len = if empty == Some(d) {
                0
            } else {
                1 + below(n - start)
            };
            start..start + len
        })
        .collect();
    ArraySubset::new_with_ranges(&ranges)
}

/// A 2-D float64 array with `codecs` (then `bytes` in `endian`, then `compressors`).
pub(crate) fn array(
    codecs: &Json,
    endian: &str,
    compressors: &Json,
    fill: &Json,
) -> Array<MemoryStore> {
    let mut codecs = codecs.as_array().unwrap().clone();
    codecs.push(json!({"name": "bytes", "configuration": {"endian": endian}}));
    codecs.extend(compressors.as_array().unwrap().iter().cloned());
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [37, 23], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8, 6]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill, "codecs": codecs,
    }))
    .unwrap();
    Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata).unwrap()
}

/// `[scale_offset(-0.1, 10000), cast_value(uint16, clamp, NaN <-> 0)]`.
pub(crate) fn reflectance_codecs() -> Json {
    json!([
        {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
        {"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}
    ])
}

/// `n` values in [0, 0.5), every 17th NaN.
#[expect(clippy::cast_precision_loss, reason = "small indices")]
pub(crate) fn values(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            if i % 17 == 3 {
                f64::NAN
            } else {
                (i % 500) as f64 / 1000.0
            }
        })
        .collect()
}

/// An int8 array stored as `[cast_value(int16), bytes]` in memory, and its store.
pub(crate) fn int8_stored_as_int16(
    shape: &[u64],
    chunk: &[u64],
    fill: i8,
) -> (Arc<MemoryStore>, Array<MemoryStore>) {
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": "int8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill,
        "codecs": [
            {"name": "cast_value", "configuration": {"data_type": "int16"}},
            {"name": "bytes", "configuration": {"endian": "little"}}
        ],
    }))
    .unwrap();
    let store = Arc::new(MemoryStore::new());
    let array = Array::new_with_metadata(store.clone(), "/", metadata).unwrap();
    (store, array)
}

/// A float64 array of `shape` in shards of `shard` holding inner chunks of `inner`, stored as
/// uint16 inside the shards (as zarr-python writes them), compressed by `compressor` (none where
/// it is `null`).
pub(crate) fn sharded_metadata(
    shape: &[u64],
    shard: &[u64],
    inner: &[u64],
    compressor: &Json,
) -> ArrayMetadata {
    let mut metadata = json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": shard}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
        "codecs": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": inner,
            "codecs": [
                {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
                {"name": "cast_value", "configuration": {"data_type": "uint16",
                    "out_of_range": "clamp",
                    "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
                {"name": "bytes", "configuration": {"endian": "little"}},
                compressor],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "crc32c"}],
            "index_location": "end"}}]
    });
    if let Some(codecs) = metadata["codecs"][0]["configuration"]["codecs"].as_array_mut() {
        codecs.retain(|codec| !codec.is_null());
    }
    serde_json::from_value(metadata).unwrap()
}
