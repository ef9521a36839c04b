//! Errors of both codecs and their conversion into zarrs' error types.

use zarrs::array::codec::api::CodecError;
use zarrs::plugin::{PluginConfigurationInvalidError, PluginCreateError};

use crate::cast_value::CastValueError;
use crate::numeric::Value;
use crate::scale_offset::ScaleOffsetError;

/// The direction of a codec operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Encoding (writing).
    Encode,
    /// Decoding (reading).
    Decode,
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Encode => "encode",
            Self::Decode => "decode",
        })
    }
}

/// Why an element has no acceptable result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FaultKind {
    /// NaN, and the output type has no NaN.
    NanNotRepresentable,
    /// ±Infinity, and the output type has no infinities.
    InfinityNotRepresentable,
    /// Outside the range of the output type (after rounding), and no out-of-range mode handles it.
    OutOfRange,
    /// An integer division by the scale that leaves a remainder.
    NotExact,
}

/// The first element of a chunk that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ElementFault {
    /// The index of the element (C order, within the bytes the codec received).
    pub(crate) index: usize,
    /// Why it failed.
    pub(crate) kind: FaultKind,
    /// The value of the element.
    pub(crate) value: Value,
}

impl ElementFault {
    /// The same fault with its index moved by `by` elements.
    #[must_use]
    pub(crate) fn offset(mut self, by: usize) -> Self {
        self.index += by;
        self
    }
}

impl From<ScaleOffsetError> for CodecError {
    fn from(error: ScaleOffsetError) -> Self {
        match error {
            ScaleOffsetError::UnsupportedDataType { data_type } => {
                Self::UnsupportedDataType(data_type, crate::scale_offset::NAME.to_string())
            }
            other => Self::Other(other.to_string()),
        }
    }
}

impl From<ScaleOffsetError> for PluginCreateError {
    fn from(error: ScaleOffsetError) -> Self {
        Self::ConfigurationInvalid(PluginConfigurationInvalidError::new(error.to_string()))
    }
}

impl From<CastValueError> for CodecError {
    fn from(error: CastValueError) -> Self {
        match error {
            CastValueError::UnsupportedDataType { data_type } => {
                Self::UnsupportedDataType(data_type, crate::cast_value::NAME.to_string())
            }
            other => Self::Other(other.to_string()),
        }
    }
}

impl From<CastValueError> for PluginCreateError {
    fn from(error: CastValueError) -> Self {
        Self::ConfigurationInvalid(PluginConfigurationInvalidError::new(error.to_string()))
    }
}
