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

/// Why an element of a chunk could not be encoded or decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ElementErrorKind {
    /// The value lies outside the range of the output data type (after rounding), and no
    /// out-of-range mode handles it; for `scale_offset`, an operation leaves the data type's range.
    OutOfRange,
    /// NaN, and the output data type has no NaN.
    NanNotRepresentable,
    /// ±Infinity, and the output data type has no infinities.
    InfinityNotRepresentable,
    /// An integer `scale_offset` decode whose division by the scale leaves a remainder.
    NotExact,
    /// The element's bits are not an encoding of its data type (spare bits set in a type narrower
    /// than its byte, such as an int4 byte holding 100).
    InvalidEncoding,
    /// Encoding succeeded, but decoding the result with the same configuration would fail, so
    /// the chunk could never be read.
    Unreadable,
    /// The element equals the fill value, which does not come back from the codec unchanged, so
    /// it would read differently from the fill value of chunks never written.
    FillValueChanges,
}

impl std::fmt::Display for ElementErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::OutOfRange => "out of range",
            Self::NanNotRepresentable => "NaN not representable",
            Self::InfinityNotRepresentable => "infinity not representable",
            Self::NotExact => "not exact",
            Self::InvalidEncoding => "invalid encoding",
            Self::Unreadable => "unreadable",
            Self::FillValueChanges => "fill value changes",
        })
    }
}

impl From<Fault> for ElementErrorKind {
    fn from(fault: Fault) -> Self {
        if fault.encoded.is_some() {
            return Self::Unreadable;
        }
        match fault.kind {
            FaultKind::NanNotRepresentable => Self::NanNotRepresentable,
            FaultKind::InfinityNotRepresentable => Self::InfinityNotRepresentable,
            FaultKind::OutOfRange => Self::OutOfRange,
            FaultKind::NotExact => Self::NotExact,
            FaultKind::InvalidEncoding => Self::InvalidEncoding,
        }
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
    /// The element's bits are not an encoding of its data type (spare bits set in a type narrower
    /// than its byte).
    InvalidEncoding,
}

/// Why an element failed: its own fault, or, for an encode that succeeded, the fault of
/// decoding the result again with the same configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fault {
    /// What went wrong (when `encoded` is set: what decoding it gives).
    pub(crate) kind: FaultKind,
    /// The encoded value that cannot be decoded, for an encode that would write it.
    pub(crate) encoded: Option<Value>,
}

impl From<FaultKind> for Fault {
    fn from(kind: FaultKind) -> Self {
        Self {
            kind,
            encoded: None,
        }
    }
}

/// The first element of a chunk that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ElementFault {
    /// The index of the element (C order, within the bytes the codec received).
    pub(crate) index: usize,
    /// Why it failed.
    pub(crate) fault: Fault,
    /// The value of the element (for [`FaultKind::InvalidEncoding`]: its bits as an unsigned
    /// integer).
    pub(crate) value: Value,
}

/// The byte of an element reported for [`FaultKind::InvalidEncoding`] (by its bits).
pub(crate) fn encoding_byte(value: Value) -> u64 {
    match value {
        Value::Finite { significand, .. } => significand & 0xff,
        _ => 0,
    }
}

impl ElementFault {
    /// A fault of the element's own.
    #[cfg(test)]
    pub(crate) fn new(index: usize, kind: FaultKind, value: Value) -> Self {
        Self {
            index,
            fault: kind.into(),
            value,
        }
    }

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
