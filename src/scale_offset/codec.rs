//! The zarrs codec traits for `scale_offset`.

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

use super::arithmetic::Parameters;
use super::{ScaleOffsetCodecConfiguration, ScaleOffsetCodecConfigurationV1, ScaleOffsetError};
use crate::Direction;
use crate::binding::Binding;
use crate::chunk::ChunkKernel;
use crate::dispatch::scale_offset_kernel;
use crate::error::{ElementFault, FaultKind};
use crate::numeric::{
    NumericType, Value, check_scalar_syntax, decode, element_bits, numeric_type, parse_scalar,
};
use crate::simd::Isa;

/// The `scale_offset` codec: `(x - offset) * scale` on encode, `(x / scale) + offset` on decode,
/// in the arithmetic of the data type.
///
/// Create it from metadata (zarrs does so when it opens an array) or with
/// [`new_with_configuration`](Self::new_with_configuration).
#[derive(Clone, Debug)]
pub struct ScaleOffsetCodec {
    /// The configuration as given; written back unchanged.
    configuration: Configuration,
    offset: Option<FillValueMetadata>,
    scale: Option<FillValueMetadata>,
    binding: Binding<Bound>,
}

/// The codec bound to its data type.
#[derive(Debug)]
struct Bound {
    data_type: NumericType,
    parameters: Parameters,
    /// `None` when the codec does nothing.
    kernels: Option<[Arc<dyn ChunkKernel>; 2]>,
}

fn invalid(message: impl Into<String>) -> ScaleOffsetError {
    ScaleOffsetError::InvalidConfiguration(message.into())
}

/// Whether a scale is written as zero (whatever the data type).
fn is_zero(json: &FillValueMetadata) -> bool {
    match json {
        FillValueMetadata::Number(number) => number.as_f64() == Some(0.0),
        FillValueMetadata::String(s) => match s.strip_prefix("0x") {
            Some(hex) => !hex.is_empty() && hex.chars().all(|c| c == '0'),
            None => s.trim().parse::<f64>() == Ok(0.0),
        },
        _ => false,
    }
}

impl ScaleOffsetCodec {
    /// Creates a `scale_offset` codec from a configuration.
    ///
    /// # Errors
    /// Returns [`PluginCreateError::ConfigurationInvalid`] if `offset` or `scale` is not a JSON
    /// scalar, or the scale is zero.
    pub fn new_with_configuration(
        configuration: &ScaleOffsetCodecConfiguration,
    ) -> Result<Self, PluginCreateError> {
        Ok(Self::from_configuration(configuration.clone().into())?)
    }

    /// Creates the codec from the `configuration` of its metadata (empty if absent), which is kept
    /// to be written back unchanged.
    pub(super) fn from_configuration(
        configuration: Configuration,
    ) -> Result<Self, ScaleOffsetError> {
        if let Some((key, _)) = configuration.iter().find(|(_, value)| value.is_null()) {
            return Err(invalid(format!(
                "{key} must not be null; omit it for the identity"
            )));
        }
        let config: ScaleOffsetCodecConfigurationV1 =
            serde_json::from_value(serde_json::Value::Object((*configuration).clone()))
                .map_err(|error| invalid(error.to_string()))?;
        if config.scale.as_ref().is_some_and(is_zero) {
            return Err(ScaleOffsetError::ZeroScale);
        }
        for (field, json) in [("offset", &config.offset), ("scale", &config.scale)] {
            if let Some(json) = json {
                check_scalar_syntax(json, false).map_err(|reason| {
                    invalid(format!("{field} {json} is not a scalar: {reason}"))
                })?;
            }
        }
        Ok(Self {
            configuration,
            offset: config.offset,
            scale: config.scale,
            binding: Binding::default(),
        })
    }

    fn bound(&self, data_type: &DataType) -> Result<Arc<Bound>, ScaleOffsetError> {
        self.binding.get(data_type, || self.bind(data_type))
    }

    /// Reads `offset` and `scale` as values of `data_type` and chooses the kernels.
    fn bind(&self, data_type: &DataType) -> Result<Bound, ScaleOffsetError> {
        let t = numeric_type(data_type).ok_or_else(|| ScaleOffsetError::UnsupportedDataType {
            data_type: data_type.clone(),
        })?;
        let read = |field: &'static str, json: &Option<FillValueMetadata>| {
            json.as_ref()
                .map(|json| {
                    parse_scalar(t, json, false)
                        .map(|bits| decode(t.kind(), bits))
                        .map_err(|reason| ScaleOffsetError::InvalidParameter {
                            field,
                            json: json.to_string(),
                            data_type: t.name(),
                            reason: reason.to_string(),
                        })
                })
                .transpose()
        };
        let parameters = Parameters {
            offset: read("offset", &self.offset)?,
            scale: read("scale", &self.scale)?,
        };
        if parameters.scale.is_some_and(Value::is_zero) {
            return Err(ScaleOffsetError::ZeroScale);
        }
        let kernels = (!parameters.is_identity()).then(|| {
            [Direction::Encode, Direction::Decode]
                .map(|direction| scale_offset_kernel(t, direction, parameters, Isa::best()))
        });
        Ok(Bound {
            data_type: t,
            parameters,
            kernels,
        })
    }

    /// Why an element failed, and what to change.
    fn reason(bound: &Bound, direction: Direction, fault: &ElementFault) -> String {
        let t = bound.data_type;
        let Parameters { offset, scale } = bound.parameters;
        let text = |v: Option<Value>, identity: &str| {
            v.map_or_else(|| identity.to_string(), |v| v.to_string())
        };
        let (offset, scale) = (text(offset, "0"), text(scale, "1"));
        match (fault.kind, direction) {
            (FaultKind::NotExact, _) => format!(
                "{} / {scale} leaves a remainder, and {t} holds only integers; integer data must be multiples of the scale",
                fault.value
            ),
            (_, Direction::Encode) => format!(
                "(x - {offset}) * {scale} leaves the range of {t}; choose an offset and scale that keep every value in range, or a wider data type"
            ),
            (_, Direction::Decode) => format!(
                "(x / {scale}) + {offset} leaves the range of {t}; the stored data does not fit this offset and scale"
            ),
        }
    }

    /// Encodes the fill value, strictly.
    fn encode_fill_value(
        bound: &Bound,
        fill_value: &FillValue,
    ) -> Result<Vec<u8>, ScaleOffsetError> {
        let bytes = fill_value.as_ne_bytes();
        let t = bound.data_type;
        let error = |reason: String| ScaleOffsetError::FillValue {
            value: decode(t.kind(), element_bits(bytes)).to_string(),
            data_type: t.name(),
            reason,
        };
        if bytes.len() != t.size() {
            return Err(error(format!(
                "it has {} bytes, expected {}",
                bytes.len(),
                t.size()
            )));
        }
        match &bound.kernels {
            None => Ok(bytes.to_vec()),
            Some([encode, _]) => encode
                .apply(Cow::Borrowed(bytes), 1)
                .map(Cow::into_owned)
                .map_err(|fault| error(Self::reason(bound, Direction::Encode, &fault))),
        }
    }

    /// Checks the codec against its input data type and fill value, as encoding and decoding
    /// would, and returns the encoded data type and fill value.
    pub(crate) fn check(
        &self,
        data_type: &DataType,
        fill_value: &FillValue,
    ) -> Result<(DataType, FillValue), ScaleOffsetError> {
        let bound = self.bound(data_type)?;
        let encoded = Self::encode_fill_value(&bound, fill_value)?;
        Ok((data_type.clone(), FillValue::new(encoded)))
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
        Self::encode_fill_value(&bound, fill_value)?;
        let Some([encode, decode]) = &bound.kernels else {
            // No offset and no scale: no arithmetic at all.
            return Ok(bytes);
        };
        let kernel = match direction {
            Direction::Encode => encode,
            Direction::Decode => decode,
        };
        let converted = kernel
            .apply(bytes.into_fixed()?, options.concurrent_target())
            .map_err(|fault| ScaleOffsetError::Element {
                direction,
                index: fault.index,
                value: fault.value.to_string(),
                data_type: bound.data_type.name(),
                reason: Self::reason(&bound, direction, &fault),
            })?;
        Ok(ArrayBytes::new_flen(converted))
    }
}

impl CodecTraits for ScaleOffsetCodec {
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

impl ArrayCodecTraits for ScaleOffsetCodec {
    fn recommended_concurrency(
        &self,
        shape: &[NonZeroU64],
        _data_type: &DataType,
    ) -> Result<RecommendedConcurrency, CodecError> {
        Ok(crate::chunk::recommended_concurrency(shape))
    }
}

impl ArrayToArrayCodecTraits for ScaleOffsetCodec {
    fn into_dyn(self: Arc<Self>) -> Arc<dyn ArrayToArrayCodecTraits> {
        self
    }

    fn encoded_data_type(&self, decoded_data_type: &DataType) -> Result<DataType, CodecError> {
        self.bound(decoded_data_type)?;
        Ok(decoded_data_type.clone())
    }

    /// The encoded fill value.
    ///
    /// zarrs also calls this with a stand-in fill value of zero bytes to plan concurrency, so a
    /// fill value that cannot be encoded is passed on unchanged here; encoding and decoding check
    /// the real fill value strictly (and [`validate_array`](crate::validate_array) does it up front).
    fn encoded_fill_value(
        &self,
        decoded_data_type: &DataType,
        decoded_fill_value: &FillValue,
    ) -> Result<FillValue, CodecError> {
        let bound = self.bound(decoded_data_type)?;
        Ok(Self::encode_fill_value(&bound, decoded_fill_value)
            .map_or_else(|_| decoded_fill_value.clone(), FillValue::new))
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
