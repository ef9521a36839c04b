//! An array whose writes are checked against its whole codec chain.

use std::ops::Deref;
use std::sync::Arc;

use zarrs::array::codec::api::{ArrayToArrayCodecTraits, ArrayToBytesCodecTraits, CodecError};
use zarrs::array::codec::{CodecChain, ShardingCodec};
use zarrs::array::{Array, ArrayError};

use super::element_codec;
use super::walk::{decide, sharding_configuration};
use crate::chain::Context;

/// An [`Array`] whose writes are checked against its whole codec chain.
///
/// zarrs shows each array-to-array codec only what reaches it, so a codec of an array opened with
/// `Array::open` checks its own part of a write: an element is refused where its own decode
/// could not take back what it encodes, and the fill value where it does not come back from that
/// codec. [`CheckedArray::new`] runs every check of [`validate_array`](crate::validate_array) and
/// then builds copies of the array's `scale_offset` and `cast_value` codecs (inside
/// `sharding_indexed` too) that know the codecs before and after them. Writes through it:
/// - refuse an element only where the chain as a whole could not read it back (a value one
///   codec alone could not decode, which a later codec rounds or clamps to one it can, is
///   written);
/// - refuse the fill value only where the whole chain does not return it bit for bit;
/// - name, in an element's error, the value written to the array it came from
///   ([`CastValueError::Element`](crate::CastValueError::Element)'s `written`).
///
/// Everything else is the array's: `CheckedArray` dereferences to an [`Array`] with the same
/// storage, metadata and chunks, and every method of `Array` (reads, `store_array_subset`,
/// `store_chunk`, the asynchronous ones) works on it. The array it was made from is unchanged:
/// its codecs still check on their own.
///
/// ```rust
/// # use std::sync::Arc;
/// # use zarrs::array::{Array, ArrayMetadata};
/// # use zarrs::storage::store::MemoryStore;
/// use zarrs_scale_offset_cast::CheckedArray;
/// # let store = Arc::new(MemoryStore::new());
/// # let metadata: ArrayMetadata = serde_json::from_str(r#"{
/// #   "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float64",
/// #   "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
/// #   "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
/// #   "codecs": [
/// #     {"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
/// #     {"name": "cast_value", "configuration": {"data_type": "uint8",
/// #       "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
/// #     {"name": "bytes"}
/// #   ]
/// # }"#)?;
/// # Array::new_with_metadata(store.clone(), "/a", metadata)?.store_metadata()?;
/// let array = Array::open(store, "/a")?;
/// let checked = CheckedArray::new(&array)?; // every check of validate_array, then the codecs
/// checked.store_array_subset(&[0..4], vec![0.0, 1270.0, f64::NAN, 2540.0])?;
/// let values: Vec<f64> = checked.retrieve_array_subset(&[0..4])?;
/// assert_eq!(values[1], 1270.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct CheckedArray<TStorage: ?Sized> {
    array: Array<TStorage>,
}

impl<TStorage: ?Sized> CheckedArray<TStorage> {
    /// Checks `array` as [`validate_array`](crate::validate_array) does and builds the array
    /// whose writes are checked against the whole chain.
    ///
    /// It costs what `validate_array` costs (milliseconds for a chain through 16-bit types); the
    /// codecs of `array` are not changed.
    ///
    /// # Errors
    /// Returns the first error of [`validate_array`](crate::validate_array).
    pub fn new(array: &Array<TStorage>) -> Result<Self, ArrayError> {
        super::check_fill_value(array)?;
        let mut contexts = decide(array)?.into_iter();
        let codecs = in_chain(&array.codecs(), &mut contexts)?;
        let mut builder = array.builder();
        builder
            .array_to_array_codecs(codecs.array_to_array_codecs().to_vec())
            .array_to_bytes_codec(Arc::clone(codecs.array_to_bytes_codec()))
            .bytes_to_bytes_codecs(codecs.bytes_to_bytes_codecs().to_vec());
        let array = builder
            .build(array.storage(), array.path().as_str())
            .map_err(|error| {
                CodecError::Other(format!(
                    "CheckedArray: the array could not be built again with its codecs: {error}"
                ))
            })?;
        Ok(Self { array })
    }
}

impl<TStorage: ?Sized> Deref for CheckedArray<TStorage> {
    type Target = Array<TStorage>;

    fn deref(&self) -> &Array<TStorage> {
        &self.array
    }
}

/// `chain` with each of the crate's codecs replaced by a copy built with its context (the next of
/// `contexts`, which holds one entry per array-to-array codec in the order the checks met them),
/// and each `sharding_indexed` codec by one whose inner chain is built so.
fn in_chain(
    chain: &CodecChain,
    contexts: &mut impl Iterator<Item = Option<Context>>,
) -> Result<CodecChain, ArrayError> {
    let array_to_array: Vec<Arc<dyn ArrayToArrayCodecTraits>> = chain
        .array_to_array_codecs()
        .iter()
        .map(
            |codec| match (element_codec(codec), contexts.next().flatten()) {
                (Some(element), Some(context)) => element.in_chain(context),
                _ => Arc::clone(codec),
            },
        )
        .collect();
    let array_to_bytes: Arc<dyn ArrayToBytesCodecTraits> =
        match sharding_configuration(chain.array_to_bytes_codec())? {
            Some(sharding) => {
                let inner = CodecChain::from_metadata(&sharding.codecs)
                    .map_err(|error| CodecError::Other(error.to_string()))?;
                let index = CodecChain::from_metadata(&sharding.index_codecs)
                    .map_err(|error| CodecError::Other(error.to_string()))?;
                Arc::new(ShardingCodec::new(
                    sharding.chunk_shape,
                    Arc::new(in_chain(&inner, contexts)?),
                    Arc::new(index),
                    sharding.index_location,
                ))
            }
            None => Arc::clone(chain.array_to_bytes_codec()),
        };
    Ok(CodecChain::new(
        array_to_array,
        array_to_bytes,
        chain.bytes_to_bytes_codecs().to_vec(),
    ))
}
