//! A builder of `cast_value` codecs with typed values.

use zarrs::array::{DataType, FillValueMetadata};
use zarrs::metadata::v3::MetadataV3;

use super::{
    CastValueCodec, CastValueCodecConfigurationV1, CastValueError, CastValueOutOfRangeMode,
    CastValueRoundingMode, CastValueScalarMap,
};

/// A builder of a [`CastValueCodec`]: the target data type, then the rounding mode, the
/// out-of-range mode and `scalar_map` entries as typed values (numbers, `f64::NAN`, ...).
///
/// ```rust
/// use zarrs::array::data_type;
/// use zarrs_scale_offset_cast::{CastValueCodec, CastValueOutOfRangeMode};
/// let codec = CastValueCodec::builder(data_type::uint16())
///     .out_of_range(CastValueOutOfRangeMode::Clamp)
///     .map(f64::NAN, 0u16) // NaN is stored as 0, and 0 reads back as NaN
///     .build()?;
/// # Ok::<(), zarrs_scale_offset_cast::CastValueError>(())
/// ```
#[derive(Clone, Debug)]
pub struct CastValueCodecBuilder {
    data_type: DataType,
    rounding: Option<CastValueRoundingMode>,
    out_of_range: Option<CastValueOutOfRangeMode>,
    encode: Vec<[FillValueMetadata; 2]>,
    decode: Vec<[FillValueMetadata; 2]>,
}

impl CastValueCodecBuilder {
    /// A builder of a cast to `data_type`, with `nearest-even` rounding, no out-of-range mode and
    /// no `scalar_map` entries.
    #[must_use]
    pub fn new(data_type: DataType) -> Self {
        Self {
            data_type,
            rounding: None,
            out_of_range: None,
            encode: Vec::new(),
            decode: Vec::new(),
        }
    }

    /// Sets the rounding mode.
    pub fn rounding(&mut self, rounding: CastValueRoundingMode) -> &mut Self {
        self.rounding = Some(rounding);
        self
    }

    /// Sets the out-of-range mode.
    pub fn out_of_range(&mut self, out_of_range: CastValueOutOfRangeMode) -> &mut Self {
        self.out_of_range = Some(out_of_range);
        self
    }

    /// Adds a `scalar_map.encode` entry: `value` (of the input data type) is stored as `stored`
    /// (of the target data type).
    pub fn encode_entry(
        &mut self,
        value: impl Into<FillValueMetadata>,
        stored: impl Into<FillValueMetadata>,
    ) -> &mut Self {
        self.encode.push([value.into(), stored.into()]);
        self
    }

    /// Adds a `scalar_map.decode` entry: `stored` (of the target data type) reads as `value` (of
    /// the input data type).
    pub fn decode_entry(
        &mut self,
        stored: impl Into<FillValueMetadata>,
        value: impl Into<FillValueMetadata>,
    ) -> &mut Self {
        self.decode.push([stored.into(), value.into()]);
        self
    }

    /// Adds entries both ways: `value` is stored as `stored`, and `stored` reads as `value` (a
    /// sentinel for NaN, say).
    pub fn map(
        &mut self,
        value: impl Into<FillValueMetadata>,
        stored: impl Into<FillValueMetadata>,
    ) -> &mut Self {
        let (value, stored) = (value.into(), stored.into());
        self.encode.push([value.clone(), stored.clone()]);
        self.decode.push([stored, value]);
        self
    }

    /// The configuration the codec is built from (and writes to array metadata).
    ///
    /// # Errors
    /// Returns [`CastValueError::InvalidConfiguration`] if the data type has no Zarr V3 name.
    pub fn configuration(&self) -> Result<CastValueCodecConfigurationV1, CastValueError> {
        let name = self.data_type.name_v3().ok_or_else(|| {
            CastValueError::InvalidConfiguration(format!(
                "data_type {} has no Zarr V3 name",
                self.data_type
            ))
        })?;
        let configuration = self.data_type.configuration_v3();
        let data_type = if configuration.is_empty() {
            MetadataV3::new(name)
        } else {
            MetadataV3::new_with_configuration(name, configuration)
        };
        let entries =
            |entries: &Vec<[FillValueMetadata; 2]>| (!entries.is_empty()).then(|| entries.clone());
        let (encode, decode) = (entries(&self.encode), entries(&self.decode));
        let scalar_map =
            (encode.is_some() || decode.is_some()).then_some(CastValueScalarMap { encode, decode });
        Ok(CastValueCodecConfigurationV1 {
            data_type,
            rounding: self.rounding,
            out_of_range: self.out_of_range,
            scalar_map,
        })
    }

    /// Builds the codec.
    ///
    /// # Errors
    /// Returns a [`CastValueError`] if the configuration is invalid (an unsupported target data
    /// type, `wrap` with a float target, a `scalar_map` value that is not a value of the target).
    /// Entries keyed by values of the input data type are checked when the codec meets it.
    pub fn build(&self) -> Result<CastValueCodec, CastValueError> {
        CastValueCodec::from_v1(self.configuration()?)
    }
}
