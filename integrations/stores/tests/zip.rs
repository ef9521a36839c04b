//! The Sentinel-2-like group in the zip archive zarr-python wrote (`tests/data/sentinel2.zip`),
//! read through `zarrs_zip` from the file system and over HTTP, synchronously and
//! asynchronously: every element as zarr-python reads it.

use std::sync::Arc;

use zarrs::filesystem::FilesystemStore;
use zarrs::storage::StoreKey;
use zarrs_http::HTTPStore;
use zarrs_scale_offset_cast_store_checks::fixtures::{
    check_sentinel2, check_sentinel2_async, data, http_object_store,
};
use zarrs_scale_offset_cast_store_checks::server::Server;
use zarrs_zip::ZipStorageAdapter;

fn key() -> StoreKey {
    StoreKey::new("sentinel2.zip").unwrap()
}

#[test]
fn the_zip_archive_reads_as_zarr_python_reads_it_from_a_file_and_over_http() {
    let files = Arc::new(FilesystemStore::new(data()).unwrap());
    let zip = Arc::new(ZipStorageAdapter::new(files, key()).unwrap());
    let reads = check_sentinel2(&zip);

    let server = Server::start(data()).unwrap();
    let http = Arc::new(HTTPStore::new(&server.url()).unwrap());
    let zip = Arc::new(ZipStorageAdapter::new(http, key()).unwrap());
    let http_reads = check_sentinel2(&zip);
    println!(
        "zip archive: {reads} reads from a file, {http_reads} over HTTP ({} requests)",
        server.requests()
    );
}

#[test]
fn the_zip_archive_reads_asynchronously_over_http_through_object_store() {
    let server = Server::start(data()).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let reads = runtime.block_on(async {
        let store = http_object_store(&server.url());
        let zip = Arc::new(ZipStorageAdapter::new_async(store, key()).await.unwrap());
        check_sentinel2_async(&zip).await
    });
    println!(
        "zip archive: {reads} asynchronous reads over HTTP ({} requests)",
        server.requests()
    );
}
