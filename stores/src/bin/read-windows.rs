//! `read-windows URL ARRAY OUT REPEATS WINDOW...`: reads windows of the float64 array at path
//! `ARRAY` of the Zarr hierarchy served at `URL` by `serve`, each `REPEATS` times after one
//! warm-up read, into a reused buffer: through `zarrs_http` with zarrs' own read and with
//! `FusedReader` (also one keeping the shards' indexes from read to read,
//! `with_shard_index_cache`, whose warm-up read fetches them), and through `object_store`'s HTTP
//! client with zarrs' own asynchronous read and with `FusedReader`'s (both ways); through the
//! stores of `ranged`, which send no `HEAD` before a range (zarrs' read and `FusedReader`'s, sync,
//! also keeping indexes, and async); and, where the hierarchy holds `ARRAY_u16` (the same integers as a plain
//! uint16 array, laid out alike), zarrs' read of those integers: what the read costs without the
//! codecs. Prints a Markdown table row per window and read: the median time, and the
//! requests and KiB per read the server counted (`/.stats`). Every read of a window must agree
//! element by element; the first is written to `OUT.N` (N the window's position, little-endian
//! float64, C order) for zarr-python to compare (`zarr-python/read_windows.py`).
//!
//! A window is `R0:R1,C0:C1` (rows `R0..R1`, columns `C0..C1`).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use zarrs::array::{Array, ArraySubset};
use zarrs::storage::{AsyncReadableStorageTraits, ReadableStorageTraits};
use zarrs_http::HTTPStore;
use zarrs_scale_offset_cast::FusedReader;
use zarrs_scale_offset_cast_stores::fixtures::{http_client, http_object_store, same_values};
use zarrs_scale_offset_cast_stores::ranged::{RangedHttpStore, RangedObjectStore};

/// The server's counts of requests and bytes so far.
fn stats(url: &str) -> (usize, usize) {
    let authority = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("an http:// URL");
    let mut stream = TcpStream::connect(authority).expect("the server answers");
    write!(
        stream,
        "GET /.stats HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    let numbers: Vec<usize> = body
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .collect();
    match numbers.as_slice() {
        [requests, bytes] => (*requests, *bytes),
        _ => panic!("{url}.stats: unexpected answer {body:?}; is this the `serve` server?"),
    }
}

/// The median time of `repeats` reads after one warm-up, and the requests and KiB per read.
fn timed(url: &str, repeats: usize, mut read: impl FnMut()) -> (Duration, f64, f64) {
    read();
    let before = stats(url);
    let mut times: Vec<Duration> = (0..repeats)
        .map(|_| {
            let start = Instant::now();
            read();
            start.elapsed()
        })
        .collect();
    let after = stats(url);
    times.sort();
    #[expect(clippy::cast_precision_loss, reason = "counts")]
    let per_read = |a: usize, b: usize| (b - a) as f64 / repeats as f64;
    (
        times[times.len() / 2],
        per_read(before.0, after.0),
        per_read(before.1, after.1) / 1024.0,
    )
}

fn window(text: &str) -> ArraySubset {
    let ranges: Vec<std::ops::Range<u64>> = text
        .split(',')
        .map(|range| {
            let (start, end) = range.split_once(':').expect("a window: R0:R1,C0:C1");
            start.parse().expect("a row or column")..end.parse().expect("a row or column")
        })
        .collect();
    ArraySubset::new_with_ranges(&ranges)
}

/// A read of a window: into the vector (of the window's length), or as a new vector replacing it
/// where the read returns one.
type WindowRead<'a> = Box<dyn Fn(&ArraySubset, &mut Vec<f64>) + 'a>;

/// zarrs' own read (a new vector).
fn zarrs_read<S: ?Sized + ReadableStorageTraits + 'static>(array: &Array<S>) -> WindowRead<'_> {
    Box::new(move |subset, values| *values = array.retrieve_array_subset(subset).unwrap())
}

fn fused_read<S: ?Sized + ReadableStorageTraits + 'static>(
    reader: FusedReader<'_, S>,
) -> WindowRead<'_> {
    Box::new(move |subset, values| reader.retrieve_array_subset_into(subset, values).unwrap())
}

fn async_zarrs_read<'a, S: ?Sized + AsyncReadableStorageTraits + 'static>(
    runtime: &'a Runtime,
    array: &'a Array<S>,
) -> WindowRead<'a> {
    Box::new(move |subset, values| {
        *values = runtime
            .block_on(array.async_retrieve_array_subset(subset))
            .unwrap();
    })
}

fn async_fused_read<'a, S: ?Sized + AsyncReadableStorageTraits + 'static>(
    runtime: &'a Runtime,
    reader: FusedReader<'a, S>,
) -> WindowRead<'a> {
    Box::new(move |subset, values| {
        runtime
            .block_on(reader.async_retrieve_array_subset_into(subset, values))
            .unwrap();
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, path, out, repeats, windows @ ..] = args.as_slice() else {
        eprintln!("usage: read-windows URL ARRAY OUT REPEATS WINDOW...");
        std::process::exit(2);
    };
    let repeats: usize = repeats.parse().expect("REPEATS: a number");
    let node = format!("/{}", path.trim_matches('/'));
    let array = Array::open(Arc::new(HTTPStore::new(url).expect("an HTTP URL")), &node)
        .expect("a Zarr V3 array");
    let ranged = Array::open(Arc::new(RangedHttpStore::new(url)), &node).expect("a Zarr V3 array");
    let runtime = Runtime::new().unwrap();
    let async_array = runtime
        .block_on(Array::async_open(http_object_store(url), &node))
        .expect("a Zarr V3 array");
    let ranged_async = runtime
        .block_on(Array::async_open(
            Arc::new(RangedObjectStore::new(http_client(url))),
            &node,
        ))
        .expect("a Zarr V3 array");
    let reads: Vec<(&str, WindowRead<'_>)> = vec![
        ("zarrs (zarrs_http)", zarrs_read(&array)),
        (
            "FusedReader (zarrs_http)",
            fused_read(FusedReader::new(&array)),
        ),
        (
            "FusedReader, shard indexes kept (zarrs_http)",
            fused_read(FusedReader::new(&array).with_shard_index_cache()),
        ),
        (
            "zarrs async (object_store)",
            async_zarrs_read(&runtime, &async_array),
        ),
        (
            "FusedReader async (object_store)",
            async_fused_read(&runtime, FusedReader::new(&async_array)),
        ),
        (
            "FusedReader async, shard indexes kept (object_store)",
            async_fused_read(
                &runtime,
                FusedReader::new(&async_array).with_shard_index_cache(),
            ),
        ),
        ("zarrs, ranges without HEAD (ranged)", zarrs_read(&ranged)),
        (
            "FusedReader, ranges without HEAD (ranged)",
            fused_read(FusedReader::new(&ranged)),
        ),
        (
            "FusedReader, shard indexes kept, ranges without HEAD (ranged)",
            fused_read(FusedReader::new(&ranged).with_shard_index_cache()),
        ),
        (
            "FusedReader async, ranges without HEAD (ranged, object_store)",
            async_fused_read(&runtime, FusedReader::new(&ranged_async)),
        ),
    ];
    let raw = Array::open(
        Arc::new(HTTPStore::new(url).expect("an HTTP URL")),
        &format!("{node}_u16"),
    )
    .ok();
    println!("| window | read | median | requests per read | KiB per read |");
    println!("|---|---|---:|---:|---:|");
    for (n, text) in windows.iter().enumerate() {
        let subset = window(text);
        let elements = usize::try_from(subset.num_elements()).unwrap();
        let row = |name: &str, (time, requests, kib): (Duration, f64, f64)| {
            println!(
                "| {text} | {name} | {:.1} ms | {requests:.0} | {kib:.0} |",
                time.as_secs_f64() * 1e3
            );
        };
        let mut first: Option<Vec<f64>> = None;
        for (name, read) in &reads {
            let mut values = vec![0f64; elements];
            row(name, timed(url, repeats, || read(&subset, &mut values)));
            match &first {
                None => first = Some(values),
                Some(first) => assert!(same_values(first, &values), "{text}: {name} differs"),
            }
        }
        if let Some(raw) = &raw {
            row(
                "zarrs, the plain uint16 integers (zarrs_http)",
                timed(url, repeats, || {
                    let integers: Vec<u16> = raw.retrieve_array_subset(&subset).unwrap();
                    std::hint::black_box(integers);
                }),
            );
        }
        let first = first.expect("at least one read");
        let bytes: Vec<u8> = first.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(format!("{out}.{n}"), bytes).unwrap();
    }
}
