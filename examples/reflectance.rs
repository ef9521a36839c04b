//! Stores float64 surface reflectances as uint16, the way Sentinel-2 products do, and reads them
//! back.
//!
//! `scale_offset` maps a reflectance `r` to `(r + 0.1) * 10000` (offset -0.1, scale 10000) and
//! `cast_value` rounds that to uint16, mapping NaN (no data) to 0 and back. The array goes to a
//! filesystem store, is reopened by path and read with the fused read path, and the example prints
//! where it is, its stored size and the largest error against the input.
//!
//! Run with `cargo run --release --example reflectance [PATH]`. PATH must not exist yet, or be an
//! empty folder: the example never writes over anything. Without it, the example writes to a folder
//! of its own in the temporary directory, which it replaces on the next run.

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

/// Erases what the example wrote in its own folder `path`: the array's chunks and metadata (the
/// keys zarrs wrote), the mark, and the folders they leave empty. Anything else stays.
fn erase_own(path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let store = Arc::new(FilesystemStore::new(path)?);
    if let Ok(array) = Array::open(store, "/") {
        array.erase_chunks(&ArraySubset::new_with_shape(
            array.chunk_grid_shape().to_vec(),
        ))?;
        array.erase_metadata()?;
    }
    std::fs::remove_file(path.join(MARK))?;
    remove_empty_folders(path);
    Ok(())
}

/// Removes `path` and the folders under it that are empty once their empty folders are gone
/// (`remove_dir` removes only empty folders).
fn remove_empty_folders(path: &std::path::Path) {
    if let Ok(entries) = std::fs::read_dir(path) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_empty_folders(&entry.path());
            }
        }
    }
    let _ = std::fs::remove_dir(path);
}

#[expect(clippy::cast_precision_loss, reason = "a percentage for display")]
fn percent(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole as f64
}

/// The example's own folder, used when no path is given.
fn scratch() -> PathBuf {
    std::env::temp_dir().join("zarrs_scale_offset_cast_reflectance.zarr")
}

/// The file the example leaves in its own folder, so that it replaces only what it wrote itself.
const MARK: &str = ".written-by-the-reflectance-example";

/// Where to write: `given` if it does not exist or is an empty folder; without it the example's
/// own folder `scratch`, whose earlier array (marked by [`MARK`]) is erased first; anything else
/// is refused and left as it is.
fn target(given: Option<PathBuf>, scratch: PathBuf) -> Result<PathBuf, String> {
    let (path, own) = match given {
        Some(path) => (path, false),
        None => (scratch, true),
    };
    let holds_anything = |path: &std::path::Path| {
        !path.is_dir()
            || path
                .read_dir()
                .map_or(true, |mut entries| entries.next().is_some())
    };
    if own && path.join(MARK).is_file() {
        erase_own(&path).map_err(|e| format!("cannot clear {}: {e}", path.display()))?;
    }
    if path.exists() && holds_anything(&path) {
        return Err(format!(
            "{} already exists and is not an empty folder (or holds files the example did not \
             write); give the example a new path",
            path.display()
        ));
    }
    if own {
        std::fs::create_dir_all(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        std::fs::write(path.join(MARK), "").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(path)
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("reflectance: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let path = target(std::env::args().nth(1).map(PathBuf::from), scratch())?;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_writes_only_to_a_new_path_an_empty_folder_or_its_own_folder() {
        let dir = tempfile::tempdir().unwrap();
        let own = dir.path().join("own.zarr");
        let new = dir.path().join("new.zarr");
        assert_eq!(target(Some(new.clone()), own.clone()).unwrap(), new);
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert_eq!(target(Some(empty.clone()), own.clone()).unwrap(), empty);
        // A file, and a folder holding anything, are refused and left as they are.
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "keep me").unwrap();
        let error = target(Some(file.clone()), own.clone()).unwrap_err();
        assert!(error.contains("already exists"), "{error}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
        let error = target(Some(dir.path().to_path_buf()), own.clone()).unwrap_err();
        assert!(error.contains("give the example a new path"), "{error}");
        assert!(file.exists() && empty.exists());
        // Its own folder: made and marked on the first run; its array erased on the next.
        assert_eq!(target(None, own.clone()).unwrap(), own);
        let store = Arc::new(FilesystemStore::new(&own).unwrap());
        let array = ArrayBuilder::new(vec![4, 4], vec![2, 2], data_type::uint8(), 0u8)
            .build(store, "/")
            .unwrap();
        array.store_metadata().unwrap();
        array
            .store_array_subset(&[0..4, 0..4], vec![7u8; 16])
            .unwrap();
        assert!(own.join("c/1/1").is_file());
        assert_eq!(target(None, own.clone()).unwrap(), own);
        assert!(own.join(MARK).is_file() && !own.join("zarr.json").exists());
        assert!(!own.join("c").exists());
        // A file someone else put in its folder is kept, and the folder refused.
        std::fs::write(own.join("theirs.txt"), "not the example's").unwrap();
        let error = target(None, own.clone()).unwrap_err();
        assert!(error.contains("did not write"), "{error}");
        assert!(own.join("theirs.txt").exists() && !own.join(MARK).exists());
        std::fs::remove_file(own.join("theirs.txt")).unwrap();
        std::fs::write(own.join(MARK), "").unwrap();
        // Without the mark (a folder of that name the example did not make), nothing is removed.
        std::fs::remove_file(own.join(MARK)).unwrap();
        std::fs::write(own.join("other.txt"), "not the example's").unwrap();
        assert!(target(None, own.clone()).is_err());
        assert!(own.join("other.txt").exists());
    }
}
