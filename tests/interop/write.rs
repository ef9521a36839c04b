//! The interop fixtures written again, by zarrs and this crate, from the same metadata and input
//! values: read back with zarrs, compared byte for byte with the chunks zarr-python wrote (where
//! no compressor is involved), and with the codec metadata checked.
//!
//! With `ZARR_INTEROP_OUT=DIR`, the arrays are left in `DIR/arrays/<id>/` for zarr-python to check
//! (`verify_store.py DIR manifest.json`, see `.ci/run`); otherwise they go to a temporary folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::chunk_files::chunk_files;
use crate::{SPEC_OVERRIDES, expected_value};
use serde_json::Value as Json;
use zarrs::array::{Array, ArrayBytes, ArrayMetadata, ArraySubset};
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast as _;
use zarrs_scale_offset_cast_reference::json::{from_ne_bytes, matches, swap_to_native, to_bytes};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/interop")
}

/// Gives every top-level codec object without a configuration an empty one. zarrs keeps the
/// metadata it is given, and writes a top-level codec read without a `configuration` as a bare
/// string, which zarr-python 3.4.2 cannot open; with an empty configuration it writes
/// `{"name": ...}`. (The codecs inside `sharding_indexed` are kept as raw JSON.)
fn with_explicit_configurations(codecs: &mut Json) {
    for codec in codecs.as_array_mut().unwrap() {
        if let Json::Object(object) = codec {
            object
                .entry("configuration")
                .or_insert_with(|| Json::Object(serde_json::Map::new()));
        }
    }
}

/// Codec entries that are bare strings, at any depth.
fn bare_string_codecs(codecs: &Json) -> Vec<String> {
    let mut found = Vec::new();
    for codec in codecs.as_array().unwrap() {
        match codec {
            Json::String(name) => found.push(name.clone()),
            Json::Object(object) => {
                for inner in ["codecs", "index_codecs"] {
                    if let Some(list) = object.get("configuration").and_then(|c| c.get(inner)) {
                        found.extend(bare_string_codecs(list));
                    }
                }
            }
            _ => {}
        }
    }
    found
}

fn codec_names(codecs: &Json) -> Vec<String> {
    let mut names = Vec::new();
    for codec in codecs.as_array().unwrap() {
        let name = codec
            .as_str()
            .or_else(|| codec["name"].as_str())
            .unwrap_or_default();
        names.push(name.to_string());
        for inner in ["codecs", "index_codecs"] {
            if let Some(list) = codec.get("configuration").and_then(|c| c.get(inner)) {
                names.extend(codec_names(list));
            }
        }
    }
    names
}

/// The C-order values of `region` (start/stop per dimension) of an array of `shape`.
fn region_values<'a>(
    values: &'a [Json],
    shape: &[u64],
    start: &[u64],
    stop: &[u64],
) -> Vec<&'a Json> {
    let total: u64 = start.iter().zip(stop).map(|(a, b)| b - a).product();
    (0..total)
        .map(|mut i| {
            let mut flat = 0;
            let mut stride = 1;
            for d in (0..shape.len()).rev() {
                let len = stop[d] - start[d];
                flat += (start[d] + i % len) * stride;
                stride *= shape[d];
                i /= len;
            }
            &values[usize::try_from(flat).unwrap()]
        })
        .collect()
}

/// Writes one fixture again in `out`; returns whether its chunks were compared byte for byte.
fn write_case(case: &Json, out: &Path) -> Result<bool, String> {
    let id = case["id"].as_str().unwrap();
    let path = case["path"].as_str().unwrap();
    let data_type = case["data_type"].as_str().unwrap();
    let shape: Vec<u64> = serde_json::from_value(case["shape"].clone()).unwrap();
    let dir = out.join(path);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();

    // The same metadata as zarr-python wrote.
    let original: Json =
        serde_json::from_slice(&std::fs::read(fixtures().join(path).join("zarr.json")).unwrap())
            .unwrap();
    let mut metadata = original.clone();
    with_explicit_configurations(&mut metadata["codecs"]);
    let metadata: ArrayMetadata = serde_json::from_value(metadata).map_err(|e| e.to_string())?;
    let store = Arc::new(FilesystemStore::new(&dir).unwrap());
    let array =
        Array::new_with_metadata(store, "/", metadata).map_err(|e| format!("create: {e}"))?;
    array.store_metadata().map_err(|e| e.to_string())?;

    let input = case["input_values"].as_array().unwrap();
    for write in case["writes"].as_array().unwrap() {
        let start: Vec<u64> = serde_json::from_value(write["start"].clone()).unwrap();
        let stop: Vec<u64> = serde_json::from_value(write["stop"].clone()).unwrap();
        let little: Vec<u8> = region_values(input, &shape, &start, &stop)
            .into_iter()
            .flat_map(|v| to_bytes(data_type, v))
            .collect();
        let ranges: Vec<_> = start.iter().zip(&stop).map(|(&a, &b)| a..b).collect();
        array
            .store_array_subset(
                &ArraySubset::new_with_ranges(&ranges),
                ArrayBytes::new_flen(swap_to_native(data_type, &little)),
            )
            .map_err(|e| format!("write {ranges:?}: {e}"))?;
    }

    // (a) zarrs reads back what zarr-python reads from its own array.
    let reopened = Array::open(Arc::new(FilesystemStore::new(&dir).unwrap()), "/")
        .map_err(|e| format!("reopen: {e}"))?;
    let everything: Vec<_> = shape.iter().map(|&n| 0..n).collect();
    let bytes = reopened
        .retrieve_array_subset::<ArrayBytes<'static>>(&ArraySubset::new_with_ranges(&everything))
        .map_err(|e| format!("read: {e}"))?;
    let got = from_ne_bytes(data_type, &bytes.into_fixed().unwrap());
    let expected = case["expected_values"].as_array().unwrap();
    if let Some(i) =
        (0..expected.len()).find(|&i| !matches(&expected_value(id, i, &expected[i]), got[i]))
    {
        return Err(format!(
            "element {i} reads back as {}, expected {}",
            got[i], expected[i]
        ));
    }

    // The metadata keeps the codecs as given, and holds no bare-string codec.
    let written: Json =
        serde_json::from_slice(&std::fs::read(dir.join("zarr.json")).unwrap()).unwrap();
    let bare = bare_string_codecs(&written["codecs"]);
    if !bare.is_empty() {
        return Err(format!("zarr.json holds bare-string codecs {bare:?}"));
    }
    if written["codecs"] != original["codecs"] {
        return Err(format!(
            "codecs written as {}, given as {}",
            written["codecs"], original["codecs"]
        ));
    }

    // (b) Without a compressor, the chunks are byte for byte those of zarr-python.
    let names = codec_names(&original["codecs"]);
    if names.iter().any(|n| n == "gzip" || n == "zstd") {
        return Ok(false);
    }
    let (ours, theirs) = (chunk_files(&dir), chunk_files(&fixtures().join(path)));
    if ours.keys().ne(theirs.keys()) {
        return Err(format!(
            "chunk files {:?}, zarr-python wrote {:?}",
            ours.keys(),
            theirs.keys()
        ));
    }
    if let Some((file, _)) = ours.iter().find(|(file, bytes)| theirs[*file] != **bytes) {
        return Err(format!(
            "chunk {} differs from zarr-python's",
            file.display()
        ));
    }
    Ok(true)
}

#[test]
fn every_fixture_written_by_zarrs_reads_back_and_matches_zarr_python_chunks() {
    let manifest: Json =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("manifest.json")).unwrap())
            .unwrap();
    let cases = manifest["cases"].as_array().unwrap();
    let temporary = tempfile::tempdir().unwrap();
    let out = std::env::var_os("ZARR_INTEROP_OUT")
        .map_or_else(|| temporary.path().to_path_buf(), PathBuf::from);
    let (mut written, mut compared, mut failures) = (0, 0, Vec::new());
    for case in cases {
        match write_case(case, &out) {
            Ok(byte_compared) => {
                written += 1;
                compared += usize::from(byte_compared);
            }
            Err(error) => failures.push(format!("{}: {error}", case["id"].as_str().unwrap())),
        }
    }
    println!(
        "interop write: {} arrays, {written} written and read back, {compared} byte-identical to zarr-python (the others are compressed), {} failed; arrays in {}",
        cases.len(),
        failures.len(),
        out.display()
    );
    for (id, index, value, why) in SPEC_OVERRIDES {
        println!("  {id}[{index}] expected {value:?}, following the specification: {why}");
    }
    for failure in &failures {
        println!("  FAIL {failure}");
    }
    assert!(!cases.is_empty(), "no fixtures");
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed",
        failures.len(),
        cases.len()
    );
}
