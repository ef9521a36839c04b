//! The zarrs codec traits for `cast_value`, and the crate's chain checks of it.

use std::sync::Arc;
use zarrs::array::codec::api::{ArrayToArrayCodecTraits, CodecError};
use zarrs::array::{DataType, FillValue};

use super::CastValueCodecConfiguration;
use crate::Direction;
use crate::chain::step::Step;
use crate::chain::{Context, ElementCodec, Place};
use crate::error::Error;
use crate::plugin::codec_traits::{
    check_fill_size, forward_encode_decode, impl_codec_traits, partial_coders,
};

use super::codec::CastValueCodec;

impl ElementCodec for CastValueCodec {
    fn step(&self, data_type: &DataType) -> Result<Step, Error> {
        let bound = self.bound(data_type)?;
        Ok(self.step_of(&bound))
    }

    fn check(
        &self,
        data_type: &DataType,
        fill_value: &FillValue,
    ) -> Result<(DataType, FillValue), Error> {
        let bound = self.bound(data_type)?;
        let encoded = FillValue::new(self.encode_fill_value(&bound, fill_value)?);
        Ok((self.settings.target_data_type.clone(), encoded))
    }

    fn convert_one(
        &self,
        data_type: &DataType,
        direction: Direction,
        bits: u64,
    ) -> Result<u64, Error> {
        let bound = self.bound(data_type)?;
        Ok(self.convert_one_bound(&bound, direction, bits)?)
    }

    fn in_chain(&self, context: Context) -> Arc<dyn ArrayToArrayCodecTraits> {
        let mut codec = self.clone();
        codec.place = Place::new(context);
        Arc::new(codec)
    }
}

impl_codec_traits!(CastValueCodec, CastValueCodecConfiguration);

#[cfg_attr(feature = "async", async_trait::async_trait)]
impl ArrayToArrayCodecTraits for CastValueCodec {
    fn encoded_data_type(&self, decoded_data_type: &DataType) -> Result<DataType, CodecError> {
        self.bound(decoded_data_type)?;
        Ok(self.settings.target_data_type.clone())
    }

    /// The encoded fill value.
    ///
    /// zarrs also calls this with a stand-in fill value of zero bytes to plan concurrency, which
    /// earlier codecs of the chain may have transformed: the codec cannot tell it from a real fill
    /// value, so a fill value that cannot be encoded gives zero bytes here. A fill value that
    /// encodes is encoded, whether or not it survives the round trip (what a sharding codec after
    /// this one fills its missing inner chunks with, as reads of arrays other implementations
    /// wrote need it). Encoding checks the real fill value strictly (as
    /// [`validate_array`](crate::validate_array) does up front). Errors that depend only on the
    /// data type are reported here.
    fn encoded_fill_value(
        &self,
        decoded_data_type: &DataType,
        decoded_fill_value: &FillValue,
    ) -> Result<FillValue, CodecError> {
        let bound = self.bound(decoded_data_type)?;
        check_fill_size(decoded_fill_value.size(), bound.source.size())
            .map_err(crate::CastValueError::from)?;
        Ok(FillValue::new(
            self.read_fill_value(&bound, decoded_fill_value)
                .unwrap_or_else(|_| vec![0; self.settings.target.size()]),
        ))
    }

    forward_encode_decode!();
    partial_coders!();
}
