//! The partial decoder of both codecs.
//!
//! zarrs' default partial decoder of an array-to-array codec decodes whatever the codecs after it
//! return, and for a chunk that was never written they return the encoded fill value: the read
//! would give the decode of the encoded fill value, while whole-chunk reads give the fill value
//! itself. Where the two differ (a fill value that does not come back from the codec bit for
//! bit), this decoder returns the fill value for a chunk that does not exist, so that every read
//! path gives the same bits. Otherwise it does what zarrs' default does: the codec decodes the
//! elements read.

use std::num::NonZeroU64;
use std::sync::Arc;

use zarrs::array::codec::api::{
    ArrayPartialDecoderTraits, ArrayToArrayCodecTraits, CodecError, CodecOptions,
};
use zarrs::array::{ArrayBytes, DataType, FillValue, Indexer};
use zarrs::storage::StorageError;

use crate::Direction;
use crate::chain::ElementCodec;
use crate::numeric::element_bits;

/// Whether `codec` decodes the fill value it encodes back to `fill_value`, bit for bit.
fn fill_comes_back<C: ArrayToArrayCodecTraits + ElementCodec>(
    codec: &C,
    data_type: &DataType,
    fill_value: &FillValue,
) -> bool {
    let Ok(encoded) = codec.encoded_fill_value(data_type, fill_value) else {
        return false;
    };
    let bits = element_bits(encoded.as_ne_bytes());
    let expected = element_bits(fill_value.as_ne_bytes());
    let mask = match fill_value.size() {
        size @ 1..8 => (1u64 << (8 * size)) - 1,
        _ => u64::MAX,
    };
    codec
        .convert_one(data_type, Direction::Decode, bits)
        .is_ok_and(|back| back & mask == expected & mask)
}

/// The partial decoder of a codec over `input` (see the module documentation).
pub(crate) struct PartialDecoder<T: ?Sized> {
    input: Arc<T>,
    codec: Arc<dyn ArrayToArrayCodecTraits>,
    data_type: DataType,
    fill_value: FillValue,
    /// Whether the codec returns the fill value bit for bit, so that no chunk needs a look at the
    /// store first.
    fill_comes_back: bool,
}

impl<T: ?Sized> PartialDecoder<T> {
    fn new<C: ArrayToArrayCodecTraits + ElementCodec>(
        codec: Arc<C>,
        input: Arc<T>,
        data_type: &DataType,
        fill_value: &FillValue,
    ) -> Self {
        Self {
            input,
            fill_comes_back: fill_comes_back(codec.as_ref(), data_type, fill_value),
            codec: codec.into_dyn(),
            data_type: data_type.clone(),
            fill_value: fill_value.clone(),
        }
    }

    /// The elements of a chunk that does not exist.
    fn fill(&self, elements: u64) -> Result<ArrayBytes<'static>, CodecError> {
        Ok(ArrayBytes::new_fill_value(
            &self.data_type,
            elements,
            &self.fill_value,
        )?)
    }

    /// The decode of `encoded`, the elements of `indexer`.
    fn decode(
        &self,
        encoded: ArrayBytes<'_>,
        indexer: &dyn Indexer,
        options: &CodecOptions,
    ) -> Result<ArrayBytes<'static>, CodecError> {
        let shape: Option<Vec<NonZeroU64>> = indexer
            .output_shape()
            .iter()
            .map(|&d| NonZeroU64::new(d))
            .collect();
        match shape {
            Some(shape) => Ok(self
                .codec
                .decode(encoded, &shape, &self.data_type, &self.fill_value, options)?
                .into_owned()),
            None => Ok(ArrayBytes::new_flen(Vec::new())),
        }
    }
}

/// The partial decoder of `codec` over `input` (see the module documentation).
pub(crate) fn partial_decoder<C: ArrayToArrayCodecTraits + ElementCodec>(
    codec: Arc<C>,
    input: Arc<dyn ArrayPartialDecoderTraits>,
    data_type: &DataType,
    fill_value: &FillValue,
) -> Arc<dyn ArrayPartialDecoderTraits> {
    Arc::new(PartialDecoder::new(codec, input, data_type, fill_value))
}

impl ArrayPartialDecoderTraits for PartialDecoder<dyn ArrayPartialDecoderTraits> {
    fn data_type(&self) -> &DataType {
        &self.data_type
    }

    fn exists(&self) -> Result<bool, StorageError> {
        self.input.exists()
    }

    fn size_held(&self) -> usize {
        self.input.size_held()
    }

    fn partial_decode(
        &self,
        indexer: &dyn Indexer,
        options: &CodecOptions,
    ) -> Result<ArrayBytes<'_>, CodecError> {
        if !self.fill_comes_back && !self.input.exists()? {
            return self.fill(indexer.len());
        }
        let encoded = self.input.partial_decode(indexer, options)?;
        self.decode(encoded, indexer, options)
    }

    fn supports_partial_decode(&self) -> bool {
        self.input.supports_partial_decode()
    }
}

#[cfg(feature = "async")]
mod asynchronous {
    use std::sync::Arc;

    use zarrs::array::codec::api::{
        ArrayToArrayCodecTraits, AsyncArrayPartialDecoderTraits, CodecError, CodecOptions,
    };
    use zarrs::array::{ArrayBytes, DataType, FillValue, Indexer};
    use zarrs::storage::StorageError;

    use super::PartialDecoder;
    use crate::chain::ElementCodec;

    /// The asynchronous partial decoder of `codec` over `input` (see the module documentation).
    pub(crate) fn async_partial_decoder<C: ArrayToArrayCodecTraits + ElementCodec>(
        codec: Arc<C>,
        input: Arc<dyn AsyncArrayPartialDecoderTraits>,
        data_type: &DataType,
        fill_value: &FillValue,
    ) -> Arc<dyn AsyncArrayPartialDecoderTraits> {
        Arc::new(PartialDecoder::new(codec, input, data_type, fill_value))
    }

    #[async_trait::async_trait]
    impl AsyncArrayPartialDecoderTraits for PartialDecoder<dyn AsyncArrayPartialDecoderTraits> {
        fn data_type(&self) -> &DataType {
            &self.data_type
        }

        async fn exists(&self) -> Result<bool, StorageError> {
            self.input.exists().await
        }

        fn size_held(&self) -> usize {
            self.input.size_held()
        }

        async fn partial_decode<'a>(
            &'a self,
            indexer: &dyn Indexer,
            options: &CodecOptions,
        ) -> Result<ArrayBytes<'a>, CodecError> {
            if !self.fill_comes_back && !self.input.exists().await? {
                return self.fill(indexer.len());
            }
            let encoded = self.input.partial_decode(indexer, options).await?;
            self.decode(encoded, indexer, options)
        }

        fn supports_partial_decode(&self) -> bool {
            self.input.supports_partial_decode()
        }
    }
}

#[cfg(feature = "async")]
pub(crate) use asynchronous::async_partial_decoder;
