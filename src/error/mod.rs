//! The crate's errors and their conversion into zarrs' error types.

use std::sync::Arc;

use zarrs::array::ArrayError;
use zarrs::array::codec::api::CodecError;
use zarrs::plugin::{PluginConfigurationInvalidError, PluginCreateError};

mod cast_value;
pub(crate) mod input;
mod scale_offset;

pub use cast_value::CastValueError;
pub use scale_offset::ScaleOffsetError;

use crate::numeric::fault::{Fault, FaultKind};

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
    /// than its byte, such as an int4 byte holding 100), in elements given to a write. Stored
    /// elements are read by their value bits, whatever their spare bits hold.
    InvalidEncoding,
}

impl std::fmt::Display for ElementErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::OutOfRange => "out of range",
            Self::NanNotRepresentable => "NaN not representable",
            Self::InfinityNotRepresentable => "infinity not representable",
            Self::NotExact => "not exact",
            Self::InvalidEncoding => "invalid encoding",
        })
    }
}

impl From<Fault> for ElementErrorKind {
    fn from(fault: Fault) -> Self {
        fault.kind.into()
    }
}

impl From<FaultKind> for ElementErrorKind {
    fn from(kind: FaultKind) -> Self {
        match kind {
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
    /// The fill value does not come back from the codecs bit for bit. zarrs fills the unwritten
    /// part of a chunk it writes, and the part of an edge chunk beyond the array, with the fill
    /// value, while it returns the fill value for chunks never written without running any codec:
    /// such an array would read differently depending on which chunks were written, so writes
    /// are refused (reading is not).
    #[error(
        "fill value {fill_value} comes back from {through} as {becomes}, so the elements zarrs fills in when it writes a chunk (the unwritten part of a chunk, the part of an edge chunk beyond the array) would read as {becomes} but those of chunks never written as {fill_value}; writes are refused: {}",
        survivor.as_ref().map_or_else(
            || "choose a fill value that comes back unchanged".to_string(),
            |s| format!("use the fill value {s}, which comes back unchanged")
        )
    )]
    FillValueChanges {
        /// The fill value (its bits as well, for NaN).
        fill_value: String,
        /// The codec, or the chain, that changes it.
        through: String,
        /// What it comes back as (`an error` if it does not come back at all).
        becomes: String,
        /// A fill value near it that comes back unchanged, if one is found.
        survivor: Option<String>,
    },
    /// A codec of the chain cannot decode a value that a later codec of the chain can hand back
    /// to it (where that codec rounds, clamps, wraps or maps what it stores), so a write could
    /// succeed and never be read. [`validate_array`](crate::validate_array) reports it.
    #[error(
        "{codec} cannot decode {value} ({kind}), which {origin} can hand back to it, so written chunks might never be read; {advice}"
    )]
    ChainUnreadable {
        /// The codec whose decode fails.
        codec: String,
        /// The later codec that hands the value back, and what it does to values.
        origin: String,
        /// A value that fails, with its data type.
        value: String,
        /// Why its decode fails.
        kind: ElementErrorKind,
        /// What to change.
        advice: String,
    },
}

/// An element of `t` given by its bits, as messages show it: its value, and its bits for NaN.
pub(crate) fn describe_bits(t: crate::numeric::NumericType, bits: u64) -> String {
    let value = crate::numeric::decode(t.kind(), bits);
    if value.is_nan() {
        let hex = format!("{bits:016x}");
        format!("NaN (0x{})", &hex[16 - 2 * t.size()..])
    } else if t == crate::numeric::NumericType::Float32
        && !matches!(value, crate::numeric::Value::Infinity { .. })
    {
        // The shortest decimal that reads back as this float32.
        #[expect(
            clippy::cast_possible_truncation,
            reason = "the low 32 bits of a float32"
        )]
        let x = f32::from_bits(bits as u32);
        format!("{x:?}").trim_end_matches(".0").to_string()
    } else {
        value.to_string()
    }
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
                Self::UnsupportedDataType(data_type, "scale_offset".to_string())
            }
            Error::CastValue(CastValueError::UnsupportedDataType { data_type }) => {
                Self::UnsupportedDataType(data_type, "cast_value".to_string())
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

/// The part of an element's message naming the value written to the array, where codecs before
/// the one that failed changed it.
pub(crate) fn written_note(written: Option<&str>) -> String {
    written.map_or_else(String::new, |written| {
        format!(", written to the array as {written}")
    })
}
