//! Which arrays a fused read reads itself: the codec chain taken apart into the stored chunks' own
//! codecs (zarrs decodes those), the decodes of this crate's codecs (one kernel) and, for a
//! sharded array, its shards; and where a chunk stored by the `bytes` codec alone is read in part.

use std::sync::Arc;

use zarrs::array::codec::api::ArrayToArrayCodecTraits;
use zarrs::array::codec::{BytesCodec, CodecChain};
use zarrs::array::{Array, ArrayMetadata, ArraySubset, CodecMetadataOptions, DataType, FillValue};
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::{ExtensionName, ZarrVersion};
use zarrs_metadata_ext::codec::sharding::ShardingCodecConfigurationV1;

use super::output::ChunkWork;
use super::shard::Sharding;
use super::{Fallback, blosc};
use crate::chain::step::Step;
use crate::engine::{Composed, Kernel, blockwise};
use crate::scale_offset::kernel::fused_decode;
use crate::validate::{element_codec, sharding_configuration};

/// Why a reader does not fuse an array's codec chain.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Unfused {
    /// The chain has neither of the crate's codecs.
    NothingToFuse,
    /// An array-to-array codec of zarrs or of another crate (its name), such as `transpose`.
    OtherCodec(String),
    /// Chunks stored otherwise than by `bytes` and bytes-to-bytes codecs, themselves or as the
    /// inner chunks of one `sharding_indexed` codec on a regular grid: what is in the way.
    Layout(String),
    /// One of the crate's codecs refuses the data type or fill value it is given: zarrs reads,
    /// and reports the error.
    Refused,
}

/// How the stored chunks of an array are read and decoded.
pub(super) struct Layout {
    /// The data type and fill value entering the `bytes` codec.
    pub(super) stored: DataType,
    pub(super) stored_fill: FillValue,
    /// The `bytes` and bytes-to-bytes codecs (of the inner chunks, for a sharded array).
    pub(super) inner: CodecChain,
    /// The decodes of the array-to-array codecs (outside and inside a sharding codec).
    pub(super) kernel: Arc<dyn Kernel>,
    /// For a sharded array: its shards; the chunks the codecs decode are its inner chunks.
    pub(super) shards: Option<Sharding>,
    /// The shape of the chunks the codecs decode, where they are all alike.
    regular: Option<Vec<u64>>,
    /// Whether the first bytes-to-bytes codec (the last to decode) is Blosc, which decodes a
    /// part only from its own element boundaries on.
    pub(super) blosc_first: bool,
    /// Where Blosc alone compresses a sharded array's inner chunks: the bytes of one stored
    /// element and of a Blosc block, so that a part of a chunk is fetched by its blocks.
    pub(super) blocks: Option<(usize, u64)>,
}

/// Rows of a chunk shorter than this many elements are short runs ([`Layout::short_runs`]).
const SHORT_RUN: u64 = 128;
/// The fewest runs that make a read of short runs costly to cut ([`Layout::short_runs`]).
const MANY_RUNS: u64 = 1 << 14;

impl Layout {
    /// Whether the stored chunks are compressed: bytes-to-bytes codecs follow `bytes`.
    pub(super) fn compressed(&self) -> bool {
        !self.inner.bytes_to_bytes_codecs().is_empty()
    }

    /// Whether a read of `subset` of an array of `shape` covers every chunk it touches whole (for
    /// a sharded array, every inner chunk) and spans several along the last dimension, whose rows
    /// are shorter than [`SHORT_RUN`], in at least [`MANY_RUNS`] runs: each chunk then lands in
    /// the output as many short runs, which zarrs' own read (each chunk decoded whole into a
    /// buffer of its own, its runs copied out) writes for less than the fused read cuts the
    /// output into them (docs/performance.md).
    pub(super) fn short_runs(&self, shape: &[u64], subset: &ArraySubset) -> bool {
        let Some((chunk, Some(&last))) = self.regular.as_ref().map(|c| (c, c.last())) else {
            return false;
        };
        let whole = (0..chunk.len()).all(|d| {
            let (start, end, size) = (subset.start()[d], subset.end_exc()[d], chunk[d]);
            start.is_multiple_of(size) && (end.is_multiple_of(size) || end >= shape[d])
        });
        let extent = subset.shape().last().copied().unwrap_or(0);
        let runs = subset.num_elements() / last;
        whole && last < SHORT_RUN && extent > last && runs >= MANY_RUNS
    }
}

/// The layout of `array`, where its codec chain can be fused: array-to-array codecs of this crate
/// only (at least one), then `bytes`, then any bytes-to-bytes codecs; or the crate's codecs
/// outside and inside a `sharding_indexed` codec whose inner chunks end in `bytes` and any
/// bytes-to-bytes codecs; and a fill value that every codec accepts.
///
/// # Errors
/// Why the chain is not fused: zarrs then reads the array.
pub(super) fn layout<TStorage: ?Sized>(array: &Array<TStorage>) -> Result<Layout, Unfused> {
    let (codecs, metadata) = (array.codecs(), array.metadata());
    let outer = codecs.array_to_array_codecs();
    let name = |codec: &dyn ExtensionName| codec.name(ZarrVersion::V3).unwrap_or_default();
    let grid = match metadata {
        ArrayMetadata::V3(metadata) => metadata.chunk_grid.name(),
        ArrayMetadata::V2(_) => "regular",
    };
    let (sharding, a2a, stored) = chains(array, grid)?;
    let (mut data_type, mut fill) = (array.data_type().clone(), array.fill_value().clone());
    let (mut kernels, mut steps): (Vec<Arc<dyn Kernel>>, _) = (Vec::new(), Vec::new());
    // The fill value of the inner chunks a shard does not hold (the array's, as the outer codecs
    // encode it), as the outer codecs decode it.
    let mut missing = Ok(array.fill_value().as_ne_bytes().to_vec());
    for (i, codec) in a2a.iter().enumerate() {
        if i == outer.len() && i > 0 {
            missing = decoded_fill(&kernels, &fill);
        }
        let element = element_codec(codec)
            .ok_or_else(|| Unfused::OtherCodec(name(codec.as_ref()).into_owned()))?;
        let step = element.step(&data_type).map_err(|_| Unfused::Refused)?;
        kernels.extend(step.kernels().map(|[_, decode]| Arc::clone(decode)));
        steps.push(step);
        // The data type and fill value the next codec receives, as zarrs passes them on.
        let next = codec.encoded_data_type(&data_type);
        fill = codec
            .encoded_fill_value(&data_type, &fill)
            .map_err(|_| Unfused::Refused)?;
        data_type = next.map_err(|_| Unfused::Refused)?;
    }
    if outer.len() == a2a.len() {
        missing = decoded_fill(&kernels, &fill);
    }
    let kernel = kernels
        .into_iter()
        .reduce(|first, next| Arc::new(Composed::new(next, first)));
    let mut kernel = kernel.ok_or(Unfused::NothingToFuse)?;
    // `[scale_offset, cast_value]`, the usual chain, has a loop of its own.
    if let [
        Step::ScaleOffset { parameters, .. },
        Step::CastValue { decode, .. },
    ] = &steps[..]
        && !parameters.is_identity()
        && let Some(fused) = fused_decode(decode, *parameters, &kernel)
    {
        kernel = fused;
    }
    let compressors = stored.bytes_to_bytes_codecs();
    let first = compressors
        .first()
        .filter(|codec| name(codec.as_ref()) == "blosc");
    let blocks = first
        .filter(|_| sharding.is_some() && compressors.len() == 1)
        .and_then(|codec| {
            let configuration = codec.configuration_v3(&CodecMetadataOptions::default())?;
            let element = data_type.fixed_size()?;
            let metadata = MetadataV3::new_with_configuration("blosc", configuration);
            Some((element, blosc::block_size(&metadata, element)))
        });
    let (shards, regular) = match sharding {
        Some(configuration) => {
            let sharding = Sharding::new(array, &configuration, missing)?;
            let inner = sharding.inner_shape().iter().map(|n| n.get()).collect();
            (Some(sharding), Some(inner))
        }
        None if grid == "regular" => {
            let chunk = array.chunk_shape(&vec![0; array.dimensionality()]).ok();
            (
                None,
                chunk.map(|chunk| chunk.iter().map(|n| n.get()).collect()),
            )
        }
        None => (None, None),
    };
    let bytes = Arc::clone(stored.array_to_bytes_codec());
    Ok(Layout {
        stored: data_type,
        stored_fill: fill,
        inner: CodecChain::new(Vec::new(), bytes, compressors.to_vec()),
        kernel,
        shards,
        regular,
        blosc_first: first.is_some(),
        blocks,
    })
}

/// The sharding codec of `array` (on a chunk grid named `grid`), if any; the array-to-array
/// codecs outside and inside it; and the codecs of the stored chunks (its inner chunks).
///
/// # Errors
/// Where the chunks are not stored by `bytes` and bytes-to-bytes codecs, themselves or inside
/// one sharding codec.
fn chains<TStorage: ?Sized>(array: &Array<TStorage>, grid: &str) -> Result<Chains, Unfused> {
    let (codecs, name) = (array.codecs(), |c: &dyn ExtensionName| {
        c.name(ZarrVersion::V3).unwrap_or_default()
    });
    let outer = codecs.array_to_array_codecs();
    if codecs.array_to_bytes_codec().as_any().is::<BytesCodec>() {
        return Ok((None, outer.to_vec(), Arc::clone(&codecs)));
    }
    let unfused = |what: String| Err(Unfused::Layout(what));
    let a2b = codecs.array_to_bytes_codec();
    let Ok(Some(configuration)) = sharding_configuration(a2b) else {
        return unfused(format!("chunks stored by {}", name(a2b.as_ref())));
    };
    if !codecs.bytes_to_bytes_codecs().is_empty() {
        return unfused("bytes-to-bytes codecs after sharding_indexed".into());
    } else if grid != "regular" {
        return unfused(format!("shards on a {grid} chunk grid"));
    }
    let Ok(inner) = CodecChain::from_metadata(&configuration.codecs) else {
        return unfused("inner codecs zarrs reads itself".into());
    };
    let a2b = inner.array_to_bytes_codec();
    if !a2b.as_any().is::<BytesCodec>() {
        return unfused(format!("inner chunks stored by {}", name(a2b.as_ref())));
    }
    let a2a = [outer, inner.array_to_array_codecs()].concat();
    Ok((Some(configuration), a2a, Arc::new(inner)))
}

/// `kernels` (decodes, first codec first) one after the other, the last codec's first.
fn composed(kernels: &[Arc<dyn Kernel>]) -> Option<Arc<dyn Kernel>> {
    let compose = |first, next| Arc::new(Composed::new(next, first)) as Arc<dyn Kernel>;
    kernels.iter().cloned().reduce(compose)
}

/// A sharding codec's configuration, the array-to-array codecs, and the stored chunks' codecs.
type Chains = (
    Option<ShardingCodecConfigurationV1>,
    Vec<Arc<dyn ArrayToArrayCodecTraits>>,
    Arc<CodecChain>,
);

/// `fill`, a fill value as `kernels` (decodes, first codec first) receive it, decoded through
/// them all.
///
/// # Errors
/// [`Fallback::MissingFill`] where there are no kernels or it fails to decode: zarrs then reads
/// the inner chunks a shard does not hold, and reports what it finds.
fn decoded_fill(kernels: &[Arc<dyn Kernel>], fill: &FillValue) -> Result<Vec<u8>, Fallback> {
    let kernel = composed(kernels).ok_or(Fallback::MissingFill)?;
    let mut element = vec![0; kernel.sizes().1];
    blockwise::apply_into(kernel.as_ref(), fill.as_ne_bytes(), &mut element)
        .map_err(|_| Fallback::MissingFill)?;
    Ok(element)
}

/// Where a chunk stored by the `bytes` codec alone is read in part, where its pieces need fewer
/// elements than it holds: the first byte and length of the stored elements from the first to the
/// last they need (of a shard whose inner chunk is `at` this offset and size), and the first one's
/// position in the chunk.
pub(super) fn stored_part(
    layout: &Layout,
    work: &ChunkWork<'_>,
    at: Option<(u64, u64)>,
) -> Option<(u64, u64, usize)> {
    let (size, elements) = (
        layout.stored.fixed_size()? as u64,
        work.chunk.num_elements(),
    );
    let span = work.span(layout.kernel.sizes().1);
    let (start, len) = (span.start as u64, span.len() as u64);
    let whole = elements.checked_mul(size);
    if layout.compressed()
        || at.is_some_and(|(_, stored)| whole != Some(stored))
        || start.checked_add(len)? > elements
        || len >= elements
    {
        return None;
    }
    let offset = at.map_or(0, |(offset, _)| offset);
    Some((
        offset + start.checked_mul(size)?,
        len.checked_mul(size)?,
        span.start,
    ))
}
