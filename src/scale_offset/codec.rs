//! The `scale_offset` codec: its configuration, bound to each data type it meets, and its conversions.

use std::num::NonZeroU64;
use std::sync::Arc;

use zarrs::array::codec::api::{CodecError, CodecOptions};
use zarrs::array::{ArrayBytes, DataType, FillValue, FillValueMetadata};
use zarrs::metadata::Configuration;
use zarrs::plugin::PluginCreateError;

use super::config::check_parameter;
use super::kernel::scale_offset_kernel;
use super::message::reason;
use super::{
    NAME, ScaleOffsetCodecConfiguration, ScaleOffsetCodecConfigurationV1, ScaleOffsetError,
};
use crate::Direction;
use crate::chain::step::{Kernels, Step};
use crate::chain::{Context, Place, check_fill_rule, convert_chunk};
use crate::element::scale_offset::Parameters;
use crate::element::scale_offset::element;
use crate::engine::simd::Isa;
use crate::engine::{Kernel, blockwise};
use crate::error::Error;
use crate::numeric::RoundingMode::NearestEven;
use crate::numeric::fault::ElementFault;
use crate::numeric::{
    NumericType, Value, decode, element_bits, encode, numeric_type, parse_scalar,
    write_element_bits,
};
use crate::plugin::binding::Binding;
use crate::plugin::codec_traits::{check_fill_size, check_length};

/// The `scale_offset` codec: `(x - offset) * scale` on encode, `(x / scale) + offset` on decode,
/// in the arithmetic of the data type.
///
/// Create it from metadata (zarrs does so when it opens an array) or with
/// [`new_with_configuration`](Self::new_with_configuration).
#[derive(Clone, Debug)]
pub struct ScaleOffsetCodec {
    /// The configuration as given; written back unchanged.
    pub(super) configuration: ScaleOffsetCodecConfigurationV1,
    binding: Binding<Bound>,
    pub(super) place: Place,
}

/// The codec bound to its data type.
#[derive(Debug)]
pub(super) struct Bound {
    pub(super) data_type: NumericType,
    parameters: Parameters,
    /// `None` when the codec does nothing.
    kernels: Option<[Arc<dyn Kernel>; 2]>,
}

impl Bound {
    pub(super) fn step(&self) -> Step {
        Step::ScaleOffset {
            t: self.data_type,
            parameters: self.parameters,
            kernels: Kernels(self.kernels.clone()),
        }
    }

    /// One element through the kernel of `direction` (see [`blockwise::one`]).
    pub(super) fn convert_one(
        &self,
        direction: Direction,
        bits: u64,
    ) -> Result<u64, ScaleOffsetError> {
        let Some(kernels) = &self.kernels else {
            return Ok(bits);
        };
        let kernel = &kernels[usize::from(direction == Direction::Decode)];
        blockwise::one(kernel.as_ref(), bits, self.data_type.kind())
            .map_err(|fault| element_error(self, direction, fault, None))
    }
}

fn invalid(message: impl Into<String>) -> ScaleOffsetError {
    ScaleOffsetError::InvalidConfiguration(message.into())
}

impl ScaleOffsetCodec {
    /// Creates a `scale_offset` codec subtracting `offset` and multiplying by `scale` when
    /// encoding: numbers, or any scalar of the fill-value encoding (`"0x..."` hex strings).
    ///
    /// ```rust
    /// use zarrs_scale_offset_cast::ScaleOffsetCodec;
    /// let reflectance = ScaleOffsetCodec::new(-0.1, 10000)?;
    /// # Ok::<(), zarrs_scale_offset_cast::ScaleOffsetError>(())
    /// ```
    ///
    /// # Errors
    /// Returns a [`ScaleOffsetError`] if a parameter is not a scalar, or is not finite, or the
    /// scale is zero. Whether they are values of the data type is checked when the codec meets it.
    pub fn new(
        offset: impl Into<FillValueMetadata>,
        scale: impl Into<FillValueMetadata>,
    ) -> Result<Self, ScaleOffsetError> {
        let configuration = ScaleOffsetCodecConfigurationV1 {
            offset: Some(offset.into()),
            scale: Some(scale.into()),
        };
        Self::from_v1(configuration)
    }

    /// Creates a `scale_offset` codec from a configuration.
    ///
    /// # Errors
    /// Returns [`PluginCreateError::ConfigurationInvalid`] if `offset` or `scale` is not a JSON
    /// scalar, is not finite, or the scale is zero.
    pub fn new_with_configuration(
        configuration: &ScaleOffsetCodecConfiguration,
    ) -> Result<Self, PluginCreateError> {
        match configuration {
            ScaleOffsetCodecConfiguration::V1(configuration) => {
                Ok(Self::from_v1(configuration.clone())?)
            }
        }
    }

    /// Creates the codec from the `configuration` of its metadata (empty if absent).
    pub(super) fn from_metadata(configuration: &Configuration) -> Result<Self, ScaleOffsetError> {
        if let Some((key, _)) = configuration.iter().find(|(_, value)| value.is_null()) {
            return Err(invalid(format!(
                "{key} must not be null; omit it for the identity"
            )));
        }
        let configuration =
            serde_json::from_value(serde_json::Value::Object((**configuration).clone()))
                .map_err(|error| invalid(error.to_string()))?;
        Self::from_v1(configuration)
    }

    /// Creates the codec from a typed configuration, which is kept to be written back unchanged.
    fn from_v1(configuration: ScaleOffsetCodecConfigurationV1) -> Result<Self, ScaleOffsetError> {
        for (field, json) in [
            ("offset", &configuration.offset),
            ("scale", &configuration.scale),
        ] {
            if let Some(json) = json {
                check_parameter(field, json)?;
            }
        }
        Ok(Self {
            configuration,
            binding: Binding::default(),
            place: Place::default(),
        })
    }

    /// The `offset` of the configuration, as given; `None` where it is absent (0).
    #[must_use]
    pub fn offset(&self) -> Option<&FillValueMetadata> {
        self.configuration.offset.as_ref()
    }

    /// The `scale` of the configuration, as given; `None` where it is absent (1).
    #[must_use]
    pub fn scale(&self) -> Option<&FillValueMetadata> {
        self.configuration.scale.as_ref()
    }

    pub(super) fn bound(&self, data_type: &DataType) -> Result<Arc<Bound>, ScaleOffsetError> {
        self.binding.get(data_type, || self.bind(data_type))
    }

    /// Reads `offset` and `scale` as values of `data_type` and chooses the kernels.
    fn bind(&self, data_type: &DataType) -> Result<Bound, ScaleOffsetError> {
        let t = numeric_type(data_type).ok_or_else(|| ScaleOffsetError::UnsupportedDataType {
            data_type: data_type.clone(),
        })?;
        let read = |field: &'static str, json: &Option<FillValueMetadata>| {
            let Some(json) = json else {
                return Ok(None);
            };
            let value = parse_scalar(t, json, false)
                .map(|bits| decode(t.kind(), bits))
                .map_err(|reason| ScaleOffsetError::InvalidParameter {
                    field,
                    json: json.to_string(),
                    data_type: t.name(),
                    reason: reason.to_string(),
                })?;
            // Judged by value in the data type, whatever the spelling.
            if !matches!(value, Value::Finite { .. }) {
                return Err(ScaleOffsetError::NonFinite {
                    field,
                    json: json.to_string(),
                });
            }
            if field == "scale" && value.is_zero() {
                return Err(ScaleOffsetError::ZeroScale {
                    json: json.to_string(),
                });
            }
            Ok(Some(value))
        };
        let parameters = Parameters {
            offset: read("offset", &self.configuration.offset)?,
            scale: read("scale", &self.configuration.scale)?,
        };
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

    /// Encodes the fill value, as the specification requires (a fill value whose encode cannot
    /// be decoded again is taken, since reading needs only the encoded fill value).
    pub(super) fn encode_fill_value(
        bound: &Bound,
        fill_value: &FillValue,
    ) -> Result<Vec<u8>, ScaleOffsetError> {
        let bytes = fill_value.as_ne_bytes();
        let t = bound.data_type;
        check_fill_size(bytes.len(), t.size()).map_err(ScaleOffsetError::from)?;
        let bits = element_bits(bytes);
        let x = decode(t.kind(), bits);
        let error = |reason: String| ScaleOffsetError::FillValue {
            value: x.to_string(),
            data_type: t.name(),
            reason,
        };
        if bound.kernels.is_none() {
            return Ok(bytes.to_vec());
        }
        let p = bound.parameters;
        let encoded =
            element(t, Direction::Encode, p, bits).or_else(|fault| match fault.encoded {
                // Taken: reading needs only the encoded fill value.
                Some(y) => Ok(encode(y, t.kind(), NearestEven, None).expect("a value of the type")),
                _ => Err(error(format!(
                    "cannot be encoded: {}",
                    reason(t, p, Direction::Encode, x, fault)
                ))),
            })?;
        let mut out = vec![0u8; t.size()];
        write_element_bits(encoded, &mut out);
        Ok(out)
    }

    /// For a write: the fill value must come back bit for bit (see [`check_fill_rule`]).
    fn check_fill_rule(
        bound: &Bound,
        fill_value: &FillValue,
        context: Option<&Context>,
    ) -> Result<(), Error> {
        let round_trip = |bits| {
            let encoded = bound.convert_one(Direction::Encode, bits).ok()?;
            bound.convert_one(Direction::Decode, encoded).ok()
        };
        let fill = (bound.data_type, fill_value.as_ne_bytes());
        check_fill_rule(context, fill, NAME, round_trip)
    }

    pub(super) fn convert<'a>(
        &self,
        direction: Direction,
        bytes: ArrayBytes<'a>,
        shape: &[NonZeroU64],
        data_type: &DataType,
        fill_value: &FillValue,
        options: &CodecOptions,
    ) -> Result<ArrayBytes<'a>, CodecError> {
        let bound = self.bound(data_type)?;
        // A write checks the fill value as the specification requires; a read does not need it.
        if direction == Direction::Encode {
            Self::encode_fill_value(&bound, fill_value)?;
        } else {
            check_fill_size(fill_value.size(), bound.data_type.size())
                .map_err(ScaleOffsetError::from)?;
        }
        let bytes = bytes.into_fixed()?;
        check_length(bytes.len(), shape, bound.data_type.size()).map_err(ScaleOffsetError::from)?;
        let context = match direction {
            Direction::Encode => self.place.get(data_type, fill_value),
            Direction::Decode => None,
        };
        if direction == Direction::Encode {
            Self::check_fill_rule(&bound, fill_value, context)?;
        }
        let Some(kernels) = &bound.kernels else {
            // No offset and no scale: no arithmetic at all.
            return Ok(ArrayBytes::new_flen(bytes));
        };
        let kernel = &kernels[usize::from(direction == Direction::Decode)];
        let (step, threads) = (|| bound.step(), options.concurrent_target());
        let input = bound.data_type;
        let converted = convert_chunk(kernel.as_ref(), step, context, input, bytes, threads)
            .map_err(|(fault, written)| element_error(&bound, direction, fault, written))?;
        Ok(ArrayBytes::new_flen(converted))
    }
}

/// The error for an element of a chunk.
fn element_error(
    bound: &Bound,
    direction: Direction,
    fault: ElementFault,
    written: Option<Box<str>>,
) -> ScaleOffsetError {
    ScaleOffsetError::Element {
        direction,
        index: fault.index,
        value: fault.value.to_string(),
        written,
        data_type: bound.data_type.name(),
        kind: fault.fault.into(),
        encoded: fault
            .fault
            .encoded
            .map(|encoded| encoded.to_string().into()),
        reason: reason(
            bound.data_type,
            bound.parameters,
            direction,
            fault.value,
            fault.fault,
        )
        .into(),
    }
}
