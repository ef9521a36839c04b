//! `read-http URL ARRAY OUT [REPEATS]`: reads the float64 array at path `ARRAY` of the Zarr
//! hierarchy served at `URL` whole, `REPEATS` times (default 5) after one warm-up read, through
//! `zarrs_http` with zarrs' own read and with `FusedReader`, and through `object_store`'s HTTP
//! client (asynchronous); prints the median time of each, checks that all agree element by element,
//! and writes the values to `OUT` (little-endian float64, C order) for zarr-python to compare.

use std::sync::Arc;
use std::time::{Duration, Instant};

use zarrs::array::{Array, ArraySubset};
use zarrs_http::HTTPStore;
use zarrs_scale_offset_cast::FusedReader;
use zarrs_scale_offset_cast_store_checks::fixtures::{http_object_store, same_values};

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn timed(repeats: usize, mut read: impl FnMut() -> Vec<f64>) -> (Duration, Vec<f64>) {
    let values = read();
    let times = (0..repeats)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(read());
            start.elapsed()
        })
        .collect();
    (median(times), values)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, path, out, rest @ ..] = args.as_slice() else {
        eprintln!("usage: read-http URL ARRAY OUT [REPEATS]");
        std::process::exit(2);
    };
    let repeats: usize = rest
        .first()
        .map_or(5, |r| r.parse().expect("REPEATS: a number"));
    let node = format!("/{}", path.trim_matches('/'));

    let store = Arc::new(HTTPStore::new(url).expect("an HTTP URL"));
    let array = Array::open(store, &node).expect("a Zarr V3 array");
    let whole = ArraySubset::new_with_shape(array.shape().to_vec());
    let (zarrs, values) = timed(repeats, || array.retrieve_array_subset(&whole).unwrap());
    let reader = FusedReader::new(&array);
    let (fused, fused_values) = timed(repeats, || reader.retrieve_array_subset(&whole).unwrap());

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let async_store = http_object_store(url);
    let async_array = runtime
        .block_on(Array::async_open(async_store, &node))
        .expect("a Zarr V3 array");
    let async_reader = FusedReader::new(&async_array);
    let (asynchronous, async_values) = timed(repeats, || {
        runtime
            .block_on(async_reader.async_retrieve_array_subset(&whole))
            .unwrap()
    });

    assert!(
        same_values(&values, &fused_values),
        "FusedReader differs from zarrs"
    );
    assert!(
        same_values(&values, &async_values),
        "object_store differs from zarrs_http"
    );
    let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(out, bytes).unwrap();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{node}: {} elements; zarrs_http {:.1} ms, FusedReader over zarrs_http {:.1} ms, FusedReader over object_store (async) {:.1} ms",
        values.len(),
        ms(zarrs),
        ms(fused),
        ms(asynchronous)
    );
    println!("fastest_ms {:.3}", ms(zarrs.min(fused).min(asynchronous)));
}
