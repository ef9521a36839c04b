//! The zarrs codec traits for `scale_offset`, and the crate's chain checks of it.

use std::sync::Arc;
use zarrs::array::codec::api::{ArrayToArrayCodecTraits, CodecError};
use zarrs::array::{DataType, FillValue};

use super::ScaleOffsetCodecConfiguration;
use crate::Direction;
use crate::chain::step::Step;
use crate::chain::{Context, ElementCodec, Place};
use crate::error::Error;
use crate::plugin::codec_traits::{
    check_fill_size, forward_encode_decode, impl_codec_traits, partial_coders,
};

use super::codec::ScaleOffsetCodec;

impl ElementCodec for ScaleOffsetCodec {
    fn step(&self, data_type: &DataType) -> Result<Step, Error> {
        Ok(self.bound(data_type)?.step())
    }

    fn check(
        &self,
        data_type: &DataType,
        fill_value: &FillValue,
    ) -> Result<(DataType, FillValue), Error> {
        let bound = self.bound(data_type)?;
        let encoded = Self::encode_fill_value(&bound, fill_value)?;
        Ok((data_type.clone(), FillValue::new(encoded)))
    }

    fn convert_one(
        &self,
        data_type: &DataType,
        direction: Direction,
        bits: u64,
    ) -> Result<u64, Error> {
        Ok(self.bound(data_type)?.convert_one(direction, bits)?)
    }

    fn in_chain(&self, context: Context) -> Arc<dyn ArrayToArrayCodecTraits> {
        let mut codec = self.clone();
        codec.place = Place::new(context);
        Arc::new(codec)
    }
}

impl_codec_traits!(ScaleOffsetCodec, ScaleOffsetCodecConfiguration);

#[cfg_attr(feature = "async", async_trait::async_trait)]
impl ArrayToArrayCodecTraits for ScaleOffsetCodec {
    fn encoded_data_type(&self, decoded_data_type: &DataType) -> Result<DataType, CodecError> {
        self.bound(decoded_data_type)?;
        Ok(decoded_data_type.clone())
    }

    /// The encoded fill value.
    ///
    /// zarrs also calls this with a stand-in fill value of zero bytes to plan concurrency, which
    /// earlier codecs of the chain may have transformed: the codec cannot tell it from a real fill
    /// value, so a fill value that cannot be encoded is passed on unchanged here. Encoding and
    /// decoding check the real fill value strictly (as [`validate_array`](crate::validate_array)
    /// does up front). Errors that depend only on the data type are reported here.
    fn encoded_fill_value(
        &self,
        decoded_data_type: &DataType,
        decoded_fill_value: &FillValue,
    ) -> Result<FillValue, CodecError> {
        let bound = self.bound(decoded_data_type)?;
        check_fill_size(decoded_fill_value.size(), bound.data_type.size())
            .map_err(crate::ScaleOffsetError::from)?;
        Ok(Self::encode_fill_value(&bound, decoded_fill_value)
            .map_or_else(|_| decoded_fill_value.clone(), FillValue::new))
    }

    forward_encode_decode!();
    partial_coders!();
}
