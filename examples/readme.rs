//! The README's usage example, quoted there whole: reads an array zarr-python wrote, and writes
//! float64 reflectances as uint16 steps of 1e-4 (NaN as 0, compressed with zstd) to a new folder.
//! Run from the repository's root: `cargo run --example readme`.

use std::sync::Arc;

use zarrs::array::codec::ZstdCodec;
use zarrs::array::{Array, ArrayBuilder, data_type};
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast::{
    CastValueCodec, CastValueOutOfRangeMode, FusedReader, ScaleOffsetCodec,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Read an array zarr-python wrote (float64 stored as uint8 through both codecs).
    let store = FilesystemStore::new("tests/data/interop/arrays/spec-f64-u8-nan-map")?;
    let array = Array::open(Arc::new(store), "/")?;
    let values: Vec<f64> = array.retrieve_array_subset(&array.subset_all())?;
    println!("read {} values, the first {:?}", values.len(), &values[..4]);

    // Write reflectances to a new folder: scale_offset, cast_value to uint16, bytes, zstd.
    let path = std::env::temp_dir().join(format!("readme-{}.zarr", std::process::id()));
    let uint16 = CastValueCodec::builder(data_type::uint16())
        .out_of_range(CastValueOutOfRangeMode::Clamp)
        .map(f64::NAN, 0u16)
        .build()?;
    let array = ArrayBuilder::new(
        vec![1024, 1024],
        vec![256, 256],
        data_type::float64(),
        f64::NAN,
    )
    .array_to_array_codecs(vec![
        Arc::new(ScaleOffsetCodec::new(-0.1, 10000)?),
        Arc::new(uint16),
    ])
    .bytes_to_bytes_codecs(vec![Arc::new(ZstdCodec::new(5, false))])
    .build(Arc::new(FilesystemStore::new(&path)?), "/")?;
    zarrs_scale_offset_cast::validate_array(&array)?; // every check, before anything is written
    array.store_metadata()?;
    let reflectances: Vec<f64> = (0..1024 * 1024)
        .map(|i| f64::from(i % 5000) * 1e-4)
        .collect();
    array.store_array_subset(&array.subset_all(), reflectances)?;

    // Read a window back through the fast path.
    let window: Vec<f64> = FusedReader::new(&array).retrieve_array_subset(&[0..2, 0..4])?;
    println!("wrote {}; read back {window:?}", path.display());
    Ok(())
}
