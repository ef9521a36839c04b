//! What both stores do with a byte range.

use zarrs_storage::byte_range::ByteRange;
use zarrs_storage::{StorageError, StoreKey};

pub(crate) fn other(err: impl std::fmt::Display) -> StorageError {
    StorageError::Other(err.to_string())
}

/// The length of `range`, where it does not depend on the object's size.
pub(crate) fn range_len(range: ByteRange) -> Option<u64> {
    match range {
        ByteRange::FromStart(_, len) => len,
        ByteRange::Suffix(len) => Some(len),
    }
}

pub(crate) fn beyond_the_object(range: ByteRange, key: &StoreKey) -> StorageError {
    StorageError::Other(format!("{key}: the range {range} lies beyond the object"))
}
