//! The crate's errors named as the conformance vectors name error kinds (`out_of_range`,
//! `fill_value`, ...), for the conformance vectors ([`super::vectors`]).

use zarrs::array::ArrayError;
use zarrs::array::codec::api::CodecError;
use zarrs_scale_offset_cast::{CastValueError, ElementErrorKind, Error, ScaleOffsetError};

/// An error of a case: its kind, as the vectors name kinds, and its message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) kind: String,
    pub(crate) message: String,
    pub(crate) error: Option<Box<Error>>,
}

impl Failure {
    /// An error zarrs reports when it creates an array: its codecs' configuration errors reach
    /// it as text.
    pub(crate) fn at_open(error: &dyn std::error::Error) -> Self {
        let message = error.to_string();
        let kind = if message.contains("is not supported") {
            "unsupported_dtype"
        } else {
            "invalid_config"
        };
        Self {
            kind: kind.to_string(),
            message,
            error: None,
        }
    }

    /// An error of a read, write or validation.
    pub(crate) fn of(error: &ArrayError) -> Self {
        let found = Error::find(error).cloned().map(Box::new);
        let kind = match &found {
            Some(error) => kind(error),
            None => match error {
                ArrayError::CodecError(CodecError::UnsupportedDataType(..)) => {
                    "unsupported_dtype".into()
                }
                _ => format!("other ({error})"),
            },
        };
        Self {
            kind,
            message: error.to_string(),
            error: found,
        }
    }
}

/// The kind of an element fault, as the vectors name it: `to` is the type the failing cast goes
/// to.
pub(crate) fn element_kind(kind: ElementErrorKind, to: &str) -> String {
    let integer = zarrs_scale_offset_cast_reference::is_integer(to);
    match kind {
        ElementErrorKind::NanNotRepresentable if integer => "nan_to_int",
        ElementErrorKind::NanNotRepresentable => "nan_not_representable",
        ElementErrorKind::InfinityNotRepresentable if integer => "inf_to_int",
        ElementErrorKind::InfinityNotRepresentable => "inf_not_representable",
        ElementErrorKind::NotExact => "not_exact",
        ElementErrorKind::InvalidEncoding => "invalid_encoding",
        _ => "out_of_range",
    }
    .to_string()
}

/// The kind of one of the crate's errors.
pub(crate) fn kind(error: &Error) -> String {
    match error {
        Error::ScaleOffset(ScaleOffsetError::Element {
            kind, data_type, ..
        }) => element_kind(*kind, data_type),
        Error::CastValue(CastValueError::Element {
            kind,
            from,
            to,
            encoded,
            ..
        }) => {
            // An encode refused because its result does not decode: the decode's fault.
            element_kind(*kind, if encoded.is_some() { from } else { to })
        }
        Error::ScaleOffset(ScaleOffsetError::FillValue { .. })
        | Error::CastValue(CastValueError::FillValue { .. })
        | Error::FillValue { .. }
        | Error::FillValueChanges { .. } => "fill_value".into(),
        Error::ScaleOffset(ScaleOffsetError::UnsupportedDataType { .. })
        | Error::CastValue(CastValueError::UnsupportedDataType { .. }) => {
            "unsupported_dtype".into()
        }
        Error::ChainUnreadable { .. } => "chain_unreadable".into(),
        _ => "invalid_config".into(),
    }
}
