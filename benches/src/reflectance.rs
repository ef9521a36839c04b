//! The reflectance array of the end-to-end benchmarks: a 4096 x 4096 float64 array stored as
//! `[scale_offset(offset -0.1, scale 10000), cast_value(uint16, NaN <-> 0, clamp), bytes]` on a
//! filesystem store, in chunks or in shards (the codecs inside the sharding codec, as zarr-python
//! writes them; uncompressed, or compressed by Blosc as zarr-python compresses them), beside the same data as plain uint16 in the same layout (the hand loop's) and
//! through the minimal codec.

use std::sync::Arc;

use unsafe_cell_slice::UnsafeCellSlice;
use zarrs::array::codec::api::ArrayToArrayCodecTraits;
use zarrs::array::codec::{BloscCodec, BloscCodecConfiguration};
use zarrs::array::{
    Array, ArrayBuilder, ArrayBytesDecodeIntoTarget, ArrayBytesFixedDisjointView, ArraySubset,
    CodecOptions, data_type,
};
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast::cast_value::CastValueCodecConfiguration;
use zarrs_scale_offset_cast::scale_offset::ScaleOffsetCodecConfiguration;
use zarrs_scale_offset_cast::{CastValueCodec, ScaleOffsetCodec};

use crate::minimal::{self, Minimal};

/// The side of the array.
pub const SIZE: u64 = 4096;
/// The elements of the array.
pub const ELEMENTS: usize = (SIZE * SIZE) as usize;

/// The whole array.
pub fn whole() -> ArraySubset {
    ArraySubset::new_with_shape(vec![SIZE, SIZE])
}

/// The three arrays of one chunk size, written with the same data.
pub struct Arrays {
    pub codecs: Array<FilesystemStore>,
    pub minimal: Array<FilesystemStore>,
    pub hand: Array<FilesystemStore>,
    _directory: tempfile::TempDir,
}

/// The two codecs of the reflectance array.
pub fn reflectance_codecs() -> Vec<Arc<dyn ArrayToArrayCodecTraits>> {
    let scale_offset: ScaleOffsetCodecConfiguration =
        serde_json::from_str(r#"{"offset": -0.1, "scale": 10000}"#).unwrap();
    let cast_value: CastValueCodecConfiguration = serde_json::from_str(
        r#"{"data_type": "uint16", "out_of_range": "clamp", "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}"#,
    )
    .unwrap();
    vec![
        Arc::new(ScaleOffsetCodec::new_with_configuration(&scale_offset).unwrap()),
        Arc::new(CastValueCodec::new_with_configuration(&cast_value).unwrap()),
    ]
}

/// How the arrays are stored.
#[derive(Clone, Copy, Debug)]
pub enum Layout {
    /// Chunks of this side.
    Chunks(u64),
    /// Chunks of all the rows and this many columns: one chunk along the first dimension, as in
    /// time series chunked `[time, 64, 64]`, so that every read of whole rows spans one band of
    /// all the chunks, each contributing short runs to every row.
    Columns(u64),
    /// Shards of the first side holding inner chunks of the second, the codecs inside the
    /// sharding codec (as zarr-python writes an array created with `shards=`), the index at the
    /// end with crc32c.
    Shards(u64, u64),
    /// The same, the inner chunks compressed as zarr-python compresses them by default
    /// (Blosc zstd level 5, bit shuffle).
    BloscShards(u64, u64),
}

impl Layout {
    /// `1024` for chunks, `4096x64` for columns, `1024s256` for shards.
    pub fn label(self) -> String {
        match self {
            Self::Chunks(chunk) => chunk.to_string(),
            Self::Columns(columns) => format!("{SIZE}x{columns}"),
            Self::Shards(shard, inner) => format!("{shard}s{inner}"),
            Self::BloscShards(shard, inner) => format!("{shard}s{inner}blosc"),
        }
    }

    fn builder(
        self,
        data_type: zarrs::array::DataType,
        fill: impl Into<zarrs::array::builder::ArrayBuilderFillValue>,
    ) -> ArrayBuilder {
        let chunk = match self {
            Self::Chunks(side) | Self::Shards(side, _) | Self::BloscShards(side, _) => {
                vec![side, side]
            }
            Self::Columns(columns) => vec![SIZE, columns],
        };
        let typesize = data_type.fixed_size();
        let mut builder = ArrayBuilder::new(vec![SIZE, SIZE], chunk, data_type, fill);
        if let Self::Shards(_, inner) | Self::BloscShards(_, inner) = self {
            builder.subchunk_shape(vec![inner, inner]);
        }
        if let Self::BloscShards(..) = self {
            let configuration: BloscCodecConfiguration =
                serde_json::from_value(serde_json::json!({
                    "cname": "zstd", "clevel": 5, "shuffle": "bitshuffle", "blocksize": 0,
                    "typesize": typesize,
                }))
                .unwrap();
            builder.bytes_to_bytes_codecs(vec![Arc::new(
                BloscCodec::new_with_configuration(&configuration).unwrap(),
            )]);
        }
        builder
    }
}

/// The three arrays of one layout, written with `data` (on one thread).
pub fn arrays(layout: Layout, data: &[f64]) -> Arrays {
    let directory = tempfile::tempdir().unwrap();
    let store = Arc::new(FilesystemStore::new(directory.path()).unwrap());
    let float64 = |codecs: Vec<Arc<dyn ArrayToArrayCodecTraits>>, path: &str| {
        layout
            .builder(data_type::float64(), f64::NAN)
            .array_to_array_codecs(codecs)
            .build(store.clone(), path)
            .unwrap()
    };
    let codecs = float64(reflectance_codecs(), "/codecs");
    let minimal = float64(vec![Arc::new(Minimal)], "/minimal");
    let hand = layout
        .builder(data_type::uint16(), 0u16)
        .build(store.clone(), "/hand")
        .unwrap();
    codecs
        .store_array_subset_opt(&whole(), data, &one_thread())
        .unwrap();
    minimal
        .store_array_subset_opt(&whole(), data, &one_thread())
        .unwrap();
    hand.store_array_subset_opt(&whole(), hand_encode(data), &one_thread())
        .unwrap();
    Arrays {
        codecs,
        minimal,
        hand,
        _directory: directory,
    }
}

/// The plain loop a user would write to store reflectances as uint16.
pub fn hand_encode(data: &[f64]) -> Vec<u16> {
    data.iter().map(|&x| minimal::encode(x)).collect()
}

/// Reads the whole array into `output` through zarrs' `retrieve_array_subset_into`.
pub fn retrieve_into(
    array: &Array<FilesystemStore>,
    output: &mut [u8],
    size: usize,
    options: &CodecOptions,
) {
    retrieve_subset_into(array, &whole(), output, size, options);
}

/// Reads `subset` into `output` (its elements in C order, of `size` bytes each) through zarrs'
/// `retrieve_array_subset_into`.
pub fn retrieve_subset_into(
    array: &Array<FilesystemStore>,
    subset: &ArraySubset,
    output: &mut [u8],
    size: usize,
    options: &CodecOptions,
) {
    let shape = subset.shape().to_vec();
    let cells = UnsafeCellSlice::new(output);
    let within = ArraySubset::new_with_shape(shape.clone());
    // SAFETY: the only view of `output`, which outlives it.
    let mut view =
        unsafe { ArrayBytesFixedDisjointView::new(cells, size, &shape, within) }.unwrap();
    array
        .retrieve_array_subset_into_opt(
            subset,
            ArrayBytesDecodeIntoTarget::Fixed(&mut view),
            options,
        )
        .unwrap();
}

fn one_thread() -> CodecOptions {
    CodecOptions::default().with_concurrent_target(1)
}
