//! Why an element failed, as the kernels report it (turned into the codecs' errors by each codec).

use super::Value;

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
