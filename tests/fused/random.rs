//! Arrays zarr-python wrote at random (random data types, chains, fill values, shards,
//! compressors: `tests/data/random`, or fresh ones in the folder `ZARR_PYTHON_RANDOM` names, as
//! `.ci/run` writes them) read through `FusedReader` as through zarrs, whole and in subsets across
//! chunk boundaries.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value as Json;
use zarrs::array::Array;
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast::{Fallback, FusedReader};

use crate::support::{compare, subsets};

#[test]
fn arrays_zarr_python_wrote_at_random_read_through_the_fused_path_as_through_zarrs() {
    let folder = std::env::var_os("ZARR_PYTHON_RANDOM").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/random"),
        PathBuf::from,
    );
    let cases: Json =
        serde_json::from_str(&std::fs::read_to_string(folder.join("cases.json")).unwrap()).unwrap();
    let (mut arrays, mut fused, mut reads) = (0, 0, 0);
    for case in cases["cases"].as_array().unwrap() {
        if case.get("zarr_python_error").is_some() {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let store = FilesystemStore::new(folder.join(name)).unwrap();
        let array = Array::open(Arc::new(store), "/").unwrap();
        let chunks: Vec<u64> = case["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        // On the fused path, but for inner chunks never written whose fill value does not decode
        // through the codecs outside the shards (zarr-python writes such arrays); else all
        // through zarrs, for the reason the reader gives.
        let unfused = FusedReader::new(&array).unfused().cloned();
        fused += usize::from(unfused.is_none());
        let through = [unfused.map_or(Fallback::MissingFill, Fallback::Unfused)];
        for subset in subsets(array.shape(), &chunks) {
            compare(&array, &subset, name, &through);
            reads += 1;
        }
        arrays += 1;
    }
    println!("{arrays} random arrays ({fused} fused), {reads} reads as zarrs reads them");
    assert!(
        arrays >= 20 && fused >= arrays / 2,
        "{arrays} arrays, {fused} fused"
    );
}
