//! The quantised copy's layout: the source's chunks, shards and compressors, or those asked for.

use std::num::NonZeroU64;
use std::sync::Arc;

use zarrs::array::codec::api::{
    ArrayToArrayCodecTraits, ArrayToBytesCodecTraits, BytesToBytesCodecTraits, Codec,
    CodecMetadataOptions,
};
use zarrs::array::codec::{BytesCodec, CodecChain, ShardingCodecBuilder, ShardingIndexLocation};
use zarrs::array::{Array, ArrayBuilder, ArrayError, DataType};
use zarrs::metadata::Configuration;
use zarrs::metadata::v3::MetadataV3;
use zarrs::metadata_ext::codec::sharding::ShardingCodecConfigurationV1;
use zarrs::plugin::ZarrVersion;

/// How the quantised copy is chunked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Chunking {
    /// The source's: its chunk grid and, where it is sharded, its shards' inner chunks and index
    /// codecs.
    #[default]
    Source,
    /// Chunks of this shape, not sharded.
    Chunks(Vec<NonZeroU64>),
    /// Shards of shape `shards` holding inner chunks of shape `chunks` (zarr-python's `shards=`
    /// and `chunks=`); the index is the source's where it is sharded, else zarr-python's (`bytes`
    /// and `crc32c`, at the end).
    Shards {
        /// The inner chunks' shape.
        chunks: Vec<NonZeroU64>,
        /// The shards' shape.
        shards: Vec<NonZeroU64>,
    },
}

/// Where the quantised copy's chunks go and how they are compressed, decided from the source and
/// the options.
#[derive(Clone, Debug)]
pub struct Layout {
    chunks: Vec<NonZeroU64>,
    inner_chunks: Option<Vec<NonZeroU64>>,
    index: Option<(Arc<CodecChain>, ShardingIndexLocation)>,
    compressors: Vec<Arc<dyn BytesToBytesCodecTraits>>,
}

impl Layout {
    /// The chunk grid's shape: the shards' where the copy is sharded.
    #[must_use]
    pub fn chunk_shape(&self) -> Vec<u64> {
        self.chunks.iter().map(|n| n.get()).collect()
    }

    /// The shape of the inner chunks of each shard, where the copy is sharded.
    #[must_use]
    pub fn inner_chunk_shape(&self) -> Option<Vec<u64>> {
        self.inner_chunks
            .as_ref()
            .map(|shape| shape.iter().map(|n| n.get()).collect())
    }

    /// The compressors after the `bytes` codec (inside the shards where the copy is sharded), as
    /// their metadata.
    #[must_use]
    pub fn compressors(&self) -> Vec<MetadataV3> {
        self.compressors
            .iter()
            .filter_map(|codec| metadata(codec.as_ref()))
            .collect()
    }

    /// Decides the layout of the copy of `source` stored as `stored`, from `chunking` and
    /// `compressors` (the source's where `None`). Blosc is given the stored type's size as its
    /// `typesize`, as zarr-python configures it.
    pub(super) fn new<TStorage: ?Sized>(
        source: &Array<TStorage>,
        chunking: &Chunking,
        compressors: Option<&[Arc<dyn BytesToBytesCodecTraits>]>,
        stored: &DataType,
    ) -> Result<Self, ArrayError> {
        let codecs = source.codecs();
        let sharding = sharding(codecs.array_to_bytes_codec().as_ref())?;
        let source_index = sharding
            .as_ref()
            .map(|sharding| -> Result<_, ArrayError> {
                let index = CodecChain::from_metadata(&sharding.index_codecs)
                    .map_err(|error| ArrayError::Other(error.to_string()))?;
                Ok((Arc::new(index), sharding.index_location))
            })
            .transpose()?;
        let (chunks, inner_chunks, index) = match chunking {
            Chunking::Source => {
                let grid = source
                    .chunk_grid()
                    .chunk_shape(&vec![0; source.dimensionality()])?
                    .ok_or_else(|| {
                        ArrayError::Other(
                            "the source's chunk grid is not regular: give the chunks to write"
                                .into(),
                        )
                    })?;
                let inner = sharding
                    .as_ref()
                    .map(|sharding| sharding.chunk_shape.clone());
                (grid, inner, source_index)
            }
            Chunking::Chunks(chunks) => (chunks.clone(), None, None),
            Chunking::Shards { chunks, shards } => {
                (shards.clone(), Some(chunks.clone()), source_index)
            }
        };
        let dimensionality = source.dimensionality();
        for shape in std::iter::once(&chunks).chain(&inner_chunks) {
            if shape.len() != dimensionality {
                return Err(ArrayError::Other(format!(
                    "a chunk shape of {} dimensions for an array of {dimensionality}",
                    shape.len()
                )));
            }
        }
        let source_compressors = match &sharding {
            Some(sharding) => CodecChain::from_metadata(&sharding.codecs)
                .map_err(|error| ArrayError::Other(error.to_string()))?
                .bytes_to_bytes_codecs()
                .to_vec(),
            None => codecs.bytes_to_bytes_codecs().to_vec(),
        };
        let size = stored.fixed_size().unwrap_or(1);
        let compressors = compressors
            .unwrap_or(&source_compressors)
            .iter()
            .map(|codec| for_stored_type(codec, size))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            chunks,
            inner_chunks,
            index,
            compressors,
        })
    }

    /// Sets the chunk grid and the codecs of the copy on `builder`: `inner`, the array-to-array
    /// codecs of the plan, then `bytes` and the compressors, inside `sharding_indexed` where the
    /// copy is sharded.
    pub(super) fn build_into(
        &self,
        builder: &mut ArrayBuilder,
        inner: Vec<Arc<dyn ArrayToArrayCodecTraits>>,
        data_type: &DataType,
    ) {
        builder.chunk_grid_metadata(self.chunks.clone());
        let bytes: Arc<dyn ArrayToBytesCodecTraits> = Arc::new(BytesCodec::little());
        let Some(inner_chunks) = &self.inner_chunks else {
            builder
                .array_to_array_codecs(inner)
                .array_to_bytes_codec(bytes)
                .bytes_to_bytes_codecs(self.compressors.clone());
            return;
        };
        let mut sharding = ShardingCodecBuilder::new(inner_chunks.clone(), data_type);
        sharding
            .array_to_array_codecs(inner)
            .array_to_bytes_codec(bytes)
            .bytes_to_bytes_codecs(self.compressors.clone());
        if let Some((index, location)) = &self.index {
            sharding
                .index_array_to_bytes_codec(Arc::clone(index.array_to_bytes_codec()))
                .index_bytes_to_bytes_codecs(index.bytes_to_bytes_codecs().to_vec())
                .index_location(*location);
        }
        builder
            .array_to_array_codecs(Vec::new())
            .array_to_bytes_codec(Arc::new(sharding.build()))
            .bytes_to_bytes_codecs(Vec::new());
    }
}

/// The configuration of `codec` if it is `sharding_indexed`.
fn sharding(
    codec: &dyn ArrayToBytesCodecTraits,
) -> Result<Option<ShardingCodecConfigurationV1>, ArrayError> {
    if codec.name(ZarrVersion::V3).as_deref() != Some("sharding_indexed") {
        return Ok(None);
    }
    let configuration = codec
        .configuration(ZarrVersion::V3, &CodecMetadataOptions::default())
        .ok_or_else(|| ArrayError::Other("sharding_indexed has no configuration".into()))?;
    configuration
        .to_typed()
        .map(Some)
        .map_err(|error| ArrayError::Other(error.to_string()))
}

/// The metadata of a bytes-to-bytes codec.
fn metadata(codec: &dyn BytesToBytesCodecTraits) -> Option<MetadataV3> {
    let name = codec.name(ZarrVersion::V3)?;
    let configuration = codec.configuration(ZarrVersion::V3, &CodecMetadataOptions::default());
    Some(match configuration {
        Some(configuration) => MetadataV3::new_with_configuration(name, configuration),
        None => MetadataV3::new(name),
    })
}

/// `codec` for elements of `size` bytes: Blosc with that `typesize` (which its shuffle works
/// with), every other codec as it is.
fn for_stored_type(
    codec: &Arc<dyn BytesToBytesCodecTraits>,
    size: usize,
) -> Result<Arc<dyn BytesToBytesCodecTraits>, ArrayError> {
    let Some(metadata) = metadata(codec.as_ref()).filter(|m| m.name() == "blosc") else {
        return Ok(Arc::clone(codec));
    };
    let mut configuration: serde_json::Map<String, serde_json::Value> =
        metadata.configuration().cloned().unwrap_or_default().into();
    configuration.insert("typesize".into(), size.into());
    let metadata = MetadataV3::new_with_configuration("blosc", Configuration::from(configuration));
    match Codec::from_metadata(&metadata) {
        Ok(Codec::BytesToBytes(codec)) => Ok(codec),
        Ok(_) => Err(ArrayError::Other(
            "blosc is not a bytes-to-bytes codec".into(),
        )),
        Err(error) => Err(ArrayError::Other(format!("blosc: {error}"))),
    }
}
