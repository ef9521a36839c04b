//! Reads a window of a float64 array over HTTP (synchronously) with `RangedHttpStore`:
//!
//! ```sh
//! cargo run --release -p zarrs_scale_offset_cast_stores --example http -- URL ARRAY
//! ```
//!
//! URL is the Zarr hierarchy's root, ARRAY the array's path in it. A 512 x 512 window at the
//! array's centre costs two rounds of requests (the shard's index, then the inner chunks the
//! window touches, all at once), each range asked for as it is.

use std::process::ExitCode;
use std::sync::Arc;

use zarrs::array::Array;
use zarrs_scale_offset_cast::FusedReader;
use zarrs_scale_offset_cast_stores::RangedHttpStore;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(url), Some(path)) = (args.next(), args.next()) else {
        eprintln!("usage: http URL ARRAY");
        return ExitCode::from(2);
    };
    let read = || -> Result<String, Box<dyn std::error::Error>> {
        let store = Arc::new(RangedHttpStore::new(&url));
        let array = Array::open(store, &format!("/{}", path.trim_matches('/')))?;
        let window = centre(array.shape());
        let values: Vec<f64> = FusedReader::new(&array).retrieve_array_subset(&window)?;
        Ok(summary(&path, &window, &values))
    };
    match read() {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("http: {url} {path}: {error}");
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
