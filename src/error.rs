//! The crate's errors and their conversion into zarrs' error types.

use std::sync::Arc;

use zarrs::array::ArrayError;
use zarrs::array::codec::api::CodecError;
use zarrs::plugin::{PluginConfigurationInvalidError, PluginCreateError};

use crate::cast_value::CastValueError;
use crate::fault::{Fault, FaultKind};
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

/// An error of this crate, as zarrs passes it on: an error of one of its codecs, or of
/// [`validate_array`](crate::validate_array).
///
/// zarrs' error types carry no errors of plugins, so the codecs hand theirs to zarrs inside
/// [`CodecError::IOError`] (of kind [`std::io::ErrorKind::InvalidData`], whose message is this
/// error's), except an unsupported data type, which is [`CodecError::UnsupportedDataType`].
/// [`Error::find`] gets this error back from any zarrs error that holds one:
///
/// ```rust
/// # use std::sync::Arc;
/// # use zarrs::array::{ArrayBuilder, data_type};
/// # use zarrs::storage::store::MemoryStore;
/// use zarrs_scale_offset_cast::{CastValueCodec, CastValueError, ElementErrorKind, Error};
/// # let store = Arc::new(MemoryStore::new());
/// let array = ArrayBuilder::new(vec![4], vec![4], data_type::int32(), 0i32)
///     .array_to_array_codecs(vec![Arc::new(CastValueCodec::builder(data_type::int8()).build()?)])
///     .build(store, "/a")?;
/// let error = array.store_chunk(&[0], vec![1i32, 2, 300, 4]).unwrap_err();
/// match Error::find(&error) {
///     Some(Error::CastValue(CastValueError::Element { index, kind, .. })) => {
///         assert_eq!((*index, *kind), (2, ElementErrorKind::OutOfRange));
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An error of the `scale_offset` codec.
    #[error(transparent)]
    ScaleOffset(#[from] ScaleOffsetError),
    /// An error of the `cast_value` codec.
    #[error(transparent)]
    CastValue(#[from] CastValueError),
    /// The array's `fill_value` is not a valid scalar of its data type, or zarrs read it as
    /// another value.
    #[error("fill_value {json}: {reason}")]
    FillValue {
        /// The JSON of the fill value.
        json: String,
        /// Why, and what to change.
        reason: String,
    },
}

impl Error {
    /// The error of this crate that `error` (a zarrs error, or any error) holds, if any.
    #[must_use]
    pub fn find<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a Self> {
        if let Some(error) = error.downcast_ref::<Self>() {
            return Some(error);
        }
        if let Some(error) = error.downcast_ref::<ArrayError>() {
            return match error {
                ArrayError::CodecError(error) => Self::find(error),
                _ => None,
            };
        }
        if let Some(CodecError::IOError(error)) = error.downcast_ref::<CodecError>() {
            return Self::find(error.as_ref());
        }
        if let Some(error) = error.downcast_ref::<std::io::Error>() {
            return error
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<Self>());
        }
        error.source().and_then(Self::find)
    }
}

impl From<Error> for CodecError {
    fn from(error: Error) -> Self {
        match error {
            Error::ScaleOffset(ScaleOffsetError::UnsupportedDataType { data_type }) => {
                Self::UnsupportedDataType(data_type, crate::scale_offset::NAME.to_string())
            }
            Error::CastValue(CastValueError::UnsupportedDataType { data_type }) => {
                Self::UnsupportedDataType(data_type, crate::cast_value::NAME.to_string())
            }
            other => Self::IOError(Arc::new(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                other,
            ))),
        }
    }
}

impl From<Error> for ArrayError {
    fn from(error: Error) -> Self {
        Self::CodecError(error.into())
    }
}

impl From<ScaleOffsetError> for CodecError {
    fn from(error: ScaleOffsetError) -> Self {
        Error::from(error).into()
    }
}

impl From<CastValueError> for CodecError {
    fn from(error: CastValueError) -> Self {
        Error::from(error).into()
    }
}

impl From<ScaleOffsetError> for PluginCreateError {
    fn from(error: ScaleOffsetError) -> Self {
        Self::ConfigurationInvalid(PluginConfigurationInvalidError::new(error.to_string()))
    }
}

impl From<CastValueError> for PluginCreateError {
    fn from(error: CastValueError) -> Self {
        Self::ConfigurationInvalid(PluginConfigurationInvalidError::new(error.to_string()))
    }
}
