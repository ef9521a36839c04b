//! Reads a window of a float64 array over HTTP (asynchronously) with `RangedObjectStore` over
//! `object_store`'s HTTP client; the same code reads from Amazon S3, Google Cloud Storage or
//! Azure with their `object_store` builders:
//!
//! ```sh
//! cargo run --release -p zarrs_scale_offset_cast_stores --features object_store --example object_store -- URL ARRAY
//! ```

use std::process::ExitCode;
use std::sync::Arc;

use object_store::ClientOptions;
use object_store::http::HttpBuilder;
use zarrs::array::Array;
use zarrs_scale_offset_cast::FusedReader;
use zarrs_scale_offset_cast_stores::RangedObjectStore;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(url), Some(path)) = (args.next(), args.next()) else {
        eprintln!("usage: object_store URL ARRAY");
        return ExitCode::from(2);
    };
    let read = async || -> Result<String, Box<dyn std::error::Error>> {
        let http = HttpBuilder::new()
            .with_url(&url)
            // Plain HTTP, for a server on this machine; leave it out for https:// URLs.
            .with_client_options(ClientOptions::new().with_allow_http(true))
            .build()?;
        let store = Arc::new(RangedObjectStore::new(http));
        let array = Array::async_open(store, &format!("/{}", path.trim_matches('/'))).await?;
        let window = centre(array.shape());
        // Shard indexes and inner chunks are fetched concurrently and decoded on rayon threads.
        let reader = FusedReader::new(&array);
        let values: Vec<f64> = reader.async_retrieve_array_subset(&window).await?;
        Ok(summary(&path, &window, &values))
    };
    let runtime = tokio::runtime::Runtime::new().expect("a Tokio runtime");
    match runtime.block_on(read()) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("object_store: {url} {path}: {error}");
            ExitCode::FAILURE
        }
    }
}

/// A 512 x 512 window at the centre of an array of `shape` (all of a smaller array).
fn centre(shape: &[u64]) -> Vec<std::ops::Range<u64>> {
    shape
        .iter()
        .map(|&n| (n / 2).saturating_sub(256)..(n / 2 + 256).min(n))
        .collect()
}

/// What a read of `window` of the array at `path` gave: its values, those without data (NaN),
/// and the mean of the others.
#[expect(clippy::cast_precision_loss, reason = "a mean for display")]
fn summary(path: &str, window: &[std::ops::Range<u64>], values: &[f64]) -> String {
    let valid: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    let mean = valid.iter().sum::<f64>() / valid.len().max(1) as f64;
    let no_data = values.len() - valid.len();
    format!(
        "{path} {window:?}: {} values, {no_data} without data, mean {mean:.4}",
        values.len()
    )
}
