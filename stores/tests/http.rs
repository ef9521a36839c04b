//! Arrays served over HTTP by a local server (loopback only): the Sentinel-2-like group
//! zarr-python wrote (sharded, Blosc zstd, edge chunks) and the 44 interop fixtures, read through
//! `zarrs_http` and through `object_store`'s HTTP client (`zarrs_object_store`, asynchronous): every
//! element as zarr-python reads it, and as zarrs reads the same files from the file system.

use std::sync::Arc;

use zarrs::array::{Array, ArrayBytes, ArraySubset};
use zarrs_http::HTTPStore;
use zarrs_scale_offset_cast_stores::fixtures::{
    check_sentinel2, check_sentinel2_async, data, http_object_store, interop, interop_cases, path,
    read_from_files, read_whole,
};
use zarrs_scale_offset_cast_stores::server::Server;

#[test]
fn the_sentinel2_group_reads_over_http_as_zarr_python_reads_it() {
    let server = Server::start(data().join("sentinel2.zarr")).unwrap();
    let store = Arc::new(HTTPStore::new(&server.url()).unwrap());
    let reads = check_sentinel2(&store);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let async_reads =
        runtime.block_on(async { check_sentinel2_async(&http_object_store(&server.url())).await });
    println!(
        "HTTP: {reads} reads through zarrs_http, {async_reads} through object_store ({} requests)",
        server.requests()
    );
}

#[test]
fn every_interop_fixture_reads_over_http_as_from_the_file_system() {
    let server = Server::start(interop()).unwrap();
    let sync_store = Arc::new(HTTPStore::new(&server.url()).unwrap());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let async_store = http_object_store(&server.url());
    let cases = interop_cases();
    for case in &cases {
        let expected = read_from_files(case);
        let node = format!("/{}", path(case));
        let array = Array::open(Arc::clone(&sync_store), &node).unwrap();
        assert!(read_whole(&array) == expected, "{node} through zarrs_http");
        let read = runtime.block_on(async {
            let array = Array::async_open(Arc::clone(&async_store), &node)
                .await
                .unwrap();
            let whole = ArraySubset::new_with_shape(array.shape().to_vec());
            let bytes: ArrayBytes<'static> =
                array.async_retrieve_array_subset(&whole).await.unwrap();
            bytes.into_fixed().unwrap().into_owned()
        });
        assert!(read == expected, "{node} through object_store");
    }
    println!(
        "HTTP: {} interop fixtures, both clients ({} requests)",
        cases.len(),
        server.requests()
    );
    assert_eq!(cases.len(), 44);
}

#[test]
fn missing_keys_and_ranges_are_answered_as_a_store_expects() {
    use zarrs::storage::byte_range::ByteRange;
    use zarrs::storage::{ReadableStorageTraits, StoreKey};
    let server = Server::start(data()).unwrap();
    let store = HTTPStore::new(&server.url()).unwrap();
    assert!(
        store
            .get(&StoreKey::new("nothing/here").unwrap())
            .unwrap()
            .is_none()
    );
    let key = StoreKey::new("sentinel2.json").unwrap();
    let whole = store.get(&key).unwrap().unwrap();
    let size = whole.len() as u64;
    assert_eq!(store.size_key(&key).unwrap(), Some(size));
    let parts = store
        .get_partial_many(
            &key,
            Box::new([ByteRange::FromStart(3, Some(5)), ByteRange::Suffix(4)].into_iter()),
        )
        .unwrap()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(&parts[0][..], &whole[3..8]);
    assert_eq!(&parts[1][..], &whole[whole.len() - 4..]);
    let mut one = HTTPStore::new(&server.url()).unwrap();
    one.set_batch_range_requests(false);
    let part = one
        .get_partial_many(&key, Box::new([ByteRange::Suffix(4)].into_iter()))
        .unwrap()
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(&part[..], &whole[whole.len() - 4..]);
}
