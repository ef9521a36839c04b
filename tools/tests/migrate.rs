//! Migrating arrays zarr-python wrote with `numcodecs.fixedscaleoffset` (Zarr V3) and the
//! `fixedscaleoffset` filter (Zarr V2) (`tests/data/legacy`, made by
//! `tests/data/legacy/make_fixtures.py`): a dry run changes nothing; the migration rewrites only the
//! metadata, and the array then reads bit for bit what numcodecs read.

use std::path::Path;
use std::sync::Arc;

use zarrs::array::{Array, ArrayBytes};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{StoreKey, WritableStorageTraits};
use zarrs_scale_offset_cast_tools::migrate::{
    MigrateError, MigrateOptions, ZarrsBuiltin, migrate_array,
};

const LEGACY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/legacy");

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.path().is_dir() {
            copy(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// Every file under `root` with its bytes.
fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                all.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    all.sort();
    all
}

fn bits(data_type: &str, bytes: &[u8]) -> Vec<u64> {
    if data_type == "float32" {
        bytes
            .chunks_exact(4)
            .map(|b| u64::from(u32::from_ne_bytes(b.try_into().unwrap())))
            .collect()
    } else {
        bytes
            .chunks_exact(8)
            .map(|b| u64::from_ne_bytes(b.try_into().unwrap()))
            .collect()
    }
}

#[test]
fn legacy_arrays_migrate_and_read_as_numcodecs_read_them() {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{LEGACY}/manifest.json")).unwrap())
            .unwrap();
    let work = tempfile::tempdir().unwrap();
    copy(&Path::new(LEGACY).join("arrays"), work.path());
    let mut migrated = 0;
    for case in manifest["cases"].as_array().unwrap() {
        let name = case["path"].as_str().unwrap().trim_start_matches("arrays/");
        // Blosc and zlib are left out of the crate's development build (the `migrate` command,
        // feature `cli`, migrates those two fixtures in `.ci/run`).
        if name.ends_with("-blosc") || name.ends_with("-zlib") {
            continue;
        }
        let folder = work.path().join(name);
        let store = Arc::new(FilesystemStore::new(&folder).unwrap());
        let before = files(&folder);
        let dry = migrate_array(
            store.clone(),
            "/",
            &MigrateOptions::default().with_dry_run(true),
        );
        assert_eq!(files(&folder), before, "{name}: the dry run changed files");
        let report = match dry {
            Ok(report) => report,
            Err(MigrateError::Unsupported(reason)) if name.contains("plain") => {
                assert!(
                    reason.contains("uses no numcodecs.fixedscaleoffset"),
                    "{reason}"
                );
                continue;
            }
            Err(error) => panic!("{name}: {error}"),
        };
        assert!(!report.applied() && report.chunks() > 0, "{name}");
        let report = migrate_array(store.clone(), "/", &MigrateOptions::default()).unwrap();
        assert!(report.applied());
        // Only the metadata changed: every chunk file is as it was.
        let after = files(&folder);
        let chunks = |files: &[(String, Vec<u8>)]| -> Vec<(String, Vec<u8>)> {
            files
                .iter()
                .filter(|(p, _)| !p.contains(".z") && !p.ends_with("zarr.json"))
                .cloned()
                .collect()
        };
        assert_eq!(chunks(&after), chunks(&before), "{name}");
        assert!(!folder.join(".zarray").exists(), "{name}");
        if name == "v3-f64-u16-zstd" {
            // Offset -0.1 as float32 is not -0.1: zarrs' own codec reads every element differently.
            assert!(matches!(
                report.zarrs_builtin(),
                ZarrsBuiltin::Reads { elements: 768, .. }
            ));
        }
        if name.contains("-fill") {
            // (fill - offset) * scale is no integer: the fill value gets a code no element uses.
            let cast = &report.codecs().last().unwrap()["configuration"];
            let code = &cast["scalar_map"]["encode"][0][1];
            assert!(code == 65_535 || code == 32_767, "{name}: {cast}");
        }
        let array = Array::open(store, "/").unwrap();
        let bytes: ArrayBytes<'static> = array.retrieve_array_subset(&array.subset_all()).unwrap();
        let data_type = case["data_type"].as_str().unwrap();
        let got = bits(data_type, &bytes.into_fixed().unwrap());
        let want: Vec<u64> = case["expected_values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                let x = v.as_f64().unwrap_or(f64::NAN); // "NaN"
                #[expect(clippy::cast_possible_truncation, reason = "values of float32 arrays")]
                if data_type == "float32" {
                    u64::from((x as f32).to_bits())
                } else {
                    x.to_bits()
                }
            })
            .collect();
        assert_eq!(got, want, "{name}");
        migrated += 1;
    }
    println!("{migrated} arrays migrated");
    assert_eq!(migrated, 7);
}

#[test]
fn a_chunk_the_new_chain_cannot_read_stops_the_migration() {
    // float32 values q / 1e-36 overflow float32: numcodecs reads Infinity, which the new chain's
    // cast from float64 to float32 (no out_of_range) refuses.
    let store = Arc::new(MemoryStore::new());
    let metadata = serde_json::json!({
        "zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0.0,
        "codecs": [
            {"name": "numcodecs.fixedscaleoffset",
             "configuration": {"offset": 0, "scale": 1e-36, "dtype": "<f4", "astype": "<u2"}},
            {"name": "bytes", "configuration": {"endian": "little"}}
        ]
    });
    let json = serde_json::to_vec(&metadata).unwrap();
    store
        .set(&StoreKey::new("a/zarr.json").unwrap(), json.clone().into())
        .unwrap();
    let chunk = [1u16, 65_535]
        .iter()
        .flat_map(|q| q.to_le_bytes())
        .collect::<Vec<u8>>();
    store
        .set(&StoreKey::new("a/c/0").unwrap(), chunk.into())
        .unwrap();
    match migrate_array(store.clone(), "/a", &MigrateOptions::default()) {
        Err(MigrateError::ChunkFails { chunk, reason }) => {
            assert_eq!(chunk, vec![0]);
            assert!(
                reason.contains("cast_value") && reason.contains("element 1"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    let kept =
        zarrs::storage::ReadableStorageTraits::get(&*store, &StoreKey::new("a/zarr.json").unwrap());
    assert_eq!(
        kept.unwrap().unwrap().to_vec(),
        json,
        "the metadata changed"
    );
}
