//! A zarrs application with an optional cargo feature, `scale-offset-cast`, that makes it read
//! arrays written with the `scale_offset` and `cast_value` codecs.
//!
//! `feature_app PATH` prints the values of the float64 array at PATH, one per line. Built without
//! the feature, it fails on such arrays with zarrs' own error ("codec scale_offset is not
//! supported"); built with it (`--features scale-offset-cast`), it reads them.

use std::process::ExitCode;
use std::sync::Arc;

// With the feature, name the crate so that the linker keeps its codec registrations. (Calling
// `zarrs_scale_offset_cast::register()` at start-up does the same, and registers them first.)
#[cfg(feature = "scale-offset-cast")]
use zarrs_scale_offset_cast as _;

use zarrs::array::{Array, ArraySubset};
use zarrs::filesystem::FilesystemStore;

fn read(path: &str) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let array = Array::open(Arc::new(FilesystemStore::new(path)?), "/")?;
    let all = ArraySubset::new_with_shape(array.shape().to_vec());
    Ok(array.retrieve_array_subset(&all)?)
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: feature_app PATH");
        return ExitCode::from(2);
    };
    match read(&path) {
        Ok(values) => {
            for value in values {
                println!("{value:?}");
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("feature_app: {error}");
            ExitCode::FAILURE
        }
    }
}
