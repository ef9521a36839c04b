//! The `scale_offset` codec configuration.

use serde::{Deserialize, Serialize};
use zarrs::array::FillValueMetadata;
use zarrs::metadata::ConfigurationSerialize;

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
