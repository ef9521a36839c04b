//! Arrays written by zarr-python 3.4.2 (`tests/data/interop`), read through zarrs and this crate:
//! whole, and in subsets that cut across chunk and shard boundaries. Values compare exactly (NaN
//! equals NaN, the sign of zero counts), except where the specification and zarr-python disagree
//! (`SPEC_OVERRIDES` in `main.rs`).

use std::path::PathBuf;
use std::sync::Arc;

use crate::{SPEC_OVERRIDES, expected_value};
use serde_json::Value as Json;
use zarrs::array::{Array, ArrayBytes, ArrayShardedExt, ArraySubset};
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast as _;
use zarrs_scale_offset_cast_reference::json::{from_ne_bytes, matches};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/interop")
}

/// Subsets of `shape` that cross the boundaries of `chunk` (the shard shape for sharded arrays) and
/// of the subchunks inside shards, plus the whole array.
fn subsets(
    shape: &[u64],
    chunk: &[u64],
    subchunk: Option<&[u64]>,
) -> Vec<Vec<std::ops::Range<u64>>> {
    let around = |boundary: &[u64]| -> Vec<std::ops::Range<u64>> {
        shape
            .iter()
            .zip(boundary)
            .map(|(&n, &b)| {
                if b < n {
                    b.saturating_sub(1)..(b + 2).min(n)
                } else {
                    0..n
                }
            })
            .collect()
    };
    let mut subsets = vec![shape.iter().map(|&n| 0..n).collect()];
    subsets.push(around(chunk));
    if let Some(subchunk) = subchunk {
        subsets.push(around(subchunk));
    }
    subsets.push(shape.iter().map(|&n| (n / 3)..(n - n / 4)).collect());
    subsets
}

/// The expected values of `subset`, from the whole array's values in C order.
fn expected_subset(
    id: &str,
    expected: &[Json],
    shape: &[u64],
    subset: &[std::ops::Range<u64>],
) -> Vec<Json> {
    let total: u64 = subset.iter().map(|r| r.end - r.start).product();
    (0..total)
        .map(|mut i| {
            let mut index = vec![0u64; shape.len()];
            for d in (0..shape.len()).rev() {
                let len = subset[d].end - subset[d].start;
                index[d] = subset[d].start + i % len;
                i /= len;
            }
            let flat =
                usize::try_from(index.iter().zip(shape).fold(0, |acc, (&x, &n)| acc * n + x))
                    .unwrap();
            expected_value(id, flat, &expected[flat])
        })
        .collect()
}

#[test]
fn every_zarr_python_array_reads_back_exactly_whole_and_in_subsets() {
    let manifest: Json =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("manifest.json")).unwrap())
            .unwrap();
    let cases = manifest["cases"].as_array().unwrap();
    let (mut arrays, mut reads, mut failures) = (0, 0, Vec::new());
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let data_type = case["data_type"].as_str().unwrap();
        let shape: Vec<u64> = serde_json::from_value(case["shape"].clone()).unwrap();
        let chunk: Vec<u64> = serde_json::from_value(case["chunk_shape"].clone()).unwrap();
        let expected = case["expected_values"].as_array().unwrap();
        let store = Arc::new(FilesystemStore::new(fixtures()).unwrap());
        let array = match Array::open(store, &format!("/{}", case["path"].as_str().unwrap())) {
            Ok(array) => array,
            Err(error) => {
                failures.push(format!("{id}: open failed: {error}"));
                continue;
            }
        };
        let subchunk = array
            .subchunk_shape()
            .map(|s| s.iter().map(|d| d.get()).collect::<Vec<u64>>());
        arrays += 1;
        for subset in subsets(&shape, &chunk, subchunk.as_deref()) {
            reads += 1;
            let read = array
                .retrieve_array_subset::<ArrayBytes<'static>>(&ArraySubset::new_with_ranges(
                    &subset,
                ))
                .map_err(|e| e.to_string())
                .and_then(|bytes| {
                    bytes
                        .into_fixed()
                        .map(|b| b.to_vec())
                        .map_err(|e| e.to_string())
                });
            match read {
                Err(error) => failures.push(format!("{id} {subset:?}: read failed: {error}")),
                Ok(bytes) => {
                    let got = from_ne_bytes(data_type, &bytes);
                    let want = expected_subset(id, expected, &shape, &subset);
                    if let Some(i) = (0..want.len()).find(|&i| !matches(&want[i], got[i])) {
                        failures.push(format!(
                            "{id} {subset:?}: element {i} is {}, expected {}",
                            got[i], want[i]
                        ));
                    }
                }
            }
        }
    }
    println!(
        "interop read: {arrays} arrays checked ({reads} reads), {} failures",
        failures.len()
    );
    for (id, index, value, why) in SPEC_OVERRIDES {
        println!("  {id}[{index}] expected {value:?}, following the specification: {why}");
    }
    for failure in &failures {
        println!("  FAIL {failure}");
    }
    assert_eq!(arrays, cases.len());
    assert!(arrays > 0, "no fixtures");
    assert!(failures.is_empty(), "{} reads failed", failures.len());
}
