//! Errors of the `cast_value` codec.

use zarrs::array::DataType;

use super::written_note;
use crate::{Direction, ElementErrorKind};

/// An error of the `cast_value` codec.
///
/// Each message names the codec and the configuration field or the element (index and value),
/// and says what to change. zarrs reports configuration errors found when an array is opened as
/// [`PluginCreateError::ConfigurationInvalid`](zarrs::plugin::PluginCreateError), and the others
/// as [`CodecError`](zarrs::array::codec::api::CodecError) (an unsupported data type as
/// `CodecError::UnsupportedDataType`); see [`crate::Error`] for getting this type back.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CastValueError {
    /// The configuration is invalid.
    #[error("cast_value: {0}")]
    InvalidConfiguration(String),
    /// The data type entering the codec is not a real-number data type.
    #[error(
        "cast_value: the data type {} is not supported; cast_value converts integer and floating-point data types",
        data_type.name_v3().unwrap_or_default()
    )]
    UnsupportedDataType {
        /// The data type.
        data_type: DataType,
    },
    /// A `scalar_map` entry is not a value of its data type.
    #[error(
        "cast_value: scalar_map.{direction}[{position}] {side} {json} is not a valid {data_type} value: {reason}"
    )]
    InvalidScalarMapEntry {
        /// The map.
        direction: Direction,
        /// The index of the entry.
        position: usize,
        /// `"key"` or `"value"`.
        side: &'static str,
        /// The JSON of the scalar.
        json: String,
        /// The data type it must be a value of.
        data_type: &'static str,
        /// Why it is not.
        reason: String,
    },
    /// An element has no acceptable result.
    #[error(
        "cast_value: cannot {direction} element {index} of the chunk ({value}{}) from {from} to {to}: {reason}",
        written_note(written.as_deref())
    )]
    Element {
        /// Encoding or decoding.
        direction: Direction,
        /// The index of the element in the chunk, in C order (in a partial read, in the part of
        /// the chunk read).
        index: usize,
        /// The value of the element (for [`ElementErrorKind::InvalidEncoding`], its byte).
        value: String,
        /// The value written to the array that reached the codec as `value`, where codecs
        /// before it changed it and the write went through a
        /// [`CheckedArray`](crate::CheckedArray), whose codecs know the codecs before them.
        written: Option<Box<str>>,
        /// The data type of the element.
        from: &'static str,
        /// The data type it is cast to.
        to: &'static str,
        /// What went wrong (for an element whose encode succeeded, what went wrong decoding it).
        kind: ElementErrorKind,
        /// What the element encodes to, where its encode succeeded but the decode of that value
        /// fails, so that the chunk could not be read back: the write is refused.
        encoded: Option<Box<str>>,
        /// Why, and what to change.
        reason: Box<str>,
    },
    /// The fill value cannot pass through the codec and back.
    #[error("cast_value: the fill value {value} ({data_type}) {reason}")]
    FillValue {
        /// The fill value entering the codec.
        value: String,
        /// Its data type.
        data_type: &'static str,
        /// Why it fails, and what to change.
        reason: String,
    },
    /// The bytes, shape or fill value passed to the codec do not match each other.
    #[error("cast_value: {0}")]
    InvalidInput(String),
}

impl From<super::input::InputError> for CastValueError {
    fn from(error: super::input::InputError) -> Self {
        Self::InvalidInput(error.to_string())
    }
}
