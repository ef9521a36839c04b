//! Which arrays a fused read reads itself, and how: the codec chain taken apart into the stored
//! chunks' own codecs (zarrs decodes those) and the decodes of this crate's codecs (one kernel).

use std::sync::Arc;

use zarrs::array::codec::{BytesCodec, CodecChain};
use zarrs::array::{Array, ArrayMetadata, ArraySubset, DataType, FillValue};
use zarrs_metadata_ext::codec::sharding::ShardingCodecConfigurationV1;

use super::{front, fused, shards};
use crate::kernel::{Chain, Kernel, driver};
use crate::{CastValueCodec, ScaleOffsetCodec};

/// How to read the stored chunks.
pub(super) struct Plan {
    /// The data type and fill value entering the `bytes` codec.
    pub(super) stored: DataType,
    pub(super) stored_fill: FillValue,
    /// The `bytes` and bytes-to-bytes codecs (of the inner chunks, for a sharded array).
    pub(super) inner: CodecChain,
    /// The decodes of the array-to-array codecs (outside and inside a sharding codec), last
    /// codec first.
    pub(super) kernel: Arc<dyn Kernel>,
    /// For a sharded array: its shards' layout; the chunks the codecs decode are its inner chunks.
    pub(super) shards: Option<shards::Sharding>,
    /// Whether the first bytes-to-bytes codec of the stored chunks (the last to decode) is
    /// Blosc, which decodes a part only from its own element boundaries on.
    pub(super) blosc_first: bool,
}

/// Rows of a chunk shorter than this many elements are short runs ([`Plan::short_runs`]).
const SHORT_RUN: u64 = 128;
/// The fewest runs that make a read of short runs costly to cut ([`Plan::short_runs`]).
const MANY_RUNS: u64 = 1 << 14;

impl Plan {
    /// Whether the stored chunks (a sharded array's inner chunks) are compressed: bytes-to-bytes
    /// codecs follow `bytes`. Parts of uncompressed chunks are fetched by their elements.
    pub(super) fn compressed(&self) -> bool {
        !self.inner.bytes_to_bytes_codecs().is_empty()
    }

    /// Whether a read of `subset` of `array` covers every chunk it touches whole (for a sharded
    /// array, every inner chunk) and spans several along the last dimension, whose rows are
    /// shorter than [`SHORT_RUN`], in at least [`MANY_RUNS`] runs: each chunk then lands in the
    /// output as many short runs, which zarrs' own read (each chunk decoded whole into a buffer of
    /// its own, its runs copied out) writes for less than the fused read cuts the output into
    /// them (docs/performance.md, "Short runs").
    pub(super) fn short_runs<TStorage: ?Sized>(
        &self,
        array: &Array<TStorage>,
        subset: &ArraySubset,
    ) -> bool {
        let ArrayMetadata::V3(metadata) = array.metadata() else {
            return false;
        };
        if metadata.chunk_grid.name() != "regular" {
            return false;
        }
        // The chunks the codecs decode: a sharded array's inner chunks.
        let chunk = match &self.shards {
            Some(sharding) => sharding.inner_shape().to_vec(),
            None => match array.chunk_shape(&vec![0; array.dimensionality()]) {
                Ok(chunk) => chunk,
                Err(_) => return false,
            },
        };
        let (Some(last), Some(&extent)) = (chunk.last(), subset.shape().last()) else {
            return false;
        };
        let whole = (0..chunk.len()).all(|d| {
            let (start, end, size) = (subset.start()[d], subset.end_exc()[d], chunk[d].get());
            start.is_multiple_of(size) && (end.is_multiple_of(size) || end >= array.shape()[d])
        });
        let runs = subset.num_elements() / last.get();
        whole && last.get() < SHORT_RUN && extent > last.get() && runs >= MANY_RUNS
    }
}

/// The plan for `array`, if its codec chain can be fused: array-to-array codecs of this crate
/// only (at least one), then `bytes`, then any bytes-to-bytes codecs; or the crate's codecs
/// outside and inside a `sharding_indexed` codec whose inner chunks end in `bytes` and any
/// bytes-to-bytes codecs; and a fill value that every codec accepts (else zarrs reports the
/// error).
pub(super) fn plan<TStorage: ?Sized>(array: &Array<TStorage>) -> Option<Plan> {
    let codecs = array.codecs();
    let outer = codecs.array_to_array_codecs();
    let (sharding, a2a, bytes) = if codecs
        .array_to_bytes_codec()
        .as_any()
        .downcast_ref::<BytesCodec>()
        .is_some()
    {
        (None, outer.to_vec(), Arc::clone(&codecs))
    } else {
        let parts = shards::Parts::of(array)?;
        let inner = Arc::new(parts.inner);
        inner
            .array_to_bytes_codec()
            .as_any()
            .downcast_ref::<BytesCodec>()?;
        let a2a = [outer, inner.array_to_array_codecs()].concat();
        (Some(parts.configuration), a2a, inner)
    };
    if a2a.is_empty() {
        return None;
    }
    let mut data_type = array.data_type().clone();
    let mut fill = array.fill_value().clone();
    let mut kernels: Vec<Arc<dyn Kernel>> = Vec::new();
    // The fill value of the sharding codec's inner chunks (the array's, as the outer codecs
    // encode it), as the outer codecs decode it.
    let mut missing = Some(array.fill_value().as_ne_bytes().to_vec());
    for (i, codec) in a2a.iter().enumerate() {
        if i == outer.len() && i > 0 {
            missing = decoded_fill(&kernels, &fill);
        }
        let any = codec.as_any();
        let kernel = if let Some(codec) = any.downcast_ref::<ScaleOffsetCodec>() {
            codec.decode_kernel(&data_type).ok()?
        } else if let Some(codec) = any.downcast_ref::<CastValueCodec>() {
            Some(codec.decode_kernel(&data_type).ok()?)
        } else {
            return None;
        };
        kernels.extend(kernel);
        // The data type and fill value the next codec receives, as zarrs passes them on when it
        // reads (a fill value that does not survive the round trip, or cannot be encoded, is
        // read as zarrs reads it).
        (data_type, fill) = (
            codec.encoded_data_type(&data_type).ok()?,
            codec.encoded_fill_value(&data_type, &fill).ok()?,
        );
    }
    if outer.len() == a2a.len() {
        // Every codec outside the sharding codec (or no sharding codec).
        missing = decoded_fill(&kernels, &fill);
    }
    let mut kernel = kernels
        .into_iter()
        .reduce(|first_codec, next_codec| Arc::new(Chain::new(next_codec, first_codec)))?;
    // `[scale_offset, cast_value]`, the usual chain, has a loop of its own.
    if let [first, second] = a2a.as_slice()
        && let Some(scale_offset) = first.as_any().downcast_ref::<ScaleOffsetCodec>()
        && let Some(cast_value) = second.as_any().downcast_ref::<CastValueCodec>()
        && let Ok(parameters) = scale_offset.parameters(array.data_type())
        && !parameters.is_identity()
        && let Ok(cast) = cast_value.decode_cast(array.data_type())
        && let Some(fused) = fused::fused_decode(&cast, parameters, &kernel)
    {
        kernel = fused;
    }
    let blosc_first = blosc_first(
        array,
        sharding.as_ref(),
        (outer.len(), a2a.len() - outer.len()),
        !bytes.bytes_to_bytes_codecs().is_empty(),
    );
    let shards = match sharding {
        Some(configuration) => {
            // Inner chunks compressed by Blosc alone may be fetched by their blocks.
            let blosc = (bytes.bytes_to_bytes_codecs().len() == 1 && blosc_first)
                .then(|| data_type.fixed_size())
                .flatten()
                .map(|element| shards::Blosc {
                    element,
                    block: configuration
                        .codecs
                        .get(a2a.len() - outer.len() + 1)
                        .map_or(0, |codec| front::block_size(codec, element)),
                });
            Some(shards::Sharding::new(
                array,
                &configuration,
                missing,
                blosc,
            )?)
        }
        None => None,
    };
    let inner = CodecChain::new(
        Vec::new(),
        Arc::clone(bytes.array_to_bytes_codec()),
        bytes.bytes_to_bytes_codecs().to_vec(),
    );
    Some(Plan {
        stored: data_type,
        stored_fill: fill,
        inner,
        kernel,
        shards,
        blosc_first,
    })
}

/// `fill`, a fill value as `kernels` (decodes, first codec first) receive it, decoded through
/// them all; `None` where there are none or it fails to decode.
fn decoded_fill(kernels: &[Arc<dyn Kernel>], fill: &FillValue) -> Option<Vec<u8>> {
    kernels
        .iter()
        .cloned()
        .reduce(|first, next| Arc::new(Chain::new(next, first)))
        .and_then(|kernel| {
            let mut element = vec![0; kernel.sizes().1];
            driver::apply_into(kernel.as_ref(), fill.as_ne_bytes(), &mut element)
                .ok()
                .map(|()| element)
        })
}

/// Whether the first bytes-to-bytes codec of the stored chunks is Blosc, by the codecs' names in
/// the metadata of `array` or of its `sharding` codec (after the `outer` and `inner`
/// array-to-array codecs and `bytes`); where the names are not known, whether there is any
/// (Blosc's header is then checked).
fn blosc_first<TStorage: ?Sized>(
    array: &Array<TStorage>,
    sharding: Option<&ShardingCodecConfigurationV1>,
    (outer, inner): (usize, usize),
    compressed: bool,
) -> bool {
    match (array.metadata(), sharding) {
        (_, Some(configuration)) => configuration.codecs.get(inner + 1),
        (ArrayMetadata::V3(metadata), None) => metadata.codecs.get(outer + 1),
        (_, None) => None,
    }
    .map_or(compressed, |codec| codec.name().contains("blosc"))
}
