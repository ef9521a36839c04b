//! A builder of `cast_value` codecs with typed values.

use zarrs::array::{DataType, FillValueMetadata};
use zarrs::metadata::Configuration;

use super::{CastValueCodec, CastValueError, CastValueOutOfRangeMode, CastValueRoundingMode};

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
    #[must_use]
    pub fn configuration(&self) -> Configuration {
        let mut map = serde_json::Map::new();
        let name = self.data_type.name_v3().map(|name| name.to_string());
        map.insert("data_type".into(), serde_json::json!(name));
        if let Some(rounding) = self.rounding {
            map.insert("rounding".into(), serde_json::json!(rounding));
        }
        if let Some(out_of_range) = self.out_of_range {
            map.insert("out_of_range".into(), serde_json::json!(out_of_range));
        }
        if !self.encode.is_empty() || !self.decode.is_empty() {
            let mut scalar_map = serde_json::Map::new();
            if !self.encode.is_empty() {
                scalar_map.insert("encode".into(), serde_json::json!(self.encode));
            }
            if !self.decode.is_empty() {
                scalar_map.insert("decode".into(), serde_json::json!(self.decode));
            }
            map.insert("scalar_map".into(), serde_json::Value::Object(scalar_map));
        }
        map.into()
    }

    /// Builds the codec.
    ///
    /// # Errors
    /// Returns a [`CastValueError`] if the configuration is invalid (an unsupported target data
    /// type, `wrap` with a float target, a `scalar_map` value that is not a value of the target).
    /// Entries keyed by values of the input data type are checked when the codec meets it.
    pub fn build(&self) -> Result<CastValueCodec, CastValueError> {
        CastValueCodec::from_configuration(self.configuration())
    }
}
