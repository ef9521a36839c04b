//! The fast path for large reads: stored chunks decoded straight into the caller's buffer.
//!
//! zarrs decodes every chunk into a fresh buffer, one codec after the other, and then copies it
//! into the output. For arrays stored as `[scale_offset?, cast_value?, bytes, bytes-to-bytes
//! codecs...]` a [`FusedReader`] instead decodes each stored chunk with zarrs' own `bytes` and
//! compression codecs, and then runs the `cast_value` and `scale_offset` decodes as one pass that
//! writes straight into the caller's buffer, block by block through the cache. The results are the
//! same as zarrs' bit for bit; anything else (other codecs, sharding, an element that fails to
//! decode) goes through zarrs.

mod fused;
mod runs;

use std::borrow::Cow;
use std::sync::Arc;

use zarrs::array::codec::api::ArrayToBytesCodecTraits;
use zarrs::array::codec::{BytesCodec, CodecChain};
use zarrs::array::{
    Array, ArrayBytes, ArrayError, ArraySubset, ArraySubsetTraits, CodecOptions, DataType, Element,
    FillValue,
};
use zarrs::storage::ReadableStorageTraits;

use crate::kernel::{BLOCK, Chain, Kernel, driver};
use crate::{CastValueCodec, ScaleOffsetCodec};

/// Reads array subsets into a caller's buffer, fusing the decode of `scale_offset` and
/// `cast_value` into one pass where the codec chain allows.
///
/// ```rust
/// # use std::sync::Arc;
/// # use zarrs::array::{Array, ArrayMetadata};
/// # use zarrs::storage::store::MemoryStore;
/// use zarrs_scale_offset_cast::FusedReader;
/// # let store = Arc::new(MemoryStore::new());
/// # let metadata: ArrayMetadata = serde_json::from_str(r#"{
/// #   "zarr_format": 3, "node_type": "array", "shape": [6, 6], "data_type": "float64",
/// #   "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
/// #   "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
/// #   "codecs": [
/// #     {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
/// #     {"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp",
/// #       "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
/// #     {"name": "bytes", "configuration": {"endian": "little"}}
/// #   ]
/// # }"#)?;
/// # let array = Array::new_with_metadata(store, "/", metadata)?;
/// # array.store_array_subset(&[0..6, 0..6], vec![0.5f64; 36])?;
/// let reader = FusedReader::new(&array);
/// assert!(reader.is_fused());
/// let mut values = vec![0.0f64; 16]; // reused from read to read
/// reader.retrieve_array_subset_into(&[2..6, 2..6], &mut values)?;
/// assert_eq!(values[0], 0.5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FusedReader<'a, TStorage: ?Sized> {
    array: &'a Array<TStorage>,
    plan: Option<Plan>,
}

/// How to read the stored chunks.
struct Plan {
    /// The data type and fill value entering the `bytes` codec.
    stored: DataType,
    stored_fill: FillValue,
    /// The `bytes` and bytes-to-bytes codecs.
    inner: CodecChain,
    /// The decodes of the array-to-array codecs, last codec first.
    kernel: Arc<dyn Kernel>,
}

impl<'a, TStorage: ?Sized + ReadableStorageTraits + 'static> FusedReader<'a, TStorage> {
    /// A reader of `array`, fused where its codec chain allows.
    #[must_use]
    pub fn new(array: &'a Array<TStorage>) -> Self {
        Self {
            array,
            plan: plan(array),
        }
    }

    /// Whether reads take the fused path (else they go through zarrs).
    #[must_use]
    pub fn is_fused(&self) -> bool {
        self.plan.is_some()
    }

    /// Reads `subset` of the array into `output` (C order), with default codec options.
    ///
    /// Takes what zarrs' reads take: any array subset (`&[0..512, 0..512]`, an [`ArraySubset`]),
    /// also one reaching beyond the array, whose elements there are the fill value.
    ///
    /// # Errors
    /// Returns an [`ArrayError`] if `T` is not an element type of the array's data type (as
    /// zarrs' typed reads check it), `output` does not hold exactly the elements of `subset`, the
    /// subset does not have the array's dimensionality, or reading or decoding fails, as
    /// [`Array::retrieve_array_subset_into`] would.
    pub fn retrieve_array_subset_into<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
    ) -> Result<(), ArrayError> {
        self.retrieve_array_subset_into_opt(subset, output, &CodecOptions::default())
    }

    /// Reads `subset` of the array into `output` (C order), with `options`.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub fn retrieve_array_subset_into_opt<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        T::validate_data_type(self.array.data_type())?;
        let subset = subset.to_array_subset();
        if subset.dimensionality() != self.array.dimensionality() {
            return Err(ArrayError::InvalidArraySubset(
                subset,
                self.array.shape().to_vec(),
            ));
        }
        let elements = usize::try_from(subset.num_elements())
            .map_err(|_| ArrayError::Other("the subset has too many elements".into()))?;
        if output.len() != elements {
            return Err(ArrayError::InvalidDataShape(
                vec![output.len()],
                vec![elements],
            ));
        }
        let output: &mut [u8] = bytemuck::cast_slice_mut(output);
        match &self.plan {
            Some(plan) => self.read_fused(plan, &subset, output, options),
            None => self.read_through_zarrs(&subset, output, options),
        }
    }

    fn read_through_zarrs(
        &self,
        subset: &ArraySubset,
        output: &mut [u8],
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        let bytes: ArrayBytes<'static> = self.array.retrieve_array_subset_opt(subset, options)?;
        output.copy_from_slice(&bytes.into_fixed()?);
        Ok(())
    }

    fn read_fused(
        &self,
        plan: &Plan,
        subset: &ArraySubset,
        output: &mut [u8],
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        let array = self.array;
        let (in_size, out_size) = plan.kernel.sizes();
        let fill = array.fill_value().as_ne_bytes();
        let chunks = array.chunks_in_array_subset(subset)?.ok_or_else(|| {
            ArrayError::InvalidArraySubset(subset.clone(), array.shape().to_vec())
        })?;
        for chunk_indices in &chunks.indices() {
            let chunk_subset = array.chunk_subset(&chunk_indices)?;
            let overlap = chunk_subset.overlap(subset)?;
            let runs = runs::runs(
                (overlap.start(), overlap.shape()),
                (chunk_subset.start(), chunk_subset.shape()),
                (subset.start(), subset.shape()),
            );
            let Some(encoded) = array.retrieve_encoded_chunk(&chunk_indices)? else {
                for &(_, out, len) in &runs {
                    for element in
                        output[out * out_size..(out + len) * out_size].chunks_exact_mut(out_size)
                    {
                        element.copy_from_slice(fill);
                    }
                }
                continue;
            };
            let chunk_shape = array.chunk_shape(&chunk_indices)?;
            let decoded = plan
                .inner
                .decode(
                    Cow::Owned(encoded),
                    &chunk_shape,
                    &plan.stored,
                    &plan.stored_fill,
                    options,
                )
                .and_then(|bytes| Ok(bytes.into_fixed()?));
            let converted = decoded.as_ref().map_err(|_| ()).and_then(|decoded| {
                runs.iter()
                    .try_for_each(|&(input, out, len)| {
                        convert_run(
                            plan.kernel.as_ref(),
                            &decoded[input * in_size..(input + len) * in_size],
                            &mut output[out * out_size..(out + len) * out_size],
                        )
                    })
                    .map_err(|_| ())
            });
            if converted.is_err() {
                // zarrs reads the part of the chunk again: it reports the element or the chunk
                // with its own error, or (reading only the bytes it needs) reads it.
                let within = overlap.relative_to(chunk_subset.start())?;
                let bytes: ArrayBytes<'static> =
                    array.retrieve_chunk_subset_opt(&chunk_indices, &within, options)?;
                let bytes = bytes.into_fixed()?;
                let region = runs::runs(
                    (overlap.start(), overlap.shape()),
                    (overlap.start(), overlap.shape()),
                    (subset.start(), subset.shape()),
                );
                for (input, out, len) in region {
                    output[out * out_size..(out + len) * out_size]
                        .copy_from_slice(&bytes[input * out_size..(input + len) * out_size]);
                }
            }
        }
        Ok(())
    }
}

/// Converts one run: straight through the kernel, a block at a time, where both sides are aligned
/// (the usual case, and the cheapest for short runs), else through the driver.
fn convert_run(
    kernel: &dyn Kernel,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), crate::error::fault::ElementFault> {
    let (in_size, out_size) = kernel.sizes();
    let aligned =
        input.as_ptr().align_offset(in_size) == 0 && output.as_ptr().align_offset(out_size) == 0;
    if !aligned {
        return driver::apply_into(kernel, input, output);
    }
    let blocks = input
        .chunks(BLOCK * in_size)
        .zip(output.chunks_mut(BLOCK * out_size));
    for (i, (input, output)) in blocks.enumerate() {
        kernel
            .convert_init(input, output)
            .map_err(|fault| fault.offset(i * BLOCK))?;
    }
    Ok(())
}

/// The plan for `array`, if its codec chain can be fused: array-to-array codecs of this crate
/// only (at least one), then `bytes`, then any bytes-to-bytes codecs, and a fill value that every
/// codec accepts (else zarrs reports the error).
fn plan<TStorage: ?Sized>(array: &Array<TStorage>) -> Option<Plan> {
    let codecs = array.codecs();
    let array_to_bytes = codecs.array_to_bytes_codec();
    if codecs.array_to_array_codecs().is_empty()
        || array_to_bytes
            .as_any()
            .downcast_ref::<BytesCodec>()
            .is_none()
    {
        return None;
    }
    let mut data_type = array.data_type().clone();
    let mut fill = array.fill_value().clone();
    let mut kernels: Vec<Arc<dyn Kernel>> = Vec::new();
    for codec in codecs.array_to_array_codecs() {
        let any = codec.as_any();
        let (kernel, encoded) = if let Some(codec) = any.downcast_ref::<ScaleOffsetCodec>() {
            (
                codec.decode_kernel(&data_type).ok()?,
                codec.check(&data_type, &fill).ok()?,
            )
        } else if let Some(codec) = any.downcast_ref::<CastValueCodec>() {
            (
                Some(codec.decode_kernel(&data_type).ok()?),
                codec.check(&data_type, &fill).ok()?,
            )
        } else {
            return None;
        };
        kernels.extend(kernel);
        (data_type, fill) = encoded;
    }
    let mut kernel = kernels
        .into_iter()
        .reduce(|first_codec, next_codec| Arc::new(Chain::new(next_codec, first_codec)))?;
    // `[scale_offset, cast_value]`, the usual chain, has a loop of its own.
    if let [first, second] = codecs.array_to_array_codecs()
        && let Some(scale_offset) = first.as_any().downcast_ref::<ScaleOffsetCodec>()
        && let Some(cast_value) = second.as_any().downcast_ref::<CastValueCodec>()
        && let Ok(parameters) = scale_offset.parameters(array.data_type())
        && !parameters.is_identity()
        && let Ok(cast) = cast_value.decode_cast(array.data_type())
        && let Some(fused) = fused::fused_decode(&cast, parameters, &kernel)
    {
        kernel = fused;
    }
    let inner = CodecChain::new(
        Vec::new(),
        Arc::clone(array_to_bytes),
        codecs.bytes_to_bytes_codecs().to_vec(),
    );
    Some(Plan {
        stored: data_type,
        stored_fill: fill,
        inner,
        kernel,
    })
}
