//! The `scale_offset` codec configuration.

use serde::{Deserialize, Serialize};
use zarrs::array::FillValueMetadata;
use zarrs::metadata::ConfigurationSerialize;

use super::ScaleOffsetError;
use crate::numeric::check_scalar_syntax;

/// A wrapper to handle various versions of `scale_offset` codec configuration parameters.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
#[non_exhaustive]
#[serde(untagged)]
pub enum ScaleOffsetCodecConfiguration {
    /// Version 1.0.
    V1(ScaleOffsetCodecConfigurationV1),
}

impl ConfigurationSerialize for ScaleOffsetCodecConfiguration {}

impl From<ScaleOffsetCodecConfigurationV1> for ScaleOffsetCodecConfiguration {
    fn from(configuration: ScaleOffsetCodecConfigurationV1) -> Self {
        Self::V1(configuration)
    }
}

/// `scale_offset` codec configuration parameters (version 1.0).
///
/// Both fields are scalars in the fill-value encoding of the codec's input data type; a missing
/// field is the identity (`offset` 0, `scale` 1), and with both missing the codec does nothing.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct ScaleOffsetCodecConfigurationV1 {
    /// The value subtracted from each element when encoding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<FillValueMetadata>,
    /// The value each element is multiplied by when encoding, after the offset is subtracted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<FillValueMetadata>,
}

impl ConfigurationSerialize for ScaleOffsetCodecConfigurationV1 {}

/// Rejects, before the data type is known, the parameters that are zero (`scale`) or not finite in
/// every data type that holds them: numeric zeros, and `"NaN"` and the infinities. (Hex strings
/// are judged by their value once the data type is known: `"0x00"` is 2^-127 in
/// `float8_e8m0fnu`.)
pub(super) fn check_parameter(
    field: &'static str,
    json: &FillValueMetadata,
) -> Result<(), ScaleOffsetError> {
    check_scalar_syntax(json, false).map_err(|reason| {
        ScaleOffsetError::InvalidConfiguration(format!("{field} {json} is not a scalar: {reason}"))
    })?;
    match json {
        FillValueMetadata::String(s) if matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity") => {
            Err(ScaleOffsetError::NonFinite {
                field,
                json: json.to_string(),
            })
        }
        FillValueMetadata::Number(n) if field == "scale" && n.as_f64() == Some(0.0) => {
            Err(ScaleOffsetError::ZeroScale {
                json: json.to_string(),
            })
        }
        _ => Ok(()),
    }
}
