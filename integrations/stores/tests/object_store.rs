//! The codecs through `object_store` (`zarrs_object_store`, asynchronous): the 44 interop
//! fixtures and the Sentinel-2-like group read from the local file system, and every fixture
//! written again into memory and onto the local file system, read back, its chunks compared byte
//! for byte with zarr-python's where no compressor is involved.
//!
//! With `ZARR_STORES_OUT=DIR`, the arrays written to the local file system are left in
//! `DIR/arrays/<id>/` for zarr-python to check (`verify_store.py DIR manifest.json`, see
//! `.ci/run`).

use std::path::Path;
use std::sync::Arc;

use object_store::ObjectStore;
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use zarrs::array::{Array, ArrayBytes, ArraySubset};
use zarrs::storage::AsyncReadableStorageTraits;
use zarrs_object_store::AsyncObjectStore;
use zarrs_scale_offset_cast_store_checks::fixtures::{
    check_sentinel2_async, compressed, data, interop, interop_cases, path, read_from_files,
    write_case,
};

async fn read_async<S: ?Sized + AsyncReadableStorageTraits + 'static>(
    store: &Arc<S>,
    node: &str,
) -> Vec<u8> {
    let array = Array::async_open(Arc::clone(store), node).await.unwrap();
    let whole = ArraySubset::new_with_shape(array.shape().to_vec());
    let bytes: ArrayBytes<'static> = array.async_retrieve_array_subset(&whole).await.unwrap();
    bytes.into_fixed().unwrap().into_owned()
}

fn store<T: ObjectStore>(object_store: T) -> Arc<AsyncObjectStore<T>> {
    Arc::new(AsyncObjectStore::new(object_store))
}

#[test]
fn fixtures_read_from_the_local_file_system_as_zarr_python_reads_them() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let fixtures = store(LocalFileSystem::new_with_prefix(interop()).unwrap());
        let cases = interop_cases();
        for case in &cases {
            let node = format!("/{}", path(case));
            assert!(
                read_async(&fixtures, &node).await == read_from_files(case),
                "{node}"
            );
        }
        let group = store(LocalFileSystem::new_with_prefix(data().join("sentinel2.zarr")).unwrap());
        let reads = check_sentinel2_async(&group).await;
        println!(
            "object_store, local file system: {} fixtures, {reads} Sentinel-2 reads",
            cases.len()
        );
        assert_eq!(cases.len(), 44);
    });
}

/// The files under `dir` but `zarr.json`, by relative path.
fn chunk_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let file = entry.unwrap().path();
            if file.is_dir() {
                pending.push(file);
            } else if file.file_name().unwrap() != "zarr.json" {
                let name = file
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.push((name, std::fs::read(&file).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn fixtures_written_through_object_store_read_back_and_match_zarr_pythons_chunks() {
    let kept = std::env::var_os("ZARR_STORES_OUT");
    let temporary = tempfile::tempdir().unwrap();
    let out = kept
        .as_deref()
        .map_or(temporary.path(), Path::new)
        .to_path_buf();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (mut compared, cases) = (0, interop_cases());
    runtime.block_on(async {
        for case in &cases {
            let expected = read_from_files(case);
            let memory = store(InMemory::new());
            write_case(Arc::clone(&memory), case).await.unwrap();
            assert!(
                read_async(&memory, "/").await == expected,
                "{} in memory",
                path(case)
            );
            let folder = out.join(path(case));
            std::fs::create_dir_all(&folder).unwrap();
            let local = store(LocalFileSystem::new_with_prefix(&folder).unwrap());
            write_case(Arc::clone(&local), case).await.unwrap();
            assert!(
                read_async(&local, "/").await == expected,
                "{} on disk",
                path(case)
            );
            if !compressed(case) {
                let theirs = chunk_files(&interop().join(path(case)));
                assert!(
                    chunk_files(&folder) == theirs,
                    "{}: chunk bytes",
                    path(case)
                );
                compared += 1;
            }
        }
    });
    println!(
        "object_store: {} fixtures written to memory and to disk, {compared} byte for byte",
        cases.len()
    );
    assert_eq!(cases.len(), 44);
}
