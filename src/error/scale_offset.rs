//! Errors of the `scale_offset` codec.

use zarrs::array::DataType;

use super::written_note;
use crate::{Direction, ElementErrorKind};

/// An error of the `scale_offset` codec.
///
/// Each message names the codec and the configuration field or the element (index and value),
/// and says what to change. zarrs reports configuration errors found when an array is opened as
/// [`PluginCreateError::ConfigurationInvalid`](zarrs::plugin::PluginCreateError), and the others
/// as [`CodecError`](zarrs::array::codec::api::CodecError) (an unsupported data type as
/// `CodecError::UnsupportedDataType`); see [`crate::Error`] for getting this type back.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScaleOffsetError {
    /// The configuration is invalid.
    #[error("scale_offset: {0}")]
    InvalidConfiguration(String),
    /// The scale is zero, so decoding would divide by zero.
    #[error("scale_offset: scale {json} is zero; it must not be (decoding divides by it)")]
    ZeroScale {
        /// The JSON of the scale.
        json: String,
    },
    /// `offset` or `scale` is NaN or infinite, which would turn every element into NaN or an
    /// infinity.
    #[error(
        "scale_offset: {field} {json} is not finite; a NaN or infinite {field} turns every element into NaN or an infinity"
    )]
    NonFinite {
        /// `"offset"` or `"scale"`.
        field: &'static str,
        /// The JSON of the parameter.
        json: String,
    },
    /// The data type entering the codec is not a real-number data type.
    #[error(
        "scale_offset: the data type {} is not supported; scale_offset applies to integer and floating-point data types",
        data_type.name_v3().unwrap_or_default()
    )]
    UnsupportedDataType {
        /// The data type.
        data_type: DataType,
    },
    /// `offset` or `scale` is not a value of the input data type.
    #[error("scale_offset: {field} {json} is not a valid {data_type} value: {reason}")]
    InvalidParameter {
        /// `"offset"` or `"scale"`.
        field: &'static str,
        /// The JSON of the parameter.
        json: String,
        /// The input data type of the codec.
        data_type: &'static str,
        /// Why it is not.
        reason: String,
    },
    /// An element has no representable result.
    #[error(
        "scale_offset: cannot {direction} element {index} of the chunk ({value}{}) of {data_type}: {reason}",
        written_note(written.as_deref())
    )]
    Element {
        /// Encoding or decoding.
        direction: Direction,
        /// The index of the element in the chunk, in C order (in a partial read, in the part of
        /// the chunk read).
        index: usize,
        /// The value of the element.
        value: String,
        /// The value written to the array that reached the codec as `value`, where codecs
        /// before it changed it and the write went through a
        /// [`CheckedArray`](crate::CheckedArray), whose codecs know the codecs before them.
        written: Option<Box<str>>,
        /// The data type.
        data_type: &'static str,
        /// What went wrong (for an element whose encode succeeded, what went wrong decoding it).
        kind: ElementErrorKind,
        /// What the element encodes to, where its encode succeeded but the decode of that value
        /// fails, so that the chunk could not be read back: the write is refused.
        encoded: Option<Box<str>>,
        /// Why, and what to change.
        reason: Box<str>,
    },
    /// The fill value cannot pass through the codec.
    #[error("scale_offset: the fill value {value} ({data_type}) {reason}")]
    FillValue {
        /// The fill value.
        value: String,
        /// Its data type.
        data_type: &'static str,
        /// Why it fails.
        reason: String,
    },
    /// The bytes, shape or fill value passed to the codec do not match each other.
    #[error("scale_offset: {0}")]
    InvalidInput(String),
}

impl From<super::input::InputError> for ScaleOffsetError {
    fn from(error: super::input::InputError) -> Self {
        Self::InvalidInput(error.to_string())
    }
}
