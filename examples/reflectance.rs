//! Stores float64 surface reflectances as uint16, the way Sentinel-2 products do, and reads them
//! back.
//!
//! `scale_offset` maps a reflectance `r` to `(r + 0.1) * 10000` (offset -0.1, scale 10000) and
//! `cast_value` rounds that to uint16, mapping NaN (no data) to 0 and back. The array goes to a
//! filesystem store, is reopened by path and read with the fused read path, and the example prints
//! where it is, its stored size and the largest error against the input.
//!
//! Run with `cargo run --release --example reflectance [PATH]` (default: a folder in the temporary
//! directory).

use std::path::PathBuf;
use std::sync::Arc;

use zarrs::array::codec::ZstdCodec;
use zarrs::array::{Array, ArrayBuilder, ArraySubset, data_type};
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast::{
    CastValueCodec, CastValueOutOfRangeMode, FusedReader, ScaleOffsetCodec,
};

const SIZE: u64 = 2048;
const CHUNK: u64 = 512;

/// A smooth synthetic scene in [0, 0.8] with two cloud holes of NaN.
#[expect(clippy::cast_precision_loss, reason = "pixel coordinates below 2^12")]
fn scene() -> Vec<f64> {
    let size = SIZE as f64;
    (0..SIZE * SIZE)
        .map(|i| {
            let (y, x) = ((i / SIZE) as f64 / size, (i % SIZE) as f64 / size);
            let cloud = |cx: f64, cy: f64, r: f64| (x - cx).powi(2) + (y - cy).powi(2) < r * r;
            if cloud(0.3, 0.6, 0.08) || cloud(0.75, 0.2, 0.05) {
                f64::NAN
            } else {
                0.4 + 0.25 * (9.0 * x).sin() * (7.0 * y).cos() + 0.15 * (31.0 * x * y).sin()
            }
        })
        .collect()
}

fn stored_bytes(path: &std::path::Path) -> std::io::Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        let metadata = entry.metadata()?;
        total += if metadata.is_dir() {
            stored_bytes(&entry.path())?
        } else {
            metadata.len()
        };
    }
    Ok(total)
}

#[expect(clippy::cast_precision_loss, reason = "a percentage for display")]
fn percent(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).map_or_else(
        || std::env::temp_dir().join("zarrs_scale_offset_cast_reflectance.zarr"),
        PathBuf::from,
    );
    if path.exists() {
        std::fs::remove_dir_all(&path)?;
    }

    // The array as a Sentinel-2 reflectance band might declare it: float64 values stored as
    // uint16 steps of 1e-4 from -0.1, no data (NaN) as 0, compressed with zstd.
    let store = Arc::new(FilesystemStore::new(&path)?);
    let array = ArrayBuilder::new(
        vec![SIZE, SIZE],
        vec![CHUNK, CHUNK],
        data_type::float64(),
        f64::NAN,
    )
    .array_to_array_codecs(vec![
        Arc::new(ScaleOffsetCodec::new(-0.1, 10000)?),
        Arc::new(
            CastValueCodec::builder(data_type::uint16())
                .out_of_range(CastValueOutOfRangeMode::Clamp)
                .map(f64::NAN, 0u16)
                .build()?,
        ),
    ])
    .bytes_to_bytes_codecs(vec![Arc::new(ZstdCodec::new(5, false))])
    .dimension_names(["y", "x"].into())
    .build(store, "/")?;
    zarrs_scale_offset_cast::validate_array(&array)?;
    array.store_metadata()?;
    let input = scene();
    array.store_array_subset(&[0..SIZE, 0..SIZE], input.as_slice())?;

    // Reopen by path, as another program would, and read it all into a buffer.
    let reopened = Array::open(Arc::new(FilesystemStore::new(&path)?), "/")?;
    let mut output = vec![0.0f64; input.len()];
    FusedReader::new(&reopened)
        .retrieve_array_subset_into(&ArraySubset::new_with_shape(vec![SIZE, SIZE]), &mut output)?;

    let mut largest_error = 0.0f64;
    let mut no_data = 0;
    for (x, y) in input.iter().zip(&output) {
        if x.is_nan() {
            assert!(y.is_nan(), "no data must stay no data");
            no_data += 1;
        } else {
            largest_error = largest_error.max((x - y).abs());
        }
    }
    let raw = SIZE * SIZE * 8;
    let stored = stored_bytes(&path)?;
    println!("wrote {SIZE} x {SIZE} float64 reflectances in {CHUNK} x {CHUNK} chunks to");
    println!("  {}", path.display());
    println!(
        "codecs:         scale_offset(-0.1, 10000) -> cast_value(uint16, NaN <-> 0, clamp) -> bytes -> zstd"
    );
    println!("raw size:       {raw} bytes");
    println!(
        "stored size:    {stored} bytes ({:.1}% of raw)",
        percent(stored, raw)
    );
    println!("largest error:  {largest_error:.3e} (half a step of the scale is 5.0e-5)");
    println!("no-data pixels: {no_data} written as NaN, read back as NaN");
    Ok(())
}
