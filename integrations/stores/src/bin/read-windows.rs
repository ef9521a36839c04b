//! `read-windows URL ARRAY OUT REPEATS READ...`: reads parts of the float64 array at path `ARRAY`
//! of the Zarr hierarchy served at `URL` by `serve`, each `REPEATS` times after one warm-up,
//! through zarrs' own reads and `FusedReader`, over `zarrs_http` and `object_store` (which send a
//! `HEAD` before each range) and over the ranged stores of `zarrs_scale_offset_cast_stores`
//! (which do not), synchronously and asynchronously. A READ is a window, `R0:R1,C0:C1` (rows
//! `R0..R1`, columns `C0..C1`), or map tiles read one after the other, `tiles:N:SIZE:SEED` (`N`
//! tiles of `SIZE`² at random positions on a grid of `SIZE`, the same as
//! `zarr-python/read_windows.py` draws). Readers are new for each window or tile, keep shard
//! indexes for one read (all its tiles), or keep them from read to read.
//!
//! Prints a Markdown table row per read and reader: the median time per window or tile, and the
//! requests and KiB per window or tile the server counted (`/.stats`). Every reader must read the
//! same values; the first reader's are written to `OUT.N` (N the read's position; the tiles one
//! after the other; little-endian float64, C order) for zarr-python to compare.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use zarrs::array::{Array, ArraySubset};
use zarrs::storage::{AsyncReadableStorageTraits, ReadableStorageTraits};
use zarrs_http::HTTPStore;
use zarrs_scale_offset_cast::FusedReader;
use zarrs_scale_offset_cast_store_checks::fixtures::{http_client, http_object_store, same_values};
use zarrs_scale_offset_cast_stores::{RangedHttpStore, RangedObjectStore};

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
        .filter_map(|w| w.parse().ok())
        .collect();
    match numbers.as_slice() {
        [requests, bytes] => (*requests, *bytes),
        _ => panic!("{url}.stats: unexpected answer {body:?}; is this the `serve` server?"),
    }
}

/// A read: the subsets read one after the other.
struct Parts {
    text: String,
    subsets: Vec<ArraySubset>,
}

/// The parts `text` names of an array of `shape`.
fn parts(text: &str, shape: &[u64]) -> Parts {
    let subsets = if let Some(tiles) = text.strip_prefix("tiles:") {
        let numbers: Vec<u64> = tiles
            .split(':')
            .map(|n| n.parse().expect("tiles:N:SIZE:SEED"))
            .collect();
        let [n, size, mut state] = numbers[..] else {
            panic!("tiles:N:SIZE:SEED")
        };
        let mut next = |extent: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % (extent / size) * size
        };
        (0..n)
            .map(|_| {
                let (row, column) = (next(shape[0]), next(shape[1]));
                ArraySubset::new_with_ranges(&[row..row + size, column..column + size])
            })
            .collect()
    } else {
        let ranges: Vec<std::ops::Range<u64>> = text
            .split(',')
            .map(|range| {
                let (start, end) = range.split_once(':').expect("a window: R0:R1,C0:C1");
                start.parse().expect("a row or column")..end.parse().expect("a row or column")
            })
            .collect();
        vec![ArraySubset::new_with_ranges(&ranges)]
    };
    Parts {
        text: text.to_string(),
        subsets,
    }
}

/// How long a reader keeps shard indexes.
#[derive(Clone, Copy, PartialEq)]
enum Keep {
    /// A new reader for each window or tile.
    Not,
    /// One reader for a read's tiles.
    Read,
    /// One reader for a read's tiles, which fetches the indexes of every shard first.
    Fetched,
    /// One reader from read to read.
    Always,
}

/// A read of parts: their values one after the other, in a vector (which `FusedReader`'s reads
/// reuse from read to read, as an application paging through an array does; zarrs' reads return
/// new vectors).
type Reads<'a> = Box<dyn Fn(&[ArraySubset], &mut Vec<f64>) + 'a>;

/// The parts of `values`, a vector as long as `subsets` have elements, for each of them.
fn pieces<'v>(subsets: &[ArraySubset], values: &'v mut Vec<f64>) -> Vec<&'v mut [f64]> {
    let lens = subsets
        .iter()
        .map(|s| usize::try_from(s.num_elements()).unwrap());
    values.resize(lens.clone().sum(), 0.0);
    let mut rest = values.as_mut_slice();
    lens.map(|len| {
        let (piece, tail) = std::mem::take(&mut rest).split_at_mut(len);
        rest = tail;
        piece
    })
    .collect()
}

fn zarrs_read<S: ?Sized + ReadableStorageTraits + 'static>(array: &Array<S>) -> Reads<'_> {
    Box::new(move |subsets, values| {
        values.clear();
        for subset in subsets {
            values.extend(array.retrieve_array_subset::<Vec<f64>>(subset).unwrap());
        }
    })
}

fn fused_read<S: ?Sized + ReadableStorageTraits + 'static>(
    array: &Array<S>,
    keep: Keep,
) -> Reads<'_> {
    let kept = FusedReader::new(array).with_shard_index_cache();
    Box::new(move |subsets, values| {
        let per_read = FusedReader::new(array).with_shard_index_cache();
        if keep == Keep::Fetched {
            per_read.fetch_shard_indexes(&array.subset_all()).unwrap();
        }
        for (subset, piece) in subsets.iter().zip(pieces(subsets, values)) {
            let new = FusedReader::new(array);
            let reader = match keep {
                Keep::Not => &new,
                Keep::Read | Keep::Fetched => &per_read,
                Keep::Always => &kept,
            };
            reader.retrieve_array_subset_into(subset, piece).unwrap();
        }
    })
}

fn async_zarrs_read<'a, S: ?Sized + AsyncReadableStorageTraits + 'static>(
    runtime: &'a Runtime,
    array: &'a Array<S>,
) -> Reads<'a> {
    Box::new(move |subsets, values| {
        values.clear();
        for subset in subsets {
            values.extend(
                runtime
                    .block_on(array.async_retrieve_array_subset::<Vec<f64>>(subset))
                    .unwrap(),
            );
        }
    })
}

fn async_fused_read<'a, S: ?Sized + AsyncReadableStorageTraits + 'static>(
    runtime: &'a Runtime,
    array: &'a Array<S>,
    keep: Keep,
) -> Reads<'a> {
    let kept = FusedReader::new(array).with_shard_index_cache();
    Box::new(move |subsets, values| {
        let per_read = FusedReader::new(array).with_shard_index_cache();
        if keep == Keep::Fetched {
            let all = array.subset_all();
            runtime
                .block_on(per_read.async_fetch_shard_indexes(&all))
                .unwrap();
        }
        for (subset, piece) in subsets.iter().zip(pieces(subsets, values)) {
            let new = FusedReader::new(array);
            let reader = match keep {
                Keep::Not => &new,
                Keep::Read | Keep::Fetched => &per_read,
                Keep::Always => &kept,
            };
            let read = reader.async_retrieve_array_subset_into(subset, piece);
            runtime.block_on(read).unwrap();
        }
    })
}

/// The median time of `repeats` reads of `parts` through `read` after one warm-up, in
/// milliseconds per part, the requests and KiB per part the server at `url` counted, and the
/// values read.
fn timed(
    url: &str,
    repeats: usize,
    parts: &[ArraySubset],
    read: &Reads<'_>,
) -> (f64, f64, f64, Vec<f64>) {
    let mut values = Vec::new();
    read(parts, &mut values);
    let before = stats(url);
    let mut times: Vec<Duration> = (0..repeats)
        .map(|_| {
            let start = Instant::now();
            read(parts, &mut values);
            start.elapsed()
        })
        .collect();
    let after = stats(url);
    times.sort();
    let (reads, count) = (
        u32::try_from(repeats * parts.len()).unwrap(),
        u32::try_from(parts.len()).unwrap(),
    );
    let each = |a: usize, b: usize| f64::from(u32::try_from(b - a).unwrap()) / f64::from(reads);
    let ms = times[times.len() / 2].as_secs_f64() * 1e3 / f64::from(count);
    (
        ms,
        each(before.0, after.0),
        each(before.1, after.1) / 1024.0,
        values,
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, path, out, repeats, reads @ ..] = args.as_slice() else {
        eprintln!("usage: read-windows URL ARRAY OUT REPEATS READ...");
        std::process::exit(2);
    };
    let repeats: usize = repeats.parse().expect("REPEATS: a number");
    let node = format!("/{}", path.trim_matches('/'));
    let http = Array::open(Arc::new(HTTPStore::new(url).expect("an HTTP URL")), &node)
        .expect("a Zarr V3 array");
    let ranged = Array::open(Arc::new(RangedHttpStore::new(url)), &node).expect("a Zarr V3 array");
    let runtime = Runtime::new().unwrap();
    let objects = runtime
        .block_on(Array::async_open(http_object_store(url), &node))
        .expect("a Zarr V3 array");
    let ranged_objects = Arc::new(RangedObjectStore::new(http_client(url)));
    let ranged_async = runtime
        .block_on(Array::async_open(ranged_objects, &node))
        .expect("a Zarr V3 array");
    let rows: Vec<(&str, bool, Reads<'_>)> = vec![
        ("zarrs (zarrs_http)", true, zarrs_read(&http)),
        (
            "FusedReader (zarrs_http)",
            true,
            fused_read(&http, Keep::Not),
        ),
        ("zarrs (ranged)", true, zarrs_read(&ranged)),
        ("FusedReader (ranged)", true, fused_read(&ranged, Keep::Not)),
        (
            "FusedReader, indexes kept for the read's tiles (ranged)",
            false,
            fused_read(&ranged, Keep::Read),
        ),
        (
            "FusedReader, every shard's index fetched first for the read's tiles (ranged)",
            false,
            fused_read(&ranged, Keep::Fetched),
        ),
        (
            "FusedReader, indexes kept from read to read (ranged)",
            true,
            fused_read(&ranged, Keep::Always),
        ),
        (
            "zarrs async (object_store)",
            true,
            async_zarrs_read(&runtime, &objects),
        ),
        (
            "FusedReader async (ranged object_store)",
            true,
            async_fused_read(&runtime, &ranged_async, Keep::Not),
        ),
        (
            "FusedReader async, indexes kept for the read's tiles (ranged object_store)",
            false,
            async_fused_read(&runtime, &ranged_async, Keep::Read),
        ),
        (
            "FusedReader async, every shard's index fetched first for the read's tiles (ranged object_store)",
            false,
            async_fused_read(&runtime, &ranged_async, Keep::Fetched),
        ),
        (
            "FusedReader async, indexes kept from read to read (ranged object_store)",
            true,
            async_fused_read(&runtime, &ranged_async, Keep::Always),
        ),
    ];
    println!("| read | reader | median per window or tile | requests | KiB |");
    println!("|---|---|---:|---:|---:|");
    for (n, text) in reads.iter().enumerate() {
        let parts = parts(text, http.shape());
        let count = parts.subsets.len();
        let mut first: Option<Vec<f64>> = None;
        for (name, for_windows, read) in &rows {
            if count == 1 && !for_windows {
                continue;
            }
            let (ms, requests, kib, values) = timed(url, repeats, &parts.subsets, read);
            println!(
                "| {} | {name} | {ms:.1} ms | {requests:.1} | {kib:.0} |",
                parts.text
            );
            match &first {
                None => first = Some(values),
                Some(first) => assert!(same_values(first, &values), "{text}: {name} differs"),
            }
        }
        let bytes: Vec<u8> = first
            .expect("a reader")
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        std::fs::write(format!("{out}.{n}"), bytes).unwrap();
    }
}
