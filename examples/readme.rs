//! The README's usage example, quoted there whole: reads an array zarr-python wrote, and writes
//! float64 reflectances as uint16 steps of 1e-4 (NaN as 0) in zarr-python's sharded layout, as
//! `zarr.create_array(..., shards=..., chunks=..., filters=[...], compressors=BloscCodec(...))`
//! writes it. Run from the repository's root: `cargo run --example readme`.

use std::error::Error;
use std::sync::Arc;

use zarrs::array::codec::{
    BloscCodec, BloscCompressionLevel, BloscCompressor, BloscShuffleMode, BytesCodec,
};
use zarrs::array::{Array, ArrayBuilder, data_type};
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast::{
    CastValueCodec, CastValueOutOfRangeMode, CheckedArray, FusedReader, ScaleOffsetCodec,
};

/// zarr-python's sharded layout for float64 reflectances stored as uint16 steps of 1e-4: shards
/// of `shard` holding inner chunks of `inner`, the two codecs inside the shards, Blosc zstd
/// level 5 with byte shuffle over the stored uint16 (`typesize` 2, as zarr-python sets it), and a
/// crc32c index at the end of each shard.
fn reflectance_layout(
    shape: Vec<u64>,
    shard: Vec<u64>,
    inner: Vec<u64>,
) -> Result<ArrayBuilder, Box<dyn Error>> {
    let uint16 = CastValueCodec::builder(data_type::uint16())
        .out_of_range(CastValueOutOfRangeMode::Clamp)
        .map(f64::NAN, 0u16)
        .build()?;
    let level = BloscCompressionLevel::try_from(5u8)
        .map_err(|level| format!("Blosc levels go from 0 to 9, not {level}"))?;
    let blosc = BloscCodec::new(
        BloscCompressor::Zstd,
        level,
        None,
        BloscShuffleMode::Shuffle,
        Some(2),
    )?;
    let mut builder = ArrayBuilder::new(shape, shard, data_type::float64(), f64::NAN);
    builder
        .subchunk_shape(inner)
        .array_to_array_codecs(vec![
            Arc::new(ScaleOffsetCodec::new(-0.1, 10000)?),
            Arc::new(uint16),
        ])
        .array_to_bytes_codec(Arc::new(BytesCodec::little()))
        .bytes_to_bytes_codecs(vec![Arc::new(blosc)])
        .dimension_names(["y", "x"].into());
    Ok(builder)
}

/// The reflectance the example writes at row `i`, column `j`.
fn reflectance(i: u64, j: u64) -> f64 {
    if (7 * i + j).is_multiple_of(23) {
        f64::NAN
    } else {
        f64::from(u32::try_from((37 * i + 11 * j) % 9000).expect("small")) * 1e-4
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    // Read an array zarr-python wrote (float64 stored as uint8 through both codecs).
    let store = FilesystemStore::new("tests/data/interop/arrays/spec-f64-u8-nan-map")?;
    let array = Array::open(Arc::new(store), "/")?;
    let values: Vec<f64> = array.retrieve_array_subset(&array.subset_all())?;
    println!("read {} values, the first {:?}", values.len(), &values[..4]);

    // Write 1024 x 1024 reflectances in shards of 512 x 512 holding inner chunks of 256 x 256
    // into the temporary folder (each run writes every chunk and the metadata again).
    let path = std::env::temp_dir().join("zarrs_scale_offset_cast-readme.zarr");
    let array = reflectance_layout(vec![1024, 1024], vec![512, 512], vec![256, 256])?
        .build(Arc::new(FilesystemStore::new(&path)?), "/")?;
    // Every check up front, and writes checked against the whole chain.
    let array = CheckedArray::new(&array)?;
    array.store_metadata()?;
    let reflectances: Vec<f64> = (0..1024 * 1024)
        .map(|k| reflectance(k / 1024, k % 1024))
        .collect();
    array.store_array_subset(&array.subset_all(), reflectances)?;

    // Read a window back through the fast path.
    let window: Vec<f64> = FusedReader::new(&array).retrieve_array_subset(&[0..2, 0..4])?;
    // To the 1e-4 steps they are stored in.
    println!("wrote {}; read back {window:.4?}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use zarrs::storage::store::MemoryStore;
    use zarrs::storage::{ReadableStorageTraits, StoreKey};

    /// The codecs of `array`'s metadata, without `cast_value`'s default rounding, which
    /// zarr-python leaves out.
    fn codecs<S: ?Sized>(array: &Array<S>) -> serde_json::Value {
        let metadata = serde_json::to_value(array.metadata()).unwrap();
        let mut codecs = metadata["codecs"].clone();
        codecs[0]["configuration"]["codecs"][1]["configuration"]
            .as_object_mut()
            .unwrap()
            .remove("rounding");
        codecs
    }

    /// The same layout and values as zarr-python writes them (`tests/data/sharded-layout`, by
    /// `tests/zarr-python/sharded_layout.py`): the same codecs, and every inner chunk byte for
    /// byte.
    #[test]
    fn the_layout_writes_the_inner_chunks_zarr_python_writes() {
        let store = Arc::new(MemoryStore::new());
        let array = reflectance_layout(vec![48, 40], vec![24, 40], vec![8, 20])
            .unwrap()
            .build(store.clone(), "/")
            .unwrap();
        let values: Vec<f64> = (0..48 * 40).map(|k| reflectance(k / 40, k % 40)).collect();
        let array = CheckedArray::new(&array).unwrap();
        array
            .store_array_subset(&array.subset_all(), values)
            .unwrap();
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/sharded-layout/reflectance.zarr"
        );
        let zarr_python =
            Array::open(Arc::new(FilesystemStore::new(fixture).unwrap()), "/").unwrap();
        assert_eq!(codecs(&array), codecs(&zarr_python));
        // zarrs orders the inner chunks of a shard its own way (zarr-python in Morton order):
        // each inner chunk is compared, found through the shard's index.
        let written = FilesystemStore::new(fixture).unwrap();
        let inner_chunks = |shard: &[u8]| -> Vec<Vec<u8>> {
            // Six inner chunks, each an offset and a length, then the index's crc32c.
            let index = &shard[shard.len() - 6 * 16 - 4..shard.len() - 4];
            index
                .chunks_exact(16)
                .map(|entry| {
                    let word = |k: usize| {
                        let bytes = entry[8 * k..8 * k + 8].try_into().unwrap();
                        usize::try_from(u64::from_le_bytes(bytes)).unwrap()
                    };
                    shard[word(0)..word(0) + word(1)].to_vec()
                })
                .collect()
        };
        let mut compared = 0;
        for key in ["c/0/0", "c/1/0"] {
            let key = StoreKey::new(key).unwrap();
            let ours = store.get(&key).unwrap().expect("a shard");
            let theirs = written.get(&key).unwrap().expect("a shard");
            assert_eq!(ours.len(), theirs.len(), "{key}");
            for (i, (a, b)) in inner_chunks(&ours)
                .iter()
                .zip(inner_chunks(&theirs))
                .enumerate()
            {
                assert!(*a == b, "{key}: inner chunk {i} differs");
                compared += 1;
            }
        }
        assert_eq!(compared, 12);
    }
}
