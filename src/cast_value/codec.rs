//! The zarrs codec traits for `cast_value`.

use std::borrow::Cow;
use std::num::NonZeroU64;
use std::sync::Arc;

use zarrs::array::codec::api::{
    ArrayCodecTraits, ArrayToArrayCodecTraits, CodecError, CodecMetadataOptions, CodecOptions,
    CodecTraits, PartialDecoderCapability, PartialEncoderCapability, RecommendedConcurrency,
};
use zarrs::array::{ArrayBytes, DataType, FillValue, FillValueMetadata};
use zarrs::metadata::Configuration;
use zarrs::plugin::{PluginCreateError, ZarrVersion};
use zarrs_metadata_ext::codec::cast_value::{
    CastValueCodecConfiguration, CastValueCodecConfigurationV1,
};

use super::CastValueError;
use super::scalar_map::read_entries;
use crate::Direction;
use crate::binding::Binding;
use crate::chunk::ChunkKernel;
use crate::dispatch::cast_kernel;
use crate::error::{ElementFault, FaultKind};
use crate::numeric::{
    Kind, NumericType, OutOfRangeMode, RoundingMode, Value, check_scalar_syntax, decode,
    element_bits, numeric_type, parse_scalar,
};
use crate::simd::Isa;

/// The `cast_value` codec: converts the value of each element to another data type.
///
/// Create it from metadata (zarrs does so when it opens an array) or with
/// [`new_with_configuration`](Self::new_with_configuration).
#[derive(Clone, Debug)]
pub struct CastValueCodec {
    /// The configuration as given; written back unchanged.
    configuration: Configuration,
    settings: Settings,
    binding: Binding<Bound>,
}

/// The configuration, read.
#[derive(Clone, Debug)]
struct Settings {
    target: NumericType,
    target_data_type: DataType,
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
    encode_map: Vec<[FillValueMetadata; 2]>,
    decode_map: Vec<[FillValueMetadata; 2]>,
}

/// The codec bound to its input data type.
#[derive(Debug)]
struct Bound {
    source: NumericType,
    encode: Arc<dyn ChunkKernel>,
    decode: Arc<dyn ChunkKernel>,
}

fn invalid(message: impl Into<String>) -> CastValueError {
    CastValueError::InvalidConfiguration(message.into())
}

impl CastValueCodec {
    /// Creates a `cast_value` codec from a configuration.
    ///
    /// # Errors
    /// Returns [`PluginCreateError::ConfigurationInvalid`] if the configuration is invalid: an
    /// unsupported target data type, `"wrap"` with a float target, or a `scalar_map` entry that is
    /// not a valid scalar.
    pub fn new_with_configuration(
        configuration: &CastValueCodecConfiguration,
    ) -> Result<Self, PluginCreateError> {
        let json =
            serde_json::to_value(configuration).map_err(|error| invalid(error.to_string()))?;
        let serde_json::Value::Object(map) = json else {
            return Err(invalid("the configuration is not a JSON object").into());
        };
        Ok(Self::from_configuration(map.into())?)
    }

    /// Creates the codec from the `configuration` of its metadata, which is kept to be written
    /// back unchanged.
    pub(super) fn from_configuration(configuration: Configuration) -> Result<Self, CastValueError> {
        let settings = read_configuration(&configuration)?;
        Ok(Self {
            configuration,
            settings,
            binding: Binding::default(),
        })
    }

    fn bound(&self, data_type: &DataType) -> Result<Arc<Bound>, CastValueError> {
        self.binding.get(data_type, || self.bind(data_type))
    }

    /// Reads the data-type-dependent configuration for `data_type` and chooses the kernels.
    fn bind(&self, data_type: &DataType) -> Result<Bound, CastValueError> {
        let s = &self.settings;
        let source =
            numeric_type(data_type).ok_or_else(|| CastValueError::UnsupportedDataType {
                data_type: data_type.clone(),
            })?;
        let encode_map = read_entries(&s.encode_map, Direction::Encode, source, s.target)?;
        let decode_map = read_entries(&s.decode_map, Direction::Decode, s.target, source)?;
        Ok(Bound {
            source,
            encode: cast_kernel(
                source,
                s.target,
                &encode_map,
                s.rounding,
                s.out_of_range,
                Isa::best(),
            ),
            decode: cast_kernel(
                s.target,
                source,
                &decode_map,
                s.rounding,
                s.out_of_range,
                Isa::best(),
            ),
        })
    }

    /// The error for an element of a chunk.
    fn element_error(
        &self,
        direction: Direction,
        from: NumericType,
        to: NumericType,
        fault: ElementFault,
    ) -> CastValueError {
        CastValueError::Element {
            direction,
            index: fault.index,
            value: fault.value.to_string(),
            from: from.name(),
            to: to.name(),
            reason: self.reason(direction, to, fault),
        }
    }

    /// Why an element failed, and what to change.
    fn reason(&self, direction: Direction, to: NumericType, fault: ElementFault) -> String {
        let map = format!("scalar_map.{direction}");
        match fault.kind {
            FaultKind::NanNotRepresentable => {
                format!("{to} has no NaN; add an entry for \"NaN\" to {map}")
            }
            FaultKind::InfinityNotRepresentable => {
                format!(
                    "{to} has no infinities; add an entry for \"{}\" to {map}",
                    fault.value
                )
            }
            FaultKind::OutOfRange | FaultKind::NotExact => {
                let modes = match (to.kind(), self.settings.out_of_range) {
                    (_, Some(OutOfRangeMode::Clamp)) => "",
                    (Kind::Int(_), _) => "set out_of_range to \"clamp\" or \"wrap\", or ",
                    (Kind::Float(_), _) => "set out_of_range to \"clamp\", or ",
                };
                format!(
                    "it is outside the range of {to} {} after rounding ({}); {modes}add an entry for it to {map}",
                    range_text(to),
                    rounding_name(self.settings.rounding),
                )
            }
        }
    }

    /// Pushes the fill value through the codec and back, and returns its encoding.
    ///
    /// The specification requires the fill value to survive the round trip.
    fn encode_fill_value(
        &self,
        bound: &Bound,
        fill_value: &FillValue,
    ) -> Result<Vec<u8>, CastValueError> {
        let (source, target) = (bound.source, self.settings.target);
        let bytes = fill_value.as_ne_bytes();
        let fill_error = |reason: String| CastValueError::FillValue {
            value: decode(source.kind(), element_bits(bytes)).to_string(),
            data_type: source.name(),
            reason,
        };
        if bytes.len() != source.size() {
            return Err(fill_error(format!(
                "has {} bytes, expected {}",
                bytes.len(),
                source.size()
            )));
        }
        let encoded = bound
            .encode
            .apply(Cow::Borrowed(bytes), 1)
            .map_err(|fault| {
                fill_error(format!(
                    "cannot be encoded: {}",
                    self.reason(Direction::Encode, target, fault)
                ))
            })?;
        let encoded_value = decode(target.kind(), element_bits(&encoded));
        let decoded = bound
            .decode
            .apply(Cow::Borrowed(&encoded), 1)
            .map_err(|fault| {
                fill_error(format!(
                    "encodes to {encoded_value} ({target}), which cannot be decoded: {}",
                    self.reason(Direction::Decode, source, fault)
                ))
            })?;
        let original = decode(source.kind(), element_bits(bytes));
        let round_trip = decode(source.kind(), element_bits(&decoded));
        if !original.same_number(round_trip) {
            return Err(fill_error(format!(
                "does not survive the round trip: it encodes to {encoded_value} ({target}) and decodes to {round_trip}; use a fill value that {target} holds exactly, or map it with scalar_map"
            )));
        }
        Ok(encoded.into_owned())
    }

    /// Checks the codec against its input data type and fill value, as encoding and decoding
    /// would, and returns the encoded data type and fill value.
    pub(crate) fn check(
        &self,
        data_type: &DataType,
        fill_value: &FillValue,
    ) -> Result<(DataType, FillValue), CastValueError> {
        let bound = self.bound(data_type)?;
        let encoded = self.encode_fill_value(&bound, fill_value)?;
        Ok((
            self.settings.target_data_type.clone(),
            FillValue::new(encoded),
        ))
    }

    fn convert<'a>(
        &self,
        direction: Direction,
        bytes: ArrayBytes<'a>,
        data_type: &DataType,
        fill_value: &FillValue,
        options: &CodecOptions,
    ) -> Result<ArrayBytes<'a>, CodecError> {
        let bound = self.bound(data_type)?;
        self.encode_fill_value(&bound, fill_value)?;
        let (kernel, from, to) = match direction {
            Direction::Encode => (&bound.encode, bound.source, self.settings.target),
            Direction::Decode => (&bound.decode, self.settings.target, bound.source),
        };
        let bytes = bytes.into_fixed()?;
        let converted = kernel
            .apply(bytes, options.concurrent_target())
            .map_err(|fault| self.element_error(direction, from, to, fault))?;
        Ok(ArrayBytes::new_flen(converted))
    }
}

/// The spec's name of a rounding mode.
pub(crate) const fn rounding_name(mode: RoundingMode) -> &'static str {
    match mode {
        RoundingMode::NearestEven => "nearest-even",
        RoundingMode::NearestAway => "nearest-away",
        RoundingMode::TowardsZero => "towards-zero",
        RoundingMode::TowardsPositive => "towards-positive",
        RoundingMode::TowardsNegative => "towards-negative",
    }
}

/// The finite range of a data type, as `[min, max]`.
fn range_text(data_type: NumericType) -> String {
    match data_type.kind() {
        Kind::Int(format) => format!("[{}, {}]", format.min(), format.max()),
        Kind::Float(format) => {
            let (significand, exponent) = format.max_finite();
            let max = Value::Finite {
                negative: false,
                significand,
                exponent,
            };
            if format.is_signed() {
                format!("[-{max}, {max}]")
            } else {
                format!("[{}, {max}]", decode(data_type.kind(), 0))
            }
        }
    }
}

/// Checks the shape of `scalar_map`: `{"encode": [[in, out], ...], "decode": [...]}`.
fn check_scalar_map_shape(map: &serde_json::Value) -> Result<(), CastValueError> {
    let map = map.as_object().ok_or_else(|| {
        invalid(format!(
            "scalar_map must be an object with \"encode\" and/or \"decode\", not {map}"
        ))
    })?;
    for (direction, entries) in map {
        if direction != "encode" && direction != "decode" {
            return Err(invalid(format!(
                "scalar_map has an unknown field {direction:?}; expected \"encode\" or \"decode\""
            )));
        }
        let entries = entries.as_array().ok_or_else(|| {
            invalid(format!(
                "scalar_map.{direction} must be a list of [input, output] pairs, not {entries}"
            ))
        })?;
        for (position, entry) in entries.iter().enumerate() {
            if entry.as_array().is_none_or(|pair| pair.len() != 2) {
                return Err(invalid(format!(
                    "scalar_map.{direction}[{position}] must be an [input, output] pair, not {entry}"
                )));
            }
        }
    }
    Ok(())
}

/// Reads and checks everything in the configuration that does not depend on the input data type.
fn read_configuration(configuration: &Configuration) -> Result<Settings, CastValueError> {
    for (key, value) in configuration.iter() {
        if value.is_null() {
            return Err(invalid(format!(
                "{key} must not be null; omit it for its default"
            )));
        }
        if key == "scalar_map" {
            check_scalar_map_shape(value)?;
        }
    }
    if !configuration.contains_key("data_type") {
        return Err(invalid("the configuration must name the target data_type"));
    }
    let config: CastValueCodecConfigurationV1 =
        serde_json::from_value(serde_json::Value::Object((**configuration).clone()))
            .map_err(|error| invalid(error.to_string()))?;

    let target_data_type = DataType::from_metadata(&config.data_type)
        .map_err(|error| invalid(format!("data_type {}: {error}", config.data_type)))?;
    let target = numeric_type(&target_data_type).ok_or_else(|| {
        invalid(format!(
            "data_type {} is not supported: cast_value casts to integer and floating-point data types",
            config.data_type
        ))
    })?;
    if config.out_of_range == Some(OutOfRangeMode::Wrap) && !target.is_integer() {
        return Err(invalid(format!(
            "out_of_range \"wrap\" is only permitted for integer data types, not {target}; use \"clamp\" or omit out_of_range"
        )));
    }

    let (encode_map, decode_map) = config
        .scalar_map
        .map(|map| {
            (
                map.encode.unwrap_or_default(),
                map.decode.unwrap_or_default(),
            )
        })
        .unwrap_or_default();
    // Scalars of the target type are read now; those of the input type when it is known, and
    // until then they must at least be JSON scalars.
    let check = |entries: &[[FillValueMetadata; 2]], direction: Direction, target_side: usize| {
        for (position, entry) in entries.iter().enumerate() {
            for (side_index, json) in entry.iter().enumerate() {
                let side = if side_index == 0 { "key" } else { "value" };
                let result = if side_index == target_side {
                    parse_scalar(target, json, true).map(|_| ())
                } else {
                    check_scalar_syntax(json, true)
                };
                result.map_err(|reason| CastValueError::InvalidScalarMapEntry {
                    direction,
                    position,
                    side,
                    json: json.to_string(),
                    data_type: if side_index == target_side {
                        target.name()
                    } else {
                        "the input data type"
                    },
                    reason: reason.to_string(),
                })?;
            }
        }
        Ok::<(), CastValueError>(())
    };
    check(&encode_map, Direction::Encode, 1)?;
    check(&decode_map, Direction::Decode, 0)?;

    Ok(Settings {
        target,
        target_data_type,
        rounding: config.rounding.unwrap_or_default(),
        out_of_range: config.out_of_range,
        encode_map,
        decode_map,
    })
}

impl CodecTraits for CastValueCodec {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn configuration(
        &self,
        _version: ZarrVersion,
        _options: &CodecMetadataOptions,
    ) -> Option<Configuration> {
        Some(self.configuration.clone())
    }

    fn partial_decoder_capability(&self) -> PartialDecoderCapability {
        PartialDecoderCapability {
            partial_read: true,
            partial_decode: true,
        }
    }

    fn partial_encoder_capability(&self) -> PartialEncoderCapability {
        PartialEncoderCapability {
            partial_encode: false,
        }
    }
}

impl ArrayCodecTraits for CastValueCodec {
    fn recommended_concurrency(
        &self,
        shape: &[NonZeroU64],
        _data_type: &DataType,
    ) -> Result<RecommendedConcurrency, CodecError> {
        Ok(crate::chunk::recommended_concurrency(shape))
    }
}

impl ArrayToArrayCodecTraits for CastValueCodec {
    fn into_dyn(self: Arc<Self>) -> Arc<dyn ArrayToArrayCodecTraits> {
        self
    }

    fn encoded_data_type(&self, decoded_data_type: &DataType) -> Result<DataType, CodecError> {
        self.bound(decoded_data_type)?;
        Ok(self.settings.target_data_type.clone())
    }

    /// The encoded fill value.
    ///
    /// zarrs also calls this with a stand-in fill value of zero bytes to plan concurrency, so a
    /// fill value that cannot be encoded gives zero bytes here; encoding and decoding check the
    /// real fill value strictly (and [`validate_array`](crate::validate_array) does it up front).
    fn encoded_fill_value(
        &self,
        decoded_data_type: &DataType,
        decoded_fill_value: &FillValue,
    ) -> Result<FillValue, CodecError> {
        let bound = self.bound(decoded_data_type)?;
        Ok(
            match bound
                .encode
                .apply(Cow::Borrowed(decoded_fill_value.as_ne_bytes()), 1)
            {
                Ok(encoded) => FillValue::new(encoded.into_owned()),
                Err(_) => FillValue::new(vec![0; self.settings.target.size()]),
            },
        )
    }

    fn encode<'a>(
        &self,
        bytes: ArrayBytes<'a>,
        _shape: &[NonZeroU64],
        data_type: &DataType,
        fill_value: &FillValue,
        options: &CodecOptions,
    ) -> Result<ArrayBytes<'a>, CodecError> {
        self.convert(Direction::Encode, bytes, data_type, fill_value, options)
    }

    fn decode<'a>(
        &self,
        bytes: ArrayBytes<'a>,
        _shape: &[NonZeroU64],
        data_type: &DataType,
        fill_value: &FillValue,
        options: &CodecOptions,
    ) -> Result<ArrayBytes<'a>, CodecError> {
        self.convert(Direction::Decode, bytes, data_type, fill_value, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zarrs::array::data_type;

    fn codec(json: &str) -> Result<CastValueCodec, CastValueError> {
        let configuration: Configuration = serde_json::from_str(json).unwrap();
        CastValueCodec::from_configuration(configuration)
    }

    #[test]
    fn configuration_errors_that_need_no_data_type_are_found_at_creation() {
        let error = |json| codec(json).unwrap_err().to_string();
        assert!(
            error(r#"{"data_type": "float32", "out_of_range": "wrap"}"#)
                .contains("only permitted for integer")
        );
        assert!(
            error(r#"{"data_type": "uint8", "out_of_range": "saturate"}"#).contains("saturate")
        );
        assert!(
            error(r#"{"data_type": "uint8", "out_of_range": null}"#).contains("must not be null")
        );
        assert!(error(r#"{"data_type": "uint8", "bogus": 1}"#).contains("bogus"));
        assert!(error(r"{}").contains("data_type"));
        assert!(error(r#"{"data_type": "complex64"}"#).contains("not supported"));
        assert!(
            error(r#"{"data_type": "uint8", "scalar_map": {"encode": [["NaN", 999]]}}"#)
                .contains("999")
        );
        assert!(
            error(r#"{"data_type": "uint8", "scalar_map": {"encode": [[[1], 0]]}}"#)
                .contains("key [1]")
        );
        assert!(
            error(r#"{"data_type": "uint8", "scalar_map": {"encode": [[1.0, 2, 3]]}}"#)
                .contains("scalar_map")
        );
    }

    #[test]
    fn the_configuration_is_written_back_as_given() {
        let json = r#"{"data_type": {"name": "uint8"}, "scalar_map": {"encode": [["+Infinity", 0], [0.0, 1]]}}"#;
        let written = codec(json)
            .unwrap()
            .configuration(ZarrVersion::V3, &CodecMetadataOptions::default());
        let expected: Configuration = serde_json::from_str(json).unwrap();
        assert_eq!(written, Some(expected));
    }

    #[test]
    fn a_fill_value_must_survive_the_round_trip() {
        let codec = codec(r#"{"data_type": "float32"}"#).unwrap();
        let float64 = data_type::float64();
        assert!(codec.check(&float64, &FillValue::from(0.5f64)).is_ok());
        let error = codec
            .check(&float64, &FillValue::from(0.1f64))
            .unwrap_err()
            .to_string();
        assert!(error.contains("does not survive the round trip"), "{error}");
        // The stand-in zero fill of zarrs' concurrency planning never fails.
        let to_e8m0 = CastValueCodec::from_configuration(
            serde_json::from_str(r#"{"data_type": "float8_e8m0fnu"}"#).unwrap(),
        )
        .unwrap();
        assert!(to_e8m0.check(&float64, &FillValue::from(0.0f64)).is_err());
        assert!(
            to_e8m0
                .encoded_fill_value(&float64, &FillValue::from(0.0f64))
                .is_ok()
        );
    }
}
