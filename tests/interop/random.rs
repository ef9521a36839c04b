//! Random arrays zarr-python 3.4.2 wrote through both codecs
//! (`tests/zarr-python/random_arrays.py`): every read path gives the elements zarr-python reads
//! back, and the same values written again through this crate give the same chunks, or are
//! refused where zarr-python stored a fill value that reads back as something else (the
//! specification requires the fill value to survive the round trip).
//!
//! `cargo test` reads the arrays of `tests/data/random` (seed 1). `.ci/run` has zarr-python write
//! fresh ones with a new seed and names their folder in `ZARR_PYTHON_RANDOM`; the crate's arrays
//! are then left beside them (`<name>.crate`) for `tests/zarr-python/compare_chunks.py`, which
//! compares the chunks whatever their compression and shard layout.

use std::path::PathBuf;
use std::sync::Arc;

use crate::chunk_files::chunk_files;
use serde_json::Value as Json;
use zarrs::array::{Array, ArrayBytes, ArrayMetadata, ArraySubset};
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast::{CastValueError, Error, ScaleOffsetError};

/// The elements of `subset` of a C-order array of `shape`, `size` bytes each.
/// The whole array, a box across the first chunk boundaries, and the last element.
fn subsets(shape: &[u64], chunks: &[u64]) -> Vec<ArraySubset> {
    let across = shape
        .iter()
        .zip(chunks)
        .map(|(&n, &c)| c.saturating_sub(1).min(n - 1)..(c + 1).min(n));
    let last = shape.iter().map(|&n| n - 1..n);
    [
        shape.iter().map(|&n| 0..n).collect::<Vec<_>>(),
        across.collect(),
        last.collect(),
    ]
    .iter()
    .map(|ranges| ArraySubset::new_with_ranges(ranges))
    .collect()
}

fn elements_of(all: &[u8], shape: &[u64], subset: &ArraySubset, size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for index in &subset.indices() {
        let linear = index.iter().zip(shape).fold(0, |at, (&i, &n)| at * n + i);
        let at = usize::try_from(linear).unwrap() * size;
        out.extend_from_slice(&all[at..at + size]);
    }
    out
}

/// Whether two reads agree: the same bytes, NaN payloads aside.
fn same_elements(a: &[u8], b: &[u8], data_type: &str, size: usize) -> bool {
    let nan = |bytes: &[u8]| match data_type {
        "float64" => f64::from_le_bytes(bytes.try_into().unwrap()).is_nan(),
        "float32" => f32::from_le_bytes(bytes.try_into().unwrap()).is_nan(),
        "float16" => half::f16::from_le_bytes(bytes.try_into().unwrap()).is_nan(),
        _ => false,
    };
    a.len() == b.len()
        && a.chunks(size)
            .zip(b.chunks(size))
            .all(|(x, y)| x == y || (nan(x) && nan(y)))
}

/// Whether `error` is a fill value refused by either codec, or by the chain's fill value rule.
fn is_fill_value_error(error: &zarrs::array::ArrayError) -> bool {
    matches!(
        Error::find(error),
        Some(
            Error::CastValue(CastValueError::FillValue { .. })
                | Error::ScaleOffset(ScaleOffsetError::FillValue { .. })
                | Error::FillValueChanges { .. }
        )
    )
}

#[test]
fn arrays_zarr_python_wrote_read_and_write_as_zarr_python_does() {
    let (folder, fresh) = match std::env::var_os("ZARR_PYTHON_RANDOM") {
        Some(folder) => (PathBuf::from(folder), true),
        None => (
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/random"),
            false,
        ),
    };
    let cases: Json =
        serde_json::from_str(&std::fs::read_to_string(folder.join("cases.json")).unwrap()).unwrap();
    let written_to = tempfile::tempdir().unwrap();
    let (mut read, mut rewritten, mut refused, mut skipped) = (0, 0, 0, 0);
    for case in cases["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        if case.get("zarr_python_error").is_some() {
            skipped += 1;
            continue;
        }
        let data_type = case["data_type"].as_str().unwrap();
        let path = folder.join(name);
        let array = Array::open(Arc::new(FilesystemStore::new(&path).unwrap()), "/").unwrap();
        let size = array.data_type().fixed_size().unwrap();
        let shape = array.shape().to_vec();

        // Reads: zarrs' whole and partial reads give zarr-python's elements, and FusedReader
        // zarrs' bytes (on one thread and four, into a buffer and a new vector).
        let zarr_python = std::fs::read(folder.join(format!("{name}.read"))).unwrap();
        let chunks: Vec<u64> = case["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        for subset in subsets(&shape, &chunks) {
            let got: ArrayBytes = array
                .retrieve_array_subset(&subset)
                .unwrap_or_else(|e| panic!("{name} {subset:?}: {e} ({case})"));
            let expected = elements_of(&zarr_python, &shape, &subset, size);
            assert!(
                same_elements(&got.into_fixed().unwrap(), &expected, data_type, size),
                "{name} {subset:?}: zarrs' read differs from zarr-python's ({case})"
            );
        }
        read += 1;

        // Writes: the same values into an array of the same metadata.
        let metadata: ArrayMetadata =
            serde_json::from_str(&std::fs::read_to_string(path.join("zarr.json")).unwrap())
                .unwrap();
        let out = if fresh {
            folder.join(format!("{name}.crate"))
        } else {
            written_to.path().join(name)
        };
        let written =
            Array::new_with_metadata(Arc::new(FilesystemStore::new(&out).unwrap()), "/", metadata)
                .unwrap();
        written.store_metadata().unwrap();
        let region: Vec<std::ops::Range<u64>> = case["region"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[0].as_u64().unwrap()..r[1].as_u64().unwrap())
            .collect();
        let region = ArraySubset::new_with_ranges(&region);
        let input = std::fs::read(folder.join(format!("{name}.input"))).unwrap();
        let values = elements_of(&input, &shape, &region, size);
        let stored = written.store_array_subset(&region, ArrayBytes::new_flen(values));
        if case["fill_changes"].as_bool().unwrap() {
            // The fill value does not come back: refused before any chunk is written.
            match stored {
                Err(error) if is_fill_value_error(&error) => {}
                other => panic!("{name}: {other:?} where the fill value changes ({case})"),
            }
            assert!(chunk_files(&out).is_empty(), "{name}: chunks written");
            refused += 1;
            continue;
        }
        stored.unwrap_or_else(|e| panic!("{name}: {e} ({case})"));
        let (theirs, ours) = (chunk_files(&path), chunk_files(&out));
        assert!(
            theirs.keys().eq(ours.keys()),
            "{name}: other chunks ({case})"
        );
        if case["compressor"].is_null() && case["shards"].is_null() {
            // Compressors and shard layouts may differ: compare_chunks.py compares those.
            assert!(theirs == ours, "{name}: the chunks differ ({case})");
        }
        rewritten += 1;
    }
    println!(
        "{} (seed {}): {read} arrays read as zarr-python reads them, {rewritten} written again \
         with the same chunks, {refused} refused (fill value), {skipped} zarr-python refused",
        folder.display(),
        cases["seed"]
    );
    assert!(read > 0 && rewritten > 0);
}
