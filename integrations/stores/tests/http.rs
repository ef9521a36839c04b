//! Arrays served over HTTP by a local server (loopback only): the Sentinel-2-like group
//! zarr-python wrote (sharded, Blosc zstd, edge chunks) and the 44 interop fixtures, read through
//! `zarrs_http` and through `object_store`'s HTTP client (`zarrs_object_store`, asynchronous), and
//! through the stores of `ranged` (no `HEAD` before a range): every element as zarr-python reads
//! it, and as zarrs reads the same files from the file system.

use std::sync::Arc;

use zarrs::array::{Array, ArrayBytes, ArraySubset};
use zarrs_http::HTTPStore;
use zarrs_scale_offset_cast_store_checks::fixtures::{
    check_sentinel2, check_sentinel2_async, data, http_client, http_object_store, interop,
    interop_cases, path, read_from_files, read_whole,
};
use zarrs_scale_offset_cast_store_checks::server::Server;
use zarrs_scale_offset_cast_stores::{RangedHttpStore, RangedObjectStore};

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

#[test]
fn stores_that_send_ranges_without_head_read_the_same_with_fewer_requests() {
    let server = Server::start(data().join("sentinel2.zarr")).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let requests = |read: &dyn Fn() -> usize| {
        let before = server.requests();
        let reads = read();
        (reads, server.requests() - before)
    };
    let url = server.url();
    let (reads, adapter) = requests(&|| check_sentinel2(&Arc::new(HTTPStore::new(&url).unwrap())));
    let (ranged_reads, ranged) =
        requests(&|| check_sentinel2(&Arc::new(RangedHttpStore::new(&url))));
    let (async_reads, async_adapter) =
        requests(&|| runtime.block_on(check_sentinel2_async(&http_object_store(&url))));
    let (async_ranged_reads, async_ranged) = requests(&|| {
        let store = Arc::new(RangedObjectStore::new(http_client(&url)));
        runtime.block_on(check_sentinel2_async(&store))
    });
    println!(
        "{reads} reads: {adapter} requests through zarrs_http, {ranged} through RangedHttpStore; \
         {async_reads} async: {async_adapter} through zarrs_object_store, {async_ranged} through \
         RangedObjectStore"
    );
    assert_eq!((ranged_reads, async_ranged_reads), (reads, async_reads));
    assert!(ranged < adapter && async_ranged < async_adapter);
}

#[test]
fn stores_that_send_ranges_without_head_answer_missing_keys_and_ranges_as_a_store_expects() {
    use zarrs::storage::byte_range::ByteRange;
    use zarrs::storage::{AsyncReadableStorageTraits, ReadableStorageTraits, StoreKey};
    let server = Server::start(data()).unwrap();
    let sync_store = RangedHttpStore::new(&server.url());
    let async_store = RangedObjectStore::new(http_client(&server.url()));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (missing, key) = (
        StoreKey::new("nothing/here").unwrap(),
        StoreKey::new("sentinel2.json").unwrap(),
    );
    let whole = sync_store.get(&key).unwrap().unwrap();
    let size = whole.len() as u64;
    let ranges = [
        ByteRange::FromStart(3, Some(5)),
        ByteRange::Suffix(4),
        ByteRange::FromStart(size - 2, None),
        ByteRange::FromStart(7, Some(0)),
        ByteRange::Suffix(size),
    ];
    let expected = [
        &whole[3..8],
        &whole[whole.len() - 4..],
        &whole[whole.len() - 2..],
        &[][..],
        &whole[..],
    ];
    let beyond = [
        ByteRange::FromStart(size - 1, Some(2)),
        ByteRange::Suffix(size + 1),
    ];

    assert!(sync_store.get(&missing).unwrap().is_none());
    assert_eq!(sync_store.size_key(&key).unwrap(), Some(size));
    assert_eq!(sync_store.size_key(&missing).unwrap(), None);
    let parts = sync_store
        .get_partial_many(&key, Box::new(ranges.into_iter()))
        .unwrap()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert!(parts.iter().map(|part| &part[..]).eq(expected));
    assert!(
        sync_store
            .get_partial_many(&missing, Box::new(ranges.into_iter()))
            .unwrap()
            .is_none()
    );
    for range in beyond {
        let err = sync_store.get_partial(&key, range).unwrap_err().to_string();
        assert!(err.contains("lies beyond the object"), "{range}: {err}");
    }

    runtime.block_on(async {
        assert_eq!(async_store.get(&key).await.unwrap().unwrap(), whole);
        assert!(async_store.get(&missing).await.unwrap().is_none());
        assert_eq!(async_store.size_key(&key).await.unwrap(), Some(size));
        assert_eq!(async_store.size_key(&missing).await.unwrap(), None);
        for (range, expected) in ranges.into_iter().zip(expected) {
            let part = async_store.get_partial(&key, range).await.unwrap().unwrap();
            assert_eq!(&part[..], expected, "{range}");
        }
        assert!(
            async_store
                .get_partial(&missing, ranges[0])
                .await
                .unwrap()
                .is_none()
        );
        for range in beyond {
            let err = async_store.get_partial(&key, range).await.unwrap_err();
            let err = err.to_string();
            assert!(err.contains("lies beyond the object"), "{range}: {err}");
        }
    });
}

/// A server that answers every request with `status`, `headers` and `body`, for as long as the
/// test runs; its URL.
fn answering(status: &'static str, headers: &'static str, body: &'static [u8]) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap() > 2 {
                line.clear();
            }
            let head = format!(
                "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes()).unwrap();
            stream.write_all(body).unwrap();
        }
    });
    url
}

#[test]
fn a_server_that_answers_other_bytes_than_those_asked_for_is_an_error_or_understood() {
    use zarrs::storage::byte_range::ByteRange;
    use zarrs::storage::{ReadableStorageTraits, StoreKey};
    let key = StoreKey::new("c/0").unwrap();
    // The first 4 bytes, for the last 4 (as some servers answer a range from the end).
    let store = RangedHttpStore::new(&answering(
        "206 Partial Content",
        "Content-Range: bytes 0-3/10\r\n",
        b"0123",
    ));
    let err = store.get_partial(&key, ByteRange::Suffix(4)).unwrap_err();
    assert!(err.to_string().contains("holds 4 bytes of 0..4"), "{err}");
    assert_eq!(
        &store
            .get_partial(&key, ByteRange::FromStart(0, Some(4)))
            .unwrap()
            .unwrap()[..],
        b"0123"
    );
    // A partial answer that does not say which bytes it holds.
    let store = RangedHttpStore::new(&answering("206 Partial Content", "", b"6789"));
    let err = store.get_partial(&key, ByteRange::Suffix(4)).unwrap_err();
    assert!(err.to_string().contains("without a Content-Range"), "{err}");
    // The whole object, from a server that does not serve ranges.
    let store = RangedHttpStore::new(&answering("200 OK", "", b"0123456789"));
    let parts = store
        .get_partial_many(
            &key,
            Box::new([ByteRange::Suffix(4), ByteRange::FromStart(2, Some(3))].into_iter()),
        )
        .unwrap()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!((&parts[0][..], &parts[1][..]), (&b"6789"[..], &b"234"[..]));
}
