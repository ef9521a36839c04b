//! Array-to-array codecs run on the stored integers of a chunk. The legacy codec and the codecs
//! that replace it act element by element, so the integers, read and decompressed once, serve both.

use std::borrow::Cow;
use std::num::NonZeroU64;
use std::sync::Arc;

use serde_json::Value;
use zarrs::array::codec::api::{ArrayToArrayCodecTraits, Codec, CodecError};
use zarrs::array::{ArrayBytes, CodecOptions, DataType, FillValue};
use zarrs::metadata::v3::MetadataV3;

/// Codecs with the data type and fill value each one decodes to, and the size of a stored element.
pub(super) struct Elementwise {
    codecs: Vec<(Arc<dyn ArrayToArrayCodecTraits>, DataType, FillValue)>,
    stored_size: usize,
}

impl Elementwise {
    /// The codecs `metadata` of an array of `data_type` with `fill_value`.
    pub(super) fn new(
        metadata: &[Value],
        data_type: &DataType,
        fill_value: &FillValue,
    ) -> Result<Self, String> {
        let (mut data_type, mut fill_value) = (data_type.clone(), fill_value.clone());
        let mut codecs = Vec::new();
        for json in metadata {
            let metadata: MetadataV3 =
                serde_json::from_value(json.clone()).map_err(|e| e.to_string())?;
            let Codec::ArrayToArray(codec) =
                Codec::from_metadata(&metadata).map_err(|e| e.to_string())?
            else {
                return Err(format!("{json} is not an array-to-array codec"));
            };
            let encoded_type = codec
                .encoded_data_type(&data_type)
                .map_err(|e| e.to_string())?;
            let encoded_fill = codec
                .encoded_fill_value(&data_type, &fill_value)
                .map_err(|e| e.to_string())?;
            codecs.push((codec, data_type, fill_value));
            (data_type, fill_value) = (encoded_type, encoded_fill);
        }
        let stored_size = data_type.fixed_size().unwrap_or(1).max(1);
        Ok(Self {
            codecs,
            stored_size,
        })
    }

    /// Decodes `stored` (the integers of a chunk, native-endian) through the codecs.
    pub(super) fn decode(&self, stored: &[u8]) -> Result<ArrayBytes<'static>, CodecError> {
        let n = u64::try_from(stored.len() / self.stored_size).unwrap_or(0);
        let shape = [NonZeroU64::new(n).unwrap_or(NonZeroU64::MIN)];
        let options = CodecOptions::default();
        let mut bytes = ArrayBytes::new_flen(Cow::Borrowed(stored));
        for (codec, data_type, fill_value) in self.codecs.iter().rev() {
            bytes = codec.decode(bytes, &shape, data_type, fill_value, &options)?;
        }
        Ok(bytes.into_owned())
    }
}
