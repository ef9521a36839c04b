//! The partial encoder of both codecs.
//!
//! zarrs writes part of an existing chunk through partial encoders where every codec of the
//! chain has one and `CodecOptions::with_experimental_partial_encoding` is set: `sharding_indexed`
//! then rewrites only the inner chunks the part touches. Both codecs are element-wise, so this
//! encoder encodes only the elements written (with every check of a whole-chunk write: a value the
//! chain could not read back, or a fill value that does not come back, is refused before anything
//! is handed on) and hands them to the codecs after it for the same region. Reads through it are
//! those of the codec's partial decoder.

use std::borrow::Cow;
use std::sync::Arc;

use zarrs::array::codec::api::{
    ArrayPartialDecoderTraits, ArrayPartialEncoderTraits, ArrayToArrayCodecTraits, CodecError,
    CodecOptions,
};
use zarrs::array::{ArrayBytes, DataType, FillValue, Indexer};
use zarrs::storage::StorageError;

use super::partial_decoder::partial_decoder;
use crate::chain::ElementCodec;

/// The partial encoder of a codec over `output`, the partial encoder of the codecs after it.
struct PartialEncoder {
    /// The codec's partial decoder over `output`.
    decoder: Arc<dyn ArrayPartialDecoderTraits>,
    output: Arc<dyn ArrayPartialEncoderTraits>,
    codec: Arc<dyn ArrayToArrayCodecTraits>,
    data_type: DataType,
    fill_value: FillValue,
}

/// The partial encoder of `codec` over `output` (see the module documentation).
pub(crate) fn partial_encoder<C: ArrayToArrayCodecTraits + ElementCodec>(
    codec: Arc<C>,
    output: Arc<dyn ArrayPartialEncoderTraits>,
    data_type: &DataType,
    fill_value: &FillValue,
) -> Arc<dyn ArrayPartialEncoderTraits> {
    let decoder = partial_decoder(
        Arc::clone(&codec),
        Arc::clone(&output).into_dyn_decoder(),
        data_type,
        fill_value,
    );
    Arc::new(PartialEncoder {
        decoder,
        output,
        codec: codec.into_dyn(),
        data_type: data_type.clone(),
        fill_value: fill_value.clone(),
    })
}

impl ArrayPartialDecoderTraits for PartialEncoder {
    fn data_type(&self) -> &DataType {
        &self.data_type
    }

    fn exists(&self) -> Result<bool, StorageError> {
        self.decoder.exists()
    }

    fn size_held(&self) -> usize {
        self.decoder.size_held()
    }

    fn partial_decode(
        &self,
        indexer: &dyn Indexer,
        options: &CodecOptions,
    ) -> Result<ArrayBytes<'_>, CodecError> {
        self.decoder.partial_decode(indexer, options)
    }

    fn supports_partial_decode(&self) -> bool {
        self.decoder.supports_partial_decode()
    }
}

impl ArrayPartialEncoderTraits for PartialEncoder {
    fn into_dyn_decoder(self: Arc<Self>) -> Arc<dyn ArrayPartialDecoderTraits> {
        self
    }

    fn erase(&self) -> Result<(), CodecError> {
        self.output.erase()
    }

    fn partial_encode(
        &self,
        indexer: &dyn Indexer,
        bytes: &ArrayBytes<'_>,
        options: &CodecOptions,
    ) -> Result<(), CodecError> {
        let shape: Option<Vec<_>> = indexer
            .output_shape()
            .iter()
            .map(|&n| std::num::NonZeroU64::new(n))
            .collect();
        let Some(shape) = shape else {
            // No elements: nothing to write.
            return Ok(());
        };
        // The codecs take fixed-size elements; lend them rather than copy them.
        let input = match bytes {
            ArrayBytes::Fixed(raw) => ArrayBytes::new_flen(Cow::Borrowed(&**raw)),
            other => other.clone(),
        };
        let encoded =
            self.codec
                .encode(input, &shape, &self.data_type, &self.fill_value, options)?;
        self.output.partial_encode(indexer, &encoded, options)
    }

    fn supports_partial_encode(&self) -> bool {
        self.output.supports_partial_encode()
    }
}
