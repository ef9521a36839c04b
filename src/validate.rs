//! Every check of both codecs, run eagerly.

use std::num::NonZeroU64;

use zarrs::array::codec::CodecChain;
use zarrs::array::codec::api::{CodecError, CodecMetadataOptions};
use zarrs::array::{Array, ArrayError, DataType, FillValue};
use zarrs::plugin::ZarrVersion;
use zarrs_metadata_ext::codec::sharding::ShardingCodecConfigurationV1;

use crate::{CastValueCodec, ScaleOffsetCodec};

/// Runs every check of the `scale_offset` and `cast_value` codecs of `array` now.
///
/// zarrs shows an array-to-array codec its data type and fill value only when chunks are encoded or
/// decoded, so the checks that depend on them run then, before any chunk is touched: that the data
/// type is supported, that `offset`, `scale` and the `scalar_map` entries are values of their data
/// types, and that the fill value passes through each codec (and, for `cast_value`, survives the
/// round trip). Call this right after `Array::open` or `ArrayBuilder::build` to get those errors
/// at once. Codecs inside `sharding_indexed` are checked too.
///
/// # Errors
/// Returns the first error, as a read or write would report it.
pub fn validate_array<TStorage: ?Sized>(array: &Array<TStorage>) -> Result<(), ArrayError> {
    let first_chunk = vec![0; array.dimensionality()];
    let shape = array.chunk_shape(&first_chunk)?;
    validate_chain(
        &array.codecs(),
        &shape,
        array.data_type(),
        array.fill_value(),
    )?;
    Ok(())
}

fn validate_chain(
    chain: &CodecChain,
    shape: &[NonZeroU64],
    data_type: &DataType,
    fill_value: &FillValue,
) -> Result<(), CodecError> {
    let mut shape = shape.to_vec();
    let mut data_type = data_type.clone();
    let mut fill_value = fill_value.clone();
    for codec in chain.array_to_array_codecs() {
        let any = codec.as_any();
        let (encoded_type, encoded_fill) =
            if let Some(codec) = any.downcast_ref::<ScaleOffsetCodec>() {
                codec.check(&data_type, &fill_value)?
            } else if let Some(codec) = any.downcast_ref::<CastValueCodec>() {
                codec.check(&data_type, &fill_value)?
            } else {
                let (_, encoded_type, encoded_fill) =
                    codec.encoded_representation(&shape, &data_type, &fill_value)?;
                (encoded_type, encoded_fill)
            };
        shape = codec.encoded_shape(&shape)?;
        data_type = encoded_type;
        fill_value = encoded_fill;
    }
    let array_to_bytes = chain.array_to_bytes_codec();
    if array_to_bytes.name(ZarrVersion::V3).as_deref() == Some("sharding_indexed") {
        // The subchunks of a shard pass through an inner chain of their own.
        let configuration = array_to_bytes
            .configuration(ZarrVersion::V3, &CodecMetadataOptions::default())
            .ok_or_else(|| CodecError::Other("sharding_indexed has no configuration".into()))?;
        let sharding: ShardingCodecConfigurationV1 = configuration
            .to_typed()
            .map_err(|error| CodecError::Other(error.to_string()))?;
        let inner = CodecChain::from_metadata(&sharding.codecs)
            .map_err(|error| CodecError::Other(error.to_string()))?;
        validate_chain(&inner, &sharding.chunk_shape, &data_type, &fill_value)
    } else {
        array_to_bytes.encoded_representation(&shape, &data_type, &fill_value)?;
        Ok(())
    }
}
