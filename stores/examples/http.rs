//! Reads a window of a float64 array over HTTP with `zarrs_http` (synchronous):
//!
//! ```sh
//! cargo run --release -p zarrs_scale_offset_cast_stores --example http -- URL ARRAY
//! ```
//!
//! URL is the Zarr hierarchy's root (ending in `/`), ARRAY the array's path in it. Only the shard
//! index and the inner chunks the window touches are fetched.

use std::sync::Arc;

use zarrs::array::Array;
use zarrs_http::HTTPStore;
use zarrs_scale_offset_cast::FusedReader;

#[expect(clippy::cast_precision_loss, reason = "a mean for display")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(url), Some(path)) = (args.next(), args.next()) else {
        return Err("usage: http URL ARRAY".into());
    };
    let store = Arc::new(HTTPStore::new(&url)?);
    let array = Array::open(store, &format!("/{}", path.trim_matches('/')))?;
    // A 512 x 512 window at the array's centre (or all of a smaller array).
    let window: Vec<std::ops::Range<u64>> = array
        .shape()
        .iter()
        .map(|&n| (n / 2).saturating_sub(256)..(n / 2 + 256).min(n))
        .collect();
    let values: Vec<f64> = FusedReader::new(&array).retrieve_array_subset(&window)?;
    let valid: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    let mean = valid.iter().sum::<f64>() / valid.len().max(1) as f64;
    println!(
        "{path} {window:?}: {} values, {} no-data, mean {mean:.4}",
        values.len(),
        values.len() - valid.len()
    );
    Ok(())
}
