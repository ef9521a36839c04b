//! Reads a window of a float64 array over HTTP with `object_store` (asynchronous, through
//! `zarrs_object_store`); the same code reads from Amazon S3, Google Cloud Storage or Azure with
//! their `object_store` builders:
//!
//! ```sh
//! cargo run --release -p zarrs_scale_offset_cast_stores --example object_store -- URL ARRAY
//! ```

use std::sync::Arc;

use object_store::ClientOptions;
use object_store::http::HttpBuilder;
use zarrs::array::Array;
use zarrs_object_store::AsyncObjectStore;
use zarrs_scale_offset_cast::FusedReader;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(url), Some(path)) = (args.next(), args.next()) else {
        return Err("usage: object_store URL ARRAY".into());
    };
    let http = HttpBuilder::new()
        .with_url(&url)
        // Plain HTTP, for a server on this machine; leave it out for https:// URLs.
        .with_client_options(ClientOptions::new().with_allow_http(true))
        .build()?;
    let store = Arc::new(AsyncObjectStore::new(http));
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let array = Array::async_open(store, &format!("/{}", path.trim_matches('/'))).await?;
        let window: Vec<std::ops::Range<u64>> = array
            .shape()
            .iter()
            .map(|&n| (n / 2).saturating_sub(256)..(n / 2 + 256).min(n))
            .collect();
        // Shard indexes and inner chunks are fetched concurrently and decoded on rayon threads.
        let values: Vec<f64> = FusedReader::new(&array)
            .async_retrieve_array_subset(&window)
            .await?;
        let valid = values.iter().filter(|x| !x.is_nan()).count();
        println!(
            "{path} {window:?}: {} values, {} no-data",
            values.len(),
            values.len() - valid
        );
        Ok(())
    })
}
